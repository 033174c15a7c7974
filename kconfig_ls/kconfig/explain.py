"""Why a symbol has its value: a structured account, not only text.

:func:`explain` collects everything that decides a value in the C tool's
``sym_calc_value``: the user's value and whether it sticks, each prompt's
condition (which carries the inherited ``depends on``/``if``/``menu``
conditions), the ``select``/``imply`` statements bounding it, the
``default`` that applied, the choice it belongs to and the range that
clamped it.  It names the *leaves*: the smallest ``&&`` operands that hold
the value down (``PCI [=n]`` in ``PCI && (X86 || COMPILE_TEST)``), each
with the definitions of its symbols.  Rendering is in
:mod:`.explain_report`; the search for a fix is in :mod:`.howto`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from . import member_choices
from .explain_text import readable_expr
from .expr import BOOL, HEX, INT, TRI_STR, TRISTATE, TYPE_NAMES, M, N, Y, and_terms, eval_expr, expr_symbols
from .reasons import Accountant, Elsewhere, Reason

if TYPE_CHECKING:
    from .menu import Property
    from .symbols import Symbol
    from .tree import Kconfig


@dataclass
class SymbolRef:
    name: str
    type: str
    value: str
    definitions: list[tuple[str, int]]


@dataclass
class Term:
    """An operand of a condition with its value and its symbols."""

    text: str
    value: str
    symbols: list[SymbolRef]


@dataclass
class Condition:
    text: str
    value: str
    #: The ``&&`` operands below the level that was wanted.
    leaves: list[Term] = field(default_factory=list)


@dataclass
class PromptInfo:
    text: str
    file: str
    line: int
    condition: Condition | None


@dataclass
class ReverseDep:
    """A ``select``/``imply`` of the explained symbol by another one."""

    kind: str
    by: SymbolRef
    condition: str | None
    value: str
    file: str
    line: int


@dataclass
class DefaultInfo:
    value: str
    expr: str
    condition: str | None
    condition_value: str
    file: str
    line: int
    applied: bool


@dataclass
class ChoiceInfo:
    name: str | None
    file: str
    line: int
    mode: str
    visible: str
    selection: str | None
    user_selection: str | None
    members: list[SymbolRef]
    condition: Condition | None


@dataclass
class RangeInfo:
    low: str
    high: str
    file: str
    line: int
    #: The out-of-range value that was clamped, if any.
    clamped_from: str | None


@dataclass
class Explanation:
    name: str
    type: str
    value: str
    user_value: str | None
    user_sticks: bool | None
    visibility: str
    origin: str
    prompts: list[PromptInfo]
    depends: Condition | None
    selected_by: list[ReverseDep]
    implied_by: list[ReverseDep]
    defaults: list[DefaultInfo]
    choice: ChoiceInfo | None
    range: RangeInfo | None
    #: The terms holding the value down (empty when nothing does).
    leaves: list[Term]
    #: The top-level reasons' sentences, most important first.
    reasons: list[str]
    definitions: list[tuple[str, int]]
    #: One sentence a person can act on ("n because PCI is n — you can set it").
    summary: str = ""
    #: The reasons with their chains (:mod:`.reasons`).
    account: list[Reason] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def default(self) -> DefaultInfo | None:
        return next((d for d in self.defaults if d.applied), None)


def explain(
    kc: Kconfig,
    sym: Symbol,
    config_name: str | None = None,
    config_text: str | None = None,
    elsewhere: Elsewhere | Callable[[], Elsewhere] | None = None,
    accountant: Accountant | None = None,
) -> Explanation:
    """Everything that decides ``sym``'s current value.  ``config_text``
    (the config file read) lets reasons cite its lines; ``elsewhere``
    (symbol -> definitions in every Kconfig file of the tree) lets them say
    where a symbol this arch lacks is defined; an ``accountant`` shared
    over many calls with unchanged values saves repeated work."""
    sym.calc_value()
    want = _wanted_level(kc, sym)
    prompts = [
        PromptInfo(p.text or "", p.file, p.line, _condition(p.cond, want) if p.cond is not None else None)
        for p in sym.prompts
    ]
    depends = _condition(sym.dir_dep, want) if sym.dir_dep is not None else None
    explanation = Explanation(
        name=sym.name or "<choice>",
        type=TYPE_NAMES[sym.type],
        value=sym.str_value(),
        user_value=sym.user_value if not sym.is_choice else _name(sym.user_selection),
        user_sticks=_user_sticks(sym),
        visibility=TRI_STR[sym.visible],
        origin="",
        prompts=prompts,
        depends=depends,
        selected_by=reverse_deps(kc, sym, "select"),
        implied_by=reverse_deps(kc, sym, "imply"),
        defaults=_defaults(sym),
        choice=_choice_info(sym),
        range=_range_info(sym),
        leaves=[],
        reasons=[],
        definitions=sym.definitions,
    )
    explanation.leaves = _leaves(kc, sym, explanation, want)
    explanation.origin = _origin(sym, explanation, config_name or "the configuration")
    accountant = accountant or Accountant(kc, config_name, config_text, elsewhere)
    explanation.account = accountant.account(sym)
    explanation.summary = accountant.summary(sym, explanation.account)
    explanation.reasons = [r.text for r in explanation.account]
    return explanation


# -- pieces ------------------------------------------------------------------------


def symbol_ref(sym: Symbol) -> SymbolRef:
    sym.calc_value()
    return SymbolRef(sym.name or "<choice>", TYPE_NAMES[sym.type], sym.str_value(), sym.definitions)


def term(e) -> Term:
    """``e`` with its operands' values, computed now."""
    symbols = []
    seen = set()
    for s in expr_symbols(e):
        s.calc_value()
        if not s.is_const and s not in seen:
            seen.add(s)
            symbols.append(symbol_ref(s))
    return Term(readable_expr(e), TRI_STR[eval_expr(e)], symbols)


