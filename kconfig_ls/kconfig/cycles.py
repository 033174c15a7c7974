"""Recursive dependency detection (``sym_check_deps`` in symbol.c).

A symbol may not depend on itself through ``depends on``, ``select``,
``imply``, prompt or default conditions, default values or choice
membership.  The C tool reports each cycle it meets while visiting symbols
in its hash-table order and then refuses the tree; :func:`find_cycles`
returns the same reports, as text (for the conf-compatible CLI) and as
diagnostics (for editors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import Diagnostic, Severity
from .menu import P_CHOICE, P_DEFAULT, P_IMPLY, P_SELECT, P_SYMBOL, MenuNode, Property

if TYPE_CHECKING:
    from .symbols import Symbol
    from .tree import Kconfig

_DIR, _REV, _IMPLIED, _VALUE = "dir_dep", "rev_dep", "implied", "value"

_FOOTER = (
    "For a resolution refer to Documentation/kbuild/kconfig-language.rst\n"
    'subsection "Kconfig recursive dependency limitations"\n'
)


@dataclass
class CycleReport:
    """One recursive dependency: the C tool's message and one diagnostic
    per link of the chain."""

    text: str
    links: list[Diagnostic] = field(default_factory=list)


class _Frame:
    __slots__ = ("sym", "prop", "kind")

    def __init__(self, sym: Symbol):
        self.sym = sym
        self.prop: Property | None = None
        self.kind: str | None = None


_FOOTER_4X = (
    "For a resolution refer to Documentation/kbuild/kconfig-language.txt\n"
    'subsection "Kconfig recursive dependency limitations"\n'
)


class _Checker:
    def __init__(self, member_choices: bool, footer_per_link: bool = False,
                 choice_deps_as_symbol: bool = False) -> None:
        #: 4.x: the pointer to the documentation before every link.
        self.footer_per_link = footer_per_link
        #: 4.x words a choice's own dependency as a symbol's.
        self.choice_deps_as_symbol = choice_deps_as_symbol
        #: Member-choice generations print each link without a location
        #: and name the choice block instead of the choice symbol.
        self.member_choices = member_choices
        self.stack: list[_Frame] = []
        self.checking: set[int] = set()
        self.checked: set[int] = set()
        #: ids of sub-expressions found free of cycles.
        self.clean: set[int] = set()
        self.reports: list[CycleReport] = []

    def check(self, sym: Symbol) -> Symbol | None:
        key = id(sym)
        if key in self.checking:
            self.report(sym)
            return sym
        if key in self.checked:
            return None
        if sym.choice is not None:
            self.stack.append(_Frame(sym))
            try:
                return self.check(sym.choice)
            finally:
                self.stack.pop()
        if sym.is_choice:
            return self.check_choice(sym)
        self.checking.add(key)
        self.checked.add(key)
        try:
            return self.check_symbol(sym)
        finally:
            self.checking.discard(key)

    def check_expr(self, e) -> Symbol | None:
        """Check the symbols of ``e`` left to right; the first cycle found.

        Dependencies carry their menus' dependencies, so the same
        sub-expressions come up again and again: one found free of cycles
        is not walked again.  That holds: its symbols were all checked then,
        and a checked symbol never goes back on the path being checked."""
        if e is None:
            return None
        if e.__class__ is tuple:
            key = id(e)
            if key in self.clean:
                return None
            for operand in e[1:]:
                found = self.check_expr(operand)
                if found is not None:
                    return found
            self.clean.add(key)
            return None
        key = id(e)
        if key in self.checked and key not in self.checking:
            return None  # already verified (what check() would return at once)
        return self.check(e)

    def check_symbol(self, sym: Symbol) -> Symbol | None:
        frame = _Frame(sym)
        self.stack.append(frame)
        try:
            for kind, e in ((_DIR, sym.dir_dep), (_REV, sym.rev_dep), (_IMPLIED, sym.implied)):
                frame.kind = kind
                found = self.check_expr(e)
                if found is not None:
                    return found
            frame.kind = None
            for prop in sym.props:
                if prop.kind in (P_CHOICE, P_SELECT, P_IMPLY):
                    continue
                if prop.kind == P_SYMBOL and self.member_choices:
                    continue  # (no such property since Linux 6.11)
                frame.prop = prop
                found = self.check_expr(prop.cond)
                if found is not None:
                    return found
                if prop.kind != P_DEFAULT or sym.is_choice:
                    continue
                frame.kind = _VALUE
                found = self.check_expr(prop.expr)
                if found is not None:
                    return found
                frame.kind = None
            return None
        finally:
            self.stack.pop()

    def check_choice(self, choice: Symbol) -> Symbol | None:
        self.stack.append(_Frame(choice))
        values = choice.choice_values
        for value in values:
            self.checking.add(id(value))
            self.checked.add(id(value))
        self.checking.add(id(choice))
        self.checked.add(id(choice))
        found = self.check_symbol(choice)
        self.checking.discard(id(choice))
        if found is None:
            for value in values:
                found = self.check_symbol(value)
                if found is not None:
                    break
        for value in values:
            self.checking.discard(id(value))
        if found is not None and found.choice is choice:
            found = choice
        self.stack.pop()
        return found

    def report(self, last: Symbol) -> None:
        pushed = False
        if last.choice is not None:
            self.stack.append(_Frame(last))
            pushed = True
            last = last.choice
        start = None
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].sym is last:
                start = i
                break
        if start is None:
            self.reports.append(CycleReport("unexpected recursive dependency error\n"))
            if pushed:
                self.stack.pop()
            return
        lines: list[str] = []
        links: list[Diagnostic] = []
        chain = self.stack[start:]
        for j, frame in enumerate(chain):
            sym = frame.sym
            next_sym = chain[j + 1].sym if j + 1 < len(chain) else last
            prop = frame.prop or (sym.props[0] if sym.props else None)
            node = None
            if sym.is_choice or sym.is_choice_value:
                # (The C tool's loop leaves its property there too, and the
                # header names it.)
                for p in sym.props:
                    prop, node = p, p.node
                    if node is not None:
                        break
            name = sym.name or "<choice>"
            other = next_sym.name or "<choice>"
            if self.member_choices:
                where, what = self._link(frame, sym, next_sym, prop, node)
                if j == 0:
                    lines.append("error: recursive dependency detected!\n")
                lines.append(f"\t{what}\n")
                links.append(Diagnostic(where[0], where[1], f"recursive dependency: {what}", Severity.ERROR,
                                        code="recursive-dep"))
                continue
            if j == 0 and prop is not None:
                lines.append(f"{prop.file}:{prop.line}:error: recursive dependency detected!\n")
            if sym.is_choice and self.choice_deps_as_symbol and prop is not None:
                where = (prop.file, prop.line)
                what = f"symbol {name} depends on {other}"
            elif sym.is_choice:
                where = (node.file, node.line)
                what = f"choice {name} contains symbol {other}"
            elif sym.is_choice_value:
                where = (node.file, node.line)
                what = f"symbol {name} is part of choice {other}"
            else:
                # (A symbol that is only selected has no property at all;
                # the C tool crashes there: the link gets no place.)
                where = (prop.file, prop.line) if prop is not None else ("", 0)
                kind = prop.kind if prop is not None else "property"
                if frame.kind == _DIR:
                    what = f"symbol {name} depends on {other}"
                elif frame.kind == _REV:
                    what = f"symbol {name} is selected by {other}"
                elif frame.kind == _IMPLIED:
                    what = f"symbol {name} is implied by {other}"
                elif frame.kind == _VALUE:
                    what = f"symbol {name} {kind} value contains {other}"
                else:
                    what = f"symbol {name} {kind} is visible depending on {other}"
            if self.footer_per_link:
                lines.append(_FOOTER_4X)
            lines.append(f"{where[0]}:{where[1]}:\t{what}\n")
            links.append(
                Diagnostic(where[0], where[1], f"recursive dependency: {what}", Severity.ERROR, code="recursive-dep")
            )
        lines.append("" if self.footer_per_link else _FOOTER + "\n")
        self.reports.append(CycleReport("".join(lines), links))
        if pushed:
            self.stack.pop()

    @staticmethod
    def _link(frame: _Frame, sym: Symbol, next_sym: Symbol, prop: Property | None, node) -> tuple[tuple, str]:
        """One link as member-choice generations word it, and where it is."""
        name = sym.name or "<choice>"
        where = (node.file, node.line) if node is not None else (prop.file, prop.line) if prop else ("", 0)
        if next_sym.is_choice:
            block = next_sym.nodes[0]
            return (block.file, block.line), f"symbol {name} is part of choice block at {block.file}:{block.line}"
        if frame.kind == _DIR:
            return where, f"symbol {name} depends on {next_sym.name}"
        if frame.kind == _REV:
            return where, f"symbol {sym.name} is selected by {next_sym.name}"
        if frame.kind == _IMPLIED:
            return where, f"symbol {sym.name} is implied by {next_sym.name}"
        kind = frame.prop.kind if frame.prop is not None else "unknown"
        if frame.kind == _VALUE:
            return where, f"symbol {name} {kind} value contains {next_sym.name}"
        return where, f"symbol {name} {kind} is visible depending on {next_sym.name}"


def find_cycles(kc: Kconfig, after_entry: Callable[[MenuNode, list[CycleReport]], None] | None = None
                ) -> list[CycleReport]:
    """Every recursive dependency, in the order the C tool reports them
    (its symbol table's order, or menu order for member choices).  With
    member choices the C tool checks each entry's other rules right after
    its cycles: ``after_entry(node, new_reports)`` is called for each
    entry with a symbol, in menu order, with the reports it added."""
    checker = _Checker(kc.gen.member_choices, kc.gen.cycle_footer_per_link, kc.gen.cycle_choice_deps_as_symbol)
    if kc.gen.member_choices:
        for node in kc.walk():
            if node.sym is not None:
                before = len(checker.reports)
                checker.check(node.sym)
                if after_entry is not None:
                    after_entry(node, checker.reports[before:])
    else:
        for sym in kc.hash_order():
            checker.check(sym)
    return checker.reports
