"""Symbols and their values, with the C tool's exact semantics.

A :class:`Symbol` is a config symbol, a choice (``is_choice``), a constant
(``y``/``m``/``n`` and quoted strings) or a name that is only referenced.
Values are computed lazily and cached until the owning tree invalidates them
(:meth:`Kconfig.invalidate`), mirroring ``sym_calc_value`` in the kernel's
``scripts/kconfig/symbol.c`` including its quirks, because every written
``.config`` must match the C tool byte for byte.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .expr import (
    BOOL,
    HEX,
    INT,
    STRING,
    TRI_STR,
    TRISTATE,
    TYPE_NAMES,
    UNKNOWN,
    M,
    N,
    Y,
    c_strtoll_value,
    eval_expr,
)
from .member_choices import calc_choice, set_choice_value
from .menu import P_DEFAULT, P_IMPLY, P_RANGE, P_SELECT
from .slot_state import tuple_state

if TYPE_CHECKING:
    from .menu import MenuNode, Property
    from .tree import Kconfig


#: The empty sequence every symbol starts with (see ``Symbol.__init__``).
_NONE: Any = ()


def append_to(sym: Symbol, attr: str, item: Any) -> None:
    """Append ``item`` to one of the symbol's sequences (a list from the
    first item on; an empty one is the shared ``()``)."""
    seq = getattr(sym, attr)
    if seq:
        seq.append(item)
    else:
        setattr(sym, attr, [item])


@tuple_state
class Symbol:
    """One Kconfig symbol (or choice) and its evaluation state."""

    __slots__ = (
        # identity and definition
        "kc", "name", "type", "index", "is_const", "is_choice", "is_choice_value",
        "optional", "no_write", "transitional", "allnoconfig_y", "nodes", "props", "prompts",
        "defaults", "ranges", "selects", "implies", "dir_dep", "rev_dep",
        "implied", "choice", "choice_values", "members", "refs",
        # evaluation state (the C tool's flags and fields)
        "valid", "write", "need_set_choice_values", "curr_tri",
        "curr_val", "visible", "dir_dep_tri", "rev_dep_tri", "implied_tri",
        "has_user", "user_tri", "user_val", "selection", "user_selection",
    )  # fmt: skip

    def __init__(self, kc: Kconfig | None, name: str | None, index: int = 0):
        self.kc = kc
        self.name = name
        self.type = UNKNOWN
        self.index = index
        self.is_const = False
        self.is_choice = False
        self.is_choice_value = False
        self.optional = False
        self.no_write = False
        self.transitional = False
        #: ``option allnoconfig_y`` (4.x): allnoconfig sets it to y.
        self.allnoconfig_y = False
        # Empty sequences are the shared (): most symbols have few kinds of
        # properties, and ~10 empty lists per symbol were a tenth of a
        # loaded tree.  The parser makes a list at the first element.
        self.nodes: list[MenuNode] = _NONE
        self.props: list[Property] = _NONE
        self.prompts: list[Property] = _NONE
        self.defaults: list[Property] = _NONE
        self.ranges: list[Property] = _NONE
        self.selects: list[Property] = _NONE
        self.implies: list[Property] = _NONE
        self.dir_dep: Any = None
        self.rev_dep: Any = None
        self.implied: Any = None
        self.choice: Symbol | None = None
        #: A choice's members in menu order.
        self.choice_values: list[Symbol] = _NONE
        #: A choice's members in priority order (``member_choices``
        #: generations; reordered by user input, see member_choices.py).
        self.members: list[Symbol] = _NONE
        #: (file, start offset, end offset) of every reference in the tree.
        self.refs: list[tuple[str, int, int]] = _NONE
        self.valid = False
        self.write = False
        self.need_set_choice_values = False
        self.curr_tri = N
        self.curr_val: str | None = None
        self.visible = N
        self.dir_dep_tri = N
        self.rev_dep_tri = N
        self.implied_tri = N
        self.has_user = False
        self.user_tri = N
        self.user_val: str | None = None
        self.selection: Symbol | None = None
        self.user_selection: Symbol | None = None

    def reset_state(self) -> None:
        """Back to the state of a freshly parsed tree (no values, no user
        input), as a new run of the C tool would start."""
        self.valid = self.write = self.need_set_choice_values = False
        self.curr_tri = self.visible = N
        self.dir_dep_tri = self.rev_dep_tri = self.implied_tri = N
        self.curr_val = None
        self.has_user = False
        self.user_tri = N
        self.user_val = None
        self.selection = self.user_selection = None

    def __repr__(self) -> str:
        kind = "choice" if self.is_choice else "const" if self.is_const else "symbol"
        return f"<{kind} {self.name or '<choice>'} {TYPE_NAMES[self.type]}>"

    # -- public conveniences ---------------------------------------------------
    @property
    def type_name(self) -> str:
        return TYPE_NAMES[self.type]

    @property
    def str_value_now(self) -> str:
        """The value as the C tool prints it (computing it if needed)."""
        self.calc_value()
        return self.str_value()

    @property
    def value(self) -> str:
        """The current value as text: ``n``/``m``/``y`` or the string."""
        return self.str_value_now

    @property
    def tri(self) -> int:
        """The current tristate value (0, 1, 2)."""
        return self.tri_value()

    @property
    def user_value(self) -> str | None:
        """The value the user set (from a config file or set_value)."""
        if not self.has_user:
            return None
        if self.type in (BOOL, TRISTATE):
            return TRI_STR[self.user_tri]
        return self.user_val

    @property
    def visibility(self) -> int:
        """How visible the prompts are: 0 hidden, 1 up to m, 2 up to y."""
        self.calc_value()
        return self.visible

    @property
    def lower_bound(self) -> int:
        """The least value select statements allow."""
        self.calc_value()
        return self.rev_dep_tri

    @property
    def upper_bound(self) -> int:
        """The greatest value the prompts' visibility allows."""
        self.calc_value()
        return self.visible

    @property
    def assignable(self) -> tuple[int, ...]:
        """The tristate values a user could give this symbol now."""
        self.calc_value()
        if self.type not in (BOOL, TRISTATE) or self.visible == N:
            return ()
        values = tuple(v for v in (N, M, Y) if self.tristate_within_range(v))
        return values or (self.curr_tri,)

    @property
    def help(self) -> str | None:
        """The help text of the first definition that has one."""
        for node in self.nodes:
            if node.help is not None:
                return node.help
        return None

    @property
    def definitions(self) -> list[tuple[str, int]]:
        """(file, line) of every ``config``/``menuconfig``/``choice`` entry."""
        return [(node.file, node.line) for node in self.nodes]

    def set_value(self, value: str | int) -> bool:
        """Set a user value (``"y"``, ``2``, ``"0x10"``, ``"text"``); False
        when it is out of the symbol's current range, as in the C tool."""
        if isinstance(value, int) and self.type in (BOOL, TRISTATE):
            return self.set_tristate_value(value)
        return self.set_string_value(str(value))

    def index_properties(self) -> None:
        """Sort the properties by kind, for the evaluator."""
        props = self.props
        self.prompts = [p for p in props if p.text is not None] or _NONE
        self.defaults = [p for p in props if p.kind == P_DEFAULT] or _NONE
        self.ranges = [p for p in props if p.kind == P_RANGE] or _NONE
        self.selects = [p for p in props if p.kind == P_SELECT] or _NONE
        self.implies = [p for p in props if p.kind == P_IMPLY] or _NONE

    # -- value computation -----------------------------------------------------
    def get_type(self) -> int:
        """The effective type: tristate acts as bool without modules and,
        before member choices, for a choice value inside a ``y`` choice
        (``sym_get_type``)."""
        t = self.type
        if t == TRISTATE:
            if self.is_choice_value and self.visible == Y and not self.kc.gen.member_choices:
                return BOOL
            if self.kc.modules_val == N:
                return BOOL
        return t

    def tri_value(self) -> int:
        if not self.valid:
            self.calc_value()
        return self.curr_tri

    def str_value(self) -> str:
        """``sym_get_string_value``: the current value as text (no calc)."""
        if self.type == BOOL or self.type == TRISTATE:
            return TRI_STR[self.curr_tri]
        return self.curr_val if self.curr_val is not None else ""

    def calc_visibility(self) -> None:
        # A tristate choice value is hidden at m while its choice is y
        # (choices with a mode of their own only).
        choice = self.choice if self.is_choice_value and not self.kc.gen.member_choices else None
        vis = N
        # (The last prompt's condition and its value as evaluated.)
        cond = cond_value = None
        for prop in self.prompts:
            cond = prop.cond
            v = cond_value = eval_expr(cond)
            if choice is not None and self.type == TRISTATE and v == M and choice.curr_tri == Y:
                v = N
            prop.cond_tri = v
            if v > vis:
                vis = v
        if vis == M and (self.type != TRISTATE or self.kc.modules_val == N):
            vis = Y
        self.visible = vis
        if self.is_choice_value:
            return
        is_bool = self.get_type() == BOOL
        dir_dep = self.dir_dep
        if dir_dep is None:
            tri = Y
        elif dir_dep is cond:
            # Most prompts' condition is the dependency itself (the same
            # object): just evaluated, with every symbol it reads computed.
            tri = cond_value
        else:
            tri = eval_expr(dir_dep)
        if tri == M and is_bool:
            tri = Y
        self.dir_dep_tri = tri
        tri = N if self.rev_dep is None else eval_expr(self.rev_dep)
        if tri == M and is_bool:
            tri = Y
        self.rev_dep_tri = tri
        tri = N if self.implied is None else eval_expr(self.implied)
        if tri == M and is_bool:
            tri = Y
        self.implied_tri = tri

    def default_prop(self) -> Property | None:
        """The first ``default`` whose condition is not ``n``."""
        return _first_active(self.defaults)

    def range_prop(self) -> Property | None:
        """The first ``range`` whose condition is not ``n``."""
        return _first_active(self.ranges)

    def calc_value(self) -> None:  # noqa: C901 - one function, as in symbol.c
        if self.valid:
            return
        if self.is_choice_value and self.need_set_choice_values:
            self.need_set_choice_values = False
            self.choice.calc_value()
        self.valid = True
        gen = self.kc.gen
        t = self.type
        if t == BOOL or t == TRISTATE:
            new_tri, new_val = N, "n"
        elif t == INT or t == HEX or t == STRING:
            new_tri, new_val = N, ""
            if gen.numbers_default_to_zero and t != STRING:
                new_val = "0" if t == INT else "0x0"
        else:
            self.curr_val = self.name
            self.curr_tri = N
            return
        self.write = False
        self.calc_visibility()
        if self.visible != N:
            self.write = True
        # The value seen by recursive references while computing this one.
        self.curr_tri, self.curr_val, self.selection = new_tri, new_val, None

        # A transitional symbol takes its user value though it is hidden.
        usable = self.visible != N or self.transitional
        prop = None
        gt = self.get_type()
        if gt == BOOL or gt == TRISTATE:
            if gen.member_choices and self.choice is not None:
                calc_choice(self.choice)
                new_tri = self.curr_tri
            elif self.is_choice_value and self.visible == Y and not gen.member_choices:
                new_tri = Y if self.choice.selection is self else N
            else:
                if usable and self.has_user:
                    new_tri = self.user_tri if self.transitional else min(self.user_tri, self.visible)
                else:
                    if self.rev_dep_tri != N:
                        self.write = True
                    if not self.is_choice:
                        prop = self.default_prop()
                        if prop is not None:
                            new_tri = min(eval_expr(prop.expr), prop.cond_tri)
                            if new_tri != N:
                                self.write = True
                        if self.implied_tri != N:
                            self.write = True
                            new_tri = max(new_tri, self.implied_tri)
                            new_tri = min(new_tri, self.dir_dep_tri)
                if self.dir_dep_tri < self.rev_dep_tri:
                    self.kc.report_unmet_dependency(self)
                new_tri = max(new_tri, self.rev_dep_tri)
            if new_tri == M and self.get_type() == BOOL:
                new_tri = Y
        else:
            if usable and self.has_user:
                new_val = self.user_val
            else:
                prop = self.default_prop()
                if prop is not None:
                    ds = prop.expr
                    if ds.__class__ is not tuple:
                        self.write = True
                        ds.calc_value()
                        new_val = ds.curr_val if ds.curr_val is not None else ""

        if prop is not None and not self.has_user:
            ds = prop.expr
            if ds.__class__ is not tuple and ds.transitional and ds.has_user:
                # The value a transitional symbol passed on counts as the
                # user's (oldconfig does not ask for it again).
                self.user_tri, self.user_val, self.has_user = new_tri, new_val, True
        self.curr_tri, self.curr_val = new_tri, new_val
        if self.is_choice and new_tri == Y and not gen.member_choices:
            self.selection = self._calc_choice()
        self._validate_range()

        if self is self.kc.modules_sym:
            self.kc.modules_val = self.curr_tri

        if gen.member_choices:
            if self.is_choice:
                self.write = False
            return
        if self.is_choice:
            if self.write:
                for value in self.choice_values:
                    if value.visible != N:
                        value.write = True
        if self.no_write:
            self.write = False
        if self.need_set_choice_values:
            self.set_all_choice_values()

    def _validate_range(self) -> None:
        t = self.type
        if t != INT and t != HEX:
            return
        prop = self.range_prop()
        if prop is None:
            return
        base = 10 if t == INT else 16
        value = c_strtoll_value(self.curr_val or "", base)
        low, high = prop.expr
        if value >= low.range_value(base):
            if value <= high.range_value(base):
                return
            bound = high
        else:
            bound = low
        self.curr_val = bound.curr_val

    def range_value(self, base: int) -> int:
        """The number a ``range`` bound stands for (``sym_get_range_val``)."""
        self.calc_value()
        if self.type == INT:
            base = 10
        elif self.type == HEX:
            base = 16
        return c_strtoll_value(self.curr_val or "", base)

    # -- choices ---------------------------------------------------------------
    def choice_default(self) -> Symbol | None:
        """The value a choice takes without a user selection."""
        for prop in self.defaults:
            prop.cond_tri = eval_expr(prop.cond)
            if prop.cond_tri == N:
                continue
            target = prop.expr
            if target.visible != N:
                return target
        for value in self.choice_values:
            if value.visible != N:
                return value
        return None

    def _calc_choice(self) -> Symbol | None:
        all_user = self.has_user
        for value in self.choice_values:
            value.calc_visibility()
            if value.visible != N and not value.has_user:
                all_user = False
        self.has_user = all_user
        chosen = self.user_selection
        if chosen is not None and chosen.visible != N:
            return chosen
        chosen = self.choice_default()
        if chosen is None:
            self.curr_tri = N
        return chosen

    def set_all_choice_values(self) -> None:
        """Give every unset value of this choice an explicit ``n`` so the
        choice's own computation picks the selected one."""
        for value in self.choice_values:
            if not value.has_user:
                value.user_tri = N
        self.has_user = True
        self.valid = False
        self.need_set_choice_values = False

    # -- user values -------------------------------------------------------------
    def tristate_within_range(self, val: int) -> bool:
        gt = self.get_type()
        if self.visible == N:
            return False
        if gt != BOOL and gt != TRISTATE:
            return False
        if gt == BOOL and val == M:
            return False
        if self.visible <= self.rev_dep_tri:
            return False
        if self.is_choice_value and self.visible == Y and not self.kc.gen.member_choices:
            return val == Y
        return self.rev_dep_tri <= val <= self.visible

    def is_changeable(self) -> bool:
        if self.is_choice and self.kc.gen.member_choices:
            return False
        return self.visible > self.rev_dep_tri

    def string_valid(self, text: str) -> bool:
        """Whether ``text`` is a well-formed value for this symbol's type."""
        return string_valid_for_type(self.type, text)

    def string_within_range(self, text: str) -> bool:
        t = self.type
        if t == STRING:
            return True
        if t == INT or t == HEX:
            if not self.string_valid(text):
                return False
            prop = self.range_prop()
            if prop is None:
                return True
            base = 10 if t == INT else 16
            value = c_strtoll_value(text, base)
            low, high = prop.expr
            return low.range_value(base) <= value <= high.range_value(base)
        if t == BOOL or t == TRISTATE:
            first = text[:1].lower()
            if first in ("y", "m", "n"):
                return self.tristate_within_range({"n": N, "m": M, "y": Y}[first])
        return False

    def set_tristate_value(self, val: int) -> bool:
        """``sym_set_tristate_value``: record a user value if it is within
        the symbol's current range; invalidates every value on change."""
        self.calc_value()
        old = self.curr_tri
        if self.kc.gen.member_choices:
            if self.choice is not None and val == Y:
                if self.visible == N:
                    return False
                set_choice_value(self.choice, self)
                return True
            if not self.tristate_within_range(val):
                return False
            if not self.has_user or self.user_tri != val:
                self.user_tri = val
                self.has_user = True
            if old != val:
                self.kc.invalidate()
            return True
        if old != val and not self.tristate_within_range(val):
            return False
        self.has_user = True
        if self.is_choice_value and val == Y:
            choice = self.choice
            choice.user_selection = self
            choice.has_user = True
            for value in choice.choice_values:
                if value.visible != N:
                    value.has_user = True
        self.user_tri = val
        if old != val:
            self.kc.invalidate()
        return True

    def set_string_value(self, text: str) -> bool:
        """``sym_set_string_value``: set a value from its text form."""
        t = self.type
        if t == BOOL or t == TRISTATE:
            first = text[:1].lower()
            if first not in ("y", "m", "n"):
                return False
            return self.set_tristate_value({"n": N, "m": M, "y": Y}[first])
        self.calc_value()
        if not self.string_within_range(text):
            return False
        self.has_user = True
        if t == HEX and not text.lower().startswith("0x"):
            text = "0x" + text
        elif self.user_val == text:
            return True
        self.user_val = text
        self.kc.invalidate()
        return True


