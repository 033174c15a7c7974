"""The IDE layer (plain data) on small inline trees."""

from conftest import write_tree

from kconfig_ls import heap
from kconfig_ls.ide.diagnostics import config_problems, kconfig_problems
from kconfig_ls.ide.project import Project, Settings

TREE = """
config N
	int "n"
config S
	string "s"
config A
	bool "a"
	depends on N && S != ""
config B
	bool
	default N || A
config I2
	int
	default N
config USES_MISSING
	bool "x"
	depends on MISSING_EVERYWHERE
"""


def load(tmp_path, files):
    write_tree(tmp_path, files)
    project = Project(str(tmp_path), Settings())
    project.load()
    return project


def test_non_bool_symbols_used_as_truth_values(tmp_path):
    project = load(tmp_path, {"Kconfig": TREE})
    found = [(p.line, p.col, p.message) for p in kconfig_problems(project, project.kc, "Kconfig")
             if p.code == "non-bool-in-logic"]
    message = "'N' is an int symbol: as a truth value it is always n; compare it instead (e.g. N != 0)"
    assert found == [(8, 12, message), (11, 9, message)]


def test_undefined_unless_defined_in_an_unloaded_file(tmp_path):
    project = load(tmp_path, {"Kconfig": TREE})
    names = [p.message for p in kconfig_problems(project, project.kc, "Kconfig") if p.code == "undefined-symbol"]
    assert names == ["'MISSING_EVERYWHERE' is not defined in any Kconfig file"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "Kconfig").write_text("config MISSING_EVERYWHERE\n\tbool\n")
    project = load(tmp_path, {})
    assert not [p for p in kconfig_problems(project, project.kc, "Kconfig") if p.code == "undefined-symbol"]


def test_config_file_problems(tmp_path):
    project = load(tmp_path, {"Kconfig": TREE, ".config": "CONFIG_A=y\nCONFIG_NOPE=y\nCONFIG_N=abc\nCONFIG_N=1\n"})
    text = (tmp_path / ".config").read_text()
    problems = {(p.line, p.code): p.message for p in config_problems(project.kc, text, project.config_result)}
    assert problems[(2, "unknown-symbol")] == "unknown symbol CONFIG_NOPE"
    assert problems[(3, "config")] == "symbol value 'abc' invalid for N"
    assert problems[(1, "value-not-kept")].startswith("CONFIG_A=y will not stick: the value is n")
    # Another config file (not the loaded one) gets only per-line checks.
    assert not [p for p in config_problems(project.kc, text, None) if p.code == "value-not-kept"]


def test_hover_on_a_macro_shows_its_expansion(tmp_path):
    from kconfig_ls.ide.hover import macro_markdown
    from kconfig_ls.ide.locate import Locator

    kconfig = 'greet = Hello, $(1)!\nconfig G\n\tstring "g"\n\tdefault "$(greet,world) ok"\n\tdepends on $(EMPTY)B\n'
    project = load(tmp_path, {"Kconfig": kconfig})
    locator = Locator(project.kc)
    target = locator.in_kconfig("Kconfig", 4, 14)
    assert target.kind == "macro" and target.name == "$(greet,world)" and target.expansion == "Hello, world!"
    assert macro_markdown(target.name, target.expansion, True) == "`$(greet,world)` expands to `Hello, world!`"
    word = locator.in_kconfig("Kconfig", 5, 14)
    assert word.kind == "macro" and word.name == "$(EMPTY)B" and word.expansion == "B"
    # The same through a reload that replays the lexing cache.
    project.load()
    assert Locator(project.kc).in_kconfig("Kconfig", 4, 14).expansion == "Hello, world!"


UNMET_TREE = """
config NET
	bool "net"
config HELPER
	bool "helper"
	depends on NET
config USER
	bool "user"
	select HELPER
"""


def test_quick_fix_for_unmet_dependencies_edits_the_config(tmp_path):
    from kconfig_ls.ide.actions import fix_action

    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_USER=y\n# CONFIG_NET is not set\n"})
    problem = next(p for p in kconfig_problems(project, project.kc, "Kconfig") if p.code == "unmet-select")
    assert problem.data == {"symbol": "HELPER", "target": "deps"}
    fix = fix_action(project, "HELPER", "deps", project.config_path, project.config_text)
    assert fix.title == "Meet HELPER's dependencies (sets NET=y)"
    (change,) = fix.changes
    assert (change.start_line, change.start_col, change.end_line, change.text) == (1, 0, 1, "CONFIG_NET=y")


