"""Which rules a tree gets: recognised from the kconfig copy it ships,
overridden by name, the newest for a tree without one."""

from __future__ import annotations

import pytest

from kconfig_ls.kconfig import generation as generations
from kconfig_ls.kconfig.tree import Kconfig


def kconfig_copy(root, where: str, *, preprocess: bool, member_choices: bool = False) -> None:
    directory = root / where
    directory.mkdir(parents=True)
    symbol_c = "struct menu *sym_get_choice_menu(const struct symbol *sym)\n" if member_choices else "int x;\n"
    (directory / "symbol.c").write_text(symbol_c)
    if preprocess:
        (directory / "preprocess.c").write_text("/* macros */\n")


def test_mainline_is_recognised_by_its_transitional_keyword(tmp_path):
    kconfig_copy(tmp_path, "scripts/kconfig", preprocess=True, member_choices=True)
    (tmp_path / "scripts" / "kconfig" / "parser.y").write_text("%token T_TRANSITIONAL\n")
    assert generations.detect(str(tmp_path)) is generations.MAINLINE


@pytest.mark.parametrize(("where", "preprocess", "member_choices", "expected"), [
    ("scripts/kconfig", True, True, "6.12"),
    ("scripts/kconfig", True, False, "6.1"),
    ("scripts/kconfig", False, False, "4.x"),
    ("support/kconfig", False, False, "4.x"),   # Buildroot
    ("util/kconfig", True, False, "6.1"),       # coreboot
])
def test_the_tree_s_own_kconfig_decides(tmp_path, where, preprocess, member_choices, expected):
    kconfig_copy(tmp_path, where, preprocess=preprocess, member_choices=member_choices)
    assert generations.detect(str(tmp_path)).name == expected


def test_a_bare_tree_gets_the_newest_rules(tmp_path):
    assert generations.detect(str(tmp_path)) is generations.NEWEST


def test_a_request_or_the_variable_overrides_detection(tmp_path):
    kconfig_copy(tmp_path, "scripts/kconfig", preprocess=True)
    env = {generations.VERSION_VARIABLE: "6.12"}
    assert generations.choose(str(tmp_path), {}).name == "6.1"
    assert generations.choose(str(tmp_path), env).name == "6.12"
    assert generations.choose(str(tmp_path), env, "4").name == "4.x"
    with pytest.raises(ValueError, match=r"unknown kconfig version 'linux-2.6' \(known: 4.x, 6.1, 6.12, mainline\)"):
        generations.by_name("linux-2.6")


def test_the_tree_follows_the_rules_it_was_given(tmp_path):
    (tmp_path / "Kconfig").write_text('choice\n\tprompt "c"\nconfig A\n\tbool "a"\nconfig B\n\tbool "b"\nendchoice\n')
    old = Kconfig("Kconfig", srctree=str(tmp_path), env={}, generation=generations.LINUX_6_1)
    new = Kconfig("Kconfig", srctree=str(tmp_path), env={})
    assert old.gen.name == "6.1" and new.gen is generations.NEWEST
    # 6.11+: the choice has no value of its own and keeps a priority list.
    assert [m.name for m in new.choices[0].members] == ["A", "B"]
    assert not old.choices[0].members


def test_completion_offers_the_options_of_the_tree_s_grammar(tmp_path):
    from kconfig_ls.ide.completion import kconfig_completions

    (tmp_path / "Kconfig").write_text('config A\n\tbool "a"\n')
    offered = {}
    for gen in (generations.LINUX_4_X, generations.LINUX_6_1, generations.LINUX_6_12):
        kc = Kconfig("Kconfig", srctree=str(tmp_path), env={}, generation=gen)
        offered[gen.name] = {item.label for item in kconfig_completions(kc, str(tmp_path), "Kconfig", "\to")}
    assert offered["4.x"] == {"optional", 'option env=""', "option defconfig_list", "option modules",
                              "option allnoconfig_y"}
    assert offered["6.1"] == {"optional"}
    assert offered["6.12"] == set()
