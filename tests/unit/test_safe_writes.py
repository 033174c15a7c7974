"""Writes of user files never leave a half-written or missing file.

`write_file_atomic` (``.config`` from conf/config/writeConfig, savedefconfig,
auto.conf and friends) is killed with SIGKILL at each of its steps (a child
process slows every file operation down and says which comes next); the file
is then always the old or the new one.  A full disk (``ulimit -f``) and a
directory the user cannot write give one clear error and leave the old file
as it was; permissions are kept; a ``.config`` that is a symbolic link ends
as the C tool leaves it.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from conftest import run_c_conf, run_our_conf, write_tree

from kconfig_ls.kconfig.configfile import write_file_atomic

REPO = Path(__file__).resolve().parents[2]

SLOW_WRITER = r"""
import os, sys, time
from kconfig_ls.kconfig import configfile

real_os = os
STEPS = {"open", "fsync", "chmod", "link", "replace", "unlink", "symlink"}


class HalfWrites:
    # A file whose every write stops halfway for a while.
    def __init__(self, f):
        self.f = f

    def write(self, data):
        half = len(data) // 2
        self.f.write(data[:half])
        self.f.flush()
        step("write-half")
        return self.f.write(data[half:])

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.f.__exit__(*exc)


def step(name):
    print("step", name, flush=True)
    time.sleep(0.25)


class SlowOs:
    def __getattr__(self, name):
        attr = getattr(real_os, name)
        if name in STEPS:
            def slow(*args, **kwargs):
                step(name)
                return attr(*args, **kwargs)
            return slow
        if name == "fdopen":
            return lambda *args, **kwargs: HalfWrites(attr(*args, **kwargs))
        return attr


configfile.os = SlowOs()
configfile.write_file_atomic(sys.argv[1], open(sys.argv[2]).read())
print("done", flush=True)
"""

OLD = "".join(f"CONFIG_OLD_{i}=y\n" for i in range(2000))
NEW = "".join(f"CONFIG_NEW_{i}=m\n" for i in range(3000))
OLDER = "CONFIG_OLDER=y\n"


def writer(tmp_path: Path, target: Path) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(SLOW_WRITER)
    new = tmp_path / "new.txt"
    new.write_text(NEW)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, str(script), str(target), str(new)], stdout=subprocess.PIPE,
                            text=True, env=env)


def steps_of_a_whole_write(tmp_path: Path) -> int:
    target = tmp_path / "dry" / ".config"
    target.parent.mkdir()
    target.write_text(OLD)
    proc = writer(tmp_path, target)
    out, _ = proc.communicate(timeout=60)
    assert out.endswith("done\n") and target.read_text() == NEW
    return out.count("step ")


def test_a_kill_at_any_step_leaves_the_old_or_the_new_file(tmp_path):
    total = steps_of_a_whole_write(tmp_path)
    assert total >= 6
    outcomes = set()
    for kill_at in range(1, total + 1):
        work = tmp_path / f"kill{kill_at}"
        work.mkdir()
        target = work / ".config"
        target.write_text(OLD)
        (work / ".config.old").write_text(OLDER)
        proc = writer(tmp_path, target)
        seen = 0
        while seen < kill_at:
            line = proc.stdout.readline()
            assert line, "the writer ended early"
            seen += line.startswith("step ")
        time.sleep(0.05)  # inside the step's pause, before the operation
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        content = target.read_text()
        assert content in (OLD, NEW), f"killed at step {kill_at}: a partial .config"
        assert (work / ".config.old").read_text() in (OLDER, OLD)
        outcomes.add(content == NEW)
    # Some kills came before the switch, none after the last step.
    assert False in outcomes


def test_permissions_are_kept(tmp_path):
    target = tmp_path / ".config"
    target.write_text(OLD)
    target.chmod(0o600)
    assert write_file_atomic(str(target), NEW)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert (tmp_path / ".config.old").read_text() == OLD


def test_a_full_disk_gives_one_clear_error_and_keeps_the_old_file(tmp_path):
    tree = write_tree(tmp_path / "tree", {"Kconfig": "".join(f'config S{i}\n\tbool "s"\n\tdefault y\n'
                                                               for i in range(3000))})
    (tree / ".config").write_text(OLD)
    # ulimit -f counts 1024-byte blocks: the new .config (about 40 KB) does not fit.
    proc = subprocess.run(["bash", "-c", f'ulimit -f 16; exec "{sys.executable}" -m kconfig_ls.cli conf '
                                         "--olddefconfig Kconfig"],
                          cwd=tree, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "File too large" in proc.stderr and "*** Error during writing of the configuration." in proc.stderr
    assert (tree / ".config").read_text() == OLD
    assert not list(tree.glob(".config.*.tmp"))


def test_an_unwritable_directory_gives_one_clear_error(tmp_path):
    tree = write_tree(tmp_path / "tree", {"Kconfig": 'config A\n\tbool "a"\n\tdefault y\n'})
    (tree / ".config").write_text("# CONFIG_A is not set\nCONFIG_STALE=y\n")
    tmp_path.chmod(0o755)
    os.chmod(tree, 0o755)
    os.chmod(tree / "Kconfig", 0o644)
    os.chmod(tree / ".config", 0o644)
    # As an unprivileged user (root may write anywhere).
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                           "kconfig_ls.cli", "conf", "--olddefconfig", "Kconfig"],
                          cwd=tree, env={**os.environ, "PYTHONPATH": str(REPO), "HOME": "/nonexistent"},
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "Permission denied" in proc.stderr and "*** Error during writing of the configuration." in proc.stderr
    assert (tree / ".config").read_text() == "# CONFIG_A is not set\nCONFIG_STALE=y\n"


def test_a_symlinked_config_ends_as_the_c_tool_leaves_it(tmp_path, c_conf, our_env):
    results = []
    for who in ("c", "ours"):
        tree = write_tree(tmp_path / who, {"Kconfig": 'config A\n\tbool "a"\n\tdefault y\n'})
        (tree / "real.config").write_text("# CONFIG_A is not set\nCONFIG_STALE=y\n")
        (tree / ".config").symlink_to("real.config")
        if who == "c":
            proc = run_c_conf(c_conf, tree, ["--olddefconfig", "Kconfig"])
        else:
            proc = run_our_conf(tree, ["--olddefconfig", "Kconfig"], our_env)
        assert proc.returncode == 0, proc.stderr
        results.append((
            (tree / ".config").is_symlink(), (tree / ".config").read_text(),
            (tree / ".config.old").is_symlink(), (tree / "real.config").read_text(),
        ))
    assert results[0] == results[1]