def test_quick_fix_for_a_value_that_does_not_stick(tmp_path):
    from kconfig_ls.ide.actions import fix_action

    text = "CONFIG_HELPER=y\n"
    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": text})
    problems = config_problems(project.kc, text, project.config_result)
    problem = next(p for p in problems if p.code == "value-not-kept")
    assert problem.data == {"symbol": "HELPER", "target": "y"}
    fix = fix_action(project, "HELPER", "y", project.config_path, text)
    assert fix.title == "Make HELPER=y (sets NET=y)"
    assert [(c.start_line, c.start_col, c.text) for c in fix.changes] == [(1, 0, "CONFIG_NET=y\n")]


def test_definition_index_follows_buffers_and_saved_files(tmp_path):
    project = load(tmp_path, {"Kconfig": TREE, "arm/Kconfig": "config ONLY_ARM\n\tbool\n"})
    assert project.all_arch_definitions()["ONLY_ARM"] == [("arm/Kconfig", 1)]
    # An open buffer stands in for the file.
    project.set_overlay(str(tmp_path / "arm" / "Kconfig"), "\nconfig RENAMED\n\tbool\n")
    index = project.all_arch_definitions()
    assert "ONLY_ARM" not in index and index["RENAMED"] == [("arm/Kconfig", 2)]
    # Closed after saving something else: the disk file is read again.
    project.set_overlay(str(tmp_path / "arm" / "Kconfig"), None)
    (tmp_path / "arm" / "Kconfig").write_text("config SAVED\n\tbool\n")
    project.refresh_definitions(str(tmp_path / "arm" / "Kconfig"))
    index = project.all_arch_definitions()
    assert "ONLY_ARM" not in index and index["SAVED"] == [("arm/Kconfig", 1)]
    (tmp_path / "arm" / "Kconfig").unlink()
    project.refresh_definitions(str(tmp_path / "arm" / "Kconfig"))
    assert "SAVED" not in project.all_arch_definitions()


def test_positions_in_a_buffer_edited_since_the_load(tmp_path):
    from kconfig_ls.ide.locate import in_checked_file

    project = load(tmp_path, {"Kconfig": TREE})
    text = project.kc.files["Kconfig"].text
    lines = text.split("\n")
    a = lines.index("config A") + 1
    # Two lines inserted at the top: "config A" moved down by two, and it
    # is still the loaded tree's A (with its value).
    edited = "# one\n# two\n" + text
    target = in_checked_file(project.file_check("Kconfig", edited), "Kconfig", a + 2, 8)
    assert target.symbol is project.kc.find("A") and target.line == a + 2
    # An edited line: a symbol the tree knows; a keyword is nothing; a new
    # name is just a name until the next load.
    line = "\tdepends on N && S != \"\" && B && BRAND_NEW"
    edited = text.replace("\tdepends on N && S != \"\"", line)
    check = project.file_check("Kconfig", edited)
    row = edited.split("\n").index(line) + 1
    assert in_checked_file(check, "Kconfig", row, line.index("&& B") + 3).symbol is project.kc.find("B")
    assert in_checked_file(check, "Kconfig", row, 3) is None
    new = in_checked_file(check, "Kconfig", row, line.index("BRAND_NEW") + 2)
    assert (new.kind, new.name, new.symbol) == ("name", "BRAND_NEW", None)


def test_a_loaded_tree_is_out_of_the_collectors_passes(tmp_path):
    """A server's project freezes the tree a load made (kconfig_ls/heap.py):
    the collector's passes after the load do not walk it again and again.
    A project by default (a library user, who does not free trees with
    heap.collect) leaves it to the collector."""
    import gc

    write_tree(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_USER=y\n"})
    gc.unfreeze()
    plain = Project(str(tmp_path), Settings())
    plain.load()
    assert gc.get_freeze_count() == 0
    frozen = Project(str(tmp_path), Settings(), freeze_trees=True)
    frozen.load()
    tracked = {id(o) for o in gc.get_objects()}
    assert gc.get_freeze_count() > 0
    assert all(id(o) not in tracked for o in (frozen.kc, frozen.kc.find("USER"), frozen.kc.root))
    assert id(plain.kc) not in tracked  # (frozen too by then: all that was alive)
    heap.collect()
    assert gc.get_freeze_count() == 0


def test_a_reloaded_tree_lets_the_old_one_go(tmp_path):
    """Whatever the questions asked of a tree (hover with its fix search,
    the unmet-dependency fix), nothing keeps it once a re-link replaced
    it: a long session must not hold every tree it ever loaded (per-tree
    caches once did, keyed weakly by a tree their values referenced)."""
    import weakref

    from kconfig_ls.ide.hover import symbol_hover

    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_USER=y\n# CONFIG_NET is not set\n"})
    old = weakref.ref(project.kc)
    for name in ("HELPER", "USER", "NET"):
        assert symbol_hover(project, project.kc.find(name), 1.0)
    problem = next(p for p in kconfig_problems(project, project.kc, "Kconfig") if p.code == "unmet-select")
    project.how_to(problem.data["symbol"], problem.data["target"])
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE + "\nconfig LATER\n\tbool \"later\"\n")
    assert project.load().kc.find("LATER") is not None
    heap.collect()  # (as the server does once a re-load replaced a tree)
    assert old() is None


