"""Giving freed memory back to the system, and keeping the cyclic collector
off the loaded tree.

Loading a kernel tree makes and drops hundreds of thousands of temporary
objects (parse results, the unpickler's memo, a replaced tree).  CPython
returns the emptied memory to glibc's allocator, which keeps most of it in
its arenas for later use; a long-running server then shows (and holds) tens
of megabytes it no longer needs.  ``malloc_trim(0)`` hands the free pages
back; where there is no glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc


@functools.cache
def _libc_trim():
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None


def trim() -> None:
    """Return the allocator's free memory to the system (a few ms)."""
    trim_function = _libc_trim()
    if trim_function is not None:
        trim_function(0)


def freeze() -> None:
    """Take every object alive now out of the cyclic collector's sight.

    A loaded tree is some 300,000 container objects that live until the
    next load.  Left in the collector's generations, the first passes after
    a load walk all of them (~0.2 s on a kernel tree, in the middle of the
    first requests) and every full pass walks them again, finding nothing.
    Frozen, they are freed by reference counting as usual, but a frozen
    cycle (a replaced tree, or any garbage alive at the freeze) only by
    :func:`collect`: only a process that calls it when it drops a tree may
    freeze (the language server; see ``Project(freeze_trees=...)``)."""
    gc.freeze()


def collect() -> None:
    """Free every unreachable cycle, frozen ones included (replaced trees),
    and return the memory; what is left is no longer frozen."""
    gc.unfreeze()
    gc.collect()
    trim()
