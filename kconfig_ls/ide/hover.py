"""Hover text for a symbol: what it is, its value and where the value comes
from, why it is ``n`` (or not what the user asked for), its dependencies
with their operands' values, and its help."""

from __future__ import annotations

from ..kconfig import generation as generations
from ..kconfig.explain import Explanation, explain
from ..kconfig.explain_report import assignments_summary
from ..kconfig.explain_text import readable_expr
from ..kconfig.expr import BOOL, TRISTATE, expr_symbols
from ..kconfig.howto import HowTo
from ..kconfig.symbols import Symbol
from ..kconfig.tree import Kconfig
from .project import Project


def live_expr(e) -> str:
    """``e`` with each operand's value, computed now."""
    for sym in expr_symbols(e):
        sym.calc_value()
    return readable_expr(e)


def fix_target(sym: Symbol, ex: Explanation) -> str | None:
    """The value a hover's "fix" aims at: the user's value when it did not
    stick, else ``y`` for a bool/tristate that is ``n``; None for no fix."""
    if sym.is_choice or not sym.nodes:
        return None
    if ex.user_sticks is False and ex.user_value is not None:
        return ex.user_value
    if sym.type in (BOOL, TRISTATE) and ex.value == "n":
        # A visible symbol the user answered n: their decision, no fix.
        if ex.user_value == "n" and ex.visibility != "n":
            return None
        return "y"
    return None


def fix_markdown(fix: HowTo) -> str:
    if fix.reachable and fix.assignments:
        return f"**Fix** (verified): set {assignments_summary(fix.assignments)}"
    if not fix.reachable and fix.blockers:
        return f"**Cannot be {fix.target}:** {fix.blockers[0]}"
    return ""


def symbol_hover(project: Project, sym: Symbol, fix_seconds: float) -> str:
    """The hover of a symbol in a loaded project, with the first verified
    fix when it is ``n`` or not the user's value (the search is bounded by
    ``fix_seconds`` and cached per load)."""
    config_name = project.relative(project.config_path)
    if not sym.nodes:
        return hover_markdown(project.kc, sym, config_name)
    ex = explain(project.kc, sym, config_name)
    fix = None
    target = fix_target(sym, ex)
    if target is not None:
        try:
            fix = project.how_to(sym.name, target, time_limit=fix_seconds)
        except (KeyError, ValueError):
            fix = None
    return hover_markdown(project.kc, sym, config_name, fix, ex)


def hover_markdown(
    kc: Kconfig, sym: Symbol, config_name: str | None = None, fix: HowTo | None = None, ex: Explanation | None = None
) -> str:
    """Type, value and its origin, a "why" with the first fix when the value
    is ``n`` or not the user's, then the properties with live values
    (``ex``: the symbol's explanation, if already made)."""
    if not sym.nodes:
        return f"**{sym.name}** is not defined in the loaded tree (value n)"
    ex = ex or explain(kc, sym, config_name)
    value = ex.value
    name = "choice" if sym.is_choice else "CONFIG_" + ex.name
    parts = [f"**{name}** · {sym.type_name} · value **{value}**", f"Value comes from: {ex.origin}"]
    if ex.user_sticks is False:
        parts.append(f"Your setting: **{ex.user_value}** (does not stick)")
    if ex.reasons and (value in ("n", "") or ex.user_sticks is False):
        parts.append("Why: " + "; ".join(ex.reasons))
        if fix is not None and fix_markdown(fix):
            parts.append(fix_markdown(fix))
    for prompt in ex.prompts:
        cond = f" if `{prompt.condition.text}`" if prompt.condition is not None else ""
        parts.append(f'Prompt: "{prompt.text}"{cond}')
    parts.append(f"Visible: {ex.visibility}")
    if ex.depends is not None:
        parts.append(f"Depends on: `{ex.depends.text}` → {ex.depends.value}")
    if sym.rev_dep is not None:
        parts.append(f"Selected by: `{live_expr(sym.rev_dep)}`")
    if sym.implied is not None:
        parts.append(f"Implied by: `{live_expr(sym.implied)}`")
    if ex.range is not None:
        parts.append(f"Range: {ex.range.low} .. {ex.range.high}")
    if ex.choice is not None and not sym.is_choice:
        parts.append(f"Choice: selected {ex.choice.selection or 'none'}")
    parts.append("Defined at: " + ", ".join(f"{f}:{line}" for f, line in ex.definitions))
    if kc.gen is not generations.NEWEST:
        parts.append(f"_Values follow kconfig {kc.gen.name} rules ({kc.gen.description})_")
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
