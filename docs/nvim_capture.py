#!/usr/bin/env python3
"""Capture a real Neovim terminal showing a kconfig-ls hover, as text.

Runs Debian's `nvim` with the plugin in a pseudo-terminal of 100x30, opens
a Kconfig file, waits for the server, moves to a symbol and presses K;
the screen is rendered with `pyte` (a terminal emulator from PyPI) and
printed.  Used to make docs/screenshots/nvim-hover.txt:

    python docs/nvim_capture.py TREE FILE LINE COLUMN > docs/screenshots/nvim-hover.txt
"""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

import pyte

REPO = Path(__file__).resolve().parent.parent
COLS, ROWS = 100, 30


def main() -> int:
    tree, file, line, col = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    setup = (f"set rtp^={REPO}/editors/nvim | lua require('kconfig_ls').setup({{cmd = {{'{sys.executable}', "
             f"'-m', 'kconfig_ls', 'serve'}}, settings = {{arch = 'x86_64'}}, trusted = true}})")
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO), COLUMNS=str(COLS), LINES=str(ROWS))
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(tree)
        os.execvpe("nvim", ["nvim", "-u", "NONE", "-i", "NONE", "--cmd", "set nocompatible termguicolors",
                            "--cmd", setup, file], env)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)

    def pump(seconds: float) -> None:
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:
                    return

    def send(keys: str, wait: float = 0.5) -> None:
        os.write(fd, keys.encode())
        pump(wait)

    pump(3)
    send(f":{line}\r", 0.5)
    send(f"0{col}l" if col else "0", 0.5)
    # The tree loads in the background: ask for the hover until it shows.
    for _ in range(60):
        send("K", 2)
        if any("value" in row for row in screen.display):
            break
    pump(1)
    print("\n".join(row.rstrip() for row in screen.display))
    send("\x1b:qa!\r", 0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
