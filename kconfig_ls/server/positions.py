"""Columns between the engine and the client.

The engine counts columns in code points; LSP clients count in the
negotiated encoding (UTF-16 by default).  They differ only on lines with
non-ASCII text before the position, e.g. a prompt ``"Größe"`` or an emoji
in front of a symbol, so ASCII lines (nearly all of a kernel tree) are
passed through untouched.
"""

from __future__ import annotations

from .documents import is_file_uri, uri_to_path


class Columns:
    def __init__(self, server) -> None:
        self.server = server
        self._disk: dict[str, list[str]] = {}

    def forget(self) -> None:
        """Drop cached file lines (after a reload)."""
        self._disk.clear()

    def line_text(self, uri: str, line: int) -> str:
        """Line ``line`` (0-based) of the document at ``uri``: the open
        buffer's, else the disk file's (none for a buffer that is closed)."""
        document = self.server.workspace.text_documents.get(uri)
        if document is not None:
            lines = document.lines
        elif not is_file_uri(uri):
            lines = []
        else:
            path = uri_to_path(uri)
            lines = self._disk.get(path)
            if lines is None:
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = f.read().split("\n")
                except OSError:
                    lines = []
                if len(self._disk) > 256:
                    self._disk.clear()
                self._disk[path] = lines
        return lines[line].rstrip("\r\n") if 0 <= line < len(lines) else ""

    def to_client(self, text: str, col: int) -> int:
        """Code-point column ``col`` of ``text`` in client units."""
        if text.isascii():
            return col
        codec = self.server.workspace.position_codec
        return codec.client_num_units(text[:col]) + max(0, col - len(text))

    def from_client(self, text: str, character: int) -> int:
        """Client-unit ``character`` of ``text`` as a code-point column."""
        if text.isascii():
            return character
        codec = self.server.workspace.position_codec
        units = 0
        for index, char in enumerate(text):
            if units >= character:
                return index
            units += codec.client_num_units(char)
        return len(text) + max(0, character - units)

    def uri_col(self, uri: str, line: int, col: int) -> int:
        """``to_client`` for a column of a document's line (0-based line)."""
        if col == 0:
            return col
        return self.to_client(self.line_text(uri, line), col)
