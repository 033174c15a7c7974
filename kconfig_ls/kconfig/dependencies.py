"""Which symbols read which, and the order their values can be computed in.

The index (symbol -> the symbols whose value reads it: through
dependencies, reverse dependencies, implies, defaults, ranges, prompts and
choices) tells :mod:`.revalue` which values an edit may reach.  The order
lets it compute again, after an edit, only the symbols whose inputs really
changed value: a symbol whose inputs all kept theirs keeps its own, and
nothing depending on it alone is computed again.  That needs every input
decided before the symbols reading it: each strongly connected part of the
graph after every part it reads.

The graph has loops.  A choice and its entries read each other: such a
group is one unit, computed together.  Any other loop (a recursive
dependency, which the C tool reports) makes values depend on the order
the C tool happens to compute them in; where an edit reaches one, the
caller computes everything the edit reaches in the C tool's own order
instead (:attr:`DependencyOrder.loops`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .menu import P_IMPLY, P_RANGE, P_SELECT
from .symbols import Symbol

if TYPE_CHECKING:
    from .tree import Kconfig

#: Properties whose expressions are read by other symbols than their owner.
_ON_OTHERS = (P_SELECT, P_IMPLY)


class Dependencies:
    """A tree's index and order, shared by its readings (revalue.py);
    :meth:`prepare` may run in a thread of its own meanwhile."""

    def __init__(self, kc: Kconfig):
        self.kc = kc
        self._lock = threading.Lock()
        self._readers: dict[Symbol, set[Symbol]] | None = None
        self._order: DependencyOrder | None = None
        #: Whether an edit made the order wrong: it is then made again by
        #: :meth:`prepare` only (a pause), not on the way of the next values.
        self._dropped = False
        #: Counts the edits that added links (an order made meanwhile is stale).
        self._version = 0

    def readers(self) -> dict[Symbol, set[Symbol]]:
        """symbol -> the symbols whose value reads it."""
        with self._lock:
            return self._index()

    def order(self) -> DependencyOrder | None:
        """The order (made now the first time); None after an edit made
        it wrong, until :meth:`prepare`."""
        with self._lock:
            if self._order is None and not self._dropped:
                self._order = DependencyOrder(self._index(), self.kc.hash_order())
            return self._order

    def prepare(self) -> None:
        """Both made ahead (half a second on a kernel tree).  The order is
        made outside the lock, so an edit's values never wait for it; it
        is kept only if no edit changed the index meanwhile."""
        with self._lock:
            readers = self._index()
            if self._order is not None:
                return
            version = self._version
        try:
            order = DependencyOrder(readers, self.kc.hash_order())
        except RuntimeError:  # (a set of the index grew meanwhile)
            return
        with self._lock:
            if self._version == version and self._order is None:
                self._order, self._dropped = order, False

    def note_changed(self, changed: Iterable[Symbol]) -> None:
        """A re-link made ``changed`` again: their new inputs join the index
        (links they lost stay: the index may only say too much)."""
        with self._lock:
            if self._readers is None:
                return
            added = _add_readers(self._readers, changed)
            if added:
                self._version += 1
            if self._order is not None and not self._order.take(added):
                self._order = None
                self._dropped = True

    def reach(self, changed: Iterable[Symbol]) -> set[Symbol]:
        """``changed`` and every symbol whose value depends on one of them."""
        readers = self.readers()
        reached: set[Symbol] = set()
        stack = list(changed)
        while stack:
            sym = stack.pop()
            if sym in reached:
                continue
            reached.add(sym)
            stack.extend(readers.get(sym, ()))
        return reached

    def _index(self) -> dict[Symbol, set[Symbol]]:
        if self._readers is None:
            self._readers = {}
            _add_readers(self._readers, self.kc.all_symbols)
        return self._readers


class DependencyOrder:
    """The strongly connected parts of the dependency graph, inputs first.

    ``readers`` maps a symbol to the symbols reading it; ``hash_order`` is
    every symbol in the C tool's order (the order within a unit)."""

    def __init__(self, readers: dict[Symbol, set[Symbol]], hash_order: list[Symbol]):
        parts = _strongly_connected(hash_order, readers)
        parts.reverse()  # (found readers first)
        position = {sym: n for n, sym in enumerate(hash_order)}
        #: symbol -> the index of its unit in :attr:`units`.
        self.rank: dict[Symbol, int] = {}
        #: rank -> the unit's symbols in the C tool's order; a lower rank's
        #: unit holds none of a higher one's inputs.
        self.units: dict[int, list[Symbol]] = {}
        #: The rank the next symbol known too late gets (before all others).
        self._first = -1
        #: Units that are loops other than a choice group.
        self.loops: set[int] = set()
        for rank, part in enumerate(parts):
            part.sort(key=position.__getitem__)
            self.units[rank] = part
            for sym in part:
                self.rank[sym] = rank
            # (A symbol reading itself reads its value as reset: one entry
            # into the loop, whatever the order.)
            if len(part) > 1 and not _choice_group(part):
                self.loops.add(rank)

    def take(self, edges: Iterable[tuple[Symbol, Symbol]]) -> bool:
        """Take links (input, reader) an edit added to the graph; False
        when the order no longer holds: an input after its reader, or a
        reader the order does not know."""
        rank = self.rank
        for used, reader in edges:
            if not self.knows((used,)):
                return False
            b = rank.get(reader)
            if b is None or rank[used] > b:
                return False
        return True

    def knows(self, symbols: Iterable[Symbol]) -> bool:
        """Whether every one of ``symbols`` has a place; a symbol without a
        definition made since (an edit's reference to a new name: it reads
        nothing) gets one before everything."""
        rank = self.rank
        for sym in symbols:
            if sym in rank:
                continue
            if sym.nodes:
                return False
            rank[sym] = self._first
            self.units[self._first] = [sym]
            self._first -= 1
        return True


