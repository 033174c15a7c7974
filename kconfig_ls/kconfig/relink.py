"""Re-link a loaded tree in place after an edit of one Kconfig file.

A full re-link of a kernel tree takes a second or more; an editor wants the
values an edit implies at once.  When the edit keeps the file's *skeleton*
(the same entries, blocks and ``source`` lines in the same order, the same
types and options) only expressions, prompts, help and line numbers
changed, and :func:`relink_file` patches them into the loaded tree:

1. the old and the new text are parsed on their own (no ``source``
   followed); the old parse must match what the tree made of the file, so
   the new one stands for what a full load would make of it;
2. entries whose dependencies or properties changed are given their new
   properties as parsed; the others only their new lines, texts and help;
3. the smallest ``if`` or ``menu`` block around every changed entry (not
   inside a choice) is put back as parsed and finalised again
   (``Kconfig._finalize_entry``), and its new finalisation events replace
   its old ones in the tree's :class:`~.relink_log.RelinkLog`;
4. the select, imply and dependency expressions of every symbol the block
   touched are folded again from the log, symbols whose properties changed
   are checked again, and the cycle check runs over the tree.

Anything else (a new or removed entry, a changed type or option, a macro
assignment, a syntax error, a file sourced twice, 6.11+ rules) raises
:class:`NotRelinkable` before the tree is touched: the caller loads the
tree afresh.  Values are the caller's to recompute (``reset_values`` and a
config read), as after any load.  ``tests/unit/test_relink.py`` compares
the patched tree with a fresh load after many random edits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import compress
from operator import itemgetter
from typing import Any

from .errors import Diagnostic
from .expr import and_expr, expr_symbols, or_expr
from .filecheck import FileCheck, _SingleFileBuilder
from .menu import P_CHOICE, P_DEFAULT, P_IMPLY, P_PROMPT, P_SELECT, MenuNode, Property
from .parser import SourceFile
from .relink_log import ACCUMULATED, CHECK, DIAG, RelinkLog
from .symbols import SYM_M, SYM_N, SYM_Y, Symbol
from .tree import Kconfig, gc_paused

_BLOCKS = ("if", "menu", "root")


class NotRelinkable(Exception):
    """The edit needs a full load (the reason says why); the tree is untouched."""


@dataclass
class RelinkResult:
    """What a re-link did."""

    #: The block finalised again (None: only lines, texts or help changed).
    region: MenuNode | None
    #: Entries whose dependencies or properties changed.
    changed: int
    #: Entries in the block finalised again.
    refinalised: int
    #: Symbols whose dependencies, properties or accumulated expressions
    #: were made again (the values that may change are theirs and those of
    #: the symbols depending on them).
    symbols: set[Symbol]
    #: Whether the checks after finalisation (cycles) may find otherwise:
    #: False when no symbol's dependency links changed (a default's value,
    #: a prompt's text) and no reported cycle names a line that moved.
    cycles_may_change: bool = True


class _SourceRecorder(_SingleFileBuilder):
    """Checks ``source`` targets exist and notes where each one stands."""

    def __init__(self, kc: Kconfig):
        super().__init__(kc)
        self.entries = 0
        #: (file name, entries before it, the block it is in).
        self.sources: list[tuple[str, int, MenuNode]] = []

    def add_entry(self, sym, kind, file, line):
        self.entries += 1
        return super().add_entry(sym, kind, file, line)

    def parse_file(self, name, included_from=None):
        if included_from is not None:
            self.sources.append((name, self.entries, self.current_menu))
        super().parse_file(name, included_from)


class _ParsedAlone(FileCheck):
    """One file's text parsed on its own as the tree would parse it: the
    entries as parsed (not finalised), its own symbol table."""

    def __init__(self, tree: Kconfig, name: str, text: str, lex_cache: dict | None = None):
        self.builder: _SourceRecorder | None = None
        super().__init__(tree, name, text, standalone=True, lex_cache=lex_cache)
        self.nodes = list(self.root.walk())

    def _load(self, filename: str) -> None:
        self.builder = _SourceRecorder(self)
        self._build(self.builder, filename)

    def resolve_path(self, name: str) -> str | None:
        # (Sourced files are found as the tree finds them: its buffers too.)
        return super().resolve_path(name) if name == self.top_file else self.tree.resolve_path(name)


def relink_file(kc: Kconfig, name: str, text: str, cycles: bool = True,
                lex_cache: dict | None = None) -> RelinkResult:
    """Patch the edit of Kconfig file ``name`` (now ``text``) into ``kc``.

    ``cycles=False`` leaves the cycle check (a tenth of a second on a
    kernel tree, a walk of every dependency) to :func:`check_cycles`, so
    values can be shown first; until then ``kc.cycles`` and the cycle
    diagnostics are those of the last check.  ``lex_cache`` (see
    :class:`~.filecheck.FileCheck`) may hold the lexing of ``text``."""
    log = kc.relink
    if log is None:
        raise NotRelinkable("the tree keeps no re-link log")
    source = kc.files.get(name)
    if source is None or log.file_parses.get(name) != 1:
        raise NotRelinkable(f"{name} is not sourced exactly once")
    if source.text == text:
        return RelinkResult(None, 0, 0, set(), False)
    fingerprint = kc.pp.fingerprint()
    if log.file_states.get(name) != (fingerprint, fingerprint):
        raise NotRelinkable("macros change around the file")
    with gc_paused():
        old = _parse_alone(kc, log, name, source.text)
        new = _ParsedAlone(kc, name, text, lex_cache)
        plan = _Plan(kc, log, name, old, new)
        plan.check()
        log.last_parse = (name, text, new)
        result = plan.apply(source)
    if cycles and result.cycles_may_change:
        check_cycles(kc)
    return result


def check_cycles(kc: Kconfig) -> None:
    """The checks after finalisation (recursive dependencies; 6.11+ entry
    rules) of the whole re-linked tree again, their diagnostics after the
    others (as a load orders them)."""
    kc.diagnostics = kc.diagnostics[: kc.relink.post_diagnostics]
    kc.check_cycles()


def _parse_alone(kc: Kconfig, log: RelinkLog, name: str, text: str) -> _ParsedAlone:
    """The file's parse on its own, the one of the last edit when it fits."""
    last = log.last_parse
    if last is not None and last[0] == name and last[1] == text and last[2].tree is kc:
        return last[2]
    return _ParsedAlone(kc, name, text)


