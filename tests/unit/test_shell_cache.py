"""The persistent ``$(shell,...)`` cache: used again only while the command,
the environment and every file the command names are unchanged; safe to
share between processes; off with KCONFIG_LS_NO_CACHE=1.

Each command here also appends to a counter file, so a test sees whether it
really ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kconfig_ls.kconfig import shell_cache
from kconfig_ls.kconfig.shell_cache import ShellCache


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A tree, a bin directory on PATH with a fake compiler, a cache dir."""
    monkeypatch.delenv(shell_cache.NO_CACHE_VARIABLE, raising=False)
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "fakecc"
    tool.write_text("#!/bin/sh\necho fakecc-1\n")
    tool.chmod(0o755)
    probe = tree / "scripts" / "probe.sh"
    probe.write_text("#!/bin/sh\necho probe-1\n")
    probe.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return tree, bin_dir, env


def runs(tree: Path) -> int:
    counter = tree / "runs"
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def once(tree: Path, env: dict[str, str], command: str) -> str:
    """One process's worth: a new cache object, one command, saved."""
    cache = ShellCache(str(tree), env)
    result = cache(f"echo ran >> runs; {command}")
    cache.save()
    return result


def test_a_second_run_is_answered_from_the_file(world):
    tree, _, env = world
    assert once(tree, env, "fakecc") == "fakecc-1"
    assert once(tree, env, "fakecc") == "fakecc-1"
    assert runs(tree) == 1
    files = list((Path(env["XDG_CACHE_HOME"]) / "kconfig-ls" / "shell").glob("*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())["format"] == shell_cache.FORMAT


def test_another_environment_runs_again(world):
    tree, _, env = world
    once(tree, env, "echo $FLAVOUR")
    assert once(tree, {**env, "FLAVOUR": "b"}, "echo $FLAVOUR") == "b"
    assert runs(tree) == 2


def test_a_changed_program_runs_again(world):
    tree, bin_dir, env = world
    once(tree, env, "fakecc")
    tool = bin_dir / "fakecc"
    tool.write_text("#!/bin/sh\necho fakecc-2-longer\n")
    assert once(tree, env, "fakecc") == "fakecc-2-longer"
    # Same size, new modification time: still a new compiler.
    tool.write_text("#!/bin/sh\necho fakecc-3-longer\n")
    os.utime(tool, ns=(tool.stat().st_atime_ns, tool.stat().st_mtime_ns + 10**9))
    assert once(tree, env, "fakecc") == "fakecc-3-longer"
    assert runs(tree) == 3


def test_a_changed_script_of_the_tree_runs_again(world):
    tree, _, env = world
    once(tree, env, "./scripts/probe.sh")
    (tree / "scripts" / "probe.sh").write_text("#!/bin/sh\necho probe-2 changed\n")
    assert once(tree, env, "./scripts/probe.sh") == "probe-2 changed"
    assert runs(tree) == 2


def test_a_program_that_appears_on_the_path_runs_again(world):
    tree, bin_dir, env = world
    assert once(tree, env, "newtool 2>/dev/null || echo none") == "none"
    new = bin_dir / "newtool"
    new.write_text("#!/bin/sh\necho here\n")
    new.chmod(0o755)
    assert once(tree, env, "newtool 2>/dev/null || echo none") == "here"
    assert runs(tree) == 2


def test_corrupt_and_foreign_files_are_ignored_and_replaced(world):
    tree, _, env = world
    once(tree, env, "fakecc")
    path = Path(ShellCache(str(tree), env).path)
    path.write_text("{not json")
    assert once(tree, env, "fakecc") == "fakecc-1" and runs(tree) == 2
    data = json.loads(path.read_text())
    data["version"] = "0.0.0-other"
    path.write_text(json.dumps(data))
    assert once(tree, env, "fakecc") == "fakecc-1" and runs(tree) == 3
    assert json.loads(path.read_text())["version"] != "0.0.0-other"


def test_no_cache_variable_turns_it_off(world, monkeypatch):
    tree, _, env = world
    monkeypatch.setenv(shell_cache.NO_CACHE_VARIABLE, "1")
    once(tree, env, "fakecc")
    once(tree, env, "fakecc")
    assert runs(tree) == 2
    assert not (Path(env["XDG_CACHE_HOME"]) / "kconfig-ls" / "shell").exists()


def test_without_the_file_a_session_still_runs_a_command_once(world, monkeypatch):
    """KCONFIG_LS_NO_CACHE turns off the file, not the session's memory: a
    server re-parsing a file after each edit must not run its probes again
    (half a second a keystroke on init/Kconfig)."""
    tree, _, env = world
    monkeypatch.setenv(shell_cache.NO_CACHE_VARIABLE, "1")
    cache = ShellCache(str(tree), env)
    command = "echo ran >> runs; fakecc"
    assert cache(command) == cache(command) == "fakecc-1"
    assert runs(tree) == 1 and (cache.runs, cache.hits) == (1, 1)
    assert not cache.needs_run(command)
    cache.save()
    assert not (Path(env["XDG_CACHE_HOME"]) / "kconfig-ls" / "shell").exists()


def test_the_directory_keeps_the_newest_files(world, monkeypatch):
    tree, _, env = world
    monkeypatch.setattr(shell_cache, "MAX_FILES", 3)
    for i in range(6):
        once(tree, {**env, "N": str(i)}, "echo $N")
    files = list((Path(env["XDG_CACHE_HOME"]) / "kconfig-ls" / "shell").glob("*.json"))
    assert len(files) == 3


WRITER = """
import sys
from kconfig_ls.kconfig.shell_cache import ShellCache
tree, n = sys.argv[1], int(sys.argv[2])
env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": sys.argv[3]}
for i in range(30):
    cache = ShellCache(tree, env)
    cache(f"echo {n}-{i}")
    cache.save()
"""


def test_processes_sharing_the_file_never_see_half_of_it(world, tmp_path):
    tree, _, env = world
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tree), str(n), env["XDG_CACHE_HOME"]])
             for n in range(4)]
    path = Path(ShellCache(str(tree), {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": env["XDG_CACHE_HOME"]}).path)
    seen = 0
    while any(p.poll() is None for p in procs):
        if path.exists():
            json.loads(path.read_text())  # always whole
            seen += 1
    assert all(p.returncode == 0 for p in procs)
    data = json.loads(path.read_text())
    # Each writer merges what is on disk: at least one process's results all survive.
    assert len(data["commands"]) >= 30 and seen > 0
    assert not list(path.parent.glob("*.tmp"))
