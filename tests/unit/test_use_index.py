"""The index of CONFIG_ uses (SQLite under the cache directory): what it
finds, that updating after edits equals building afresh, invalidation,
a damaged database, no cache."""

from __future__ import annotations

import os
import random

import pytest

from kconfig_ls.uses.index import UseIndex

FILES = {
    "kernel/a.c": "#ifdef CONFIG_A\nint a; /* CONFIG_IN_COMMENT */\n#endif\nchar *s = \"CONFIG_IN_STRING\";\n",
    "kernel/b.h": "#if IS_ENABLED(CONFIG_B) || defined(CONFIG_A_MODULE)\n#endif\n",
    "kernel/Makefile": "obj-$(CONFIG_A) += a.o\n# CONFIG_B in a comment\nifdef CONFIG_B\nendif\n",
    "kernel/notes.txt": "CONFIG_A is not read here\n",
    ".git/x.c": "CONFIG_HIDDEN\n",
}


@pytest.fixture
def env(tmp_path):
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rows(index: UseIndex) -> list:
    with index.lock:
        return sorted(index.db.execute(
            "SELECT f.path, f.size, u.name, u.line, u.col FROM files f LEFT JOIN uses u ON u.file = f.id"))


def test_uses_outside_comments_and_strings(tmp_path, env):
    root = tmp_path / "tree"
    write(root, FILES)
    index = UseIndex(str(root), env=env)
    assert index.update() == 3
    assert index.uses_of(["CONFIG_A", "CONFIG_A_MODULE"]) == [
        ("kernel/Makefile", 1, 6, "CONFIG_A"), ("kernel/a.c", 1, 7, "CONFIG_A"),
        ("kernel/b.h", 1, 36, "CONFIG_A_MODULE")]
    assert index.uses_of(["CONFIG_B"]) == [("kernel/Makefile", 3, 6, "CONFIG_B"), ("kernel/b.h", 1, 15, "CONFIG_B")]
    assert index.uses_of(["CONFIG_IN_COMMENT", "CONFIG_IN_STRING", "CONFIG_HIDDEN"]) == []
    # Kept under the cache directory, private; the next start reads nothing.
    [database] = (tmp_path / "cache" / "kconfig-ls" / "uses").glob("*.sqlite")
    assert oct(database.stat().st_mode & 0o777) == "0o600"
    index.close()
    again = UseIndex(str(root), env=env)
    assert again.update() == 0 and again.uses_of(["CONFIG_B"])


def test_updates_equal_a_fresh_build(tmp_path, env):
    root = tmp_path / "tree"
    write(root, FILES)
    index = UseIndex(str(root), env=env)
    index.update()
    rng = random.Random(5)
    names = ["CONFIG_A", "CONFIG_B", "CONFIG_C_MODULE", "/* CONFIG_D */", "\n", "x", "\"CONFIG_E\""]
    for step in range(12):
        name = rng.choice(["kernel/a.c", "kernel/b.h", "kernel/Makefile", "drivers/new.c", "kernel/new.mk"])
        path = root / name
        if rng.random() < 0.2 and path.exists():
            path.unlink()
        else:
            text = path.read_text() if path.exists() else ""
            at = rng.randrange(len(text) + 1)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text[:at] + " ".join(rng.choice(names) for _ in range(3)) + text[at:])
            os.utime(path, ns=(step * 10**9, step * 10**9))  # (a change within one mtime tick)
        if step % 3 == 2:
            index.refresh(str(path))  # (saved in the editor)
        else:
            index.update()
        fresh = UseIndex(str(root), env={**env, "KCONFIG_LS_NO_CACHE": "1"})
        fresh.update()
        assert rows(index) == rows(fresh), step


def test_a_damaged_database_is_rebuilt(tmp_path, env):
    root = tmp_path / "tree"
    write(root, FILES)
    index = UseIndex(str(root), env=env)
    index.update()
    index.close()
    [database] = (tmp_path / "cache" / "kconfig-ls" / "uses").glob("*.sqlite")
    for suffix in ("-wal", "-shm"):
        (database.parent / (database.name + suffix)).unlink(missing_ok=True)
    database.write_bytes(b"not a database at all" * 100)
    index = UseIndex(str(root), env=env)
    assert index.update() == 3 and index.uses_of(["CONFIG_A"])


def test_no_cache_writes_nothing(tmp_path, env):
    root = tmp_path / "tree"
    write(root, FILES)
    index = UseIndex(str(root), env={**env, "KCONFIG_LS_NO_CACHE": "1"})
    assert index.update() == 3 and index.uses_of(["CONFIG_A"])
    assert not (tmp_path / "cache").exists()


def test_many_files_are_read_by_workers(tmp_path, env):
    root = tmp_path / "tree"
    write(root, {f"d{i // 100}/f{i}.c": f"#if CONFIG_N{i % 7}\n#endif\n" for i in range(700)})
    index = UseIndex(str(root), env=env)
    seen = []
    assert index.update(lambda done, total: seen.append((done, total))) == 700
    assert seen[-1] == (700, 700) and len(seen) == 3
    assert len(index.uses_of(["CONFIG_N3"])) == 100