class _Plan:
    """The comparison of the old and the new parse, then the patch."""

    def __init__(self, kc: Kconfig, log: RelinkLog, name: str, old: _ParsedAlone, new: _ParsedAlone):
        self.kc = kc
        self.log = log
        self.name = name
        self.old = old
        self.new = new
        self.real_nodes = log.file_nodes.get(name, [])
        #: Indexes of the entries whose dependencies or properties changed.
        self.changed: list[int] = []
        self.region: MenuNode | None = None
        self.subtree: list[MenuNode] = []
        self.inside: set[MenuNode] = set()
        self.reused: list[MenuNode] = []
        #: Symbols whose accumulated expressions were folded again.
        self.refolded: set[Symbol] = set()
        #: Whether lines of the file moved, and old line -> new line.
        self.lines_moved = False
        self.moves: dict[int, int] = {}

    # -- what may be patched ------------------------------------------------------------
    def check(self) -> None:
        old, new, kc = self.old, self.new, self.kc
        quiet = self.log.file_quiet.get(self.name, (0, 0))
        for parse in (old, new):
            if any(d.code == "fatal" for d in parse.diagnostics):
                raise NotRelinkable("a fatal error")
            if parse.builder.quiet_tokens or quiet[0]:
                # (A syntax error at the file's end or just before it
                # changes what the parser reports next door.)
                raise NotRelinkable("a syntax error at the file's edge")
            if any(self.log.file_quiet.get(source, (0, 0))[1] for source, _count, _menu in parse.builder.sources):
                raise NotRelinkable("a sourced file ends with a syntax error")
            if parse.pp.fingerprint() != kc.pp.fingerprint():
                raise NotRelinkable("the file assigns macros")
            if parse.root.prompt.text != kc.gen.default_mainmenu or parse.root.prompt.line != 1:
                raise NotRelinkable("the file sets the main menu")
        if _skeleton(old) != _skeleton(new):
            raise NotRelinkable("entries, blocks or sources changed")
        if [(n.kind, _name(n.sym)) for n in self.real_nodes] != [(n.kind, _name(n.sym)) for n in old.nodes]:
            raise NotRelinkable("the tree's entries differ from the file's")
        if any(sym.is_choice and not sym.nodes for sym in new.all_symbols):
            raise NotRelinkable("a choice the file does not define")
        if _symbol_flags(old) != _symbol_flags(new):
            raise NotRelinkable("a type or option changed")
        if _parse_problems(old.diagnostics, self.name) != _parse_problems(
                kc.diagnostics[: self.log.parse_diagnostics], self.name):
            raise NotRelinkable("the file's problems depend on other files")
        for index, (before, after) in enumerate(zip(old.nodes, new.nodes, strict=True)):
            if kc.gen.member_choices and (before.prompt is None) != (after.prompt is None):
                # (A symbol's choice is the block around its first prompt.)
                raise NotRelinkable("a prompt came or went")
            if _shape(before.visibility) != _shape(after.visibility):
                # (The parser puts a menu's visibility into the prompts
                # below it, in whatever file they are.)
                raise NotRelinkable("a menu's visibility changed")
            if _entry_shape(old, before) != _entry_shape(new, after):
                self.changed.append(index)
        for real in self.real_nodes:
            if real.sym is not None and not _props_contiguous(self.log.parsed(real.sym)[1], real):
                raise NotRelinkable("an entry's properties are not together")
        if self.changed:
            self._choose_region()

    def _choose_region(self) -> None:
        raw = self.log.raw_nodes
        changed = [self.real_nodes[i] for i in self.changed]
        region = _common_ancestor(raw, changed)
        if region in changed:
            region = raw[region][4]
        while region.kind not in _BLOCKS or _inside_choice(raw, region):
            region = raw[region][4]
        if region not in self.log.regions or (region.kind == "if" and region not in self.log.flat_last):
            raise NotRelinkable("the block around the edit was not recorded")
        restored, reused = _split_block(self.log, region, changed)
        inside = set(restored)
        for node in restored:
            sym = node.sym
            if sym is not None and (sym.is_choice or _inside_choice(raw, node)):
                # (Restored as parsed: every entry of it must be finalised again.)
                if any(n not in inside for n in sym.nodes):
                    raise NotRelinkable("a choice or its member is defined outside the block")
        self.region = region
        self.subtree = restored
        self.inside = inside
        self.reused = reused

    # -- the patch ------------------------------------------------------------------------
    def apply(self, source: SourceFile) -> RelinkResult:
        kc, log = self.kc, self.log
        symbols_before = len(kc.all_symbols)
        # (Finalising again appends its warnings to the list: taken apart now.)
        self.diagnostics_before = list(kc.diagnostics)
        candidates = self._candidates()
        inputs_before = {sym: _value_inputs(sym) for sym in candidates}
        links_before = {sym: _cycle_links(sym) for sym in candidates}
        translate = _Translator(kc, self.new, self.real_nodes)
        changed = set(self.changed)
        line_map: dict[int, int] = {}
        rechecked: set[Symbol] = set()
        pairs = zip(self.real_nodes, self.old.nodes, self.new.nodes, strict=True)
        for index, (real, before, after) in enumerate(pairs):
            line_map[before.line] = after.line
            real.line, real.end_line, real.name_span = after.line, after.end_line, after.name_span
            real.help = after.help
            real_props = _node_props(real, log)
            new_props = _node_props(after, None)
            # (A changed entry may have more or fewer properties.)
            for old_prop, new_prop in zip(_node_props(before, None), new_props, strict=False):
                line_map[old_prop.line] = new_prop.line
            if index in changed:
                props = [translate.prop(p, real) for p in new_props]
                for prop in props:
                    if prop.kind == P_PROMPT:
                        prop.cond = self._with_outer_visibility(real, prop.cond)
                self._replace_props(real, real_props, props, after, translate)
                if real.sym is not None:
                    rechecked.add(real.sym)
            else:
                for prop, new_prop in zip(real_props, new_props, strict=True):
                    prop.line, prop.span, prop.text = new_prop.line, new_prop.span, new_prop.text
                if real.sym is not None and real.sym.is_choice_value:
                    # (Finalisation gave a choice's members a property at their entry.)
                    for prop in real.sym.props:
                        if prop.kind == P_CHOICE and prop.node is real:
                            prop.line = real.line
        self._replace_file_records(source, translate)
        self._remap_lines(line_map)
        remade = rechecked | {n.sym for n in self.subtree if n.sym is not None}
        refinalised = self._refinalise(rechecked) if self.region is not None else 0
        self._recheck(rechecked)
        for sym in remade:
            sym.index_properties()
        kc._dedup_memo.clear()
        if len(kc.all_symbols) != symbols_before:
            kc._hash_order = None
        self._forget_derived()
        self._rebuild_diagnostics()
        new_symbols = set(kc.all_symbols[symbols_before:])
        if not (remade | self.refolded) <= candidates | new_symbols:
            raise AssertionError(f"made again but not a candidate: {(remade | self.refolded) - candidates}")
        differ = {sym for sym in candidates if _value_inputs(sym) != inputs_before[sym]}
        cycles_may_change = (
            kc.gen.member_choices  # (its entry rules read more than links)
            or any(_cycle_links(sym) != links_before[sym] for sym in differ)
            or (self.lines_moved and any(d.file == self.name for report in kc.cycles for d in report.links)))
        return RelinkResult(self.region, len(changed), refinalised, differ | new_symbols, cycles_may_change)

    def _forget_derived(self) -> None:
        """Drop what was derived from the tree (kc.derived), except
        explain's index of selects and implies: the entries of the changed
        entries' symbols are made again (their properties are new objects),
        the others' stay (the same objects).  The hover of a symbol after
        each edit reads the index: patching it takes a fraction of the
        ~15 ms of a fresh one on a kernel tree."""
        kc = self.kc
        index = kc.derived.get("reverse_index")
        kc.derived.clear()
        if index is None:
            return
        kc.derived["reverse_index"] = index
        selecting = False
        for i in self.changed:
            for node in (self.old.nodes[i], self.new.nodes[i]):
                if any(p.kind in (P_SELECT, P_IMPLY) for p in _node_props(node, None)):
                    selecting = True
        if not selecting:
            return
        owners = {self.real_nodes[i].sym for i in self.changed} - {None}
        touched = set()
        for key, entries in index.items():
            if any(by in owners for by, _prop in entries):
                entries[:] = [(by, prop) for by, prop in entries if by not in owners]
                touched.add(key)
        for sym in owners:
            for kind, props in (("select", sym.selects), ("imply", sym.implies)):
                for prop in props:
                    key = (kind, prop.expr)
                    index.setdefault(key, []).append((sym, prop))
                    touched.add(key)
        for key in touched:
            entries = index[key]
            if entries:
                # (As a fresh index has them: in the symbol table's order.)
                entries.sort(key=lambda pair: pair[0].index)
            else:
                del index[key]

    def _candidates(self) -> set[Symbol]:
        """Every symbol the patch may give other expressions: those of the
        block finalised again and of the changed entries, and the targets
        of their selects and implies before and after the edit."""
        kc = self.kc
        found = {n.sym for n in self.subtree if n.sym is not None}
        found.update(self.real_nodes[i].sym for i in self.changed if self.real_nodes[i].sym is not None)
        if self.region is not None:
            found.update(sym for _key, (kind, sym, _data) in self.log.block_events(self.region, self.reused)
                         if kind in ACCUMULATED)
        for i in self.changed:
            for prop in _node_props(self.new.nodes[i], None):
                if prop.kind in (P_SELECT, P_IMPLY):
                    target = kc.find(prop.expr.name)
                    if target is not None:
                        found.add(target)
        return found

    def _with_outer_visibility(self, real: MenuNode, cond: Any) -> Any:
        """A prompt's condition with the ``visible if`` of the menus around
        the file (the parser adds every enclosing menu's; parsed alone, the
        file knew only its own)."""
        raw = self.log.raw_nodes
        above = raw[real][4]
        while above is not None and above.file == self.name and above.kind != "root":
            above = raw[above][4]
        while above is not None:
            if above.visibility is not None:
                cond = and_expr(cond, above.visibility)
            above = raw[above][4]
        return cond

    def _replace_props(self, real: MenuNode, real_props: list[Property], new_props: list[Property],
                       after: MenuNode, translate: _Translator) -> None:
        log = self.log
        dep, visibility, first, nxt, parent, _kind = log.raw_nodes[real]
        prompt = next((p for p in new_props if p.text is not None), None)
        log.raw_nodes[real] = (translate.expr(after.dep), translate.expr(after.visibility), first, nxt, parent,
                               prompt.kind if prompt is not None else None)
        real.dep, real.visibility = log.raw_nodes[real][0], log.raw_nodes[real][1]
        real.prompt = prompt
        for prop in real_props:
            log.raw_conds.pop(prop, None)
        for prop in new_props:
            log.raw_conds[prop] = prop.cond
        sym = real.sym
        if sym is None:
            return
        props = log.parsed(sym)[1]
        at = props.index(real_props[0])
        props = props[:at] + tuple(new_props) + props[at + len(real_props):]
        log.set_parsed_props(sym, props)
        if real not in self.inside:
            raise AssertionError("a changed entry outside the block finalised again")
        sym.props = list(props)

    def _replace_file_records(self, source: SourceFile, translate: _Translator) -> None:
        """The file's text, references, logical uses, expansions, sources."""
        kc, name, new = self.kc, self.name, self.new
        kc.files[name] = SourceFile(name, source.path, new.files[name].text, source.included_from)
        for sym in _referencing(kc, self.old):
            sym.refs = [ref for ref in sym.refs if ref[0] != name]
        for sym in new.all_symbols:
            if sym.refs:
                real = translate.symbol(sym)
                mine = [ref for ref in sym.refs if ref[0] == name]
                real.refs = [*real.refs, *mine] if real.refs else mine
        kc.logical_uses = [use for use in kc.logical_uses if use[0] != name] + [
            (f, start, end, translate.symbol(sym)) for f, start, end, sym in new.logical_uses]
        kc.expansions = [e for e in kc.expansions if e[0] != name] + new.expansions
        kc.source_refs = [r for r in kc.source_refs if r[0] != name] + new.source_refs
        count = self.log.parse_diagnostics
        parse = kc.diagnostics[:count]
        kept = [d for d in parse if d.file != name]
        mine = [d for d in new.diagnostics if d.file == name]
        at = next((i for i, d in enumerate(parse) if d.file == name), len(parse))
        at = sum(1 for d in parse[:at] if d.file != name)
        self.parse_diagnostics = kept[:at] + mine + kept[at:]

    def _remap_lines(self, line_map: dict[int, int]) -> None:
        """Finalisation warnings about this file keep pointing at their lines."""
        moves = {old: new for old, new in line_map.items() if old != new}
        self.lines_moved = bool(moves)
        self.moves = moves
        if not moves:
            return  # (an edit within lines)
        name = self.name
        events = self.log.events
        for i, (kind, sym, data) in enumerate(events):
            if kind == DIAG and data.file == name and data.line in moves:
                events[i] = (kind, sym, _moved(data, moves))
                self.log.diagnostics_changed = True

    def _refinalise(self, rechecked: set[Symbol]) -> int:
        """Finalise the block again: its entries as parsed, except the
        blocks inside it that no change reached (their finalised entries
        and events are taken over as they are)."""
        kc, log, region = self.kc, self.log, self.region
        raw = log.raw_nodes
        old_last = log.flat_last.get(region) if region.kind == "if" else None
        after = old_last.next if old_last is not None else None
        reused = self.reused
        for block in reused:
            # Its entries stay finalised; an if block's were flattened after it.
            if block.kind == "if":
                last = log.flat_last[block]
                block.list = block.next
                last.next = None
        for node in self.subtree + reused:
            dep, visibility, first, nxt, parent, prompt_kind = raw[node]
            if node not in reused:
                node.list = first
            if node is region:
                continue
            node.dep, node.visibility, node.next, node.parent = dep, visibility, nxt, parent
            if node.prompt is not None:
                node.prompt.kind = prompt_kind
                if node.sym is None:
                    node.prompt.cond = log.raw_conds[node.prompt]
        as_parsed = self.inside.union(reused)
        restored: set[Symbol] = set()
        for node in self.subtree + reused:
            sym = node.sym
            if sym is None or sym in restored:
                continue
            restored.add(sym)
            typ, props, choice, is_choice_value = log.parsed(sym)
            for prop in props:
                if prop.node in as_parsed:
                    prop.cond = log.raw_conds[prop]
            if node not in reused and (sym.is_choice or _inside_choice(raw, node)):
                sym.props = list(props)
                sym.type, sym.choice, sym.is_choice_value = typ, choice, is_choice_value
                if sym.is_choice:
                    sym.choice_values = ()
        for _key, (kind, sym, _data) in log.block_events(region, reused):
            if kind == CHECK:
                kc._checked.discard(sym)
        log.begin_block(reused)
        try:
            kc._finalize_entry(region)
        finally:
            old_events, new_events = log.end_block(region)
        if region.kind == "if":
            _splice_after(region, after, log)
            # Blocks around whose flattened entries ended with this one's.
            above = raw[region][4]
            while above is not None:
                if log.flat_last.get(above) is old_last:
                    log.flat_last[above] = log.flat_last[region]
                above = raw[above][4]
        if kc.gen.member_choices:
            for node in self.subtree:
                if node.sym is not None and node.sym.is_choice and not node.sym.choice_values:
                    kc._collect_choice_values(node.sym)
        for kind, sym, _data in log.events_taken_over():
            if kind == CHECK:
                kc._checked.add(sym)
        touched = {(sym, kind) for kind, sym, _data in old_events + new_events if kind in ACCUMULATED}
        if any(kind == DIAG for kind, _sym, _data in old_events + new_events):
            log.diagnostics_changed = True
        _fold_again(log, touched)
        self.refolded = {sym for sym, _attr in touched}
        rechecked.difference_update(sym for kind, sym, _data in new_events if kind == CHECK)
        return len(self.subtree)

    def _recheck(self, rechecked: set[Symbol]) -> None:
        """Check again symbols whose properties changed but whose check
        (at their first entry) lies outside the block finalised again."""
        kc, log = self.kc, self.log
        for sym in rechecked:
            key = log.key_of(CHECK, sym)
            if key is None:
                continue
            node = log.events[log.keys.index(key)][2]
            start = len(kc.diagnostics)
            kc._check_symbol(node, sym)
            found = kc.diagnostics[start:]
            del kc.diagnostics[start:]
            log.replace_after(key, DIAG, [(DIAG, None, d) for d in found])
            log.diagnostics_changed = True

    def _rebuild_diagnostics(self) -> None:
        """Parse problems, finalisation warnings in menu order, cycles."""
        kc, log = self.kc, self.log
        before = self.diagnostics_before
        # (The cycle reports until they are checked again: at their lines.)
        post = [_moved(d, self.moves) if d.file == self.name and d.line in self.moves else d
                for d in before[log.post_diagnostics:]]
        finalised = before[log.parse_diagnostics:log.post_diagnostics]
        if log.diagnostics_changed:
            finalised = [data for kind, _sym, data in log.events if kind == DIAG]
            log.diagnostics_changed = False
        diagnostics = list(self.parse_diagnostics)
        log.parse_diagnostics = len(diagnostics)
        diagnostics.extend(finalised)
        log.post_diagnostics = len(diagnostics)
        kc.diagnostics = diagnostics + post


