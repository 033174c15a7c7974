"""CONFIG_ uses and compiled-out regions of C-family text, on inline
texts (the C preprocessor itself is compared on kernel files in
tests/parity/test_uses_gcc.py)."""

from __future__ import annotations

import pytest

from kconfig_ls.uses import cexpr
from kconfig_ls.uses.cpp import blank_comments, scan
from kconfig_ls.uses.macros import ConfigMacros
from kconfig_ls.uses.regions import dead_ranges

MACROS = ConfigMacros(
    header={"CONFIG_Y": "1", "CONFIG_M_MODULE": "1", "CONFIG_NR": "64", "CONFIG_ADDR": "0x1000",
            "CONFIG_STR": '"text"'},
    make={"CONFIG_Y": "y", "CONFIG_M": "m", "CONFIG_NR": "64", "CONFIG_ADDR": "0x1000", "CONFIG_STR": '"text"'},
    symbols=frozenset({"Y", "M", "N", "NR", "ADDR", "STR"}),
)


@pytest.mark.parametrize(("expression", "value"), [
    ("defined(CONFIG_Y)", 1), ("defined CONFIG_N", 0), ("!defined(CONFIG_Y)", 0),
    ("IS_ENABLED(CONFIG_M)", 1), ("IS_BUILTIN(CONFIG_M)", 0), ("IS_MODULE(CONFIG_M)", 1),
    ("IS_ENABLED(CONFIG_NR)", 0), ("IS_REACHABLE(CONFIG_Y)", 1), ("IS_REACHABLE(CONFIG_M)", None),
    ("IS_REACHABLE(CONFIG_N)", 0), ("CONFIG_NR > 32", 1), ("CONFIG_NR >= 128", 0),
    ("CONFIG_ADDR == 4096", 1), ("CONFIG_N", 0), ("CONFIG_NOT_IN_TREE", 0),
    ("defined(OTHER)", None), ("defined(OTHER) && defined(CONFIG_N)", 0),
    ("defined(OTHER) || defined(CONFIG_Y)", 1), ("defined(OTHER) && defined(CONFIG_Y)", None),
    ("FOO(1, 2) || 0", None), ("CONFIG_Y ? 2 : OTHER", 2), ("OTHER ? 1 : 1", 1),
    ("(CONFIG_NR * 2 + 1) % 5 == 4", 1), ("CONFIG_STR", None), ("1 / 0", None), ("08", None),
    ("CONFIG_Y &&", None), ("0x10UL << 2 == 64", 1), ("- 1 < 0", 1),
])
def test_conditions(expression, value):
    assert cexpr.evaluate(expression, MACROS).value == value


def test_names_the_file_defines_are_not_the_configs():
    assert cexpr.evaluate("defined(CONFIG_Y)", MACROS, {"CONFIG_Y"}).value is None
    assert cexpr.evaluate("IS_ENABLED(CONFIG_M)", MACROS, {"CONFIG_M_MODULE"}).value is None


def test_comments_and_literals_are_blanked_in_place():
    text = 'a /* CONFIG_Y\n */ "CONFIG_N" \'x\' // CONFIG_M \\\n still\nb'
    clean = blank_comments(text)
    assert len(clean) == len(text) and clean.count("\n") == text.count("\n")
    assert "CONFIG" not in clean and clean.startswith("a ") and clean.endswith("\nb")


TEXT = """\
#include <linux/x.h>
#ifdef CONFIG_Y
int y;
#else
int not_y;     /* CONFIG_IN_COMMENT */
#endif
# if defined(CONFIG_N) && \\
     IS_ENABLED(CONFIG_M)
int n_and_m;
#  ifdef CONFIG_Y
int nested;
#  endif
#elif CONFIG_NR > 8
int big;
#elif OTHER
int other;
#else
int rest;
#endif
#if OTHER
#ifndef CONFIG_Y
int inside_unknown;
#endif
#endif
#define CONFIG_LOCAL 1
#ifdef CONFIG_LOCAL
int local;
#endif
void f(void) { if (IS_ENABLED(CONFIG_M) && CONFIG_NR > 2) g(CONFIG_M_MODULE); }
"""


def test_dead_arms_with_their_reasons():
    cpp = scan(TEXT)
    dead = [(r.first_line, r.last_line, r.names, r.earlier_taken) for r in dead_ranges(cpp, MACROS)]
    assert dead == [
        (5, 5, ("CONFIG_Y",), True),
        (9, 12, ("CONFIG_N",), False),
        (16, 16, ("CONFIG_NR",), True),
        (18, 18, ("CONFIG_NR",), True),
        (22, 22, ("CONFIG_Y",), False),
    ]


def test_uses_and_their_forms():
    uses = [(u.name, u.line, u.col, u.form) for u in scan(TEXT).uses]
    assert ("CONFIG_Y", 2, 7, "ifdef") in uses
    assert ("CONFIG_N", 7, 13, "ifdef") in uses
    assert ("CONFIG_M", 8, 16, "IS_ENABLED") in uses
    assert ("CONFIG_NR", 13, 6, "value") in uses
    assert ("CONFIG_M_MODULE", 29, 60, "value") in uses
    assert not any(u[0] == "CONFIG_IN_COMMENT" for u in uses)
    assert scan(TEXT).redefined == {"CONFIG_LOCAL"}


def test_crlf_and_an_unterminated_group():
    cpp = scan("#ifdef CONFIG_N\r\nint a;\r\nint b;\r\n")
    [dead] = dead_ranges(cpp, MACROS)
    assert (dead.first_line, dead.last_line) == (2, 4)


MAKEFILE = """\
obj-$(CONFIG_Y) += y.o
obj-${CONFIG_M} += m.o   # CONFIG_IN_COMMENT
ccflags-$(CONFIG_N) := -DN
ifdef CONFIG_N
n := 1
else ifeq ($(CONFIG_NR),64)
nr := 64
else
other := 1
endif
ifneq ($(CONFIG_M),)
m := 1
endif
ifeq ($(CONFIG_Y)$(OTHER),y)
unknown := 1
endif
CONFIG_LOCAL := y
ifdef CONFIG_LOCAL
local := 1
endif
define TEXT
ifdef CONFIG_N
endef
ifeq "$(CONFIG_STR)" '"text"'
str := 1
endif
"""


def test_makefile_uses_and_dead_arms():
    from kconfig_ls.uses import make
    parsed = make.scan(MAKEFILE)
    uses = [(u.name, u.line, u.col, u.form) for u in parsed.uses]
    assert uses[:4] == [("CONFIG_Y", 1, 6, "kbuild:obj"), ("CONFIG_M", 2, 6, "kbuild:obj"),
                        ("CONFIG_N", 3, 10, "kbuild:ccflags"), ("CONFIG_N", 4, 6, "ifdef")]
    assert not any(u[0] == "CONFIG_IN_COMMENT" for u in uses)
    assert parsed.assigned == {"CONFIG_LOCAL"}
    dead = make.dead_ranges(parsed, MACROS)
    assert [(r.first_line, r.last_line, r.names, r.earlier_taken) for r in dead] == [
        (5, 5, ("CONFIG_N",), False),
        (9, 9, ("CONFIG_NR",), True),
    ]
    assert make.condition(parsed.groups[-1].branches[0], MACROS, parsed.assigned).value == 1