def _condition(e, want: int) -> Condition:
    whole = term(e)
    leaves = [term(t) for t in and_terms(e) if eval_expr(t) < want]
    return Condition(whole.text, whole.value, leaves)


def _name(sym: Symbol | None) -> str | None:
    return sym.name if sym is not None else None


def _wanted_level(kc: Kconfig, sym: Symbol) -> int:
    """The value the explanation measures conditions against: the user's
    tristate value if it did not stick, else ``y`` (``m`` for a tristate
    with modules enabled, the least a dependency must reach)."""
    if sym.type in (BOOL, TRISTATE) and sym.has_user and not sym.is_choice and sym.user_tri > sym.curr_tri:
        return sym.user_tri
    if sym.type == TRISTATE and kc.modules_val == Y and not sym.is_choice_value:
        return M
    return Y


def _user_sticks(sym: Symbol) -> bool | None:
    if sym.is_choice:
        if sym.user_selection is None:
            return None
        return sym.selection is sym.user_selection
    if not sym.has_user:
        return None
    if sym.type in (BOOL, TRISTATE):
        return sym.user_tri == sym.curr_tri
    return sym.user_val == sym.curr_val or (sym.type == HEX and sym.curr_val == "0x" + (sym.user_val or ""))


def reverse_index(kc: Kconfig) -> dict[tuple[str, Symbol], list[tuple[Symbol, Property]]]:
    """(kind, target) -> [(selecting symbol, its select/imply property)]
    in the symbol table's order (first mention at the tree's load)."""
    index = kc.derived.get("reverse_index")
    if index is None:
        index = {}
        for sym in kc.all_symbols:
            for prop in sym.selects:
                index.setdefault(("select", prop.expr), []).append((sym, prop))
            for prop in sym.implies:
                index.setdefault(("imply", prop.expr), []).append((sym, prop))
        kc.derived["reverse_index"] = index
    return index


def reverse_deps(kc: Kconfig, sym: Symbol, kind: str) -> list[ReverseDep]:
    out = []
    for by, prop in reverse_index(kc).get((kind, sym), []):
        by.calc_value()
        value = min(by.curr_tri, eval_expr(prop.cond))
        cond = readable_expr(prop.cond) if prop.cond is not None else None
        out.append(ReverseDep(kind, symbol_ref(by), cond, TRI_STR[value], prop.file, prop.line))
    return out


def _defaults(sym: Symbol) -> list[DefaultInfo]:
    if sym.is_choice:
        return []
    applied = sym.default_prop()
    out = []
    for prop in sym.defaults:
        cond_value = eval_expr(prop.cond)
        value = TRI_STR[min(eval_expr(prop.expr), cond_value)] if sym.type in (BOOL, TRISTATE) else (
            prop.expr.str_value_now if prop.expr.__class__ is not tuple else "")
        out.append(DefaultInfo(
            value=value,
            expr=readable_expr(prop.expr),
            condition=readable_expr(prop.cond) if prop.cond is not None else None,
            condition_value=TRI_STR[cond_value],
            file=prop.file,
            line=prop.line,
            applied=prop is applied,
        ))
    return out


