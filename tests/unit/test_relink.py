"""The incremental re-link (kconfig_ls/kconfig/relink.py) against a fresh
load: after each of many random edits of random multi-file trees, the
patched tree and a fresh load of the same texts agree on the menu structure,
every property and accumulated expression, the diagnostics, the cycles and
the values read from a random config (tests/tree_digest.py)."""

from __future__ import annotations

import pytest
from relink_trees import RandomTree
from tree_digest import current_values, shape, tree_digest

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig import generation as generations
from kconfig_ls.kconfig.explain import reverse_index
from kconfig_ls.kconfig.relink import NotRelinkable, check_cycles, relink_file
from kconfig_ls.kconfig.relink_log import ENTER, EXIT
from kconfig_ls.kconfig.revalue import ConfigValues
from kconfig_ls.kconfig.tree import Kconfig

EDITS_PER_TREE = 12


def _load(tmp_path, texts: dict[str, str], generation: str, relinkable: bool = True) -> Kconfig:
    return Kconfig("Kconfig", srctree=str(tmp_path), env={"srctree": str(tmp_path)}, overlays=texts,
                   generation=generations.by_name(generation), relinkable=relinkable,
                   warn_stream=None, info=lambda _text: None)


def _reverse_digest(kc: Kconfig) -> dict:
    """explain's index of selects and implies, by names and places (in any
    order: a patched tree keeps the symbol table's order of its load)."""
    return {(kind, target.name): sorted((by.name, prop.file, prop.line, repr(shape(prop.cond)))
                                        for by, prop in entries)
            for (kind, target), entries in reverse_index(kc).items()}


def _differences(a: dict, b: dict) -> list[str]:
    out = []
    for part in a:
        if a[part] == b[part]:
            continue
        if isinstance(a[part], dict):
            keys = sorted({*a[part], *b[part]}, key=str)
            first = next(k for k in keys if a[part].get(k) != b[part].get(k))
            out.append(f"{part}: {first!r}: {a[part].get(first)!r} != {b[part].get(first)!r}")
        else:
            pairs = [(x, y) for x, y in zip(a[part], b[part], strict=False) if x != y]
            out.append(f"{part}: {pairs[0] if pairs else (len(a[part]), len(b[part]))!r}")
    return out


@pytest.mark.parametrize(("generation", "seeds"), [
    ("6.1", range(0, 60)), ("4.x", range(100, 125)), ("6.12", range(200, 240)), ("mainline", range(300, 325))])
def test_relinked_trees_equal_fresh_loads(tmp_path, generation, seeds):
    """Each edit patched in (or, when it cannot be, a fresh load), the
    values updated for the symbols it reached (or read afresh when that
    is declined); both compared with a fresh load and reading."""
    relinked = fallbacks = updated = 0
    for seed in seeds:
        tree = RandomTree(seed, member_choices=generations.by_name(generation).member_choices)
        texts = tree.texts()
        config = tree.config() if seed % 3 else None

        def read(kc: Kconfig, config: str | None = config) -> ConfigValues:
            values = ConfigValues(kc, ".config", ".config", config)
            values.most_reached = 1.0  # (small trees: let the update do it all)
            return values

        kc = _load(tmp_path, texts, generation)
        values = read(kc)
        for step in range(EDITS_PER_TREE):
            name, kept = tree.edit()
            texts[name] = tree.text(name)
            reverse_index(kc)  # (kept by a re-link when it still holds)
            try:
                result = relink_file(kc, name, texts[name], cycles=step % 2 == 0)
            except NotRelinkable:
                fallbacks += 1
                kc = _load(tmp_path, texts, generation)
                values = read(kc)
                continue
            assert kept, f"seed {seed} step {step}: an edit of the entries of {name} was patched in"
            relinked += 1
            _assert_regions_indexed(kc, f"seed {seed} step {step}")
            if step % 2:
                check_cycles(kc)
            if values.update(result.symbols):
                updated += 1
            else:
                values = read(kc)
            if step % 2:
                values.prepare()  # (as the server does at a pause: the order made again)
            fresh = _load(tmp_path, texts, generation, relinkable=False)
            ConfigValues(fresh, ".config", ".config", config)
            where = f"seed {seed} step {step} ({name})"
            assert current_values(kc) == current_values(fresh), f"{where}: values differ"
            assert _reverse_digest(kc) == _reverse_digest(fresh), f"{where}: select/imply index differs"
            kept_index = kc.derived.pop("reverse_index")
            assert kept_index == reverse_index(kc), f"{where}: the kept index is not the one the tree gives"
            problems = _differences(tree_digest(kc, values=False), tree_digest(fresh, values=False))
            assert not problems, f"{where}:\n" + "\n".join(problems)
    # Most edits keep the entries: the comparisons must have happened.
    assert relinked >= len(seeds) * EDITS_PER_TREE // 2, (relinked, fallbacks)
    assert updated >= relinked // 2, (updated, relinked)


