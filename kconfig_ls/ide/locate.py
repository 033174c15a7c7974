"""What is at a position: a symbol name (definition or reference), a
``source`` path, or a symbol in a ``.config``/defconfig/fragment line."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..kconfig.symbols import Symbol
from ..kconfig.tree import Kconfig
from .linemap import LineMap

_WORD = re.compile(r"[A-Za-z0-9_]+")
_CONFIG_LINE = re.compile(r"^(?:# )?(?P<prefix>CONFIG_)(?P<name>[A-Za-z0-9_]+)(?:=| is not set)")


@dataclass
class Target:
    kind: str  # "symbol", "source", "macro", "name" (a name the tree does not know)
    name: str
    symbol: Symbol | None = None
    source_path: str | None = None
    start_col: int = 0
    end_col: int = 0
    line: int = 0
    expansion: str | None = None


class FileIndex:
    """Sorted spans of every symbol name in one file of a loaded tree."""

    def __init__(self, kc: Kconfig, name: str):
        spans: list[tuple[int, int, object, str]] = []
        for sym in kc.all_symbols:
            for file, start, end in sym.refs:
                if file == name:
                    spans.append((start, end, sym, "symbol"))
            for node in sym.nodes:
                if node.file == name and node.name_span is not None:
                    spans.append((node.name_span[0], node.name_span[1], sym, "symbol"))
        for file, start, end, path in kc.source_refs:
            if file == name:
                spans.append((start, end, path, "source"))
        for file, start, end, result in kc.expansions:
            if file == name:
                spans.append((start, end, result, "macro"))
        spans.sort(key=lambda s: s[0])
        self.spans = spans
        self.starts = [s[0] for s in spans]

    def at(self, offset: int):
        i = bisect_right(self.starts, offset) - 1
        if i >= 0:
            start, end, what, kind = self.spans[i]
            if start <= offset <= end:
                return start, end, what, kind
        return None


class Locator:
    """Position queries over one loaded tree (indexes built lazily)."""

    def __init__(self, kc: Kconfig):
        self.kc = kc
        self._files: dict[str, FileIndex] = {}

    def index(self, name: str) -> FileIndex:
        idx = self._files.get(name)
        if idx is None:
            idx = self._files[name] = FileIndex(self.kc, name)
        return idx

    def in_kconfig(self, name: str, line: int, col: int) -> Target | None:
        """``line`` 1-based, ``col`` 0-based."""
        source = self.kc.files.get(name)
        if source is None:
            return None
        try:
            offset = source.index.offset(line, col)
        except IndexError:
            return None
        hit = self.index(name).at(offset)
        if hit is None:
            return None
        start, end, what, kind = hit
        _, start_col = source.index.line_col(start)
        _, end_col = source.index.line_col(end)
        if kind == "source":
            return Target("source", what, None, what, start_col, end_col, line)
        if kind == "macro":
            text = source.text[start:end]
            return Target("macro", text, None, None, start_col, end_col, line, expansion=what)
        return Target("symbol", what.name, what, None, start_col, end_col, line)


    def in_edited_kconfig(self, name: str, text: str, line: int, col: int) -> Target | None:
        """Like :meth:`in_kconfig`, for the current ``text`` of the file,
        which may have been edited since the tree was loaded: positions on
        unchanged lines are moved to the loaded text; on an edited line the
        word under the cursor is taken as a symbol name, if the tree has
        that symbol (until the next load, nothing more is known there)."""
        source = self.kc.files.get(name)
        if source is None or source.text == text:
            return self.in_kconfig(name, line, col)
        old_line = LineMap(source.text, text).to_old(line)
        if old_line is not None:
            target = self.in_kconfig(name, old_line, col)
            if target is not None:
                target.line = line
            return target
        lines = text.split("\n")
        current = lines[line - 1] if 0 < line <= len(lines) else ""
        for m in _WORD.finditer(current):
            if m.start() <= col <= m.end():
                sym = self.kc.find(m.group())
                if sym is None or sym.is_const or not (sym.nodes or sym.refs):
                    return None
                return Target("symbol", m.group(), sym, None, m.start(), m.end(), line)
        return None


def in_config_text(kc: Kconfig | None, text: str, line: int, col: int) -> Target | None:
    """The symbol named on a ``.config``-style line, if the cursor is on it."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    m = _CONFIG_LINE.match(lines[line - 1])
    if m is None or not (m.start("prefix") <= col <= m.end("name")):
        return None
    name = m.group("name")
    sym = kc.find(name) if kc is not None else None
    return Target("symbol" if sym is not None else "name", name, sym, None, m.start("prefix"), m.end("name"), line)
