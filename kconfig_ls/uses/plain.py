"""Uses of ``CONFIG_`` names in files with no conditionals of their own
to decide: Rust sources (``#[cfg(CONFIG_X)]``, ``cfg!(CONFIG_X)``; the
items such attributes switch are the compiler's to find) and documentation
text (every mention is a use).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cpp import Use

#: Rust comments and string literals (not character literals: ``'a`` is
#: also a lifetime).
_RUST_COMMENT_OR_STRING = re.compile(r"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\])*"?""", re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")
#: What may come between ``cfg`` and a name it tests (``cfg(``,
#: ``cfg!(any(A, ``, ``cfg(not(``).
_INSIDE_CFG = re.compile(r"!?\s*\([\w\s=\",()]*")


@dataclass
class PlainFile:
    uses: list[Use]
    #: (None of these files defines a name of its own.)
    redefined: set[str] = field(default_factory=set)


def blank_rust(text: str) -> str:
    """``text`` with Rust comments and strings replaced by spaces."""
    def blank(match: re.Match) -> str:
        found = match.group()
        return " " * len(found) if "\n" not in found else _NOT_NEWLINE.sub(" ", found)
    return _RUST_COMMENT_OR_STRING.sub(blank, text)


def scan(text: str, kind: str, prefix: str = "CONFIG_") -> PlainFile:
    """The uses in Rust (``kind`` "rust") or documentation ("text")."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    clean = blank_rust(text) if kind == "rust" else text
    uses = []
    line, last = 1, 0
    for m in re.finditer(r"\b" + re.escape(prefix) + r"\w+", clean):
        line += clean.count("\n", last, m.start())
        last = m.start()
        line_start = clean.rfind("\n", 0, m.start()) + 1
        form = "value"
        if kind == "rust":
            cfg = clean.rfind("cfg", line_start, m.start())
            if cfg >= 0 and _INSIDE_CFG.fullmatch(clean, cfg + 3, m.start()):
                form = "cfg"
        uses.append(Use(m.group(), line, m.start() - line_start, form))
    return PlainFile(uses)
