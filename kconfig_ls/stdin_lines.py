"""Reading conf's answers from standard input, started before anything else.

The kernel's own conf tests write newlines into conf's standard input in a
tight loop until it exits.  The C tool exits within milliseconds; a Python
process needs tens of them just to import, and once the pipe is full the
writer blocks and then fails when conf exits.  So an interactive ``conf``
run drains its input from the first moment (:func:`for_conf`, called before
the engine is imported), and the conversation reads the lines from here.

Draining stops when the process exits, and the exit itself takes a while
for a process of Python's size; on a loaded machine conf may also not run at
all for a moment.  A writer flooding the pipe one byte at a time fills its
default 64 KiB in about a tenth of a second of its own CPU, and a write
blocked on a full pipe fails once conf is gone (a fresh-clone CI run saw the
kernel's tests fail so).  So the pipe is widened to the largest the system
allows (1 MiB by default: seconds of such writing).
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading

#: conf's modes that read answers from standard input (the default is oldaskconfig).
READING_MODES = ("--oldaskconfig", "--oldconfig", "--syncconfig")


class StdinLines:
    """Reads lines from file descriptor 0 while draining it in a thread, so a
    writer that floods the pipe with newlines (as the kernel's own conf tests
    do) never blocks on a full pipe."""

    def __init__(self, fd: int = 0):
        self.fd = fd
        self.buf = bytearray()
        self.eof = False
        #: A read met the end of input (C's ``feof(stdin)``).
        self.hit_eof = False
        self.cond = threading.Condition()
        self._stopping = False
        widen_pipe(fd)
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()
        _readers.append(self)

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if self._stopping:
                return
            with self.cond:
                if not chunk:
                    self.eof = True
                else:
                    self.buf += chunk
                self.cond.notify_all()
            if not chunk:
                return

    def readline(self) -> str | None:
        """One line including its newline, or None at end of input."""
        with self.cond:
            while True:
                nl = self.buf.find(b"\n")
                if nl >= 0:
                    line = bytes(self.buf[: nl + 1])
                    del self.buf[: nl + 1]
                    return line.decode("utf-8", "surrogateescape")
                if self.eof:
                    self.hit_eof = True
                    if self.buf:
                        line = bytes(self.buf)
                        self.buf.clear()
                        return line.decode("utf-8", "surrogateescape")
                    return None
                self.cond.wait()


def stop_draining(timeout: float = 0.02) -> None:
    """Let each reader's draining thread end before the process does.

    A process ends only once all its threads have; one of them may close
    the pipe and another still take milliseconds to end (on a loaded
    machine), and a writer that sees conf still running in that moment
    writes into a pipe with no reader left, and fails.  With the thread
    gone first, the pipe closes as the process ends.  A thread waiting for
    input nobody writes (a terminal) is waited for no longer than
    ``timeout``: without a writer there is nothing to fail."""
    for reader in _readers:
        reader._stopping = True
    for reader in _readers:
        reader._thread.join(timeout)


_readers: list[StdinLines] = []


def widen_pipe(fd: int) -> None:
    """Make the pipe on ``fd`` (if it is one) as large as the system allows
    (best effort: anything else is left as it is)."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
        with open("/proc/sys/fs/pipe-max-size") as limit:
            size = int(limit.read())
        if fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < size:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except (OSError, ValueError):
        pass


def for_conf(argv: list[str]) -> StdinLines | None:
    """A reader already draining standard input, when ``argv`` (after the
    program name) is a ``conf`` run in a mode that reads answers."""
    if not argv or argv[0] != "conf" or any(a in ("-h", "--help") for a in argv):
        return None
    modes = [a.split("=", 1)[0] for a in argv[1:] if a.startswith("--")]
    if modes and modes[-1] not in READING_MODES:
        return None
    return StdinLines()
