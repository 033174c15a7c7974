"""The menu tree: nodes for config/menu/choice/comment/if entries and the
properties (prompt, default, select, ...) attached to them.

Nodes are linked like the C tool's ``struct menu`` (``parent``, ``list`` for
the first child, ``next`` for the following sibling) because dependency
propagation and the automatic sub-menus rearrange them exactly as
``scripts/kconfig/menu.c`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .slot_state import tuple_state

if TYPE_CHECKING:
    from .symbols import Symbol

# Property kinds.
P_SYMBOL = "symbol"
P_PROMPT = "prompt"
P_MENU = "menu"
P_COMMENT = "comment"
P_DEFAULT = "default"
P_SELECT = "select"
P_IMPLY = "imply"
P_RANGE = "range"
P_CHOICE = "choice"


@tuple_state
class Property:
    """One property line of an entry, e.g. ``default y if FOO``.

    ``expr`` is the property's value (a symbol for select/imply/choice
    defaults, a ``(low, high)`` pair for ranges, an expression for defaults);
    ``cond`` its condition, which after finalisation includes every
    inherited dependency; ``text`` the prompt text for prompts.
    """

    __slots__ = ("kind", "expr", "cond", "text", "node", "file", "line", "cond_tri", "span", "raw_cond")

    def __init__(self, kind: str, expr: Any, cond: Any, node: MenuNode | None, file: str, line: int):
        self.kind = kind
        self.expr = expr
        self.cond = cond
        self.text: str | None = None
        self.node = node
        self.file = file
        self.line = line
        self.cond_tri = 0
        self.span: tuple[int, int] | None = None
        #: The condition as parsed (kept for re-linking: relink_log.py).
        self.raw_cond: Any = None

    def __repr__(self) -> str:
        return f"<{self.kind} {self.file}:{self.line}>"


@tuple_state
class MenuNode:
    """One entry of the menu tree (``struct menu``)."""

    __slots__ = (
        "sym", "prompt", "dep", "visibility", "parent", "list", "next", "file",
        "line", "help", "kind", "name_span", "end_line", "raw",
    )  # fmt: skip

    def __init__(self, sym: Symbol | None, parent: MenuNode | None, file: str, line: int, kind: str):
        self.sym = sym
        self.prompt: Property | None = None
        self.dep: Any = None
        self.visibility: Any = None
        self.parent = parent
        self.list: MenuNode | None = None
        self.next: MenuNode | None = None
        self.file = file
        self.line = line
        self.help: str | None = None
        #: "config", "menuconfig", "choice", "menu", "comment", "if", "root"
        self.kind = kind
        self.name_span: tuple[int, int] | None = None
        self.end_line = line
        #: (dep, visibility, list, next, parent, prompt kind) as parsed,
        #: kept for re-linking (relink_log.py).
        self.raw: tuple | None = None

    def __repr__(self) -> str:
        what = self.sym.name if self.sym is not None else (self.prompt.text if self.prompt else "")
        return f"<node {self.kind} {what!r} {self.file}:{self.line}>"

    def children(self) -> Iterator[MenuNode]:
        node = self.list
        while node is not None:
            yield node
            node = node.next

    def walk(self) -> Iterator[MenuNode]:
        """Every node below this one, depth first, in menu order."""
        node = self.list
        while node is not None:
            yield node
            if node.list is not None:
                node = node.list
                continue
            while node is not None and node.next is None:
                node = node.parent
                if node is self:
                    return
            if node is None:
                return
            node = node.next

    @property
    def prompt_text(self) -> str | None:
        if self.prompt is not None:
            return self.prompt.text
        if self.sym is not None:
            return self.sym.name
        return None
