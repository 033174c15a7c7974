"""What a tree must remember to be re-linked in place after an edit of one
file (:mod:`.relink`): the entries as parsed, before finalisation changed
them, and everything finalisation did beyond its own subtree, in order.

Finalising an ``if`` block or a ``menu`` touches, outside its own nodes,
only the symbols' accumulated expressions (``rev_dep`` from selects and
prompts, ``implied``, ``dir_dep``), the once-per-symbol property checks and
the warnings it emits.  Each of these is an *event* with a key that orders
it among all others as the C tool's ``menu_finalize`` would have produced
them.  A block's events lie between its ``enter`` and ``exit`` markers, so
finalising the block again replaces exactly that stretch, and each touched
symbol's expressions are folded again from its events in key order.

Keys are floats: the first load numbers events 1, 2, 3...; a re-finalised
block spreads its new events evenly between its markers, or, where it took
over the events of blocks inside it that the edit left alone, in the gaps
between those, which keep their keys (and their index: the root block's are
most of the tree).  When the spacing gets too fine the whole log is
numbered again.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .menu import MenuNode, Property
    from .symbols import Symbol
    from .tree import Kconfig

#: Event kinds.  The expression kinds are the symbol attributes they build.
ENTER, EXIT, CHECK, DIAG = "enter", "exit", "check", "diag"
ACCUMULATED = ("rev_dep", "implied", "dir_dep")
#: Closest spacing of keys before the log is numbered again.
_MIN_SPACING = 1e-6


class RelinkLog:
    """The parse-time state and the finalisation events of one tree."""

    def __init__(self) -> None:
        #: Whether finalisation events are being recorded.
        self.recording = False
        self.keys = array("d")
        #: (kind, symbol or None, data) in key order.
        self.events: list[tuple[str, Symbol | None, Any]] = []
        #: Block node -> its (enter, exit) marker keys.
        self.regions: dict[MenuNode, tuple[float, float]] = {}
        #: Flattened node (an ``if`` block) -> the last node spliced after it.
        self.flat_last: dict[MenuNode, MenuNode] = {}
        #: Node -> (dep, visibility, list, next, parent, prompt kind) as
        #: parsed (kept on the nodes: a dict of 20,000 was 2 MB more).
        self.raw_nodes = _RawNodes()
        #: Property -> its condition as parsed (kept on the properties).
        self.raw_conds = _RawConds()
        #: Choice and member -> (type, properties, choice, is_choice_value)
        #: as parsed (:meth:`parsed`: other symbols keep theirs).
        self.raw_syms: dict[Symbol, tuple] = {}
        #: File name -> macro fingerprints at the start and end of its parse.
        self.file_states: dict[str, tuple[int, int]] = {}
        #: File name -> the parser's quiet tokens (after a syntax error,
        #: bison reports the next one only three tokens later; files share
        #: the count) at the start and the end of its parse.
        self.file_quiet: dict[str, tuple[int, int]] = {}
        #: File name -> how many times it was parsed (sourced).
        self.file_parses: dict[str, int] = {}
        #: File name -> its nodes in parse order.
        self.file_nodes: dict[str, list[MenuNode]] = {}
        #: How many of the tree's diagnostics the parse made (the rest come
        #: from finalisation, then the cycle checks).
        self.parse_diagnostics = 0
        #: Where the diagnostics of the checks after finalisation (cycles,
        #: 6.11+ entry rules) begin.
        self.post_diagnostics = 0
        #: Whether the finalisation warnings changed since the tree's
        #: diagnostics were last put together.
        self.diagnostics_changed = False
        #: (file name, text, its parse on its own) of the last re-link, the
        #: "before" of the next edit of that file.
        self.last_parse: tuple | None = None
        # Where new events go and how they are numbered.
        self._out_keys = self.keys
        self._out_events: list = self.events
        self._next_key = 1.0
        #: Blocks whose old finalisation a re-finalised block takes over.
        self.reused: set[MenuNode] = set()
        self._taken: list[tuple[int, int, int, int]] = []
        self._taken_events: list = []

    # -- recording ----------------------------------------------------------------
    def capture(self, kc: Kconfig) -> None:
        """Remember the parsed tree before finalisation changes it."""
        self.parse_diagnostics = len(kc.diagnostics)
        raw_nodes = self.raw_nodes
        file_nodes = self.file_nodes
        for node in kc.walk():
            prompt = node.prompt
            raw_nodes[node] = (node.dep, node.visibility, node.list, node.next, node.parent,
                               prompt.kind if prompt is not None else None)
            file_nodes.setdefault(node.file, []).append(node)
            if prompt is not None and node.sym is None:
                self.raw_conds[prompt] = prompt.cond
        raw_nodes[kc.root] = (kc.root.dep, kc.root.visibility, kc.root.list, None, None, None)
        for sym in kc.all_symbols:
            for prop in sym.props:
                self.raw_conds[prop] = prop.cond
        # Finalisation changes the type, properties and choice of a choice
        # and of the symbols in it only: theirs are kept apart.
        for choice in kc.choices:
            self._keep(choice)
            for node in choice.nodes:
                for below in node.walk():
                    if below.sym is not None:
                        self._keep(below.sym)
        self.recording = True

    def _keep(self, sym: Symbol) -> None:
        self.raw_syms[sym] = (sym.type, tuple(sym.props), sym.choice, sym.is_choice_value)

    def parsed(self, sym: Symbol) -> tuple:
        """(type, properties, choice, is_choice_value) of ``sym`` as parsed."""
        kept = self.raw_syms.get(sym)
        if kept is not None:
            return kept
        return sym.type, tuple(sym.props), sym.choice, sym.is_choice_value

    def set_parsed_props(self, sym: Symbol, props: tuple) -> None:
        kept = self.raw_syms.get(sym)
        if kept is not None:
            self.raw_syms[sym] = (kept[0], props, kept[2], kept[3])

    def event(self, kind: str, sym: Symbol | None, data: Any) -> float:
        key = self._next_key
        self._next_key += 1.0
        self._out_keys.append(key)
        self._out_events.append((kind, sym, data))
        return key

    def enter(self, node: MenuNode) -> None:
        self.event(ENTER, None, node)

    def exit(self, node: MenuNode) -> None:
        self.event(EXIT, None, node)

    def stop(self) -> None:
        """The first finalisation ended: index the blocks' markers."""
        self.recording = False
        self._index_regions()

    def _index_regions(self) -> None:
        entered: dict[MenuNode, float] = {}
        self.regions = {}
        for key, (kind, _sym, data) in zip(self.keys, self.events, strict=True):
            if kind == ENTER:
                entered[data] = key
            elif kind == EXIT:
                self.regions[data] = (entered.pop(data), key)

    # -- replaying a block --------------------------------------------------------
    def begin_block(self, reused: list[MenuNode]) -> None:
        """Record the events of a block finalised again aside; the blocks
        ``reused`` inside it give their old events (:meth:`take_over`)."""
        self._out_keys, self._out_events = array("d"), []
        self._next_key = 0.0
        self.reused = set(reused)
        #: (start, end) in the old log and in the new events of each taken-over run.
        self._taken: list[tuple[int, int, int, int]] = []
        self.recording = True

    def take_over(self, node: MenuNode) -> None:
        """A reused block: its old events, markers included, as they were."""
        low, high = self.regions[node]
        start, end = bisect_left(self.keys, low), bisect_right(self.keys, high)
        at = len(self._out_events)
        self._out_events.extend(self.events[start:end])
        self._out_keys.extend(self.keys[start:end])
        self._taken.append((start, end, at, len(self._out_events)))

    def block_events(self, node: MenuNode, reused: list[MenuNode]) -> list:
        """(key, event) inside the block ``node`` but outside ``reused``."""
        low, high = self.regions[node]
        keys, events = self.keys, self.events
        out: list = []
        at, end = bisect_right(keys, low), bisect_left(keys, high)
        # (The root block holds every event of the tree: runs between the
        # reused blocks are sliced, not walked one event at a time.)
        for skip_low, skip_high in sorted(self.regions[b] for b in reused):
            skip_start = bisect_left(keys, skip_low, at, end)
            out.extend(zip(keys[at:skip_start], events[at:skip_start], strict=True))
            at = max(at, bisect_right(keys, skip_high, at, end))
        out.extend(zip(keys[at:end], events[at:end], strict=True))
        return out

    def end_block(self, node: MenuNode) -> tuple[list, list]:
        """Put the block's new events in place of its old ones; returns the
        old and the new events that were not taken over."""
        self.recording = False
        self.reused = set()
        new_events, recorded_keys = self._out_events, self._out_keys
        self._out_keys, self._out_events = self.keys, self.events
        low, high = self.regions[node]
        first = bisect_right(self.keys, low)
        last = bisect_left(self.keys, high)
        old_events = self.events[first:last]
        old_own, new_own, self._taken_events = _outside_taken(old_events, first, new_events, self._taken)
        kept = self._keys_keeping_runs(recorded_keys, low, high, len(new_events))
        fine = True
        if kept is not None:
            keys, fresh = kept
        else:
            keys, fresh = array("d"), [(0, len(new_events))]
            fine = _spread(keys, low, high, len(new_events))
        self.keys[first:last] = keys
        self.events[first:last] = new_events
        if not fine:
            self._renumber()
        else:
            self._index_new_regions(keys, new_events, fresh)
        return old_own, new_own

    def _keys_keeping_runs(self, recorded_keys: array, low: float, high: float,
                           count: int) -> tuple[array, list] | None:
        """Keys for a block's ``count`` new events in which the runs taken
        over keep theirs (the regions inside them stay as indexed: the root
        block's runs are most of the tree) and the events between them are
        spread evenly in the gaps; with the (start, stop) stretches of new
        events that got new keys.  None when the runs are not in their old
        order or a gap would be too fine."""
        out_keys = recorded_keys  # (holding the runs' old keys: take_over copied them)
        keys = array("d")
        fresh: list[tuple[int, int]] = []
        lower, at = low, 0
        for _start, _end, run_at, run_stop in sorted(self._taken, key=lambda run: run[2]):
            if run_stop == run_at:
                continue
            if run_at < at or not _spread(keys, lower, out_keys[run_at], run_at - at):
                return None
            fresh.append((at, run_at))
            keys.extend(out_keys[run_at:run_stop])
            lower, at = out_keys[run_stop - 1], run_stop
        if not _spread(keys, lower, high, count - at):
            return None
        fresh.append((at, count))
        return keys, fresh

    def events_taken_over(self) -> list:
        """The events the last block took over from reused blocks."""
        return self._taken_events

    def _index_new_regions(self, keys: array, events: list, fresh: list[tuple[int, int]]) -> None:
        """The markers among the ``fresh`` stretches of a block's events;
        all of them when a block's markers lie on both sides of a run that
        kept its keys (an ``if`` block's nodes are spliced into its parent)."""
        entered: dict[MenuNode, float] = {}
        found: dict[MenuNode, tuple[float, float]] = {}
        for start, stop in fresh:
            for key, (kind, _sym, data) in zip(keys[start:stop], events[start:stop], strict=True):
                if kind == ENTER:
                    entered[data] = key
                elif kind == EXIT:
                    if data not in entered and len(fresh) > 1:
                        self._index_new_regions(keys, events, [(0, len(events))])
                        return
                    found[data] = (entered.pop(data), key)
        if entered and len(fresh) > 1:
            self._index_new_regions(keys, events, [(0, len(events))])
            return
        self.regions.update(found)

    def _renumber(self) -> None:
        self.keys[:] = array("d", range(1, len(self.keys) + 1))
        self._index_regions()

    def replace_after(self, key: float, kind: str, new: list) -> None:
        """Replace the run of ``kind`` events right after ``key`` (the
        warnings of a symbol's check) with events ``new``."""
        start = bisect_right(self.keys, key)
        end = start
        while end < len(self.events) and self.events[end][0] == kind:
            end += 1
        following = self.keys[end] if end < len(self.keys) else key + 1.0
        keys = array("d")
        fine = _spread(keys, key, following, len(new))
        self.keys[start:end] = keys
        self.events[start:end] = new
        if new and not fine:
            self._renumber()

    def key_of(self, kind: str, sym: Symbol) -> float | None:
        """The key of the ``kind`` event about ``sym`` (a check), if any."""
        for key, event in zip(self.keys, self.events, strict=True):
            if event[0] == kind and event[1] is sym:
                return key
        return None


