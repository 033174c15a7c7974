"""kconfig-ls: a Kconfig engine with the Linux C tool's semantics, and a
language server built on it."""

__version__ = "0.1.0"
