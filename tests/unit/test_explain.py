"""explain() and how_to() on crafted trees, one reason kind at a time.

Every how_to answer is also written into a config and run through the
kernel's C ``conf --olddefconfig``: the C tool must give the target value.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_c_conf, write_tree

from kconfig_ls.kconfig import Kconfig, configfile
from kconfig_ls.kconfig.explain import explain
from kconfig_ls.kconfig.explain_report import explanation_markdown, explanation_text, howto_text
from kconfig_ls.kconfig.generation import by_name
from kconfig_ls.kconfig.howto import TargetError, how_to
from kconfig_ls.kconfig.scenario import config_with

REPO = Path(__file__).resolve().parents[2]

TREE = """
config MODULES
	bool "modules"
	modules

config PCI
	bool "PCI"

config NET
	bool "net"

config DRIVER
	tristate "driver"
	depends on PCI && (NET || COMPILE_TEST)

config COMPILE_TEST
	bool "compile test"

if NET
config IN_IF
	bool "inside if"
endif

menu "Networking options"
	depends on NET
config IN_MENU
	bool "inside menu"
endmenu

menu "Hidden menu"
	visible if PCI
config IN_VISIBLE_IF
	bool "inside visible-if"
endmenu

config PROMPT_COND
	bool "prompt with condition" if PCI

config HELPER
	bool

config USER_OF_HELPER
	bool "uses helper"
	select HELPER

config COND_SELECTOR
	bool "conditional selector"
	select HELPER2 if NET

config HELPER2
	bool

config WEAK
	bool "weak"
	depends on NET

config IMPLIER
	bool "implier"
	imply WEAK

config TRI_DEP
	tristate "tristate dependency"

config LIMITED
	tristate "limited by m"
	depends on TRI_DEP

choice
	prompt "mode"
	depends on NET
config MODE_A
	bool "mode a"
config MODE_B
	bool "mode b"
endchoice

config COUNT
	int "count"
	range 2 16
	default 4

config NO_PROMPT_DEFAULT
	bool
	default y if PCI && NET

config FIXED_OFF
	bool
	default n

config NEEDS_FIXED
	bool "needs fixed"
	depends on FIXED_OFF

config BLOCKED
	bool "blocked"
	depends on !HELPER

config NAME
	string "name"
	depends on NET
