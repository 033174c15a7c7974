"""The kernel's menu as menuconfig shows it, for an editor's tree view:
the children of a menu entry in menu order with their values, and a
search over symbol names, prompts and help (menuconfig's ``/``).

Entries are named by their place in the menu (a number per loaded tree,
in menu order): a client asks for the children of an entry it was given,
and asks again from the top when the server says the menu changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kconfig.configfile import menu_is_visible, string_default
from ..kconfig.expr import BOOL, HEX, INT, TRI_STR, TRISTATE, TYPE_NAMES
from ..kconfig.menu import P_COMMENT, P_MENU, MenuNode
from ..kconfig.tree import Kconfig
from .project import Project


class UnknownEntry(Exception):
    """An entry id this tree does not have (the menu changed since)."""


@dataclass
class MenuIds:
    """Entry ids of one loaded tree: menu order, from 1."""

    nodes: list[MenuNode]
    ids: dict[int, int]

    @classmethod
    def of_tree(cls, kc: Kconfig) -> MenuIds:
        kept = kc.derived.get("menu-ids")
        if kept is None:
            nodes = list(kc.root.walk())
            kept = kc.derived["menu-ids"] = cls(nodes, {id(node): n for n, node in enumerate(nodes, 1)})
        return kept

    def node(self, entry: int) -> MenuNode:
        if not isinstance(entry, int) or isinstance(entry, bool) or not 1 <= entry <= len(self.nodes):
            raise UnknownEntry(f"no menu entry {entry!r} in the loaded tree (ask for the top level again)")
        return self.nodes[entry - 1]


def children(project: Project, entry: int | None, show_all: bool = False) -> list[dict]:
    """The entries under ``entry`` (None: the top level) as menuconfig lists
    them: in menu order, an ``if`` block's entries in its place, entries
    without a prompt left out; invisible ones only with ``show_all``.
    Call with the project's lock held."""
    kc = project.kc
    ids = MenuIds.of_tree(kc)
    parent = kc.root if entry is None else ids.node(entry)
    return [describe(project, ids, node) for node in shown_children(parent, show_all)]


def shown_children(parent: MenuNode, show_all: bool) -> list[MenuNode]:
    shown = []
    for node in parent.children():
        if node.prompt is None:
            if node.sym is None:  # (an if block: its entries stand in its place)
                shown.extend(shown_children(node, show_all))
            continue
        if show_all or menu_is_visible(node):
            shown.append(node)
    return shown


def kind_of(node: MenuNode) -> str:
    if node.sym is not None:
        if node.sym.is_choice:
            return "choice"
        return "menuconfig" if node.kind == "menuconfig" else "config"
    return "menu" if node.prompt is not None and node.prompt.kind == P_MENU else "comment"


def describe(project: Project, ids: MenuIds, node: MenuNode) -> dict:
    """One entry as the protocol gives it."""
    sym = node.sym
    entry = {
        "id": ids.ids[id(node)],
        "kind": kind_of(node),
        "prompt": node.prompt.text if node.prompt is not None else None,
        "visible": menu_is_visible(node),
        "assignable": [],
        "modified": False,
        "hasChildren": bool(shown_children(node, True)),
        # (A choice's entries are chosen, not toggled.)
        "inChoice": sym is not None and sym.is_choice_value,
        "location": {"file": node.file, "line": node.line},
    }
    if sym is not None:
        sym.calc_value()
        if sym.name is not None:
            entry["symbol"] = sym.name
        entry["type"] = TYPE_NAMES[sym.type]
        if sym.is_choice:
            selected = sym.selection
            entry["value"] = selected.name if selected is not None and sym.curr_tri == 2 else TRI_STR[sym.curr_tri]
        else:
            entry["value"] = sym.str_value()
            entry["modified"] = sym.str_value() != string_default(project.kc, sym)
        if sym.type in (BOOL, TRISTATE):
            entry["assignable"] = [TRI_STR[v] for v in sym.assignable]
        elif sym.type in (INT, HEX) and (prop := sym.range_prop()) is not None:
            base = 10 if sym.type == INT else 16
            shown = str if sym.type == INT else hex
            entry["range"] = [shown(bound.range_value(base)) for bound in prop.expr]
    return entry


def shown_parents(node: MenuNode) -> list[MenuNode]:
    """The entries above ``node`` in the menu as :func:`children` gives it,
    from the top (``if`` blocks are not entries: their own are in their
    place)."""
    parents = []
    parent = node.parent
    while parent is not None and parent.parent is not None:
        if parent.prompt is not None:
            parents.append(parent)
        parent = parent.parent
    return parents[::-1]


def path_of(node: MenuNode) -> list[str]:
    """The prompts of the menus above ``node``, from the top."""
    path = []
    parent = node.parent
    while parent is not None and parent.parent is not None:
        if parent.prompt is not None and parent.prompt.text is not None and parent.prompt.kind != P_COMMENT:
            path.append(parent.prompt.text)
        parent = parent.parent
    return path[::-1]


def search(project: Project, query: str, limit: int = 200) -> list[dict]:
    """Entries whose symbol name, prompt or help matches ``query`` (case
    does not matter; a leading ``CONFIG_`` neither), best first: the exact
    name, names starting with it, names containing it, then prompts, then
    help texts; menu order within each.  Call with the lock held."""
    kc = project.kc
    words = query.strip()
    if words.upper().startswith("CONFIG_"):
        words = words[len("CONFIG_"):]
    needle = words.lower()
    if not needle:
        return []
    ids = MenuIds.of_tree(kc)
    ranked = []
    for n, node in enumerate(ids.nodes):
        sym = node.sym
        name = (sym.name or "").lower() if sym is not None else ""
        prompt = (node.prompt.text or "").lower() if node.prompt is not None else ""
        if name == needle:
            rank = 0
        elif name.startswith(needle):
            rank = 1
        elif needle in name:
            rank = 2
        elif needle in prompt:
            rank = 3
        elif node.help and needle in node.help.lower():
            rank = 4
        else:
            continue
        if sym is None and node.prompt is None:
            continue
        ranked.append((rank, n, node))
    ranked.sort(key=lambda r: (r[0], r[1]))
    results = []
    for _rank, _n, node in ranked[:limit]:
        entry = describe(project, ids, node)
        entry["path"] = path_of(node)
        entry["parents"] = [ids.ids[id(parent)] for parent in shown_parents(node)]
        results.append(entry)
    return results
