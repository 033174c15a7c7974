"""Hover text for a symbol: what it is, its value and where the value comes
from, why it is ``n`` (or not what the user asked for), its dependencies
with their operands' values, and its help."""

from __future__ import annotations

from ..kconfig.explain_text import c_expr_text, or_terms
from ..kconfig.expr import BOOL, TRI_STR, TRISTATE, N, Y, and_terms, eval_expr, expr_symbols
from ..kconfig.symbols import Symbol
from ..kconfig.tree import Kconfig


def live_expr(e) -> str:
    """``e`` with each operand's value, computed now."""
    for sym in expr_symbols(e):
        sym.calc_value()
    return c_expr_text(e, with_values=True)


def unmet_leaves(e) -> list:
    """The ``&&`` operands of ``e`` that evaluate to ``n``."""
    return [leaf for leaf in and_terms(e) if eval_expr(leaf) == N]


def value_origin(kc: Kconfig, sym: Symbol, config_name: str | None) -> str:
    """Where the current value comes from, in words."""
    sym.calc_value()
    if sym.is_choice_value and sym.visible == Y and sym.choice is not None:
        chosen = sym.choice.selection
        if chosen is sym:
            return "the selected value of its choice"
        return f"not the choice's selection ({chosen.name if chosen else 'none'})"
    where = config_name or "the configuration"
    if sym.type in (BOOL, TRISTATE):
        if sym.visible != N and sym.has_user:
            text = f"set in {where}"
            if sym.user_tri > sym.curr_tri:
                text += f" to {TRI_STR[sym.user_tri]}, limited to {TRI_STR[sym.curr_tri]}"
            return text
        if sym.rev_dep_tri != N and sym.curr_tri <= sym.rev_dep_tri:
            selectors = [live_expr(t) for t in or_terms(sym.rev_dep) if eval_expr(t) != N]
            return "selected by " + ", ".join(selectors)
        prop = sym.default_prop()
        if prop is not None and sym.curr_tri != N:
            return f"default `{c_expr_text(prop.expr)}` at {prop.file}:{prop.line}"
        if sym.implied_tri != N and sym.curr_tri != N:
            return "implied by " + ", ".join(live_expr(t) for t in or_terms(sym.implied) if eval_expr(t) != N)
        if sym.visible == N:
            return "not visible and no default applies"
        return "no default applies"
    if sym.visible != N and sym.has_user:
        return f"set in {where}"
    prop = sym.default_prop()
    if prop is not None:
        return f"default `{c_expr_text(prop.expr)}` at {prop.file}:{prop.line}"
    return "no value"


def why_lines(sym: Symbol) -> list[str]:
    """A short explanation when the value is ``n`` or not the user's value."""
    sym.calc_value()
    lines: list[str] = []
    if sym.dir_dep is not None and sym.dir_dep_tri == N:
        for leaf in unmet_leaves(sym.dir_dep):
            lines.append(f"depends on `{live_expr(leaf)}`, which is n")
    elif sym.prompts and sym.visible == N:
        for prop in sym.prompts:
            for leaf in unmet_leaves(prop.cond):
                lines.append(f"prompt \"{prop.text}\" is hidden: `{live_expr(leaf)}` is n")
    if sym.has_user and sym.type in (BOOL, TRISTATE) and sym.user_tri != sym.curr_tri:
        if sym.rev_dep_tri > sym.user_tri:
            lines.append(f"selected to {TRI_STR[sym.rev_dep_tri]} by " + ", ".join(
                live_expr(t) for t in or_terms(sym.rev_dep) if eval_expr(t) != N))
        elif sym.visible < sym.user_tri:
            lines.append(f"its prompt is visible only up to {TRI_STR[sym.visible]}")
    return lines


def hover_markdown(kc: Kconfig, sym: Symbol, config_name: str | None = None) -> str:
    sym.calc_value()
    name = sym.name or "<choice>"
    value = sym.str_value()
    head = f"**{'choice' if sym.is_choice else 'CONFIG_' + name}** · {sym.type_name} · value **{value!s}**"
    if not sym.nodes:
        return f"**{name}** is not defined in the loaded tree (value n)"
    parts = [head, f"Value comes from: {value_origin(kc, sym, config_name)}"]
    if sym.has_user and sym.type in (BOOL, TRISTATE) and sym.user_tri != sym.curr_tri:
        parts.append(f"Your setting: **{TRI_STR[sym.user_tri]}** (does not stick)")
    elif sym.has_user and sym.user_val is not None and sym.user_val != value:
        parts.append(f"Your setting: `{sym.user_val}` (does not stick)")
    why = why_lines(sym)
    if why and (value in ("n", "") or sym.has_user):
        parts.append("Why: " + "; ".join(why))
    prompts = [p for p in sym.prompts if p.text]
    for prop in prompts:
        parts.append(f"Prompt: \"{prop.text}\"" + (f" if `{live_expr(prop.cond)}`" if prop.cond is not None else ""))
    parts.append(f"Visible: {TRI_STR[sym.visible]}")
    if sym.dir_dep is not None:
        parts.append(f"Depends on: `{live_expr(sym.dir_dep)}` → {TRI_STR[eval_expr(sym.dir_dep)]}")
    if sym.rev_dep is not None:
        parts.append(f"Selected by: `{live_expr(sym.rev_dep)}`")
    if sym.implied is not None:
        parts.append(f"Implied by: `{live_expr(sym.implied)}`")
    if sym.ranges:
        prop = sym.range_prop()
        if prop is not None:
            low, high = prop.expr
            parts.append(f"Range: {live_expr(low)} .. {live_expr(high)}")
    parts.append("Defined at: " + ", ".join(f"{f}:{line}" for f, line in sym.definitions))
    text = "  \n".join(parts)
    if sym.help:
        text += "\n\n---\n\n" + sym.help.strip("\n")
    return text


def source_markdown(kc: Kconfig, path: str) -> str:
    resolved = kc.resolve_path(path)
    if resolved is None:
        return f"`{path}`: file not found"
    return f"sources `{path}` ({resolved})"


def macro_markdown(text: str, result: str, trusted: bool) -> str:
    """What a ``$(...)`` reference expanded to."""
    note = "" if trusted else "\n\n_(tree not trusted: `$(shell,...)` expanded to nothing)_"
    shown = result if result else "(empty)"
    return f"`{text}` expands to `{shown}`{note}"
