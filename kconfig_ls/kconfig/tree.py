"""A loaded Kconfig tree: the symbol table, the menu tree and its
finalisation (dependency propagation, automatic sub-menus, choices), as
``conf_parse`` and ``menu_finalize`` do in the kernel's C tool."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from . import generation as generations
from . import source_walk
from .cycles import find_cycles
from .errors import Diagnostic, Severity
from .expr import (
    AND,
    BOOL,
    C_TYPE_NAMES,
    EQUAL,
    HEX,
    INT,
    NOT,
    OR,
    STRING,
    TRISTATE,
    UNEQUAL,
    UNKNOWN,
    Expr,
    and_expr,
    contains_symbol,
    depends_on_symbol,
    or_expr,
)
from .lex_ahead import LexAhead
from .menu import (
    P_CHOICE,
    P_DEFAULT,
    P_IMPLY,
    P_MENU,
    P_PROMPT,
    P_RANGE,
    P_SELECT,
    P_SYMBOL,
    MenuNode,
    Property,
)
from .parser import Builder, SourceFile, expand_symbol_references
from .preprocess import Preprocessor, ShellRunner
from .probes import ProbeRunner, Probes
from .relink_log import CHECK, DIAG, RelinkLog
from .simplify import eliminate_dups, eliminate_eq, is_yes, trans_compare, transform
from .symbols import SYM_M, SYM_N, SYM_Y, Symbol, append_to, string_valid_for_type


@lru_cache(maxsize=1 << 16)
def symbol_hash(name: str, buckets: int) -> int:
    """The bucket of ``name`` in the C tool's symbol table (FNV-1 over the
    name's bytes as signed chars, modulo the table's size, which the
    generation gives); iteration order of ``for_all_symbols`` depends on it."""
    h = 2166136261
    for b in name.encode("utf-8", "surrogateescape"):
        if b >= 0x80:
            b = (b - 256) & 0xFFFFFFFF
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h % buckets


#: Dependency chains, select chains and menus nest as deep as a tree makes
#: them, and the checks walk them recursively as the C tool does.  Python
#: (3.11+) keeps the frames of such calls off the C stack, so a high limit
#: is safe; tests load chains of 100,000 symbols, in a thread too.
#: Expressions themselves are bounded by the parser (``MAX_OPERATORS``).
RECURSION_LIMIT = 200_000


class Kconfig:
    """A parsed and finalised Kconfig tree.

    ``Kconfig("Kconfig", srctree=".", env=...)`` parses the top file and
    everything it sources.  Fatal problems (a missing sourced file, a
    preprocessor error) raise :class:`KconfigError`; everything else is
    collected in :attr:`diagnostics` and parsing goes on.  ``generation``
    (a :class:`~kconfig_ls.kconfig.generation.Generation`) selects the
    rules; by default those of the kconfig the tree ships.
    """

    def __init__(
        self,
        filename: str = "Kconfig",
        srctree: str | None = None,
        env: Mapping[str, str] | None = None,
        shell: ShellRunner | None = None,
        info: Callable[[str], None] | None = None,
        warn_stream=None,
        overlays: Mapping[str, str] | None = None,
        lex_cache: dict | None = None,
        progress: Callable[[int], None] | None = None,
        file_cache: dict | None = None,
        generation: generations.Generation | None = None,
        relinkable: bool = False,
        probes: Probes | None = None,
    ):
        if sys.getrecursionlimit() < RECURSION_LIMIT:
            sys.setrecursionlimit(RECURSION_LIMIT)
        self._init_state(filename, srctree, env, warn_stream, overlays, lex_cache, progress)
        #: The kconfig generation whose rules this tree follows.
        self.gen = generation or generations.choose(self.srctree, self.env)
        if relinkable:
            self.relink = RelinkLog()
        #: Shared between loads of the same tree: path -> (stat key, text),
        #: so unchanged files are not read again.
        self.file_cache = file_cache
        if shell is None:
            # Commands see the tree as their working directory, as under make.
            shell = ProbeRunner.for_shell(self.srctree, self.env)
        if probes is None and isinstance(shell, Probes):
            probes = shell
        self.pp = Preprocessor(env=self.env, shell=shell, info=info or print, warn=self._pp_warning, probes=probes)
        if probes is not None:
            self.pp.files_ahead = self._files_ahead
            if lex_cache is None:  # (with one, most files are not lexed at all)
                self.lex_ahead = LexAhead(self._read_ahead, self.gen)
                probes.while_waiting(self.lex_ahead.step)

        try:
            with gc_paused():
                self._load(filename)
        finally:
            # (Probes started ahead and never asked for are dropped.)
            self.pp.probes = self.pp.commands_ahead = self.pp.files_ahead = self.lex_ahead = None
            self._read_ahead.clear()
            if probes is not None:
                probes.finish()

    def _init_state(
        self,
        filename: str,
        srctree: str | None,
        env: Mapping[str, str] | None,
        warn_stream,
        overlays: Mapping[str, str] | None,
        lex_cache: dict | None,
        progress: Callable[[int], None] | None,
    ) -> None:
        """Empty tables, ready for :meth:`_load`."""
        self.srctree = srctree if srctree is not None else os.environ.get("srctree", ".")
        self.env = dict(env) if env is not None else dict(os.environ)
        self.warn_stream = warn_stream
        #: File name -> text to use instead of the file on disk (unsaved buffers).
        self.overlays = dict(overlays or {})
        #: Shared between loads of the same tree to skip re-lexing unchanged files.
        self.lex_cache = lex_cache
        #: Called with the number of files parsed so far.
        self.progress = progress
        self.file_cache: dict | None = None
        #: Texts the probes' look-ahead read before the parse got to them.
        self._read_ahead: dict[str, str] = {}
        #: Files lexed while the load waited for a probe (lex_ahead.py).
        self.lex_ahead: LexAhead | None = None
        self.diagnostics: list[Diagnostic] = []
        self.files: dict[str, SourceFile] = {}
        self.source_refs: list[tuple[str, int, int, str]] = []
        #: (file, start, end, result) of every $(...) expanded in the files.
        self.expansions: list[tuple[str, int, int, str]] = []
        #: (file, start, end, symbol) of operands used as truth values.
        self.logical_uses: list[tuple[str, int, int, Symbol]] = []
        self.symbols: dict[str, Symbol] = {}
        self.const_symbols: dict[str, Symbol] = {}
        self.named_choices: dict[str, Symbol] = {}
        self.all_symbols: list[Symbol] = []
        self.choices: list[Symbol] = []
        self.modules_sym: Symbol | None = None
        self.modules_val = 0
        self.defconfig_list_sym: Symbol | None = None
        self.unmet: list[Symbol] = []
        self.unmet_callback: Callable[[Symbol], None] | None = None
        self.root = MenuNode(None, None, filename, 1, "root")
        self.top_file = filename
        self._checked: set[Symbol] = set()
        self._hash_order: list[Symbol] | None = None
        self._parsed_members: dict[Symbol, list[Symbol]] = {}
        self.cycles: list = []
        #: What other modules derive from the finished tree (explain's
        #: reverse index, ...), kept on it so it goes with it: a module-level
        #: cache keyed by the tree would keep every old tree alive.
        self.derived: dict[str, Any] = {}
        #: expression -> its eliminate_dups while finalising.
        self._dedup_memo: dict[tuple, Expr] = {}
        #: ``source`` names that found no file (an ``osource``).
        self.missing_sources: list[str] = []
        #: Whether this tree was read back from a snapshot (tree_cache.py).
        self.from_snapshot = False
        #: The snapshot this tree was read from or is being written to.
        self.snapshot_path: str | None = None
        #: Whether diagnostics are written to ``warn_stream`` as they come.
        self._printing = True
        #: What an edit needs to re-link this tree in place (relink.py);
        #: None unless the tree was loaded ``relinkable``.
        self.relink: RelinkLog | None = None

    def _load(self, filename: str) -> None:
        self._build(Builder(self), filename)
        # The C tool exits after a syntax error, before the checks that
        # follow parsing: those are collected but not printed.
        self._printing = not self.errors
        if self.gen.member_choices:
            self._assign_member_choices()
        if self.relink is not None:
            self.relink.capture(self)
        self._finalize(self.root)
        if self.relink is not None:
            self.relink.stop()
        self._dedup_memo.clear()
        if self.gen.member_choices:
            self._collect_member_choices()
        self._index_properties()
        if self.relink is not None:
            self.relink.post_diagnostics = len(self.diagnostics)
        self.check_cycles()
        #: The C tool's "configuration changed" flag (conf_set_changed).
        self.conf_changed = True

    def check_cycles(self) -> None:
        """The recursive dependencies (their diagnostics appended).  They
        are looked for even when a line is broken (an editor wants them);
        the C tool would have stopped, so nothing is printed then.  6.11+
        checks each entry's choice and transitional rules right after its
        cycles."""
        if self.gen.member_choices:
            self.cycles = find_cycles(self, self._check_entry_after_cycles)
        else:
            self.cycles = find_cycles(self)
            self._report_cycles(self.cycles)

    def _build(self, builder: Builder, filename: str) -> None:
        """Parse ``filename`` (and what it sources) with ``builder``; the
        defaults of a tree that sets no ``modules`` symbol or main menu."""
        builder.parse_file(filename)
        if self.modules_sym is None:
            self.modules_sym = SYM_N
        if self.root.prompt is None:
            self.root.prompt = Property(P_MENU, None, None, self.root, filename, 1)
            self.root.prompt.text = self.gen.default_mainmenu
        elif self.gen.dollar_symbols:
            self.root.prompt.text = expand_symbol_references(self, self.root.prompt.text)
        if self.gen.dollar_symbols:
            # (Expanding computed values before the tree was finalised.)
            for sym in self.all_symbols:
                sym.valid = False

    # -- messages ----------------------------------------------------------------
    def add_diagnostic(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)
        self._record(DIAG, None, diag)
        if self.warn_stream is not None and self._printing:
            if diag.c_text is not None:
                self.warn_stream.write(diag.c_text)
            elif diag.severity is Severity.WARNING:
                self.warn_stream.write(f"{diag.file}:{diag.line}:warning: {diag.message}\n")
            else:
                self.warn_stream.write(f"{diag.file}:{diag.line}: {diag.message}\n")

    def warn(self, file: str, line: int, message: str) -> None:
        self.add_diagnostic(Diagnostic(file, line, message, Severity.WARNING))

    def _pp_warning(self, message: str) -> None:
        if self.warn_stream is not None:
            self.warn_stream.write(message + "\n")

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    def report_unmet_dependency(self, sym: Symbol) -> None:
        self.unmet.append(sym)
        if self.unmet_callback is not None:
            self.unmet_callback(sym)

    # -- files -------------------------------------------------------------------
    def resolve_path(self, name: str) -> str | None:
        return resolve_source_path(name, self.srctree, self.overlays)

    def resolve_config_path(self, name: str) -> str | None:
        """Where a config file named ``name`` is found, as ``zconf_fopen``
        looks: as given, then below ``srctree``."""
        if os.path.isfile(name):
            return name
        if not os.path.isabs(name):
            path = os.path.join(self.srctree, name)
            if os.path.isfile(path):
                return path
        return None

    def _files_ahead(self, current: str, expand: Callable[[str], str]) -> Iterator[tuple[str, str]]:
        """The files this load will likely source after ``current``, for
        the probes' look-ahead (source_walk.py)."""

        def read(name: str) -> str | None:
            parsed = self.files.get(name)
            if parsed is not None:
                return parsed.text
            text = self._read_ahead.get(name)
            if text is not None:
                return text
            path = self.resolve_path(name)
            if path is None:
                return None
            try:
                text = self._read_ahead[name] = self.read_source(name, path)
            except (OSError, ValueError):
                return None
            return text

        return source_walk.files_after(self.top_file, current, read, expand)

    def read_source(self, name: str, path: str) -> str:
        """The text of Kconfig file ``name``: an overlay, the disk file, or
        the text the probes' look-ahead read of either for this load."""
        text = self._read_ahead.pop(name, None)
        if text is not None:
            return text
        text = self.overlays.get(name)
        return text if text is not None else self.read_file(path)

    def read_file(self, path: str) -> str:
        cache = self.file_cache
        if cache is not None:
            st = os.stat(path)
            key = (st.st_mtime_ns, st.st_size, st.st_ino)
            cached = cache.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
        if cache is not None:
            cache[path] = (key, text)
        return text

    # -- the symbol table ----------------------------------------------------------
    def _new_symbol(self, name: str | None) -> Symbol:
        sym = Symbol(self, name, len(self.all_symbols))
        self.all_symbols.append(sym)
        return sym

    def lookup(self, name: str) -> Symbol:
        """The symbol ``name`` as written unquoted (``sym_lookup(name, 0)``)."""
        sym = self.symbols.get(name)
        if sym is None:
            if name in ("y", "m", "n"):
                return _TRISTATE_CONSTS[name]
            sym = self.symbols[name] = self._new_symbol(name)
        return sym

    def lookup_const(self, name: str) -> Symbol:
        """A quoted constant, e.g. ``"64"`` in ``default "64"``."""
        sym = self.const_symbols.get(name)
        if sym is None:
            if name in ("y", "m", "n"):
                return _TRISTATE_CONSTS[name]
            sym = self.const_symbols[name] = self._new_symbol(name)
            sym.is_const = True
        return sym

    def lookup_choice(self, name: str | None) -> Symbol:
        sym = self.named_choices.get(name) if name is not None else None
        if sym is None:
            sym = self._new_symbol(name)
            sym.is_choice = True
            self.choices.append(sym)
            if name is not None:
                self.named_choices[name] = sym
        return sym

    def type_label(self, typ: int) -> str:
        """A type's name as the C tool prints it in messages."""
        return self.gen.bool_name if typ == BOOL else C_TYPE_NAMES[typ]

    def find_const(self, name: str) -> Symbol | None:
        if name in ("y", "m", "n"):
            return _TRISTATE_CONSTS[name]
        return self.const_symbols.get(name)

    def find(self, name: str) -> Symbol | None:
        """``sym_find``: a defined or referenced symbol by name (no consts)."""
        if name in ("y", "m", "n"):
            return _TRISTATE_CONSTS[name]
        return self.symbols.get(name) or self.named_choices.get(name)

    def hash_order(self) -> list[Symbol]:
        """Every symbol in the order ``for_all_symbols`` visits them."""
        if self._hash_order is None:
            buckets = self.gen.symbol_hash_size
            self._hash_order = sorted(
                self.all_symbols,
                key=lambda s: (symbol_hash(s.name, buckets) if s.name else 0, -s.index),
            )
        return self._hash_order

    def defined_symbols(self) -> Iterator[Symbol]:
        """Symbols with at least one definition, in definition order."""
        for sym in self.all_symbols:
            if sym.nodes and not sym.is_choice:
                yield sym

    def undefined_references(self) -> list[Symbol]:
        """Symbols referenced but defined nowhere in this tree (use
        :meth:`references` for where)."""
        return [
            s
            for s in self.all_symbols
            if not s.nodes and not s.is_const and not s.is_choice and s.refs and not _is_number(s.name)
        ]

    def locate(self, file: str, offset: int) -> tuple[int, int]:
        """(1-based line, 0-based column) of an offset in a parsed file."""
        return self.files[file].index.line_col(offset)

    def references(self, sym: Symbol) -> list[tuple[str, int, int]]:
        """(file, line, column) of every reference to ``sym``."""
        return [(f, *self.locate(f, start)) for f, start, _end in sym.refs]

    def menus(self) -> Iterator[MenuNode]:
        """Every ``menu`` entry, in menu order."""
        return (n for n in self.walk() if n.kind == "menu")

    def comments(self) -> Iterator[MenuNode]:
        """Every ``comment`` entry, in menu order."""
        return (n for n in self.walk() if n.kind == "comment")

    # -- the Kconfiglib-style conveniences --------------------------------------------
    def eval(self, text: str) -> int:
        """Evaluate expression text such as ``"A && !B"`` to 0, 1 or 2;
        raises :class:`~kconfig_ls.kconfig.evaluate.KconfigSyntaxError`."""
        from .evaluate import evaluate

        return evaluate(self, text)

    def load_config(self, path: str, replace: bool = True):
        """Load a ``.config`` as the C tool's ``conf_read`` does; returns the
        warnings found (with file and line)."""
        from .configfile import read_config

        if replace:
            self.reset_values()
        return read_config(self, path)

    def write_config(self, path: str = ".config") -> bool:
        """Write the ``.config`` (atomically, keeping ``.config.old``);
        False when the file already had this content."""
        from .session import write_config

        return write_config(self, path)

    def write_min_config(self, path: str) -> None:
        """Write the minimal config ``savedefconfig`` would."""
        from .session import write_min_config

        write_min_config(self, path)

    # -- values ------------------------------------------------------------------
    def reset_values(self) -> None:
        """Forget all values and user input, as a fresh run of conf."""
        for sym in self.all_symbols:
            sym.reset_state()
        for choice, members in self._parsed_members.items():
            choice.members = list(members) if members else choice.members
        self.modules_val = 0
        self.unmet.clear()
        self.conf_changed = True

    def invalidate(self) -> None:
        """Forget every computed value (``sym_clear_all_valid``)."""
        for sym in self.all_symbols:
            sym.valid = False
        self.conf_changed = True
        self.modules_sym.calc_value()

    # -- finalisation (menu.c) -------------------------------------------------------
    def _finalize(self, parent: MenuNode, inside_choice: bool = False) -> None:
        log = self.relink
        if log is None or not log.recording or parent.list is None:
            self._finalize_entry(parent, inside_choice)
            return
        if parent in log.reused:
            log.take_over(parent)  # (finalised already: relink.py)
            return
        # (A block's events between markers: relink_log.py.)
        log.enter(parent)
        self._finalize_entry(parent, inside_choice)
        log.exit(parent)

    def _record(self, kind: str, sym: Symbol | None, data) -> None:
        """A finalisation event, when the tree keeps a re-link log."""
        if self.relink is not None and self.relink.recording:
            self.relink.event(kind, sym, data)

    def _add_term(self, sym: Symbol, attr: str, term) -> None:
        """``sym.<attr> ||= term`` for the accumulated expressions."""
        setattr(sym, attr, or_expr(getattr(sym, attr), term))
        self._record(attr, sym, term)

    def _finalize_entry(self, parent: MenuNode, inside_choice: bool = False) -> None:  # noqa: C901 - mirrors menu_finalize
        sym = parent.sym
        member_choices = self.gen.member_choices
        right_first = self.gen.transform_right_first
        #: Tests of a bool for m that the rewriting of a condition dropped.
        forced: list = []
        if parent.list is not None:
            if sym is not None and sym.is_choice and not member_choices:
                # The choice's mode bounds its values: they depend on it.
                if sym.type == UNKNOWN:
                    for child in parent.children():
                        if child.sym is not None and child.sym.type != UNKNOWN:
                            sym.type = child.sym.type
                            break
                for child in parent.children():
                    if child.sym is not None and child.sym.type == UNKNOWN:
                        child.sym.type = sym.type
                parentdep = sym
            else:
                parentdep = parent.dep
            for child in parent.children():
                own = transform(rewrite_m(child.dep, self.modules_sym), forced, right_first)
                if forced:
                    self._report_forced_tests(child, forced)
                basedep = self._eliminate_dups(and_expr(parentdep, own))
                child.dep = basedep
                if child.sym is not None:
                    props = child.sym.props
                else:
                    props = [child.prompt] if child.prompt is not None else []
                for prop in props:
                    if prop.node is not child:
                        continue
                    dep = transform(rewrite_m(prop.cond, self.modules_sym), forced, right_first)
                    if forced:
                        self._report_forced_tests(prop, forced)
                    dep = self._eliminate_dups(and_expr(basedep, dep))
                    prop.cond = dep
                    if prop.kind == P_SELECT:
                        self._add_term(prop.expr, "rev_dep", and_expr(child.sym, dep))
                    elif prop.kind == P_IMPLY:
                        self._add_term(prop.expr, "implied", and_expr(child.sym, dep))
            in_choice = sym is not None and sym.is_choice
            child = parent.list
            while child is not None:
                self._finalize(child, in_choice)
                child = child.next
        elif sym is not None and not (member_choices and inside_choice):
            # (Members of a member choice form no sub-menus and take no
            # dependencies of their own: the choice decides.)
            self._make_auto_menu(parent, sym)
            self._add_term(sym, "dir_dep", parent.dep)

        child = parent.list
        while child is not None:
            csym = child.sym
            if (sym is not None and sym.is_choice and csym is not None and not csym.is_choice_value
                    and not member_choices):
                self._add_choice_value(sym, child, csym)
            if child.list is not None and child.prompt is None:
                # Flatten 'if' blocks and the sub-menus of promptless symbols.
                last = child.list
                while True:
                    last.parent = parent
                    if last.next is None:
                        break
                    last = last.next
                last.next = child.next
                child.next = child.list
                child.list = None
                if self.relink is not None and self.relink.recording:
                    self.relink.flat_last[child] = last
            child = child.next

        if parent.kind == "menuconfig" and parent.prompt is not None:
            parent.prompt.kind = P_MENU
        if sym is not None and sym not in self._checked:
            self._checked.add(sym)
            self._record(CHECK, sym, parent)
            self._check_symbol(parent, sym)
        if sym is not None and not sym.optional and parent.prompt is not None and not member_choices:
            # A visible choice cannot be n unless it is optional.
            self._add_term(sym, "rev_dep", and_expr(parent.prompt.cond, SYM_M))

    def _check_symbol(self, node: MenuNode, sym: Symbol) -> None:
        """The checks of a symbol at its first entry in menu order."""
        if sym.type == UNKNOWN:
            self.warn(node.file, node.line, "config symbol defined without type")
        if sym.is_choice and node.prompt is None and not self.gen.member_choices:
            self.warn(node.file, node.line, "choice must have a prompt")
        self._check_props(sym)

    def _eliminate_dups(self, e):
        """``eliminate_dups`` for this tree's generation, once per distinct
        expression: the children of a parent without dependencies of their
        own all pass the parent's, entries in one ``if`` block or menu pass
        equal ones (a new tuple each), and three quarters of the calls
        repeat one.  The rewrite depends on the expression's structure
        alone (its symbols compare by identity), so equal ones share it."""
        if e is None or e.__class__ is not tuple:
            return e
        out = self._dedup_memo.get(e)
        if out is None:
            out = eliminate_dups(e, self.gen.dedup_sides_first)
            self._dedup_memo[e] = out
        return out

    def _report_forced_tests(self, where: MenuNode | Property, forced: list) -> None:
        """A condition at ``where`` compared a bool with ``m`` (``forced``:
        the symbols and the constant each test became): the C tool's line
        on stdout, a warning in the editor.  Empties ``forced``."""
        for sym, value in forced:
            message = f"boolean symbol {sym.name} tested for 'm'? test forced to '{value}'"
            diag = Diagnostic(where.file, where.line, message, Severity.WARNING, code="bool-tested-for-m")
            self.diagnostics.append(diag)
            self._record(DIAG, None, diag)
            if self._printing:
                self.pp.info(message)
        forced.clear()

    def _assign_member_choices(self) -> None:
        """Each symbol's choice, as ``sym_get_choice_menu`` finds it: the
        block around its first definition with a prompt (``if`` blocks
        between do not count)."""
        for sym in self.all_symbols:
            node = next((n for n in sym.nodes if n.prompt is not None), None)
            if node is None:
                continue
            above = node.parent
            while above is not None and above.sym is None:
                above = above.parent
            if above is not None and above.sym.is_choice:
                sym.choice = above.sym

    def _report_cycles(self, reports: list) -> None:
        for report in reports:
            self.diagnostics.extend(report.links)
            if self.warn_stream is not None and self._printing:
                self.warn_stream.write(report.text)

    def _check_entry_after_cycles(self, node: MenuNode, cycles: list) -> None:
        """6.11+ checks the finalised tree entry by entry in menu order:
        the entry's recursive dependencies, then (a transitional symbol with
        anything but help, ``transitional_check_sanity``) the members of a
        choice with a default or with a prompt outside its block
        (``choice_check_sanity``)."""
        self._report_cycles(cycles)
        sym = node.sym
        if sym.transitional:
            self._check_transitional(node)
        if sym.is_choice:
            for below in node.walk():
                if below.sym is not None:
                    self._check_member(below)

    def _check_member(self, node: MenuNode) -> None:
        for prop in node.sym.props:
            if prop.kind == P_DEFAULT:
                self._error(prop.file, prop.line, "defaults for choice values not supported")
            elif prop.kind == P_PROMPT and prop.node is not node and prop.node.parent is not node.parent:
                self._error(prop.file, prop.line, "choice value has a prompt outside its choice group")

    def _check_transitional(self, node: MenuNode) -> None:
        message = "transitional symbols can only have help sections"
        if (node.dep not in (None, SYM_Y)) or (node.visibility not in (None, SYM_Y)):
            self._error(node.file, node.line, message)
            return
        for prop in node.sym.props:
            if prop.kind != P_SYMBOL:  # (no such property in these generations)
                self._error(prop.file, prop.line, message)
                return

    def _error(self, file: str, line: int, message: str) -> None:
        self.add_diagnostic(Diagnostic(file, line, message, Severity.ERROR,
                                       c_text=f"{file}:{line}: error: {message}\n"))

    def _collect_member_choices(self) -> None:
        """Each choice's members in menu order, once ``if`` blocks are
        flattened, and its priority list as parsed."""
        for choice in self.choices:
            self._collect_choice_values(choice)
        #: Each choice's priority list as parsed (user input reorders it).
        self._parsed_members = {choice: list(choice.members) for choice in self.choices}

    def _collect_choice_values(self, choice: Symbol) -> None:
        for node in choice.nodes:
            for below in node.walk():
                if below.sym is not None and below.sym not in choice.choice_values:
                    append_to(choice, "choice_values", below.sym)

    def _check_props(self, sym: Symbol) -> None:
        """Type checks of a symbol's properties (menu.c ``sym_check_prop``)."""
        name = sym.name
        for prop in sym.props:
            if prop.kind == P_DEFAULT:
                single = prop.expr.__class__ is not tuple
                if sym.type in (STRING, INT, HEX) and not single:
                    self.warn(prop.file, prop.line, f"default for config symbol '{name}' must be a single symbol")
                if not single:
                    continue
                target = prop.expr
                if sym.type in (HEX, INT) and not _valid_number(sym, target):
                    self.warn(prop.file, prop.line, f"'{name}': number is invalid")
                if sym.is_choice and target.choice is not sym and self.gen.checks_choice_defaults:
                    self.warn(prop.file, prop.line,
                              f"choice default symbol '{target.name}' is not contained in the choice")
            elif prop.kind in (P_SELECT, P_IMPLY):
                use = "select" if prop.kind == P_SELECT else "imply"
                target = prop.expr
                if sym.type not in (BOOL, TRISTATE):
                    self.warn(prop.file, prop.line,
                              f"config symbol '{name}' uses {use}, but is not {self.gen.bool_name} or tristate")
                elif target.type not in (UNKNOWN, BOOL, TRISTATE):
                    self.warn(prop.file, prop.line,
                              f"'{target.name}' has wrong type. '{use}' only accept arguments of "
                              f"{self.gen.bool_name} and tristate type")
            elif prop.kind == P_RANGE:
                if sym.type not in (INT, HEX):
                    self.warn(prop.file, prop.line, "range is only allowed for int or hex symbols")
                low, high = prop.expr
                if not _valid_number(sym, low) or not _valid_number(sym, high):
                    self.warn(prop.file, prop.line, "range is invalid")

    def _make_auto_menu(self, node: MenuNode, sym: Symbol) -> None:
        """Move the entries after ``node`` that depend on its symbol below
        it (the automatic sub-menus of menu.c).  The symbol's own condition,
        rewritten, is needed only for an entry that mentions the symbol
        without plainly depending on it: made then (most symbols have no
        such entry after them)."""
        visible = node.prompt.cond if node.prompt is not None else None
        basedep: Expr | bool = False  # (not made yet)
        last = None
        nxt = node.next
        while nxt is not None:
            dep = nxt.prompt.cond if nxt.prompt is not None else nxt.dep
            if not contains_symbol(dep, sym):
                break
            if not depends_on_symbol(dep, sym):
                # Also below it when the entry's conditions include all of
                # the symbol's (a superset, like '(sym || Q) && R' for a
                # symbol that depends on R).
                if basedep is False:
                    basedep = self._eliminate_dups(transform(trans_compare(visible, UNEQUAL, SYM_N)))
                dep = self._eliminate_dups(transform(trans_compare(dep, UNEQUAL, SYM_N)))
                _, rest = eliminate_eq(dep, basedep)
                if not is_yes(rest):
                    break
            self._finalize(nxt)
            nxt.parent = node
            last = nxt
            nxt = nxt.next
        if last is not None:
            node.list = node.next
            node.next = last.next
            last.next = None

    def _add_choice_value(self, choice: Symbol, node: MenuNode, sym: Symbol) -> None:
        sym.is_choice_value = True
        if node.prompt is None:
            self.warn(node.file, node.line, "choice value must have a prompt")
        for prop in sym.props:
            if prop.kind == P_DEFAULT:
                self.warn(prop.file, prop.line, "defaults for choice values not supported")
            if prop.node is node:
                continue
            if prop.kind == P_PROMPT and prop.node.parent.sym is not choice:
                self.warn(prop.file, prop.line, "choice value used outside its choice group")
        if choice.type == TRISTATE and sym.type != TRISTATE:
            basedep = (EQUAL, choice, SYM_Y)
            node.dep = and_expr(basedep, node.dep)
            for prop in sym.props:
                if prop.node is node:
                    prop.cond = and_expr(basedep, prop.cond)
        append_to(sym, "props", Property(P_CHOICE, choice, None, node, node.file, node.line))
        if sym.choice is None:
            sym.choice = choice
        append_to(choice, "choice_values", sym)

    def _index_properties(self) -> None:
        for sym in self.all_symbols:
            if sym.props:
                sym.index_properties()

    # -- iteration -------------------------------------------------------------------
    def walk(self) -> Iterator[MenuNode]:
        """Every menu node in menu order."""
        return self.root.walk()

    @property
    def mainmenu_text(self) -> str:
        return self.root.prompt.text


