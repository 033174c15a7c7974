"""Giving symbols the values a task needs, through verified how-to answers.

:func:`require` applies, one wanted value after another, the assignments
:func:`~.howto.how_to` finds (each verified against the config as it is at
that point).  :data:`BOOT_ESSENTIALS` is what an x86 kernel needs to show
anything on a serial console and run a tiny static init from an
initramfs; :func:`missing` lists which of them a config lacks and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import configfile
from .errors import KconfigError
from .explain import explain
from .howto import how_to
from .scenario import config_with

if TYPE_CHECKING:
    from .tree import Kconfig

#: Console on the first serial port (console=ttyS0), kernel messages, an
#: initramfs with a static ELF init that reads /proc/version.
BOOT_ESSENTIALS: dict[str, str] = {
    "PRINTK": "y",
    "TTY": "y",
    "SERIAL_8250": "y",
    "SERIAL_8250_CONSOLE": "y",
    "BLK_DEV_INITRD": "y",
    "BINFMT_ELF": "y",
    "PROC_FS": "y",
}


class RequireError(KconfigError):
    """A wanted value cannot be reached (the message says why)."""


@dataclass
class Missing:
    """A wanted value the configuration does not have."""

    name: str
    wanted: str
    value: str
    reasons: list[str] = field(default_factory=list)

    def describe(self) -> str:
        why = f": {'; '.join(self.reasons)}" if self.reasons else ""
        return f"CONFIG_{self.name} is {self.value or 'unset'}, needs {self.wanted}{why}"


def missing(kc: Kconfig, wanted: dict[str, str]) -> list[Missing]:
    """The wanted values that do not hold now, with the explanation's reasons."""
    out = []
    for name, value in wanted.items():
        sym = kc.find(name)
        if sym is None or not sym.nodes:
            out.append(Missing(name, value, "", ["not defined for this architecture"]))
            continue
        if sym.value != value:
            out.append(Missing(name, value, sym.value, explain(kc, sym).reasons))
    return out


def require(kc: Kconfig, wanted: dict[str, str], base_text: str | None = None) -> dict[str, str]:
    """Give every symbol in ``wanted`` its value, changing as little else as
    the verified answers need; the tree's values become those of the
    resulting config.  Returns all assignments made; raises
    :class:`RequireError` (changing nothing) when one value is impossible."""
    text = configfile.config_text(kc) if base_text is None else base_text
    applied: dict[str, str] = {}
    for name, value in wanted.items():
        sym = kc.find(name)
        if sym is None or not sym.nodes:
            raise RequireError(f"{name} is not defined in this tree")
        answer = how_to(kc, sym, value, text)
        if not answer.reachable:
            raise RequireError(f"cannot make {name}={value}: {answer.reason}")
        if answer.assignments:
            text = config_with(kc, text, answer.assignments)
            applied.update(answer.assignments)
    kc.conf_changed = False
    configfile.read_config(kc, "<required>", text=text)
    return applied
