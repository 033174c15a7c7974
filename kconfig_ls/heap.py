"""Giving freed memory back to the system.

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
