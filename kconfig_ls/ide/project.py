"""A Kconfig project as an editor sees it: the tree root, its settings, the
loaded tree with unsaved buffers applied, the current configuration, and an
index of definitions across every architecture.

Plain Python, no LSP types: the server converts.  A :class:`Project` is
re-loaded after edits; unchanged files are not re-lexed (the engine's lexing
cache) and ``$(shell,...)`` results are cached for the session.
"""

from __future__ import annotations

import os
import re
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .. import heap
from ..kconfig import configfile, tree_cache
from ..kconfig import generation as generations
from ..kconfig.errors import KconfigError
from ..kconfig.filecheck import FileCheck
from ..kconfig.howto import HowTo, how_to, meet_dependencies
from ..kconfig.kernel import host_arch, kernel_env
from ..kconfig.relink import NotRelinkable, check_cycles, relink_file
from ..kconfig.revalue import ConfigValues
from ..kconfig.scenario import remember_base_unmet
from ..kconfig.shell_cache import ShellCache
from ..kconfig.tree import Kconfig, gc_paused
from ..uses.index import UseIndex
from ..uses.macros import ConfigMacros

ROOT_FILES = ("Kconfig", "Config.in")
_DEFINITION_RE = re.compile(r"^[ \t]*(?:menu)?config[ \t]+([A-Za-z0-9_]+)[ \t]*(?:#.*)?$", re.M)


@dataclass
class Settings:
    """What the user configured (initializationOptions / settings)."""

    root: str | None = None
    arch: str | None = None
    config_file: str | None = None
    trusted: bool = False
    trusted_roots: list[str] = field(default_factory=list)
    #: The kconfig generation to follow (``6.1``, ``6.12``); None: detect.
    kconfig_version: str | None = None
    #: The client runs ``command:`` links in hovers (VS Code, with the
    #: extension's trusted commands): hovers link to the full explanation.
    command_links: bool = False

    @classmethod
    def from_options(cls, options: dict | None, base: Settings | None = None) -> Settings:
        options = dict(options or {})
        nested = options.get("kconfig")
        if isinstance(nested, dict):
            options = {**options, **nested}
        settings = Settings(**vars(base)) if base else Settings()
        for key, attr in (("root", "root"), ("arch", "arch"), ("configFile", "config_file"),
                          ("kconfigVersion", "kconfig_version")):
            value = options.get(key, options.get(f"kconfig.{key}"))
            if value is not None:
                setattr(settings, attr, value or None)
        trusted_roots = options.get("trustedRoots", options.get("kconfig.trustedRoots"))
        if isinstance(trusted_roots, list):
            settings.trusted_roots = [str(r) for r in trusted_roots]
        if "trusted" in options:
            settings.trusted = bool(options["trusted"])
        if "commandLinks" in options:
            settings.command_links = options["commandLinks"] is True
        return settings


def find_root(path: str) -> str | None:
    """The nearest directory at or above ``path`` holding a top Kconfig file
    (a kernel tree's top ``Kconfig`` wins over a subdirectory's)."""
    path = os.path.abspath(path)
    if os.path.isfile(path):
        path = os.path.dirname(path)
    found = None
    cur = path
    while True:
        if any(os.path.isfile(os.path.join(cur, name)) for name in ROOT_FILES):
            found = cur
            if _is_kernel_tree(cur):
                return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return found
        cur = parent


def _is_kernel_tree(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "Kconfig")) and os.path.isdir(os.path.join(path, "arch"))


