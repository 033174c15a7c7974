"""Loaded trees kept between runs: the next load of an unchanged tree is read
back from a snapshot instead of being parsed and finalised again.

A snapshot is the finalised :class:`~.tree.Kconfig` (pickled right after its
load, before any value is read into it) together with everything the load
depended on, checked before the snapshot is used:

* the key (the file name): the engine's own source code, the Python version,
  ``srctree`` (and the working directory when it is relative), the top file, the kconfig generation,
  the environment (but for a shell's own bookkeeping variables) and the text of every unsaved buffer (overlay);
* every file the load read: path, size, modification time and a hash of the
  text that was parsed; a file whose size or time changed is read again and
  hashed, so a file touched but not changed keeps the snapshot;
* every ``source`` that found no file (an optional ``osource``): still absent;
* every ``$(shell,...)`` command with its result: the runner (normally the
  persistent :class:`~.shell_cache.ShellCache`, which re-runs a command whose
  compiler or script changed) must still give the same text;
* what the load printed (warnings on ``warn_stream``, ``$(info)`` lines), in
  order, which a warm load prints again.

Snapshots live in ``${XDG_CACHE_HOME:-~/.cache}/kconfig-ls/trees/`` (made
for the user alone; a snapshot is a pickle, so one that is not the user's
own, or that others could have written, is never read).  They are written by a forked child process, so a
cold load is not slowed by the writing, to a temporary name renamed into
place (several processes may share the directory).  A snapshot that cannot
be read or was written by other code is ignored and replaced; the directory
keeps :data:`MAX_FILES` snapshots and :data:`MAX_BYTES` at most, the least
recently used go first.  Only loads that took :data:`MIN_LOAD_SECONDS` or
more are kept (a small tree is read faster than its snapshot).
``KCONFIG_LS_NO_CACHE=1`` turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .probes import Probes
from .shell_cache import cache_root, caching_disabled, prune_directory, remove_file, stable_environment
from .tree import Kconfig, gc_paused, resolve_source_path

#: Bumped when the snapshot layout changes (the engine's code is in the key).
FORMAT = 1
MAGIC = b"kconfig-ls tree snapshot\n"
MAX_FILES = 16
MAX_BYTES = 512 * 1024 * 1024
#: Loads faster than this are not worth a snapshot.
MIN_LOAD_SECONDS = 0.25
#: A writer that has not finished after this long is stopped (its
#: temporary file is removed by the next writer an hour later).
WRITER_SECONDS = 120

_engine_digest: str | None = None
#: Writer processes started by this process and not yet reaped.
_writers: list[int] = []
#: Snapshots read ahead into memory (:func:`preload`), by path: the file's
#: identity when read, its inputs, the tree and its output events.
_preloaded: dict[str, tuple[tuple[int, int, int], LoadInputs, Kconfig, list]] = {}


@dataclass
class LoadInputs:
    """What a load depended on besides its key."""

    #: (path, mtime_ns, size, blake2 of the text parsed)
    files: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: ``source`` names that found no file.
    missing: list[str] = field(default_factory=list)
    #: (command, result) of every ``$(shell,...)``, in order.
    shell: list[tuple[str, str]] = field(default_factory=list)


class _Recorder:
    """Stands in for the load's output channels: keeps what is written, in
    order, and passes it on."""

    def __init__(self, warn_stream, info: Callable[[str], None]):
        self.warn_stream = warn_stream
        self.info_out = info
        #: ("warn", text) and ("info", text) in the order they came.
        self.events: list[tuple[str, str]] = []

    def write(self, text: str) -> int:
        self.events.append(("warn", text))
        if self.warn_stream is not None:
            self.warn_stream.write(text)
        return len(text)

    def flush(self) -> None:
        if self.warn_stream is not None:
            self.warn_stream.flush()

    def info(self, text: str) -> None:
        self.events.append(("info", text))
        self.info_out(text)


def load(
    filename: str,
    *,
    srctree: str,
    env: Mapping[str, str],
    shell: Callable[[str], str],
    generation,
    info: Callable[[str], None] | None = None,
    warn_stream=None,
    overlays: Mapping[str, str] | None = None,
    use_cache: bool = True,
    **kconfig_options,
) -> Kconfig:
    """A loaded tree, as ``Kconfig(filename, srctree=..., ...)`` would give
    it, from a valid snapshot when there is one (``kc.from_snapshot``)."""
    info = info or print
    overlays = dict(overlays or {})
    enabled = use_cache and not caching_disabled(os.environ) and not caching_disabled(env)
    relinkable = bool(kconfig_options.get("relinkable"))
    path = _snapshot_path(filename, srctree, env, generation, overlays, relinkable) if enabled else None
    if path is not None:
        kc = _read(path, shell, info, warn_stream, generation, overlays, srctree, kconfig_options)
        if kc is not None:
            kc.snapshot_path = path
            return kc
    recorder = _Recorder(warn_stream, info)
    commands: list[tuple[str, str]] = []

    def recording_shell(command: str) -> str:
        result = shell(command)
        commands.append((command, result))
        return result

    started = time.perf_counter()
    kc = Kconfig(filename, srctree=srctree, env=env, shell=recording_shell, info=recorder.info,
                 warn_stream=recorder, overlays=overlays, generation=generation,
                 probes=shell if isinstance(shell, Probes) else None, **kconfig_options)
    elapsed = time.perf_counter() - started
    _attach(kc, shell, info, warn_stream, generation)
    kc.from_snapshot = False
    if path is not None and elapsed >= MIN_LOAD_SECONDS:
        _write_in_background(path, kc, commands, recorder.events, overlays)
        kc.snapshot_path = path
    return kc


# -- the key -------------------------------------------------------------------------


def engine_digest() -> str:
    """A hash of the engine's source files: a snapshot is only read by the
    code that wrote it (and the classes it pickles)."""
    global _engine_digest
    if _engine_digest is None:
        h = hashlib.blake2b(digest_size=16)
        here = os.path.dirname(os.path.abspath(__file__))
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                h.update(name.encode())
                with open(os.path.join(here, name), "rb") as f:
                    h.update(f.read())
        _engine_digest = h.hexdigest()
    return _engine_digest


def _snapshot_path(filename: str, srctree: str, env: Mapping[str, str], generation,
                   overlays: Mapping[str, str], relinkable: bool = False) -> str:
    h = hashlib.blake2b(digest_size=20)
    # (The working directory matters only to a relative srctree.)
    cwd = None if os.path.isabs(srctree) else os.path.realpath(os.getcwd())
    key = [FORMAT, engine_digest(), sys.version, cwd, srctree,
           os.path.abspath(srctree), filename, generation.name, stable_environment(env),
           sorted((name, _digest(text)) for name, text in overlays.items()), relinkable]
    h.update(repr(key).encode("utf-8", "surrogateescape"))
    return os.path.join(snapshot_directory(env), h.hexdigest() + ".pickle")


def snapshot_directory(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(cache_root(env), "trees")


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


# -- reading -------------------------------------------------------------------------


def _read(path: str, shell, info, warn_stream, generation, overlays, srctree, kconfig_options) -> Kconfig | None:
    """The snapshot at ``path`` if it is still valid, its output replayed;
    None (the snapshot removed if it is damaged) otherwise."""
    if not _safe_to_read(path):
        return None
    ahead = _take_preloaded(path)
    try:
        if ahead is not None:
            inputs, kc, events = ahead
            if not _still_valid(inputs, shell, srctree, overlays):
                return None
        else:
            with open(path, "rb") as f:
                inputs = _read_inputs(f)
                if not _still_valid(inputs, shell, srctree, overlays):
                    return None
                kc, events = _read_tree(f)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - any damage means: load afresh
        remove_file(path)
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used
    for channel, text in events:
        if channel == "info":
            info(text)
        elif warn_stream is not None:
            warn_stream.write(text)
    _attach(kc, shell, info, warn_stream, generation)
    kc.lex_cache = kconfig_options.get("lex_cache")
    kc.file_cache = kconfig_options.get("file_cache")
    kc.progress = kconfig_options.get("progress")
    kc.from_snapshot = True
    return kc


def _read_inputs(f) -> LoadInputs:
    if f.read(len(MAGIC)) != MAGIC:
        raise ValueError("not a snapshot")
    header = pickle.load(f)
    if header != (FORMAT, engine_digest()):
        raise ValueError("written by other code")
    inputs = pickle.load(f)
    if not isinstance(inputs, LoadInputs):
        raise ValueError("no inputs")
    return inputs


def _read_tree(f) -> tuple[Kconfig, list]:
    with gc_paused():
        kc, events = pickle.load(f)
    if not isinstance(kc, Kconfig):
        raise ValueError("no tree")
    return kc, events


def _identity(st: os.stat_result) -> tuple[int, int, int]:
    """Which file a snapshot is: one is replaced by a rename, never written
    in place (its time changes at every use: left out)."""
    return st.st_dev, st.st_ino, st.st_size


def preload(path: str) -> bool | None:
    """Read the snapshot at ``path`` into memory ahead of a load that will
    ask for it (:mod:`kconfig_ls.resident` does, and the processes it
    forks take it from there): True when it was read now, False when it
    was there already (it counts as used last), None when there is none
    to read.  Its inputs are checked when it is taken, as a file's are."""
    if not _safe_to_read(path):
        return None
    try:
        with open(path, "rb") as f:
            identity = _identity(os.fstat(f.fileno()))
            known = _preloaded.pop(path, None)
            if known is not None and known[0] == identity:
                _preloaded[path] = known
                return False
            inputs = _read_inputs(f)
            kc, events = _read_tree(f)
    except Exception:  # noqa: BLE001 - a snapshot that cannot be read is not preloaded
        return None
    _preloaded[path] = (identity, inputs, kc, events)
    return True


