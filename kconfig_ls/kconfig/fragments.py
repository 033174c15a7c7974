"""Config fragments (``make defconfig kvm_guest.config``): merged into the
current configuration as ``scripts/kconfig/merge_config.sh -m`` does, then
completed as ``make olddefconfig``."""

from __future__ import annotations

import os
import re
import tempfile
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
    """``base`` with every line mentioning a symbol the fragment sets
    dropped, then the fragment appended."""
    lines = base.splitlines(keepends=True)
    for name in fragment_symbols(fragment, prefix):
        pattern = re.compile(re.escape(name) + r"[ =]")
        lines = [line for line in lines if not pattern.search(line)]
    merged = "".join(lines)
    if merged and not merged.endswith("\n"):
        merged += "\n"
    return merged + fragment


def merge_fragments(kc: Kconfig, fragments: list[str]) -> None:
    """Apply fragment files (paths, or names under ``kernel/configs`` or
    ``arch/$SRCARCH/configs``) to the current values, then re-read the result
    as ``olddefconfig`` would."""
    text = config_text(kc)
    prefix = kc.env.get("CONFIG_", "CONFIG_")
    for name in fragments:
        path = _find_fragment(kc, name)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = merge_text(text, f.read(), prefix)
    with tempfile.NamedTemporaryFile(
        "w", suffix=".config", delete=False, encoding="utf-8", errors="surrogateescape"
    ) as tmp:
        tmp.write(text)
    try:
        # make runs olddefconfig as a new conf process.
        kc.reset_values()
        read_config(kc, tmp.name, ".config")
    finally:
        os.unlink(tmp.name)


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
