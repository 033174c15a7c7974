"""Kconfig generations: the rules that changed between kernel releases, in
one place.

A tree is evaluated by the rules of the kconfig it ships (its
``scripts/kconfig``), because the values its own ``make *config`` writes are
the ground truth.  Every difference between generations is a field of
:class:`Generation`, named for the rule it selects, so a reader sees all of a
generation's rules here and the engine asks ``kc.gen.<rule>`` instead of
comparing versions.

Known generations, oldest first:

``4.x``
    Linux 2.6 to 4.17 and the many trees that carry a copy of it (checked
    against Linux 4.11's kconfig as Debian's kconfig-frontends ships it): no
    preprocessor; unquoted words may hold ``/`` and ``.``; ``option env``,
    ``defconfig_list``, ``allnoconfig_y``; ``$NAME`` in ``source`` paths and
    the main menu's title is the value of symbol NAME; ``---help---`` and
    ``boolean``; no ``# end of`` lines.
``6.1``
    Linux 4.18 to 6.10 (checked against 6.1): the preprocessor, choices that
    are symbols of their own (bool or tristate, ``optional``), choice values
    bounded by the choice's mode.
``6.12``
    Linux 6.11 to 6.17 (checked against 6.12): choices are bool blocks
    without a value of their own; a choice picks a member by a priority list
    that user input reorders; choice members must be bool; ``optional`` and
    named choices are gone; an int or hex symbol without a value is ``0`` /
    ``0x0``; ``savedefconfig`` and ``auto.conf.cmd`` are written anew.
``mainline``
    Linux 6.18 and newer (from mainline's sources and tests; no C tool of
    it runs in CI): 6.12's rules plus ``transitional`` symbols and
    ``depends on X if Y``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

#: The environment variable that overrides detection (``conf`` has no
#: option for it; wrappers and tests set it).
VERSION_VARIABLE = "KCONFIG_LS_KCONFIG_VERSION"


@dataclass(frozen=True)
class Generation:
    """One generation's rules (see the module docstring).  The defaults are
    Linux 6.1's; each other generation lists where it differs."""

    #: Short name, as ``--kconfig-version`` takes it.
    name: str
    #: What it covers, for people.
    description: str
    #: Buckets of the C tool's symbol hash table: the order of
    #: ``for_all_symbols`` (autoconf.h, warnings) follows it.
    symbol_hash_size: int = 9973
    #: Choices are bool blocks whose members are picked through a priority
    #: list (6.11+), not symbols with a mode and a selected value.
    member_choices: bool = False
    #: The value of an int/hex symbol with no user value and no default:
    #: ``0`` / ``0x0`` (6.11+), or the empty string.
    numbers_default_to_zero: bool = False
    #: ``auto.conf.cmd`` starts with ``autoconfig := <path>``, lists the
    #: files in the order they were opened and names ``$(autoconfig)``
    #: (6.11+); before, the path itself, files in reverse order.
    autoconf_cmd_names_autoconfig: bool = False
    #: bison's "syntax error" names the line after the failing statement
    #: (1, the lexer is already past its newline) or the statement's own (0).
    syntax_error_line_offset: int = 1
    #: A block left open at the end of input: bison's "syntax error" names
    #: the top file (else ``<none>``) at its newline count plus this offset.
    eof_error_in_top_file: bool = False
    eof_error_line_offset: int = 2
    #: ``oldconfig`` stops with an error instead of asking again for a new
    #: int/hex symbol when the input is exhausted (Debian's 6.12).
    number_question_stops_at_eof: bool = False
    #: ``$(...)`` macros and ``NAME = value`` assignments (after 4.x).
    preprocessor: bool = True
    #: Extra characters an unquoted word may hold (besides letters, digits
    #: and ``_``); with the preprocessor, ``$`` starts a macro inside it.
    word_chars: str = "$-"
    #: Keywords of older grammars and the keyword each stands for.
    keyword_aliases: tuple[tuple[str, str], ...] = ()
    #: ``option env/defconfig_list/allnoconfig_y/modules`` are options of
    #: the grammar (else obsolete, warned about).
    option_keyword: bool = False
    #: A prompt may be a bare word (``bool unquoted``), not only a string.
    bare_word_prompts: bool = False
    #: ``$NAME`` in ``source`` paths and the main menu's title stands for
    #: symbol NAME's value (``sym_expand_string_value``).
    dollar_symbols: bool = False
    #: ``.config`` closes each visible menu with ``# end of <title>``.
    end_of_menu_comments: bool = True
    #: The main menu's title when the tree sets none.
    default_mainmenu: str = "Main menu"
    #: Every mode but savedefconfig also writes include/config/auto.conf
    #: and friends when missing (else only silentoldconfig does).
    writes_autoconf: bool = True
    #: ``transitional`` symbols: hidden, never written, their value from the
    #: config file passed on to the symbols defaulting to them (6.18+).
    transitional: bool = False
    #: ``depends on X if Y`` means ``X || Y = n`` (mainline, 2026).
    conditional_depends: bool = False
    #: What messages call the bool type ("boolean" in 4.x).
    bool_name: str = "bool"
    #: A wrong end of block names the keyword read ('endmenu'), not the
    #: block it ends ('menu').
    end_error_names_keyword: bool = False
    #: A file without a final newline is warned about (not in 4.x).
    warns_no_newline: bool = True
    #: At the end of input, a last line without its newline counts as one
    #: more line for bison's "syntax error".
    eof_counts_unterminated_line: bool = False
    #: An ``if`` block is reported at the line of the statement after it.
    if_line_is_next_statement: bool = False
    #: A choice's default must be one of its members (not checked in 4.x).
    checks_choice_defaults: bool = True
    #: A recursive dependency stops the tool (else it is reported and the
    #: tree used as it is).
    cycles_are_fatal: bool = True
    #: 4.x prints the pointer to the documentation before every link of a
    #: cycle, naming it kconfig-language.txt; later once at the end (.rst).
    cycle_footer_per_link: bool = False
    #: A choice's link in a cycle (its dependency or its default's
    #: condition) reads "symbol <choice> depends on X" (4.x), not "choice
    #: <choice> contains symbol X".
    cycle_choice_deps_as_symbol: bool = False
    #: A menuconfig entry without a prompt that ends with the input is
    #: warned about at the top file's newline count plus this.
    eof_warning_line_offset: int = 1
    #: Fatal load errors ("can't open file") go to stdout (4.x printf).
    errors_on_stdout: bool = False
    #: An error inside an entry's options is an "invalid option" /
    #: 'unknown option "X"' (bison's option_error), not a statement error.
    option_errors: bool = False
    #: The rewrites of a condition (``expr_transform``) reach the right
    #: operand of ``&&``/``||`` before the left (6.11+: both are arguments
    #: of one call, and Debian's gcc evaluates them right to left), which
    #: orders the "tested for 'm'" lines.
    transform_right_first: bool = False
    #: Duplicate operands are merged in each side of ``&&``/``||`` first,
    #: then across the two sides (6.11+); before, over every pair of the
    #: whole chain.  Decides which operand of a printed dependency stays.
    dedup_sides_first: bool = False
    #: The top file's last line must end with a newline: else its statement
    #: is a syntax error (6.11+; sourced files still get one at their end).
    top_file_needs_final_newline: bool = False

    def entry_options(self) -> list[str]:
        """The options a config or choice entry accepts, as an editor
        offers them (the common ones, then this grammar's own)."""
        words = ["bool", "tristate", "string", "hex", "int", "prompt", "default", "def_bool", "def_tristate",
                 "depends on", "select", "imply", "visible if", "range", "help"]
        if not self.member_choices:
            words.append("optional")
        if self.option_keyword:
            words += ['option env=""', "option defconfig_list", "option modules", "option allnoconfig_y"]
        else:
            words.append("modules")
        return words


