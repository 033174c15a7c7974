"""Reading C-family text as the C preprocessor sees it: directives,
conditional groups and the ``CONFIG_`` names used, with their places.

Comments and string or character literals are blanked out first (names
inside them are no uses); a directive may go on over lines that end in a
backslash.  Positions are 1-based lines and 0-based columns of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The kernel's ``include/linux/kconfig.h`` tests.
CONFIG_TESTS = ("IS_ENABLED", "IS_BUILTIN", "IS_MODULE", "IS_REACHABLE")
_COMMENT_OR_LITERAL = re.compile(r"""/\*.*?(?:\*/|\Z)|//(?:\\\n|[^\n])*|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?""",
                                 re.S)
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*([A-Za-z_]\w*)?", re.M)
_NOT_NEWLINE = re.compile(r"[^\n]")
_NAME = re.compile(r"\b[A-Za-z_]\w*")


@dataclass(frozen=True)
class Use:
    """A name starting with the config prefix, where it is used."""

    name: str
    line: int
    col: int
    #: ``ifdef`` (``#ifdef``/``#ifndef``/``defined``), one of
    #: :data:`CONFIG_TESTS`, or ``value`` (the macro itself).
    form: str

    @property
    def end_col(self) -> int:
        return self.col + len(self.name)


@dataclass
class Directive:
    """A preprocessor line: its keyword and the rest (continuations
    joined, comments blanked), from ``line`` to ``end_line``."""

    keyword: str
    text: str
    line: int
    end_line: int
    #: Where ``text`` starts: (line, col) of each of its characters is
    #: found through :meth:`place`.
    starts: list[tuple[int, int, int]] = field(default_factory=list)

    def place(self, offset: int) -> tuple[int, int]:
        """(line, col) of character ``offset`` of :attr:`text`."""
        line, col = self.line, 0
        for start, at_line, at_col in self.starts:
            if start > offset:
                break
            line, col = at_line, at_col + offset - start
        return line, col


@dataclass
class Branch:
    """One arm of a conditional group: the directive that opens it (``if``,
    ``ifdef``, ``ifndef``, ``elif``, ``else``) and its lines."""

    directive: Directive
    #: The lines after the directive up to the next arm's directive.
    first_line: int
    last_line: int


@dataclass
class Group:
    """``#if``/``#ifdef``/``#ifndef`` ... ``#endif`` with its arms."""

    branches: list[Branch]
    #: The arm this group lies in (None: at the top of the file).
    parent: Branch | None
    #: The line of its ``#endif`` (None: the file ends first).
    endif_line: int | None


@dataclass
class CppFile:
    directives: list[Directive]
    groups: list[Group]
    uses: list[Use]
    #: Names the file itself ``#define``s or ``#undef``s: their values are
    #: not the configuration's.
    redefined: set[str]


def blank_comments(text: str) -> str:
    """``text`` with every comment and string/character literal replaced by
    spaces (newlines kept, so every position stays where it was)."""
    def blank(match: re.Match) -> str:
        found = match.group()
        return " " * len(found) if "\n" not in found else _NOT_NEWLINE.sub(" ", found)
    return _COMMENT_OR_LITERAL.sub(blank, text)


class _Lines:
    """Line numbers of offsets asked in increasing order (counted, not
    split: kernel trees have files of 100,000 lines)."""

    def __init__(self, text: str):
        self.text = text
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line

    def start(self, offset: int) -> int:
        """The offset where the line of ``offset`` starts."""
        return self.text.rfind("\n", 0, offset) + 1


def scan(text: str, prefix: str = "CONFIG_") -> CppFile:
    """Directives, conditional groups and uses of ``prefix`` names."""
    clean = blank_comments(text.replace("\r\n", "\n").replace("\r", "\n"))
    directives: list[Directive] = []
    spans: list[tuple[int, int]] = []  # (start, end) offsets of each directive
    lines = _Lines(clean)
    for match in _DIRECTIVE.finditer(clean):
        if spans and match.start() < spans[-1][1]:
            continue  # (a continuation line of the directive before)
        first = lines.at(match.start())
        starts, pieces, offset = [], [], 0
        line, pos = first, match.end()
        col = match.end() - match.start()
        while True:
            eol = clean.find("\n", pos)
            eol = len(clean) if eol < 0 else eol
            piece = clean[pos:eol]
            continued = piece.endswith("\\")
            if continued:
                piece = piece[:-1]
            starts.append((offset, line, col))
            pieces.append(piece)
            offset += len(piece)
            if not continued or eol >= len(clean):
                break
            pos, line, col = eol + 1, line + 1, 0
        spans.append((match.start(), eol))
        directives.append(Directive(match.group(1) or "", "".join(pieces), first, line, starts))
    uses = _uses(clean, directives, spans, prefix)
    groups = _groups(directives, clean.count("\n") + 1)
    redefined = set()
    for d in directives:
        if d.keyword in ("define", "undef"):
            name = _NAME.match(d.text.lstrip())
            if name is not None:
                redefined.add(name.group())
    return CppFile(directives, groups, uses, redefined)


def _uses(clean: str, directives: list[Directive], spans: list[tuple[int, int]], prefix: str) -> list[Use]:
    pattern = re.compile(r"\b" + re.escape(prefix) + r"\w+")
    uses = []
    for d in directives:
        for m in pattern.finditer(d.text):
            line, col = d.place(m.start())
            uses.append(Use(m.group(), line, col, _form(d.text, m.start(), d.keyword)))
    lines = _Lines(clean)
    span = 0
    for m in pattern.finditer(clean):
        while span < len(spans) and spans[span][1] < m.start():
            span += 1
        if span < len(spans) and spans[span][0] <= m.start():
            continue  # (in a directive: above)
        line_start = lines.start(m.start())
        uses.append(Use(m.group(), lines.at(m.start()), m.start() - line_start,
                        _form(clean[line_start:m.end()], m.start() - line_start, "")))
    uses.sort(key=lambda u: (u.line, u.col))
    return uses


_BEFORE = re.compile(r"(?:\b(defined)|\b(" + "|".join(CONFIG_TESTS) + r"))\s*\(?\s*$")


def _form(text: str, start: int, keyword: str) -> str:
    """How the name at ``start`` of ``text`` is used."""
    if keyword in ("ifdef", "ifndef", "elifdef", "elifndef") and not text[:start].strip():
        return "ifdef"
    match = _BEFORE.search(text, 0, start)
    if match is not None:
        return "ifdef" if match.group(1) else match.group(2)
    return "value"


def _groups(directives: list[Directive], line_count: int) -> list[Group]:
    groups: list[Group] = []
    stack: list[Group] = []

    def close_arm(group: Group, before_line: int) -> None:
        group.branches[-1].last_line = before_line - 1

    for d in directives:
        if d.keyword in ("if", "ifdef", "ifndef"):
            group = Group([Branch(d, d.end_line + 1, line_count)], stack[-1].branches[-1] if stack else None, None)
            groups.append(group)
            stack.append(group)
        elif d.keyword in ("elif", "elifdef", "elifndef", "else") and stack:
            close_arm(stack[-1], d.line)
            stack[-1].branches.append(Branch(d, d.end_line + 1, line_count))
        elif d.keyword == "endif" and stack:
            group = stack.pop()
            close_arm(group, d.line)
            group.endif_line = d.line
    return groups
