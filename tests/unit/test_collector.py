"""The collector's pause around a load (kconfig_ls/kconfig/collector.py):
what the load built skips the young passes, dropped cycles are still freed,
an owner's frozen objects stay frozen."""

from __future__ import annotations

import gc
import weakref

import pytest

from kconfig_ls.kconfig import collector
from kconfig_ls.kconfig.collector import gc_paused


class Node:
    """A container the collector tracks; two of them make a cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, b


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


@pytest.fixture(autouse=True)
def _collector_on():
    """Each test starts with the collector on, nothing frozen, nothing
    waiting; the state found is put back."""
    was_enabled = gc.isenabled()
    gc.enable()
    gc.unfreeze()
    gc.collect()
    yield
    gc.unfreeze()
    gc.collect()
    if not was_enabled:
        gc.disable()


def test_objects_left_by_the_pause_go_to_the_oldest_generation_unscanned():
    with gc_paused():
        assert not gc.isenabled()
        kept = _cycle()
    assert gc.isenabled()
    assert _in_generation(kept[0], 2) and not _in_generation(kept[0], 0)
    assert gc.get_count()[0] < 100  # (no young pass is due)
    assert collector.unscanned() > 0


def test_a_cycle_dropped_after_the_pause_is_freed_by_the_next_full_pass():
    with gc_paused():
        a, _b = _cycle()
    gone = weakref.ref(a)
    del a, _b
    assert gone() is not None  # (a cycle: reference counting cannot free it)
    gc.collect()
    assert gone() is None
    assert collector.unscanned() == 0  # (a full pass ran)


def test_past_the_limit_the_pause_ends_with_a_full_pass(monkeypatch):
    monkeypatch.setattr(collector, "UNSCANNED_LIMIT", 10)
    with gc_paused():
        a, _b = _cycle()
    gone = weakref.ref(a)
    del a, _b
    with gc_paused():
        kept = [Node() for _ in range(20)]
    assert gone() is None  # (the full pass freed the earlier cycle)
    assert collector.unscanned() == 0
    assert _in_generation(kept[0], 2)


def test_an_owners_frozen_objects_stay_frozen():
    frozen = _cycle()
    gc.freeze()
    count = gc.get_freeze_count()
    with gc_paused():
        young = Node()
    assert gc.get_freeze_count() == count
    assert not _in_generation(frozen[0], 2)  # (still frozen, out of every generation)
    assert not _in_generation(young, 2)  # (left to the young passes)


def test_nested_pauses_leave_the_move_to_the_outermost():
    with gc_paused():
        with gc_paused():
            inner = Node()
        assert not gc.isenabled()
        assert _in_generation(inner, 0)
    assert gc.isenabled()
    assert _in_generation(inner, 2)


def test_a_pause_entered_with_the_collector_off_leaves_it_off():
    gc.disable()
    with gc_paused():
        node = Node()
    assert not gc.isenabled()
    assert _in_generation(node, 0)
