"""What an open document is to the engine: its name and its kind.

A ``file:`` document of the tree is named as the tree names its files
(relative to the root); a file outside the tree by its absolute path.  A
buffer that is no file at all (VS Code's ``untitled:Untitled-1``) is named
by its URI, so the engine can check it like any other text and a location
in it leads back to the same buffer.

The kind, Kconfig text or config text (``.config``, defconfig, fragment),
comes from the client's language id when it names one of ours, else from
the file name (``Kconfig``, ``Kconfig.*``, ``*.kconfig`` are Kconfig).  C,
assembly, device-tree and make files (by language id or name) are source
files: only their ``CONFIG_`` uses are read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from pygls.uris import from_fs_path

from ..ide.project import Project, is_buffer_name, is_kconfig_file
from ..ide.sources import source_kind

KCONFIG_LANGUAGE = "kconfig"
CONFIG_LANGUAGE = "kconfig-config"


def uri_to_path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def is_file_uri(uri: str) -> bool:
    return uri.startswith("file:")


@dataclass(frozen=True)
class DocumentRef:
    uri: str
    #: The file on disk for a ``file:`` URI (it may not exist), else None.
    path: str | None
    #: The engine's name for the text (see the module docstring).
    name: str
    #: Kconfig text; else config-style text.
    kconfig: bool
    #: A file of the tree's directory (its edits go into the tree's load).
    in_tree: bool
    #: A source file whose CONFIG_ uses are read: "cpp" (C, headers,
    #: assembly, device trees) or "make"; then :attr:`kconfig` is False.
    source: str | None = None


def describe(project: Project | None, uri: str, language_id: str | None) -> DocumentRef:
    """The document at ``uri`` as the engine sees it."""
    if is_file_uri(uri):
        path = uri_to_path(uri)
        name = project.relative(path) if project is not None else path
        in_tree = project is not None and not os.path.isabs(name)
        shown = path
    else:
        path, name, in_tree, shown = None, uri, False, uri_to_path(uri) or uri
    source = None
    if language_id == KCONFIG_LANGUAGE:
        kconfig = True
    elif language_id == CONFIG_LANGUAGE:
        kconfig = False
    else:
        kconfig = is_kconfig_file(shown)
        if not kconfig:
            source = source_kind(shown, language_id)
    return DocumentRef(uri, path, name, kconfig, in_tree, source)


def name_to_uri(project: Project, name: str) -> str:
    """The URI of an engine file name (the inverse of :func:`describe`)."""
    if is_buffer_name(name):
        return name
    return from_fs_path(project.absolute(name))