def _value_inputs(sym: Symbol) -> tuple:
    """Everything of a symbol its value is computed from (the expressions
    themselves: compared by structure, not by name)."""
    return (sym.dir_dep, sym.rev_dep, sym.implied, sym.choice, tuple(sym.choice_values),
            tuple((p.kind, p.cond, p.expr) for p in sym.props))


def _cycle_links(sym: Symbol) -> tuple:
    """What the cycle check walks from a symbol, in its order, and the
    places it names (cycles.py): equal links give equal reports."""
    props = tuple((p.kind, p.file, p.line, _symbols_in_order(p.cond),
                   _symbols_in_order(p.expr) if p.kind == P_DEFAULT else ())
                  for p in sym.props if p.kind not in (P_CHOICE, P_SELECT, P_IMPLY))
    return (_symbols_in_order(sym.dir_dep), _symbols_in_order(sym.rev_dep), _symbols_in_order(sym.implied),
            sym.choice, tuple(sym.choice_values), props)


def _symbols_in_order(e: Any) -> tuple:
    """The symbols of ``e`` left to right (constants lead nowhere: left out)."""
    return tuple(sym for sym in expr_symbols(e) if not sym.is_const)


# -- comparing parses ---------------------------------------------------------------------


def _name(sym: Symbol | None) -> str | None:
    if sym is None:
        return None
    return sym.name if not sym.is_choice else f"<choice {sym.name}>"


