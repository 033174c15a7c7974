"""The Kconfig files a tree will source, guessed from their text alone.

A cold load meets most of its toolchain probes in a handful of files
(``init/Kconfig``, ``arch/*/Kconfig``, ``lib/Kconfig.debug``,
``security/Kconfig.hardening`` ...), some of them read only near the end of
the parse.  To start their commands early (probes.py), the load needs to
know those files before it gets there: :func:`files_after` follows the
``source`` lines of every file from the top one, depth first as the parser
does, without lexing or parsing anything.

It is a guess, and only used as one: a ``source`` line inside a help text is
followed too, a path is expanded with the macro state of the moment, and a
file that cannot be read is left out.  A wrong guess costs a command run for
nothing or one that is not started early; what the parse reads and runs is
decided by the parse alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from .errors import KconfigError

#: The quoted path of a ``source`` statement (and of its ``r``/``o``/``or``
#: variants: the keyword's prefix is checked at the line's start).
_SOURCE_PATH = re.compile(r'source[ \t]+"([^"\n]*)"')

#: What a line may hold before ``source``: blanks, then the variant's prefix.
_PREFIXES = ("", "o", "r", "or")

ReadFile = Callable[[str], "str | None"]
Expand = Callable[[str], str]


def source_name(keyword: str, including_file: str, path: str) -> str:
    """The file a ``source`` statement (any variant) in ``including_file``
    names: ``rsource`` and ``orsource`` paths are relative to that file's
    folder, the others to the top of the tree."""
    if keyword in ("rsource", "orsource") and not os.path.isabs(path):
        return os.path.normpath(os.path.join(os.path.dirname(including_file), path))
    return path


def sourced_names(name: str, text: str, expand: Expand) -> list[str]:
    """The files ``text`` (of file ``name``) sources, in order, as the parse
    would name them (``rsource`` paths made relative to ``name``'s folder)."""
    names = []
    for m in _SOURCE_PATH.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()]
        prefix = head.lstrip(" \t")
        if prefix not in _PREFIXES:
            continue
        path = m.group(1)
        if "$" in path:
            try:
                path = expand(path)
            except KconfigError:
                continue
        names.append(source_name(prefix + "source", name, path))
    return names


def files_after(top: str, current: str, read: ReadFile, expand: Expand) -> Iterator[tuple[str, str]]:
    """(name, text) of each file the tree under ``top`` sources after
    ``current``, in the parse's order (each file once, at its first
    ``source``).  ``read`` gives a file's text, or None when it cannot be
    read; ``expand`` expands the macros of a path."""
    seen = {top}
    stack = [top]
    after_current = False
    while stack:
        name = stack.pop()
        text = read(name)
        if text is None:
            continue
        if after_current:
            yield name, text
        elif name == current:
            after_current = True
        children = []
        for child in sourced_names(name, text, expand):
            if child not in seen:
                seen.add(child)
                children.append(child)
        stack.extend(reversed(children))
