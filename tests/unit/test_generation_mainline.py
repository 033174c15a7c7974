"""The mainline generation (Linux 6.18+): `transitional` symbols and
`depends on X if Y`.  No C tool of it runs in CI, so the expected outputs
are written here from the rules as mainline's sources define them (see
kconfig_ls/kconfig/generation.py); Linux 6.1's and 6.12's own C tools check
in test_parity_snippets.py that both forms are errors there."""

from __future__ import annotations

import pytest
from conftest import run_our_conf, write_tree

MIGRATION = """config MODULES
	bool "modules"
	modules
	default y
config RENAMED
	tristate "renamed driver"
	default LEGACY
config LEGACY
	tristate
	transitional
	help
	  The old name of RENAMED.
config LABEL
	string "label"
	default LEGACY_LABEL
config LEGACY_LABEL
	string
	transitional
config GATED
	bool "gated"
	default LEGACY_GATED if ENABLE_GATE
config LEGACY_GATED
	bool
	transitional
config ENABLE_GATE
	bool "enable gate"
config KEPT
	bool "kept"
	default LEGACY_KEPT
config LEGACY_KEPT
	bool
	transitional
"""

OLD_CONFIG = """CONFIG_MODULES=y
CONFIG_LEGACY=m
CONFIG_LEGACY_LABEL="old"
CONFIG_LEGACY_GATED=y
# CONFIG_ENABLE_GATE is not set
# CONFIG_KEPT is not set
CONFIG_LEGACY_KEPT=y
"""

HEADER = "#\n# Automatically generated file; DO NOT EDIT.\n# Main menu\n#\n"

MAINLINE = {"KCONFIG_LS_KCONFIG_VERSION": "mainline"}


def conf(tmp_path, kconfig: str, mode: str, config: str | None = None, stdin: str | None = None):
    root = write_tree(tmp_path, {"Kconfig": kconfig})
    if config is not None:
        (root / ".config").write_text(config)
    proc = run_our_conf(root, [mode, "Kconfig"], MAINLINE, stdin)
    written = root / ".config"
    return proc, written.read_text() if written.exists() else None


def test_transitional_values_pass_to_the_new_symbols_and_are_not_written(tmp_path):
    proc, text = conf(tmp_path, MIGRATION, "--olddefconfig", OLD_CONFIG)
    assert proc.returncode == 0, proc.stderr
    # The user's own n for KEPT wins over the old symbol's y; GATED's
    # default does not apply while ENABLE_GATE is n.
    assert text == HEADER + (
        "CONFIG_MODULES=y\nCONFIG_RENAMED=m\nCONFIG_LABEL=\"old\"\n# CONFIG_GATED is not set\n"
        "# CONFIG_ENABLE_GATE is not set\n# CONFIG_KEPT is not set\n"
    )


def test_oldconfig_does_not_ask_again_for_a_value_taken_from_a_transitional_symbol(tmp_path):
    proc, text = conf(tmp_path, MIGRATION, "--oldconfig", OLD_CONFIG, stdin="n\n")
    assert proc.returncode == 0, proc.stderr
    assert "gated (GATED) [N/y/?] (NEW) n\n" in proc.stdout
    assert "renamed driver (RENAMED) [M/n/y/?] m\n" in proc.stdout
    assert "(NEW)" not in proc.stdout.replace("gated (GATED) [N/y/?] (NEW)", "")
    assert "CONFIG_RENAMED=m\n" in text and "LEGACY" not in text


@pytest.mark.parametrize(("kconfig", "error_line"), [
    ('config OLD\n\tbool\n\ttransitional\n\tdefault y\n', 4),
    ('config OLD\n\tbool\n\ttransitional\n\tselect OTHER\nconfig OTHER\n\tbool\n', 4),
    ('config OTHER\n\tbool\nconfig OLD\n\tbool\n\ttransitional\n\tdepends on OTHER\n', 3),
    ('config OTHER\n\tbool\nif OTHER\nconfig OLD\n\tbool\n\ttransitional\nendif\n', 4),
    ('config OLD\n\tbool\n\ttransitional\n\tprompt "visible"\n', 4),
])
def test_a_transitional_symbol_may_have_nothing_but_help(tmp_path, kconfig, error_line):
    proc, text = conf(tmp_path, kconfig, "--olddefconfig")
    assert proc.returncode == 1
    assert proc.stderr == f"Kconfig:{error_line}: error: transitional symbols can only have help sections\n"
    assert text is None


OPTIONAL_DEPENDENCY = """config MODULES
	bool "modules"
	modules
	default y
config FOO
	bool "foo"
config BAR
	tristate "bar"
config NEEDS_FOO_WITH_BAR
	tristate "needs FOO while BAR is set"
	depends on FOO if BAR
	default y
config LIMITED_BY_BAR
	tristate "no more than BAR, when BAR is set"
	depends on BAR if BAR
	default y
config BOTH
	bool "both or neither"
	depends on (FOO && BAR) if (FOO || BAR)
	default y
"""


@pytest.mark.parametrize(("config", "expected"), [
    # BAR n: the conditions are off, the dependencies do not apply.
    ("# CONFIG_FOO is not set\n# CONFIG_BAR is not set\n",
     {"NEEDS_FOO_WITH_BAR": "y", "LIMITED_BY_BAR": "y", "BOTH": "y"}),
    # BAR m, FOO n: NEEDS_FOO_WITH_BAR is hidden, LIMITED_BY_BAR at most m.
    ("# CONFIG_FOO is not set\nCONFIG_BAR=m\n", {"NEEDS_FOO_WITH_BAR": None, "LIMITED_BY_BAR": "m", "BOTH": None}),
    ("CONFIG_FOO=y\nCONFIG_BAR=y\n", {"NEEDS_FOO_WITH_BAR": "y", "LIMITED_BY_BAR": "y", "BOTH": "y"}),
    ("CONFIG_FOO=y\n# CONFIG_BAR is not set\n", {"NEEDS_FOO_WITH_BAR": "y", "LIMITED_BY_BAR": "y", "BOTH": None}),
])
def test_a_conditional_dependency_applies_only_while_its_condition_holds(tmp_path, config, expected):
    proc, text = conf(tmp_path, OPTIONAL_DEPENDENCY, "--olddefconfig", "CONFIG_MODULES=y\n" + config)
    assert proc.returncode == 0, proc.stderr
    lines = text.splitlines()
    for name, value in expected.items():
        if value is None:  # hidden: not written at all
            assert not any(f"CONFIG_{name}" in line for line in lines), text
        else:
            assert f"CONFIG_{name}={value}" in lines, text