def _choice_info(sym: Symbol) -> ChoiceInfo | None:
    choice = sym if sym.is_choice else sym.choice if sym.is_choice_value else None
    if choice is None:
        return None
    choice.calc_value()
    mode = TRI_STR[choice.curr_tri]
    if choice.kc.gen.member_choices:
        # No mode of its own: the block is on wherever it shows.
        member_choices.settle(choice)
        mode = TRI_STR[Y if choice.visible != N else N]
    node = choice.nodes[0] if choice.nodes else None
    cond = None
    if choice.prompts and choice.prompts[0].cond is not None:
        cond = _condition(choice.prompts[0].cond, Y)
    return ChoiceInfo(
        name=choice.name,
        file=node.file if node else "",
        line=node.line if node else 0,
        mode=mode,
        visible=TRI_STR[choice.visible],
        selection=_name(choice.selection),
        user_selection=_name(choice.user_selection),
        members=[symbol_ref(m) for m in choice.choice_values],
        condition=cond,
    )


def _range_info(sym: Symbol) -> RangeInfo | None:
    if sym.type not in (INT, HEX):
        return None
    prop = sym.range_prop()
    if prop is None:
        return None
    low, high = prop.expr
    clamped = None
    if sym.has_user and sym.visible != N and sym.user_val is not None and not sym.string_within_range(sym.user_val):
        clamped = sym.user_val
    return RangeInfo(low.str_value_now, high.str_value_now, prop.file, prop.line, clamped)


def _leaves(kc: Kconfig, sym: Symbol, ex: Explanation, want: int) -> list[Term]:
    """The terms that keep ``sym`` below ``want`` (or hide its prompt)."""
    if sym.type in (BOOL, TRISTATE) and not sym.is_choice:
        if sym.curr_tri >= want and (ex.user_sticks is not False):
            return []
    elif sym.visible != N or not sym.prompts:
        if not (ex.user_sticks is False and sym.visible == N):
            return []
    leaves: list[Term] = []
    if sym.is_choice_value and ex.choice is not None and ex.choice.condition is not None:
        leaves.extend(ex.choice.condition.leaves)
    if sym.prompts and sym.visible < want:
        for prompt in ex.prompts:
            if prompt.condition is not None:
                leaves.extend(prompt.condition.leaves)
    elif not sym.prompts and ex.depends is not None:
        leaves.extend(ex.depends.leaves)
    if want == M and kc.modules_val == N and kc.modules_sym is not None and kc.modules_sym.name:
        leaves.append(term(kc.modules_sym))
    unique: dict[str, Term] = {}
    for leaf in leaves:
        unique.setdefault(leaf.text, leaf)
    return list(unique.values())


def _origin(sym: Symbol, ex: Explanation, where: str) -> str:
    """Where the current value comes from, in words."""
    if sym.is_choice:
        if sym.selection is None:
            return "no member is visible" if sym.curr_tri != N else "the choice is not visible"
        how = "the user's selection" if sym.selection is sym.user_selection else "the choice's default"
        return f"{sym.selection.name} is selected ({how})"
    if sym.is_choice_value and sym.visible == Y and sym.choice is not None:
        chosen = sym.choice.selection
        if chosen is sym:
            return "the selected member of its choice"
        return f"another member of its choice is selected ({chosen.name if chosen else 'none'})"
    default = ex.default
    if sym.type in (BOOL, TRISTATE):
        active_selects = [r for r in ex.selected_by if r.value != "n"]
        if sym.visible != N and sym.has_user:
            if sym.curr_tri > sym.user_tri and active_selects:
                return f"selected by {_by_list(active_selects)} (set to {TRI_STR[sym.user_tri]} in {where})"
            text = f"set in {where}"
            if sym.user_tri > sym.curr_tri:
                text += f" to {TRI_STR[sym.user_tri]}, limited to {TRI_STR[sym.curr_tri]}"
            return text
        if active_selects and sym.curr_tri <= sym.rev_dep_tri:
            return f"selected by {_by_list(active_selects)}"
        if default is not None and sym.curr_tri != N:
            return f"default {default.expr} at {default.file}:{default.line}"
        active_implies = [r for r in ex.implied_by if r.value != "n"]
        if active_implies and sym.curr_tri != N:
            return f"implied by {_by_list(active_implies)}"
        if sym.visible == N:
            return "not visible, and no default, select or imply gives it a value"
        return "no default applies and it is not set in " + where
    if sym.visible != N and sym.has_user:
        return f"set in {where}"
    if default is not None:
        return f"default {default.expr} at {default.file}:{default.line}"
    return "no default applies"


def _by_list(deps: list[ReverseDep]) -> str:
    return ", ".join(f"{d.by.name} [={d.by.value}]" + (f" if {d.condition}" if d.condition else "") for d in deps)
