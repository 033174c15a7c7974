"""Tokenizer for Kconfig files, statement by statement.

Kconfig is line oriented: a statement is the tokens of one logical line
(backslash-newline joins lines).  The rules follow the kernel's
``scripts/kconfig/lexer.l``: keywords are only recognised as whole words,
``$(...)`` inside a word or a quoted string is expanded on the spot by the
preprocessor, ``NAME = value`` / ``:=`` / ``+=`` at the start of a statement
takes the rest of the line verbatim, and the text after a ``help`` line is
collected with the C lexer's exact indentation rules.

Every token keeps its start and end offset in the file text, so callers can
turn them into (line, column) spans.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from . import probes
from .preprocess import Preprocessor

if TYPE_CHECKING:
    from .generation import Generation

#: Token kinds that are not keywords.
WORD = "WORD"
QUOTE = "QUOTE"
ASSIGN_VAL = "ASSIGN_VAL"

KEYWORDS = frozenset(
    """bool choice comment config def_bool def_tristate default depends endchoice endif
    endmenu help hex if imply int mainmenu menu menuconfig modules on optional prompt
    range select source string tristate visible""".split()
)

_BLANKS_RE = re.compile(r"[ \t]*")


#: A whole string with nothing to interpret inside (text: group 1).
_SIMPLE_STRING = {q: re.compile(rf"{q}([^{q}\\$\n]*){q}") for q in ("\"", "'")}
#: Plain characters inside a string, up to one that needs a look.
_STRING_RUN = re.compile(r"""[^\\$\n'"]*""")


@cache
def _token_pattern(word_chars: str) -> re.Pattern:
    """One step of the statement scanner: blanks, then the next token of a
    line (a word of the generation's word characters, an operator, a quote
    opening a string), a newline, a backslash joining lines, a comment, or
    any other character (which the C lexer ignores with a warning)."""
    word = f"[A-Za-z0-9_{re.escape(word_chars)}]+"
    return re.compile(
        rf"[ \t]*(?:(?P<word>{word})|(?P<op>\|\||&&|!=|<=|>=|:=|\+=|[=<>!()])|(?P<nl>\n)"
        r"""|(?P<quote>["'])|(?P<cont>\\\n)|(?P<skip>#[^\n]*|\Z)|(?P<other>.))""",
        re.S,
    )


@dataclass(slots=True)
class Token:
    kind: str
    value: str
    start: int  # offset of the first character in the file text
    end: int  # offset after the last character


@dataclass(slots=True)
class Statement:
    """One logical line: its tokens, its line number (of the first token, as
    the C tool reports it) and, for a ``help`` line, the help text."""

    line: int
    tokens: list[Token]
    help_text: str | None = None
    help_end_line: int = 0
    follows_help: bool = False


def assignment(tokens: list[Token]) -> tuple[str, str, str] | None:
    """(name, value, operator) of a macro assignment statement (``NAME =
    value``, ``:=``, ``+=``; the value may be empty), None for any other."""
    if len(tokens) >= 2 and tokens[0].kind == WORD and tokens[1].kind in ("=", ":=", "+="):
        value = tokens[2].value if len(tokens) > 2 and tokens[2].kind == ASSIGN_VAL else ""
        return tokens[0].value, value, tokens[1].kind
    return None


class LineIndex:
    """Maps offsets in a text to 1-based lines and 0-based columns."""

    def __init__(self, text: str):
        self.starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            self.starts.append(pos + 1)
            pos = find("\n", pos + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index]

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col


Warn = Callable[[int, str], None]


class Lexer:
    """Splits one file's text into :class:`Statement` objects, by the word,
    keyword and macro rules of the tree's generation (Linux 4.18+ when
    ``gen`` is None)."""

    def __init__(self, text: str, filename: str, pp: Preprocessor, warn: Warn, gen: Generation | None = None):
        self.text = text
        self.filename = filename
        self.pp = pp
        self.warn = warn  # (line, message)
        self.macros = gen is None or gen.preprocessor
        self.token_re = _token_pattern(gen.word_chars if gen is not None else "$-")
        self.aliases = dict(gen.keyword_aliases) if gen is not None else {}
        self.warn_no_newline = gen is None or gen.warns_no_newline
        self.gen = gen
        #: Whether the rest of the file may still be read ahead for the
        #: commands it runs (once, at the first that must run: probes.py).
        self.look_ahead = self.macros and pp.probes is not None
        self.pos = 0
        self.line = 1
        #: Whether any $(...) was expanded (the result then depends on the
        #: macro state, not only on the text).
        self.expanded = False
        #: (start, end, result) of every expanded macro reference, for hover.
        self.expansions: list[tuple[int, int, str]] = []

    def statements(self) -> Iterator[Statement]:
        text = self.text
        n = len(text)
        after_help = False
        try:
            while True:
                if self.look_ahead:
                    # (Set again at each statement: a sourced file's lexer
                    # set its own meanwhile.)
                    self.pp.commands_ahead = self._commands_ahead
                stmt = self._scan_statement(after_help)
                if stmt is None:
                    break
                if stmt.tokens:
                    if len(stmt.tokens) == 1 and stmt.tokens[0].kind == "help":
                        self._scan_help(stmt)
                        after_help = True
                    else:
                        after_help = False
                    yield stmt
                if self.pos >= n:
                    break
        finally:
            if self.look_ahead:
                self.pp.commands_ahead = None
        if n and not text.endswith("\n") and not after_help:
            if self.warn_no_newline:
                self.warn(self.line, "no new line at end of file")

    def _commands_ahead(self) -> Iterator[str]:
        self.look_ahead = False
        later_files, self.pp.files_ahead = self.pp.files_ahead, None
        runner = self.pp.probes
        return probes.commands_ahead(self.text, self.pos, self.line, self.filename, self.pp, self.gen, later_files,
                                     runner.wait_for if runner is not None else None)

    # -- statements ------------------------------------------------------------
    def _scan_statement(self, after_help: bool) -> Statement | None:
        text = self.text
        n = len(text)
        if self.pos >= n:
            return None
        tokens: list[Token] = []
        stmt = Statement(self.line, tokens, follows_help=after_help)
        aliases, macros = self.aliases, self.macros
        match = self.token_re.match
        append = tokens.append
        pos = self.pos
        while pos < n:
            m = match(text, pos)
            kind = m.lastgroup
            if kind == "word":
                word = m.group(kind)
                start = m.start(kind)
                if macros and "$" in word:
                    self._expand_word(start, tokens)
                    pos = self.pos
                    continue
                pos = m.end()
                keyword = aliases.get(word, word) if aliases else word
                if keyword in KEYWORDS:
                    append(Token(keyword, keyword, start, pos))
                else:
                    append(Token(WORD, word, start, pos))
            elif kind == "nl":
                pos = m.end()
                self.line += 1
                if tokens:
                    break
                stmt.line = self.line
            elif kind == "op":
                op = m.group(kind)
                start = m.start(kind)
                pos = m.end()
                append(Token(op, op, start, pos))
                # "NAME = value" at the start of a statement: the rest of the
                # line is the value, verbatim.
                if (len(tokens) == 2 and (op == "=" or op == ":=" or op == "+=") and tokens[0].kind == WORD
                        and not after_help and macros):
                    self.pos = pos
                    self._scan_assign_value(tokens)
                    pos = self.pos
            elif kind == "skip":  # blanks or a comment up to the end of the line or text
                pos = m.end()
            elif kind == "cont":  # a backslash and newline join two lines
                pos = m.end()
                self.line += 1
                if not tokens:
                    stmt.line = self.line
            elif kind == "quote":
                self.pos = m.start(kind)
                append(self._scan_string(m.group(kind)))
                pos = self.pos
            else:
                self.warn(self.line, f"ignoring unsupported character '{m.group(kind)}'")
                pos = m.end()
        self.pos = pos
        return stmt

    def _expand_word(self, start: int, tokens: list[Token]) -> None:
        """A word with ``$(...)`` in it: the macro is expanded (to the end
        of the line at most) and the result is one word."""
        text = self.text
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        pp = self.pp
        pp.filename, pp.lineno = self.filename, self.line
        self.expanded = True
        value, end = pp.expand_token(text[:line_end], start)
        self.expansions.append((start, end, value))
        self.pos = end
        if value:
            tokens.append(Token(WORD, value, start, end))

    def _scan_assign_value(self, tokens: list[Token]) -> None:
        text = self.text
        start = _BLANKS_RE.match(text, self.pos).end()
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if end > start:
            tokens.append(Token(ASSIGN_VAL, text[start:end], start, end))
        self.pos = end

    def _scan_string(self, quote: str) -> Token:
        text = self.text
        start = self.pos
        simple = _SIMPLE_STRING[quote].match(text, start)
        if simple is not None:  # (most strings: no escape, macro or line end inside)
            self.pos = simple.end()
            return Token(QUOTE, simple.group(1), start, self.pos)
        n = len(text)
        pos = start + 1
        parts: list[str] = []
        while pos < n:
            c = text[pos]
            if c == quote:
                pos += 1
                break
            if c == "\n":
                self.warn(self.line, "multi-line strings not supported")
                break
            if c == "\\":
                if pos + 1 < n and text[pos + 1] != "\n":
                    parts.append(text[pos + 1])
                    pos += 2
                else:
                    pos += 1
                continue
            if c == "$" and self.macros:
                line_end = text.find("\n", pos)
                if line_end < 0:
                    line_end = n
                self.pp.filename, self.pp.lineno = self.filename, self.line
                self.expanded = True
                start = pos
                value, pos = self.pp.expand_dollar(text[:line_end], pos + 1)
                self.expansions.append((start, pos, value))
                parts.append(value)
                continue
            run_end = _STRING_RUN.match(text, pos + 1).end()
            parts.append(text[pos:run_end])
            pos = run_end
        self.pos = pos
        return Token(QUOTE, "".join(parts), start, pos)

    # -- help text -------------------------------------------------------------
    def _scan_help(self, stmt: Statement) -> None:
        """Collect help text after a ``help`` line, as lexer.l's HELP state."""
        text = self.text
        n = len(text)
        pos = self.pos
        line = self.line
        first_ts = 0
        last_ts = 0
        buf: list[str] = []
        while pos < n:
            ws_end = _BLANKS_RE.match(text, pos).end()
            if ws_end < n and text[ws_end] == "\n":
                # A blank line: it ends the text when the next line starts
                # in column 0 with something other than a newline.
                nxt = ws_end + 1
                pos = nxt
                line += 1
                if nxt < n and text[nxt] not in " \t\n":
                    break
                buf.append("\n")
                continue
            if ws_end > pos:
                ts = 0
                for ch in text[pos:ws_end]:
                    ts = (ts & ~7) + 8 if ch == "\t" else ts + 1
                last_ts = ts
                if first_ts:
                    if ts < first_ts:
                        pos = ws_end
                        break
                    buf.append(" " * (ts - first_ts))
                pos = ws_end
                if pos >= n:
                    break
            eol = text.find("\n", pos)
            if eol < 0:
                eol = n
            buf.append(text[pos:eol].rstrip(" \t"))
            if not first_ts:
                first_ts = last_ts
            pos = eol
            if pos >= n:
                break
            # The newline after a text line.
            pos += 1
            line += 1
            if pos < n and text[pos] not in " \t\n":
                break
            buf.append("\n")
        self.pos = pos
        self.line = line
        stmt.help_text = "".join(buf)
        stmt.help_end_line = line
