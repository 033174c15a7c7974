"""The C tool's rewrites of dependency expressions (expr.c), as its
``menu_finalize`` applies them to every dependency and condition.

They never change a value, but they decide what the C tool prints of a
dependency (unmet-dependency warnings, help) and which entries form the
automatic sub-menus, so they are followed step by step:

* :func:`transform` (``expr_transform``): comparisons of bool symbols with
  constants become the symbol or its negation, negations are pushed inside;
* :func:`eliminate_dups` (``expr_eliminate_dups``): operands of an ``&&``
  (``||``) chain that repeat or that join into one (``A && A=y`` is
  ``A=y``) are merged, the emptied places dropped (``expr_eliminate_yn``);
* :func:`eliminate_eq` (``expr_eliminate_eq``): operands common to two
  expressions removed from both; :func:`trans_compare`
  (``expr_trans_compare``).

The C code edits expressions in place, and which operand survives a merge
depends on the order it visits them in.  So the work is done on a mutable
copy (:class:`_Node`) whose leaves are edited in place like the C tool's
slots, and the result is turned back into the engine's tuples.  Linux 6.11
rewrote the duplicate elimination (each side first, then the pairs across
``&&``/``||``); ``recursive=True`` selects that order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import AND, BOOL, COMPARISONS, EQUAL, GEQ, GTH, LEQ, LTH, NOT, OR, TRISTATE, UNEQUAL, Expr
from .symbols import SYM_M as sym_m
from .symbols import SYM_N as sym_n
from .symbols import SYM_Y as sym_y

if TYPE_CHECKING:
    from .symbols import Symbol

#: The node kind of a plain symbol (``E_SYMBOL``); the others are expr.py's.
SYMBOL = 0

_NEGATED = {EQUAL: UNEQUAL, UNEQUAL: EQUAL, LTH: GEQ, GEQ: LTH, LEQ: GTH, GTH: LEQ}


# -- expr_transform --------------------------------------------------------------


def transform(e: Expr, forced_tests: list | None = None, right_first: bool = False) -> Expr:
    """``expr_transform``: operands first, then the node.  For a bool
    ``A``: ``A=y`` and ``A!=n`` are ``A``, ``A=n`` and ``A!=y`` are ``!A``;
    ``A=m`` can never hold and becomes ``n`` (``A!=m``: ``y``), which the C
    tool reports on stdout (``(A, forced)`` is appended to ``forced_tests``).  A negation is pushed
    inside: of a negation, of a comparison (the opposite comparison), of
    ``&&``/``||`` (De Morgan), of a constant.  ``right_first``: the right
    operand of ``&&``/``||`` is rewritten, and reported, first (6.11+)."""
    if e is None or e.__class__ is not tuple:
        return e
    op = e[0]
    if op == EQUAL or op == UNEQUAL:
        left, right = e[1], e[2]
        if left.type != BOOL:
            return e
        if right is sym_n:
            return left if op == UNEQUAL else (NOT, left)
        if right is sym_y:
            return left if op == EQUAL else (NOT, left)
        if right is sym_m:
            forced = sym_n if op == EQUAL else sym_y
            if forced_tests is not None:
                forced_tests.append((left, forced.name))
            return forced
        return e
    if op in COMPARISONS:
        return e
    if op == AND or op == OR:
        if right_first:
            right = transform(e[2], forced_tests, True)
            return (op, transform(e[1], forced_tests, True), right)
        return (op, transform(e[1], forced_tests), transform(e[2], forced_tests))
    inner = transform(e[1], forced_tests, right_first)
    if inner.__class__ is not tuple:
        if inner is sym_y:
            return sym_n
        if inner is sym_n:
            return sym_y
        return sym_m if inner is sym_m else (NOT, inner)
    inner_op = inner[0]
    if inner_op == NOT:
        return inner[1]
    if inner_op in _NEGATED:
        return (_NEGATED[inner_op], inner[1], inner[2])
    other = OR if inner_op == AND else AND
    return transform((other, (NOT, inner[1]), (NOT, inner[2])), forced_tests, right_first)


def trans_compare(e: Expr, op: int, sym: Symbol) -> Expr:
    """``expr_trans_compare(e, op, sym)`` for ``sym`` ``y`` or ``n``: an
    expression that holds when ``e`` compares so with ``sym``, pushed down
    to the leaves (no condition counts as ``sym`` itself)."""
    if e is None:
        return (NOT, sym) if op == UNEQUAL else sym
    if e.__class__ is not tuple:
        return (op, e, sym)
    kind = e[0]
    if kind == AND or kind == OR:
        left = trans_compare(e[1], EQUAL, sym)
        right = trans_compare(e[2], EQUAL, sym)
        joined = e
        if sym is sym_y:
            joined = (kind, left, right)
        elif sym is sym_n:
            joined = (OR if kind == AND else AND, left, right)
        return (NOT, joined) if op == UNEQUAL else joined
    if kind == NOT:
        return trans_compare(e[1], UNEQUAL if op == EQUAL else EQUAL, sym)
    # A comparison.
    if sym is sym_m:
        return sym_n if op == EQUAL else sym_y
    holds = (sym is sym_y) == (op == EQUAL)
    return e if holds else (NOT, e)


# -- the mutable form -------------------------------------------------------------


class _Node:
    """One expression node the C way: ``op`` (SYMBOL, NOT, AND, OR or a
    comparison) with ``a``/``b`` (sub-nodes, or symbols for SYMBOL and the
    comparisons).  Rewrites replace a node's contents, as the C tool
    replaces what a slot points to."""

    __slots__ = ("op", "a", "b")

    def __init__(self, op: int, a, b=None):
        self.op = op
        self.a = a
        self.b = b

    def set(self, other: _Node) -> None:
        self.op, self.a, self.b = other.op, other.a, other.b

    def is_const(self, sym: Symbol) -> bool:
        return self.op == SYMBOL and self.a is sym


def _node(e: Expr) -> _Node:
    if e.__class__ is not tuple:
        return _Node(SYMBOL, e)
    op = e[0]
    if op == NOT:
        return _Node(NOT, _node(e[1]))
    if op == AND or op == OR:
        return _Node(op, _node(e[1]), _node(e[2]))
    return _Node(op, e[1], e[2])


def _copy(n: _Node) -> _Node:
    if n.op == NOT:
        return _Node(NOT, _copy(n.a))
    if n.op == AND or n.op == OR:
        return _Node(n.op, _copy(n.a), _copy(n.b))
    return _Node(n.op, n.a, n.b)


def _expr(n: _Node) -> Expr:
    if n.op == SYMBOL:
        return n.a
    if n.op == NOT:
        return (NOT, _expr(n.a))
    if n.op == AND or n.op == OR:
        return (n.op, _expr(n.a), _expr(n.b))
    return (n.op, n.a, n.b)


def _is_yes(n: _Node | None) -> bool:
    return n is None or n.is_const(sym_y)


# -- expr_eliminate_yn, expr_eq, expr_eliminate_eq ---------------------------------


def _eliminate_yn(n: _Node) -> _Node:
    """``A && n`` is ``n``, ``A && y`` is ``A``, ``A || n`` is ``A``,
    ``A || y`` is ``y``, from the leaves up; ``n`` is edited in place."""
    if n.op != AND and n.op != OR:
        return n
    left = _eliminate_yn(n.a)
    right = _eliminate_yn(n.b)
    absorbing, neutral = (sym_n, sym_y) if n.op == AND else (sym_y, sym_n)
    for this, other in ((left, right), (right, left)):
        if this.op == SYMBOL:
            if this.a is absorbing:
                n.set(_Node(SYMBOL, absorbing))
                return n
            if this.a is neutral:
                n.set(other)
                return n
    return n


def _eq(e1: _Node | None, e2: _Node | None) -> bool:
    """``expr_eq``: equal leaves, or ``&&``/``||`` expressions whose operands
    cancel out against each other."""
    if e1 is None or e2 is None:
        return _is_yes(e1) and _is_yes(e2)
    if e1.op != e2.op:
        return False
    if e1.op == SYMBOL:
        return e1.a is e2.a
    if e1.op == NOT:
        return _eq(e1.a, e2.a)
    if e1.op == AND or e1.op == OR:
        c1, c2 = _copy(e1), _copy(e2)
        c1, c2 = _eliminate_eq_nodes(c1, c2)
        return c1.op == SYMBOL and c2.op == SYMBOL and c1.a is c2.a
    return e1.a is e2.a and e1.b is e2.b


def _eliminate_eq_walk(kind: int, e1: _Node, e2: _Node) -> None:
    if e1.op == kind:
        _eliminate_eq_walk(kind, e1.a, e2)
        _eliminate_eq_walk(kind, e1.b, e2)
        return
    if e2.op == kind:
        _eliminate_eq_walk(kind, e1, e2.a)
        _eliminate_eq_walk(kind, e1, e2.b)
        return
    if e1.op == SYMBOL and e2.op == SYMBOL and e1.a is e2.a and (e1.a is sym_y or e1.a is sym_n):
        return
    if not _eq(e1, e2):
        return
    filler = sym_n if kind == OR else sym_y
    e1.set(_Node(SYMBOL, filler))
    e2.set(_Node(SYMBOL, filler))


def _eliminate_eq_nodes(e1: _Node, e2: _Node) -> tuple[_Node, _Node]:
    if e1.op == AND or e1.op == OR:
        _eliminate_eq_walk(e1.op, e1, e2)
    if e1.op != e2.op and (e2.op == AND or e2.op == OR):
        _eliminate_eq_walk(e2.op, e1, e2)
    return _eliminate_yn(e1), _eliminate_yn(e2)


def eliminate_eq(e1: Expr, e2: Expr) -> tuple[Expr, Expr]:
    """``expr_eliminate_eq``: ``e1`` and ``e2`` without the operands they
    share at the top level of their ``&&``/``||`` chains."""
    if e1 is None or e2 is None:
        return e1, e2
    n1, n2 = _eliminate_eq_nodes(_node(e1), _node(e2))
    return _expr(n1), _expr(n2)


def equal(e1: Expr, e2: Expr) -> bool:
    """``expr_eq``: the same leaves, or chains whose operands cancel."""
    return _eq(None if e1 is None else _node(e1), None if e2 is None else _node(e2))


def is_yes(e: Expr) -> bool:
    """``expr_is_yes``: no condition, or the constant ``y``."""
    return e is None or e is sym_y


# -- expr_join_or / expr_join_and -----------------------------------------------------


def _subjects(e1: _Node, e2: _Node) -> Symbol | None:
    """The symbol both operands test, when the join rules apply to them:
    each a symbol, a comparison or a negation of one (the second only of a
    symbol), about the same bool or tristate symbol."""
    simple = (SYMBOL, EQUAL, UNEQUAL, NOT)
    if e1.op not in simple or e2.op not in simple:
        return None
    if e1.op == NOT:
        if e1.a.op not in (EQUAL, UNEQUAL, SYMBOL):
            return None
        sym1 = e1.a.a
    else:
        sym1 = e1.a
    if e2.op == NOT:
        if e2.a.op != SYMBOL:
            return None
        sym2 = e2.a.a
    else:
        sym2 = e2.a
    if sym1 is not sym2 or sym1.type not in (BOOL, TRISTATE):
        return None
    return sym1


def _join(kind: int, e1: _Node, e2: _Node) -> _Node | None:
    """``expr_join_or``/``expr_join_and``: ``e1 || e2`` (``&&``) as one
    operand, when the C tool knows one: a copy of equal operands, or a rule
    for two tests of the same bool or tristate symbol."""
    if _eq(e1, e2):
        return _copy(e1)
    sym = _subjects(e1, e2)
    if sym is None:
        return None
    return _join_or(sym, e1, e2) if kind == OR else _join_and(sym, e1, e2)


def _join_or(sym: Symbol, e1: _Node, e2: _Node) -> _Node | None:
    if sym.type == TRISTATE and e1.op == EQUAL and e2.op == EQUAL:
        # a=y || a=m is a!=n; a=y || a=n is a!=m; a=m || a=n is a!=y.
        tested = {e1.b, e2.b}
        missing = [c for c in (sym_n, sym_m, sym_y) if c not in tested]
        if len(missing) == 1 and len(tested) == 2:
            return _Node(UNEQUAL, sym, missing[0])
    if sym.type == BOOL:
        if (e1.op == NOT and e1.a.op == SYMBOL and e2.op == SYMBOL) or (
                e2.op == NOT and e2.a.op == SYMBOL and e1.op == SYMBOL):
            return _Node(SYMBOL, sym_y)
    return None


def _join_and(sym: Symbol, e1: _Node, e2: _Node) -> _Node | None:

    def plain_and(op: int, const: Symbol) -> bool:
        return (e1.op == SYMBOL and e2.op == op and e2.b is const) or (
            e2.op == SYMBOL and e1.op == op and e1.b is const)

    if plain_and(EQUAL, sym_y):  # a && a=y: a=y
        return _Node(EQUAL, sym, sym_y)
    if plain_and(UNEQUAL, sym_n):  # a && a!=n: a
        return _Node(SYMBOL, sym)
    if plain_and(UNEQUAL, sym_m):  # a && a!=m: a=y
        return _Node(EQUAL, sym, sym_y)
    if sym.type == TRISTATE:
        if e1.op == EQUAL and e2.op == UNEQUAL or e1.op == UNEQUAL and e2.op == EQUAL:
            # a=b && a!=c: n when b is c, else a=b (constants only).
            equal, unequal = (e1, e2) if e1.op == EQUAL else (e2, e1)
            if unequal.b.is_const and equal.b.is_const:
                return _Node(EQUAL, sym, equal.b) if equal.b is not unequal.b else _Node(SYMBOL, sym_n)
        if e1.op == UNEQUAL and e2.op == UNEQUAL:
            # a!=y && a!=n is a=m; a!=y && a!=m is a=n; a!=m && a!=n is a=y.
            excluded = {e1.b, e2.b}
            left = [c for c in (sym_n, sym_m, sym_y) if c not in excluded]
            if len(left) == 1 and len(excluded) == 2:
                return _Node(EQUAL, sym, left[0])
    return None


# -- expr_eliminate_dups --------------------------------------------------------------


class _Count:
    """``trans_count``: merges done in one pass."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