def test_the_remembered_base_warnings_are_those_a_scenario_finds(tmp_path):
    """After a load the tree's unmet-dependency warnings stand for the
    base config's (a what-if search starts from them without computing
    the base again): they must be what a scenario computes itself."""
    from kconfig_ls.kconfig.scenario import Scenario

    for config in (None, "CONFIG_USER=y\n# CONFIG_NET is not set\n", "CONFIG_NET=y\nCONFIG_USER=y\n"):
        files = {"Kconfig": UNMET_TREE}
        if config is not None:
            files[".config"] = config
        elif (tmp_path / ".config").exists():
            (tmp_path / ".config").unlink()
        project = load(tmp_path, files)
        remembered = project.kc.derived["base_unmet"][config or ""]
        project.kc.derived.clear()
        with Scenario(project.kc, project.config_text) as scenario:
            assert scenario.base_unmet() == remembered
    assert remembered == set()
    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_USER=y\n# CONFIG_NET is not set\n"})
    assert project.kc.derived["base_unmet"][project.config_text] == {"HELPER"}


def test_an_edit_is_patched_in_and_values_follow(tmp_path):
    write_tree(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_NET=y\nCONFIG_USER=y\n"})
    project = Project(str(tmp_path), Settings(kconfig_version="6.1"))
    project.load()
    kc = project.kc
    assert kc.symbols["HELPER"].str_value_now == "y"
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE.replace("depends on NET", "depends on NET && USER"))
    assert project.relink() and project.kc is kc
    project.settle_relink()
    assert kc.symbols["HELPER"].str_value_now == "y"
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE.replace("depends on NET", "depends on !NET"))
    assert project.relink()
    project.settle_relink()
    assert kc.symbols["HELPER"].str_value_now == "y"  # (selected, its dependency unmet)
    assert [s.name for s in kc.unmet] == ["HELPER"]
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE + "config NEW\n\tbool\n")
    assert not project.relink()  # (a new entry: the tree is loaded afresh)


def test_problems_asked_between_a_relink_and_its_values_are_not_kept(tmp_path):
    """The server's quick check of a buffer may run after the re-link
    patched the tree and before its values were computed again: what it
    found then must not stand once the values are in."""
    from kconfig_ls.ide.diagnostics import document_problems

    write_tree(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_USER=y\n# CONFIG_NET is not set\n"})
    project = Project(str(tmp_path), Settings(kconfig_version="6.1"))
    project.load()

    def unmet(text: str) -> list[str]:
        return [p.message for p in document_problems(project, "Kconfig", text, True) if p.code == "unmet-select"]

    assert unmet(UNMET_TREE)
    for text in (UNMET_TREE.replace("depends on NET", "depends on !NET"), UNMET_TREE):
        project.set_overlay(str(tmp_path / "Kconfig"), text)
        assert project.relink()
        unmet(text)  # (values not computed again yet)
        project.settle_relink()
        fresh = Project(str(tmp_path), Settings(kconfig_version="6.1"))
        fresh.set_overlay(str(tmp_path / "Kconfig"), text)
        fresh.load()
        expected = [p.message for p in document_problems(fresh, "Kconfig", text, True) if p.code == "unmet-select"]
        assert unmet(text) == expected


def test_a_relink_that_fails_unexpectedly_asks_for_a_load(tmp_path, monkeypatch):
    import kconfig_ls.ide.project as project_module

    write_tree(tmp_path, {"Kconfig": UNMET_TREE})
    project = Project(str(tmp_path), Settings(kconfig_version="6.1"))
    project.load()

    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(project_module, "relink_file", broken)
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE.replace("bool \"net\"", "bool \"network\""))
    assert not project.relink()
    assert "RuntimeError: a bug" in project.relink_error


