"""Config fragments (``make defconfig kvm_guest.config``): merged into the
current configuration as ``scripts/kconfig/merge_config.sh -m`` does, then
completed as ``make olddefconfig``."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from .configfile import config_text, read_config

if TYPE_CHECKING:
    from .tree import Kconfig


def fragment_symbols(text: str, prefix: str = "CONFIG_") -> list[str]:
    """Names set in a fragment (``CONFIG_X=...`` or ``# CONFIG_X is not set``)."""
    names = []
    p = re.escape(prefix)
    for line in text.splitlines():
        m = re.match(rf"^({p}[a-zA-Z0-9_]*)=", line) or re.match(
            rf"^# ({p}[a-zA-Z0-9_]*) is not set$", line
        )
        if m:
            names.append(m.group(1))
    return names


def merge_text(base: str, fragment: str, prefix: str = "CONFIG_") -> str:
    """merge_config.sh's merge of one fragment: the lines of ``base`` that
    mention a symbol the fragment sets are dropped, then a newline and the
    fragment are appended."""
    lines = base.splitlines(keepends=True)
    for name in fragment_symbols(fragment, prefix):
        word = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])")
        if not any(word.search(line) for line in lines):
            continue
        pattern = re.compile(re.escape(name) + r"[ =]")
        lines = [line for line in lines if not pattern.search(line)]
    return "".join(lines) + "\n" + fragment


def merge_fragments(kc: Kconfig, fragments: list[str]) -> None:
    """Apply fragment files (paths, or names under ``kernel/configs`` or
    ``arch/$SRCARCH/configs``) to the current values, then re-read the result
    as ``olddefconfig`` would."""
    text = config_text(kc)
    prefix = kc.env.get("CONFIG_", "CONFIG_")
    for name in fragments:
        text = merge_text(text, _read(_find_fragment(kc, name)), prefix)
    olddefconfig_text(kc, text)


def olddefconfig_text(kc: Kconfig, text: str) -> None:
    """Load config ``text`` as a fresh ``make olddefconfig`` would."""
    kc.reset_values()
    read_config(kc, ".config", text=text)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _find_fragment(kc: Kconfig, name: str) -> str:
    if os.path.isfile(name):
        return name
    srcarch = kc.env.get("SRCARCH", "")
    for candidate in (
        os.path.join(kc.srctree, "kernel", "configs", name),
        os.path.join(kc.srctree, "arch", srcarch, "configs", name),
    ):
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(f"No configuration exists for this target on this architecture: {name}")
