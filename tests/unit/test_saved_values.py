"""A what-if question leaves the tree exactly as it was (kconfig_ls/kconfig/
saved_values.py): values, user input, warnings, condition values and
choice order, every symbol still computed, on random trees of the 6.1 and
the 6.12 rules (whose readings reorder choice members)."""

from __future__ import annotations

import random

import pytest
from relink_trees import RandomTree

from kconfig_ls.kconfig import generation as generations
from kconfig_ls.kconfig.howto import how_to
from kconfig_ls.kconfig.revalue import ConfigValues
from kconfig_ls.kconfig.symbols import Symbol
from kconfig_ls.kconfig.tree import Kconfig

#: The slots a computation or a reading writes (the second half of Symbol's).
_STATE = Symbol.__slots__[Symbol.__slots__.index("valid"):]


def _everything(kc: Kconfig) -> tuple:
    """Every piece of evaluation state of the tree, read independently of
    the module under test."""
    symbols = tuple(tuple(getattr(sym, slot) for slot in _STATE) + (tuple(sym.members),)
                    for sym in kc.all_symbols)
    conds = tuple(prop.cond_tri for sym in kc.all_symbols for prop in sym.props)
    return symbols, conds, tuple(kc.unmet), kc.modules_val, kc.conf_changed


@pytest.mark.parametrize(("generation", "seeds"), [("6.1", range(0, 12)), ("6.12", range(200, 212))])
def test_a_what_if_leaves_every_value_in_place(tmp_path, generation, seeds):
    rules = generations.by_name(generation)
    asked = 0
    for seed in seeds:
        tree = RandomTree(seed, member_choices=rules.member_choices)
        kc = Kconfig("Kconfig", srctree=str(tmp_path), env={"srctree": str(tmp_path)}, overlays=tree.texts(),
                     generation=rules, warn_stream=None, info=lambda _text: None)
        config = tree.config()
        ConfigValues(kc, ".config", ".config", config)
        for sym in kc.hash_order():
            sym.calc_value()
        before = _everything(kc)
        assert all(sym.valid for sym in kc.all_symbols)
        rng = random.Random(seed)
        named = [s for s in kc.all_symbols if s.nodes and s.name and s.type_name in ("bool", "tristate")]
        for sym in rng.sample(named, min(6, len(named))):
            how_to(kc, sym, rng.choice(("y", "n")), config, time_limit=2.0)
            asked += 1
            assert _everything(kc) == before, f"seed {seed}: asking about {sym.name} changed the tree"
    assert asked >= len(seeds) * 3
