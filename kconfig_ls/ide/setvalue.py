"""Setting one symbol's value from the configurator, as menuconfig does:
only a value the symbol can take now is accepted (its prompt visible, the
value within what its dependencies and selects allow, a number well formed
and in range); the config file gets the fewest line edits that say it, in
its own layout; and the answer lists every symbol whose value or
visibility the change moves, computed by reading the edited text.

A refused value changes nothing and says why, with the verified how-to
for a bool or tristate target when one exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..kconfig.configfile import menu_is_visible
from ..kconfig.explain import explain
from ..kconfig.expr import BOOL, HEX, INT, STRING, TRI_STR, TRISTATE, Y
from ..kconfig.howto import HowTo, TargetError
from ..kconfig.scenario import apply_edits, config_edits
from ..kconfig.symbols import Symbol
from .actions import TextChange, text_changes
from .project import Project

#: (value, visible) of each named symbol, by name.
Shown = dict[str, tuple[str, bool]]


@dataclass
class SetOutcome:
    """What setting a value does: the edits of the config text and the
    symbols that change, or why it cannot be set."""

    accepted: bool
    changes: list[TextChange] = field(default_factory=list)
    #: The config text with the changes made.
    text: str | None = None
    #: ``{"symbol", "value", "visible"}`` of each symbol that changes, in
    #: the tree's order.
    changed: list[dict] = field(default_factory=list)
    reason: str | None = None
    #: The verified assignments that would give the value (refusals only).
    suggestion: HowTo | None = None


def set_value(project: Project, name: str, value: str, base_text: str | None) -> SetOutcome:
    """Set ``name`` to ``value`` in config text ``base_text`` (None: there
    is no config file yet).  The project's values are those of
    ``base_text`` afterwards, whatever the outcome: the client's edit,
    when it arrives, is read like any other."""
    with project.lock:
        if project.config_text != base_text:
            project.read_config(base_text)
        kc = project.kc
        sym = kc.find(name)
        if sym is None or not sym.nodes:
            raise KeyError(name)
        wanted = normalized(sym, value)
        reason = refusal(sym, wanted)
        if reason is not None:
            return _refused(project, sym, wanted, reason, base_text)
        base = base_text or ""
        edits = config_edits(kc, base, assignments_for(sym, wanted))
        text = apply_edits(base, edits)
        project.read_config(text)
        try:
            got = sym.str_value()
            watched = _reachable(project)
            after = shown_state(project, watched)
        finally:
            project.read_config(base_text)
        # (Reading the base again reaches the same symbols: what the edit
        # did not reach stood still both ways.)
        before = shown_state(project, watched)
        if got != wanted:
            # (Refused before any edit: the reading of the edited text
            # decides, as the C tool's would.)
            return _refused(project, sym, wanted, f"the config would give {sym.name}={got}, not {wanted}",
                            base_text)
        changed = [{"symbol": n, "value": state[0], "visible": state[1]}
                   for n, state in after.items() if before.get(n) != state]
        return SetOutcome(True, text_changes(base, edits), text, changed)


def normalized(sym: Symbol, value: str) -> str:
    """``value`` as the config file would say it: ``n``/``m``/``y`` in
    lower case, a hex number with its ``0x`` (menuconfig adds it)."""
    text = value.strip() if sym.type != STRING else value
    if sym.type in (BOOL, TRISTATE):
        return text.lower()
    if sym.type == HEX and text and not text.lower().startswith("0x"):
        return "0x" + text
    return text


def refusal(sym: Symbol, value: str) -> str | None:
    """Why ``sym`` cannot be given ``value`` now (None: it can)."""
    sym.calc_value()
    label = f"{sym.name}={value}" if value else f"{sym.name} to an empty value"
    if value == sym.str_value():
        # (Saying what already holds: the line only pins it.)
        return None
    if sym.type in (BOOL, TRISTATE):
        if value not in ("n", "m", "y"):
            return f"{sym.name} is a {'bool' if sym.type == BOOL else 'tristate'}: its values are n, m, y"
        if sym.type == BOOL and value == "m":
            return f"{sym.name} is a bool: it cannot be m"
        allowed = [TRI_STR[v] for v in sym.assignable] if sym.visible else []
        if value not in allowed:
            if sym.is_choice_value and value == "n" and sym.visible == Y:
                return f"{label} is set by choosing another entry of its choice"
            return f"{sym.name} cannot be {value}: it is {_summary(sym)}"
        return None
    if sym.type not in (INT, HEX, STRING):
        return f"{sym.name} has no type: it cannot be set"
    if not sym.visible:
        return f"cannot set {label}: it is {_summary(sym)}"
    if not sym.string_valid(value):
        kind = "a decimal number" if sym.type == INT else "a hexadecimal number"
        return f"{value!r} is not {kind}"
    if not sym.string_within_range(value):
        low, high = sym.range_prop().expr
        base = 10 if sym.type == INT else 16
        shown = str if sym.type == INT else hex
        return (f"{value} is out of {sym.name}'s range "
                f"[{shown(low.range_value(base))}, {shown(high.range_value(base))}]")
    return None


def assignments_for(sym: Symbol, value: str) -> dict[str, str]:
    """The lines to write: the symbol's own, and for the entry chosen in a
    choice, ``n`` for the other entries the file sets to ``y`` (their lines
    would say something the file no longer means)."""
    assignments = {sym.name: value}
    if sym.is_choice_value and value == "y":
        for member in sym.choice.members:
            if member is not sym and member.name and member.has_user and member.user_tri == Y:
                assignments[member.name] = "n"
    return assignments


def shown_state(project: Project, symbols: Iterable[Symbol] | None = None) -> Shown:
    """Each named, defined symbol's value (of ``symbols``, default all) and
    whether one of its menu entries is shown (menuconfig's visibility)."""
    state: Shown = {}
    for sym in project.kc.all_symbols if symbols is None else symbols:
        if sym.name is None or not sym.nodes or sym.is_choice:
            continue
        sym.calc_value()
        visible = any(node.prompt is not None and menu_is_visible(node) for node in sym.nodes)
        state[sym.name] = (sym.str_value(), visible)
    return state


def _reachable(project: Project) -> list[Symbol] | None:
    """The symbols whose value or visibility the last config reading may
    have moved, in the tree's order (None: any).  Besides those computed
    again, the owners of the menu entries above them: an entry whose prompt
    is hidden still shows while one below it does."""
    reached = project.values.reached if project.values is not None else None
    if reached is None:
        return None
    watched = set(reached)
    for sym in reached:
        for node in sym.nodes:
            parent = node.parent
            while parent is not None:
                if parent.sym is not None:
                    watched.add(parent.sym)
                parent = parent.parent
    return [sym for sym in project.kc.all_symbols if sym in watched]


def _summary(sym: Symbol) -> str:
    kc = sym.kc
    return explain(kc, sym).summary or f"it is {sym.str_value()} and cannot be changed here"


def _refused(project: Project, sym: Symbol, value: str, reason: str, base_text: str | None) -> SetOutcome:
    suggestion = None
    if sym.type in (BOOL, TRISTATE) and value in ("n", "m", "y"):
        try:
            answer = project.how_to(sym.name, value, base_text)
        except (KeyError, TargetError):
            answer = None
        if answer is not None and answer.reachable and answer.assignments:
            suggestion = answer
    return SetOutcome(False, reason=reason, suggestion=suggestion)
