"""Every request gets an answer: a result, or an error with the right code
and one line of text.

pygls answers an exception in a handler with InternalError and the
traceback, and a request whose parameters do not fit the protocol's types
(a negative position, a string for a number) with nothing at all: the client
waits forever.  Here:

* :func:`answered` wraps a request handler: a bad argument
  (:class:`BadArgument`, or the engine's ``TargetError``) is InvalidParams
  (-32602); a command that could not do its work (:class:`CommandFailed`) is
  RequestFailed (-32803); anything unexpected is logged once to the client's
  log (``window/logMessage``, with the traceback) and answered RequestFailed
  with one line.
* :class:`AnsweringProtocol` answers a request whose parameters cannot be
  read with InvalidParams instead of dropping it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import traceback
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

#: LSP's RequestFailed: the request was valid but could not be carried out.
REQUEST_FAILED = -32803


class BadArgument(ValueError):
    """A request's argument is wrong: answered InvalidParams."""


class CommandFailed(Exception):
    """A command could not do its work: answered RequestFailed."""


class RequestFailedError(JsonRpcException):
    CODE = REQUEST_FAILED
    MESSAGE = "Request failed"


def _as_answer(ls: Any, method: str, exc: BaseException) -> JsonRpcException:
    from ..kconfig.howto import TargetError

    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, (BadArgument, TargetError)):
        return JsonRpcInvalidParams(_one_line(exc))
    if isinstance(exc, CommandFailed):
        return RequestFailedError(_one_line(exc))
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    logger.error("%s failed:\n%s", method, text)
    with contextlib.suppress(Exception):  # the log is best effort; the answer still goes out
        ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error,
                                                   message=f"kconfig-ls: {method} failed:\n{text}"))
    return RequestFailedError(f"{method}: unexpected {type(exc).__name__}: {_one_line(exc)} "
                              "(the server log has the details)")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0]
    return first if len(first) <= 300 else first[:299] + "…"


def answered(method: str, fresh_values: bool = False):
    """Decorate the handler of request ``method`` (sync or async).

    While the server has no tree to answer from (it is being built again,
    see ``KconfigServer.pending_tree``), the request waits for it; one that
    shows values (``fresh_values``) also has a Kconfig edit still waiting
    for its re-link patched in first, rather than show the values from
    before the edit.  A sync handler becomes a generator for that: pygls
    runs a handler that a generator yields, as ``(handler, args, kwargs)``,
    and resumes the generator with its result; one that yields nothing is
    answered at once, exactly like the plain function."""

    def wrap(fn):
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run_async(ls, *args):
                wait = _pending(ls, fresh_values)
                if wait is not None:
                    await wait[0](*wait[1], **wait[2])
                try:
                    return await fn(ls, *args)
                except Exception as exc:  # noqa: BLE001 - every failure becomes an answer
                    raise _as_answer(ls, method, exc) from None

            return run_async

        @functools.wraps(fn)
        def run(ls, *args):
            wait = _pending(ls, fresh_values)
            if wait is not None:
                yield wait
            try:
                return fn(ls, *args)
            except Exception as exc:  # noqa: BLE001 - every failure becomes an answer
                raise _as_answer(ls, method, exc) from None

        return run

    return wrap


def _pending(ls: Any, fresh_values: bool) -> tuple | None:
    """What ``ls`` wants a request to wait for first, as pygls' generator
    handlers yield it, or None."""
    pending = getattr(ls, "pending_tree", None)
    return pending(fresh_values) if pending is not None else None


class _Unreadable:
    """A request whose parameters could not be read, to be answered."""

    jsonrpc = "2.0"

    def __init__(self, msg_id: Any, method: str, reason: str):
        self.id = msg_id
        self.method = method
        self.reason = reason


class AnsweringProtocol(LanguageServerProtocol):
    """Answers requests whose parameters do not fit the protocol's types."""

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = exc.__cause__ or exc
                reason = _one_line(cause) if not hasattr(cause, "exceptions") else _first_cause(cause)
                return _Unreadable(data["id"], str(data["method"]), reason)
            raise

    def handle_message(self, message):
        if isinstance(message, _Unreadable):
            error = JsonRpcInvalidParams(f"invalid parameters for {message.method}: {message.reason}")
            self._send_response(message.id, None, error.to_response_error())
            return
        super().handle_message(message)


def _first_cause(group: BaseException) -> str:
    """The innermost message of a cattrs validation error group."""
    while getattr(group, "exceptions", None):
        group = group.exceptions[0]
    return _one_line(group)