def _merge(kind: int, e1: _Node, e2: _Node, count: _Count) -> None:
    """Merge two leaves of a ``kind`` chain: the first place is emptied (n
    for ``||``, y for ``&&``), the second holds the join."""
    joined = _join(kind, e1, e2)
    if joined is None:
        return
    e1.set(_Node(SYMBOL, sym_n if kind == OR else sym_y))
    e2.set(joined)
    count.n += 1


def _merge_pairs(kind: int, e1: _Node, e2: _Node, count: _Count, whole_chain: bool) -> None:
    """Merge every leaf of ``e1``'s ``kind`` chain with every leaf of
    ``e2``'s, in the C tool's order (each first leaf with all second ones).
    ``whole_chain`` (6.1, called with the same chain twice): a leaf is not
    paired with itself, and a nested chain of the other operator is cleaned
    on its own first, before each of its pairings.  A merge only edits
    leaves, and never into a ``kind`` chain, so the leaves are listed once."""
    firsts = _chain_leaves(kind, e1)
    seconds = firsts if e2 is e1 else _chain_leaves(kind, e2)
    for a in firsts:
        for b in seconds:
            if whole_chain:
                if a is b:
                    continue
                if a.op == AND or a.op == OR:
                    _merge_pairs(a.op, a, a, count, True)
            subject = _subject(a)
            if subject is not None and subject is not _subject(b) and _subject(b) is not None:
                continue  # tests of two different symbols never join
            _merge(kind, a, b, count)


