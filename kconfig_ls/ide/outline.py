"""The outline of one Kconfig file: menus, choices, configs and comments,
nested as menuconfig shows them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kconfig.menu import MenuNode
from ..kconfig.tree import Kconfig


@dataclass
class OutlineItem:
    name: str
    detail: str
    kind: str  # menu, choice, config, menuconfig, comment
    line: int
    end_line: int
    name_line: int
    children: list[OutlineItem] = field(default_factory=list)


def outline(kc: Kconfig, file: str) -> list[OutlineItem]:
    items: dict[int, OutlineItem] = {}
    roots: list[OutlineItem] = []
    for node in kc.walk():
        if node.file != file or node.kind in ("if", "root"):
            continue
        item = _item(node)
        items[id(node)] = item
        parent = node.parent
        while parent is not None and id(parent) not in items:
            parent = parent.parent
        (items[id(parent)].children if parent is not None else roots).append(item)
    return roots


def _item(node: MenuNode) -> OutlineItem:
    sym = node.sym
    prompt = node.prompt.text if node.prompt is not None and node.prompt.text else ""
    if node.kind in ("config", "menuconfig"):
        name = sym.name
        detail = f"{sym.type_name}" + (f" — {prompt}" if prompt else "")
    elif node.kind == "choice":
        name = sym.name or prompt or "choice"
        detail = prompt
    else:
        name = prompt or node.kind
        detail = node.kind
    return OutlineItem(name, detail, node.kind, node.line, max(node.end_line, node.line), node.line)