def _spread(keys: array, lower: float, upper: float, count: int) -> bool:
    """Append ``count`` keys evenly spaced strictly between ``lower`` and
    ``upper``; False when they are too close (the log is then numbered
    again) or ``upper`` is not above ``lower``."""
    if count == 0:
        return upper > lower
    step = (upper - lower) / (count + 1)
    keys.extend([lower + step * (i + 1) for i in range(count)])
    return step >= _MIN_SPACING


def _outside_taken(old_events: list, offset: int, new_events: list, taken: list) -> tuple[list, list, list]:
    """Split a block's old and new events: those not taken over (old, new)
    and those taken over.  The events between taken-over runs are sliced,
    not masked one by one (the root block holds every event of the tree)."""
    old_own: list = []
    old_at = 0
    for start, end, _at, _stop in sorted(taken):
        old_own.extend(old_events[old_at:max(old_at, start - offset)])
        old_at = max(old_at, end - offset)
    old_own.extend(old_events[old_at:])
    new_own: list = []
    taken_events: list = []
    new_at = 0
    for _start, _end, at, stop in sorted(taken, key=lambda run: run[2]):
        new_own.extend(new_events[new_at:at])
        taken_events.extend(new_events[at:stop])
        new_at = stop
    new_own.extend(new_events[new_at:])
    return old_own, new_own, taken_events


class _RawNodes:
    """node -> its parsed state, kept on the node itself."""

    __slots__ = ()

    def __getitem__(self, node: MenuNode) -> tuple:
        raw = node.raw
        if raw is None:
            raise KeyError(node)
        return raw

    def __setitem__(self, node: MenuNode, raw: tuple) -> None:
        node.raw = raw

    def __contains__(self, node: MenuNode) -> bool:
        return node.raw is not None


class _RawConds:
    """property -> its parsed condition, kept on the property itself."""

    __slots__ = ()

    def __getitem__(self, prop: Property) -> Any:
        return prop.raw_cond

    def __setitem__(self, prop: Property, cond: Any) -> None:
        prop.raw_cond = cond

    def pop(self, prop: Property, default: Any = None) -> Any:
        cond, prop.raw_cond = prop.raw_cond, None
        return cond
