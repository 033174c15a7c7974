"""Explanations and fixes as text: a readable tree for the terminal and
markdown for the editor.  The data comes from :mod:`.explain` and
:mod:`.howto`; nothing here decides anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .explain import Explanation, Term, explain

if TYPE_CHECKING:
    from .howto import HowTo
    from .tree import Kconfig

#: How deep the text tree follows the leaves' own reasons.
CHAIN_DEPTH = 3


def explanation_text(kc: Kconfig, ex: Explanation, prefix: str = "CONFIG_", depth: int = CHAIN_DEPTH) -> str:
    """The terminal form: the value and where it comes from, then each
    property with its operands' values, then the chain of reasons."""
    lines = [f"{prefix}{ex.name} ({ex.type}) = {_shown(ex.value)}"]
    lines.append(f"  value from: {ex.origin}")
    if ex.user_value is not None:
        sticks = "kept" if ex.user_sticks else "not kept"
        lines.append(f"  your setting: {_shown(ex.user_value)} ({sticks})")
    for reason in ex.reasons:
        lines.append(f"  ! {reason}")
    for prompt in ex.prompts:
        lines.append(f'  prompt "{prompt.text}" ({prompt.file}:{prompt.line})')
        if prompt.condition is not None:
            lines.append(f"    visible if {prompt.condition.text}  -> {prompt.condition.value}")
    if ex.depends is not None:
        lines.append(f"  depends on {ex.depends.text}  -> {ex.depends.value}")
    for dep in ex.selected_by + ex.implied_by:
        cond = f" if {dep.condition}" if dep.condition else ""
        lines.append(f"  {dep.kind}ed by {dep.by.name} [={dep.by.value}]{cond}  -> {dep.value}"
                     f"  ({dep.file}:{dep.line})")
    for default in ex.defaults:
        mark = "applies" if default.applied else "inactive" if default.condition_value == "n" else "not first"
        cond = f" if {default.condition}" if default.condition else ""
        lines.append(f"  default {default.expr}{cond}  ({mark}, {default.file}:{default.line})")
    if ex.choice is not None:
        c = ex.choice
        lines.append(f"  choice ({c.file}:{c.line}): mode {c.mode}, selected {c.selection or 'none'}"
                     + (f", your selection {c.user_selection}" if c.user_selection else ""))
    if ex.range is not None:
        r = ex.range
        lines.append(f"  range {r.low}..{r.high} ({r.file}:{r.line})"
                     + (f": {r.clamped_from} was clamped" if r.clamped_from else ""))
    if ex.leaves:
        lines.append("  held down by:")
        lines.extend(_leaf_lines(kc, ex.leaves, "    ", depth, {ex.name}))
    lines.append("  defined at " + ", ".join(f"{f}:{n}" for f, n in ex.definitions))
    return "\n".join(lines) + "\n"


def _leaf_lines(kc: Kconfig, leaves: list[Term], indent: str, depth: int, seen: set[str]) -> list[str]:
    out = []
    for leaf in leaves:
        where = "; ".join(f"{s.name} at {', '.join(f'{f}:{n}' for f, n in s.definitions) or 'nowhere'}"
                          for s in leaf.symbols)
        out.append(f"{indent}- {leaf.text}" + (f"   ({where})" if where else ""))
        if depth <= 1:
            continue
        for ref in leaf.symbols:
            if ref.name in seen:
                continue
            seen.add(ref.name)
            sym = kc.find(ref.name)
            if sym is None or not sym.nodes:
                out.append(f"{indent}    {ref.name} is not defined for this architecture")
                continue
            sub = explain(kc, sym)
            if sub.leaves:
                out.append(f"{indent}    {ref.name} = {_shown(sub.value)} because:")
                out.extend(_leaf_lines(kc, sub.leaves, indent + "      ", depth - 1, seen))
            elif sub.reasons:
                out.append(f"{indent}    {ref.name} = {_shown(sub.value)}: {sub.reasons[0]}")
            elif sub.value == "n" and sub.prompts:
                out.append(f"{indent}    {ref.name} = n: it is visible, you can set it")
    return out


def explanation_markdown(ex: Explanation, prefix: str = "CONFIG_") -> str:
    parts = [f"**{prefix}{ex.name}** · {ex.type} · value **{_shown(ex.value)}**", f"Value from: {ex.origin}"]
    if ex.reasons:
        parts.append("Why: " + "; ".join(ex.reasons))
    for leaf in ex.leaves:
        where = ", ".join(f"{f}:{n}" for s in leaf.symbols for f, n in s.definitions[:1])
        parts.append(f"- `{leaf.text}`" + (f" ({where})" if where else ""))
    for prompt in ex.prompts:
        cond = f" if `{prompt.condition.text}` → {prompt.condition.value}" if prompt.condition else ""
        parts.append(f'Prompt: "{prompt.text}"{cond}')
    if ex.depends is not None:
        parts.append(f"Depends on: `{ex.depends.text}` → {ex.depends.value}")
    for dep in ex.selected_by + ex.implied_by:
        cond = f" if `{dep.condition}`" if dep.condition else ""
        parts.append(f"{dep.kind.capitalize()}ed by {dep.by.name} [={dep.by.value}]{cond} → {dep.value}")
    default = ex.default
    if default is not None:
        parts.append(f"Default: `{default.expr}` at {default.file}:{default.line}")
    if ex.choice is not None:
        parts.append(f"Choice: mode {ex.choice.mode}, selected {ex.choice.selection or 'none'}")
    if ex.range is not None:
        parts.append(f"Range: {ex.range.low}..{ex.range.high}")
    return "  \n".join(parts)


def howto_text(result: HowTo, prefix: str = "CONFIG_") -> str:
    name = f"{prefix}{result.symbol}"
    if result.already:
        return f"{name} is already {_shown(result.target)}.\n"
    if not result.reachable:
        lines = [f"{name} cannot be made {_shown(result.target)} (now {_shown(result.current)}):"]
        lines += [f"  - {b}" for b in result.blockers] or [f"  - {result.reason}"]
        if result.reason and result.blockers and result.reason != result.blockers[0]:
            lines.append(f"  ({result.reason})")
        return "\n".join(lines) + "\n"
    lines = [f"To make {name}={_shown(result.target)} (now {_shown(result.current)}), set:"]
    lines += [f"  {prefix}{n}={v}" for n, v in result.assignments.items()]
    lines.append(f"verified: re-reading the config with these lines gives {name}={_shown(result.target)}")
    for warning in result.new_warnings:
        lines.append(f"note: {prefix}{warning} would then be selected with unmet direct dependencies")
    return "\n".join(lines) + "\n"


def howto_markdown(result: HowTo, prefix: str = "CONFIG_") -> str:
    return howto_text(result, prefix).replace("\n  ", "\n- ").strip().replace("\n", "  \n")


def assignments_summary(assignments: dict[str, str], limit: int = 6) -> str:
    """``A=y, B=m`` (shortened after ``limit`` entries)."""
    items = [f"{n}={v}" for n, v in assignments.items()]
    if len(items) > limit:
        items = items[:limit] + [f"{len(assignments) - limit} more"]
    return ", ".join(items)


def _shown(value: str) -> str:
    return value if value != "" else '""'