def _skeleton(parse: _ParsedAlone) -> tuple:
    position = {node: i for i, node in enumerate(parse.nodes)}
    position[parse.root] = -1
    entries = tuple((n.kind, _name(n.sym), position[n.parent]) for n in parse.nodes)
    sources = tuple((name, count, position[menu]) for name, count, menu in parse.builder.sources)
    return entries, sources


def _symbol_flags(parse: _ParsedAlone) -> dict:
    flags = {
        _name(sym): (sym.type, sym.optional, sym.no_write, sym.transitional, sym.allnoconfig_y)
        for sym in parse.all_symbols
        if sym.nodes and not sym.is_const
    }
    flags[None] = (_name(parse.modules_sym) if parse.modules_sym is not SYM_N else None,
                   _name(parse.defconfig_list_sym))
    return flags


def _parse_problems(diagnostics: list[Diagnostic], name: str) -> list[tuple]:
    return [(d.line, d.col, d.message, d.severity, d.code) for d in diagnostics if d.file == name]


def _shape(e: Any) -> Any:
    """An expression with its symbols as names (to compare two parses)."""
    if e is None:
        return None
    if isinstance(e, Symbol):
        return (_name(e), e.is_const)
    if isinstance(e, tuple):
        return tuple(_shape(x) for x in e)
    return e


