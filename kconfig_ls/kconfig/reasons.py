"""Why a symbol has its value, as a tree of reasons that are each true.

:mod:`.explain` collects the properties that decide a value; this module
turns them into an *account*: a list of :class:`Reason` s, each a sentence
about one fact that holds now (``its prompt is hidden``, ``the selects that
could turn it on are off``), with the chain under it followed until it
reaches something the user can set, or a fact nobody can change from the
config: another architecture's symbol, a symbol no Kconfig file defines, a
value from the toolchain, a choice set to another member.  The same tree
gives the CLI text, the hover markdown and the JSON (:mod:`.explain_report`).

A sentence only states what this module checked: "nothing selects it" is
written only when no ``select`` of the symbol exists in the loaded tree;
otherwise the selects are named with their values and conditions.

The account follows ``sym_calc_value``: a bool/tristate takes the user's
value when its prompt is visible, else its first active default (raised by
``imply`` up to its dependencies); ``select`` raises either.  Strings and
numbers take the user's value when visible, else the first active default,
clamped into the first active range.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .explain_text import readable_expr
from .expr import (
    AND,
    BOOL,
    EQUAL,
    HEX,
    INT,
    NOT,
    OR,
    TRI_STR,
    TRISTATE,
    UNEQUAL,
    M,
    N,
    Y,
    and_terms,
    eval_expr,
    expr_symbols,
)

if TYPE_CHECKING:
    from .menu import Property
    from .symbols import Symbol
    from .tree import Kconfig

#: How many levels of "because" the full account follows below a
#: top-level reason (the hover shows fewer; ``kconfig.explain`` these).
CHAIN_DEPTH = 4
#: Symbols named in a folded list ("A, B, C and 14 more").
FOLD = 3
#: Selectors shown one per line before the rest is counted.
LISTED = 12

# Reason kinds (``Reason.kind``), so tests and clients can check claims.
# (_DECISIVE and _SECONDARY, below, use them for the summary.)
USER = "user"  # the user's value holds
USER_IGNORED = "user-ignored"  # set, but the prompt is hidden
USER_OVERRIDDEN = "user-overridden"  # set lower, a select raised it
USER_LIMITED = "user-limited"  # set higher, the prompt allows less
USER_CLAMPED = "user-clamped"  # outside the range
USER_REJECTED = "user-rejected"  # a config line the reader did not accept
UNSET = "unset"  # visible, not set: the default decides
HIDDEN = "hidden"  # the prompt is hidden by these terms
NO_PROMPT = "no-prompt"
NO_DEFAULT = "no-default"
DEFAULT = "default"  # this default applies
DEFAULTS_OFF = "defaults-off"  # every default's condition is n
SELECTED = "selected"  # these selects give the value
SELECTS_OFF = "selects-off"  # selects exist, all off
NOT_SELECTED = "not-selected"  # no select of it exists
IMPLIED = "implied"
IMPLIES_OFF = "implies-off"
IMPLY_BLOCKED = "imply-blocked"  # implied, but its dependencies are n
IMPLY_IGNORED = "imply-ignored"  # implied, but the user's value wins
CHOICE = "choice"  # about the choice a member belongs to
CHOICE_HIDDEN = "choice-hidden"
MODULES_OFF = "modules-off"  # m counts as y / m needs MODULES
RANGE = "range"
TERM = "term"  # an operand of a condition
SELECT_LINE = "select-line"  # one select/imply of the symbol, with its location
DEFAULT_LINE = "default-line"  # one default of the symbol, with its location
SYMBOL = "symbol"  # why an operand's symbol has its value
SETTABLE = "settable"  # the user can set it: a leaf
OTHER_ARCH = "other-arch"  # defined only where this arch does not look
UNDEFINED = "undefined"  # no Kconfig file defines it
TOOLCHAIN = "toolchain"  # its value comes from $(...) at parse time
SEEN = "seen"  # explained above on this chain
MORE = "more"  # the chain goes on: `kconfig-ls why NAME`

#: Reasons that decide a value by themselves (a hidden prompt, the user) ...
_DECISIVE = frozenset({HIDDEN, USER, USER_IGNORED, USER_LIMITED, USER_CLAMPED, CHOICE, CHOICE_HIDDEN})
#: Leaves nobody changes from the config file.
_FIXED = frozenset({TOOLCHAIN, OTHER_ARCH, UNDEFINED})
#: ... which make these only details in the summary.
_SECONDARY = frozenset({NO_DEFAULT, DEFAULTS_OFF, NOT_SELECTED, SELECTS_OFF, IMPLIES_OFF, IMPLY_BLOCKED})


@dataclass
class Reason:
    """One true statement about a value, and the reasons under it."""

    kind: str
    #: The sentence, plain text (no markdown).
    text: str
    #: A phrase for the one-sentence summary ("" if none).
    short: str = ""
    symbol: str | None = None
    value: str | None = None
    file: str | None = None
    line: int | None = None
    #: For a settable leaf: the value to set.
    set_to: str | None = None
    #: For an operand of a condition: the operand with its values
    #: (``PCI [=n]``, ``!64BIT [=y]``).
    term: str | None = None
    children: list[Reason] = field(default_factory=list)
    #: Symbols a folded sentence counted but did not name.
    folded: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Need:
    """What a condition needs of one symbol: at least ``level`` (``up``)
    or at most ``level`` (down), or a particular value (``exact``)."""

    direction: str  # "up", "down", "exact", "any"
    level: int = Y

    def met(self, sym: Symbol) -> bool:
        tri = sym.curr_tri
        if self.direction == "up":
            return tri >= self.level
        if self.direction == "down":
            return tri <= self.level
        if self.direction == "exact":
            return tri == self.level
        return True


Elsewhere = Mapping[str, list[tuple[str, int]]]


class Accountant:
    """Builds accounts for the symbols of one loaded tree, caching the
    one-line summaries it repeats (a selector named under many symbols).
    Values must not change while it is in use; make a new one after."""

    def __init__(
        self,
        kc: Kconfig,
        config_name: str | None = None,
        config_text: str | None = None,
        elsewhere: Elsewhere | Callable[[], Elsewhere] | None = None,
        depth: int = CHAIN_DEPTH,
    ):
        self.kc = kc
        self.config_name = config_name or "the configuration"
        self.config_text = config_text
        self._elsewhere = elsewhere
        self.depth = depth
        self._reverse: dict[tuple[str, Symbol], list[tuple[Symbol, Property]]] | None = None
        self._config_lines: dict[str, int] | None = None
        self._source_lines: dict[str, list[str]] = {}
        self._summaries: dict[int, str] = {}
        #: Symbols already explained in the account being built: a second
        #: mention points up instead of repeating the chain.
        self._explained: set[Symbol] = set()

    # -- public --------------------------------------------------------------
    def account(self, sym: Symbol) -> list[Reason]:
        """The top-level reasons for ``sym``'s value, each with its chain."""
        sym.calc_value()
        self._explained = {sym}
        try:
            return self._causes(sym, self.depth, (sym,))
        finally:
            self._explained = set()

    def summary(self, sym: Symbol, reasons: list[Reason] | None = None) -> str:
        """One sentence a person can act on: the value and its causes."""
        key = id(sym)
        if reasons is None and key in self._summaries:
            return self._summaries[key]
        sym.calc_value()
        if reasons is None:
            outer, self._explained = self._explained, {sym}
            try:
                reasons = self._causes(sym, 0, (sym,))
            finally:
                self._explained = outer
        if any(r.kind in _DECISIVE for r in reasons):
            # The prompt or the user decides: what a default or select
            # would have done is detail, not the cause.
            reasons = [r for r in reasons if r.kind not in _SECONDARY]
        shorts = _unique(r.short for r in reasons if r.short)
        value = _shown(sym.str_value())
        if sym.is_choice:
            text = _sentence(shorts) if shorts else "no member is selected"
        else:
            text = f"{value} because {_sentence(shorts)}" if shorts else f"{value}"
        self._summaries[key] = text
        return text

    # -- the causes of one value -------------------------------------------------
    def _causes(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        if sym.is_choice:
            return self._choice_causes(sym, depth, path)
        out = self._unused_line(sym, depth, path)
        if sym.type in (BOOL, TRISTATE):
            if sym.is_choice_value and sym.choice is not None and self._choice_decides(sym):
                out += self._member_causes(sym, depth, path)
            else:
                out += self._tristate_causes(sym, depth, path)
        else:
            out += self._value_causes(sym, depth, path)
        if any(r.kind == USER_IGNORED for r in out):
            # "not used: its prompt is hidden" already names the operands.
            out = [r for r in out if r.kind != HIDDEN]
        return out

    def _unused_line(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        """A config line assigns ``sym`` another value, but the reader kept
        none: the prompt is hidden (``conf_read`` forgets the values of
        hidden symbols), or the value is not valid for it (a number out of
        range, a malformed number)."""
        if sym.has_user or sym.is_choice:
            return []
        number = self._config_line(sym)
        if number is None:
            return []
        line = self.config_text.split("\n")[number - 1]
        value = "n" if line.endswith(" is not set") else line.split("=", 1)[1] if "=" in line else ""
        shown = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
        if shown == sym.str_value():
            return []
        if sym.visible == N and not sym.transitional:
            r = Reason(USER_IGNORED, f"{self.config_name}:{number} sets it to {value}, but its prompt is hidden, "
                       "so that line is not used", f"the {value} at {self.config_name}:{number} is not used: "
                       "its prompt is hidden", sym.name, value)
            r.children = self._hidden_terms(sym, Y, depth, path)
            if r.children:
                r.short += " because " + _needs_short(r.children)
            return [r]
        why = "it is not a valid value for this symbol"
        prop = sym.range_prop() if sym.type in (INT, HEX) else None
        if prop is not None:
            low, high = prop.expr
            why = f"it is outside the range {low.str_value_now}..{high.str_value_now} ({prop.file}:{prop.line})"
        return [Reason(USER_REJECTED, f"{self.config_name}:{number} sets it to {value}, which the reader rejected: "
                       f"{why}", f"your {value} was rejected ({why.split(' (')[0]})", sym.name, value)]

    def _tristate_causes(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        value = sym.curr_tri
        out: list[Reason] = []
        usable = sym.visible != N or sym.transitional
        user_in_effect = usable and sym.has_user
        where = self._config_where(sym)
        if sym.has_user and not usable and sym.user_tri != value:
            r = Reason(USER_IGNORED, f"you set it to {TRI_STR[sym.user_tri]}{where}, but its prompt is hidden, "
                       "so that value is not used",
                       f"your {TRI_STR[sym.user_tri]} is not used: its prompt is hidden",
                       sym.name, TRI_STR[sym.user_tri])
            r.children = self._hidden_terms(sym, max(sym.user_tri, M), depth, path)
            if r.children:
                r.short += " because " + _needs_short(r.children)
            out.append(r)
        if user_in_effect:
            out.extend(self._user_causes(sym, where, depth, path))
        else:
            out.extend(self._default_causes(sym, depth, path))
        out.extend(self._select_causes(sym, depth, path, user_in_effect))
        if value == Y and sym.has_user and sym.user_tri == M and self.kc.modules_val == N and sym.type == TRISTATE:
            out.append(Reason(MODULES_OFF, "m counts as y while MODULES is n", "m counts as y without MODULES",
                              "MODULES", "n"))
        return out

    def _user_causes(self, sym: Symbol, where: str, depth: int, path: tuple) -> list[Reason]:
        """The prompt is visible and the user set a value: it holds, is
        raised by a select or limited by the prompt's visibility."""
        user, value, name = sym.user_tri, sym.curr_tri, TRI_STR[sym.user_tri]
        if value == user or (value == Y and user == M and self.kc.modules_val == N):
            r = Reason(USER, f"you set it to {name}{where}", f"you set it to {name}{where}", sym.name, name)
            if value == N and sym.visible != N:
                r.set_to = _first_above(sym, N)
                if r.set_to:
                    r.text += f"; you can set it to {r.set_to}"
            return [r]
        if value > user:
            # Raised by select; _select_causes names the selectors.
            return [Reason(USER_OVERRIDDEN, f"you set it to {name}{where}, but a select raises it to "
                           f"{TRI_STR[value]}", "", sym.name, name)]
        r = Reason(USER_LIMITED, f"you set it to {name}{where}, but its prompt allows at most {TRI_STR[sym.visible]}",
                   f"you set it to {name}, but it is limited to {TRI_STR[sym.visible]}", sym.name, name)
        r.children = self._hidden_terms(sym, user, depth, path)
        if r.children:
            terms = _unique(_grouped(c.term) if c.term else c.short for c in r.children)
            r.short = (f"you set it to {name}, but {_sentence(terms)} limit{'s' if len(terms) == 1 else ''} it to "
                       f"{TRI_STR[sym.visible]}") + _settable_note(r.children)
        return [r]

    def _default_causes(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        """No user value in effect: the prompt (visible or not), the default
        that applies and the implies."""
        out: list[Reason] = []
        value = sym.curr_tri
        if sym.prompts:
            if sym.visible == N:
                out.append(self._hidden(sym, value == N, depth, path))
            elif value == N:
                set_to = _first_above(sym, N)
                out.append(Reason(UNSET, f"it is not set in {self.config_name}, so its default decides"
                                  + (f"; you can set it to {set_to}" if set_to else ""),
                                  f"it is not set in {self.config_name}" + ("" if not set_to else
                                                                             f" (you can set it to {set_to})"),
                                  sym.name, set_to=set_to))
        else:
            out.append(Reason(NO_PROMPT, "it has no prompt, so only a default, select or imply can give it a value",
                              "it has no prompt" if value == N else "", sym.name))
        out.extend(self._defaults(sym, depth, path))
        out.extend(self._implies(sym, depth, path))
        return out

    def _hidden(self, sym: Symbol, is_cause: bool, depth: int, path: tuple) -> Reason:
        """The prompt is hidden: the cause of an ``n``, or (``is_cause``
        False) why the user cannot change the value directly."""
        want = M if sym.type == TRISTATE and self.kc.modules_val == Y else Y
        children = self._hidden_terms(sym, want, depth, path)
        needs = " and ".join(_grouped(c.term) if c.term else c.text for c in children)
        if is_cause:
            text = "its prompt is hidden" + (f": it needs {needs}" if needs else "")
            short = _needs_short(children) or "its prompt is hidden"
        else:
            text = "its prompt is hidden, so you cannot set it yourself" + (f" (it needs {needs})" if needs else "")
            short = ""
        return Reason(HIDDEN, text, short, sym.name, children=children)

    def _defaults(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        value = sym.curr_tri
        applied = sym.default_prop()
        if not sym.defaults:
            return [Reason(NO_DEFAULT, "it has no default", "no default" if value == N else "", sym.name)]
        if applied is None:
            shown = sym.defaults[:LISTED]
            r = Reason(DEFAULTS_OFF, "no default applies: the condition of each is n",
                       "no default applies" if value == N else "", sym.name)
            for prop in shown:
                child = Reason(DEFAULT_LINE, f"default {readable_expr(prop.expr)} if {readable_expr(prop.cond)} "
                               f"({prop.file}:{prop.line})", "", None, "n", prop.file, prop.line)
                child.children = self._blocking_terms(prop.cond, Y, depth - 1, path)
                r.children.append(child)
            r.folded = [f"{p.file}:{p.line}" for p in sym.defaults[LISTED:]]
            return [r]
        gives = min(eval_expr(applied.expr), eval_expr(applied.cond))
        cond = f" if {readable_expr(applied.cond)}" if applied.cond is not None else ""
        expr_text = readable_expr(applied.expr)
        r = Reason(DEFAULT, f"its default {expr_text}{cond} applies ({applied.file}:{applied.line}) and gives "
                   f"{TRI_STR[gives]}", "", sym.name, TRI_STR[gives], applied.file, applied.line)
        macro = self._macro_line(applied)
        if macro is not None:
            source = _macro_source(macro)
            r.kind = TOOLCHAIN
            r.text = (f"its default comes from {source}: `{macro}` ({applied.file}:{applied.line}) "
                      f"gives {TRI_STR[gives]}" + self._toolchain_note(macro))
            r.short = f"{source} gives {TRI_STR[gives]} (`{_clip(macro, 60)}`)"
            return [r]
        if gives == value and value != N:
            r.short = f"its default {expr_text} applies ({applied.file}:{applied.line})"
        elif gives == N and value == N:
            r.short = f"its default is {expr_text}" if expr_text in ("n", "y", "m") else \
                f"its default {expr_text} is n"
            if applied.expr.__class__ is tuple or not applied.expr.is_const:
                r.children = self._blocking_terms(applied.expr, Y, depth - 1, path)
        return [r]

    def _implies(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        deps = self._reverse_deps(sym, "imply")
        if not deps:
            return []
        active = [(by, prop) for by, prop in deps if self._dep_tri(by, prop) != N]
        if not active:
            if sym.curr_tri != N:
                return []
            r = Reason(IMPLIES_OFF, "the implies that could raise it are off: " + _dep_names(deps), "", sym.name)
            if len(path) == 1:
                r.children = self._off_selectors(deps, depth, path)
            r.folded = _folded_names(deps)
            return [r]
        names = _dep_names(active)
        if sym.dir_dep_tri == N:
            r = Reason(IMPLY_BLOCKED, f"implied by {names}, but an imply cannot pass its dependencies",
                       "its dependencies stop an imply", sym.name)
            r.children = self._blocking_terms(sym.dir_dep, Y, depth - 1, path)
            return [r]
        if sym.curr_tri <= sym.implied_tri:
            return [Reason(IMPLIED, f"implied by {names}", f"it is implied by {_names(active)}", sym.name)]
        return []

    def _select_causes(self, sym: Symbol, depth: int, path: tuple, user_in_effect: bool) -> list[Reason]:
        deps = self._reverse_deps(sym, "select")
        value = sym.curr_tri
        if not deps:
            if value == N or (not user_in_effect and not sym.prompts):
                return [Reason(NOT_SELECTED, "nothing selects it", "nothing selects it" if value == N else "",
                               sym.name)]
            return []
        active = [(by, prop) for by, prop in deps if self._dep_tri(by, prop) != N]
        if active and sym.rev_dep_tri >= value and value != N:
            listed = active[:LISTED]
            count = len(active)
            head = (f"selected by {_dep_names(active)}" if count <= FOLD else
                    f"selected by {count} symbols that are on: {_names(active)}")
            short = (f"{_names(active)} {'selects' if count == 1 else 'select'} it")
            if user_in_effect and sym.user_tri < value:
                short = f"{_names(active)} {'selects' if count == 1 else 'select'} it, so your " \
                        f"{TRI_STR[sym.user_tri]} does not stick"
            r = Reason(SELECTED, head, short, sym.name, TRI_STR[sym.rev_dep_tri])
            if len(path) > 1:
                # Deeper in a chain, only what could turn the first few off.
                listed, depth = active[:FOLD], min(depth, 1)
            r.children = [self._selector_line(by, prop, "off", depth, path) for by, prop in listed]
            r.folded = [by.name for by, _ in active[len(listed):]]
            out = [r]
            off = [by.name for by, prop in deps if self._dep_tri(by, prop) == N]
            if off:
                out.append(Reason(SELECTS_OFF, f"{len(off)} other select{'s' if len(off) > 1 else ''} of it "
                                  f"{'are' if len(off) > 1 else 'is'} off", "", sym.name, folded=off))
            return out
        if value != N:
            return []
        listed = deps[:LISTED]
        count = len(deps)
        text = ("the selects that could turn it on are off: " + _dep_names(deps) if count <= FOLD else
                f"the {count} selects that could turn it on are off: {_names(deps)}")
        r = Reason(SELECTS_OFF, text, "", sym.name)
        if len(path) == 1:
            r.children = self._off_selectors(listed, depth, path)
        if count == 1:
            by, prop = deps[0]
            if by.curr_tri == N:
                cue = " — you can set it" if r.children and r.children[0].children and \
                    r.children[0].children[0].kind == SETTABLE else ""
                r.short = f"its only selector {by.name} is n{cue}"
            else:
                r.short = f"{by.name} selects it only if {_clip(readable_expr(prop.cond), 80)}, which is n"
        else:
            r.short = f"the selects that could turn it on are off ({_names(deps)})"
        r.folded = [by.name for by, _ in deps[LISTED:]]
        return [r]

    def _off_selectors(self, deps, depth: int, path: tuple) -> list[Reason]:
        """Each select or imply that is off, with why, one level deep."""
        return [self._selector_line(by, prop, "on", depth, path) for by, prop in deps[:LISTED]]

    def _selector_line(self, by: Symbol, prop: Property, wanted: str, depth: int, path: tuple) -> Reason:
        """``A [=n] if C [=y] (file:line)``: with why A is off (or its
        condition is n) when ``wanted`` is "on", or whether the user could
        turn A off when "off"."""
        by.calc_value()
        cond = f" if {readable_expr(prop.cond)}" if prop.cond is not None else ""
        value = self._dep_tri(by, prop)
        r = Reason(SELECT_LINE, f"{by.name} [={by.str_value()}]{cond} ({prop.file}:{prop.line})", "", by.name,
                   TRI_STR[value], prop.file, prop.line)
        if depth <= 0:
            return r
        if wanted == "on":
            if by.curr_tri == N:
                r.children.append(self._symbol_reason(by, Need("up", M), 1, path))
            elif prop.cond is not None and eval_expr(prop.cond) == N:
                r.text += ": the condition is n"
                r.children = self._blocking_terms(prop.cond, Y, 1, path)
        else:
            r.children.append(self._symbol_reason(by, Need("down", N), 1, path))
        return r

    def _value_causes(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        """int, hex and string symbols."""
        out: list[Reason] = []
        usable = sym.visible != N or sym.transitional
        where = self._config_where(sym)
        value = _shown(sym.str_value())
        if sym.has_user and not usable and sym.user_val != sym.str_value():
            r = Reason(USER_IGNORED, f"you set it to {_shown(sym.user_val or '')}{where}, but its prompt is hidden, "
                       "so that value is not used", "your value is not used: its prompt is hidden", sym.name,
                       sym.user_val)
            r.children = self._hidden_terms(sym, Y, depth, path)
            if r.children:
                r.short += " because " + _needs_short(r.children)
            out.append(r)
        range_prop = sym.range_prop() if sym.type in (INT, HEX) else None
        if usable and sym.has_user:
            if range_prop is not None and not sym.string_within_range(sym.user_val or ""):
                low, high = range_prop.expr
                out.append(Reason(USER_CLAMPED, f"you set it to {sym.user_val}{where}, outside the range "
                                  f"{low.str_value_now}..{high.str_value_now} ({range_prop.file}:{range_prop.line}),"
                                  f" so it is clamped to {value}",
                                  f"{sym.user_val} is outside the range {low.str_value_now}..{high.str_value_now}",
                                  sym.name, sym.user_val, range_prop.file, range_prop.line))
            else:
                out.append(Reason(USER, f"you set it to {_shown(sym.user_val or '')}{where}",
                                  f"you set it{where}", sym.name, sym.user_val))
            return out
        if sym.prompts and sym.visible == N:
            out.append(self._hidden(sym, False, depth, path))
        applied = sym.default_prop()
        if applied is None:
            empty = "no default applies" if sym.defaults else "it has no default"
            out.append(Reason(DEFAULTS_OFF if sym.defaults else NO_DEFAULT, f"{empty}, so the value is {value}",
                              f"{empty}", sym.name))
        else:
            macro = self._macro_line(applied)
            cond = f" if {readable_expr(applied.cond)}" if applied.cond is not None else ""
            r = Reason(DEFAULT, f"its default {readable_expr(applied.expr)}{cond} applies "
                       f"({applied.file}:{applied.line})", f"its default applies ({applied.file}:{applied.line})",
                       sym.name, value, applied.file, applied.line)
            if macro is not None:
                source = _macro_source(macro)
                r.kind = TOOLCHAIN
                r.text = f"its default comes from {source}: `{macro}` ({applied.file}:{applied.line})"
                r.short = f"{source} gives it (`{_clip(macro, 60)}`)"
            out.append(r)
        if range_prop is not None and applied is not None:
            low, high = range_prop.expr
            default_value = applied.expr.str_value_now if applied.expr.__class__ is not tuple else ""
            if default_value != sym.str_value():
                out.append(Reason(RANGE, f"the default {default_value} is outside the range {low.str_value_now}.."
                                  f"{high.str_value_now} ({range_prop.file}:{range_prop.line}), so it is clamped",
                                  "the range clamps it", sym.name, value, range_prop.file, range_prop.line))
        return out

    # -- choices -------------------------------------------------------------------
    def _choice_decides(self, sym: Symbol) -> bool:
        """True when the member's value comes from its choice's selection
        (a visible member of a ``y`` choice, or any member since 6.11)."""
        choice = sym.choice
        if self.kc.gen.member_choices:
            return True
        choice.calc_value()
        return choice.curr_tri == Y or choice.visible == N

    def _choice_label(self, choice: Symbol) -> str:
        prompt = choice.prompts[0].text if choice.prompts else None
        node = choice.nodes[0] if choice.nodes else None
        where = f" ({node.file}:{node.line})" if node is not None else ""
        return (f"the choice \"{prompt}\"" if prompt else f"the choice {choice.name or ''}".rstrip()) + where

    def _selection_reason(self, choice: Symbol) -> Reason:
        """Why the choice selected what it did: the user, its default or
        the first visible member."""
        chosen = choice.selection
        name = chosen.name if chosen is not None else "none"
        if chosen is None:
            return Reason(CHOICE, "no member is visible", "no member is visible", None)
        if choice.user_selection is chosen:
            return Reason(CHOICE, f"you picked {name}{self._config_where(chosen)}", f"you picked {name}", name, "y")
        for prop in choice.defaults:
            if eval_expr(prop.cond) != N and prop.expr is chosen:
                cond = f" if {readable_expr(prop.cond)}" if prop.cond is not None else ""
                return Reason(CHOICE, f"its default {name}{cond} applies ({prop.file}:{prop.line})",
                              f"its default is {name}", name, "y", prop.file, prop.line)
        text = f"{name} is its first visible member" + (
            " you did not set to n" if self.kc.gen.member_choices and any(
                m.has_user and m.user_tri == N and m.visible != N for m in choice.choice_values) else "")
        return Reason(CHOICE, text, text, name, "y")

    def _member_causes(self, sym: Symbol, depth: int, path: tuple) -> list[Reason]:
        choice = sym.choice
        choice.calc_value()
        label = self._choice_label(choice)
        if choice.visible == N:
            r = Reason(CHOICE_HIDDEN, f"{label} is hidden", f"{label.split(' (')[0]} is hidden", sym.name)
            if choice.prompts and choice.prompts[0].cond is not None:
                r.children = self._blocking_terms(choice.prompts[0].cond, Y, depth - 1, path)
                if r.children:
                    r.short += ": " + _needs_short(r.children)
            return [r]
        if sym.visible == N:
            return [self._hidden(sym, True, depth, path)]
        chosen = choice.selection
        why = self._selection_reason(choice)
        if chosen is sym:
            r = Reason(CHOICE, f"it is the selected member of {label}", f"it is the selected member of "
                       f"{label.split(' (')[0]}: {why.short}", sym.name, "y")
            r.children = [why]
            return [r]
        other = chosen.name if chosen is not None else "no member"
        r = Reason(CHOICE, f"{label} is set to {other}; pick this one to change it",
                   f"{label.split(' (')[0]} is set to {other} ({why.short}); you can pick this one", sym.name,
                   set_to="y")
        r.children = [why]
        return [r]

    def _choice_causes(self, choice: Symbol, depth: int, path: tuple) -> list[Reason]:
        label = self._choice_label(choice)
        if choice.visible == N:
            r = Reason(CHOICE_HIDDEN, f"{label} is hidden", "the choice is hidden", None)
            if choice.prompts and choice.prompts[0].cond is not None:
                r.children = self._blocking_terms(choice.prompts[0].cond, Y, depth - 1, path)
                if r.children:
                    r.short += ": " + _needs_short(r.children)
            return [r]
        if self.kc.gen.member_choices:
            from .member_choices import settle

            settle(choice)
        why = self._selection_reason(choice)
        chosen = choice.selection
        if chosen is None:
            return [why]
        return [Reason(CHOICE, f"{chosen.name} is selected: {why.text}",
                       f"{chosen.name} is selected because {why.short}", chosen.name, "y", why.file, why.line,
                       children=[why] if why.file else [])]

    # -- conditions and their operands ---------------------------------------------------------
    def _hidden_terms(self, sym: Symbol, want: int, depth: int, path: tuple) -> list[Reason]:
        """The operands keeping every prompt of ``sym`` below ``want``."""
        out: list[Reason] = []
        seen: set[str] = set()
        for prop in sym.prompts:
            for r in self._blocking_terms(prop.cond, want, depth - 1, path):
                if r.text not in seen:
                    seen.add(r.text)
                    out.append(r)
        if want == M and self.kc.modules_val == N and sym.type == TRISTATE and self.kc.modules_sym is not None:
            out.append(Reason(MODULES_OFF, "m needs MODULES, which is n", "MODULES is n", "MODULES", "n"))
        return out

    def _blocking_terms(self, cond, want: int, depth: int, path: tuple) -> list[Reason]:
        """A reason per ``&&`` operand of ``cond`` below ``want``."""
        return [self._term_reason(t, want, depth, path) for t in and_terms(cond) if eval_expr(t) < want]

    def _term_reason(self, e, want: int, depth: int, path: tuple) -> Reason:
        """One operand that is too low, and why: a symbol (or ``!symbol``)
        is followed itself; ``A || B`` through each side."""
        if e.__class__ is not tuple:
            r = self._symbol_reason(e, Need("up", want), depth, path)
            r.term = readable_expr(e)
            return r
        op = e[0]
        if op == NOT and e[1].__class__ is not tuple:
            r = self._symbol_reason(e[1], Need("down", 2 - want), depth, path)
            r.term = readable_expr(e)
            return r
        text = readable_expr(e)
        value = TRI_STR[eval_expr(e)]
        r = Reason(TERM, f"{text}, which is {value}", f"{_clip(text, 80)} is {value}", None, value, term=text)
        if depth <= 0:
            return r
        if op == OR:
            r.children = [self._term_reason(side, want, depth, path) for side in _or_sides(e)]
        elif op == AND:
            r.children = self._blocking_terms(e, want, depth, path)
        elif op == NOT:
            r.children = [self._symbol_reason(s, Need("any"), depth, path) for s in _plain(e)]
        elif op in (EQUAL, UNEQUAL) and e[2].is_const and e[2].name in TRI_STR and e[1].type in (BOOL, TRISTATE):
            level = TRI_STR.index(e[2].name)
            need = Need("exact", level) if op == EQUAL else Need("any")
            r.children = [self._symbol_reason(e[1], need, depth, path)]
        else:
            r.children = [self._symbol_reason(s, Need("any"), depth, path) for s in _plain(e)]
        return r

    def _symbol_reason(self, sym: Symbol, need: Need, depth: int, path: tuple) -> Reason:
        """Why ``sym`` (an operand) has its value: a leaf the user can set,
        a fact nobody can change here, or its own account, one level down."""
        sym.calc_value()
        name = sym.name or "<choice>"
        if sym.is_choice:
            label = self._choice_label(sym)
            r = Reason(CHOICE, f"{label} is {'shown' if sym.visible != N else 'hidden'}",
                       f"{label.split(' (')[0]} is {'shown' if sym.visible != N else 'hidden'}", None,
                       TRI_STR[sym.curr_tri])
            if depth > 0:
                r.children = self._choice_causes(sym, depth - 1, path)
            return r
        if not sym.nodes:
            if _literal(sym.name):
                return Reason(TERM, f"{name} is a constant", "", None, name)
            return self._undefined(sym)
        value = _shown(sym.str_value())
        lead = f"{name} is {value}"
        file, line = sym.nodes[0].file, sym.nodes[0].line
        set_to = self._settable(sym, need)
        if set_to is not None and sym.is_choice_value and sym.choice is not None and self._choice_decides(sym):
            chosen = sym.choice.selection
            label = self._choice_label(sym.choice).split(" (")[0]
            return Reason(SETTABLE, f"{lead}: {label} is set to {chosen.name if chosen else 'no member'}; "
                          f"you can pick this one ({file}:{line})",
                          f"{name} is {value} — you can pick it in {label}", name, value, file, line, set_to)
        if set_to is not None:
            return Reason(SETTABLE, f"{lead}: you can set it to {set_to} ({file}:{line})",
                          f"{name} is {value} — you can set it", name, value, file, line, set_to)
        if sym in path or sym in self._explained:
            return Reason(SEEN, f"{lead} (see above)", lead, name, value, file, line)
        r = Reason(SYMBOL, lead, lead, name, value, file, line)
        if sym.type in (BOOL, TRISTATE) and not sym.prompts and sym.defaults and not self._reverse_deps(sym, "select"):
            found = next(((p, m) for p in sym.defaults if (m := self._macro_line(p)) is not None), None)
            if found is not None and not self._reverse_deps(sym, "imply"):
                prop, macro = found
                source = _macro_source(macro)
                r.kind = TOOLCHAIN
                r.file, r.line = prop.file, prop.line
                r.text = f"{lead}: fixed by {source}: `{macro}` ({prop.file}:{prop.line})" + \
                    self._toolchain_note(macro)
                r.short = f"{lead} (fixed by {source})"
                return r
        if depth <= 0:
            r.kind = MORE
            r.text = f"{lead}: … (kconfig-ls why {name})"
            return r
        summary = self.summary(sym)
        r.text = f"{lead}: {summary.split(' because ', 1)[1]}" if " because " in summary else lead
        self._explained.add(sym)
        r.children = self._causes(sym, depth - 1, (*path, sym))
        if (need.direction == "up" and sym.type == TRISTATE and sym.prompts and M <= sym.visible < need.level
                and sym.curr_tri < need.level):
            # It could be set higher only if its prompt allowed more.
            limit = Reason(USER_LIMITED, f"its prompt allows at most {TRI_STR[sym.visible]}", "", name)
            limit.children = self._hidden_terms(sym, need.level, depth - 1, (*path, sym))
            r.children.append(limit)
        return r

    def _undefined(self, sym: Symbol) -> Reason:
        name = sym.name or "?"
        where = self._elsewhere_of(name)
        arch = self.kc.env.get("SRCARCH") or self.kc.env.get("ARCH") or "this architecture"
        if where:
            arches = _unique(_arch_of(f) for f, _ in where)
            places = ", ".join(f"{f}:{n}" for f, n in where[:FOLD])
            if all(a is not None for a in arches):
                text = f"{name} is defined only for {', '.join(arches)}: {places}; ARCH={arch} does not have it"
                short = f"{name} exists only for {', '.join(arches)}"
            else:
                text = f"{name} is defined at {places}, which the tree read for ARCH={arch} does not include"
                short = f"{name} is not in this tree's Kconfig for {arch}"
            return Reason(OTHER_ARCH, text, short, name, "n", where[0][0], where[0][1])
        if self._elsewhere is None:
            return Reason(UNDEFINED, f"{name} is not defined by any Kconfig file read for ARCH={arch}",
                          f"{name} is not defined for {arch}", name, "n")
        return Reason(UNDEFINED, f"{name} is not defined by any Kconfig file in the tree",
                      f"{name} is not defined anywhere", name, "n")

    def _settable(self, sym: Symbol, need: Need) -> str | None:
        """The value to set for ``need``, when the user can set it."""
        if sym.visible == N or not sym.prompts or need.met(sym):
            return None
        if sym.is_choice_value and sym.choice is not None and self._choice_decides(sym):
            return "y" if need.direction in ("up", "exact") and need.level >= M else None
        if sym.type not in (BOOL, TRISTATE):
            return None
        options = sym.assignable
        if need.direction == "up":
            fits = [v for v in options if v >= need.level]
            return TRI_STR[min(fits)] if fits else None
        if need.direction == "down":
            fits = [v for v in options if v <= need.level]
            return TRI_STR[max(fits)] if fits else None
        if need.direction == "exact":
            return TRI_STR[need.level] if need.level in options else None
        return None

    # -- facts looked up ---------------------------------------------------------------
    def _reverse_deps(self, sym: Symbol, kind: str) -> list[tuple[Symbol, Property]]:
        if self._reverse is None:
            from .explain import reverse_index

            self._reverse = reverse_index(self.kc)
        return self._reverse.get((kind, sym), [])

    @staticmethod
    def _dep_tri(by: Symbol, prop: Property) -> int:
        by.calc_value()
        return min(by.curr_tri, eval_expr(prop.cond))

    def _elsewhere_of(self, name: str) -> list[tuple[str, int]]:
        index = self._elsewhere
        if callable(index):
            index = self._elsewhere = index()
        return list(index.get(name, ())) if index else []

    def _config_where(self, sym: Symbol) -> str:
        line = self._config_line(sym)
        if line is None:
            return f" in {self.config_name}"
        return f" in {self.config_name}:{line}"

    def _config_line(self, sym: Symbol) -> int | None:
        """The last line of the config text that assigns ``sym``."""
        if self.config_text is None or sym.name is None:
            return None
        if self._config_lines is None:
            from .configfile import config_prefix

            prefix = config_prefix(self.kc)
            lines: dict[str, int] = {}
            for number, text in enumerate(self.config_text.split("\n"), 1):
                if text.startswith(prefix):
                    lines[text[len(prefix):].split("=", 1)[0]] = number
                elif text.startswith("# " + prefix) and text.endswith(" is not set"):
                    lines[text[2 + len(prefix):-len(" is not set")]] = number
            self._config_lines = lines
        return self._config_lines.get(sym.name)

    def _macro_line(self, prop: Property) -> str | None:
        """The source line of ``prop`` when it holds a ``$(...)`` that the
        preprocessor expanded (the value was fixed at parse time)."""
        text = self._source_line(prop.file, prop.line)
        if text is None or "$(" not in text:
            return None
        return text.strip()

    def _source_line(self, file: str, line: int) -> str | None:
        lines = self._source_lines.get(file)
        if lines is None:
            path = self.kc.resolve_path(file)
            try:
                lines = self.kc.read_source(file, path).split("\n") if path else []
            except OSError:
                lines = []
            self._source_lines[file] = lines
        return lines[line - 1] if 0 < line <= len(lines) else None

    def _toolchain_note(self, macro: str) -> str:
        if "cc" not in macro.lower():
            return ""
        version = self.kc.find("CC_VERSION_TEXT")
        if version is None or not version.nodes:
            return ""
        text = version.str_value_now
        return f"; the compiler is {text}" if text else ""


# -- small helpers ------------------------------------------------------------------


def _first_above(sym: Symbol, level: int) -> str | None:
    values = [v for v in sym.assignable if v > level]
    return TRI_STR[Y] if Y in values else (TRI_STR[values[0]] if values else None)


def _or_sides(e) -> list:
    if e.__class__ is tuple and e[0] == OR:
        return _or_sides(e[1]) + _or_sides(e[2])
    return [e]


def _plain(e) -> list:
    """The symbols of ``e`` that are not constants, each once (a number or
    ``y`` written without quotes is a constant for a person, though the C
    tool keeps it as an undefined symbol)."""
    out = []
    for s in expr_symbols(e):
        if not s.is_const and not _literal(s.name) and s not in out:
            out.append(s)
    return out


def _literal(name: str | None) -> bool:
    if name is None:
        return False
    if name in TRI_STR:
        return True
    try:
        int(name, 0)
    except ValueError:
        return False
    return True


def _dep_names(deps) -> str:
    """``A [=n], B [=y] (its condition is n)``: each select or imply with
    its symbol's value (the conditions are in the reasons below)."""
    parts = []
    for by, prop in deps:
        part = f"{by.name} [={by.str_value()}]"
        if by.curr_tri != N and prop.cond is not None and eval_expr(prop.cond) == N:
            part += " (its condition is n)"
        parts.append(part)
    return ", ".join(parts)


def _needs_short(children: list[Reason], level: str = "") -> str:
    """"it needs A [=n] and B [=n]; you can set C": the operands of a
    hidden prompt (for ``level``: to reach it) and the settable symbols
    found below them."""
    terms = _unique(_grouped(c.term) if c.term else c.short for c in children)
    if not terms:
        return ""
    return ("it needs " if not level else f"{level} needs ") + _sentence(terms) + _settable_note(children)


def _settable_note(children: list[Reason]) -> str:
    """"; you can set C" for the settable leaves below ``children``, or
    what fixes them when none is settable."""
    below = [r for c in children for r in c.walk()]
    settable = _unique(r.symbol for r in below if r.kind == SETTABLE and r.symbol)
    if settable:
        return "; you can set " + _sentence(settable)
    fixed = [r for r in below if r.kind in _FIXED and r.symbol]
    if fixed:
        kinds = {r.kind for r in fixed}
        what = ("fixed by the toolchain" if kinds == {TOOLCHAIN} else
                "not on this architecture" if kinds == {OTHER_ARCH} else "not settable here")
        names = _unique(r.symbol for r in fixed)
        return f"; {_sentence(names)} {'is' if len(names) == 1 else 'are'} {what}"
    return ""


def _grouped(term: str) -> str:
    """An operand in a list of operands: an ``||`` in parentheses."""
    return f"({term})" if " || " in term and not term.startswith("(") else term


def _names(deps, limit: int = FOLD) -> str:
    names = [by.name for by, _ in deps]
    if len(names) <= limit:
        return _sentence(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


def _folded_names(deps) -> list[str]:
    return [by.name for by, _ in deps[LISTED:]]


def _sentence(parts: list[str]) -> str:
    parts = list(parts)
    if not parts:
        return ""
    if len(parts) > 4:
        parts = [*parts[:3], f"{len(parts) - 3} more"]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _unique(items) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown(value: str) -> str:
    return value if value != "" else '""'


def _macro_source(macro: str) -> str:
    """What a ``$(...)`` line asks: the toolchain (a command, a compiler
    probe) or only the environment (``$(ARCH)``, ``$(SRCARCH)``)."""
    probes = ("shell", "success", "failure", "cc-", "ld-", "as-", "rustc", "bindgen", "$(CC", "$(LD", "$(AS")
    return "the toolchain" if any(p in macro for p in probes) else "the environment"


def _arch_of(file: str) -> str | None:
    parts = file.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "arch" else None
