"""``$(shell,...)`` results kept between runs, invalidated exactly.

A kernel tree runs about 90 toolchain probes while it is read (``$(cc-option,
...)``, ``$(success,...)``, version scripts); they are half of a cold load.
Their results depend on the command, the environment, the working directory
and the programs and scripts the command names.  :class:`ShellCache` keeps
them in one JSON file per (tree, environment) under
``${XDG_CACHE_HOME:-~/.cache}/kconfig-ls/shell/``; each result records the
identity of every word of its command that names a file (resolved on
``$PATH`` or in the tree: path, size, modification time), including words
that named nothing, and is used again only while all of them are unchanged,
so a new compiler, an edited script or a program that appeared on ``$PATH``
runs the command again.

Files are written whole to a temporary name and renamed (several processes
may share the directory); a file that cannot be read, or was written by
another version, is ignored and replaced; the directory keeps the
:data:`MAX_FILES` newest files.  ``KCONFIG_LS_NO_CACHE=1`` turns the file
off (nothing read or written); one :class:`ShellCache` still runs a command
once and answers it again from memory while nothing it names changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping

from .. import __version__
from .probes import ProbeRunner

NO_CACHE_VARIABLE = "KCONFIG_LS_NO_CACHE"
#: Bumped when the file layout or the meaning of an entry changes.
FORMAT = 1
#: Cache files kept (one per tree and environment); the oldest go first.
MAX_FILES = 64
_WORD = re.compile(r"[A-Za-z0-9_./+-]+")


def cache_root(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kconfig-ls")


#: Variables a shell changes from one command to the next (``$_`` is the
#: last command run): no tree or probe result depends on them, and keying
#: on them would make every way of starting kconfig-ls a cache of its own.
VOLATILE_VARIABLES = frozenset({"_", "OLDPWD", "SHLVL"})


def stable_environment(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The environment as a cache key: sorted, without :data:`VOLATILE_VARIABLES`."""
    return sorted((k, v) for k, v in env.items() if k not in VOLATILE_VARIABLES)


def caching_disabled(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(NO_CACHE_VARIABLE, "") not in ("", "0")


class ShellCache:
    """Runs commands for one tree and environment, answering from the
    cache file when the command and everything it names are unchanged.
    Call :meth:`save` once the tree is read."""

    def __init__(self, cwd: str, env: Mapping[str, str], directory: str | None = None):
        self.cwd = os.path.realpath(cwd)
        self.env = dict(env)
        self.enabled = not caching_disabled(os.environ) and not caching_disabled(self.env)
        key = json.dumps([FORMAT, __version__, self.cwd, stable_environment(self.env)])
        digest = hashlib.blake2b(key.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        self.directory = directory or os.path.join(cache_root(self.env), "shell")
        self.path = os.path.join(self.directory, digest + ".json")
        self._entries: dict[str, dict] = self._read() if self.enabled else {}
        self._new: dict[str, dict] = {}
        self._identities: dict[str, list] = {}
        self._runner = ProbeRunner.for_shell(self.cwd, self.env)
        #: Commands answered from the cache / run, in this process.
        self.hits = 0
        self.runs = 0

    def __call__(self, command: str) -> str:
        entry = self._valid_entry(command)
        if entry is not None:
            self.hits += 1
            return entry["result"]
        inputs = self._inputs(command)
        result = self._runner(command)
        self.runs += 1
        # (Kept for the session even with the file off: a server parses an
        # edited file again and again.)
        self._new[command] = {"result": result, "inputs": inputs}
        return result

    def _valid_entry(self, command: str) -> dict | None:
        """The kept result of ``command`` if nothing it names changed since."""
        entry = self._new.get(command) or self._entries.get(command)
        if entry is not None and entry.get("inputs") == self._inputs(command):
            return entry
        return None

    # -- running ahead (probes.py) ---------------------------------------------------
    def needs_run(self, command: str) -> bool:
        return self._valid_entry(command) is None and self._runner.needs_run(command)

    def prefetch(self, commands) -> None:
        self._runner.prefetch(c for c in commands if self.needs_run(c))

    def wait_for(self, command: str) -> str:
        entry = self._valid_entry(command)
        return entry["result"] if entry is not None else self._runner.wait_for(command)

    def while_waiting(self, work: Callable[[], bool] | None) -> None:
        self._runner.while_waiting(work)

    def finish(self) -> None:
        self._runner.finish()

    # -- identity of what a command names ------------------------------------------
    def _inputs(self, command: str) -> list:
        """[word, resolved path or None, size, mtime_ns] for each distinct
        word of ``command`` that is or could be a program or a file."""
        out = []
        for word in sorted(set(_WORD.findall(command))):
            if word.startswith("-") or word in (".", ".."):
                continue
            out.append(self._identity(word))
        return out

    def _identity(self, word: str) -> list:
        known = self._identities.get(word)
        if known is not None:
            return known
        if "/" in word:
            path = os.path.join(self.cwd, word) if not os.path.isabs(word) else word
            path = path if os.path.isfile(path) else None
        else:
            path = shutil.which(word, path=self.env.get("PATH", os.defpath))
        identity = [word, None, 0, 0]
        if path is not None:
            real = os.path.realpath(path)
            try:
                st = os.stat(real)
                identity = [word, real, st.st_size, st.st_mtime_ns]
            except OSError:
                pass
        self._identities[word] = identity
        return identity

    # -- the file ------------------------------------------------------------------
    def _read(self) -> dict[str, dict]:
        try:
            with open(self.path, encoding="utf-8", errors="surrogateescape") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != __version__:
            return {}
        entries = data.get("commands")
        if not isinstance(entries, dict):
            return {}
        return {c: e for c, e in entries.items()
                if isinstance(e, dict) and isinstance(e.get("result"), str) and isinstance(e.get("inputs"), list)}

    def save(self) -> None:
        """Write the results run in this process (merged with what another
        process may have written meanwhile); failures to write are ignored:
        the cache only saves time."""
        if not self.enabled or not self._new:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            merged = {**self._read(), **self._new}
            data = {"format": FORMAT, "version": __version__, "cwd": self.cwd, "commands": merged}
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".shell-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
                    json.dump(data, f)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
            self._entries, self._new = merged, {}
            prune_directory(self.directory, ".json", MAX_FILES)
        except OSError:
            return


def prune_directory(directory: str, suffix: str, max_files: int, max_bytes: int | None = None) -> None:
    """Keep the most recently written (or used) ``suffix`` files of a cache
    directory, ``max_files`` of them and ``max_bytes`` in all at most, and
    drop the temporary files an interrupted writer left an hour ago or more.
    Best effort: a file that cannot be removed is left."""
    try:
        now = time.time()
        entries = []
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            st = os.stat(path)
            if name.endswith(".tmp"):
                if now - st.st_mtime > 3600:
                    remove_file(path)
            elif name.endswith(suffix):
                entries.append((st.st_mtime, st.st_size, path))
    except OSError:
        return
    entries.sort(reverse=True)
    total = 0
    for count, (_mtime, size, path) in enumerate(entries):
        total += size
        if count >= max_files or (max_bytes is not None and total > max_bytes):
            remove_file(path)


def remove_file(path: str) -> None:
    """Remove ``path`` if it can be (a cache file: failing only costs space)."""
    with contextlib.suppress(OSError):
        os.unlink(path)