def _assert_regions_indexed(kc: Kconfig, where: str) -> None:
    """Every block's markers in the log are where its index says (the
    re-finalised blocks re-key only their new events: relink_log.py)."""
    log = kc.relink
    entered, found = {}, {}
    for key, (kind, _sym, data) in zip(log.keys, log.events, strict=True):
        if kind == ENTER:
            entered[data] = key
        elif kind == EXIT:
            found[data] = (entered.pop(data), key)
    stale = {node: (log.regions.get(node), keys) for node, keys in found.items() if log.regions.get(node) != keys}
    assert not stale, f"{where}: block markers indexed wrongly: {stale}"
    assert list(log.keys) == sorted(log.keys) and len(set(log.keys)) == len(log.keys), f"{where}: keys out of order"


def test_an_edit_that_changes_the_entries_leaves_the_tree_alone(tmp_path):
    texts = {"Kconfig": 'config A\n\tbool "a"\n\tdefault y\nconfig B\n\tbool "b"\n\tdepends on A\n'}
    kc = _load(tmp_path, texts, "6.1")
    before = tree_digest(kc)
    for edit in ('config A\n\tbool "a"\nconfig C\n\tbool "c"\n',    # another entry
                 'config A\n\ttristate "a"\nconfig B\n\tbool "b"\n',  # another type
                 'config A\n\tbool "a" if (\nconfig B\n\tbool "b"\n',  # a syntax error
                 'X := 1\nconfig A\n\tbool "a"\nconfig B\n\tbool "b"\n'):  # a macro
        with pytest.raises(NotRelinkable):
            relink_file(kc, "Kconfig", edit)
        assert tree_digest(kc) == before


def test_the_same_text_is_no_change(tmp_path):
    texts = {"Kconfig": 'config A\n\tbool "a"\n'}
    kc = _load(tmp_path, texts, "6.1")
    result = relink_file(kc, "Kconfig", texts["Kconfig"])
    assert result.region is None and result.changed == 0


def test_macro_fingerprints_are_the_same_in_every_process():
    """A tree snapshot keeps each file's macro fingerprints for the next
    session's re-links: they must not depend on Python's salted hash."""
    import os
    import subprocess
    import sys

    code = ("from kconfig_ls.kconfig.preprocess import Preprocessor\n"
            "pp = Preprocessor(env={})\npp.assign('CC', 'gcc -O2', ':=')\nprint(pp.fingerprint())")
    prints = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(prints) == 1


def _edit_config(rng, text: str, names: list[str]) -> str:
    """One edit of a config: a line's value changed, a line removed or
    added (known or unknown symbol, "is not set", garbage, a duplicate)."""
    lines = text.split("\n")
    at = rng.randrange(len(lines) + 1)
    roll = rng.random()
    name = rng.choice(names)
    if roll < 0.3 and at < len(lines) and lines[at].startswith("CONFIG_"):
        key = lines[at].split("=")[0]
        lines[at] = key + "=" + rng.choice(["y", "m", "n", "0x10", "7", '"s"', ""])
    elif roll < 0.5 and at < len(lines):
        del lines[at]
    elif roll < 0.6:
        lines.insert(at, rng.choice(["garbage here", "CONFIG_NOT_IN_THE_TREE=y", "# a comment", ""]))
    elif roll < 0.8:
        lines.insert(at, f"CONFIG_{name}={rng.choice('ynm')}")
    else:
        lines.insert(at, f"# CONFIG_{name} is not set")
    return "\n".join(lines)


