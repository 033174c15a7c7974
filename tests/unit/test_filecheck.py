"""The quick check of one edited file: it must find what a full re-load of
the tree finds in that file (apart from whole-tree problems, which are
carried over from the last load), for good and for broken text."""

import pytest
from conftest import write_tree

from kconfig_ls.ide.diagnostics import TREE_CODES, carry_over, kconfig_problems, quick_kconfig_problems
from kconfig_ls.ide.project import Project, Settings

TOP = """\
mainmenu "quick check"

config WIDTH
	int "width"
	default 8

config NAME
	string "name"

config A
	bool "a"
	depends on B

config B
	bool "b"
	depends on A

menu "drivers"
source "drivers/Kconfig"
endmenu
"""

DRIVERS = """\
config NET
	bool "net"

config E1000
	tristate "e1000"
	depends on NET && WIDTH > 4
	select CRC
	help
	  A driver.

config CRC
	tristate

choice
	prompt "mode"
config MODE_A
	bool "a"
config MODE_B
	bool "b"
endchoice
"""

# (what the edit does, the new text of drivers/Kconfig)
EDITS = [
    ("unchanged", DRIVERS),
    ("a broken expression", DRIVERS.replace("depends on NET && WIDTH > 4", "depends on (NET && WIDTH > 4")),
    ("a statement that is not Kconfig", DRIVERS.replace("config CRC", "bogus words here\nconfig CRC")),
    ("an unknown symbol", DRIVERS.replace("depends on NET", "depends on NET && NO_SUCH")),
    ("an int symbol used as a truth value", DRIVERS.replace("depends on NET", "depends on NET && WIDTH")),
    ("a select of a string symbol", DRIVERS.replace("select CRC", "select NAME")),
    ("a definition without a type", DRIVERS.replace("config CRC\n\ttristate\n", "config CRC\n")),
    ("a removed definition still used", DRIVERS.replace("config NET\n\tbool \"net\"\n", "")),
    ("a missing sourced file", DRIVERS + 'source "drivers/missing/Kconfig"\n'),
    ("an unclosed choice", DRIVERS.replace("endchoice\n", "")),
    ("a default outside its range", DRIVERS + "config LEVEL\n\tint \"level\"\n\trange 0 x\n"),
    ("an unterminated macro", DRIVERS + "config M\n\tbool \"$(NAME\"\n"),
]


def load(tmp_path, drivers: str) -> Project:
    write_tree(tmp_path, {"Kconfig": TOP, "drivers/Kconfig": drivers})
    project = Project(str(tmp_path), Settings())
    project.load()
    return project


def shown(problems) -> set:
    return {(p.line, p.col, p.end_col, p.message, p.code) for p in problems if p.code not in TREE_CODES}


@pytest.mark.parametrize("what,text", EDITS, ids=[e[0] for e in EDITS])
def test_quick_check_finds_what_a_full_load_finds(tmp_path, what, text):
    before = load(tmp_path / "before", DRIVERS)
    quick = quick_kconfig_problems(before, "drivers/Kconfig", text)
    after = load(tmp_path / "after", text)
    if after.kc is before.kc or after.load_error is not None:
        # A fatal error: the full load stops, the quick check says where.
        err = after.load_error
        assert (err.line, err.message) in {(p.line, p.message) for p in quick}
        return
    full = kconfig_problems(after, after.kc, "drivers/Kconfig")
    assert shown(quick) == shown(full)
    if what != "unchanged":
        assert shown(quick), f"{what} went unnoticed"


def test_the_tree_it_checks_against_is_left_alone(tmp_path):
    project = load(tmp_path, DRIVERS)
    kc = project.kc
    symbols, width_nodes = len(kc.all_symbols), list(kc.find("WIDTH").nodes)
    quick_kconfig_problems(project, "drivers/Kconfig", DRIVERS + "config WIDTH\n\tint\nconfig NEW\n\tbool\n")
    assert len(kc.all_symbols) == symbols
    assert kc.find("WIDTH").nodes == width_nodes
    assert kc.find("NEW") is None


def test_whole_tree_problems_move_with_the_lines_around_an_edit(tmp_path):
    project = load(tmp_path, DRIVERS)
    problems = kconfig_problems(project, project.kc, "Kconfig")
    cycle = sorted(p.line for p in problems if p.code == "recursive-dep")
    assert cycle == [10, 14]
    old = project.kc.files["Kconfig"].text
    inserted = old.replace("config WIDTH", "# one\n# two\nconfig WIDTH")
    assert sorted(p.line for p in carry_over(problems, old, inserted) if p.code == "recursive-dep") == [12, 16]
    # An edit on a problem's own line drops it: the next load decides.
    edited = old.replace("config B\n", "config B # edited\n")
    assert sorted(p.line for p in carry_over(problems, old, edited) if p.code == "recursive-dep") == [10]
    # Problems a quick check finds itself are not carried (no duplicates).
    assert all(p.code in TREE_CODES for p in carry_over(problems, old, inserted))


def test_a_file_the_tree_does_not_load_gets_its_syntax_checked(tmp_path):
    project = load(tmp_path, DRIVERS)
    (tmp_path / "otherarch").mkdir()
    text = "config WIDTH\n\tbool \"another arch's WIDTH is a bool\"\nconfig ODD\n\tbool \"odd\"\n\tdepends on (NET\n" \
           "config USER\n\tbool \"user\"\n\tdepends on NOT_ANYWHERE && WIDTH\n"
    problems = quick_kconfig_problems(project, "otherarch/Kconfig", text)
    found = {(p.line, p.code) for p in problems}
    assert (5, "kconfig") in found  # the broken expression
    assert (8, "undefined-symbol") in found
    assert (1, "not-loaded") in found
    # Types this tree gives symbols say nothing about another arch's file:
    # no "type redefinition" of WIDTH, no int-as-truth-value on line 8.
    assert not [p for p in problems if "redefinition" in p.message or p.code == "non-bool-in-logic"]
