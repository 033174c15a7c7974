"""Checks every claim of an explanation against facts found independently.

The facts come from two places that do not share code with the explainer:
the Kconfig sources, scanned here with regular expressions (which lines
``select``/``imply`` a symbol, which definition blocks have a prompt or a
default, which file defines a symbol on another arch), and the C tool's
``.config`` (the value of every symbol).  Each reason kind makes a claim;
:func:`audit` returns every claim that does not hold, and the text-level
problems (a value that differs from the C tool's, a line over 200
characters, the C tool's ``<choice>`` placeholder, a summary that does not
start with the value).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from kconfig_ls.kconfig import reasons as R
from kconfig_ls.kconfig.explain import Explanation

_ENTRY = re.compile(r"^\s*(?:config|menuconfig|choice|endchoice|menu|endmenu|if|endif|source|comment|mainmenu)\b")
_DEFAULT = re.compile(r"^\s*(?:default|def_bool|def_tristate)\b")
_PROMPT = re.compile(r"^\s*(?:(?:bool|tristate|int|hex|string|boolean)\s+[\"']|prompt\s)")
_HELP = re.compile(r"^\s*(?:help|---help---)\s*$")
_DEFINES = re.compile(r"^\s*(?:menu)?config\s+(\w+)", re.M)
_VALUED = re.compile(r"(?<![\w\"])([A-Za-z0-9_]+) \[=([^\]]*)\]")
_CITED = re.compile(r"\(([\w./+-]+):(\d+)\)")


def c_values(config_text: str) -> dict[str, str]:
    """name -> value as the C tool wrote it (strings unquoted)."""
    values = {}
    for line in config_text.splitlines():
        if line.startswith("CONFIG_"):
            name, _, value = line[len("CONFIG_"):].partition("=")
            if value.startswith('"'):
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            values[name] = value
        elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
            values[line[len("# CONFIG_"):-len(" is not set")]] = "n"
    return values


@dataclass
class SourceFacts:
    """What the Kconfig text says, read without the engine."""

    tree: Path
    #: Files the loaded configuration reads.
    loaded: set[str]
    lines: dict[str, list[str]] = field(default_factory=dict)
    _selects: dict[tuple[str, str], list[tuple[str, int]]] | None = None
    _blocks: dict[str, list[list[str]]] | None = None
    _everywhere: dict[str, list[tuple[str, int]]] | None = None

    def text(self, file: str) -> list[str]:
        if file not in self.lines:
            try:
                self.lines[file] = (self.tree / file).read_text(errors="replace").split("\n")
            except OSError:
                self.lines[file] = []
        return self.lines[file]

    def line(self, file: str, number: int) -> str:
        lines = self.text(file)
        return lines[number - 1] if 0 < number <= len(lines) else ""

    def reverse(self, kind: str, name: str) -> list[tuple[str, int]]:
        """Where a loaded file has ``select NAME`` (or ``imply NAME``)."""
        if self._selects is None:
            found: dict[tuple[str, str], list[tuple[str, int]]] = {}
            pattern = re.compile(r"^\s*(select|imply)\s+(\w+)")
            for file in self.loaded:
                for number, text in enumerate(self.text(file), 1):
                    m = pattern.match(text)
                    if m:
                        found.setdefault((m.group(1), m.group(2)), []).append((file, number))
            self._selects = found
        return self._selects.get((kind, name), [])

    def blocks(self, name: str) -> list[list[str]]:
        """The lines of each ``config NAME`` block in the loaded files, up
        to the next entry or the help text."""
        if self._blocks is None:
            blocks: dict[str, list[list[str]]] = {}
            for file in self.loaded:
                lines = self.text(file)
                for i, text in enumerate(lines):
                    m = re.match(r"^\s*(?:menu)?config\s+(\w+)\s*$", text)
                    if not m:
                        continue
                    body = []
                    for follow in lines[i + 1:]:
                        if _ENTRY.match(follow) or _HELP.match(follow):
                            break
                        body.append(follow)
                    blocks.setdefault(m.group(1), []).append(body)
            self._blocks = blocks
        return self._blocks.get(name, [])

    def everywhere(self) -> dict[str, list[tuple[str, int]]]:
        """name -> definitions in every Kconfig file of the tree."""
        if self._everywhere is None:
            index: dict[str, list[tuple[str, int]]] = {}
            for dirpath, dirnames, filenames in os.walk(self.tree):
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for fname in filenames:
                    if not fname.startswith("Kconfig"):
                        continue
                    rel = os.path.relpath(os.path.join(dirpath, fname), self.tree)
                    lines = self.text(rel)
                    for number, text in enumerate(lines, 1):
                        m = _DEFINES.match(text)
                        if m:
                            index.setdefault(m.group(1), []).append((rel, number))
            self._everywhere = index
        return self._everywhere


def audit(ex: Explanation, text: str, facts: SourceFacts, values: dict[str, str], types: dict[str, str],
          config_lines: list[str]) -> list[str]:
    """Every claim of ``ex`` (and its ``text``) that is not true."""
    problems: list[str] = []
    name = ex.name

    def bad(message: str) -> None:
        problems.append(f"{name}: {message}")

    if types.get(name) in ("bool", "tristate") and ex.value != values.get(name, "n"):
        bad(f"value {ex.value}, the C tool has {values.get(name, 'n')}")
    for line in text.splitlines():
        if len(line) > 200:
            bad(f"line of {len(line)} characters")
        if "<choice>" in line:
            bad("the <choice> placeholder")
        for sym, shown in _VALUED.findall(line):
            kind = types.get(sym)
            if kind in ("bool", "tristate"):
                if shown != values.get(sym, "n"):
                    bad(f"{sym} [={shown}], the C tool has {values.get(sym, 'n')}: {line.strip()}")
            elif kind is not None and sym in values and shown != values[sym]:
                bad(f"{sym} [={shown}], the C tool has {values[sym]}: {line.strip()}")
    if ex.name != "<choice>" and ex.summary and not ex.summary.startswith(_shown(ex.value)):
        bad(f"the summary does not start with the value: {ex.summary}")
    def visit(reason: R.Reason, parent: R.Reason | None) -> None:
        problems.extend(f"{name}: {p}" for p in _claim_problems(reason, parent, facts, values, config_lines))
        for child in reason.children:
            visit(child, reason)

    for top in ex.account:
        visit(top, None)
    return problems


def _claim_problems(r: R.Reason, parent: R.Reason | None, facts: SourceFacts, values: dict[str, str],
                    config_lines: list[str]) -> list[str]:
    out = []
    sym = r.symbol
    if r.kind == R.NOT_SELECTED and facts.reverse("select", sym):
        out.append(f"says nothing selects {sym}, but {facts.reverse('select', sym)[0]} does")
    if r.kind in (R.SELECTS_OFF, R.NOT_SELECTED, R.SELECTED) and not facts.blocks(sym) and sym in values:
        out.append(f"a claim about {sym}, which the loaded files do not define")
    if r.kind == R.NO_DEFAULT and any(_DEFAULT.match(line) for block in facts.blocks(sym) for line in block):
        out.append(f"says {sym} has no default, but a definition has one")
    if r.kind == R.NO_PROMPT and any(_PROMPT.match(line) for block in facts.blocks(sym) for line in block):
        out.append(f"says {sym} has no prompt, but a definition has one")
    if r.kind == R.HIDDEN and facts.blocks(sym) and not any(
            _PROMPT.match(line) for block in facts.blocks(sym) for line in block):
        out.append(f"says the prompt of {sym} is hidden, but it has no prompt")
    if r.kind == R.SELECT_LINE and parent is not None:
        cited = facts.line(r.file or "", r.line or 0)
        if not re.match(rf"^\s*(select|imply)\s+{re.escape(parent.symbol or '')}\b", cited):
            out.append(f"cites {r.file}:{r.line} for a select of {parent.symbol}, which reads {cited.strip()!r}")
    if r.kind in (R.DEFAULT, R.DEFAULT_LINE) and r.file:
        cited = facts.line(r.file, r.line or 0)
        if not _DEFAULT.match(cited):
            out.append(f"cites {r.file}:{r.line} for a default, which reads {cited.strip()!r}")
    if r.kind == R.TOOLCHAIN and r.file and "$(" not in facts.line(r.file, r.line or 0) and \
            not any("$(" in facts.line(f, n) for f, n in _cited(r.text)):
        out.append(f"says {sym} comes from $(...), but {r.file}:{r.line} has none")
    if r.kind == R.OTHER_ARCH:
        if facts.blocks(sym):
            out.append(f"says {sym} is not in this arch's tree, but a loaded file defines it")
        if not re.match(rf"^\s*(?:menu)?config\s+{re.escape(sym)}\b", facts.line(r.file or "", r.line or 0)):
            out.append(f"cites {r.file}:{r.line} as {sym}'s definition")
    if r.kind in (R.UNDEFINED, R.OTHER_ARCH) and not re.fullmatch(r"[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*", sym or ""):
        out.append(f"treats {sym!r}, a constant, as a symbol")
    if r.kind == R.UNDEFINED and sym in facts.everywhere():
        out.append(f"says no Kconfig file defines {sym}, but {facts.everywhere()[sym][0]} does")
    if r.kind == R.SETTABLE:
        if not any(_PROMPT.match(line) for block in facts.blocks(sym) for line in block):
            out.append(f"says the user can set {sym}, which has no prompt")
        if r.set_to is not None and values.get(sym, "n") == r.set_to:
            out.append(f"suggests setting {sym} to {r.set_to}, its value already")
    if r.kind == R.USER:
        m = re.search(r"you set it to (\S+) in [^:]+:(\d+)", r.text)
        if m:
            line = config_lines[int(m.group(2)) - 1] if int(m.group(2)) <= len(config_lines) else ""
            if sym not in line:
                out.append(f"cites config line {m.group(2)} for {sym}, which reads {line!r}")
    return out


def _cited(text: str) -> list[tuple[str, int]]:
    return [(f, int(n)) for f, n in _CITED.findall(text)]


def _shown(value: str) -> str:
    return value if value != "" else '""'