@pytest.mark.parametrize(("generation", "seeds"), [
    ("6.1", range(500, 540)), ("4.x", range(600, 615)), ("6.12", range(700, 730)), ("mainline", range(800, 815))])
def test_config_edits_reread_equal_fresh_readings(tmp_path, generation, seeds):
    """After each random edit of the config text, the values re-read for
    the symbols it reached equal a fresh load and reading."""
    import random

    reread = declined = 0
    for seed in seeds:
        tree = RandomTree(seed, member_choices=generations.by_name(generation).member_choices)
        texts = tree.texts()
        config = tree.config()
        names = sorted(tree.types)
        rng = random.Random(seed)
        kc = _load(tmp_path, texts, generation)
        values = ConfigValues(kc, ".config", ".config", config)
        values.most_reached = 1.0
        for step in range(10):
            config = _edit_config(rng, config, names)
            if values.reread(config, ".config", ".config"):
                reread += 1
            else:
                declined += 1
                values = ConfigValues(kc, ".config", ".config", config)
                values.most_reached = 1.0
            _assert_reading_is_fresh(tmp_path, texts, generation, config, kc, values, f"seed {seed} step {step}")
    assert reread >= (reread + declined) // 2, (reread, declined)


def _assert_reading_is_fresh(tmp_path, texts, generation, config, kc, values, where) -> None:
    """``kc`` with ``values`` read (incrementally) equals a fresh load and
    reading of ``config``: values, user values, unmet warnings, the
    reading's warnings and what did not stick."""
    fresh = _load(tmp_path, texts, generation, relinkable=False)
    fresh_values = ConfigValues(fresh, ".config", ".config", config)
    ours, theirs = current_values(kc), current_values(fresh)
    differing = {k: (v, theirs["values"].get(k)) for k, v in ours["values"].items() if theirs["values"].get(k) != v}
    assert ours == theirs, f"{where}: values differ: {differing} {ours['unmet']} {theirs['unmet']}"
    assert [str(w) for w in values.warnings] == [str(w) for w in fresh_values.warnings], where
    assert sorted(s.name for s in values.unsaved) == sorted(s.name for s in fresh_values.unsaved), where


@pytest.mark.parametrize(("generation", "seeds"), [("6.1", range(900, 940)), ("4.x", range(950, 970))])
def test_config_edits_that_flip_whether_anything_changed_equal_fresh_readings(tmp_path, generation, seeds):
    """Before member choices a reading drops the user values of invisible
    symbols only when nothing changed: from a config the tool wrote itself
    (nothing changes), an edit that changes something and the way back
    flip that for every symbol; re-reading must still equal fresh readings."""
    import random

    flips = 0
    for seed in seeds:
        tree = RandomTree(seed, member_choices=False)
        texts = tree.texts()
        names = sorted(tree.types)
        rng = random.Random(seed)
        kc = _load(tmp_path, texts, generation)
        ConfigValues(kc, ".config", ".config", tree.config())
        saved = configfile.config_text(kc)
        values = ConfigValues(kc, ".config", ".config", saved)
        values.most_reached = 1.0
        config = saved
        for step in range(8):
            config = _edit_config(rng, saved, names) if step % 2 == 0 else saved
            was_unsaved = bool(values.unsaved)
            if not values.reread(config, ".config", ".config"):
                values = ConfigValues(kc, ".config", ".config", config)
                values.most_reached = 1.0
            elif bool(values.unsaved) != was_unsaved:
                flips += 1
            _assert_reading_is_fresh(tmp_path, texts, generation, config, kc, values, f"seed {seed} step {step}")
    assert flips >= 20, flips