class ShellPolicy:
    """Runs ``$(shell,...)`` only for a trusted tree, through the
    persistent result cache (:mod:`..kconfig.shell_cache`); otherwise every
    command expands to nothing and is remembered, so the user can be told."""

    def __init__(self, trusted: bool, cwd: str, env: dict[str, str]):
        self.trusted = trusted
        self.cwd = cwd
        self.env = env
        self.denied: list[str] = []
        self.cache = ShellCache(cwd, env) if trusted else None

    def __call__(self, command: str) -> str:
        if self.cache is None:
            if command not in self.denied:
                self.denied.append(command)
            return ""
        return self.cache(command)

    def save(self) -> None:
        if self.cache is not None:
            self.cache.save()

    # (Commands run ahead, for a trusted tree only: kconfig/probes.py.)
    def needs_run(self, command: str) -> bool:
        return self.cache is not None and self.cache.needs_run(command)

    def prefetch(self, commands) -> None:
        if self.cache is not None:
            self.cache.prefetch(commands)

    def wait_for(self, command: str) -> str:
        return self.cache.wait_for(command) if self.cache is not None else self(command)

    def while_waiting(self, work: Callable[[], bool] | None) -> None:
        if self.cache is not None:
            self.cache.while_waiting(work)

    def finish(self) -> None:
        if self.cache is not None:
            self.cache.finish()


class LoadCancelled(Exception):
    """Raised inside a load that was asked to stop."""


@dataclass
class LoadResult:
    kc: Kconfig | None
    error: KconfigError | None = None
    config_warnings: list = field(default_factory=list)
    #: The load was abandoned; ``kc`` is the tree loaded before.
    cancelled: bool = False


