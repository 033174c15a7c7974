"""Toolchain probes started before they are needed, so they run side by side.

A kernel tree runs about ninety ``$(shell,...)`` commands while it is read
(``$(cc-option,...)`` and its kin: the compiler started once per question
about itself), one after the other as the C tool runs them: over a second of
waiting on x86_64, most of a cold load.  When a file's first command really
has to run, its lexer reads the rest of the file ahead with a copy of the
macro state (:func:`commands_ahead`), the first time on through the files
the tree will source after it (source_walk.py), and :class:`ProbeRunner`
starts the commands those lines would run, the latest look-ahead's first:
for a load's ``$(shell,...)`` in a worker process of its own
(:meth:`ProbeRunner.for_shell`, probe_process.py, probe_worker.py), so that
no thread of the load competes with the parse for the interpreter lock;
for any other runner (and if that process cannot start) in worker threads.
The parse goes on as before and finds their results ready when it gets
there; where it must wait, it does other work meanwhile
(:meth:`Probes.while_waiting`: lexing files ahead, lex_ahead.py).

Why the values cannot change: the parse still asks for every command, in
its own order, and each answer is used only for the command text it was run
for (same program and arguments, in the same directory and environment);
what moves is only *when* a command runs, which a probe that asks a tool a
question about itself cannot tell.  A command built on another's answer is
not started ahead unless that answer is known (:data:`UNKNOWN`); a line the
parse expands otherwise than the look-ahead guessed (a file's path that
the guess expanded with other macro values) simply runs its own command
when asked, and what was started for nothing is dropped.  Help texts and comments are not
expanded ahead, as they are not expanded at all.  Nothing runs ahead for an
untrusted tree: only runners that would run the command themselves offer
to start it early (:class:`Probes`).
"""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .errors import KconfigError
from .preprocess import Preprocessor, Variable, run_shell
from .probe_process import WorkerProcess
from .probe_worker import BatchQueue

if TYPE_CHECKING:
    from .generation import Generation

#: What a command answers in the look-ahead: a command whose text holds an
#: answer (``test "$(cc-name)" = GCC``) cannot be known before that answer,
#: and is not started ahead (it would run a command the parse never asks for).
UNKNOWN = "\0unknown\0"

#: Guesses the files sourced after the named one: (its name, the macro
#: expander for paths) -> (name, text) of each, in order.
FilesAhead = Callable[[str, Callable[[str], str]], Iterable[tuple[str, str]]]

#: Probes in flight at once: a compiler start is CPU-bound, so one per core.
WORKERS = max(2, os.cpu_count() or 2)

#: The interpreter's thread switch interval while worker threads run probes
#: ahead (seconds; Python's default is 0.005).  A worker takes the GIL back
#: after each system call of a probe (the spawn, each read of its output, the
#: wait), and the parse, which holds the GIL all along, hands it over only at
#: the interval: at 5 ms every probe's answer came late by several intervals,
#: and the parse waited 0.40 s for answers on an x86_64 cold load; at 0.5 ms,
#: 0.22 s.  (The worker process avoids the contention altogether.)
SWITCH_INTERVAL = 0.0005


@runtime_checkable
class Probes(Protocol):
    """A command runner that can start commands ahead of their use."""

    def needs_run(self, command: str) -> bool:
        """Whether answering ``command`` would run it (not a cached answer)."""

    def prefetch(self, commands: Iterable[str]) -> None:
        """Start ``commands`` now; their results wait for their calls."""

    def wait_for(self, command: str) -> str:
        """The answer to ``command`` now (run here if no worker has started
        it), kept for the parse's own call."""

    def while_waiting(self, work: Callable[[], bool] | None) -> None:
        """While the load waits for a command started ahead, call ``work``
        (a small piece of it each time; False: nothing left for this wait)
        instead of only waiting."""

    def finish(self) -> None:
        """The load is over: what was started ahead and not asked for is dropped."""


class Answer(Protocol):
    """A command handed to an executor: its answer to come."""

    def take_over(self) -> bool:
        """The load needs the answer now.  True: no worker took the command,
        and none will; the caller runs it itself."""

    def done(self) -> bool:
        """Whether the answer is there (never waits)."""

    def result(self) -> str:
        """The answer (waits for it; raises what running the command raised)."""


class Executor(Protocol):
    """Where :class:`ProbeRunner` sends the commands of its look-aheads."""

    def new_batch(self) -> None:
        """The commands put from now on are the newest look-ahead's."""

    def put(self, command: str) -> Answer:
        """Run ``command`` when a worker is free (newest batch first)."""

    def close(self) -> None:
        """The load is over: commands no worker took are dropped."""


class _Queued(Future):
    """A command waiting in this process's worker threads (:class:`_Queue`)."""

    def take_over(self) -> bool:
        return self.cancel()


