"""``make <name>_defconfig`` for a kernel tree: plain files under
``arch/$SRCARCH/configs`` and the targets some arch Makefiles generate
(MIPS builds ``32r2el_defconfig`` and friends from ``generic_defconfig``,
ISA/endianness fragments and board fragments)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from . import session
from .configfile import config_text
from .errors import KconfigError
from .fragments import _read, merge_text, olddefconfig_text

if TYPE_CHECKING:
    from .tree import Kconfig

_MIPS_GENERIC = re.compile(r"^(32|64|micro32)(r1|r2|r6)(el)?_defconfig$")
_MIPS_VALID = {("32", r) for r in ("r1", "r2", "r6")} | {("64", r) for r in ("r1", "r2", "r6")} | {("micro32", "r2")}
#: arch/mips/Makefile's legacy names for generic configs with some boards.
_MIPS_LEGACY = {
    "ocelot_defconfig": ("32r2el_defconfig", ["ocelot"]),
    "sead3_defconfig": ("32r2el_defconfig", ["sead-3"]),
    "sead3micro_defconfig": ("micro32r2el_defconfig", ["sead-3"]),
    "xilfpga_defconfig": ("32r2el_defconfig", ["xilfpga"]),
    "pistachio_defconfig": ("32r2el_defconfig", ["marduk"]),
}


_MERGE_RULE = re.compile(r"^([\w.-]+_defconfig):[ \t]*\n\t\$\(call merge_into_defconfig,([^,]+),([^)]*)\)", re.M)
_SUBMAKE_RULE = re.compile(r"^([\w.-]+_defconfig):[ \t]*\n\t\$\(Q\)\$\(MAKE\) -f \$\(srctree\)/Makefile (.+)$", re.M)


def arch_makefile_rules(tree: str, srcarch: str) -> dict[str, tuple[str, list[str]]]:
    """Explicit ``*_defconfig`` rules of arch/$SRCARCH/Makefile (they win
    over the generic rule that reads arch/$SRCARCH/configs/<name>):
    ``("merge", [base, fragment...])`` for powerpc's merged defconfigs and
    ``("make", [target...])`` for rules like riscv's ``rv32_defconfig``."""
    try:
        with open(os.path.join(tree, "arch", srcarch, "Makefile"), encoding="utf-8", errors="replace") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return {}
    rules: dict[str, tuple[str, list[str]]] = {}
    for m in _MERGE_RULE.finditer(text):
        rules[m.group(1)] = ("merge", [m.group(2).strip()] + [f"{c}.config" for c in m.group(3).split()])
    for m in _SUBMAKE_RULE.finditer(text):
        rules[m.group(1)] = ("make", m.group(2).split())
    return rules


def defconfig_exists(tree: str, srcarch: str, name: str) -> bool:
    if os.path.isfile(os.path.join(tree, "arch", srcarch, "configs", name)):
        return name not in _REFUSED.get(srcarch, {})
    if name in arch_makefile_rules(tree, srcarch):
        return True
    return srcarch == "mips" and (_mips_generic_parts(name) is not None or name in _MIPS_LEGACY)


#: Targets an arch Makefile refuses on purpose (with its message).
_REFUSED = {
    "mips": {
        "generic_defconfig": "generic_defconfig is not intended for direct use, but should instead be "
        "used via an ISA-specific target such as 32r2el_defconfig",
    },
}


def apply_defconfig(kc: Kconfig, tree: str, srcarch: str, name: str) -> None:
    """Configure ``kc`` as ``make <name>`` would."""
    refused = _REFUSED.get(srcarch, {}).get(name)
    if refused is not None:
        raise KconfigError(refused)
    rule = arch_makefile_rules(tree, srcarch).get(name)
    if rule is not None:
        _apply_rule(kc, tree, srcarch, rule)
        return
    path = os.path.join(tree, "arch", srcarch, "configs", name)
    if os.path.isfile(path):
        session.read_user_config(kc, path, None)
        session.apply_mode(kc, "defconfig")
        return
    if os.path.isfile(name):
        session.read_user_config(kc, name, None)
        session.apply_mode(kc, "defconfig")
        return
    if srcarch == "mips":
        if name in _MIPS_LEGACY:
            target, boards = _MIPS_LEGACY[name]
            _mips_generic(kc, tree, target, boards, boards_given=True)
            return
        if _mips_generic_parts(name) is not None:
            _mips_generic(kc, tree, name, None, boards_given=False)
            return
    raise KconfigError(f"defconfig not found: {name} (looked in arch/{srcarch}/configs/ and as a path)")


def _apply_rule(kc: Kconfig, tree: str, srcarch: str, rule: tuple[str, list[str]]) -> None:
    kind, items = rule
    configs = os.path.join(tree, "arch", srcarch, "configs")
    if kind == "merge":
        text = _read(os.path.join(configs, items[0]))
        for fragment in items[1:]:
            text = merge_text(text, _read(os.path.join(configs, fragment)))
        olddefconfig_text(kc, text)
        return
    for target in items:
        if target == "defconfig":
            from .kernel import default_defconfig

            apply_defconfig(kc, tree, srcarch, default_defconfig(tree, kc.env.get("ARCH", srcarch)))
        elif target.endswith(".config"):
            from .fragments import merge_fragments

            merge_fragments(kc, [target])
        else:
            apply_defconfig(kc, tree, srcarch, target)


def _mips_generic_parts(name: str) -> tuple[str, str] | None:
    m = _MIPS_GENERIC.match(name)
    if m is None or (m.group(1), m.group(2)) not in _MIPS_VALID:
        return None
    return m.group(1) + m.group(2), "el" if m.group(3) else "eb"


def _mips_generic(kc: Kconfig, tree: str, target: str, boards: list[str] | None, boards_given: bool) -> None:
    isa, endian = _mips_generic_parts(target)
    generic = os.path.join(tree, "arch", "mips", "configs", "generic")
    merged = _read(os.path.join(tree, "arch", "mips", "configs", "generic_defconfig"))
    for fragment in (f"{isa}.config", f"{endian}.config"):
        merged = merge_text(merged, _read(os.path.join(generic, fragment)))
    # The reference config the board fragments' "# require" lines test.
    olddefconfig_text(kc, merged)
    reference = config_text(kc).splitlines()
    if boards is None:
        boards = sorted(
            n[len("board-") : -len(".config")]
            for n in os.listdir(generic)
            if n.startswith("board-") and n.endswith(".config")
        )
    for board in boards:
        path = os.path.join(generic, f"board-{board}.config")
        if not os.path.isfile(path):
            continue
        fragment = _read(path)
        if _requirements_met(fragment, reference):
            merged = merge_text(merged, fragment)
    olddefconfig_text(kc, merged)


def _requirements_met(fragment: str, reference: list[str]) -> bool:
    lines = set(reference)
    for line in fragment.splitlines():
        if not line.startswith("# require "):
            continue
        req = line.split(" ", 2)[2]
        if req.endswith("=y"):
            if req not in lines:
                return False
        elif req.endswith("=n"):
            if req[:-2] + "=y" in lines:
                return False
    return True
