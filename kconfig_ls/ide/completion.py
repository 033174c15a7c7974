"""Completion items by context: keywords at the start of a line, symbols in
expressions, paths after ``source``, ``CONFIG_`` names and values in config
files."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..kconfig.expr import BOOL, TRI_STR, TRISTATE
from ..kconfig.tree import Kconfig

ENTRY_KEYWORDS = ["config", "menuconfig", "choice", "endchoice", "comment", "menu", "endmenu", "if", "endif",
                  "source", "mainmenu"]
_EXPR_CONTEXT = re.compile(r"(depends\s+on|select|imply|default|def_bool|def_tristate|if|range|&&|\|\||!|\(|=)\s*\S*$")


@dataclass
class Item:
    label: str
    kind: str  # keyword, symbol, file, value
    detail: str = ""
    insert: str | None = None


def symbol_items(kc: Kconfig, prefix: str = "") -> list[Item]:
    items = []
    for sym in kc.defined_symbols():
        if prefix and not sym.name.startswith(prefix):
            continue
        prompt = next((p.text for p in sym.prompts if p.text), "")
        items.append(Item(sym.name, "symbol", f"{sym.type_name}" + (f" — {prompt}" if prompt else "")))
    return items


def kconfig_completions(kc: Kconfig, root: str, file: str, line_text: str) -> list[Item]:
    before = line_text
    stripped = before.lstrip()
    m = re.match(r'^\s*(o?r?source)\s+"([^"]*)$', before)
    if m:
        return _path_items(root, file, m.group(2))
    if not stripped or re.fullmatch(r"[a-z_]*", stripped):
        indented = before[:1] in (" ", "\t")
        words = kc.gen.entry_options() if indented else ENTRY_KEYWORDS
        return [Item(w, "keyword") for w in words if w.startswith(stripped)]
    if _EXPR_CONTEXT.search(before):
        word = re.search(r"[A-Za-z0-9_]*$", before).group()
        return symbol_items(kc, word)
    return []


def _path_items(root: str, file: str, typed: str) -> list[Item]:
    directory, _, partial = typed.rpartition("/")
    base = os.path.join(root, directory)
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    items = []
    for name in names:
        if not name.startswith(partial) or name.startswith("."):
            continue
        path = os.path.join(base, name)
        if os.path.isdir(path):
            items.append(Item(name + "/", "file", "directory"))
        elif name.startswith("Kconfig") or name.endswith(".kconfig") or name == "Config.in":
            items.append(Item(name, "file", "Kconfig file"))
    return items


def config_completions(kc: Kconfig, line_text: str) -> list[Item]:
    m = re.match(r"^(?:# )?CONFIG_([A-Za-z0-9_]+)=(\S*)$", line_text)
    if m:
        sym = kc.find(m.group(1))
        if sym is None:
            return []
        sym.calc_value()
        if sym.type in (BOOL, TRISTATE):
            values = [TRI_STR[v] for v in (sym.assignable or (0, 1, 2)) if sym.type == TRISTATE or v != 1]
            return [Item(v, "value", "current" if v == sym.str_value() else "") for v in values]
        return [Item(sym.str_value(), "value", "current value")]
    m = re.match(r"^(?:# )?(?:C(?:O(?:N(?:F(?:I(?:G(?:_([A-Za-z0-9_]*))?)?)?)?)?)?)?$", line_text)
    if m is not None:
        prefix = m.group(1) or ""
        items = symbol_items(kc, prefix)
        for item in items:
            item.insert = "CONFIG_" + item.label
            item.label = "CONFIG_" + item.label
        return items
    return []
