"""The order in which a tree's values can be computed: each part of the
dependency graph after every part it reads.

After an edit, :mod:`.revalue` computes again only the symbols whose
inputs really changed value: a symbol whose inputs all kept theirs keeps
its own, and nothing depending on it alone is computed again.  That needs
every input decided before the symbols reading it, which is this order.

The graph (symbol -> the symbols whose value reads it) has loops.  A
choice and its entries read each other: such a group is one unit, computed
together.  Any other loop (a recursive dependency, which the C tool
reports) makes values depend on the order the C tool happens to compute
them in; where an edit reaches one, the caller computes everything the
edit reaches in the C tool's own order instead (:attr:`loops`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .symbols import Symbol


class DependencyOrder:
    """The strongly connected parts of the dependency graph, inputs first.

    ``dependents`` maps a symbol to the symbols reading it; ``hash_order``
    is every symbol in the C tool's order (the order within a unit)."""

    def __init__(self, dependents: dict[Symbol, set[Symbol]], hash_order: list[Symbol]):
        parts = _strongly_connected(hash_order, dependents)
        parts.reverse()  # (found dependents first)
        position = {sym: n for n, sym in enumerate(hash_order)}
        #: symbol -> the index of its unit in :attr:`units`.
        self.rank: dict[Symbol, int] = {}
        #: Each unit's symbols in the C tool's order, inputs' units first.
        self.units: list[list[Symbol]] = []
        #: Units that are loops other than a choice group.
        self.loops: set[int] = set()
        for rank, part in enumerate(parts):
            part.sort(key=position.__getitem__)
            self.units.append(part)
            for sym in part:
                self.rank[sym] = rank
            # (A symbol reading itself reads its value as reset: one entry
            # into the loop, whatever the order.)
            if len(part) > 1 and not _choice_group(part):
                self.loops.add(rank)

    def keeps(self, edges: Iterable[tuple[Symbol, Symbol]]) -> bool:
        """Whether the order still holds with ``edges`` (input, reader)
        added to the graph: each input in an earlier unit or the same."""
        rank = self.rank
        for used, reader in edges:
            a, b = rank.get(used), rank.get(reader)
            if a is None or b is None or a > b:
                return False
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
