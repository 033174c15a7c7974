"""Python packaging: `python -m build` makes a wheel and an sdist that carry
the package data (the sample tree, the boot init), and the wheel installed
into an empty virtualenv runs `kconfig-ls --version` and `kconfig-ls demo`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from kconfig_ls import __version__

REPO = Path(__file__).resolve().parents[2]
DATA = ["kconfig_ls/data/sample/Kconfig", "kconfig_ls/data/sample/drivers/Kconfig", "kconfig_ls/data/boot/init.c"]


def tracked_copy(dest: Path) -> Path:
    """The repository's tracked files (what a clean clone holds), so the
    build writes nothing into the working tree."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in names.decode().split("\0"):
        if name and (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


def test_wheel_and_sdist_install_and_run(tmp_path):
    source = tracked_copy(tmp_path / "src")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], check=True,
                   capture_output=True)
    wheel, = dist.glob(f"kconfig_ls-{__version__}-py3-none-any.whl")
    sdist, = dist.glob(f"kconfig_ls-{__version__}.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert all(name in names for name in DATA), sorted(names)
    assert not any(name.startswith("tests/") for name in names)
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert all(name in names for name in DATA)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE"):
        if name in os.environ:
            env[name] = os.environ[name]
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], env=env, check=True,
                   capture_output=True)
    version = subprocess.run([str(venv / "bin" / "kconfig-ls"), "--version"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"kconfig-ls {__version__}"
    demo = subprocess.run([str(venv / "bin" / "kconfig-ls"), "demo"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    assert "CONFIG_E1000=m" in demo.stdout, demo.stdout
    # It ran from the venv, not from this checkout.
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import kconfig_ls; print(kconfig_ls.__file__)"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(venv)), where.stdout
