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

#: Bytes of a command's output the C tool reads.
OUTPUT_LIMIT = 4095


class Worker:
    """The queue of commands, the threads that run them, the answers."""

    def __init__(self, workers: int, output):
        self.env: dict[str, str] | None = None
        self.output = output
        self.write_lock = threading.Lock()
        self.ready = threading.Condition()
        self.batches: list[deque[tuple[int, str]]] = []
        self.closed = False
        for _ in range(workers):
            threading.Thread(target=self.work, daemon=True).start()

    def serve(self, lines) -> None:
        for line in lines:
            message = json.loads(line)
            if "put" in message:
                self.put(message["put"], message["command"])
            elif "hurry" in message:
                self.hurry(message["hurry"])
            elif "batch" in message:
                with self.ready:
                    self.batches.append(deque())
            elif "env" in message:
                self.env = message["env"]
        with self.ready:
            self.closed = True
            self.batches.clear()
            self.ready.notify_all()

    def put(self, ident: int, command: str) -> None:
        with self.ready:
            if not self.batches:
                self.batches.append(deque())
            self.batches[-1].append((ident, command))
            self.ready.notify()

    def hurry(self, ident: int) -> None:
        with self.ready:
            for batch in self.batches:
                for item in batch:
                    if item[0] == ident:
                        batch.remove(item)
                        threading.Thread(target=self.answer, args=item, daemon=True).start()
                        return

    def take(self) -> tuple[int, str] | None:
        with self.ready:
            while not self.closed:
                for batch in reversed(self.batches):
                    if batch:
                        return batch.popleft()
                self.ready.wait()
            return None

    def work(self) -> None:
        while (item := self.take()) is not None:
            self.answer(*item)

    def answer(self, ident: int, command: str) -> None:
        try:
            proc = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                  env=self.env, check=False)
            status, out = 0, proc.stdout[:OUTPUT_LIMIT]
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
