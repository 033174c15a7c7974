"""Shared fixtures: the Linux 6.1 tree, its C ``conf``, and a helper that
runs the C tool and our engine on the same small inline Kconfig tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def kernel_tree_path() -> Path:
    env = os.environ.get("KCONFIG_LS_KERNEL")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kconfig-ls" / "linux-source-6.1"


def _require_kernel() -> Path:
    tree = kernel_tree_path()
    if not (tree / "scripts" / "kconfig" / "conf").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"kernel tree missing at {tree}: .ci/run must provision it")
        pytest.skip(f"no kernel tree at {tree} (run scripts/provision-kernel)")
    return tree


@pytest.fixture(scope="session")
def kernel_tree() -> Path:
    return _require_kernel()


@pytest.fixture(scope="session")
def c_conf() -> Path:
    """The C ``conf`` binary built in the kernel tree."""
    return _require_kernel() / "scripts" / "kconfig" / "conf"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def run_c_conf(conf: Path, root: Path, args: list[str], env: dict[str, str] | None = None,
               stdin: str | None = None) -> subprocess.CompletedProcess:
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    full_env.update(env or {})
    return subprocess.run([str(conf), *args], cwd=root, env=full_env, capture_output=True, text=True,
                          input=stdin, check=False)


def run_our_conf(root: Path, args: list[str], env: dict[str, str] | None = None,
                 stdin: str | None = None) -> subprocess.CompletedProcess:
    import sys

    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/"),
                "PYTHONPATH": str(REPO)}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "kconfig_ls.cli", "conf", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, input=stdin, check=False)


@pytest.fixture
def parity(tmp_path, c_conf):
    """``parity(files, mode, config=None)``: run the C conf and ours on the
    same inline tree in two directories and return both .config texts."""

    def check(files: dict[str, str], mode: str, config: str | None = None, env: dict[str, str] | None = None,
              stdin: str | None = None):
        outputs = []
        for side in ("c", "ours"):
            root = tmp_path / side
            write_tree(root, files)
            if config is not None:
                (root / ".config").write_text(config)
            args = [f"--{mode}", "Kconfig"] if "=" not in mode else [f"--{mode}", "Kconfig"]
            if mode.startswith("defconfig") or mode.startswith("savedefconfig"):
                name, _, value = mode.partition("=")
                args = [f"--{name}", value, "Kconfig"]
            runner = (lambda r, a: run_c_conf(c_conf, r, a, env, stdin)) if side == "c" else (
                lambda r, a: run_our_conf(r, a, env, stdin))
            proc = runner(root, args)
            produced = root / (args[1] if mode.startswith("savedefconfig") else ".config")
            if mode in ("listnewconfig", "helpnewconfig") and config is not None:
                produced = root / ".config"
            text = produced.read_text() if produced.exists() else None
            outputs.append((proc.returncode, text, proc.stdout, proc.stderr))
        (c_rc, c_text, c_out, c_err), (o_rc, o_text, o_out, o_err) = outputs
        assert o_rc == c_rc, f"exit codes differ: C {c_rc}, ours {o_rc}\n{o_err}"
        assert o_text == c_text
        assert o_out == c_out
        assert o_err == c_err
        return c_text

    return check


def have(cmd: str) -> bool:
    return shutil.which(cmd) is not None