LINUX_6_1 = Generation(
    name="6.1",
    description="Linux 4.18-6.10 kconfig (as in Linux 6.1)",
)

LINUX_4_X = replace(
    LINUX_6_1,
    name="4.x",
    description="Linux 2.6-4.17 kconfig (as in Linux 4.11, Debian's kconfig-frontends)",
    eof_error_in_top_file=True,
    eof_error_line_offset=1,
    preprocessor=False,
    cycles_are_fatal=False,
    cycle_footer_per_link=True,
    cycle_choice_deps_as_symbol=True,
    eof_warning_line_offset=0,
    word_chars="-/.",
    keyword_aliases=(("boolean", "bool"), ("---help---", "help")),
    option_keyword=True,
    bare_word_prompts=True,
    dollar_symbols=True,
    end_of_menu_comments=False,
    default_mainmenu="Configuration",
    writes_autoconf=False,
    option_errors=True,
    errors_on_stdout=True,
    bool_name="boolean",
    end_error_names_keyword=True,
    checks_choice_defaults=False,
    if_line_is_next_statement=True,
    warns_no_newline=False,
    eof_counts_unterminated_line=True,
)

LINUX_6_12 = replace(
    LINUX_6_1,
    name="6.12",
    description="Linux 6.11-6.17 kconfig (as in Linux 6.12)",
    symbol_hash_size=1 << 14,
    member_choices=True,
    numbers_default_to_zero=True,
    autoconf_cmd_names_autoconfig=True,
    syntax_error_line_offset=0,
    eof_error_in_top_file=True,
    eof_error_line_offset=1,
    number_question_stops_at_eof=True,
    transform_right_first=True,
    dedup_sides_first=True,
    top_file_needs_final_newline=True,
)

