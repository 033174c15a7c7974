"""The loading process's side of the probe worker process (probe_worker.py):
the commands a look-ahead finds go to it, their answers come back through a
pipe that the load reads only when it needs an answer, so no thread of the
loading process competes with the parse for the interpreter lock.

:class:`WorkerProcess` is an executor of :class:`~.probes.ProbeRunner`
(``new_batch``/``put``/``close``); its answers are :class:`ProcessAnswer`.
An answer the worker could not give (it failed to run the command, died, or
never started) is computed by the loading process itself, with the same
``run`` the parse would have used, so an error is met exactly as without
the worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping

from .preprocess import shell_output

#: The worker program, run by path: it imports the standard library only.
WORKER_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_worker.py")


class ProcessAnswer:
    """One command sent to the worker process; its answer once it came."""

    __slots__ = ("_owner", "ident", "command", "raw", "status")

    def __init__(self, owner: WorkerProcess, ident: int, command: str):
        self._owner = owner
        self.ident = ident
        self.command = command
        self.raw: bytes | None = None
        self.status = 0

    def take_over(self) -> bool:
        """The load needs it now: the worker starts it at once if it has
        not yet (never withdrawn: False, the answer comes from there)."""
        self._owner.hurry(self)
        return False

    def done(self) -> bool:
        if self.raw is None:
            self._owner.read_available()
        return self.raw is not None

    def result(self) -> str:
        if self.raw is None:
            self._owner.wait(self)
        if self.status != 0 or self.raw is None:
            return self._owner.run(self.command)
        return shell_output(self.raw)


class WorkerProcess:
    """A running probe worker process for one load."""

    def __init__(self, proc: subprocess.Popen, env: Mapping[str, str], run: Callable[[str], str]):
        self._proc = proc
        #: Runs a command in this process (an answer the worker cannot give).
        self.run = run
        self._out = proc.stdout.fileno()
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        self._waiting: dict[int, ProcessAnswer] = {}
        self._next_ident = 0
        self._alive = True
        self._send({"env": dict(env)})

    @classmethod
    def start(cls, cwd: str | None, env: Mapping[str, str] | None, run: Callable[[str], str],
              workers: int) -> WorkerProcess | None:
        """The worker process for commands run in ``cwd`` with ``env``
        (None: this process's); None if it cannot be started."""
        try:
            proc = subprocess.Popen([sys.executable, "-I", "-S", WORKER_PROGRAM, str(workers)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
        return cls(proc, os.environ if env is None else env, run)

    # -- the executor's interface (probes.ProbeRunner) ------------------------------
    def new_batch(self) -> None:
        self._send({"batch": True})

    def put(self, command: str) -> ProcessAnswer:
        answer = ProcessAnswer(self, self._next_ident, command)
        self._next_ident += 1
        self._waiting[answer.ident] = answer
        self._send({"put": answer.ident, "command": command})
        return answer

    def close(self) -> None:
        """Commands no worker took are dropped; the worker process ends."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        self._proc.stdout.close()
        self._alive = False
        self._waiting.clear()
        # (Reaped when it ends, without making the load wait for it.)
        threading.Thread(target=self._proc.wait, name="kconfig-probe-reaper", daemon=True).start()

    # -- answers ------------------------------------------------------------------------
    def hurry(self, answer: ProcessAnswer) -> None:
        if answer.raw is None:
            self._send({"hurry": answer.ident})

    def read_available(self) -> None:
        """Take in every answer the worker wrote so far (never blocks)."""
        while self._alive:
            try:
                chunk = os.read(self._out, 65536)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._worker_gone()
                break
            self._buffer += chunk
            self._take_answers()

    def wait(self, answer: ProcessAnswer) -> None:
        """Until ``answer`` came (or the worker is gone)."""
        readable = select.poll()  # (not select.select: a server may hold descriptors past 1024)
        readable.register(self._out, select.POLLIN)
        while answer.raw is None and self._alive:
            self.read_available()
            if answer.raw is None and self._alive:
                readable.poll()

    def _take_answers(self) -> None:
        buffer = self._buffer
        while True:
            header_end = buffer.find(b"\n")
            if header_end < 0:
                return
            ident, status, size = (int(field) for field in buffer[:header_end].split())
            end = header_end + 1 + size
            if len(buffer) < end:
                return
            answer = self._waiting.pop(ident, None)
            if answer is not None:
                answer.status = status
                answer.raw = bytes(buffer[header_end + 1:end])
            del buffer[:end]

    def _worker_gone(self) -> None:
        """Every answer still waiting is computed in this process instead."""
        self._alive = False
        for answer in self._waiting.values():
            answer.status = 1
            answer.raw = b""
        self._waiting.clear()

    def _send(self, message: dict) -> None:
        if not self._alive:
            return
        try:
            self._proc.stdin.write(json.dumps(message).encode("utf-8", "surrogateescape") + b"\n")
            self._proc.stdin.flush()
        except (OSError, ValueError):
            self._worker_gone()
