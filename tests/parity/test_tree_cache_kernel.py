"""Tree snapshots on the real tree, through the command line as a user runs
it: the second run of ``kconfig-ls config`` reads the snapshot the first one
left and writes the same bytes and prints the same lines, on several arches
and modes (the C tool's output is checked against the cold run elsewhere)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kconfig_ls.kconfig import shell_cache

pytestmark = [pytest.mark.kernel]


def run(tree: Path, arch: str, mode: str, out: Path, env: dict[str, str]) -> tuple[bytes, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "kconfig_ls", "config", "--tree", str(tree), "--arch", arch, "-v", mode,
         "-o", str(out)],
        env=env, capture_output=True, text=True, check=True, timeout=300)
    text = out.read_bytes()
    out.unlink()
    return text, proc.stdout, proc.stderr


def wait_for_snapshot(directory: Path, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if directory.is_dir() and len(list(directory.glob("*.pickle"))) >= count:
            return
        time.sleep(0.2)
    raise AssertionError(f"no snapshot written in {directory}")


@pytest.mark.parametrize(("arch", "mode"), [("x86_64", "defconfig"), ("arm64", "allmodconfig"),
                                            ("riscv", "allnoconfig")])
def test_a_warm_run_writes_and_prints_what_a_cold_run_does(kernel_tree, tmp_path, arch, mode):
    env = {k: v for k, v in os.environ.items() if k != shell_cache.NO_CACHE_VARIABLE}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    out = tmp_path / "out.config"
    cold = run(kernel_tree, arch, mode, out, {**env, shell_cache.NO_CACHE_VARIABLE: "1"})
    first = run(kernel_tree, arch, mode, out, env)
    wait_for_snapshot(tmp_path / "cache" / "kconfig-ls" / "trees", 1)
    [snapshot] = (tmp_path / "cache" / "kconfig-ls" / "trees").glob("*.pickle")
    written = snapshot.stat().st_mtime_ns
    time.sleep(0.05)
    warm = run(kernel_tree, arch, mode, out, env)
    assert snapshot.stat().st_mtime_ns > written, "the warm run did not use the snapshot"
    assert first == cold
    assert warm[0] == cold[0]
    assert (warm[1], warm[2]) == (cold[1], cold[2])
