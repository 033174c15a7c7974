"""The server's answer policy, in process: which exception becomes which
JSON-RPC error, and an unexpected one is logged once with its traceback."""

from __future__ import annotations

import asyncio

import pytest
from pygls.exceptions import JsonRpcException

from kconfig_ls.kconfig.howto import TargetError
from kconfig_ls.server.answers import REQUEST_FAILED, BadArgument, CommandFailed, answered


class FakeServer:
    def __init__(self):
        self.logged = []

    def window_log_message(self, params):
        self.logged.append(params)


def raising(exc):
    @answered("kconfig.test")
    def handler(ls, *args):
        raise exc

    return handler


@pytest.mark.parametrize(("exc", "code"), [
    (BadArgument("expected a symbol name, got 42"), -32602),
    (TargetError("E1000 cannot be maybe"), -32602),
    (CommandFailed("no Kconfig tree is loaded"), REQUEST_FAILED),
])
def test_known_failures_get_their_code_and_message(exc, code):
    ls = FakeServer()
    with pytest.raises(JsonRpcException) as info:
        raising(exc)(ls)
    assert info.value.code == code and info.value.message == str(exc) and info.value.data is None
    assert ls.logged == []


def test_an_unexpected_failure_is_logged_once_and_answered_in_one_line():
    ls = FakeServer()
    with pytest.raises(JsonRpcException) as info:
        raising(KeyError("line one\nline two"))(ls)
    assert info.value.code == REQUEST_FAILED and info.value.data is None
    assert "\n" not in info.value.message and "unexpected KeyError" in info.value.message
    assert len(ls.logged) == 1 and "Traceback" in ls.logged[0].message


def test_async_handlers_are_answered_the_same_way():
    @answered("kconfig.async")
    async def handler(ls):
        raise BadArgument("bad")

    with pytest.raises(JsonRpcException) as info:
        asyncio.run(handler(FakeServer()))
    assert info.value.code == -32602 and asyncio.iscoroutinefunction(handler)


def test_results_pass_through():
    @answered("kconfig.ok")
    def handler(ls, value):
        return {"value": value}

    assert handler(FakeServer(), 3) == {"value": 3}
