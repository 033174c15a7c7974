"""Toolchain probes started before they are needed, so they run side by side.

A kernel tree runs about ninety ``$(shell,...)`` commands while it is read
(``$(cc-option,...)`` and its kin: the compiler started once per question
about itself), one after the other as the C tool runs them: over a second of
waiting on x86_64, most of a cold load.  When a file's first command really
has to run, its lexer reads the rest of the file ahead with a copy of the
macro state (:func:`commands_ahead`), and :class:`ProbeRunner` starts the
commands those lines would run in worker threads.  The parse goes on as
before and finds their results ready when it gets there.

Why the values cannot change: the parse still asks for every command, in
its own order, and each answer is used only for the command text it was run
for (same program and arguments, in the same directory and environment);
what moves is only *when* a command runs, which a probe that asks a tool a
question about itself cannot tell.  A line that the parse expands otherwise
than the look-ahead did (a variable assigned by a result) simply runs its
own command; the look-ahead's is dropped.  Help texts and comments are not
expanded ahead, as they are not expanded at all.  Nothing runs ahead for an
untrusted tree: only runners that would run the command themselves offer
to start it early (:class:`Probes`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .errors import KconfigError
from .preprocess import Preprocessor, Variable

if TYPE_CHECKING:
    from .generation import Generation

#: Probes in flight at once: a compiler start is CPU-bound, so one per core.
WORKERS = max(2, os.cpu_count() or 2)


@runtime_checkable
class Probes(Protocol):
    """A command runner that can start commands ahead of their use."""

    def needs_run(self, command: str) -> bool:
        """Whether answering ``command`` would run it (not a cached answer)."""

    def prefetch(self, commands: Iterable[str]) -> None:
        """Start ``commands`` now; their results wait for their calls."""

    def finish(self) -> None:
        """The load is over: what was started ahead and not asked for is dropped."""


class ProbeRunner:
    """Runs commands with ``run``, each either when it is asked for or
    ahead of that, in a worker thread (:meth:`prefetch`).  Used from one
    thread (the load's); :meth:`finish` drops what was never asked for."""

    def __init__(self, run: Callable[[str], str], workers: int = WORKERS):
        self._run = run
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._started: dict[str, Future] = {}
        #: Commands run ahead and then asked for.
        self.used = 0

    def __call__(self, command: str) -> str:
        started = self._started.pop(command, None)
        if started is not None:
            self.used += 1
            return started.result()
        return self._run(command)

    def needs_run(self, command: str) -> bool:
        return command not in self._started

    def prefetch(self, commands: Iterable[str]) -> None:
        for command in commands:
            if command in self._started:
                continue
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="kconfig-probe")
            self._started[command] = self._pool.submit(self._run, command)

    def finish(self) -> None:
        """The load is over: commands not yet started are not started."""
        for started in self._started.values():
            started.cancel()
        self._started.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def commands_ahead(text: str, pos: int, line: int, filename: str, pp: Preprocessor,
                   gen: Generation | None) -> list[str]:
    """The commands the statements of ``text`` from ``pos`` (at ``line``)
    would run, expanded with a copy of ``pp``'s variables that follows
    the assignments on the way; nothing is run, printed or changed."""
    from .lexer import Lexer, assignment  # (the lexer calls this module)

    commands: list[str] = []

    def record(command: str) -> str:
        commands.append(command)
        return ""

    dry = Preprocessor(
        env=pp.env, shell=record, info=_ignore, warn=None,
        variables={name: Variable(v.name, v.value, v.recursive) for name, v in pp.variables.items()},
        env_used=dict(pp.env_used), filename=filename, lineno=line,
    )
    lexer = Lexer(text, filename, dry, _ignore_at, gen)
    lexer.pos, lexer.line = pos, line
    try:
        for stmt in lexer.statements():
            assigned = assignment(stmt.tokens)
            if assigned is not None:
                dry.assign(*assigned)
    except KconfigError:
        pass  # (the parse meets the error itself, and reports it)
    return commands


def _ignore(_text: str) -> None:
    return None


def _ignore_at(_line: int, _message: str) -> None:
    return None
