"""Hover text for a symbol: what it is, its value and where the value comes
from, why it is ``n`` (or not what the user asked for), its dependencies
with their operands' values, and its help."""

from __future__ import annotations

from ..kconfig import generation as generations
from ..kconfig.explain import Explanation, explain
from ..kconfig.explain_report import HOVER_LINES, assignments_summary, reasons_markdown
from ..kconfig.expr import BOOL, TRISTATE
from ..kconfig.howto import HowTo
from ..kconfig.symbols import Symbol
from ..kconfig.tree import Kconfig
from .project import Project


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


def symbol_hover(project: Project, sym: Symbol, fix_seconds: float, more: str | None = None) -> str:
    """The hover of a symbol in a loaded project, with the first verified
    fix when it is ``n`` or not the user's value (the search is bounded by
    ``fix_seconds`` and cached per load); ``more`` says where the full
    explanation is (a command link for clients that run them)."""
    config_name = project.relative(project.config_path)
    if not sym.nodes:
        return hover_markdown(project.kc, sym, config_name)
    ex = explain(project.kc, sym, config_name, project.config_text, project.all_arch_definitions)
    fix = None
    target = fix_target(sym, ex)
    if target is not None:
        try:
            fix = project.how_to(sym.name, target, time_limit=fix_seconds)
        except (KeyError, ValueError):
            fix = None
    return hover_markdown(project.kc, sym, config_name, fix, ex, more)


def hover_markdown(
    kc: Kconfig,
    sym: Symbol,
    config_name: str | None = None,
    fix: HowTo | None = None,
    ex: Explanation | None = None,
    more: str | None = None,
) -> str:
    """Type and value, the sentence saying why, the first reasons (the
    rest behind ``more``), the first verified fix, then the properties
    (``ex``: the symbol's explanation, if already made)."""
    if not sym.nodes:
        return f"**{sym.name}** is not defined in the loaded tree (value n)"
    ex = ex or explain(kc, sym, config_name)
    value = ex.value
    name = "choice" if sym.is_choice else "CONFIG_" + ex.name
    head = [f"**{name}** · {sym.type_name} · value **{_shown(value)}**", _plain_md(ex.summary)]
    bullets = reasons_markdown(ex.account, HOVER_LINES)
    if len(bullets) < sum(1 for r in ex.account for _ in r.walk()):
        bullets.append(f"- … {more or _more_hint(ex.name)}")
    parts = ["  \n".join(head), "\n".join(bullets)] if bullets else ["  \n".join(head)]
    details = []
    if fix is not None and fix_markdown(fix):
        details.append(fix_markdown(fix))
    for prompt in ex.prompts:
        cond = f" if `{_clip(prompt.condition.text)}`" if prompt.condition is not None else ""
        details.append(f'Prompt: "{prompt.text}"{cond} · visible {ex.visibility}')
    if ex.depends is not None and all(p.condition is None or p.condition.text != ex.depends.text
                                      for p in ex.prompts):
        details.append(f"Depends on: `{_clip(ex.depends.text)}` → {ex.depends.value}")
    if ex.range is not None:
        details.append(f"Range: {ex.range.low} .. {ex.range.high}")
    if ex.choice is not None and not sym.is_choice:
        details.append(f"Choice: selected {ex.choice.selection or 'none'}")
    details.append("Defined at: " + ", ".join(f"{f}:{line}" for f, line in ex.definitions))
    if kc.gen is not generations.NEWEST:
        details.append(f"_Values follow kconfig {kc.gen.name} rules ({kc.gen.description})_")
    parts.append("  \n".join(details))
    text = "\n\n".join(parts)
    if sym.help:
        text += "\n\n---\n\n" + sym.help.strip("\n")
    return text


def _more_hint(name: str) -> str:
    return f"the full explanation: command `kconfig.explain {name}` or `kconfig-ls why {name}`"


def _plain_md(text: str) -> str:
    return text.replace("*", "\\*")


def _clip(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown(value: str) -> str:
    return value if value != "" else '""'


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
