"""Symbols that are new to a configuration: visible, changeable and
without a user value (``check_conf`` in the kernel's conf.c), as
``listnewconfig`` prints them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .configfile import menu_is_visible
from .expr import Y

if TYPE_CHECKING:
    from .menu import MenuNode
    from .symbols import Symbol
    from .tree import Kconfig


def new_nodes(kc: Kconfig) -> Iterator[MenuNode]:
    """Menu entries of new symbols and choices, in menu order."""
    return _new_nodes(kc.root)


def new_symbols(kc: Kconfig) -> Iterator[Symbol]:
    """New symbols in menu order (a symbol may repeat if it has several
    visible menu entries, as in the C tool)."""
    for node in _new_nodes(kc.root):
        if node.sym is not None and node.sym.name:
            yield node.sym


def is_new(sym: Symbol | None) -> bool:
    """A symbol conf would ask about: no user value yet, and changeable (or
    a ``y`` choice)."""
    if sym is None or sym.has_user:
        return False
    sym.calc_value()
    return sym.is_changeable() or (sym.is_choice and sym.curr_tri == Y)


def _new_nodes(node: MenuNode) -> Iterator[MenuNode]:
    if not menu_is_visible(node):
        return
    if is_new(node.sym):
        yield node
    child = node.list
    while child is not None:
        yield from _new_nodes(child)
        child = child.next