def forget_preloaded(keep: int) -> None:
    """Keep only the ``keep`` snapshots preloaded (or asked for) last."""
    for path in list(_preloaded)[: max(0, len(_preloaded) - keep)]:
        del _preloaded[path]


def _take_preloaded(path: str) -> tuple[LoadInputs, Kconfig, list] | None:
    """The preloaded snapshot of ``path`` if the file is still the one
    read; it is taken (a second load in this process reads the file: the
    first one's tree may have changed since)."""
    known = _preloaded.pop(path, None)
    if known is None:
        return None
    try:
        if _identity(os.stat(path)) != known[0]:
            return None
    except OSError:
        return None
    return known[1], known[2], known[3]


def _safe_to_read(path: str) -> bool:
    """Whether the snapshot at ``path`` may be unpickled: it and its
    directory are the user's own (see :func:`_private`)."""
    return _private(os.path.dirname(path)) and _private(path)


def _private(path: str) -> bool:
    """Whether ``path`` is the user's own and nobody else may write it (a
    pickle written by someone else could run their code here)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _still_valid(inputs: LoadInputs, shell, srctree: str, overlays: Mapping[str, str]) -> bool:
    for path, mtime_ns, size, digest in inputs.files:
        try:
            st = os.stat(path)
            if st.st_mtime_ns == mtime_ns and st.st_size == size:
                continue
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                if _digest(f.read()) != digest:
                    return False
        except OSError:
            return False
    if any(resolve_source_path(name, srctree, overlays) is not None for name in inputs.missing):
        return False
    return all(shell(command) == result for command, result in inputs.shell)


def _attach(kc: Kconfig, shell, info, warn_stream, generation) -> None:
    """Give a loaded (or unpickled) tree this process's output channels."""
    kc.warn_stream = warn_stream
    kc.gen = generation
    kc.pp.shell = shell
    kc.pp.info = info
    kc.pp.warn = kc._pp_warning


