"""Kconfig expressions: representation, tristate evaluation and printing.

An expression is either a :class:`~kconfig_ls.kconfig.symbols.Symbol` or a
small tuple ``(op, a, b)`` / ``(NOT, a)``.  ``None`` stands for "no
condition", which evaluates to ``y`` (as a NULL ``struct expr *`` in the C
tool).  Comparisons hold two symbols (constants are symbols too).

Tristate values are the ints ``N=0``, ``M=1``, ``Y=2``, so ``and`` is
``min``, ``or`` is ``max`` and ``not`` is ``2 - x``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from .symbols import Symbol

N, M, Y = 0, 1, 2
TRI_STR = ("n", "m", "y")

AND, OR, NOT, EQUAL, UNEQUAL, LTH, LEQ, GTH, GEQ = range(1, 10)
COMPARISONS = frozenset({EQUAL, UNEQUAL, LTH, LEQ, GTH, GEQ})
OP_TEXT = {AND: "&&", OR: "||", EQUAL: "=", UNEQUAL: "!=", LTH: "<", LEQ: "<=", GTH: ">", GEQ: ">="}
TEXT_OP = {v: k for k, v in OP_TEXT.items()}

Expr = Union["Symbol", tuple, None]

# Symbol types.
UNKNOWN, BOOL, TRISTATE, INT, HEX, STRING = range(6)
TYPE_NAMES = ("unknown", "bool", "tristate", "int", "hex", "string")
#: The C tool's names in its messages and help (``sym_type_name``).
C_TYPE_NAMES = ("unknown", "bool", "tristate", "integer", "hex", "string")


def and_expr(a: Expr, b: Expr) -> Expr:
    """``a && b`` where ``None`` (yes) is the identity."""
    if a is None:
        return b
    if b is None:
        return a
    return (AND, a, b)


_NEGATED = {EQUAL: UNEQUAL, UNEQUAL: EQUAL, LTH: GEQ, GEQ: LTH, LEQ: GTH, GTH: LEQ}


def is_n(e: Expr) -> Expr:
    """An expression that is y exactly when ``e`` is n (else n), pushed
    down to comparisons of symbols as ``expr_trans_compare(e, E_EQUAL, n)``
    does: ``A && B`` is n when either is, ``A || B`` when both are, ``!A``
    when A is y, and a comparison (y or n) when it fails."""
    from .symbols import SYM_N

    if e.__class__ is not tuple:
        return (EQUAL, e, SYM_N)
    op = e[0]
    if op == AND:
        return (OR, is_n(e[1]), is_n(e[2]))
    if op == OR:
        return (AND, is_n(e[1]), is_n(e[2]))
    if op == NOT:
        return is_y(e[1])
    return (_NEGATED[op], e[1], e[2])


def is_y(e: Expr) -> Expr:
    """An expression that is y exactly when ``e`` is y (the dual of is_n)."""
    from .symbols import SYM_Y

    if e.__class__ is not tuple:
        return (EQUAL, e, SYM_Y)
    op = e[0]
    if op == AND or op == OR:
        return (op, is_y(e[1]), is_y(e[2]))
    if op == NOT:
        return is_n(e[1])
    return e


def or_expr(a: Expr, b: Expr) -> Expr:
    """``a || b`` where ``None`` means "nothing yet" (for reverse deps)."""
    if a is None:
        return b
    if b is None:
        return a
    return (OR, a, b)


def eval_expr(e: Any) -> int:
    """The tristate value of ``e`` under the current symbol values."""
    if e is None:
        return Y
    if e.__class__ is not tuple:
        return e.curr_tri if e.valid else e.tri_value()
    op = e[0]
    if op == AND or op == OR:
        # Half of all operands are symbols: read here, not through a call
        # (the hot loop of every reading; left before right, as in C).
        a = e[1]
        if a.__class__ is tuple:
            a = eval_expr(a)
        else:
            a = a.curr_tri if a.valid else a.tri_value()
        b = e[2]
        if b.__class__ is tuple:
            b = eval_expr(b)
        else:
            b = b.curr_tri if b.valid else b.tri_value()
        if op == AND:
            return a if a < b else b
        return a if a > b else b
    if op == NOT:
        return 2 - eval_expr(e[1])
    return _eval_comparison(op, e[1], e[2])


def _eval_comparison(op: int, left: Symbol, right: Symbol) -> int:
    left.calc_value()
    right.calc_value()
    s1 = left.str_value()
    s2 = right.str_value()
    k1 = k2 = None
    if left.type != STRING or right.type != STRING:
        k1 = parse_number_for_type(s1, left.type)
        k2 = parse_number_for_type(s2, right.type)
    if k1 is None or k2 is None:
        res = _strcmp(s1, s2)
    else:
        (v1, unsigned1), (v2, unsigned2) = k1, k2
        if unsigned1 or unsigned2:
            v1 &= 0xFFFFFFFFFFFFFFFF
            v2 &= 0xFFFFFFFFFFFFFFFF
        res = (v1 > v2) - (v1 < v2)
    if op == EQUAL:
        return Y if res == 0 else N
    if op == UNEQUAL:
        return Y if res != 0 else N
    if op == LTH:
        return Y if res < 0 else N
    if op == LEQ:
        return Y if res <= 0 else N
    if op == GTH:
        return Y if res > 0 else N
    return Y if res >= 0 else N


def _strcmp(s1: str, s2: str) -> int:
    """C ``strcmp`` sign: byte order, which differs from code point order
    only for non-ASCII text."""
    if s1 == s2:
        return 0
    if not (s1.isascii() and s2.isascii()):
        b1, b2 = s1.encode("utf-8", "surrogateescape"), s2.encode("utf-8", "surrogateescape")
        return (b1 > b2) - (b1 < b2)
    return 1 if s1 > s2 else -1


_HEXDIGITS = frozenset("0123456789abcdefABCDEF")


def strtoll(s: str, base: int) -> tuple[int, int, bool]:
    """C ``strtoll``/``strtoull`` prefix parse: (value, end offset, overflow).

    Handles leading white space, a sign, the ``0x`` prefix for base 16 and 0,
    and octal for base 0.  ``end`` is 0 when no digits were read.  The value
    is clamped to the signed 64-bit range when ``overflow`` is set.
    """
    n = len(s)
    i = 0
    while i < n and s[i] in " \t\n\v\f\r":
        i += 1
    neg = False
    if i < n and s[i] in "+-":
        neg = s[i] == "-"
        i += 1
    if base in (0, 16) and s[i : i + 2] in ("0x", "0X") and i + 2 < n and s[i + 2] in _HEXDIGITS:
        i += 2
        base = 16
    elif base == 0:
        base = 8 if s[i : i + 1] == "0" else 10
    start = i
    value = 0
    while i < n:
        d = _digit_value(s[i])
        if d is None or d >= base:
            break
        value = value * base + d
        i += 1
    if i == start:
        return 0, 0, False
    if neg:
        value = -value
    overflow = not (-(1 << 63) <= value < (1 << 63))
    return value, i, overflow


def _digit_value(c: str) -> int | None:
    if "0" <= c <= "9":
        return ord(c) - 48
    if "a" <= c <= "z":
        return ord(c) - 87
    if "A" <= c <= "Z":
        return ord(c) - 55
    return None


def parse_number_for_type(s: str, typ: int) -> tuple[int, bool] | None:
    """How the C tool reads a value for a comparison: (number, unsigned) or
    ``None`` when it compares as a string (expr.c ``expr_parse_string``)."""
    if typ in (BOOL, TRISTATE):
        return {"n": 0, "m": 1, "y": 2}.get(s, -1), False
    if typ == INT:
        value, end, overflow = strtoll(s, 10)
        unsigned = False
    elif typ == HEX:
        value, end, overflow = _strtoull(s, 16)
        unsigned = True
    else:
        value, end, overflow = strtoll(s, 0)
        unsigned = False
    if overflow or end == 0 or end != len(s) or s[end - 1] not in _HEXDIGITS:
        return None
    return value, unsigned


def _strtoull(s: str, base: int) -> tuple[int, int, bool]:
    value, end, _ = strtoll(s, base)
    magnitude = -value if value < 0 else value
    overflow = magnitude >= (1 << 64)
    return value & 0xFFFFFFFFFFFFFFFF, end, overflow


def c_strtoll_value(s: str, base: int) -> int:
    """``strtoll(s, NULL, base)`` as the C tool uses it for ranges."""
    value, _end, overflow = strtoll(s, base)
    if overflow:
        return (1 << 63) - 1 if value > 0 else -(1 << 63)
    return value


# -- structure queries ---------------------------------------------------------


def expr_symbols(e: Expr) -> list:
    """Every symbol in ``e``, left to right (with repeats).  Walked with a
    stack: a reverse dependency is a chain of hundreds of ``||``."""
    found: list = []
    stack = [e]
    while stack:
        e = stack.pop()
        if e is None:
            continue
        if e.__class__ is not tuple:
            found.append(e)
        elif len(e) == 3:
            stack.append(e[2])
            stack.append(e[1])
        else:
            stack.append(e[1])
    return found


def and_terms(e: Expr) -> list:
    """The operands of a chain of ``&&`` (``[]`` for no condition)."""
    if e is None:
        return []
    if e.__class__ is tuple and e[0] == AND:
        return and_terms(e[1]) + and_terms(e[2])
    return [e]


def contains_symbol(e: Expr, sym: Symbol) -> bool:
    """Whether ``sym`` occurs in ``e`` (walked with a stack, as
    :func:`expr_symbols`, but stopping at the first)."""
    stack = [e]
    pop, push = stack.pop, stack.append
    while stack:
        e = pop()
        if e.__class__ is not tuple:
            if e is sym:
                return True
        elif len(e) == 3:
            push(e[2])
            push(e[1])
        else:
            push(e[1])
    return False


def depends_on_symbol(e: Expr, sym: Symbol) -> bool:
    """True when ``e`` can only be true if ``sym`` is (menu.c's
    ``expr_depends_symbol``): ``sym``, ``sym=y``, ``sym=m``, ``sym!=n``, or
    an ``&&`` with one such operand."""
    if e is None:
        return False
    if e.__class__ is not tuple:
        return e is sym
    op = e[0]
    if op == AND:
        return depends_on_symbol(e[1], sym) or depends_on_symbol(e[2], sym)
    if op == EQUAL:
        return e[1] is sym and e[2].name in ("y", "m") and e[2].is_const
    if op == UNEQUAL:
        return e[1] is sym and e[2].name == "n" and e[2].is_const
    return False


# -- printing ------------------------------------------------------------------


def symbol_text(sym: Symbol) -> str:
    """A symbol as written in Kconfig: constants quoted, choices unnamed."""
    if sym.is_const and sym.name not in ("y", "m", "n"):
        return '"' + sym.name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return sym.name or "<choice>"
