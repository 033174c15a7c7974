"""Explanations and fixes as text: a readable tree for the terminal and
markdown for the editor.  The data comes from :mod:`.explain` and
:mod:`.howto`; nothing here decides anything."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .explain import Explanation
from .reasons import Reason

if TYPE_CHECKING:
    from .howto import HowTo
    from .tree import Kconfig

#: No line of the terminal text is wider than this.
WIDTH = 200
#: Names a folded list spells out in the terminal text before counting.
NAMED = 20
#: Bullet lines of reasons in a hover (the full account is one command away).
HOVER_LINES = 6
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def explanation_text(kc: Kconfig | None, ex: Explanation, prefix: str = "CONFIG_") -> str:
    """The terminal form: the value, one sentence saying why, the reasons
    with their chains, then the properties not already named."""
    lines = [f"{prefix}{ex.name} ({ex.type}) = {_shown(ex.value)}", ex.summary or f"value from: {ex.origin}"]
    if ex.account:
        lines.append("why:")
        for reason in ex.account:
            _reason_lines(reason, "  ", lines)
    lines.append("properties:")
    lines.extend("  " + line for line in _property_lines(ex))
    out: list[str] = []
    for line in lines:
        out.extend(wrap(line))
    return "\n".join(out) + "\n"


def _reason_lines(reason: Reason, indent: str, out: list[str]) -> None:
    out.append(f"{indent}- {reason.text}")
    for child in reason.children:
        _reason_lines(child, indent + "  ", out)
    if reason.folded:
        out.append(f"{indent}  - and {len(reason.folded)} more: {_named(reason.folded, NAMED)}")


def _property_lines(ex: Explanation) -> list[str]:
    lines = []
    for prompt in ex.prompts:
        cond = f" if {prompt.condition.text} -> {prompt.condition.value}" if prompt.condition is not None else ""
        lines.append(f'prompt "{prompt.text}"{cond} ({prompt.file}:{prompt.line})')
    if ex.depends is not None:
        lines.append(f"depends on {ex.depends.text} -> {ex.depends.value}")
    for default in ex.defaults:
        mark = "applies" if default.applied else "inactive" if default.condition_value == "n" else "not first"
        cond = f" if {default.condition}" if default.condition else ""
        lines.append(f"default {default.expr}{cond} ({mark}, {default.file}:{default.line})")
    if ex.range is not None:
        r = ex.range
        lines.append(f"range {r.low}..{r.high} ({r.file}:{r.line})")
    if ex.choice is not None:
        c = ex.choice
        lines.append(f"choice ({c.file}:{c.line}): selected {c.selection or 'none'}, members "
                     + ", ".join(f"{m.name} [={m.value}]" for m in c.members))
    if ex.selected_by or ex.implied_by:
        counts = []
        for kind, deps in (("select", ex.selected_by), ("imply", ex.implied_by)):
            if deps:
                on = sum(d.value != "n" for d in deps)
                counts.append(f"{len(deps)} {kind}{'s' if len(deps) > 1 else ''} of it ({on} on)")
        lines.append(", ".join(counts))
    lines.append("defined at " + ", ".join(f"{f}:{n}" for f, n in ex.definitions))
    return lines


def wrap(line: str, width: int = WIDTH) -> list[str]:
    """``line`` cut into lines of at most ``width`` characters, at the
    spaces between words and operators, continued with a deeper indent."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
    out: list[str] = []
    rest = line
    while len(rest) > width:
        cut = rest.rfind(" ", len(indent) + 1, width)
        if cut <= len(indent):
            cut = width
        out.append(rest[:cut].rstrip())
        rest = indent + rest[cut:].lstrip()
    out.append(rest)
    return out


def explanation_markdown(ex: Explanation, prefix: str = "CONFIG_", lines: int | None = None,
                         more: str | None = None) -> str:
    """Markdown: the value, the sentence, the reasons as a nested list
    (``lines`` bounds the bullets; ``more`` is what to say, or link, when
    some were left out), then the properties."""
    parts = [f"**{prefix}{ex.name}** · {ex.type} · value **{_shown(ex.value)}**  ", _md(ex.summary)]
    bullets = reasons_markdown(ex.account, lines)
    if bullets:
        parts.append("")
        parts.extend(bullets)
        if lines is not None and more and _bullet_count(ex.account) > lines:
            parts.append(f"- … {more}")
    return "\n".join(parts)


def reasons_markdown(account: list[Reason], lines: int | None = None) -> list[str]:
    """The reasons as nested markdown bullets, breadth first within the
    ``lines`` budget: every top-level reason before any chain."""
    budget = [lines if lines is not None else 10**9]
    shown: dict[int, bool] = {}

    def admit(reasons: list[Reason], level: int) -> None:
        queue = [(r, level) for r in reasons]
        while queue:
            next_queue = []
            for r, lvl in queue:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
                shown[id(r)] = True
                next_queue.extend((c, lvl + 1) for c in r.children)
            queue = next_queue

    admit(account, 0)
    out: list[str] = []

    def emit(r: Reason, level: int) -> None:
        if not shown.get(id(r)):
            return
        text = _md(r.text)
        if r.folded:
            text += f" (and {len(r.folded)} more: {_md(_named(r.folded, 6))})"
        out.append("  " * level + "- " + text)
        for child in r.children:
            emit(child, level + 1)

    for r in account:
        emit(r, 0)
    return out


def _bullet_count(account: list[Reason]) -> int:
    return sum(1 for r in account for _ in r.walk())


def _md(text: str) -> str:
    """Plain text safe in markdown: no emphasis from ``*`` and nothing that
    reads as an HTML tag; comparisons (``X<5``) stay as they are."""
    return _TAG_START.sub(r"\\<", text.replace("*", "\\*"))


def _named(names: list[str], limit: int) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} others"


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
