"""A what-if question leaves the tree exactly as it was (kconfig_ls/kconfig/
saved_values.py): values, user input, warnings, condition values and
choice order, every symbol still computed, on random trees of the 6.1 and
the 6.12 rules (whose readings reorder choice members)."""

from __future__ import annotations

import random

import pytest
from relink_trees import RandomTree
from tree_digest import current_values

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig import generation as generations
from kconfig_ls.kconfig.howto import how_to
from kconfig_ls.kconfig.revalue import ConfigValues
from kconfig_ls.kconfig.scenario import Scenario, config_with
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


def _candidate(rng: random.Random, types: dict[str, str]) -> dict[str, str]:
    """One to three assignments a fix search could try (some invalid)."""
    out = {}
    for name in rng.sample(sorted(types), min(len(types), rng.randint(1, 3))):
        typ = types[name]
        if typ in ("bool", "tristate"):
            out[name] = rng.choice("ynm")
        elif typ == "string":
            out[name] = rng.choice(["", "a", "b c"])
        else:
            out[name] = rng.choice(["0", "7", "0x10", "100", "junk"])
    return out


@pytest.mark.parametrize(("generation", "seeds"), [("6.1", range(20, 60)), ("6.12", range(220, 260))])
def test_candidates_read_from_the_base_reading_equal_whole_readings(tmp_path, generation, seeds):
    """A what-if given the reading the tree's values come from verifies a
    candidate by re-reading from it (only what the candidate reaches): the
    values, user values and warnings equal a whole reading of the same
    file (in the what-if, and afresh on a tree of its own), and afterwards
    the tree and the reading are as they were."""
    rules = generations.by_name(generation)
    incremental = tried = 0
    for seed in seeds:
        tree = RandomTree(seed, member_choices=rules.member_choices)
        kc = Kconfig("Kconfig", srctree=str(tmp_path), env={"srctree": str(tmp_path)}, overlays=tree.texts(),
                     generation=rules, warn_stream=None, info=lambda _text: None)
        fresh = Kconfig("Kconfig", srctree=str(tmp_path), env={"srctree": str(tmp_path)}, overlays=tree.texts(),
                        generation=rules, warn_stream=None, info=lambda _text: None)
        config = tree.config()
        if seed % 2:
            # (A config the tool wrote: reading it changes nothing, so the
            # user values of symbols without a prompt are dropped.)
            ConfigValues(kc, ".config", ".config", config)
            config = configfile.config_text(kc)
        reading = ConfigValues(kc, ".config", ".config", config)
        reading.most_reached = 1.0
        before = _everything(kc)
        record = (reading.text, reading.result, sorted(s.name for s in reading.unsaved))
        rng = random.Random(seed)
        for _ in range(4):
            candidates = [_candidate(rng, tree.types) for _ in range(3)]
            with Scenario(kc, config, reading) as scenario:
                read_from_base = []
                for assignments in candidates:
                    scenario.apply(assignments)
                    unmet = scenario.verify(assignments)
                    incremental += reading.reached is not None
                    read_from_base.append((unmet, current_values(kc)))
            assert _everything(kc) == before, f"seed {seed}: the what-if changed the tree"
            assert (reading.text, reading.result, sorted(s.name for s in reading.unsaved)) == record
            with Scenario(kc, config) as scenario:
                for assignments, expected in zip(candidates, read_from_base, strict=True):
                    tried += 1
                    scenario.apply(assignments)
                    unmet = scenario.verify(assignments)
                    assert (unmet, current_values(kc)) == expected, f"seed {seed}: {assignments}"
                    ConfigValues(fresh, ".config", ".config", config_with(fresh, config, assignments))
                    assert ({s.name for s in fresh.unmet}, current_values(fresh)["values"]) == (
                        expected[0], expected[1]["values"]), f"seed {seed}: {assignments} read afresh"
        # Fix searches, each way on a tree of its own with the same history
        # (in a dependency loop, what a what-if meets half-computed is what
        # was computed before, in either way).
        ConfigValues(fresh, ".config", ".config", config)
        named = [s.name for s in kc.all_symbols if s.nodes and s.name and s.type_name in ("bool", "tristate")]
        for name in rng.sample(named, min(4, len(named))):
            sym = kc.symbols[name]
            target = rng.choice(("y", "m", "n")) if sym.type_name == "tristate" else rng.choice(("y", "n"))
            answers = [dict(how_to(tree_, tree_.symbols[name], target, config, time_limit=5.0, reading=r).to_dict(),
                            seconds=0) for tree_, r in ((kc, reading), (fresh, None))]
            assert answers[0] == answers[1], f"seed {seed}: how to make {name} {target}"
            assert _everything(kc) == before
    assert incremental >= tried // 2, (incremental, tried)


@pytest.mark.parametrize("generation", ["6.1", "6.12"])
def test_a_what_if_from_a_reading_starts_from_the_files_user_values(tmp_path, generation):
    """Given the reading, a what-if takes the file's user values from it
    instead of reading the text again: the same as reading it, also where
    settling the reading changed them (values of invisible symbols
    dropped, a choice's entries given an explicit n)."""
    rules = generations.by_name(generation)
    differing = 0
    for seed in range(60, 72):
        tree = RandomTree(seed, member_choices=rules.member_choices)

        kc, fresh = (Kconfig("Kconfig", srctree=str(tmp_path), env={"srctree": str(tmp_path)},
                             overlays=tree.texts(), generation=rules, warn_stream=None, info=lambda _text: None)
                     for _ in range(2))
        ConfigValues(kc, ".config", ".config", tree.config())
        config = configfile.config_text(kc)  # (the tool's own: reading it drops values)
        reading = ConfigValues(kc, ".config", ".config", config)
        configfile.read_config_simple(fresh, ".config", text=config)
        differing += sum(_user_input(mine) != _user_input(theirs)
                         for mine, theirs in zip(kc.all_symbols, fresh.all_symbols, strict=True))
        with Scenario(kc, config, reading):
            ours = [_user_input(s) for s in kc.all_symbols]
        assert ours == [_user_input(s) for s in fresh.all_symbols], f"seed {seed}"
    assert differing > 0


def _user_input(sym: Symbol) -> tuple:
    selection = sym.user_selection.name if sym.user_selection is not None else None
    return sym.has_user, sym.user_tri, sym.user_val, selection, [m.name for m in sym.members]
