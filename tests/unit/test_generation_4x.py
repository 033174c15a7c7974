"""The 4.x generation against its own C tool: Linux 4.11's kconfig as
Debian's kconfig-frontends ships it (`kconfig-conf`).  Each inline tree runs
through both; the .config (or minimal config), stdout, stderr and exit code
must be the same."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import missing, run_our_conf, write_tree
from test_parity_snippets import ERROR_CASES as SNIPPET_ERRORS

KCONFIG_CONF = shutil.which("kconfig-conf") or "/usr/bin/kconfig-conf"
ENV = {"SRCARCH": "x86", "ARCH": "x86_64", "KERNELVERSION": "4.11.0"}

TREES = {
    # option env, $NAME in the main menu and in source paths, unquoted words
    # (paths, defaults with '.'), ---help---, boolean.
    "env_and_words": {
        "Kconfig": """mainmenu "Linux/$ARCH $KERNELVERSION Kernel Configuration"
config SRCARCH
	string
	option env="SRCARCH"
config ARCH
	string
	option env="ARCH"
config KERNELVERSION
	string
	option env="KERNELVERSION"
config IMAGE
	string "image name"
	default kernel.itb
config A
	tristate "a"
	---help---
	  Old-style help.
config B
	boolean "b"
	default y
source "arch/$SRCARCH/Kconfig"
source sub/plain/Kconfig
""",
        "arch/x86/Kconfig": "config X86\n\tdef_bool y\nconfig X86_OPT\n\tbool unquoted\n",
        "sub/plain/Kconfig": 'menu "plain"\nconfig P\n\tbool "p"\n\tdepends on X86\nendmenu\n'
                             'config AFTER\n\tbool "after"\n',
    },
    # option modules / defconfig_list / allnoconfig_y.
    "options": {
        "Kconfig": """config MODULES
	bool "modules"
	option modules
	default y
config DEFCONFIG_LIST
	string
	option defconfig_list
	default "configs/$ARCH_defconfig"
config ALWAYS
	bool "always on in allnoconfig"
	option allnoconfig_y
config T
	tristate "t"
	default m
config UNDEFINED_ENV
	string
	option env="KCONFIG_LS_NO_SUCH_VARIABLE"
""",
    },
    # optional choices, tristate choices, def_tristate in a choice.
    "choices": {
        "Kconfig": """config MODULES
	bool "modules"
	option modules
	default y
choice
	prompt "optional"
	optional
config O1
	bool "o1"
config O2
	bool "o2"
endchoice
choice TRI
	tristate "tristate choice"
	default T2
config T1
	tristate "t1"
config T2
	def_tristate m
	prompt "t2"
config T3
	bool "t3"
endchoice
""",
    },
}

ERRORS = {
    "unknown_statement": 'foo bar\nconfig A\n\tbool "a"\n',
    "unbalanced_paren": 'config A\n\tbool "a"\n\tdepends on (B\n',
    "unknown_option": 'config A\n\tbool "a"\n\tfrobnicate\n',
    "missing_source": 'config A\n\tbool "a"\nsource "nowhere/Kconfig"\n',
    "recursive_dep": 'config A\n\tbool "a"\n\tdepends on B\nconfig B\n\tbool "b"\n\tdepends on A\n',
    "unclosed_menu": 'menu "m"\nconfig A\n\tbool "a"\n',
}

CONFIG = "CONFIG_A=m\nCONFIG_B=n\nCONFIG_T=y\nCONFIG_O2=y\nCONFIG_T1=m\nCONFIG_IMAGE=\"other\"\nCONFIG_P=y\n"


@pytest.fixture(scope="module")
def kconfig_conf() -> str:
    if not os.path.exists(KCONFIG_CONF):
        missing("kconfig-conf is not installed (scripts/setup installs Debian's kconfig-frontends-nox)")
    return KCONFIG_CONF


def run_both(tmp_path, kconfig_conf: str, files: dict[str, str], args: list[str], config: str | None = None,
             produced: str = ".config"):
    outputs = []
    for side in ("c", "ours"):
        root = write_tree(tmp_path / side, files)
        if config is not None:
            (root / ".config").write_text(config)
        env = dict(ENV)
        if side == "c":
            proc = subprocess.run([kconfig_conf, *args, "Kconfig"], cwd=root, capture_output=True, text=True,
                                  env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env}, check=False)
        else:
            proc = run_our_conf(root, [*args, "Kconfig"], {"KCONFIG_LS_KCONFIG_VERSION": "4.x", **env})
        out = root / produced
        outputs.append((proc.returncode, proc.stdout, proc.stderr, out.read_text() if out.exists() else None))
    (c_rc, c_out, c_err, c_file), (o_rc, o_out, o_err, o_file) = outputs
    assert (o_rc, o_file) == (c_rc, c_file), o_err
    assert o_out == c_out
    assert o_err == c_err
    return c_file


@pytest.mark.parametrize("mode", ["--allnoconfig", "--allyesconfig", "--allmodconfig", "--alldefconfig"])
@pytest.mark.parametrize("tree", sorted(TREES))
def test_modes_match_kconfig_frontends(tmp_path, kconfig_conf, tree, mode):
    run_both(tmp_path, kconfig_conf, TREES[tree], [mode])


@pytest.mark.parametrize("tree", sorted(TREES))
def test_olddefconfig_defconfig_and_savedefconfig(tmp_path, kconfig_conf, tree):
    files = {**TREES[tree], "my_defconfig": CONFIG}
    run_both(tmp_path / "old", kconfig_conf, files, ["--olddefconfig"], config=CONFIG)
    run_both(tmp_path / "def", kconfig_conf, files, ["--defconfig=my_defconfig"])
    run_both(tmp_path / "save", kconfig_conf, files, ["--savedefconfig=out"], config=CONFIG, produced="out")


def test_the_env_symbols_give_the_title_and_the_sourced_arch(tmp_path, kconfig_conf):
    text = run_both(tmp_path, kconfig_conf, TREES["env_and_words"], ["--alldefconfig"])
    assert "# Linux/x86_64 4.11.0 Kernel Configuration\n" in text
    assert "CONFIG_X86=y\n" in text and 'CONFIG_IMAGE="kernel.itb"\n' in text
    assert "# end of" not in text and "CONFIG_SRCARCH" not in text


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_kconfig_frontends(tmp_path, kconfig_conf, case):
    run_both(tmp_path, kconfig_conf, {"Kconfig": ERRORS[case]}, ["--alldefconfig"])


@pytest.mark.parametrize("case", sorted(SNIPPET_ERRORS))
def test_the_snippet_suite_s_errors_match_kconfig_frontends(tmp_path, kconfig_conf, case):
    """The error cases the other generations are checked on, as 4.11 words
    them (option_error inside entries, 'unexpected option', 'boolean', an
    if block's line, no newline warning, non-fatal cycles...)."""
    run_both(tmp_path, kconfig_conf, {"Kconfig": SNIPPET_ERRORS[case]}, ["--alldefconfig"])
