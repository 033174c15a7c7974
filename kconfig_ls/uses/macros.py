"""What a configuration defines for the C preprocessor and for make.

The C side is ``include/generated/autoconf.h``: ``CONFIG_X`` is ``1`` for a
bool or tristate at ``y``, ``CONFIG_X_MODULE`` is ``1`` for a tristate at
``m``, an int/hex/string symbol is its value, and a symbol at ``n`` (or not
written at all) defines nothing.  The make side is ``auto.conf``:
``CONFIG_X`` is ``y``, ``m`` or the value, and empty when unset.

A file asks for a few hundred names of a tree's 16,000 symbols, and the
values change at every edit: the macros of a loaded tree are worked out
name by name when asked (:class:`TreeMacros`), not written out whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ..kconfig.configfile import config_prefix, header_macro, is_written, make_variable
from ..kconfig.tree import Kconfig

MODULE_SUFFIX = "_MODULE"


@dataclass
class ConfigMacros:
    """The macros of one configuration."""

    #: The prefix of every symbol's macro (``CONFIG_``; the tree's
    #: ``$CONFIG_`` environment variable may change it).
    prefix: str = "CONFIG_"
    #: autoconf.h: macro name -> replacement text.
    header: Mapping[str, str] = field(default_factory=dict)
    #: auto.conf: variable name -> value as make sees it.
    make: Mapping[str, str] = field(default_factory=dict)
    #: Every symbol name of the tree (without the prefix), set or not.
    symbols: frozenset[str] = frozenset()

    @classmethod
    def of_tree(cls, kc: Kconfig) -> ConfigMacros:
        """The macros of the values loaded into ``kc`` (worked out when
        asked: ask with the tree's values unchanged and its lock held)."""
        prefix = config_prefix(kc)
        symbols = frozenset(name for name, sym in kc.symbols.items() if sym.nodes)
        return cls(prefix, TreeMacros(kc, prefix, header_macro), TreeMacros(kc, prefix, make_variable), symbols)

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


class TreeMacros(Mapping[str, str]):
    """The macros (or make variables) of a tree's values, by name, each
    worked out from its symbol the first time it is asked for."""

    def __init__(self, kc: Kconfig, prefix: str, of_symbol: Callable):
        self.kc = kc
        self.prefix = prefix
        self.of_symbol = of_symbol
        self._known: dict[str, str | None] = {}

    def _lookup(self, name: str) -> str | None:
        if name in self._known:
            return self._known[name]
        value = None
        if name.startswith(self.prefix):
            bare = name[len(self.prefix):]
            candidates = [bare]
            if bare.endswith(MODULE_SUFFIX):
                candidates.append(bare[: -len(MODULE_SUFFIX)])
            for candidate in candidates:
                sym = self.kc.symbols.get(candidate)
                if sym is None or not sym.nodes or not is_written(sym):
                    continue
                made = self.of_symbol(self.kc, sym)
                if made is not None and made[0] == name:
                    value = made[1]
                    break
        self._known[name] = value
        return value

    def __getitem__(self, name: str) -> str:
        value = self._lookup(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._lookup(name) is not None

    def __iter__(self) -> Iterator[str]:
        for name, sym in self.kc.symbols.items():
            for macro in (self.prefix + name, self.prefix + name + MODULE_SUFFIX):
                if sym.nodes and macro in self:
                    yield macro

    def __len__(self) -> int:
        return sum(1 for _ in self)
