"""The boot test's initramfs: a static ``init`` (built from
``kconfig_ls/data/boot/init.c``) in an uncompressed newc cpio archive, the
format the kernel unpacks without any decompressor."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

INIT_SOURCE = Path(__file__).resolve().parent.parent / "data" / "boot" / "init.c"
MARKER = "KCONFIG-LS-BOOT-OK"


class InitramfsError(RuntimeError):
    pass


def build_init(cache_dir: Path) -> Path:
    """``gcc -static`` the init, once per source version."""
    digest = hashlib.sha256(INIT_SOURCE.read_bytes()).hexdigest()[:12]
    binary = cache_dir / f"init-{digest}"
    if binary.exists():
        return binary
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = binary.with_suffix(".tmp")
    proc = subprocess.run(["gcc", "-static", "-Os", "-o", str(tmp), str(INIT_SOURCE)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise InitramfsError(f"gcc -static failed (is libc6-dev installed?):\n{proc.stderr[-2000:]}")
    os.replace(tmp, binary)
    return binary


def _entry(name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0), ino: int = 0) -> bytes:
    fields = [ino, mode, 0, 0, 1 if not stat.S_ISDIR(mode) else 2, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    header = b"070701" + b"".join(b"%08X" % f for f in fields)
    out = header + name.encode() + b"\0"
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def cpio_archive(init: bytes) -> bytes:
    """``/dev/console``, ``/proc`` and ``/init`` as a newc archive."""
    entries = [
        _entry("dev", stat.S_IFDIR | 0o755, ino=1),
        _entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1), ino=2),
        _entry("proc", stat.S_IFDIR | 0o755, ino=3),
        _entry("init", stat.S_IFREG | 0o755, init, ino=4),
        _entry("TRAILER!!!", 0),
    ]
    data = b"".join(entries)
    return data + b"\0" * (-len(data) % 512)


def build_initramfs(cache_dir: Path) -> Path:
    init = build_init(cache_dir)
    archive = cache_dir / (init.name + ".cpio")
    if not archive.exists():
        tmp = archive.with_suffix(".tmp")
        tmp.write_bytes(cpio_archive(init.read_bytes()))
        os.replace(tmp, archive)
    return archive
