"""Errors and diagnostics shared by every engine module."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Diagnostic:
    """A problem found in a Kconfig or config file, with its place.

    ``line`` is 1-based (as the C tool prints it); ``col``/``end_col`` are
    0-based character offsets on that line, ``end_line`` defaults to ``line``.
    """

    file: str
    line: int
    message: str
    severity: Severity = Severity.ERROR
    col: int = 0
    end_col: int | None = None
    end_line: int | None = None
    code: str = ""
    #: The C tool's exact text for this problem, when it differs from
    #: ``message`` (the conf-compatible CLI prints this).
    c_text: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.severity.value}: {self.message}"


class KconfigError(Exception):
    """A fatal error with a location, e.g. an unterminated macro or a
    missing ``source`` file (the C tool exits on these)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        if self.file is not None:
            return f"{self.file}:{self.line}: {self.message}"
        return self.message