class ProbeRunner:
    """Runs commands with ``run``, each either when it is asked for or
    ahead of that (:meth:`prefetch`), by an executor: worker threads, or the
    worker process of :meth:`for_shell`.  Used from one thread (the
    load's); :meth:`finish` drops what was never asked for.

    The latest look-ahead goes first: it was made where the parse is now,
    so its commands are wanted soonest, and those of a look-ahead through
    the rest of the tree wait for the workers meanwhile.  A command the
    parse asks for before any worker took it runs at once: in line (worker
    threads), or in the worker process beside its workers."""

    def __init__(self, run: Callable[[str], str], workers: int = WORKERS,
                 executor: Callable[[], Executor | None] | None = None):
        self._run = run
        self._workers = workers
        #: Makes the executor at the first look-ahead (None, or one that
        #: gives None: worker threads of this process).
        self._new_executor = executor
        self._queue: Executor | None = None
        self._started: dict[str, Answer] = {}
        #: Commands the parse asked for: a look-ahead made in the middle of
        #: a statement meets the ones it already expanded again.
        self._asked: set[str] = set()
        #: Commands run ahead and then asked for.
        self.used = 0
        self._work_while_waiting: Callable[[], bool] | None = None

    def __call__(self, command: str) -> str:
        self._asked.add(command)
        started = self._started.pop(command, None)
        if started is not None:
            if started.take_over():  # (still waiting for a worker)
                return self._run(command)
            self.used += 1
            return self._result(started)
        return self._run(command)

    @classmethod
    def for_shell(cls, cwd: str | None, env: Mapping[str, str] | None, workers: int = WORKERS) -> ProbeRunner:
        """The runner of a load's ``$(shell,...)`` commands (run_shell in
        ``cwd`` with ``env``): ahead of their use in a worker process
        (probe_process.py), or in worker threads if it cannot start."""
        def run(command: str) -> str:
            return run_shell(command, cwd=cwd, env=env)

        def executor() -> Executor | None:
            return WorkerProcess.start(cwd, env, run, workers)

        return cls(run, workers, executor)

    def _result(self, started: Answer) -> str:
        work = self._work_while_waiting
        if work is not None:
            while not started.done() and work():
                pass
        return started.result()

    def needs_run(self, command: str) -> bool:
        return command not in self._started

    def prefetch(self, commands: Iterable[str]) -> None:
        if self._queue is None:
            made = self._new_executor() if self._new_executor is not None else None
            self._queue = made if made is not None else _Queue(self._run, self._workers)
        self._queue.new_batch()
        for command in commands:
            if command not in self._started and command not in self._asked:
                self._started[command] = self._queue.put(command)

    def wait_for(self, command: str) -> str:
        started = self._started.get(command)
        if started is None or started.take_over():  # (not started, or still waiting for a worker)
            started = _Queued()
            self._started[command] = started
            try:
                started.set_result(self._run(command))
            except BaseException as exc:
                started.set_exception(exc)
        return self._result(started)

    def while_waiting(self, work: Callable[[], bool] | None) -> None:
        self._work_while_waiting = work

    def finish(self) -> None:
        """The load is over: commands not yet started are not started."""
        self._work_while_waiting = None
        self._started.clear()
        self._asked.clear()
        if self._queue is not None:
            self._queue.close()
            self._queue = None


