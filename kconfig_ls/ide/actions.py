"""Quick fixes: "Make FOO=y (sets A=y, B=m)" on a config line whose value
will not stick, and "Meet FOO's dependencies" on an unmet-dependency
warning.  Each carries the text changes to the config file, computed from
a verified answer of the engine's ``how_to``."""

from __future__ import annotations

from dataclasses import dataclass

from ..kconfig.explain_report import assignments_summary
from ..kconfig.howto import HowTo, TargetError
from ..kconfig.scenario import ConfigEdit
from .project import Project


@dataclass(frozen=True)
class TextChange:
    """Replace the text from (start_line, start_col) to (end_line,
    end_col), 0-based, with ``text``."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    text: str


@dataclass
class FixAction:
    title: str
    #: The config file the changes apply to (absolute path).
    path: str
    changes: list[TextChange]
    answer: HowTo


def text_changes(base_text: str, edits: list[ConfigEdit]) -> list[TextChange]:
    """Line edits as ranged text changes against ``base_text``."""
    lines = base_text.split("\n")
    changes = []
    for edit in edits:
        if edit.line is None:
            continue
        row = edit.line - 1
        if edit.text is None:
            changes.append(TextChange(row, 0, row + 1, 0, ""))
        else:
            changes.append(TextChange(row, 0, row, len(lines[row]), edit.text))
    appended = [e.text for e in edits if e.line is None and e.text is not None]
    if appended:
        last = len(lines) - 1
        block = "\n".join(appended) + "\n"
        if lines[last] != "":
            block = "\n" + block
        changes.append(TextChange(last, len(lines[last]), last, len(lines[last]), block))
    return changes


def fix_action(project: Project, name: str, target: str, path: str, base_text: str) -> FixAction | None:
    """The quick fix giving ``name`` the value ``target`` (or meeting its
    dependencies for ``"deps"``) by editing ``base_text``, the content of
    config file ``path``; None when no verified fix exists."""
    try:
        answer = project.how_to(name, target, base_text)
    except (KeyError, TargetError):
        return None
    if not answer.reachable or not answer.assignments:
        return None
    sets = assignments_summary(answer.assignments)
    if target == "deps":
        title = f"Meet {name}'s dependencies (sets {sets})"
    else:
        title = f"Make {name}={target} (sets {sets})"
    return FixAction(title, path, text_changes(base_text, answer.edits), answer)
