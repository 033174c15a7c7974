"""Lines of a file before and after an edit.

Between an edit and the next re-link, the problems only the whole tree can
find (cycles, values) are known for the file's old text.  The lines above
and below the changed region are the same in both texts, only shifted; a
:class:`LineMap` moves line numbers across, and says when a line is inside
the changed region (then nothing old applies to it).
"""

from __future__ import annotations


class LineMap:
    """``LineMap(old_text, new_text)``; line numbers are 1-based."""

    def __init__(self, old_text: str, new_text: str):
        old_lines = old_text.split("\n")
        new_lines = new_text.split("\n")
        limit = min(len(old_lines), len(new_lines))
        prefix = 0
        while prefix < limit and old_lines[prefix] == new_lines[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and old_lines[-1 - suffix] == new_lines[-1 - suffix]:
            suffix += 1
        #: Lines 1..prefix are the same in both texts.
        self.prefix = prefix
        self._old_tail = len(old_lines) - suffix  # old lines after this one are the common tail
        self.shift = len(new_lines) - len(old_lines)

    def to_new(self, old_line: int) -> int | None:
        """Where old line ``old_line`` is now (None: it was edited)."""
        if old_line <= self.prefix:
            return old_line
        if old_line > self._old_tail:
            return old_line + self.shift
        return None
