"""What a configuration defines for the C preprocessor and for make.

The C side is ``include/generated/autoconf.h``: ``CONFIG_X`` is ``1`` for a
bool or tristate at ``y``, ``CONFIG_X_MODULE`` is ``1`` for a tristate at
``m``, an int/hex/string symbol is its value, and a symbol at ``n`` (or not
written at all) defines nothing.  The make side is ``auto.conf``:
``CONFIG_X`` is ``y``, ``m`` or the value, and empty when unset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kconfig.configfile import config_prefix, header_macros, make_variables
from ..kconfig.tree import Kconfig

MODULE_SUFFIX = "_MODULE"


@dataclass
class ConfigMacros:
    """The macros of one configuration."""

    #: The prefix of every symbol's macro (``CONFIG_``; the tree's
    #: ``$CONFIG_`` environment variable may change it).
    prefix: str = "CONFIG_"
    #: autoconf.h: macro name -> replacement text.
    header: dict[str, str] = field(default_factory=dict)
    #: auto.conf: variable name -> value as make sees it.
    make: dict[str, str] = field(default_factory=dict)
    #: Every symbol name of the tree (without the prefix), set or not.
    symbols: frozenset[str] = frozenset()

    @classmethod
    def of_tree(cls, kc: Kconfig) -> ConfigMacros:
        """The macros of the values loaded into ``kc``."""
        return cls(config_prefix(kc), dict(header_macros(kc)), make_variables(kc),
                   frozenset(name for name, sym in kc.symbols.items() if sym.nodes))

    def symbol_of(self, macro: str) -> str | None:
        """The symbol a macro name stands for (``CONFIG_X`` and
        ``CONFIG_X_MODULE`` -> ``X``), or None when it is no symbol's."""
        if not macro.startswith(self.prefix):
            return None
        name = macro[len(self.prefix):]
        if name in self.symbols:
            return name
        if name.endswith(MODULE_SUFFIX) and name[: -len(MODULE_SUFFIX)] in self.symbols:
            return name[: -len(MODULE_SUFFIX)]
        return None
