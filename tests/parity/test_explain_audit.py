"""Every explanation of every symbol, checked claim by claim.

For x86_64 under the C tool's defconfig, allnoconfig and allmodconfig, and
arm64 under its defconfig (each ``.config`` made by ``make``), every symbol
is explained and each reason is checked against the Kconfig sources and the
C tool's values (see :mod:`explain_audit`): no claim may be false.
"""

from __future__ import annotations

import pytest
from explain_audit import SourceFacts, audit, c_values
from kernel_parity import load, make_config

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.explain import explain
from kconfig_ls.kconfig.explain_report import explanation_markdown, explanation_text
from kconfig_ls.kconfig.reasons import Accountant

pytestmark = [pytest.mark.kernel]

CASES = [("x86_64", "defconfig"), ("x86_64", "allnoconfig"), ("x86_64", "allmodconfig"), ("arm64", "defconfig")]

_facts: dict[str, SourceFacts] = {}


@pytest.mark.parametrize(("arch", "mode"), CASES, ids=[f"{a}-{m}" for a, m in CASES])
def test_no_explanation_states_anything_false(kernel_tree, tmp_path, arch, mode):
    config = make_config(kernel_tree, tmp_path / "build", arch, [mode]).decode()
    kc = load(kernel_tree, arch)
    configfile.read_config(kc, ".config", text=config)
    loaded = set(kc.files)
    facts = _facts.get(arch)
    if facts is None or facts.loaded != loaded:
        facts = _facts[arch] = SourceFacts(kernel_tree, loaded)
    values = c_values(config)
    types = {sym.name: sym.type_name for sym in kc.defined_symbols() if sym.name}
    lines = config.split("\n")
    accountant = Accountant(kc, ".config", config, facts.everywhere())
    problems: list[str] = []
    explained = 0
    for sym in kc.defined_symbols():
        ex = explain(kc, sym, ".config", config, accountant=accountant)
        text = explanation_text(kc, ex)
        problems.extend(audit(ex, text, facts, values, types, lines))
        # The markdown is made from the same account: it must not fail.
        explanation_markdown(ex, lines=8, more="more")
        explained += 1
    assert explained > 5000
    assert not problems, f"{len(problems)} false claims, e.g.:\n" + "\n".join(problems[:40])
