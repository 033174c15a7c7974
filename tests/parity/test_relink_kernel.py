"""The incremental re-link on the Linux 6.1 tree (x86_64): random edits
of entries of init/Kconfig, arch/x86/Kconfig and an Intel driver file,
each patched into the loaded tree and compared with a fresh load of the
same texts (menu structure, properties, expressions, diagnostics, cycles,
values from x86_64_defconfig's .config)."""

from __future__ import annotations

import random
import re

import pytest
from tree_digest import tree_digest

from kconfig_ls.kconfig.expr import BOOL, TRISTATE
from kconfig_ls.kconfig.kernel import kernel_env
from kconfig_ls.kconfig.preprocess import run_shell
from kconfig_ls.kconfig.relink import relink_file
from kconfig_ls.kconfig.tree import Kconfig

pytestmark = pytest.mark.kernel

FILES = ("init/Kconfig", "arch/x86/Kconfig", "drivers/net/ethernet/intel/Kconfig")
EDITS = 9


def _edit(rng: random.Random, text: str, names: list[str]) -> str:
    """One edit that keeps the file's entries: a dependency, default,
    select or prompt condition of a random entry added or removed."""
    entries = [m.end() for m in re.finditer(r"^(?:menu)?config \w+\n\t(?:bool|tristate|def_bool [yn])[^\n]*\n",
                                            text, re.M)]
    at = rng.choice(entries)
    roll = rng.random()
    other = rng.choice(names)
    if roll < 0.3:
        line = f"\tdepends on {other}\n"
    elif roll < 0.5:
        line = f"\tselect {other}\n" if rng.random() < 0.5 else f"\timply {other}\n"
    elif roll < 0.7:
        line = f"\tdefault {rng.choice('ynm')} if {other}\n"
    else:
        line = "\n"  # (lines below move)
    return text[:at] + line + text[at:]


def test_random_edits_of_kernel_files_equal_fresh_loads(kernel_tree, tmp_path):
    env = kernel_env(str(kernel_tree), "x86_64").env
    results: dict[str, str] = {}

    def shell(command: str) -> str:
        if command not in results:
            results[command] = run_shell(command, cwd=str(kernel_tree), env=env)
        return results[command]

    def load(overlays: dict[str, str], relinkable: bool) -> Kconfig:
        return Kconfig("Kconfig", srctree=str(kernel_tree), env=env, shell=shell, overlays=overlays,
                       relinkable=relinkable, warn_stream=None, info=lambda _text: None)

    rng = random.Random(61)
    overlays: dict[str, str] = {}
    kc = load(overlays, True)
    names = [s.name for s in kc.defined_symbols() if s.type in (BOOL, TRISTATE)]
    config = (kernel_tree / "arch/x86/configs/x86_64_defconfig").read_text()
    for step in range(EDITS):
        name = FILES[step % len(FILES)]
        text = overlays.get(name, kc.files[name].text)
        overlays[name] = _edit(rng, text, names)
        result = relink_file(kc, name, overlays[name])
        assert result.changed or result.region is None
        fresh = load(dict(overlays), False)
        mine, theirs = tree_digest(kc, config), tree_digest(fresh, config)
        for part in mine:
            assert mine[part] == theirs[part], f"step {step} ({name}): {part} differs"
