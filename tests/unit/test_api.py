"""The public engine API on small inline trees."""

import pytest
from conftest import write_tree

from kconfig_ls.kconfig import Kconfig, KconfigSyntaxError, M, N, Y

TREE = """
config MODULES
	bool "modules"
	default y
	modules

config PCI
	bool "PCI"
	help
	  PCI bus support.

config DRIVER
	tristate "driver"
	depends on PCI
	select HELPER

config HELPER
	tristate

config COUNT
	int "count"
	range 1 8
	default 4

config USES_UNDEFINED
	bool "uses"
	depends on NOT_DEFINED_ANYWHERE

menu "Stuff"
comment "note"
endmenu
"""


@pytest.fixture
def kc(tmp_path):
    write_tree(tmp_path, {"Kconfig": TREE})
    return Kconfig("Kconfig", srctree=str(tmp_path), env={})


def test_symbol_properties(kc):
    driver = kc.find("DRIVER")
    assert driver.type_name == "tristate"
    assert [p.text for p in driver.prompts] == ["driver"]
    assert driver.definitions == [("Kconfig", 12)]
    assert [p.expr.name for p in driver.selects] == ["HELPER"]
    assert kc.find("HELPER").rev_dep is not None
    assert kc.find("PCI").help == "PCI bus support.\n"


def test_values_bounds_and_set_value(kc):
    driver, helper, pci = kc.find("DRIVER"), kc.find("HELPER"), kc.find("PCI")
    assert driver.value == "n" and driver.visibility == N
    assert driver.assignable == ()
    assert pci.set_value("y")
    assert driver.visibility == Y
    assert driver.assignable == (N, M, Y)
    assert driver.set_value(M)
    assert helper.value == "m" and helper.lower_bound == M
    assert driver.user_value == "m"
    count = kc.find("COUNT")
    assert count.value == "4"
    assert not count.set_value("9")  # out of range, refused as in the C tool
    assert count.set_value("8") and count.value == "8"


def test_eval(kc):
    kc.find("PCI").set_value("y")
    assert kc.eval("PCI && !DRIVER") == Y
    assert kc.eval("COUNT = 4") == Y
    assert kc.eval("COUNT > 5 || UNKNOWN_NAME") == N
    assert kc.find("UNKNOWN_NAME") is None  # eval adds nothing to the tree


def test_eval_syntax_error_has_a_location(kc):
    with pytest.raises(KconfigSyntaxError) as info:
        kc.eval("PCI && && DRIVER")
    assert info.value.column == 7


def test_undefined_references_and_locations(kc):
    undefined = kc.undefined_references()
    assert [s.name for s in undefined] == ["NOT_DEFINED_ANYWHERE"]
    assert kc.references(undefined[0]) == [("Kconfig", 27, 12)]


def test_menus_and_comments(kc):
    assert [n.prompt.text for n in kc.menus()] == ["Stuff"]
    assert [n.prompt.text for n in kc.comments()] == ["note"]


def test_load_write_and_min_config(kc, tmp_path):
    config = tmp_path / "in.config"
    config.write_text("CONFIG_PCI=y\nCONFIG_DRIVER=y\nCONFIG_BOGUS=y\nCONFIG_COUNT=abc\n")
    result = kc.load_config(str(config))
    assert [w.message for w in result.warnings] == ["symbol value 'abc' invalid for COUNT"]
    assert kc.find("HELPER").value == "y"
    out = tmp_path / "out.config"
    assert kc.write_config(str(out))
    assert "CONFIG_DRIVER=y\nCONFIG_HELPER=y\n" in out.read_text()
    assert not kc.write_config(str(out))  # unchanged: not rewritten
    kc.find("COUNT").set_value("2")
    assert kc.write_config(str(out))
    assert (tmp_path / "out.config.old").exists()
    kc.write_min_config(str(tmp_path / "min"))
    assert (tmp_path / "min").read_text() == "CONFIG_PCI=y\nCONFIG_DRIVER=y\nCONFIG_COUNT=2\n"


def test_a_cycle_through_a_symbol_that_is_only_selected(tmp_path):
    """The C tool crashes printing this cycle (the selected symbol has no
    property to name a place by); the engine reports both links."""
    write_tree(tmp_path, {"Kconfig": 'config A\n\tbool "a"\n\tselect U\n\tdepends on U\n'})
    kc = Kconfig("Kconfig", srctree=str(tmp_path), warn_stream=None)
    messages = [(d.file, d.message) for d in kc.diagnostics]
    assert messages == [("Kconfig", "recursive dependency: symbol A depends on U"),
                        ("", "recursive dependency: symbol U is selected by A")]