def _node_props(node: MenuNode, log: RelinkLog | None) -> list[Property]:
    """The properties the entry ``node`` declared, in order."""
    sym = node.sym
    if sym is None:
        return [node.prompt] if node.prompt is not None else []
    props = log.parsed(sym)[1] if log is not None else sym.props
    return [p for p in props if p.node is node]


def _entry_shape(parse: _ParsedAlone, node: MenuNode) -> tuple:
    props = tuple((p.kind, _shape(p.expr), _shape(p.cond), p.text is not None) for p in _node_props(node, None))
    return _shape(node.dep), _shape(node.visibility), props


def _props_contiguous(props: tuple, node: MenuNode) -> bool:
    at = [i for i, p in enumerate(props) if p.node is node]
    return not at or at[-1] - at[0] + 1 == len(at)


def _referencing(kc: Kconfig, parse: _ParsedAlone) -> list[Symbol]:
    """The tree's symbols that the file's last text referred to."""
    found = []
    for sym in parse.all_symbols:
        if sym.refs:
            real = _find_real(kc, sym)
            if real is not None:
                found.append(real)
    return found


def _find_real(kc: Kconfig, sym: Symbol) -> Symbol | None:
    if sym.is_choice:
        return kc.named_choices.get(sym.name) if sym.name else None
    if sym.is_const:
        return kc.find_const(sym.name)
    return kc.find(sym.name)


