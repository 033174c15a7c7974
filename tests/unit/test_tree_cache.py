"""Tree snapshots (kconfig_ls/kconfig/tree_cache.py): a second load of an
unchanged tree is read back, prints and computes exactly what a fresh load
does, and every input that changed (a file's text, a missing ``osource``
file appearing, the environment, a ``$(shell)`` result, an unsaved buffer,
the engine's code) makes it load afresh; damaged snapshots are replaced,
the directory stays bounded, ``KCONFIG_LS_NO_CACHE=1`` turns it off."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from tree_digest import tree_digest

from kconfig_ls.kconfig import configfile, session, shell_cache, tree_cache
from kconfig_ls.kconfig import generation as generations
from kconfig_ls.kconfig.symbols import SYM_M, SYM_N, SYM_Y
from kconfig_ls.kconfig.tree import Kconfig

TOP = """\
mainmenu "Snapshot test"
config MODULES
\tbool "modules"
\tdefault y
\tmodules
config A
\tbool "a"
\tdefault y
config B
\ttristate "b"
\tdepends on A
\tdefault m
config C
\tbool "c"
\tdefault y if B = m
config BAD
\tbool
\tselect NOT_DEFINED
config CC
\tstring
\tdefault "$(shell,compiler)"
$(info,top read)
source "sub/Kconfig"
osource "maybe/Kconfig"
"""
SUB = """\
config SUB
\tint "sub"
\trange 1 10
\tdefault $(NUMBER)
config WARNED
\tbool "warned"
\tdepends on A = m
"""


class Shell:
    """A ``$(shell)`` runner whose answers a test can change."""

    def __init__(self) -> None:
        self.answers = {"compiler": "gcc-12"}
        self.calls = 0

    def __call__(self, command: str) -> str:
        self.calls += 1
        return self.answers.get(command, "")


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.delenv(shell_cache.NO_CACHE_VARIABLE, raising=False)
    monkeypatch.setattr(tree_cache, "MIN_LOAD_SECONDS", 0.0)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "Kconfig").write_text(TOP)
    (tree / "sub" / "Kconfig").write_text(SUB)
    env = {"NUMBER": "4", "srctree": str(tree), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return tree, env, Shell()


def load(world, overlays=None, **changes):
    """(tree, printed warnings, printed info lines) of a load that waits
    for its snapshot to be written."""
    tree, env, shell = world
    env = {**env, **changes}
    err, info = io.StringIO(), []
    kc = tree_cache.load("Kconfig", srctree=str(tree), env=env, shell=shell, info=info.append,
                         warn_stream=err, generation=generations.LINUX_6_1, overlays=overlays)
    tree_cache.reap_writers(wait=60)
    return kc, err.getvalue(), info


def outcome(kc: Kconfig) -> tuple:
    """What a user sees of a tree: diagnostics and the configs it writes."""
    diags = [(d.file, d.line, d.severity, d.message) for d in kc.diagnostics]
    configs = []
    for mode in ("allnoconfig", "allyesconfig", "allmodconfig", "olddefconfig"):
        kc.reset_values()
        session.apply_mode(kc, mode)
        configs.append(configfile.config_text(kc))
    return diags, configs


def snapshots(world) -> list[Path]:
    _, env, _ = world
    return sorted(Path(tree_cache.snapshot_directory(env)).glob("*.pickle"))


def test_a_second_load_is_the_snapshot_and_behaves_as_a_fresh_load(world):
    cold, cold_err, cold_info = load(world)
    assert not cold.from_snapshot and len(snapshots(world)) == 1
    warm, warm_err, warm_info = load(world)
    assert warm.from_snapshot
    assert (warm_err, warm_info) == (cold_err, cold_info)
    assert any("top read" in t for t in cold_info) and any("tested for 'm'" in t for t in cold_info)
    fresh = Kconfig("Kconfig", srctree=world[0].as_posix(), env=world[1], shell=world[2],
                    info=lambda _t: None, generation=generations.LINUX_6_1)
    assert outcome(warm) == outcome(fresh) == outcome(cold)
    assert tree_digest(warm) == tree_digest(fresh)
    # The shared constants stay shared (identity is how the engine tests them).
    assert warm.symbols["A"].defaults[0].expr is SYM_Y
    assert warm.symbols["B"].defaults[0].expr is SYM_M
    assert warm.modules_sym is warm.symbols["MODULES"]
    assert SYM_N.curr_val == "n"
    assert warm.gen is generations.LINUX_6_1


def test_the_snapshot_prints_what_the_load_printed(world):
    tree, _, _ = world
    (tree / "sub" / "Kconfig").write_text(SUB + "config UNTYPED\n\tprompt \"x\"\n")
    cold, cold_err, _ = load(world)
    assert "defined without type" in cold_err
    warm, warm_err, _ = load(world)
    assert warm.from_snapshot and warm_err == cold_err


def test_a_changed_file_is_read_again(world):
    tree, _, _ = world
    load(world)
    (tree / "sub" / "Kconfig").write_text(SUB.replace("range 1 10", "range 1 20"))
    kc, _, _ = load(world)
    assert not kc.from_snapshot
    assert "range 1 20" in kc.files["sub/Kconfig"].text
    assert load(world)[0].from_snapshot


def test_a_file_touched_but_unchanged_keeps_the_snapshot(world):
    tree, _, _ = world
    load(world)
    path = tree / "sub" / "Kconfig"
    os.utime(path, ns=(1, 1))
    assert load(world)[0].from_snapshot


def test_a_same_size_edit_with_the_old_time_is_found_by_its_text(world):
    tree, _, _ = world
    load(world)
    path = tree / "sub" / "Kconfig"
    st = path.stat()
    path.write_text(SUB.replace("default $(NUMBER)", "default $(NUMBEr)"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert not load(world)[0].from_snapshot


def test_an_optional_source_that_appears_is_read(world):
    tree, _, _ = world
    load(world)
    (tree / "maybe").mkdir()
    (tree / "maybe" / "Kconfig").write_text("config MAYBE\n\tbool \"maybe\"\n")
    kc, _, _ = load(world)
    assert not kc.from_snapshot and "MAYBE" in kc.symbols


def test_the_environment_is_part_of_the_key(world):
    load(world)
    kc, _, _ = load(world, NUMBER="5")
    assert not kc.from_snapshot
    assert kc.symbols["SUB"].defaults[0].expr.name == "5"
    # A shell's own bookkeeping variables are not.
    assert load(world, NUMBER="5", _="/usr/bin/other")[0].from_snapshot


def test_a_changed_shell_result_loads_afresh(world):
    _, _, shell = world
    load(world)
    shell.answers["compiler"] = "gcc-13"
    kc, _, _ = load(world)
    assert not kc.from_snapshot
    assert kc.symbols["CC"].defaults[0].expr.name == "gcc-13"


def test_unsaved_buffers_are_part_of_the_key(world):
    edited = {"sub/Kconfig": SUB + "config FROM_BUFFER\n\tbool \"b\"\n"}
    load(world)
    kc, _, _ = load(world, overlays=edited)
    assert not kc.from_snapshot and "FROM_BUFFER" in kc.symbols
    assert load(world, overlays=edited)[0].from_snapshot
    assert "FROM_BUFFER" not in load(world)[0].symbols


def test_a_snapshot_of_other_code_is_replaced(world, monkeypatch):
    load(world)
    monkeypatch.setattr(tree_cache, "_engine_digest", "other code")
    kc, _, _ = load(world)
    assert not kc.from_snapshot
    assert load(world)[0].from_snapshot


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_snapshot_is_ignored_and_rewritten(world, damage):
    load(world)
    [path] = snapshots(world)
    data = path.read_bytes()
    path.write_bytes({"garbage": b"\x00\xffnot a pickle" * 100, "truncated": data[: len(data) // 2],
                      "empty": b""}[damage])
    kc, _, _ = load(world)
    assert not kc.from_snapshot
    assert path.read_bytes() == data or load(world)[0].from_snapshot


def test_no_cache_turns_it_off(world, monkeypatch):
    monkeypatch.setenv(shell_cache.NO_CACHE_VARIABLE, "1")
    load(world)
    assert not load(world)[0].from_snapshot
    assert snapshots(world) == []


def test_small_loads_are_not_kept(world, monkeypatch):
    monkeypatch.setattr(tree_cache, "MIN_LOAD_SECONDS", 60.0)
    load(world)
    assert snapshots(world) == []


def test_the_directory_keeps_the_most_recently_used(world, monkeypatch):
    monkeypatch.setattr(tree_cache, "MAX_FILES", 2)
    for number in ("1", "2", "3"):
        load(world, NUMBER=number)
    kept = snapshots(world)
    assert len(kept) == 2
    assert not load(world, NUMBER="1")[0].from_snapshot  # the oldest went
    assert load(world, NUMBER="3")[0].from_snapshot


def test_the_snapshot_directory_is_private(world):
    load(world)
    directory = Path(tree_cache.snapshot_directory(world[1]))
    assert directory.stat().st_mode & 0o077 == 0
    assert all(p.stat().st_mode & 0o077 == 0 for p in directory.iterdir())


def test_a_snapshot_others_could_write_is_not_read(world):
    load(world)
    [path] = snapshots(world)
    path.chmod(0o666)
    assert not load(world)[0].from_snapshot
    path.chmod(0o600)
    path.parent.chmod(0o777)
    try:
        assert not load(world)[0].from_snapshot
    finally:
        path.parent.chmod(0o700)
    assert load(world)[0].from_snapshot


def test_a_preloaded_snapshot_is_taken_once_and_checked_like_a_file(world, monkeypatch):
    """The resident server process reads snapshots ahead (tree_cache.preload):
    a load takes the tree from memory instead of the file, still checks
    its inputs, and takes it only once (a second load reads the file: the
    first one's tree may have changed since)."""
    tree, _, _ = world
    cold, _, _ = load(world)
    path = cold.snapshot_path
    assert path is not None and tree_cache.preload(path) is True
    assert tree_cache.preload(path) is False  # (there already)
    read_files = []
    real_read_tree = tree_cache._read_tree
    monkeypatch.setattr(tree_cache, "_read_tree", lambda f: read_files.append(f) or real_read_tree(f))
    warm, _, _ = load(world)
    assert warm.from_snapshot and warm.snapshot_path == path and read_files == []
    fresh = Kconfig("Kconfig", srctree=tree.as_posix(), env=world[1], shell=world[2],
                    info=lambda _t: None, generation=generations.LINUX_6_1)
    assert tree_digest(warm) == tree_digest(fresh)
    again, _, _ = load(world)
    assert again.from_snapshot and again is not warm and len(read_files) == 1
    # Preloaded, then an input changed: the tree in memory is not used.
    assert tree_cache.preload(path)
    (tree / "sub" / "Kconfig").write_text(SUB.replace("range 1 10", "range 1 30"))
    changed, _, _ = load(world)
    assert not changed.from_snapshot and "range 1 30" in changed.files["sub/Kconfig"].text
    # A snapshot replaced since it was preloaded (a new file): not taken.
    assert tree_cache.preload(path)
    copy = Path(path + ".new")
    copy.write_bytes(Path(path).read_bytes())
    os.chmod(copy, 0o600)
    os.replace(copy, path)
    assert tree_cache._take_preloaded(path) is None
    other, _, _ = load(world, NUMBER="5")  # (another key: another snapshot)
    assert other.snapshot_path != path
    assert tree_cache.preload(path) and tree_cache.preload(other.snapshot_path)
    assert tree_cache.preload(path) is False  # (asked for again: now the last used)
    tree_cache.forget_preloaded(keep=1)
    assert list(tree_cache._preloaded) == [path]
    tree_cache.forget_preloaded(keep=0)
    assert tree_cache._preloaded == {}
