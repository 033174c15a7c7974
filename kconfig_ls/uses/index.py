"""Where each ``CONFIG_`` name is used across a tree's source files: an
index kept in SQLite under ``${XDG_CACHE_HOME:-~/.cache}/kconfig-ls/uses/``.

A Linux tree has ~64,000 C, header, assembly, device-tree and make files
(1.1 GB), and Rust sources and documentation; ~17,600 of them name a
``CONFIG_`` symbol.  The first build reads
them all with worker processes (~12 s on two cores); later ones only the
files whose size or modification time changed.  SQLite is the store
because the index is queried by name, updated file by file and shared by
every server on the same tree (WAL journal; a damaged database is
replaced).  ``KCONFIG_LS_NO_CACHE=1`` keeps it in a temporary file.

Uses are found as :mod:`.cpp` and :mod:`.make` find them (not in comments
or strings); the index keeps only where, not how.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable

from ..kconfig.shell_cache import cache_root, caching_disabled
from . import cpp, make, plain

#: Bumped when what a row means changes.
FORMAT = 1
#: Files a worker reads per task (large enough that tasks are cheap).
CHUNK = 256
_CPP_ENDINGS = (".c", ".h", ".S", ".dts", ".dtsi", ".lds")
_MAKE_NAME = re.compile(r"^(?:Makefile|Kbuild)(?:\..*)?$|.*\.mk$")
_TEXT_ENDINGS = (".rst", ".txt")


class IndexCancelled(Exception):
    pass


def file_kind(name: str) -> str | None:
    """``cpp``, ``make``, ``rust`` or ``text`` (documentation) for a file
    name the index reads, else None."""
    base = os.path.basename(name)
    if base.endswith(_CPP_ENDINGS):
        return "cpp"
    if _MAKE_NAME.match(base):
        return "make"
    if base.endswith(".rs"):
        return "rust"
    if base.endswith(_TEXT_ENDINGS) and ("Documentation/" in name or name.startswith("Documentation")):
        return "text"
    return None


def uses_in(text: str, kind: str, prefix: str) -> list[tuple[str, int, int]]:
    """(name, line, col) of each use of a ``prefix`` name in ``text``."""
    if kind == "make":
        return [(u.name, u.line, u.col) for u in make.scan(text, prefix).uses]
    if kind in ("rust", "text"):
        return [(u.name, u.line, u.col) for u in plain.scan(text, kind, prefix).uses]
    clean = cpp.blank_comments(text.replace("\r\n", "\n").replace("\r", "\n"))
    found = []
    line, last = 1, 0
    for m in re.finditer(r"\b" + re.escape(prefix) + r"\w+", clean):
        line += clean.count("\n", last, m.start())
        last = m.start()
        found.append((m.group(), line, m.start() - clean.rfind("\n", 0, m.start()) - 1))
    return found


def _read_files(task: tuple[str, str, list[tuple[str, int, int]]]) -> list[tuple]:
    """Worker: (path, mtime_ns, size, uses) of each file of a chunk."""
    root, prefix, files = task
    marker = prefix.encode()
    pattern = re.compile(rb"\b" + re.escape(marker))
    out = []
    for name, mtime_ns, size in files:
        try:
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
        except OSError:
            continue
        uses = []
        if marker in data and pattern.search(data):
            uses = uses_in(data.decode("utf-8", "surrogateescape"), file_kind(name), prefix)
        out.append((name, mtime_ns, size, uses))
    return out


class UseIndex:
    """The uses of one tree (``root``), by name."""

    def __init__(self, root: str, prefix: str = "CONFIG_", env=None):
        self.root = os.path.abspath(root)
        self.prefix = prefix
        self.lock = threading.Lock()
        self.path = None if caching_disabled(env) else self._database_path(env)
        self.db = self._open()
        #: Set to stop a build (the server is exiting).
        self.cancel = threading.Event()
        self._pool = None

    def _database_path(self, env) -> str:
        key = hashlib.blake2b(f"{FORMAT}\0{self.root}\0{self.prefix}".encode("utf-8", "surrogateescape"),
                              digest_size=16).hexdigest()
        directory = os.path.join(cache_root(env), "uses")
        os.makedirs(directory, mode=0o700, exist_ok=True)
        return os.path.join(directory, key + ".sqlite")

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError:
            # Damaged or foreign: it is only a cache.
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(self.path + suffix)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        # (No cache: SQLite's private temporary file, not memory: the index
        # would add ~13 MB to the server.)
        db = sqlite3.connect(self.path or "", check_same_thread=False, timeout=30)
        if self.path:
            os.chmod(self.path, 0o600)
            db.execute("PRAGMA journal_mode=WAL")
        db.executescript("""
            CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL,
                                              mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS uses (name TEXT NOT NULL, file INTEGER NOT NULL,
                                             line INTEGER NOT NULL, col INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS uses_by_name ON uses (name);
            CREATE INDEX IF NOT EXISTS uses_by_file ON uses (file);
        """)
        db.execute("SELECT count(*) FROM files").fetchone()  # (a damaged file fails here)
        return db

    # -- building ----------------------------------------------------------------------
    def update(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Bring the index up to the files on disk: read the new and changed
        ones, forget the removed ones.  Returns how many files were read.
        ``progress(done, total)`` is told as files are read."""
        on_disk = dict(self._walk())
        with self.lock:
            known = {path: (mtime, size) for path, mtime, size in
                     self.db.execute("SELECT path, mtime_ns, size FROM files")}
        stale = [(p, *stat) for p, stat in on_disk.items() if known.get(p) != stat]
        gone = [p for p in known if p not in on_disk]
        with self.lock, self.db:
            for path in gone:
                self._forget(path)
        if not stale:
            return 0
        tasks = [(self.root, self.prefix, stale[i:i + CHUNK]) for i in range(0, len(stale), CHUNK)]
        done = 0
        for results in self._map(tasks):
            with self.lock, self.db:
                for path, mtime_ns, size, uses in results:
                    self._store(path, mtime_ns, size, uses)
            done += len(results)
            if progress is not None:
                progress(done, len(stale))
        return len(stale)

    def _map(self, tasks: list) -> Iterable[list[tuple]]:
        """Results of the tasks, read by two worker processes (fresh
        interpreters: the server has threads, which a fork would copy
        half-way), or here for a handful of files."""
        if len(tasks) <= 1:
            for task in tasks:
                if self.cancel.is_set():
                    raise IndexCancelled
                yield _read_files(task)
            return
        context = multiprocessing.get_context("spawn")
        with context.Pool(min(2, os.cpu_count() or 1)) as pool:
            self._pool = pool
            try:
                for results in pool.imap_unordered(_read_files, tasks):
                    if self.cancel.is_set():
                        raise IndexCancelled
                    yield results
            finally:
                self._pool = None
                pool.terminate()

    def stop(self) -> None:
        """Stop a build in progress now (its workers too)."""
        self.cancel.set()
        pool = self._pool
        if pool is not None:
            pool.terminate()

    def _walk(self) -> Iterable[tuple[str, tuple[int, int]]]:
        stack = [self.root]
        while stack:
            directory = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                        continue
                    name = os.path.relpath(entry.path, self.root)
                    if file_kind(name) is not None and entry.is_file():
                        st = entry.stat()
                        yield name, (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue

    def _forget(self, path: str) -> None:
        row = self.db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row is not None:
            self.db.execute("DELETE FROM uses WHERE file = ?", row)
            self.db.execute("DELETE FROM files WHERE id = ?", row)

    def _store(self, path: str, mtime_ns: int, size: int, uses: list[tuple[str, int, int]]) -> None:
        self._forget(path)
        file_id = self.db.execute("INSERT INTO files (path, mtime_ns, size) VALUES (?, ?, ?)",
                                  (path, mtime_ns, size)).lastrowid
        self.db.executemany("INSERT INTO uses (name, file, line, col) VALUES (?, ?, ?, ?)",
                            [(name, file_id, line, col) for name, line, col in uses])

    def refresh(self, path: str) -> None:
        """Read one file again (it was saved, created or deleted)."""
        name = os.path.relpath(os.path.abspath(path), self.root)
        if name.startswith("..") or file_kind(name) is None:
            return
        try:
            st = os.stat(os.path.join(self.root, name))
        except OSError:
            with self.lock, self.db:
                self._forget(name)
            return
        [(_, mtime_ns, size, uses)] = _read_files((self.root, self.prefix, [(name, st.st_mtime_ns, st.st_size)])) \
            or [(name, st.st_mtime_ns, st.st_size, [])]
        with self.lock, self.db:
            self._store(name, mtime_ns, size, uses)

    # -- asking --------------------------------------------------------------------------
    def uses_of(self, names: Iterable[str]) -> list[tuple[str, int, int, str]]:
        """(file, line, col, name) of every use of the names, in file order."""
        names = list(names)
        marks = ",".join("?" * len(names))
        with self.lock:
            rows = self.db.execute(
                f"SELECT f.path, u.line, u.col, u.name FROM uses u JOIN files f ON f.id = u.file "
                f"WHERE u.name IN ({marks}) ORDER BY f.path, u.line, u.col", names).fetchall()
        return rows

    def file_count(self) -> int:
        with self.lock:
            return self.db.execute("SELECT count(*) FROM files").fetchone()[0]

    def close(self) -> None:
        with self.lock:
            self.db.close()
