"""Child processes for the long steps: output streamed line by line to a
log and a callback, and the whole process group ended on cancellation (a
``make -j`` leaves compilers behind otherwise)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

#: Process groups started by :func:`run_logged` and not yet ended: what
#: :func:`kill_running` ends when the server goes away.
_RUNNING: set[int] = set()


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def kill_running() -> None:
    """End every process group still running (make, QEMU, their children)."""
    for pgid in list(_RUNNING):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        _RUNNING.discard(pgid)


async def run_logged(
    cmd: list[str],
    log_path: Path,
    on_line: Callable[[str], None] | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> int:
    """Run ``cmd`` with stdout and stderr into ``log_path``; return its exit
    status.  Raises ``asyncio.TimeoutError`` after ``timeout`` seconds and
    ``CancelledError`` when cancelled, in both cases after killing it."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True,
    )
    _RUNNING.add(proc.pid)
    try:
        with open(log_path, "w", encoding="utf-8", errors="replace") as log:
            async def pump() -> int:
                assert proc.stdout is not None
                while True:
                    raw = await proc.stdout.readline()
                    if not raw:
                        break
                    line = raw.decode("utf-8", "replace")
                    log.write(line)
                    log.flush()
                    if on_line is not None:
                        on_line(line.rstrip("\r\n"))
                return await proc.wait()

            return await asyncio.wait_for(pump(), timeout)
    finally:
        if proc.returncode is None:
            _kill_group(proc)
            await proc.wait()
        else:
            # make may leave children behind in its group even after exiting.
            _kill_group(proc)
        _RUNNING.discard(proc.pid)


def tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
