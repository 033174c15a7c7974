"""What is at a position: a symbol name (definition or reference), a
``source`` path, or a symbol in a ``.config``/defconfig/fragment line."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..kconfig.filecheck import FileCheck
from ..kconfig.symbols import Symbol
from ..kconfig.tree import Kconfig

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
    #: For a use in a source file: what its construct evaluates to
    #: (markdown, e.g. "`IS_ENABLED(CONFIG_X)` is 1").
    construct: str | None = None


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


def in_checked_file(check: FileCheck, name: str, line: int, col: int) -> Target | None:
    """What is at a position of a file edited since the tree was loaded,
    from the file checked on its own; symbols are the loaded tree's (with
    their values), or mere names if the tree does not know them yet."""
    target = Locator(check).in_kconfig(name, line, col)
    if target is not None and target.kind == "symbol":
        live = check.tree.find(target.name)
        if live is not None and not live.is_const and (live.nodes or live.refs):
            target.symbol = live
        else:
            target.kind, target.symbol = "name", None
    return target


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