def test_a_release_first_load_holds_one_tree_at_a_time(tmp_path, monkeypatch):
    """A re-load after edits lets the old tree go before it builds the new
    one: the process never holds two (CPython keeps its heap's peak)."""
    import weakref

    import kconfig_ls.kconfig.tree_cache as tree_cache

    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_NET=y\nCONFIG_USER=y\n"})
    old = weakref.ref(project.kc)
    alive_while_building = []
    real_load = tree_cache.load

    def watching(*args, **kwargs):
        alive_while_building.append(old() is not None)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(tree_cache, "load", watching)
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE + "config LATER\n\tbool \"later\"\n")
    result = project.load(release_first=True)
    assert alive_while_building == [False]
    assert result.error is None and project.kc is result.kc and project.kc.find("LATER") is not None
    assert project.kc.symbols["HELPER"].str_value_now == "y"


def test_a_fatal_error_in_the_edited_buffer_keeps_the_tree(tmp_path):
    """The edited buffer's own check stops on a fatal error: the load would
    stop at the same place with the same message, so the tree stays and the
    error is the one a load reports."""
    project = load(tmp_path, {"Kconfig": UNMET_TREE})
    kc = project.kc
    broken = UNMET_TREE + 'source "nowhere/Kconfig"\n'
    expected = Project(str(tmp_path), Settings())
    expected.set_overlay(str(tmp_path / "Kconfig"), broken)
    failed = expected.load()
    assert failed.error is not None and expected.kc is None
    project.set_overlay(str(tmp_path / "Kconfig"), broken)
    result = project.load(release_first=True)
    assert project.kc is kc and result.kc is kc
    assert (str(result.error), result.error.file, result.error.line) == (
        str(failed.error), failed.error.file, failed.error.line)
    assert project.load_error is result.error


def test_a_release_first_load_that_fails_brings_the_last_good_tree_back(tmp_path, monkeypatch):
    """A load that fails although the buffer's own check did not (as if a
    sourced file went between the check and the load) builds the tree of
    the last good texts again, so requests still have a tree to answer
    from; when even that fails, the error is said and there is no tree."""
    files = {"Kconfig": UNMET_TREE + 'source "sub/Kconfig"\n', "sub/Kconfig": "config SUB\n\tbool \"sub\"\n"}
    project = load(tmp_path, files)
    monkeypatch.setattr(project, "_fatal_edit", lambda: None)
    project.set_overlay(str(tmp_path / "Kconfig"), files["Kconfig"] + 'source "gone/Kconfig"\nconfig X\n\tbool\n')
    result = project.load(release_first=True)
    assert "gone/Kconfig" in str(result.error) and project.load_error is result.error
    assert project.kc is result.kc and project.kc.find("SUB") is not None and project.kc.find("X") is None

    (tmp_path / "sub" / "Kconfig").unlink()
    result = project.load(release_first=True)
    assert result.kc is None and project.kc is None
    assert "sub/Kconfig" in str(result.error) and project.load_error is result.error


def test_a_cancelled_release_first_load_leaves_no_tree(tmp_path):
    import threading

    project = load(tmp_path, {"Kconfig": UNMET_TREE})
    project.set_overlay(str(tmp_path / "Kconfig"), UNMET_TREE + "config LATER\n\tbool \"later\"\n")
    cancel = threading.Event()
    cancel.set()
    result = project.load(cancel=cancel, release_first=True)
    assert result.cancelled and project.kc is None
    assert project.load(release_first=True).kc.find("LATER") is not None


def test_a_config_edit_is_read_again_for_the_symbols_it_reaches(tmp_path, monkeypatch):
    """A config-only re-load re-reads the file's user values and computes
    again only what the edit reaches; the values equal a fresh load's."""
    from tree_digest import current_values

    from kconfig_ls.kconfig import revalue

    project = load(tmp_path, {"Kconfig": UNMET_TREE, ".config": "CONFIG_NET=y\nCONFIG_USER=y\n"})
    kc = project.kc
    calls = []
    real = revalue.ConfigValues._recompute
    monkeypatch.setattr(revalue.ConfigValues, "_recompute",
                        lambda self, changed: calls.append({s.name for s in changed}) or real(self, changed))
    for config in ("CONFIG_NET=y\n# CONFIG_USER is not set\n", "# CONFIG_NET is not set\nCONFIG_USER=y\n"):
        project.set_overlay(str(tmp_path / ".config"), config)
        project.load(config_only=True)
        assert project.kc is kc and project.config_text == config
        fresh = load(tmp_path / "fresh", {"Kconfig": UNMET_TREE, ".config": config})
        assert current_values(kc) == current_values(fresh.kc)
    assert calls == [{"USER"}, {"NET", "USER"}]