def _moved(diag: Diagnostic, line_map: dict[int, int]) -> Diagnostic:
    end_line = line_map.get(diag.end_line, diag.end_line) if diag.end_line is not None else None
    return replace(diag, line=line_map[diag.line], end_line=end_line)


# -- the raw tree ---------------------------------------------------------------------------


def _common_ancestor(raw: dict, nodes: list[MenuNode]) -> MenuNode:
    chain = []
    node = nodes[0]
    while node is not None:
        chain.append(node)
        node = raw[node][4]
    depth = {n: i for i, n in enumerate(chain)}
    best = 0
    for node in nodes[1:]:
        while node not in depth:
            node = raw[node][4]
        best = max(best, depth[node])
    return chain[best]


def _inside_choice(raw: dict, node: MenuNode) -> bool:
    above = raw[node][4]
    while above is not None:
        if above.kind == "choice":
            return True
        above = raw[above][4]
    return False


def _split_block(log: RelinkLog, region: MenuNode, changed: list[MenuNode]) -> tuple[list, list]:
    """The entries of ``region`` to finalise again (it, the changed entries
    and every entry on the way to them, with their other children), and
    the blocks below them no change reached, to take over finalised."""
    raw = log.raw_nodes
    dirty = set()
    for node in changed:
        while node is not None and node not in dirty:
            dirty.add(node)
            if node is region:
                break
            node = raw[node][4]
    edited = set(changed)
    restored, reused = [], []
    # (Below a changed entry every dependency changes: nothing is reused.)
    stack = [(region, region in edited)]
    while stack:
        node, below_change = stack.pop()
        restored.append(node)
        child = raw[node][2]
        while child is not None:
            if (not below_change and raw[child][2] is not None and child not in dirty and child in log.regions
                    and (child.kind != "if" or child in log.flat_last)):
                reused.append(child)
            else:
                stack.append((child, below_change or child in edited))
            child = raw[child][3]
    return restored, reused


