"""The program that runs a load's toolchain probes ahead, in a process of
its own (started by probe_process.py as ``python -I -S probe_worker.py N``).

Why a process: run from threads of the loading process, each probe's worker
must take the interpreter lock back after every system call (the spawn,
each read of the output, the wait) from a parse that holds it all along;
measured on x86_64, the ninety probes then took 1.21 s beside a busy
thread against 0.96 s beside a busy process.  Here the lock is shared only
by these workers, which mostly wait.

It imports the standard library only (``-I`` keeps the tree's environment,
``PYTHONPATH`` and the like, out of this interpreter).  Its input, one JSON
object a line:

* ``{"env": {...}}`` first: the environment every command gets, sent
  rather than inherited, as this interpreter may change its own (the C
  locale's coercion sets ``LC_CTYPE``);
* ``{"batch": true}``: the commands put from now on form a new batch;
* ``{"put": ID, "command": TEXT}``: run ``TEXT`` when a worker is free;
  a worker takes the oldest command of the newest batch that has any;
* ``{"hurry": ID}``: the load needs this one now: if no worker took it
  yet, it starts at once, beside the workers.

Its output, for each command run: a line ``ID STATUS SIZE`` and SIZE bytes,
the first 4095 bytes of what the command wrote (all the C tool reads);
STATUS 1 (and no bytes) when it could not be run here: the loading process
then runs it itself and meets the error as it would have.  At the end of
its input it drops what no worker took and exits (commands already started
run to their end on their own).  The working directory is its own (the
tree's).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

#: Bytes of a command's output the C tool reads.
OUTPUT_LIMIT = 4095


def command_output(command: str, cwd: str | None = None, env: Mapping[str, str] | None = None) -> bytes:
    """Run ``command`` with /bin/sh as the C tool's ``popen`` does (stdin
    empty, stderr passed through) and return the first :data:`OUTPUT_LIMIT`
    bytes of its output.  The one definition of running a ``$(shell,...)``
    command: here and in the loading process (preprocess.run_shell)."""
    proc = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          cwd=cwd, env=dict(env) if env is not None else None, check=False)
    return proc.stdout[:OUTPUT_LIMIT]


Item = TypeVar("Item")


class BatchQueue(Generic[Item]):
    """Items waiting for worker threads, in batches (one a look-ahead): a
    worker takes the oldest item of the newest batch that has any, as the
    newest look-ahead was made where the load is now.  Also the queue of
    :class:`~kconfig_ls.kconfig.probes.ProbeRunner`'s worker threads."""

    def __init__(self) -> None:
        self.ready = threading.Condition()
        self._batches: list[deque[Item]] = []  # (a few a load: kept, even empty)
        self._closed = False

    def new_batch(self) -> None:
        with self.ready:
            self._batches.append(deque())

    def put(self, item: Item) -> None:
        """Into the newest batch."""
        with self.ready:
            if not self._batches:
                self._batches.append(deque())
            self._batches[-1].append(item)
            self.ready.notify()

    def take(self) -> Item | None:
        """The next item (waits for one); None once closed."""
        with self.ready:
            while not self._closed:
                for batch in reversed(self._batches):
                    if batch:
                        return batch.popleft()
                self.ready.wait()
            return None

    def take_out(self, wanted: Callable[[Item], bool]) -> Item | None:
        """The first waiting item ``wanted`` accepts, taken out of its batch."""
        with self.ready:
            for batch in self._batches:
                for item in batch:
                    if wanted(item):
                        batch.remove(item)
                        return item
            return None

    def close(self) -> list[Item]:
        """No more items are taken; the ones still waiting are returned
        (nothing the second time)."""
        with self.ready:
            if self._closed:
                return []
            self._closed = True
            dropped = [item for batch in self._batches for item in batch]
            self._batches.clear()
            self.ready.notify_all()
            return dropped


class Worker:
    """The commands to run (a :class:`BatchQueue` of (ID, command)), the
    threads that run them, the answers."""

    def __init__(self, workers: int, output):
        self.env: dict[str, str] | None = None
        self.output = output
        self.write_lock = threading.Lock()
        self.queue: BatchQueue[tuple[int, str]] = BatchQueue()
        for _ in range(workers):
            threading.Thread(target=self.work, daemon=True).start()

    def serve(self, lines) -> None:
        for line in lines:
            message = json.loads(line)
            if "put" in message:
                self.queue.put((message["put"], message["command"]))
            elif "hurry" in message:
                self.hurry(message["hurry"])
            elif "batch" in message:
                self.queue.new_batch()
            elif "env" in message:
                self.env = message["env"]
        self.queue.close()

    def hurry(self, ident: int) -> None:
        item = self.queue.take_out(lambda waiting: waiting[0] == ident)
        if item is not None:
            threading.Thread(target=self.answer, args=item, daemon=True).start()

    def work(self) -> None:
        while (item := self.queue.take()) is not None:
            self.answer(*item)

    def answer(self, ident: int, command: str) -> None:
        try:
            status, out = 0, command_output(command, env=self.env)
        except (OSError, ValueError, subprocess.SubprocessError):
            status, out = 1, b""
        try:
            with self.write_lock:
                self.output.write(b"%d %d %d\n" % (ident, status, len(out)) + out)
                self.output.flush()
        except (OSError, ValueError):
            pass  # (the load is over and stopped reading)


def main() -> int:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with contextlib.suppress(OSError, ValueError, KeyboardInterrupt):
        Worker(workers, sys.stdout.buffer).serve(sys.stdin.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