_TRISTATE_CONSTS = {"y": SYM_Y, "m": SYM_M, "n": SYM_N}


def resolve_source_path(name: str, srctree: str, overlays: Mapping[str, str]) -> str | None:
    """Where ``source "name"`` finds its file: an unsaved buffer, else
    the file below ``srctree`` (or at ``name`` when it is absolute)."""
    if name in overlays:
        return os.path.join(srctree, name)
    path = name if os.path.isabs(name) else os.path.join(srctree, name)
    return path if os.path.isfile(path) else None


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector: loading a tree or a config builds
    ~100k long-lived objects, and generational passes would rescan the
    growing graph again and again without finding garbage."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def rewrite_m(e, modules_sym: Symbol):
    """Turn each ``m`` in a dependency into ``m && MODULES`` so it is ``n``
    when modules are off."""
    if e is None:
        return None
    if e.__class__ is not tuple:
        if e is SYM_M:
            return (AND, e, modules_sym)
        return e
    op = e[0]
    if op == NOT:
        return (NOT, rewrite_m(e[1], modules_sym))
    if op == AND or op == OR:
        return (op, rewrite_m(e[1], modules_sym), rewrite_m(e[2], modules_sym))
    return e


def _valid_number(sym: Symbol, value: Symbol) -> bool:
    """menu.c ``menu_validate_number``."""
    return value.type in (INT, HEX) or (
        value.type == UNKNOWN and value.name is not None and string_valid_for_type(sym.type, value.name)
    )


def _is_number(name: str | None) -> bool:
    if not name:
        return False
    s = name[1:] if name.startswith("-") else name
    if s[:2].lower() == "0x":
        s = s[2:]
        return bool(s) and all(c in "0123456789abcdefABCDEF" for c in s)
    return s.isdigit()