# -- writing -------------------------------------------------------------------------


def _write_in_background(path: str, kc: Kconfig, commands, events, overlays) -> None:
    """Fork a child that writes the snapshot of ``kc`` as it is now (the
    parent goes on and may change it)."""
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        _writers.append(pid)
        threading.Thread(target=_reap, args=(pid,), name="snapshot-writer-reaper", daemon=True).start()
        return
    status = 1
    try:
        # Nothing of the parent's: a client waiting for the end of a pipe
        # or socket the parent holds must not wait for this child.
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(WRITER_SECONDS)
        _write(path, kc, commands, events, overlays)
        status = 0
    finally:
        os._exit(status)


def _write(path: str, kc: Kconfig, commands, events, overlays) -> None:
    inputs = LoadInputs(shell=list(commands), missing=list(kc.missing_sources))
    for name, source in kc.files.items():
        if name in overlays:
            continue  # (its text is in the key)
        st = os.stat(source.path)
        with open(source.path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            if f.read() != source.text:
                return  # changed while it was being loaded
        inputs.files.append((source.path, st.st_mtime_ns, st.st_size, _digest(source.text)))
    # What belongs to this process, not to the tree.
    kc.warn_stream = kc.progress = kc.unmet_callback = kc.lex_cache = kc.file_cache = None
    kc.gen = None
    kc.pp.shell = kc.pp.info = kc.pp.warn = None
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tree-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            pickle.dump((FORMAT, engine_digest()), f, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(inputs, f, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump((kc, events), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        remove_file(tmp)
        raise
    prune_directory(directory, ".pickle", MAX_FILES, MAX_BYTES)


def _reap(pid: int) -> None:
    """Wait for a writer to end (so it leaves no zombie) and forget it."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    with contextlib.suppress(ValueError):
        _writers.remove(pid)


def reap_writers(wait: float) -> None:
    """Give the writers still running ``wait`` seconds to finish, then stop
    them (a server exiting leaves no child behind)."""
    deadline = time.monotonic() + wait
    while _writers and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in list(_writers):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