def _subject(n: _Node):
    """The symbol a leaf tests (itself, or under one negation), or None
    for a chain: leaves about different symbols are neither equal nor
    joined by a rule."""
    if n.op == NOT:
        n = n.a
    return None if n.op == AND or n.op == OR or n.op == NOT else n.a


def _chain_leaves(kind: int, n: _Node) -> list[_Node]:
    """The operands of ``n``'s ``kind`` chain, left to right."""
    if n.op != kind:
        return [n]
    leaves: list[_Node] = []
    stack = [n]
    while stack:
        x = stack.pop()
        if x.op == kind:
            stack.append(x.b)
            stack.append(x.a)
        else:
            leaves.append(x)
    return leaves


def _eliminate_dups_6_11(n: _Node) -> _Node:
    while True:
        count = _Count()
        if n.op == AND or n.op == OR:
            left = _eliminate_dups_6_11(n.a)
            right = _eliminate_dups_6_11(n.b)
            _merge_pairs(n.op, left, right, count, False)
            n = _Node(n.op, left, right)
        n = _eliminate_yn(n)
        if not count.n:
            return n


def eliminate_dups(e: Expr, recursive: bool = False) -> Expr:
    """``expr_eliminate_dups``: merge the operands of ``&&``/``||`` chains
    that repeat or join into one, until nothing changes (``recursive``:
    6.11+'s order)."""
    if e is None or e.__class__ is not tuple or (e[0] != AND and e[0] != OR):
        return e
    if not _may_merge(e):
        return e
    n = _node(e)
    if recursive:
        return _expr(_eliminate_dups_6_11(n))
    while True:
        count = _Count()
        if n.op == AND or n.op == OR:
            _merge_pairs(n.op, n, n, count, True)
        if not count.n:
            return _expr(n)
        n = _eliminate_yn(n)


def _may_merge(e: tuple) -> bool:
    """False when no two leaves of ``e``'s chains can merge (the common
    case: distinct leaves about distinct symbols), to skip the copy."""
    seen: set = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if x.__class__ is tuple:
            op = x[0]
            if op == AND or op == OR:
                stack.append(x[1])
                stack.append(x[2])
                continue
            if op == NOT:
                inner = x[1]
                if inner.__class__ is tuple and inner[0] in (AND, OR):
                    return True
                x = inner[1] if inner.__class__ is tuple else inner
            else:
                x = x[1]
        if x in seen or getattr(x, "is_const", False):
            return True
        seen.add(x)
    return False
