"""One file's lexing, kept between loads of a tree in a packed form.

The language server keeps the statements of every file it lexed, so a load
after an edit lexes only the files whose text or macro state changed
(parser.py, ``FileParser._run_with_cache``).  As objects, a kernel tree's
83,000 statements and 190,000 tokens took some 40 MB, a third of the
server; packed here (token kinds and words shared, offsets in arrays) they
take 12 MB, and the statements are made again when a load replays the file
(a full re-load of x86_64 took about as long as with the objects kept).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator

from .lexer import QUOTE, Statement, Token

#: Token values that are not shared with other tokens: a string's text.
_UNSHARED = (QUOTE,)


class LexedFile:
    """One file's statements as lexed: the warnings the lexer gave, whether
    any macro was expanded, the macro state at the start, and the state
    (plus the lexer position) after each ``source``."""

    __slots__ = ("_kinds", "_values", "_offsets", "_shape", "_help", "warnings", "expanded", "start_state",
                 "after_source", "expansions")

    def __init__(self, warnings: list[tuple[int, str]], start_state: int):
        self.warnings = warnings
        self.start_state = start_state
        self.expanded = False
        self.after_source: dict[int, tuple[int, int, int]] = {}
        self.expansions: list[tuple[int, int, str]] = []
        #: Every token's kind and value, in order.
        self._kinds: list[str] = []
        self._values: list[str] = []
        #: start, end of every token.
        self._offsets = array("q")
        #: line, token count, help end line, follows help (0/1) of every statement.
        self._shape = array("q")
        #: statement index -> its help text.
        self._help: dict[int, str] = {}

    def add(self, stmt: Statement) -> int:
        """Keep ``stmt``; returns its index."""
        index = len(self)
        intern = sys.intern
        for token in stmt.tokens:
            kind = intern(token.kind)
            self._kinds.append(kind)
            self._values.append(token.value if kind in _UNSHARED else intern(token.value))
            self._offsets.append(token.start)
            self._offsets.append(token.end)
        self._shape.extend((stmt.line, len(stmt.tokens), stmt.help_end_line, int(stmt.follows_help)))
        if stmt.help_text is not None:
            self._help[index] = stmt.help_text
        return index

    def __len__(self) -> int:
        return len(self._shape) // 4

    def statements(self) -> Iterator[Statement]:
        """The statements kept, made again, in order."""
        kinds, values, offsets, shape, helps = self._kinds, self._values, self._offsets, self._shape, self._help
        at = 0
        for index in range(len(self)):
            line, count, help_end_line, follows_help = shape[4 * index: 4 * index + 4]
            tokens = [Token(kinds[i], values[i], offsets[2 * i], offsets[2 * i + 1]) for i in range(at, at + count)]
            at += count
            yield Statement(line, tokens, helps.get(index), help_end_line, bool(follows_help))