class Project:
    """One Kconfig tree open in the editor."""

    def __init__(self, root: str, settings: Settings, freeze_trees: bool = False):
        self.root = os.path.abspath(root)
        self.settings = settings
        #: Whether loaded trees are frozen out of the cyclic collector
        #: (:func:`..heap.freeze`): for an owner that frees replaced trees
        #: with :func:`..heap.collect`, as the language server does.
        self.freeze_trees = freeze_trees
        self.kernel = _is_kernel_tree(self.root)
        self.arch = settings.arch or (host_arch() if self.kernel else None)
        self.top = next((n for n in ROOT_FILES if os.path.isfile(os.path.join(self.root, n))), "Kconfig")
        self.env = self._environment()
        #: The generation whose rules the tree follows; an unknown
        #: ``kconfig_version`` is reported and the tree's own is used.
        self.generation_error: str | None = None
        try:
            self.generation = generations.choose(self.root, self.env, settings.kconfig_version)
        except ValueError as exc:
            self.generation_error = str(exc)
            self.generation = generations.detect(self.root)
        self.trusted = settings.trusted or any(
            os.path.abspath(r) == self.root or self.root.startswith(os.path.abspath(r) + os.sep)
            for r in settings.trusted_roots
        )
        self.shell = ShellPolicy(self.trusted, self.root, self.env)
        self.lex_cache: dict = {}
        #: The lexing of open Kconfig buffers' latest texts, shared by the
        #: check of a buffer and the re-link of the same text (one entry
        #: per buffer: see :meth:`_buffer_lexing`).
        self._buffer_lexing_cache: dict = {}
        self.file_cache: dict = {}
        self.overlays: dict[str, str] = {}
        #: The buffers the loaded tree was made with (see :meth:`relink`).
        self._linked_overlays: dict[str, str] = {}
        self.kc: Kconfig | None = None
        #: The config as read into the tree (see :meth:`settle_relink`).
        self.values: ConfigValues | None = None
        #: Symbols re-links made again whose values were not computed since
        #: (a newer re-link may come before the last one's values).
        self._unsettled: set = set()
        #: Whether a re-link since the last cycle check may change its finding.
        self._cycles_due = False
        #: The traceback of a re-link that failed unexpectedly (the tree is
        #: then loaded afresh), until the server logged it.
        self.relink_error: str | None = None
        self.load_error: KconfigError | None = None
        self.config_result: configfile.ConfigReadResult | None = None
        #: The config text the values were read from (None: no config file).
        self.config_text: str | None = None
        self.lock = threading.RLock()
        #: Held by a cycle check after a re-link (outside :attr:`lock`, so
        #: values are answered meanwhile); the next re-link waits for it.
        self.cycle_lock = threading.Lock()
        #: Held by :meth:`prepare_relink` (taken before :attr:`cycle_lock`),
        #: and by a load before it lets the tree go.
        self.prepare_lock = threading.Lock()
        self._all_arch_index: dict[str, list[tuple[str, int]]] | None = None
        self._disk_names_by_file: dict[str, list[str]] = {}
        #: Held while the index is built (once, by whichever thread asks first).
        self._index_lock = threading.Lock()
        #: The index with the open buffers' definitions, and the buffers it is for.
        self._merged_index: tuple[tuple, dict[str, list[tuple[str, int]]]] | None = None
        self.file_count_hint = 0
        #: Whether a tree was built (only the first load may come from a
        #: snapshot of an earlier session).
        self._built = False
        self._fixes: dict[tuple, HowTo] = {}
        #: file name -> its problems in the loaded tree (until the next load).
        self.tree_problems: dict[str, list] = {}
        #: file name -> (tree, text, FileCheck) of the file's last checked text.
        self._file_checks: dict[str, tuple[Kconfig, str, FileCheck]] = {}
        #: Counts the changes of the loaded values (loads, config readings,
        #: re-links): what was computed from them is kept per count.
        self.values_epoch = 0
        self._macros: tuple[int, ConfigMacros] | None = None
        #: Source files (C, Makefiles) read for their CONFIG_ uses, by name
        #: (see :mod:`.sources`).
        self.source_scans: dict = {}
        #: Where each CONFIG_ name is used in the tree's source files (built
        #: in the background by :meth:`index_uses`).
        self.uses: UseIndex | None = None

    # -- setup -------------------------------------------------------------------
    def _environment(self) -> dict[str, str]:
        if self.kernel:
            return kernel_env(self.root, self.arch).env
        env = dict(os.environ)
        env["srctree"] = self.root
        return env

    @property
    def config_path(self) -> str:
        name = self.settings.config_file or os.environ.get("KCONFIG_CONFIG") or ".config"
        return name if os.path.isabs(name) else os.path.join(self.root, name)

    def relative(self, path: str) -> str:
        """A file's name as the tree knows it (relative to the root)."""
        path = os.path.abspath(path)
        if path.startswith(self.root + os.sep):
            return path[len(self.root) + 1 :]
        return path

    def absolute(self, name: str) -> str:
        return name if os.path.isabs(name) else os.path.join(self.root, name)

    # -- loading -----------------------------------------------------------------
    def load(
        self,
        progress: Callable[[int], None] | None = None,
        cancel: threading.Event | None = None,
        config_only: bool = False,
        release_first: bool = False,
    ) -> LoadResult:
        """(Re)load the tree with the current overlays, then the config.

        The new tree is built aside and swapped in at the end, so readers
        of :attr:`kc` are not held up.  ``cancel``, once set, abandons the
        load (a newer edit makes it pointless) and keeps the previous tree.
        ``config_only`` re-reads just the configuration into the loaded tree
        (a few times faster), when no Kconfig file changed.

        ``release_first`` lets the loaded tree go before the new one is
        built (the server's re-loads after edits; its requests wait).
        CPython keeps the heap's high-water mark: two trees at once would
        leave the process ~50 MB bigger after every structural edit, never
        to shrink.  Then an edited buffer whose own check stops on a fatal
        error (a ``source`` of a missing file, an unterminated macro) is not
        loaded at all: the load would stop there too, and the tree stays;
        a load that fails anyway builds the tree of the last good texts
        again; a cancelled one leaves no tree (the newer load brings it)."""
        if config_only and self.kc is not None:
            with self.lock:
                self.read_config(self._config_text(self.overlays))
                return LoadResult(self.kc, None, self.config_result.warnings if self.config_result else [])

        def report(done: int) -> None:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled
            if progress is not None:
                progress(done)

        try:
            return self._load_tree(report, release_first)
        finally:
            # (What the build made and dropped, back to the system.)
            heap.trim()

    def _load_tree(self, report: Callable[[int], None], release_first: bool) -> LoadResult:
        with self.lock:
            overlays = dict(self.overlays)
        if release_first and self.kc is not None:
            with self.prepare_lock, self.cycle_lock, self.lock:
                fatal = self._fatal_edit()
                if fatal is not None:
                    self.load_error = fatal
                    self.tree_problems = {}
                    return LoadResult(self.kc, fatal)
                self._release_tree()
        result = self._build(overlays, report)
        if release_first and self.kc is None and result.error is not None:
            # (No tree would leave every request without an answer.)
            restored = self._build(self._linked_overlays, None)
            with self.lock:
                self.load_error = result.error
            return LoadResult(restored.kc, result.error)
        return result

    def read_config(self, text: str | None) -> None:
        """Give the loaded tree the values of config ``text`` (None: no
        config file): only the symbols the change from the last reading
        reaches are computed again, when that is possible."""
        with self.lock, gc_paused():
            kc = self.kc
            values = self.values
            if (values is not None and values.kc is kc and text is not None
                    and values.reread(text, self.config_path, self.relative(self.config_path))):
                remember_base_unmet(kc, text)
                self.config_text, self.config_result = text, values.result
            else:
                kc.reset_values()
                self.config_text, self.config_result = self._read_config_text(kc, text)
            self._fixes = {}
            self.tree_problems = {}
            self.values_epoch += 1

    def _build(
        self,
        overlays: dict[str, str],
        report: Callable[[int], None] | None,
    ) -> LoadResult:
        """Build the tree of ``overlays`` and read the config into it; make
        it :attr:`kc` unless the build fails (KconfigError) or is cancelled."""
        try:
            with gc_paused():
                # The first load may come from a snapshot of an earlier
                # session; re-links after edits are built here.
                kc = tree_cache.load(
                    self.top,
                    srctree=self.root,
                    env=self.env,
                    shell=self.shell,
                    info=lambda _text: None,
                    overlays=overlays,
                    lex_cache=self.lex_cache,
                    progress=report,
                    file_cache=self.file_cache,
                    generation=self.generation,
                    use_cache=not self._built,
                    relinkable=True,
                )
                if report is not None:
                    report(len(kc.files))
                self.shell.save()
                config_text, config_result = self._load_config(kc, overlays)
                if self.freeze_trees:
                    heap.freeze()  # (the tree lives until the next load)
        except KconfigError as exc:
            with self.lock:
                self.load_error = exc
                self.tree_problems = {}
            return LoadResult(self.kc, exc)
        except LoadCancelled:
            return LoadResult(self.kc, cancelled=True)
        with self.lock:
            self._built = True
            self.values_epoch += 1
            self.load_error = None
            self.file_count_hint = len(kc.files)
            self.config_text, self.config_result = config_text, config_result
            self.kc = kc
            self._linked_overlays = overlays
            self._unsettled = set()
            self._fixes = {}
            self.tree_problems = {}
            # (Each kept check holds the tree it was made against.)
            self._file_checks = {}
            self._forget_unused_lexing(kc)
        return LoadResult(kc, None, config_result.warnings if config_result else [])

    def index_uses(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Build or bring up to date the index of CONFIG_ uses in the tree's
        source files; how many files were read."""
        if self.uses is None:
            self.uses = UseIndex(self.root, self.env.get("CONFIG_", "CONFIG_"), self.env)
        try:
            return self.uses.update(progress)
        finally:
            heap.trim()

    def config_macros(self) -> ConfigMacros:
        """What the loaded configuration defines for C and make (kept until
        the values change).  Call with :attr:`lock` held."""
        kept = self._macros
        if kept is None or kept[0] != self.values_epoch:
            kept = self._macros = (self.values_epoch, ConfigMacros.of_tree(self.kc))
        return kept[1]

    def _fatal_edit(self) -> KconfigError | None:
        """The fatal error of an edited Kconfig buffer checked on its own
        (the error a load of the tree would stop at), if any."""
        kc = self.kc
        for name, text in self.overlays.items():
            if name not in kc.files or text == self._linked_overlays.get(name) or text == kc.files[name].text:
                continue
            for d in self.file_check(name, text).diagnostics:
                if d.code == "fatal":
                    return KconfigError(d.message, d.file, d.line)
        return None

    def _release_tree(self) -> None:
        """Let the loaded tree and everything made from it go, and free it
        now (a tree is a web of cycles: only the cyclic collector frees it)."""
        self.kc = None
        self.values = None
        self.config_result = None
        self._unsettled = set()
        self._fixes = {}
        self.tree_problems = {}
        self._file_checks = {}
        heap.collect()

    def relink(self) -> bool:
        """Patch the edit of the one Kconfig buffer that changed since the
        tree was made into the tree, in place (:mod:`..kconfig.relink`):
        tens of milliseconds where a load takes a second or more.  False
        (the tree untouched) when the change needs a load: several files,
        entries added or removed, a syntax error, a tree without a log.
        Values and cycles are left to :meth:`settle_relink`."""
        with self.cycle_lock, self.lock:
            kc = self.kc
            if kc is None or kc.relink is None or self.load_error is not None:
                return False
            changed = self._changed_buffers()
            if changed is None or len(changed) != 1:
                return False
            name, text = changed[0]
            try:
                result = relink_file(kc, name, text, cycles=False, lex_cache=self._buffer_lexing(name, text))
                self._unsettled |= result.symbols
                self._cycles_due = self._cycles_due or result.cycles_may_change
            except NotRelinkable:
                return False
            except Exception:  # noqa: BLE001 - a bug: the tree is loaded afresh
                self.relink_error = traceback.format_exc()
                return False
            self._linked_overlays = dict(self.overlays)
            self._fixes = {}
            self.tree_problems = {}
            self._file_checks = {}
            return True

    def settle_relink(self) -> LoadResult:
        """After :meth:`relink`: the values again from the config, then
        the cycle check over the tree."""
        kc = self.kc
        with self.lock, gc_paused():
            values = self.values
            if (values is not None and values.kc is kc and self._config_text(self.overlays) == values.text
                    and values.update(self._unsettled)):
                remember_base_unmet(kc, values.text)
            else:
                self.config_text, self.config_result = self._load_config(kc, self.overlays)
                self.values.note_changed(self._unsettled)  # (its index was taken over)
            self._unsettled = set()
            self.values_epoch += 1
            # (What was found between the re-link and these values is stale.)
            self.tree_problems = {}
            self._fixes = {}
        with self.cycle_lock:
            if self._cycles_due:
                self._cycles_due = False
                check_cycles(kc)
        return LoadResult(kc, None, self.config_result.warnings if self.config_result else [])

    def prepare_relink(self) -> None:
        """What re-links and config edits need, made ahead in a thread while
        the user reads (after a load, and after a re-link whose new links
        went against the order): which symbols read which, and the order to
        compute them in."""
        # (Under a lock a load takes before it lets the tree go: a tree still
        # held here when the server collects and freezes the heap would stay
        # frozen, never freed.  The index walks expressions a re-link
        # changes; the order is made from the index alone, so the next
        # re-link does not wait for it.)
        with self.prepare_lock:
            with self.cycle_lock:
                values = self.values
                if values is None or values.kc is not self.kc:
                    return
                values.dependencies.readers()
            values.prepare()

    def _changed_buffers(self) -> list[tuple[str, str]] | None:
        """(file name, text) of each Kconfig file of the tree whose text is
        not what the tree was made with; None when something else changed
        (a Kconfig buffer the tree does not load)."""
        kc = self.kc
        names = set(self.overlays) | set(self._linked_overlays)
        changed = []
        for name in names:
            text = self.overlays.get(name)
            if text is not None and text == self._linked_overlays.get(name):
                continue
            source = kc.files.get(name)
            if source is None:
                if is_kconfig_file(name):
                    return None
                continue
            if text is None:
                try:
                    text = kc.read_file(source.path)
                except OSError:
                    return None
            if text != source.text:
                changed.append((name, text))
        return changed

    def _forget_unused_lexing(self, kc: Kconfig) -> None:
        """Drop the lexing of file texts this load did not use (earlier
        versions of edited buffers), so a long session does not grow."""
        used = {(name, source.text) for name, source in kc.files.items()}
        for key in [key for key in self.lex_cache if key not in used]:
            del self.lex_cache[key]

    def _config_text(self, overlays: dict[str, str]) -> str | None:
        """The config's text: its buffer, else its file (None: none)."""
        path = self.config_path
        text = overlays.get(self.relative(path))
        if text is None and os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                text = None
        return text

    def _load_config(
        self, kc: Kconfig, overlays: dict[str, str]
    ) -> tuple[str | None, configfile.ConfigReadResult | None]:
        """Read the config (an open buffer over the file) into ``kc``:
        its text and the reading's result (both None without a config)."""
        return self._read_config_text(kc, self._config_text(overlays))

    def _read_config_text(
        self, kc: Kconfig, text: str | None
    ) -> tuple[str | None, configfile.ConfigReadResult | None]:
        path = self.config_path
        # (No config: every symbol at its default, as olddefconfig on an
        # empty file.)
        values = ConfigValues(kc, path, self.relative(path), text)
        values.take_index(self.values)
        self.values = values
        remember_base_unmet(kc, text)
        return text, self.values.result

    # -- explanations ---------------------------------------------------------------
    def how_to(self, name: str, target: str, base_text: str | None = None, time_limit: float = 5.0) -> HowTo:
        """A verified fix for ``name`` (see :func:`~kconfig_ls.kconfig.howto.how_to`)
        against ``base_text`` (default: the loaded config), cached until the
        next load.  ``target`` ``"deps"`` asks for the symbol's dependencies
        to hold (the fix for an unmet-dependency warning).  Raises
        ``KeyError`` for an unknown symbol, ``TargetError`` for a bad target."""
        text = self.config_text if base_text is None else base_text
        key = (name, target, text)
        with self.lock:
            cached = self._fixes.get(key)
            if cached is None:
                kc = self.kc
                sym = kc.find(name) if kc is not None else None
                if sym is None or not sym.nodes:
                    raise KeyError(name)
                reading = self._reading_of(text)
                if target == "deps":
                    cached = meet_dependencies(kc, sym, text, time_limit=time_limit, reading=reading)
                else:
                    cached = how_to(kc, sym, target, text, time_limit=time_limit, reading=reading)
                self._fixes[key] = cached
            return cached

    def _reading_of(self, text: str | None) -> ConfigValues | None:
        """The reading the tree's values are, if it is one of ``text`` and
        settled (not between a re-link and its values)."""
        values = self.values
        if values is None or values.kc is not self.kc or values.text != text or self._unsettled:
            return None
        return values

    def file_view(self, name: str, text: str) -> Kconfig:
        """The tree to answer questions about file ``name`` with ``text``:
        the loaded tree if it has this text, else :meth:`file_check`."""
        loaded = self.kc.files.get(name)
        if loaded is not None and loaded.text == text:
            return self.kc
        return self.file_check(name, text)

    def file_check(self, name: str, text: str) -> FileCheck:
        """File ``name`` with ``text`` checked on its own against the loaded
        tree (:class:`~kconfig_ls.kconfig.filecheck.FileCheck`), kept for the
        file's last text."""
        kc = self.kc
        cached = self._file_checks.get(name)
        if cached is not None and cached[0] is kc and cached[1] == text:
            return cached[2]
        check = FileCheck(kc, name, text, standalone=name not in kc.files,
                          lex_cache=self._buffer_lexing(name, text))
        self._file_checks[name] = (kc, text, check)
        return check

    def _buffer_lexing(self, name: str, text: str) -> dict:
        """The lex cache for file ``name`` now ``text``: the lexing of its
        earlier texts is dropped (a session of edits would keep each)."""
        cache = self._buffer_lexing_cache
        for key in [key for key in cache if key[0] == name and key[1] != text]:
            del cache[key]
        return cache

    def set_overlay(self, path: str, text: str | None) -> None:
        name = self.relative(path)
        with self.lock:
            if text is None:
                self.overlays.pop(name, None)
                self._file_checks.pop(name, None)
                self._buffer_lexing(name, "")
            else:
                self.overlays[name] = text

    def is_config_file(self, path: str) -> bool:
        return os.path.abspath(path) == os.path.abspath(self.config_path)

    @property
    def config_name(self) -> str:
        """The config file's name as the tree names its files."""
        return self.relative(self.config_path)

    def differs_from_load(self, name: str, text: str, kconfig: bool) -> bool:
        """Whether ``text`` for file ``name`` is not what the loaded tree
        read (a buffer the editor restored with unsaved changes, or one over
        a file deleted since): then a re-load is due."""
        if kconfig:
            loaded = self.kc.files.get(name) if self.kc is not None else None
            return loaded is not None and loaded.text != text
        return name == self.config_name and self.config_text != text

    # -- the definition index over every arch ---------------------------------------
    def all_arch_definitions(self, texts: dict[str, str] | None = None) -> dict[str, list[tuple[str, int]]]:
        """name -> [(file, line)] for every ``config``/``menuconfig`` in every
        Kconfig file under the root, whether the current arch loads it or not.
        ``texts`` (file name -> text; default: the open buffers) stand in
        for the files on disk."""
        disk = self.disk_definitions()
        texts = self.overlays if texts is None else texts
        edited = {name: text for name, text in texts.items() if is_kconfig_file(name)}
        if not edited:
            return disk
        key = tuple(sorted((name, hash(text)) for name, text in edited.items()))
        if self._merged_index is not None and self._merged_index[0] == key:
            return self._merged_index[1]
        merged = dict(disk)
        for name, text in edited.items():
            for sym in self._disk_names_by_file.get(name, ()):
                merged[sym] = [where for where in merged[sym] if where[0] != name]
            for sym, line in _definitions_in(text):
                merged[sym] = [*merged.get(sym, ()), (name, line)]
        merged = {sym: where for sym, where in merged.items() if where}
        self._merged_index = (key, merged)
        return merged

    def refresh_definitions(self, path: str) -> None:
        """Re-read one Kconfig file's definitions from disk into the index
        (it was saved, created or deleted)."""
        if self._all_arch_index is None or not is_kconfig_file(path):
            return
        name = self.relative(path)
        index = self._all_arch_index
        with self._index_lock:
            for sym in self._disk_names_by_file.pop(name, ()):
                kept = [where for where in index.get(sym, ()) if where[0] != name]
                if kept:
                    index[sym] = kept
                else:
                    index.pop(sym, None)
            self._index_disk_file(index, self._disk_names_by_file, name)
            self._merged_index = None

    def disk_definitions(self) -> dict[str, list[tuple[str, int]]]:
        """The index as the files on disk have it (built on first use)."""
        with self._index_lock:
            return self._build_disk_definitions()

    def _build_disk_definitions(self) -> dict[str, list[tuple[str, int]]]:
        if self._all_arch_index is None:
            index: dict[str, list[tuple[str, int]]] = {}
            by_file: dict[str, list[str]] = {}
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for fname in filenames:
                    if is_kconfig_file(fname):
                        self._index_disk_file(index, by_file, self.relative(os.path.join(dirpath, fname)))
            self._all_arch_index, self._disk_names_by_file = index, by_file
        return self._all_arch_index

    def _index_disk_file(self, index: dict[str, list[tuple[str, int]]], by_file: dict[str, list[str]],
                         name: str) -> None:
        """Add the definitions of file ``name`` as it is on disk (none if
        it cannot be read)."""
        try:
            with open(self.absolute(name), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return
        for sym, line in _definitions_in(text):
            index.setdefault(sym, []).append((name, line))
            by_file.setdefault(name, []).append(sym)


def is_kconfig_file(name: str) -> bool:
    """Whether a file name is a Kconfig file's (``Kconfig``, ``Kconfig.*``,
    ``Config.in``, ``*.kconfig``) rather than a config's."""
    base = os.path.basename(name)
    return base.startswith(ROOT_FILES) or base.endswith(".kconfig")


def is_buffer_name(name: str) -> bool:
    """Whether a file name stands for an editor buffer with no file (its
    URI, such as ``untitled:Untitled-1``) rather than a path."""
    return ":" in name and not os.path.isabs(name) and not name.startswith("file:")


def _definitions_in(text: str) -> Iterator[tuple[str, int]]:
    """(name, line) of each ``config``/``menuconfig`` line of a Kconfig text."""
    line, last = 1, 0
    for m in _DEFINITION_RE.finditer(text):
        line += text.count("\n", last, m.start())
        last = m.start()
        yield m.group(1), line
