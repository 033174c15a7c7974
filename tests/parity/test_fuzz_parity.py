"""Differential fuzzing in the default run: a fixed slice of random trees
(tests/parity/random_trees.py) through each generation's C conf and ours.
The long run is `python scripts/fuzz_parity.py --seeds 0:5000 --generation
6.1` (and 6.12)."""

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fuzz_parity", REPO / "scripts" / "fuzz_parity.py")
fuzz_parity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_parity)

#: Seeds per test; each is a whole tree with its own .config and mode.
SLICE = 25


@pytest.mark.parametrize("first", range(0, 100, SLICE))
def test_random_trees_agree_with_the_c_tool(generation, c_conf, tmp_path, first):
    agreed = 0
    for seed in range(first, first + SLICE):
        report = fuzz_parity.compare(seed, generation, c_conf, tmp_path / str(seed))
        if report == fuzz_parity.C_CRASHED:
            continue
        assert report is None, report
        agreed += 1
    # The slice is fixed: it must keep testing what it tested.
    assert agreed >= SLICE - 2
