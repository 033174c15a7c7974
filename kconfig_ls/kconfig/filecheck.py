"""One Kconfig file checked on its own, against a tree already loaded.

Re-linking a whole kernel tree after an edit takes most of a second; an
editor wants the problems of the file being typed in within a keystroke or
two.  :class:`FileCheck` parses just that file's text with the tree's macro
state, without following its ``source`` statements (it only checks that
their files exist), and finalises the result on its own.  Symbols it meets
take the type the loaded tree gives them, so type checks against symbols
defined elsewhere still hold.

What needs the whole tree (recursive dependencies, values, selects whose
dependencies are unmet) is not found here: the caller keeps those from the
last full load until the next one.

A file the tree does not load (another architecture's) can be checked
``standalone``: syntax, and references to symbols no Kconfig file defines.
"""

from __future__ import annotations

from dataclasses import replace

from .errors import Diagnostic, KconfigError, Severity
from .parser import Builder
from .symbols import Symbol
from .tree import Kconfig, gc_paused


class _SingleFileBuilder(Builder):
    """A builder that checks ``source`` targets exist instead of parsing them."""

    def parse_file(self, name: str, included_from: tuple[str, int] | None = None) -> None:
        if included_from is None:
            super().parse_file(name)
        elif self.kc.resolve_path(name) is None:
            file, line = included_from
            self.kc.add_diagnostic(Diagnostic(file, line, f"can't open file \"{name}\"", Severity.ERROR, code="fatal"))


class FileCheck(Kconfig):
    """``FileCheck(tree, name, text)``: ``text`` parsed as file ``name`` of
    ``tree`` (a loaded :class:`Kconfig`, left untouched).

    :attr:`diagnostics`, :attr:`logical_uses` and the symbols' ``refs`` are
    those of this one file.  A fatal error (an unterminated macro) becomes
    a diagnostic rather than an exception.
    """

    def __init__(self, tree: Kconfig, name: str, text: str, standalone: bool = False,
                 lex_cache: dict | None = None):
        self.tree = tree
        #: The file is not part of ``tree`` (another architecture's): the
        #: tree's symbol types say nothing about it, so only what the text
        #: itself shows is checked (no finalisation, no borrowed types).
        self.standalone = standalone
        # (``lex_cache``: the check of a buffer and the re-link of the same
        # text lex it once.)
        self._init_state(name, tree.srctree, tree.env, None, {name: text}, lex_cache, None)
        self.gen = tree.gen
        # The macro state at the end of the tree's parse: variables defined
        # before this file are in it (a later redefinition is rare enough).
        self.pp = replace(
            tree.pp,
            variables=dict(tree.pp.variables),
            env_used=dict(tree.pp.env_used),
            info=lambda _text: None,
            warn=None,
        )
        with gc_paused():
            try:
                self._load(name)
            except KconfigError as exc:
                self.add_diagnostic(
                    Diagnostic(exc.file or name, exc.line or 1, exc.message, Severity.ERROR, code="fatal")
                )

    def _load(self, filename: str) -> None:
        self._build(_SingleFileBuilder(self), filename)
        if not self.standalone:
            self._finalize(self.root)
            self._dedup_memo.clear()
        self._index_properties()

    def lookup(self, name: str) -> Symbol:
        fresh = name not in self.symbols
        sym = super().lookup(name)
        if fresh and not self.standalone and not sym.is_const and sym.name == name:
            known = self.tree.symbols.get(name)
            if known is not None and self.defined_elsewhere(known):
                sym.type = known.type
        return sym

    def defined_elsewhere(self, known: Symbol) -> bool:
        """Whether the loaded tree defines ``known`` in another file."""
        return any(node.file != self.top_file for node in known.nodes)

    def undefined_references(self) -> list[Symbol]:
        return [s for s in super().undefined_references() if not self.is_defined(s)]

    def is_defined(self, sym: Symbol) -> bool:
        """Whether ``sym`` (a symbol of this check) has a definition: here
        or in another file of the tree."""
        if sym.nodes:
            return True
        known = self.tree.symbols.get(sym.name) if sym.name else None
        return known is not None and self.defined_elsewhere(known)
