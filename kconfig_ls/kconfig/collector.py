"""Keeping the cyclic garbage collector off a tree while it is built, and
off the finished tree's first passes.

Loading a kernel tree makes some 300,000 long-lived container objects.
With the collector running, its young passes would walk the growing graph
again and again without finding garbage, so a load pauses it
(:func:`gc_paused`).  Re-enabled, the collector's next young pass would
still walk every object the load made (about 0.14 s after an x86_64 load,
paid by whatever allocates next) and the middle generation's pass later
walks them again: all to learn that a tree just built is alive.

So when the pause ends, the objects it left behind are moved straight to the
oldest generation, unscanned (``gc.freeze()`` then ``gc.unfreeze()``: two
list splices).  They are collected there like any other: by the next full
pass.  One thing changes: a full pass comes when enough objects were
*promoted* since the last one, and moved objects do not count as promoted,
so a process that loads tree after tree could keep the cycles of many
dropped trees waiting.  The moved objects are therefore counted, and once
more than :data:`UNSCANNED_LIMIT` wait for a full pass, the pause ends with
one (:func:`gc.collect`) instead.

Objects frozen by their owner (the language server freezes its loaded tree
out of the collector: ``kconfig_ls/heap.py``) must stay frozen, and
``gc.unfreeze()`` would release them: while anything is frozen the pause
ends as a plain re-enable.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects moved past the young passes that may wait for a full pass: about
#: three kernel trees' worth.
UNSCANNED_LIMIT = 1_500_000

#: Objects moved, and the count of full passes when they were.
_unscanned = 0
_full_passes = 0


def unscanned() -> int:
    """Objects moved to the oldest generation since its last full pass.
    (Full passes are counted from ``gc.get_stats()``, not seen through a
    ``gc.callbacks`` hook, which would run Python code at every pass: an
    interrupt landing there is lost.)"""
    global _unscanned, _full_passes
    passes = gc.get_stats()[2]["collections"]
    if passes != _full_passes:
        _unscanned, _full_passes = 0, passes
    return _unscanned


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the collector for a load; on the way out, what the load left
    is moved past the young passes (see the module's docstring).  Nested
    pauses leave this to the outermost."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _settle_young_objects()
            gc.enable()


def _settle_young_objects() -> None:
    global _unscanned
    if gc.get_freeze_count():
        return  # (an owner's frozen tree must stay frozen: the young pass runs as usual)
    young = gc.get_count()[0]
    if unscanned() + young > UNSCANNED_LIMIT:
        gc.collect()
        return
    gc.freeze()
    gc.unfreeze()
    _unscanned += young
