"""Compact pickling for the tree's many small slotted objects.

A warm load reads the finalised tree back from a pickle (tree_cache.py): some
17,000 symbols, 18,000 menu nodes and 50,000 properties on x86_64.  Pickle's
default state for a slotted object is a dict of every slot, rebuilt and then
applied one ``setattr`` at a time; that was most of a warm run.  The state
methods made here read and write every slot as one tuple through plain
attribute access (the way :mod:`dataclasses` builds its methods, from
generated source), which reads back about four times faster.

Every slot must be set in ``__init__`` (an unset slot would fail to pickle,
as it should: a half-built object has no business in a snapshot).
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", bound=type)


def all_slots(cls: type) -> tuple[str, ...]:
    """Every slot of ``cls`` and its bases, base classes' first."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        names.extend((slots,) if isinstance(slots, str) else slots)
    return tuple(names)


def tuple_state(cls: T) -> T:
    """Class decorator: ``__getstate__``/``__setstate__`` that carry the
    slots as one tuple, in :func:`all_slots` order."""
    names = all_slots(cls)
    if not names or "__dict__" in names or "__weakref__" in names:
        raise TypeError(f"{cls.__name__}: tuple_state needs plain __slots__")
    targets = ", ".join(f"self.{name}" for name in names)
    source = (
        f"def __getstate__(self):\n    return ({targets},)\n"
        f"def __setstate__(self, state):\n    {targets}, = state\n"
    )
    namespace: dict = {}
    exec(compile(source, f"<tuple_state {cls.__qualname__}>", "exec"), namespace)  # noqa: S102 - our own slot names
    for name in ("__getstate__", "__setstate__"):
        method = namespace[name]
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    return cls
