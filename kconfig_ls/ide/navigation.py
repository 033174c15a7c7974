"""Go to definition and find references."""

from __future__ import annotations

from ..kconfig.tree import Kconfig
from .project import Project


def definitions(project: Project, kc: Kconfig, name: str) -> list[tuple[str, int]]:
    """(file, line) of every definition of ``name``: the loaded tree's,
    then those only other architectures load."""
    found: list[tuple[str, int]] = []
    sym = kc.find(name)
    if sym is not None:
        found.extend((node.file, node.line) for node in sym.nodes)
    for location in project.all_arch_definitions().get(name, []):
        if location not in found:
            found.append(location)
    return found


def references(kc: Kconfig, name: str, include_definitions: bool) -> list[tuple[str, int, int, int]]:
    """(file, line, start column, end column) of every use of ``name``."""
    sym = kc.find(name)
    if sym is None:
        return []
    out = []
    spans = list(sym.refs)
    if include_definitions:
        spans += [(n.file, *n.name_span) for n in sym.nodes if n.name_span is not None]
    for file, start, end in spans:
        line, col = kc.locate(file, start)
        out.append((file, line, col, col + (end - start)))
    out.sort()
    return out
