"""The validation steps: check a config with ``make olddefconfig``, build
``bzImage`` out of tree, boot it in QEMU with the test initramfs."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .initramfs import MARKER, build_initramfs
from .process import run_logged, tail

#: (stage, message) progress callback.
Progress = Callable[[str, str], None]
_CONFIG_LINE = re.compile(r"^(?:# )?CONFIG_([A-Za-z0-9_]+)[= ]")
_BUILD_STEP = re.compile(r"^\s+([A-Z0-9_]+)\s+(\S+)")


@dataclass
class Outcome:
    """What a validation (or a write) ended with."""

    ok: bool
    stage: str
    message: str
    config_path: str | None = None
    bzimage: str | None = None
    release: str | None = None
    proc_version: str | None = None
    log: str | None = None
    log_tail: str = ""
    missing: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)


class StepFailed(Exception):
    def __init__(self, outcome: Outcome):
        super().__init__(outcome.message)
        self.outcome = outcome


def make_env() -> dict[str, str]:
    """The environment for make: the caller's, without KCONFIG_* settings
    that would redirect what make reads."""
    return {k: v for k, v in os.environ.items() if not k.startswith("KCONFIG_")}


def config_differences(ours: str, theirs: str) -> list[str]:
    """Symbols whose lines differ between two config texts."""
    def lines(text: str) -> dict[str, str]:
        out = {}
        for line in text.splitlines():
            m = _CONFIG_LINE.match(line)
            if m:
                out[m.group(1)] = line
        return out

    a, b = lines(ours), lines(theirs)
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


async def check_with_make(tree: str, arch: str, text: str, work_dir: Path) -> list[str]:
    """Run the kernel's ``make olddefconfig`` on a copy of ``text``; return
    the symbols it changed (empty: byte-identical).  A difference outside
    symbol lines (the header) is reported as ``<header>``."""
    work_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work_dir, prefix="olddefconfig-") as tmp:
        copy = Path(tmp, ".config")
        copy.write_text(text, encoding="utf-8", errors="surrogateescape")
        log = Path(tmp, "make.log")
        status = await run_logged(["make", "-s", f"ARCH={arch}", f"O={tmp}", "olddefconfig"], log, cwd=tree,
                                  env=make_env(), timeout=600)
        if status != 0:
            raise StepFailed(Outcome(False, "check", f"make olddefconfig failed (exit {status})",
                                     log_tail=tail(log)))
        result = copy.read_text(encoding="utf-8", errors="surrogateescape")
    if result == text:
        return []
    return config_differences(text, result) or ["<header>"]


async def build_kernel(tree: str, arch: str, build_dir: Path, progress: Progress, jobs: int | None = None) -> Path:
    """``make O=build_dir -jN bzImage``; the config must be in build_dir."""
    jobs = jobs or os.cpu_count() or 1
    steps = 0

    def on_line(line: str) -> None:
        nonlocal steps
        m = _BUILD_STEP.match(line)
        if m:
            steps += 1
            if steps % 25 == 1:
                progress("build", f"{steps} steps, {m.group(1)} {m.group(2)}")

    log = build_dir / "kconfig-ls-build.log"
    progress("build", f"make -j{jobs} bzImage in {build_dir}")
    status = await run_logged(["make", f"ARCH={arch}", f"O={build_dir}", f"-j{jobs}", "bzImage"], log,
                              on_line, cwd=tree, env=make_env())
    image = build_dir / "arch" / "x86" / "boot" / "bzImage"
    if status != 0 or not image.exists():
        raise StepFailed(Outcome(False, "build", f"the kernel build failed (exit {status})", log=str(log),
                                 log_tail=tail(log)))
    return image


async def boot_kernel(image: Path, cache_dir: Path, log: Path, progress: Progress, timeout: float = 180) -> Outcome:
    """Boot ``image`` in ``qemu-system-x86_64`` (software emulation) with
    the test initramfs (built once into ``cache_dir``); success is the
    init's marker on the serial console, whose output goes to ``log``."""
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        raise StepFailed(Outcome(False, "boot", "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"))
    progress("boot", "building the test initramfs")
    initramfs = build_initramfs(cache_dir)
    lines: list[str] = []

    def on_line(line: str) -> None:
        lines.append(line)
        if line.startswith(MARKER) or line.startswith("uname -r:"):
            progress("boot", line)

    progress("boot", "qemu-system-x86_64 -nographic -no-reboot")
    cmd = [qemu, "-kernel", str(image), "-initrd", str(initramfs), "-append", "console=ttyS0 panic=-1",
           "-nographic", "-no-reboot", "-m", "256M", "-smp", "1"]
    try:
        status = await run_logged(cmd, log, on_line, timeout=timeout)
    except TimeoutError:
        raise StepFailed(Outcome(False, "boot", f"no shutdown within {timeout:.0f} s", log=str(log),
                                 log_tail=tail(log))) from None
    release = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("uname -r:")), None)
    version = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("/proc/version:")), None)
    if not any(ln.strip() == MARKER for ln in lines):
        raise StepFailed(Outcome(False, "boot", f"the init's marker never appeared (qemu exit {status})",
                                 log=str(log), log_tail=tail(log)))
    return Outcome(True, "boot", f"booted {release}", release=release, proc_version=version, log=str(log),
                   log_tail=tail(log, 12))
