"""The kernels' own Kconfig test suites (scripts/kconfig/tests of Linux 6.1
and 6.12), run unchanged against `kconfig-ls conf` instead of the C binary,
which follows that kernel's kconfig generation.

Its conftest takes the binary from `<cwd>/scripts/kconfig/conf`, so the test
runs it from a directory holding a wrapper script at that path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GENERATIONS, require_kernel

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]


#: How many tests each kernel's suite has.
SUITE_SIZE = {"6.1": 17, "6.12": 16}


@pytest.mark.parametrize("version", GENERATIONS)
def test_kernel_kconfig_selftests_pass_with_our_conf(version, tmp_path):
    kernel_tree = require_kernel(version)
    wrapper = tmp_path / "scripts" / "kconfig" / "conf"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nKCONFIG_LS_KCONFIG_VERSION={version} exec "{sys.executable}" '
                       '-m kconfig_ls.cli conf "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(kernel_tree / "scripts" / "kconfig" / "tests")],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert re.search(rf"\b{SUITE_SIZE[version]} passed\b", summary), summary
