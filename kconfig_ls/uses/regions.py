"""The lines a configuration compiles out of a C-family file.

The same rules serve Makefiles (:mod:`.make`), whose groups have the
same shape.  An arm of a conditional group is dead when its own condition is known to
be false, or an earlier arm's is known to be true; an arm whose condition
cannot be known (other macros) is left alone, and so is everything that
depends on which of the arms around it is taken.  Groups inside a dead arm
are not looked at: the arm's lines cover them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from . import cexpr
from .cpp import Branch, CppFile, Group
from .macros import ConfigMacros

_FIRST_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


@dataclass(frozen=True)
class DeadRange:
    """Lines ``first_line``..``last_line`` (1-based, inclusive) are compiled out."""

    first_line: int
    last_line: int
    #: The configuration macros that decide it, in the deciding condition.
    names: tuple[str, ...]
    #: The arm is dead because an earlier one is taken (else: its own
    #: condition is false).
    earlier_taken: bool
    #: The line of the deciding directive.
    directive_line: int


def dead_ranges(cpp: CppFile, macros: ConfigMacros) -> list[DeadRange]:
    """Every compiled-out arm of C-family file ``cpp`` under ``macros``."""
    return dead_arms(cpp.groups, lambda branch: condition(branch, macros, cpp.redefined))


def dead_arms(groups: list[Group], decide: Callable[[Branch], cexpr.Outcome]) -> list[DeadRange]:
    """Every dead arm of ``groups`` (outer groups first), in file order,
    given the value of each arm's own condition."""
    dead: list[DeadRange] = []
    dead_arms: set[int] = set()
    for group in groups:
        if group.parent is not None and id(group.parent) in dead_arms:
            continue
        taken: tuple[Branch, cexpr.Outcome] | None = None
        for branch in group.branches:
            if taken is not None:
                outcome, earlier = taken[1], True
                decided_at = taken[0].directive.line
            else:
                outcome, earlier = decide(branch), False
                decided_at = branch.directive.line
                if outcome.value is not None and outcome.value != 0:
                    taken = (branch, outcome)
                    continue
                if outcome.value is None:
                    continue
            dead_arms.add(id(branch))
            if branch.first_line <= branch.last_line:
                dead.append(DeadRange(branch.first_line, branch.last_line, tuple(dict.fromkeys(outcome.names)),
                                      earlier, decided_at))
    dead.sort(key=lambda r: r.first_line)
    return dead


def condition(branch: Branch, macros: ConfigMacros, local: set[str]) -> cexpr.Outcome:
    """The value of the condition that opens ``branch``."""
    d = branch.directive
    if d.keyword == "else":
        return cexpr.Outcome(1)
    if d.keyword in ("ifdef", "ifndef", "elifdef", "elifndef"):
        match = _FIRST_NAME.match(d.text)
        if match is None:
            return cexpr.Outcome(None)
        outcome = cexpr.ifdef(match.group(1), macros, local)
        if d.keyword.endswith("ndef") and outcome.value is not None:
            outcome = cexpr.Outcome(int(not outcome.value), outcome.names)
        return outcome
    return cexpr.evaluate(d.text, macros, local)
