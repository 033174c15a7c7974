"""Lexing files ahead of the parse while it waits for a toolchain probe.

Cold, the parse reaches the probes of ``arch/*/Kconfig`` long before the
worker threads have answered them (probes.py), and waits: on x86_64 about a
fifth of a second, while later, once the probes are done, it runs alone on
one core.  The wait is put to use here: the files the probes' look-ahead
read (source_walk.py) and that hold no ``$`` at all are lexed in the order
the parse will reach them.  Their statements depend on nothing but their
text and the generation's rules (no macro is expanded, no command run), so
the parse takes them as they are when it gets there, and each lexer warning
is given back before the statement it was met in, as when the parse lexes
the file itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .lexer import Lexer, Statement
from .preprocess import Preprocessor

if TYPE_CHECKING:
    from .generation import Generation


@dataclass(slots=True)
class LexedAhead:
    """One file's statements, and its warnings by the statement they came
    before (``len(statements)``: after the last)."""

    text: str
    statements: list[Statement] = field(default_factory=list)
    warnings: list[tuple[int, int, str]] = field(default_factory=list)  # (statement index, line, message)

    def replay(self, warn: Callable[[int, str], None]) -> Iterator[Statement]:
        """The statements, each after the warnings met before it; then the
        warnings met after the last."""
        warnings = iter(self.warnings)
        pending = next(warnings, None)
        for index, stmt in enumerate(self.statements):
            while pending is not None and pending[0] <= index:
                warn(pending[1], pending[2])
                pending = next(warnings, None)
            yield stmt
        while pending is not None:
            warn(pending[1], pending[2])
            pending = next(warnings, None)


class LexAhead:
    """Files to lex while the load waits, and what was lexed of them.

    ``texts`` holds the texts read ahead that the parse has not read yet,
    by file name, in the order the parse is expected to read them (the
    load adds them as the look-ahead reads them, and removes each as the
    parse reads it)."""

    def __init__(self, texts: dict[str, str], gen: Generation):
        self._texts = texts
        self._names: Iterator[str] = iter(())
        self._tried: set[str] = set()
        self._gen = gen
        # (never used: the texts lexed here hold no macro reference)
        self._pp = Preprocessor(env={}, shell=None, info=lambda _text: None)
        self._lexed: dict[str, LexedAhead] = {}

    def step(self) -> bool:
        """Lex one more file; False when none is left for now (the
        look-ahead may read more later)."""
        for _ in range(2):
            for name in self._names:
                text = self._texts.get(name)  # (None: the parse has read it meanwhile)
                if text is None or "$" in text:
                    continue
                self._lexed[name] = self._lex(name, text)
                return True
            fresh = [name for name in self._texts if name not in self._tried]
            self._tried.update(fresh)
            self._names = iter(fresh)
        return False

    def take(self, name: str, text: str) -> LexedAhead | None:
        """What was lexed of ``name``, if it was lexed from this very text."""
        lexed = self._lexed.pop(name, None)
        return lexed if lexed is not None and lexed.text is text else None

    def _lex(self, name: str, text: str) -> LexedAhead:
        lexed = LexedAhead(text)
        statements = lexed.statements

        def record(line: int, message: str) -> None:
            lexed.warnings.append((len(statements), line, message))

        for stmt in Lexer(text, name, self._pp, record, self._gen).statements():
            statements.append(stmt)
        return lexed