def _first_active(props: list[Property]) -> Property | None:
    """The first property whose condition is not ``n`` (recording each
    evaluated condition on the property, as the C tool does)."""
    for prop in props:
        prop.cond_tri = eval_expr(prop.cond)
        if prop.cond_tri != N:
            return prop
    return None


def string_valid_for_type(typ: int, text: str) -> bool:
    """``sym_string_valid``: is ``text`` a well-formed value of ``typ``?"""
    if typ == STRING:
        return True
    if typ == INT:
        s = text[1:] if text.startswith("-") else text
        if not s or not s[0].isdigit() or not s.isascii():
            return False
        if s[0] == "0" and len(s) > 1:
            return False
        return s.isdigit()
    if typ == HEX:
        s = text[2:] if text[:2] in ("0x", "0X") else text
        return bool(s) and s.isascii() and all(c in "0123456789abcdefABCDEF" for c in s)
    if typ == BOOL or typ == TRISTATE:
        return text[:1] in ("y", "Y", "m", "M", "n", "N")
    return False


def make_constant(name: str, tri: int = N, typ: int = UNKNOWN) -> Symbol:
    sym = Symbol(None, name)
    sym.is_const = True
    sym.type = typ
    sym.curr_tri = tri
    sym.curr_val = name
    return sym


class ConstTristate(Symbol):
    """``y``, ``m`` and ``n``: always valid, shared by every tree."""

    __slots__ = ()

    def calc_value(self) -> None:
        return

    def __reduce__(self):
        # Pickled by name: a tree read back must share the module's y/m/n.
        return (tristate_constant, (self.name,))


def _const_tristate(name: str, tri: int) -> ConstTristate:
    sym = ConstTristate(None, name)
    sym.is_const = True
    sym.type = TRISTATE
    sym.curr_tri = tri
    sym.curr_val = name
    sym.valid = True
    return sym


SYM_Y = _const_tristate("y", Y)
SYM_M = _const_tristate("m", M)
SYM_N = _const_tristate("n", N)


def tristate_constant(name: str) -> ConstTristate:
    """The shared constant ``y``, ``m`` or ``n``."""
    return {"y": SYM_Y, "m": SYM_M, "n": SYM_N}[name]