class _SwitchInterval:
    """Lowers the interpreter's switch interval to :data:`SWITCH_INTERVAL`
    while any queue is open (loads may overlap in the server), and puts the
    one found back when the last closes; never raises it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._saved = 0.0

    def enter(self) -> None:
        with self._lock:
            if self._open == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, SWITCH_INTERVAL))
            self._open += 1

    def leave(self) -> None:
        with self._lock:
            self._open -= 1
            if self._open == 0:
                sys.setswitchinterval(self._saved)


_switching = _SwitchInterval()


class _Queue:
    """Commands waiting for worker threads of this process (a
    :class:`~.probe_worker.BatchQueue`: the newest batch first)."""

    def __init__(self, run: Callable[[str], str], workers: int):
        self._run = run
        self._workers = workers
        self._threads = 0
        self._waiting: BatchQueue[tuple[str, _Queued]] = BatchQueue()
        self._closed = False
        _switching.enter()

    def new_batch(self) -> None:
        self._waiting.new_batch()

    def put(self, command: str) -> _Queued:
        future = _Queued()
        self._waiting.put((command, future))
        with self._waiting.ready:
            if self._threads < self._workers:
                self._threads += 1
                threading.Thread(target=self._work, name="kconfig-probe", daemon=True).start()
        return future

    def close(self) -> None:
        with self._waiting.ready:  # (closed once, whichever thread comes first)
            if self._closed:
                return
            self._closed = True
        _switching.leave()
        for _command, future in self._waiting.close():
            future.cancel()

    def _work(self) -> None:
        while (item := self._waiting.take()) is not None:
            command, future = item
            if not future.set_running_or_notify_cancel():
                continue  # (asked for meanwhile, and run in line)
            try:
                future.set_result(self._run(command))
            except BaseException as exc:  # (handed to whoever asks for the result)
                future.set_exception(exc)


def commands_ahead(text: str, pos: int, line: int, filename: str, pp: Preprocessor,
                   gen: Generation | None, later_files: FilesAhead | None = None,
                   answer: Callable[[str], str] | None = None) -> Iterator[str]:
    """The commands the statements of ``text`` from ``pos`` (at ``line``)
    would run, then those of the files ``later_files`` guesses the tree
    sources after this one (source_walk.py), expanded with a copy of
    ``pp``'s variables that follows the assignments on the way; nothing is
    printed or changed.  Commands come as they are found, so the first can
    start while later files are still read.

    A command's answer is not known ahead (:data:`UNKNOWN`), except where
    this file assigns it to a variable with ``:=`` (``cc-name :=
    $(shell,...$(cc-info)...)``): there ``answer`` gives it (running the
    command, or waiting for it), as the parse will need it as soon as it
    gets there, and the commands built from the variable can be started.
    Those waits run one command after another, so before them come this
    file's commands that need no answer at all (a first pass with every
    answer unknown: ``cc-info``, ``as-info``, ``ld-info``, the ``-m32`` and
    ``-m64`` flags of the kernel's Kconfig.include), which the workers then
    run side by side while the look-ahead waits."""
    found_first: Counter[str] = Counter()
    if answer is not None:
        independent = _DryRun(pp, filename, line, None)
        for command in independent.run(text, pos, line, filename, gen, answer_assignments=False):
            found_first[command] += 1
            yield command
    dry = _DryRun(pp, filename, line, answer)
    for command in dry.run(text, pos, line, filename, gen, answer_assignments=True):
        if found_first[command]:
            found_first[command] -= 1  # (yielded by the first pass)
        else:
            yield command
    if later_files is None:
        return
    for name, later_text in later_files(filename, dry.pp.expand):
        if "$(" in later_text:
            yield from dry.run(later_text, 0, 1, name, gen, answer_assignments=False)


class _DryRun:
    """A copy of the macro state for a look-ahead: its shell records the
    commands met and answers :data:`UNKNOWN`, or really while answering."""

    def __init__(self, pp: Preprocessor, filename: str, line: int, answer: Callable[[str], str] | None):
        self.commands: list[str] = []
        self.answer = answer
        self.answering = False
        self.pp = Preprocessor(
            env=pp.env, shell=self._shell, info=_ignore, warn=None,
            variables={name: Variable(v.name, v.value, v.recursive) for name, v in pp.variables.items()},
            env_used=dict(pp.env_used), filename=filename, lineno=line,
        )

    def _shell(self, command: str) -> str:
        if UNKNOWN in command:
            return UNKNOWN
        self.commands.append(command)
        if self.answering and self.answer is not None:
            try:
                return self.answer(command)
            except Exception:  # (the parse's own call meets it again, and reports it)
                return UNKNOWN
        return UNKNOWN

    def run(self, text: str, pos: int, line: int, filename: str, gen: Generation | None,
            answer_assignments: bool) -> Iterator[str]:
        """Lex ``text`` from ``pos``, following its assignments; yield the
        commands met, statement by statement."""
        from .lexer import Lexer, assignment  # (the lexer calls this module)

        lexer = Lexer(text, filename, self.pp, _ignore_at, gen)
        lexer.pos, lexer.line = pos, line
        commands = self.commands
        try:
            for stmt in lexer.statements():
                assigned = assignment(stmt.tokens)
                if assigned is not None:
                    self._assign(*assigned, answer=answer_assignments)
                if commands:
                    yield from commands
                    commands.clear()
        except KconfigError:
            pass  # (the parse meets the error itself, and reports it)
        yield from commands
        commands.clear()

    def _assign(self, name: str, value: str, op: str, answer: bool) -> None:
        variables = self.pp.variables
        before = variables.get(name)
        saved = None if before is None else Variable(before.name, before.value, before.recursive)
        recorded = len(self.commands)
        self.pp.assign(name, value, op)
        if not answer or self.answer is None or UNKNOWN not in variables[name].value:
            return
        # Assigned from a command's answer: again, with the real answers.
        del self.commands[recorded:]
        if saved is None:
            del variables[name]
        else:
            variables[name] = saved
        self.answering = True
        try:
            self.pp.assign(name, value, op)
        finally:
            self.answering = False


def _ignore(_text: str) -> None:
    return None


def _ignore_at(_line: int, _message: str) -> None:
    return None