MAINLINE = replace(
    LINUX_6_12,
    name="mainline",
    description="Linux 6.18+ kconfig (mainline: transitional symbols, conditional dependencies)",
    transitional=True,
    conditional_depends=True,
)

GENERATIONS = {g.name: g for g in (LINUX_4_X, LINUX_6_1, LINUX_6_12, MAINLINE)}
NEWEST = MAINLINE


#: Where trees keep their kconfig: Linux, U-Boot, barebox (scripts/kconfig);
#: Buildroot (support/kconfig); coreboot (util/kconfig).
KCONFIG_DIRS = ("scripts/kconfig", "support/kconfig", "util/kconfig")


def by_name(name: str) -> Generation:
    """The generation called ``name`` (``4.x``, ``6.1``, ``6.12``; ``4``
    too); ValueError naming the known ones otherwise."""
    key = name.strip().removeprefix("v").removeprefix("linux-")
    found = GENERATIONS.get("4.x" if key.split(".")[0] == "4" else key)
    if found is None:
        raise ValueError(f"unknown kconfig version {name!r} (known: {', '.join(GENERATIONS)})")
    return found


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def detect(srctree: str) -> Generation:
    """The generation of the kconfig a tree ships (see KCONFIG_DIRS),
    recognised by what its sources define: no preprocessor (``preprocess.c``)
    means 4.x, 6.11's ``sym_get_choice_menu`` the member choices; a tree
    without a kconfig copy (a bare Kconfig tree) gets the newest."""
    for kconfig_dir in KCONFIG_DIRS:
        directory = os.path.join(srctree, kconfig_dir)
        symbol_c = _read(os.path.join(directory, "symbol.c"))
        if not symbol_c:
            continue
        if not os.path.exists(os.path.join(directory, "preprocess.c")):
            return LINUX_4_X
        if "sym_get_choice_menu" in symbol_c:
            return MAINLINE if "T_TRANSITIONAL" in _read(os.path.join(directory, "parser.y")) else LINUX_6_12
        return LINUX_6_1
    return NEWEST


def choose(srctree: str, env: Mapping[str, str], requested: str | None = None) -> Generation:
    """The generation to use: ``requested`` (``--kconfig-version``, the
    ``kconfig.kconfigVersion`` setting), else ``$KCONFIG_LS_KCONFIG_VERSION``,
    else what :func:`detect` finds in the tree."""
    name = requested or env.get(VERSION_VARIABLE)
    return by_name(name) if name else detect(srctree)