"""


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "tree", {"Kconfig": TREE})


@pytest.fixture
def kc(tree, generation):
    return Kconfig("Kconfig", srctree=str(tree), env={}, generation=by_name(generation))


def load(kc: Kconfig, text: str) -> None:
    kc.reset_values()
    configfile.read_config(kc, "<test>", text=text)


def c_value(c_conf, tree, text: str, name: str) -> str:
    """The value the C tool gives ``name`` for config ``text``."""
    (tree / ".config").write_text(text)
    proc = run_c_conf(c_conf, tree, ["--olddefconfig", "Kconfig"])
    assert proc.returncode == 0, proc.stderr
    for line in (tree / ".config").read_text().splitlines():
        if line.startswith(f"CONFIG_{name}="):
            return line.split("=", 1)[1].strip('"')
        if line == f"# CONFIG_{name} is not set":
            return "n"
    return "n" if name not in ("COUNT", "NAME") else ""


def solve(kc, tree, c_conf, name: str, target: str, base: str = "") -> dict[str, str]:
    load(kc, base)
    answer = how_to(kc, kc.find(name), target, base)
    assert answer.reachable and answer.verified, howto_text(answer)
    text = config_with(kc, base, answer.assignments)
    assert c_value(c_conf, tree, text, name) == target, text
    # The tree's own values are untouched by the search.
    assert kc.find(name).value == answer.current
    return answer.assignments


def test_depends_on_leaves_name_the_unmet_terms(kc):
    load(kc, "")
    ex = explain(kc, kc.find("DRIVER"))
    assert ex.value == "n"
    assert [leaf.text for leaf in ex.leaves] == ["PCI [=n]", "NET [=n] || COMPILE_TEST [=n]"]
    assert ex.leaves[0].symbols[0].definitions == [("Kconfig", 6)]
    assert any("PCI [=n]" in r for r in ex.reasons)


def test_depends_on_fix(kc, tree, c_conf):
    assert solve(kc, tree, c_conf, "DRIVER", "y") == {"PCI": "y", "NET": "y", "DRIVER": "y"}


def test_if_block_and_menu_dependencies(kc, tree, c_conf):
    load(kc, "")
    assert [leaf.text for leaf in explain(kc, kc.find("IN_IF")).leaves] == ["NET [=n]"]
    assert [leaf.text for leaf in explain(kc, kc.find("IN_MENU")).leaves] == ["NET [=n]"]
    assert solve(kc, tree, c_conf, "IN_IF", "y") == {"NET": "y", "IN_IF": "y"}
    assert solve(kc, tree, c_conf, "IN_MENU", "y") == {"NET": "y", "IN_MENU": "y"}


def test_visible_if_and_prompt_condition(kc, tree, c_conf):
    load(kc, "")
    assert [leaf.text for leaf in explain(kc, kc.find("IN_VISIBLE_IF")).leaves] == ["PCI [=n]"]
    assert [leaf.text for leaf in explain(kc, kc.find("PROMPT_COND")).leaves] == ["PCI [=n]"]
    assert solve(kc, tree, c_conf, "IN_VISIBLE_IF", "y") == {"PCI": "y", "IN_VISIBLE_IF": "y"}
    assert solve(kc, tree, c_conf, "PROMPT_COND", "y") == {"PCI": "y", "PROMPT_COND": "y"}


def test_select_without_and_with_condition(kc, tree, c_conf):
    load(kc, "CONFIG_USER_OF_HELPER=y\n")
    ex = explain(kc, kc.find("HELPER"))
    assert ex.value == "y" and ex.origin.startswith("selected by USER_OF_HELPER")
    assert [(d.by.name, d.value) for d in ex.selected_by] == [("USER_OF_HELPER", "y")]
    assert solve(kc, tree, c_conf, "HELPER", "y") == {"USER_OF_HELPER": "y"}
    assert solve(kc, tree, c_conf, "HELPER2", "y") == {"COND_SELECTOR": "y", "NET": "y"}
    # Turning a selected symbol off means turning off what selects it.
    assert solve(kc, tree, c_conf, "HELPER", "n", "CONFIG_USER_OF_HELPER=y\n") == {"USER_OF_HELPER": "n"}


def test_imply(kc, tree, c_conf):
    load(kc, "CONFIG_IMPLIER=y\n")
    ex = explain(kc, kc.find("WEAK"))
    assert ex.implied_by[0].by.name == "IMPLIER"
    assert ex.leaves and ex.leaves[0].text == "NET [=n]"
    load(kc, "CONFIG_IMPLIER=y\nCONFIG_NET=y\n")
    assert explain(kc, kc.find("WEAK")).origin.startswith("implied by IMPLIER")


def test_choice_member(kc, tree, c_conf):
    load(kc, "")
    ex = explain(kc, kc.find("MODE_B"))
    assert ex.choice is not None and ex.choice.visible == "n"
    assert any(leaf.text == "NET [=n]" for leaf in ex.leaves)
    assert solve(kc, tree, c_conf, "MODE_B", "y") == {"NET": "y", "MODE_B": "y"}
    # Switching the selection in an existing config: the old member's line stays,
    # the new one is written after it.
    assert solve(kc, tree, c_conf, "MODE_B", "y", "CONFIG_NET=y\nCONFIG_MODE_A=y\n") == {"MODE_B": "y"}
    assert solve(kc, tree, c_conf, "MODE_A", "n", "CONFIG_NET=y\nCONFIG_MODE_A=y\n") == {"MODE_B": "y"}


def test_m_limited_by_dependency_at_m(kc, tree, c_conf):
    base = "CONFIG_MODULES=y\nCONFIG_TRI_DEP=m\nCONFIG_LIMITED=y\n"
    load(kc, base)
    ex = explain(kc, kc.find("LIMITED"))
    assert ex.value == "m" and ex.user_value == "y" and ex.user_sticks is False
    assert [leaf.text for leaf in ex.leaves] == ["TRI_DEP [=m]"]
    assert ex.account[0].kind == "user-limited" and "allows at most m" in ex.reasons[0]
    assert ex.summary == "m because you set it to y, but TRI_DEP [=m] limits it to m; you can set TRI_DEP"
    assert solve(kc, tree, c_conf, "LIMITED", "y", base) == {"TRI_DEP": "y"}


def test_m_needs_modules(kc, tree, c_conf):
    load(kc, "")
    assert solve(kc, tree, c_conf, "TRI_DEP", "m") == {"MODULES": "y", "TRI_DEP": "m"}
    with pytest.raises(TargetError):
        how_to(kc, kc.find("PCI"), "m")


def test_range(kc, tree, c_conf):
    load(kc, "CONFIG_COUNT=40\n")
    ex = explain(kc, kc.find("COUNT"))
    assert ex.range is not None and (ex.range.low, ex.range.high) == ("2", "16")
    assert solve(kc, tree, c_conf, "COUNT", "8") == {"COUNT": "8"}
    answer = how_to(kc, kc.find("COUNT"), "40")
    assert not answer.reachable and "outside the range" in answer.reason


def test_symbol_without_prompt_goes_through_its_default(kc, tree, c_conf):
    load(kc, "")
    ex = explain(kc, kc.find("NO_PROMPT_DEFAULT"))
    assert ex.defaults[0].condition_value == "n"
    assert solve(kc, tree, c_conf, "NO_PROMPT_DEFAULT", "y") == {"PCI": "y", "NET": "y"}


def test_unreachable_targets_say_why(kc):
    load(kc, "")
    answer = how_to(kc, kc.find("NEEDS_FIXED"), "y")
    assert not answer.reachable
    assert any(b.startswith("FIXED_OFF cannot be y: it has no prompt") for b in answer.blockers)
    # `depends on !HELPER` while the user's config selects HELPER: the fix
    # is to drop the selector; with HELPER fixed it would be impossible.
    load(kc, "CONFIG_USER_OF_HELPER=y\n")
    fix = how_to(kc, kc.find("BLOCKED"), "y", "CONFIG_USER_OF_HELPER=y\n")
    assert fix.assignments == {"USER_OF_HELPER": "n", "BLOCKED": "y"}


def test_string_value_and_already_true(kc, tree, c_conf):
    assert solve(kc, tree, c_conf, "NAME", "hello world") == {"NET": "y", "NAME": "hello world"}
    load(kc, "CONFIG_PCI=y\n")
    assert how_to(kc, kc.find("PCI"), "y", "CONFIG_PCI=y\n").already


def test_text_and_json_forms(kc):
    load(kc, "")
    ex = explain(kc, kc.find("DRIVER"))
    text = explanation_text(kc, ex)
    assert text.startswith("CONFIG_DRIVER (tristate) = n\n"
                           "n because it needs PCI [=n] and (NET [=n] || COMPILE_TEST [=n]); you can set PCI, NET and "
                           "COMPILE_TEST\nwhy:\n")
    assert ex.to_dict()["leaves"][0]["text"] == "PCI [=n]"
    answer = how_to(kc, kc.find("DRIVER"), "y")
    assert "CONFIG_PCI=y" in howto_text(answer)
    assert answer.to_dict()["assignments"] == {"PCI": "y", "NET": "y", "DRIVER": "y"}


def test_explain_a_choice(kc):
    load(kc, "CONFIG_NET=y\nCONFIG_MODE_B=y\n")
    choice = kc.find("MODE_A").choice
    ex = explain(kc, choice)
    assert ex.choice is not None and ex.choice.selection == "MODE_B" and ex.choice.mode == "y"
    assert [m.name for m in ex.choice.members] == ["MODE_A", "MODE_B"]
    assert ex.origin == "MODE_B is selected (the user's selection)"
    member = explain(kc, kc.find("MODE_A"))
    assert member.origin == "another member of its choice is selected (MODE_B)"
    load(kc, "")
    hidden = explain(kc, choice)
    assert hidden.visibility == "n" and [leaf.text for leaf in hidden.leaves] == ["NET [=n]"]


def kinds(ex) -> set[str]:
    return {r.kind for top in ex.account for r in top.walk()}


def test_account_of_a_hidden_prompt_names_what_can_be_set(kc):
    load(kc, "")
    ex = explain(kc, kc.find("DRIVER"))
    assert ex.summary == ("n because it needs PCI [=n] and (NET [=n] || COMPILE_TEST [=n]); "
                          "you can set PCI, NET and COMPILE_TEST")
    assert [r.kind for r in ex.account] == ["hidden", "no-default", "not-selected"]
    leaf = ex.account[0].children[0]
    assert (leaf.kind, leaf.symbol, leaf.set_to, leaf.file, leaf.line) == ("settable", "PCI", "y", "Kconfig", 6)


def test_account_of_selects(kc, tree):
    load(kc, "CONFIG_USER_OF_HELPER=y\n")
    ex = explain(kc, kc.find("HELPER"))
    assert ex.summary == "y because USER_OF_HELPER selects it"
    selected = next(r for r in ex.account if r.kind == "selected")
    line = selected.children[0]
    assert line.kind == "select-line" and line.file == "Kconfig"
    assert (tree / "Kconfig").read_text().split("\n")[line.line - 1] == "\tselect HELPER"
    assert line.children[0].kind == "settable" and line.children[0].set_to == "n"
    # A select under a condition that is n: the condition is named.
    load(kc, "CONFIG_COND_SELECTOR=y\n")
    ex = explain(kc, kc.find("HELPER2"))
    assert ex.summary.endswith("COND_SELECTOR selects it only if NET [=n], which is n")
    assert "nothing selects it" not in explanation_text(kc, ex)


def test_account_of_imply_and_its_dependencies(kc):
    load(kc, "CONFIG_IMPLIER=y\n")
    ex = explain(kc, kc.find("WEAK"))
    assert "imply-blocked" in kinds(ex) and "its dependencies stop an imply" not in ex.summary
    assert ex.summary == "n because it needs NET [=n]; you can set NET"
    load(kc, "CONFIG_IMPLIER=y\nCONFIG_NET=y\n")
    assert explain(kc, kc.find("WEAK")).summary == "y because it is implied by IMPLIER"


def test_account_of_a_choice_member(kc):
    load(kc, "CONFIG_NET=y\n")
    ex = explain(kc, kc.find("MODE_B"))
    assert ex.summary == ('n because the choice "mode" is set to MODE_A (MODE_A is its first visible member); '
                          "you can pick this one")
    load(kc, "")
    ex = explain(kc, kc.find("MODE_B"))
    assert ex.account[0].kind == "choice-hidden" and "you can set NET" in ex.summary
    assert "<choice>" not in explanation_text(kc, ex)


def test_account_of_a_value_that_does_not_stick(kc, generation):
    load(kc, "CONFIG_COUNT=40\n")
    ex = explain(kc, kc.find("COUNT"), ".config", "CONFIG_COUNT=40\n")
    if generation == "6.1":
        # Read and refused (out of range): the default applies.
        assert ex.value == "4" and ex.account[0].kind == "user-rejected"
        assert ex.summary.startswith("4 because your 40 was rejected (it is outside the range 2..16)")
    else:
        # Kept as the user's and clamped to the range.
        assert ex.value == "16" and ex.account[0].kind == "user-clamped"
        assert ex.summary == "16 because 40 is outside the range 2..16"
    assert "outside the range 2..16 (Kconfig:" in ex.account[0].text
    load(kc, "CONFIG_IN_IF=y\n")
    ex = explain(kc, kc.find("IN_IF"), "x.config", "CONFIG_IN_IF=y\n")
    assert ex.account[0].kind == "user-ignored" and ex.account[0].text.startswith("you set it to y in x.config:1")
    assert ex.summary.startswith("n because your y is not used: its prompt is hidden because it needs NET [=n]")


def test_account_reaches_fixed_facts(kc):
    load(kc, "")
    ex = explain(kc, kc.find("NEEDS_FIXED"))
    fixed = ex.account[0].children[0]
    assert fixed.symbol == "FIXED_OFF" and fixed.text.startswith("FIXED_OFF is n: it has no prompt")
    assert {r.kind for r in fixed.walk()} >= {"no-prompt", "default", "not-selected"}
    # A `!X` operand: X is y because something selects it, which the user can turn off.
    load(kc, "CONFIG_USER_OF_HELPER=y\n")
    ex = explain(kc, kc.find("BLOCKED"))
    helper = ex.account[0].children[0]
    assert helper.term == "!HELPER [=y]" and helper.symbol == "HELPER"
    assert any(r.kind == "settable" and r.symbol == "USER_OF_HELPER" and r.set_to == "n" for r in helper.walk())


def test_markdown_and_json_come_from_the_account(kc):
    load(kc, "")
    ex = explain(kc, kc.find("DRIVER"))
    md = explanation_markdown(ex, lines=2, more="more")
    assert md.splitlines()[1] == ex.summary and md.splitlines()[-1] == "- … more"
    data = ex.to_dict()
    assert data["summary"] == ex.summary and data["account"][0]["children"][0]["set_to"] == "y"


def test_reasons_of_a_diamond_of_dependencies_are_each_given_once(tmp_path):
    """Each level of this tree depends on either of two symbols of the
    next (a diamond): the search meets every symbol again through its
    cache, and the reasons carried back must not double at each level
    (2**28 copies once).  Run in a process with 1 GB of address space, so
    a regression fails here instead of exhausting the machine."""
    levels = 28
    lines = ["config L0", '\tbool "top"', "\tdepends on L1A || L1B"]
    for i in range(1, levels):
        for side in "AB":
            lines += [f"config L{i}{side}", f'\tbool "level {i}{side}"',
                      f"\tdepends on L{i + 1}A || L{i + 1}B" if i + 1 < levels else "\tdepends on FIXED_OFF"]
    lines += ["config FIXED_OFF", "\tbool"]
    write_tree(tmp_path, {"Kconfig": "\n".join(lines) + "\n"})
    script = (
        "import json, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from kconfig_ls.kconfig import Kconfig\n"
        "from kconfig_ls.kconfig.howto import how_to\n"
        "kc = Kconfig('Kconfig', srctree=sys.argv[1], warn_stream=None)\n"
        "answer = how_to(kc, kc.find('L0'), 'y', time_limit=60)\n"
        "print(json.dumps([answer.reachable, answer.blockers]))\n")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                         cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    reachable, blockers = json.loads(run.stdout)
    assert not reachable
    assert len(blockers) == len(set(blockers)) == 2 * levels
    assert blockers[0].startswith("L0 cannot be y") and any(b.startswith("FIXED_OFF cannot be y") for b in blockers)
