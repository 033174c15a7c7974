"""The environment a benchmark runs kconfig-ls processes in: the way a
user's Python runs it, with the modules' bytecode kept.

A shell that sets ``PYTHONDONTWRITEBYTECODE`` (CI images often do) would
have every new process compile every module again, ~50 ms that no user
pays; the benchmarks compile the package once and let the processes use it.
"""

from __future__ import annotations

import compileall
import os
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def user_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with the checkout on
    ``PYTHONPATH`` and bytecode allowed; the package's bytecode is written."""
    env = dict(os.environ if base is None else base, PYTHONPATH=str(REPO))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(str(REPO / "kconfig_ls"), quiet=1)
    return env
