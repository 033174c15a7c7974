"""CONFIG_ uses in source files through the project: hover targets with
what their construct evaluates to, compiled-out hints, questionable uses,
on a small inline tree."""

from __future__ import annotations

from conftest import write_tree

from kconfig_ls.ide import sources
from kconfig_ls.ide.project import Project, Settings

KCONFIG = """
config MODULES
	bool "modules"
	default y
	modules
config B
	bool "b"
	default y
config T
	tristate "t"
config N
	int "n"
	default 64
config OFF
	bool "off"
"""

C_TEXT = """\
#define CONFIG_MINE 1
#if IS_ENABLED(CONFIG_T) && CONFIG_N > 8
int t;
#endif
#ifdef CONFIG_B_MODULE
int never;
#endif
int n = IS_ENABLED(CONFIG_N) + CONFIG_NOWHERE_DEFINED + CONFIG_MINE;
/* CONFIG_IN_A_COMMENT_TOO */
#ifdef CONFIG_OFF
int off;
#else
int on;
#endif
"""


def project_for(tmp_path, config: str) -> Project:
    write_tree(tmp_path, {"Kconfig": KCONFIG, ".config": config})
    project = Project(str(tmp_path), Settings())
    project.load()
    return project


def test_problems_of_a_c_file(tmp_path):
    project = project_for(tmp_path, "CONFIG_T=y\n")
    with project.lock:
        problems = sources.source_problems(project, "src/x.c", C_TEXT, "cpp")
    shown = [(p.line, p.code, p.message) for p in problems]
    assert shown == [
        (5, "never-module", "CONFIG_B_MODULE is never defined: B is bool, never m"),
        (6, "compiled-out", "compiled out: CONFIG_B is y"),
        (8, "config-test-type", "IS_ENABLED() of int symbol N: it is 1 only when the value is 1"),
        (8, "undefined-symbol", "CONFIG_NOWHERE_DEFINED is not defined by any Kconfig file (of any architecture)"),
        (11, "compiled-out", "compiled out: CONFIG_OFF is n"),
    ]
    dead = [p for p in problems if p.code == "compiled-out"]
    assert [(p.line, p.end_line) for p in dead] == [(6, 7), (11, 12)]
    assert all(p.severity == "hint" for p in dead)


def test_regions_follow_the_values(tmp_path):
    project = project_for(tmp_path, "CONFIG_T=y\n")
    (tmp_path / ".config").write_text("CONFIG_OFF=y\n")
    project.load(config_only=True)
    with project.lock:
        dead = [p for p in sources.compiled_out(project, "src/x.c", C_TEXT, "cpp")]
    assert [(p.line, p.message) for p in dead] == [
        (3, "compiled out: CONFIG_T is n"), (6, "compiled out: CONFIG_B is y"),
        (13, "compiled out: the branch at line 10 is taken (CONFIG_OFF is y)")]


def test_hover_targets_say_what_the_construct_is(tmp_path):
    project = project_for(tmp_path, "CONFIG_T=m\n")
    makefile = "obj-$(CONFIG_T) += t.o\nobj-$(CONFIG_OFF) += off.o\nifeq ($(CONFIG_N),64)\nx := 1\nendif\n"
    with project.lock:
        def at(text, kind, line, col):
            target = sources.target_at(project, "src/x", text, kind, line, col)
            return None if target is None else (target.name, target.construct)

        assert at(C_TEXT, "cpp", 2, 16) == ("T", "`IS_ENABLED(CONFIG_T)` is 1")
        assert at(C_TEXT, "cpp", 2, 30) == ("N", "`CONFIG_N` is defined as `64`")
        assert at(C_TEXT, "cpp", 5, 8) == (
            "B", "`CONFIG_B_MODULE` is never defined: CONFIG_B is a bool symbol, never m")
        assert at(C_TEXT, "cpp", 8, 40)[1].endswith("is defined by no Kconfig file of the tree: it is never set")
        assert at(C_TEXT, "cpp", 1, 0) is None
        assert at(makefile, "make", 1, 8) == ("T", "`obj-$(CONFIG_T)` is `obj-m`: built as a module")
        assert at(makefile, "make", 2, 8) == ("OFF", "`obj-$(CONFIG_OFF)` is `obj-`: not built")
        assert at(makefile, "make", 3, 9) == ("N", "`$(CONFIG_N)` is `64`")


def test_source_kinds():
    assert [sources.source_kind(n) for n in ("a/b.c", "x.h", "head.S", "vmlinux.lds.S", "board.dts", "a.dtsi",
                                             "Makefile", "Kbuild", "Makefile.lib", "rules.mk", "Kconfig",
                                             ".config", "notes.txt")] == [
        "cpp", "cpp", "cpp", "cpp", "cpp", "cpp", "make", "make", "make", "make", None, None, None]
    assert sources.source_kind("weird", "c") == "cpp" and sources.source_kind("weird", "makefile") == "make"


RUST_TEXT = """\
#[cfg(CONFIG_T)]
fn t() {}
#[cfg(not(CONFIG_B))] // CONFIG_IN_A_COMMENT
fn b() {}
const N: &str = "CONFIG_IN_A_STRING";
fn lifetimes<'a>(x: &'a u8) -> bool { cfg!(any(CONFIG_OFF, CONFIG_N)) }
#[cfg(CONFIG_N = "64")]
fn n() {}
"""


def test_rust_and_documentation_uses(tmp_path):
    from kconfig_ls.uses import plain

    uses = [(u.name, u.line, u.col, u.form) for u in plain.scan(RUST_TEXT, "rust").uses]
    assert uses == [("CONFIG_T", 1, 6, "cfg"), ("CONFIG_B", 3, 10, "cfg"), ("CONFIG_OFF", 6, 47, "cfg"),
                    ("CONFIG_N", 6, 59, "cfg"), ("CONFIG_N", 7, 6, "cfg")]
    project = project_for(tmp_path, "CONFIG_T=m\n")
    with project.lock:
        def construct(text, kind, line, col):
            return sources.target_at(project, "rust/x.rs" if kind == "rust" else "Documentation/x.rst",
                                     text, kind, line, col).construct

        assert construct(RUST_TEXT, "rust", 1, 8) == "`cfg(CONFIG_T)` holds: CONFIG_T is m"
        assert construct(RUST_TEXT, "rust", 6, 50) == "`cfg(CONFIG_OFF)` does not hold: CONFIG_OFF is not set"
        assert construct(RUST_TEXT, "rust", 7, 8) == (
            '`cfg(CONFIG_N)` does not hold: CONFIG_N is 64 (`cfg(CONFIG_N = "64")` does)')
        doc = "Set CONFIG_B=y to get b; CONFIG_GONE went away.\n"
        assert construct(doc, "text", 1, 6) == "CONFIG_B is y"
        problems = sources.source_problems(project, "Documentation/x.rst", doc, "text")
    assert [(p.line, p.col, p.code) for p in problems] == [(1, 25, "undefined-symbol")]
    assert sources.source_kind("rust/kernel/lib.rs") == "rust"
    assert sources.source_kind("Documentation/admin-guide/x.rst") == "text"
    assert sources.source_kind("README.txt") is None