def _choice_group(part: list[Symbol]) -> bool:
    """Whether a loop is a choice and its entries, and nothing else."""
    members = set(part)
    return all(sym.is_choice or (sym.choice is not None and sym.choice in members) for sym in part)


def _strongly_connected(nodes: list[Symbol], edges: dict[Symbol, set[Symbol]]) -> list[list[Symbol]]:
    """Tarjan's strongly connected components, without recursion (the
    kernel's reverse dependencies chain hundreds deep); a part comes after
    every part it reaches."""
    index: dict[Symbol, int] = {}
    low: dict[Symbol, int] = {}
    on_stack: set[Symbol] = set()
    stack: list[Symbol] = []
    parts: list[list[Symbol]] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(edges.get(root, ())))]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(edges.get(nxt, ()))))
                    break
                if nxt in on_stack and index[nxt] < low[node]:
                    low[node] = index[nxt]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if low[node] < low[parent]:
                        low[parent] = low[node]
                if low[node] == index[node]:
                    part = []
                    while True:
                        sym = stack.pop()
                        on_stack.discard(sym)
                        part.append(sym)
                        if sym is node:
                            break
                    parts.append(part)
    return parts


def _add_readers(out: dict[Symbol, set[Symbol]], symbols) -> list[tuple[Symbol, Symbol]]:
    """Index what ``symbols`` read; returns the (input, reader) links new
    to the index."""
    added = []
    for sym in symbols:
        exprs = [sym.dir_dep, sym.rev_dep, sym.implied]
        for prop in sym.props:
            if prop.kind in _ON_OTHERS:
                # (What a select or imply does is read by its target, through
                # the target's reverse dependencies: the owner reads nothing.)
                continue
            exprs.append(prop.cond)
            if prop.kind == P_RANGE:
                exprs.extend(prop.expr)
            else:
                exprs.append(prop.expr)
        if sym.choice is not None:
            exprs.append(sym.choice)
        exprs.extend(sym.choice_values)
        for used in _symbols_in(exprs):
            deps = out.get(used)
            if deps is None:
                out[used] = {sym}
            elif sym in deps:
                continue
            else:
                deps.add(sym)
            added.append((used, sym))
    return added


def _symbols_in(exprs: list) -> set[Symbol]:
    """The symbols of the expressions (each shared sub-expression walked
    once), but constants: their values never change (and a default
    turned from ``y`` to ``n`` is then no new link for the order)."""
    found: set[Symbol] = set()
    seen: set[int] = set()
    stack = exprs
    while stack:
        e = stack.pop()
        if e is None:
            continue
        if e.__class__ is tuple:
            key = id(e)
            if key not in seen:
                seen.add(key)
                stack.extend(e[1:])
        elif isinstance(e, Symbol) and not e.is_const:
            found.add(e)
    return found
