"""The incremental re-link on the Linux 6.1 tree (x86_64): random edits
of entries of init/Kconfig, arch/x86/Kconfig and an Intel driver file,
each patched into the loaded tree and compared with a fresh load of the
same texts (menu structure, properties, expressions, diagnostics, cycles,
values from x86_64_defconfig's .config)."""

from __future__ import annotations

import random
import re

import pytest
from tree_digest import current_values, tree_digest

from kconfig_ls.kconfig.expr import BOOL, TRISTATE
from kconfig_ls.kconfig.kernel import kernel_env
from kconfig_ls.kconfig.preprocess import run_shell
from kconfig_ls.kconfig.relink import relink_file
from kconfig_ls.kconfig.revalue import ConfigValues
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


def _x86_64_loader(kernel_tree):
    """load(overlays, relinkable) of the x86_64 tree, each probe run once."""
    env = kernel_env(str(kernel_tree), "x86_64").env
    results: dict[str, str] = {}

    def shell(command: str) -> str:
        if command not in results:
            results[command] = run_shell(command, cwd=str(kernel_tree), env=env)
        return results[command]

    def load(overlays: dict[str, str] | None = None, relinkable: bool = True) -> Kconfig:
        return Kconfig("Kconfig", srctree=str(kernel_tree), env=env, shell=shell, overlays=overlays or {},
                       relinkable=relinkable, warn_stream=None, info=lambda _text: None)

    return load


def test_random_edits_of_kernel_files_equal_fresh_loads(kernel_tree, tmp_path):
    load = _x86_64_loader(kernel_tree)
    rng = random.Random(61)
    overlays: dict[str, str] = {}
    kc = load(overlays, True)
    names = [s.name for s in kc.defined_symbols() if s.type in (BOOL, TRISTATE)]
    config = (kernel_tree / "arch/x86/configs/x86_64_defconfig").read_text()
    values = ConfigValues(kc, ".config", ".config", config)
    values.prepare()
    updated = 0
    for step in range(EDITS):
        name = FILES[step % len(FILES)]
        text = overlays.get(name, kc.files[name].text)
        overlays[name] = _edit(rng, text, names)
        result = relink_file(kc, name, overlays[name])
        assert result.changed or result.region is None
        fresh = load(dict(overlays), False)
        # The values after the edit, computed again only where it reached
        # (revalue.py), against a fresh reading of the fresh tree.
        if values.update(result.symbols):
            updated += 1
        else:
            values = ConfigValues(kc, ".config", ".config", config)
        values.prepare()
        fresh_values = ConfigValues(fresh, ".config", ".config", config)
        assert current_values(kc) == current_values(fresh), f"step {step} ({name}): values differ"
        assert sorted(s.name for s in values.unsaved) == sorted(s.name for s in fresh_values.unsaved)
        mine, theirs = tree_digest(kc, config), tree_digest(fresh, config)
        for part in mine:
            assert mine[part] == theirs[part], f"step {step} ({name}): {part} differs"
        values = ConfigValues(kc, ".config", ".config", config)  # (the digest read the config afresh)
    assert updated >= EDITS // 2, updated


def _edit_config(rng: random.Random, text: str, names: list[str]) -> str:
    """One edit of a config: a symbol set to y, m or n (its line replaced or
    added), or a line taken away."""
    lines = text.splitlines()
    if rng.random() < 0.25 and lines:
        del lines[rng.randrange(len(lines))]
    else:
        name = rng.choice(names)
        value = rng.choice("ynm")
        line = f"CONFIG_{name}={value}" if value != "n" else f"# CONFIG_{name} is not set"
        lines = [x for x in lines if not re.match(rf"(# )?CONFIG_{name}[= ]", x)] + [line]
    return "\n".join(lines) + "\n"


def test_random_config_edits_of_kernel_values_equal_fresh_readings(kernel_tree):
    """A config edit on the x86_64 tree (one symbol's line, as a user types
    it): the values computed again only where the edit reached equal a
    fresh reading of the same text on a tree of its own; among the names,
    symbols that reach much of the tree (EXPERT, NET, PCI, MODULES)."""
    load = _x86_64_loader(kernel_tree)
    kc, fresh = load(), load()
    rng = random.Random(612)
    names = [s.name for s in kc.defined_symbols() if s.type in (BOOL, TRISTATE) and s.prompts]
    names = rng.sample(names, 40) + ["EXPERT", "NET", "PCI", "MODULES", "X86_64", "SMP"] * 3
    config = (kernel_tree / "arch/x86/configs/x86_64_defconfig").read_text()
    values = ConfigValues(kc, ".config", ".config", config)
    values.prepare()
    reread = 0
    for step in range(24):
        config = _edit_config(rng, config, names)
        if values.reread(config, ".config", ".config"):
            reread += 1
        else:
            values = ConfigValues(kc, ".config", ".config", config)
        fresh_values = ConfigValues(fresh, ".config", ".config", config)
        where = f"step {step}: {config.splitlines()[-1]!r}"
        assert current_values(kc) == current_values(fresh), f"{where}: values differ"
        assert sorted(s.name for s in values.unsaved) == sorted(s.name for s in fresh_values.unsaved), where
        assert [str(w) for w in values.warnings] == [str(w) for w in fresh_values.warnings], where
    assert reread >= 16, reread
