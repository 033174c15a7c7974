"""Fuzzing the engine's readers with hypothesis: the lexer, the macro
preprocessor, the parser (a whole load, and the server's one-file check)
and the ``.config`` reader, on generated Kconfig-like text and on mutated
real files, under every kconfig generation.

Whatever the input, each either returns or raises the engine's own error
(:class:`~kconfig_ls.kconfig.errors.KconfigError`), and every position it
reports is inside the text it read.  A load that succeeds also computes
every value and writes the config files without an exception.

The default run is a fixed slice (derandomized, so CI sees the same inputs
every time).  A long random run::

    KCONFIG_LS_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/unit/test_fuzz.py
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconfig_ls.kconfig import configfile, generation
from kconfig_ls.kconfig.errors import KconfigError
from kconfig_ls.kconfig.filecheck import FileCheck
from kconfig_ls.kconfig.lexer import Lexer
from kconfig_ls.kconfig.preprocess import Preprocessor
from kconfig_ls.kconfig.tree import RECURSION_LIMIT, Kconfig

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "kconfig_ls" / "data" / "sample"

# (The engine raises the limit on its first load; hypothesis wants it
# unchanged during a test.)
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))

_LONG_RUN = int(os.environ.get("KCONFIG_LS_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=_LONG_RUN or 150,
    derandomize=not _LONG_RUN,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

GENERATIONS = sorted(generation.GENERATIONS)

# -- inputs ------------------------------------------------------------------------

#: Pieces of Kconfig text: keywords of every generation, names, values,
#: operators, strings, macros (good, unterminated, recursive, erroring),
#: and characters the grammar does not know.
KCONFIG_PIECES = [
    "config", "menuconfig", "choice", "endchoice", "menu", "endmenu", "if", "endif",
    "source", "rsource", "osource", "orsource", "comment", "mainmenu",
    "bool", "boolean", "tristate", "int", "hex", "string",
    "def_bool", "def_tristate", "def_int", "def_hex", "def_string",
    "prompt", "default", "depends", "on", "select", "imply", "range", "help", "---help---",
    "option", "env=\"HOME\"", "defconfig_list", "modules", "allnoconfig_y", "visible", "optional",
    "transitional", "A", "B", "C", "FOO_BAR", "MODULES", "y", "m", "n", "0x1f", "-3", "42",
    "&&", "||", "!", "=", "!=", "<", ">", "<=", ">=", "(", ")",
    '"text"', '"un', "'single'", '"a \\" b"', '"$(A)"',
    "$(A)", "$(", "$(A", "$(info,hi)", "$(warning-if,y,careful)", "$(error-if,y,stop)",
    "$(if,y,x,z)", "$(filename)", "$(lineno)", "$(shell,echo x)", "$(1)", "$(A,B)", "$(foo,bar",
    "A := x", "B = $(B)", "C += y", "D = $(1)$(2)", "E := $(D,p,q)", "$(A) := z",
    "\\", "#", "# comment", "\t", "  ", "\x00", "\r", "\x0c", "é", "\udcff", "\u2014", "$$", ";",
]

KCONFIG_LINE = st.builds(
    lambda indent, words, joiner: indent + joiner.join(words),
    st.sampled_from(["", "\t", "  ", "\t  ", " \t"]),
    st.lists(st.sampled_from(KCONFIG_PIECES), max_size=8),
    st.sampled_from([" ", "", "\t"]),
)

GENERATED_KCONFIG = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(KCONFIG_LINE, max_size=40),
    st.sampled_from(["\n", "", "\r\n", "\\\n"]),
)


def _base_texts() -> list[str]:
    texts = [p.read_text() for p in sorted(SAMPLE.rglob("Kconfig"))]
    texts.append(
        'mainmenu "m"\nchoice\n\tprompt "pick"\n\tdefault X\nconfig X\n\tbool "x"\nconfig Y\n\tbool "y"\n'
        'endchoice\nmenu "m"\n\tvisible if A\nconfig A\n\ttristate "a"\n\tselect B if C\n\timply C\n'
        'config B\n\tint "b"\n\trange 1 10\n\tdefault 3\nconfig C\n\thex "c"\n\tdefault 0x10\n'
        '\thelp\n\t  helpful\n\n\t  text\nendmenu\nif A\nconfig D\n\tstring "d"\n\tdefault "$(E)"\nendif\n'
        'E := value\nF = $(if,$(E),yes,no)\ncomment "c $(F)"\n'
    )
    return texts


BASE_TEXTS = _base_texts()

_MUTATION = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "duplicate"]),
    st.floats(0, 1),
    st.floats(0, 1),
    st.one_of(st.sampled_from(KCONFIG_PIECES), st.text(max_size=12)),
)


def _mutate(text: str, mutations: list[tuple[str, float, float, str]]) -> str:
    for op, where, length, payload in mutations:
        pos = int(where * len(text))
        end = min(len(text), pos + int(length * 40))
        if op == "insert":
            text = text[:pos] + payload + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[end:]
        elif op == "replace":
            text = text[:pos] + payload + text[end:]
        else:
            text = text[:end] + text[pos:end] + text[end:]
    return text


MUTATED_KCONFIG = st.builds(_mutate, st.sampled_from(BASE_TEXTS), st.lists(_MUTATION, min_size=1, max_size=12))

KCONFIG_TEXT = st.one_of(GENERATED_KCONFIG, MUTATED_KCONFIG, st.text(max_size=200))

CONFIG_PIECES = [
    "CONFIG_", "CONFIG_A", "CONFIG_B", "CONFIG_C", "CONFIG_X", "CONFIG_NET", "CONFIG_E1000", "CONFIG_MODULES",
    "# CONFIG_A is not set", "# CONFIG_B is not set and more", "#CONFIG_C is not set", "# ", "#",
    "=", "y", "m", "n", "0x", "0x1g", "12", "-1", "99999999999999999999", '"', '"str"', '"a\\"b"', '"\\\\"',
    "\r", "\x00", "\udc80", "é", " ", "\t", "garbage",
]

CONFIG_TEXT = st.one_of(
    st.builds(lambda lines: "\n".join(lines),
              st.lists(st.builds("".join, st.lists(st.sampled_from(CONFIG_PIECES), max_size=5)), max_size=30)),
    st.text(max_size=200),
)

# -- checks --------------------------------------------------------------------------


def line_count(text: str) -> int:
    return text.count("\n") + 1


def assert_inside(text: str, line: int | None, col: int | None = None, what: object = "") -> None:
    """A 1-based line and 0-based column are inside ``text`` (a column may
    stand just after the line's last character)."""
    if line is None:
        return
    lines = text.split("\n")
    assert 1 <= line <= len(lines), (line, len(lines), what)
    if col is not None:
        assert 0 <= col <= len(lines[line - 1]) + 1, (line, col, len(lines[line - 1]), what)


def refusing_shell(command: str) -> str:
    """What an untrusted tree gets: nothing runs."""
    return ""


@pytest.fixture(scope="module")
def srctree(tmp_path_factory) -> Path:
    """A tree whose other files the fuzzed top file may source."""
    root = tmp_path_factory.mktemp("fuzz")
    (root / "Kconfig.ok").write_text('config SOURCED\n\tbool "sourced"\n')
    (root / "Kconfig.bad").write_text("config\n\tdepends on (\n")
    return root


def load(srctree: Path, text: str, gen_name: str) -> Kconfig:
    return Kconfig("Kconfig", srctree=str(srctree), env={"srctree": str(srctree)}, shell=refusing_shell,
                   info=lambda _text: None, warn_stream=io.StringIO(), overlays={"Kconfig": text},
                   generation=generation.by_name(gen_name))


@FUZZ
@given(text=KCONFIG_TEXT, gen_name=st.sampled_from(GENERATIONS))
def test_lexer(text: str, gen_name: str) -> None:
    gen = generation.by_name(gen_name)
    warnings: list[tuple[int, str]] = []
    pp = Preprocessor(env={}, shell=refusing_shell, info=lambda _text: None)
    lexer = Lexer(text, "Kconfig", pp, lambda line, message: warnings.append((line, message)), gen)
    try:
        for stmt in lexer.statements():
            assert_inside(text, stmt.line, what=stmt)
            for token in stmt.tokens:
                assert 0 <= token.start <= token.end <= len(text), token
    except KconfigError as exc:
        assert_inside(text, exc.line, what=exc)
    for line, message in warnings:
        assert_inside(text, line, what=message)
    for start, end, _result in lexer.expansions:
        assert 0 <= start <= end <= len(text)


@FUZZ
@given(text=st.one_of(st.builds("".join, st.lists(st.sampled_from(KCONFIG_PIECES), max_size=12)),
                      st.text(max_size=100)),
       definitions=st.lists(st.tuples(st.sampled_from(["A", "B", "D", "warning", "if", "1"]),
                                      st.sampled_from(["=", ":=", "+="]),
                                      st.builds("".join, st.lists(st.sampled_from(KCONFIG_PIECES), max_size=4))),
                            max_size=4))
def test_preprocessor(text: str, definitions: list[tuple[str, str, str]]) -> None:
    pp = Preprocessor(env={"HOME": "/h"}, shell=refusing_shell, info=lambda _text: None, warn=lambda _text: None)
    try:
        for name, op, value in definitions:
            pp.assign(name, value, op)
        result = pp.expand(text)
        assert isinstance(result, str)
    except KconfigError:
        pass


@FUZZ
@given(text=KCONFIG_TEXT, gen_name=st.sampled_from(GENERATIONS), config=CONFIG_TEXT)
def test_parser_load_values_and_config(srctree: Path, text: str, gen_name: str, config: str) -> None:
    try:
        kc = load(srctree, text, gen_name)
    except KconfigError as exc:
        if exc.file == "Kconfig":
            assert_inside(text, exc.line, what=exc)
        return
    for d in kc.diagnostics:
        if d.file == "Kconfig":
            assert_inside(text, d.line, d.col, d)
    for sym in kc.all_symbols:
        for ref_file, start, end in sym.refs:
            if ref_file == "Kconfig":
                assert 0 <= start <= end <= len(text), (sym.name, start, end)
    result = configfile.read_config_simple(kc, ".config", text=config)
    configfile.settle_after_read(kc, result)
    for w in result.warnings:
        assert_inside(config, w.line, what=w)
    for sym in kc.all_symbols:
        sym.calc_value()
    configfile.config_text(kc)
    configfile.min_config_text(kc)
    configfile.autoconf_text(kc)
    configfile.autoheader_text(kc)


@pytest.fixture(scope="module")
def sample_tree() -> Kconfig:
    return Kconfig("Kconfig", srctree=str(SAMPLE), env={"srctree": str(SAMPLE)}, shell=refusing_shell,
                   info=lambda _text: None, warn_stream=io.StringIO())


@FUZZ
@given(text=KCONFIG_TEXT, name=st.sampled_from(["drivers/Kconfig", "Kconfig", "other/Kconfig"]))
def test_one_file_check(sample_tree: Kconfig, text: str, name: str) -> None:
    """The check the server runs on every keystroke never raises: even a
    fatal error is a diagnostic."""
    check = FileCheck(sample_tree, name, text, standalone=name not in sample_tree.files)
    for d in check.diagnostics:
        if d.file == name:
            assert_inside(text, d.line, d.col, d)
    for start, end in ((s, e) for sym in check.all_symbols for f, s, e in sym.refs if f == name):
        assert 0 <= start <= end <= len(text)


@FUZZ
@given(config=CONFIG_TEXT)
def test_config_reader(sample_tree: Kconfig, config: str) -> None:
    sample_tree.reset_values()
    result = configfile.read_config_simple(sample_tree, ".config", text=config, warn_unknown=True)
    configfile.settle_after_read(sample_tree, result)
    for w in result.warnings:
        assert_inside(config, w.line, what=w)
    assert configfile.config_text(sample_tree).startswith("#")


# -- depth ------------------------------------------------------------------------------

def _chain(n: int) -> str:
    entries = "".join(f'config S{i}\n\tbool "s"\n\tdepends on S{i + 1}\n' for i in range(n))
    return entries + f"config S{n}\n\tdef_bool y\n"


def _select_chain(n: int) -> str:
    return "".join(f"config S{i}\n\tdef_bool y\n\tselect S{i + 1}\n" for i in range(n)) + f"config S{n}\n\tbool\n"


def _menuconfig_chain(n: int) -> str:
    return "".join(f'menuconfig S{i}\n\tbool "s"\n' + (f"\tdepends on S{i - 1}\n" if i else "") for i in range(n))


def _nested_ifs(n: int) -> str:
    return "if A\n" * n + 'config B\n\tbool "b"\n' + "endif\n" * n + "config A\n\tdef_bool y\n"


@pytest.mark.parametrize("make", [_chain, _select_chain, _menuconfig_chain, _nested_ifs])
@pytest.mark.parametrize("in_thread", [False, True], ids=["main", "thread"])
def test_deep_trees_load(srctree: Path, make, in_thread: bool) -> None:
    """Chains and nesting far deeper than any real tree load and give every
    value, in the main thread and in a worker thread (where the server loads)."""
    import threading

    outcome: list[object] = []

    def run() -> None:
        try:
            kc = load(srctree, make(30_000 if make is not _nested_ifs else 4_000), "6.1")
            configfile.settle_after_read(kc, None)
            outcome.append(configfile.config_text(kc))
        except BaseException as exc:  # reported below, whatever it is
            outcome.append(exc)

    if in_thread:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    else:
        run()
    assert isinstance(outcome[0], str), outcome[0]
    assert outcome[0].startswith("#\n# Automatically generated file"), outcome[0][:200]
    # (tests/unit/test_parity_snippets.py compares such trees with the C tool.)


@pytest.mark.parametrize("expr", ["(" * 20_000 + "A" + ")" * 20_000, "!" * 20_000 + "A",
                                  " && ".join(["A"] * 20_000), "(" * 20_000])
def test_huge_expressions_are_an_error_on_their_line(srctree: Path, expr: str) -> None:
    kc = load(srctree, f'config A\n\tbool "a"\n\tdepends on {expr}\nconfig B\n\tbool "b"\n', "6.1")
    errors = [d for d in kc.diagnostics if d.severity.value == "error"]
    assert [(d.line, d.message.split(":")[0]) for d in errors] == [(3, "expression too complex")]
    assert kc.find("B").nodes  # the statements after it are read