def _splice_after(block: MenuNode, after: MenuNode | None, log: RelinkLog) -> None:
    """Flatten the ``if`` block's finalised entries after it, as its
    parent's finalisation did."""
    first = block.list
    last = first
    while True:
        last.parent = block.parent
        if last.next is None:
            break
        last = last.next
    last.next = after
    block.next = first
    block.list = None
    log.flat_last[block] = last


def _fold_again(log: RelinkLog, touched: set[tuple[Symbol, str]]) -> None:
    """Each touched (symbol, expression) folded again from its events.
    (The whole log is filtered by symbol without a Python step per event:
    it holds ~100,000 on a kernel tree, a few touched symbols' among them.)"""
    symbols = set()
    for sym, attr in touched:
        setattr(sym, attr, None)
        symbols.add(sym)
    events = log.events
    for kind, sym, data in compress(events, map(symbols.__contains__, map(itemgetter(1), events))):
        if (sym, kind) in touched:
            setattr(sym, kind, or_expr(getattr(sym, kind), data))


class _Translator:
    """The new parse's symbols and expressions in the tree's terms."""

    def __init__(self, kc: Kconfig, new: _ParsedAlone, real_nodes: list[MenuNode]):
        self.kc = kc
        pairs = zip(new.nodes, real_nodes, strict=True)
        self.choices = {n.sym: r.sym for n, r in pairs if n.sym is not None and n.sym.is_choice}

    def symbol(self, sym: Symbol) -> Symbol:
        if sym is SYM_Y or sym is SYM_M or sym is SYM_N:
            return sym
        if sym.is_choice:
            real = self.choices.get(sym) or self.kc.named_choices.get(sym.name)
            if real is None:
                raise AssertionError(f"choice {sym.name} is not the tree's")
            return real
        if sym.is_const:
            return self.kc.lookup_const(sym.name)
        return self.kc.lookup(sym.name)

    def expr(self, e: Any) -> Any:
        if e is None:
            return None
        if isinstance(e, Symbol):
            return self.symbol(e)
        if isinstance(e, tuple):
            return tuple(self.expr(x) for x in e)
        return e

    def prop(self, prop: Property, node: MenuNode) -> Property:
        out = Property(prop.kind, self.expr(prop.expr), self.expr(prop.cond), node, prop.file, prop.line)
        out.text = prop.text
        out.span = prop.span
        return out

