"""Files lexed while a cold load waits for a probe (kconfig_ls/kconfig/
lex_ahead.py): the statements and warnings come back in the order the
parse's own lexing gives them, only files without macros are lexed, and a
load that lexes ahead equals one that does not, diagnostics included."""

from __future__ import annotations

import threading
import time

import pytest

from kconfig_ls.kconfig import configfile, lex_ahead
from kconfig_ls.kconfig.generation import LINUX_6_1
from kconfig_ls.kconfig.lex_ahead import LexAhead
from kconfig_ls.kconfig.lexer import Lexer
from kconfig_ls.kconfig.preprocess import Preprocessor
from kconfig_ls.kconfig.probes import ProbeRunner
from kconfig_ls.kconfig.tree import Kconfig

WARNING_FILE = (
    "config B\n"
    "\tbool \"b\" ~\n"  # (a character the lexer ignores, with a warning)
    "\thelp\n"
    "\t  Help of b.\n"
    "config C\n"
    "\tbool \"c\"\n"
    "\tdepends on B ` && B\n"
    "bogus statement\n"  # (a parse error between the lexer's warnings)
    "config D\n"
    "\tbool"  # (no newline at the end: a warning after the last statement)
)


def events(feed) -> list[tuple]:
    out: list[tuple] = []
    for stmt in feed(lambda line, message: out.append(("warn", line, message))):
        out.append(("stmt", stmt.line, [(t.kind, t.value, t.start, t.end) for t in stmt.tokens], stmt.help_text))
    return out


def test_a_lexed_file_replays_statements_and_warnings_in_the_parses_order():
    gen = LINUX_6_1
    pp = Preprocessor(env={}, shell=None, info=lambda _t: None)
    live = events(lambda warn: Lexer(WARNING_FILE, "b/Kconfig", pp, warn, gen).statements())
    ahead = LexAhead({"b/Kconfig": WARNING_FILE}, gen)
    assert ahead.step() and not ahead.step()
    lexed = ahead.take("b/Kconfig", WARNING_FILE)
    assert lexed is not None
    assert events(lexed.replay) == live
    assert [e[0] for e in live].count("warn") == 3 and live[-1][0] == "warn"


def test_only_files_without_macros_are_lexed_and_only_the_same_text_is_taken():
    gen = LINUX_6_1
    texts = {"a": "config A\n\tbool\n", "m": "config M\n\tdefault $(X)\n", "gone": "config G\n\tbool\n"}
    ahead = LexAhead(texts, gen)
    del texts["gone"]  # (read by the parse before any wait)
    assert ahead.step() and not ahead.step()
    texts["later"] = "config L\n\tbool\n"  # (read by the look-ahead after)
    assert ahead.step() and not ahead.step()
    assert ahead.take("m", texts["m"]) is None and ahead.take("gone", "config G\n\tbool\n") is None
    equal = "".join(["config A\n", "\tbool\n"])
    assert equal == texts["a"] and ahead.take("a", equal) is None  # (equal, but not the text lexed)
    assert ahead.take("later", texts["later"]) is not None
    assert ahead.take("later", texts["later"]) is None  # (taken once)


class Slow:
    """A runner whose commands take a while, so that the parse waits."""

    def __init__(self, delay: float):
        self.delay = delay
        self.started = threading.Event()

    def __call__(self, command: str) -> str:
        self.started.set()
        time.sleep(self.delay)
        return "y"


class StartedAhead(ProbeRunner):
    """Returns from a look-ahead once a worker has started its first command
    (the parse then waits for it, however busy the machine: a command no
    worker took yet would run in line instead)."""

    def __init__(self, slow: Slow):
        super().__init__(slow)
        self.slow = slow

    def prefetch(self, commands) -> None:
        super().prefetch(commands)
        assert self.slow.started.wait(10)


@pytest.fixture
def tree_with_warnings(tmp_path):
    (tmp_path / "Kconfig").write_text(
        'config A\n\tdef_bool $(shell,probe a)\n'
        'source "b/Kconfig"\nsource "c/Kconfig"\nsource "m/Kconfig"\n'
        'config Z\n\tdef_bool $(shell,probe z)\n')
    for name, text in {"b": WARNING_FILE, "c": "config E\n\tbool \"e\"\n\tdefault y if D\n",
                       "m": "config F\n\tstring \"f\"\n\tdefault \"$(shell,probe f)\"\n"}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "Kconfig").write_text(text)
    return tmp_path


def test_a_load_lexing_ahead_equals_one_that_does_not(tree_with_warnings, monkeypatch):
    taken = []
    take = LexAhead.take

    def counting_take(self, name, text):
        lexed = take(self, name, text)
        if lexed is not None:
            taken.append(name)
        return lexed

    monkeypatch.setattr(lex_ahead.LexAhead, "take", counting_take)
    srctree = str(tree_with_warnings)
    ahead = Kconfig("Kconfig", srctree=srctree, env={}, shell=StartedAhead(Slow(0.2)), info=lambda _t: None)
    plain = Kconfig("Kconfig", srctree=srctree, env={}, shell=Slow(0.0), info=lambda _t: None)
    assert taken == ["b/Kconfig", "c/Kconfig"]  # (m/Kconfig has a macro: lexed by the parse)
    assert [str(d) for d in ahead.diagnostics] == [str(d) for d in plain.diagnostics]
    assert len(plain.diagnostics) == 4
    assert configfile.config_text(ahead) == configfile.config_text(plain)
    assert ahead.lex_ahead is None
