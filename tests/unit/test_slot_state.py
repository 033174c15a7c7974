"""The tuple state of slotted classes (kconfig_ls/kconfig/slot_state.py):
a pickled and read-back object has every slot it had, subclasses carry
their bases' slots, and a class it cannot serve is refused."""

from __future__ import annotations

import copy
import pickle

import pytest

from kconfig_ls.kconfig.menu import MenuNode, Property
from kconfig_ls.kconfig.slot_state import all_slots, tuple_state
from kconfig_ls.kconfig.symbols import SYM_Y, Symbol


@tuple_state
class Base:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a, self.b = 1, [2]


@tuple_state
class Derived(Base):
    __slots__ = "c"

    def __init__(self):
        super().__init__()
        self.c = {"three": 3}


def slot_values(obj) -> dict:
    return {name: getattr(obj, name) for name in all_slots(type(obj))}


def test_slots_are_listed_base_first():
    assert all_slots(Derived) == ("a", "b", "c")


def test_a_round_trip_keeps_every_slot_and_shared_objects():
    one = Derived()
    one.b = one.c  # two slots holding the same object
    back = pickle.loads(pickle.dumps(one, protocol=pickle.HIGHEST_PROTOCOL))
    assert slot_values(back) == slot_values(one)
    assert back.b is back.c
    assert slot_values(copy.copy(one)) == slot_values(one)


def test_the_tree_classes_round_trip():
    sym = Symbol(None, "FOO", 7)
    node = MenuNode(sym, None, "Kconfig", 3, "config")
    prop = Property("default", SYM_Y, None, node, "Kconfig", 4)
    sym.nodes, sym.defaults, node.prompt = [node], [prop], prop
    back_sym, back_node, back_prop = pickle.loads(pickle.dumps((sym, node, prop)))
    for before, after in ((sym, back_sym), (node, back_node), (prop, back_prop)):
        assert [name for name in all_slots(type(before)) if not hasattr(after, name)] == []
    assert (back_sym.name, back_sym.index, back_node.line, back_prop.kind) == ("FOO", 7, 3, "default")
    assert back_sym.nodes == [back_node] and back_node.sym is back_sym and back_prop.node is back_node
    assert back_prop.expr is SYM_Y  # the shared constants stay shared


def test_an_unset_slot_is_not_silently_dropped():
    half = Base.__new__(Base)
    with pytest.raises(AttributeError):
        pickle.dumps(half)


def test_classes_with_a_dict_are_refused():
    class Loose:
        pass

    class WithDict:
        __slots__ = ("a", "__dict__")

    for cls in (Loose, WithDict):
        with pytest.raises(TypeError):
            tuple_state(cls)
