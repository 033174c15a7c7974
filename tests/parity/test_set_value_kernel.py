"""`set_value` on the Linux 6.1 and 6.12 trees (x86_64), starting from
x86_64_defconfig as it is (a fragment): after random settings, each
answer's `changed` equals the difference of two fresh readings (the text
before and after the edit), so the shortcut through the symbols the edit
reaches says exactly what a full computation says; refusals are values a
fresh reading of the edited text would not give either."""

from __future__ import annotations

import random

import pytest
from conftest import GENERATIONS, require_kernel

from kconfig_ls.ide.project import Project, Settings
from kconfig_ls.ide.setvalue import normalized, set_value, shown_state
from kconfig_ls.kconfig.expr import BOOL, HEX, INT, TRISTATE
from kconfig_ls.kconfig.scenario import apply_edits, config_edits

pytestmark = pytest.mark.kernel

STEPS = 30


def fresh_state(project: Project, text: str):
    project.values = None  # (a reading from scratch)
    project.read_config(text)
    return shown_state(project)


def value_for(rng: random.Random, sym) -> str:
    if sym.type in (BOOL, TRISTATE):
        return rng.choice("nmy")
    if sym.type == INT:
        return str(rng.choice([0, 1, 64, 4096, -1]))
    if sym.type == HEX:
        return rng.choice(["0x1000", "ffff", "0x0"])
    return rng.choice(["", "kconfig-ls"])


@pytest.mark.parametrize("version", GENERATIONS)
def test_set_value_changes_equal_fresh_readings(version):
    kernel_tree = require_kernel(version)
    settings = Settings(arch="x86_64")
    project, fresh = Project(str(kernel_tree), settings), Project(str(kernel_tree), settings)
    project.load()
    fresh.load()
    text = (kernel_tree / "arch" / "x86" / "configs" / "x86_64_defconfig").read_text()
    project.read_config(text)
    kc = project.kc
    prompted = [s for s in kc.all_symbols if s.name and s.nodes and s.prompts and not s.is_choice]
    rng = random.Random(612)
    accepted = refused = 0
    for _step in range(STEPS):
        visible = [s for s in prompted if s.visible] if rng.random() < 0.8 else prompted
        sym = rng.choice(visible)
        value = value_for(rng, sym)
        outcome = set_value(project, sym.name, value, text)
        wanted = normalized(sym, value)
        if not outcome.accepted:
            refused += 1
            tried = apply_edits(text, config_edits(kc, text, {sym.name: wanted}))
            assert fresh_state(fresh, tried)[sym.name][0] != wanted, (sym.name, value, outcome.reason)
            continue
        accepted += 1
        new_text = apply_edits(text, config_edits(kc, text, {sym.name: wanted}))
        if sym.is_choice_value and wanted == "y":
            assert outcome.text is not None
            new_text = outcome.text
        assert outcome.text == new_text
        before, after = fresh_state(fresh, text), fresh_state(fresh, new_text)
        assert after[sym.name][0] == wanted
        moved = {n: state for n, state in after.items() if before.get(n) != state}
        assert {c["symbol"]: (c["value"], c["visible"]) for c in outcome.changed} == moved, (sym.name, value)
        assert len(outcome.changes) <= 1 + len(sym.choice.members if sym.is_choice_value else [])
        text = new_text
    assert accepted >= 10 and refused >= 3
