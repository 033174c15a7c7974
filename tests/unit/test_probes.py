"""Commands started ahead (kconfig_ls/kconfig/probes.py): the look-ahead
finds what the rest of a file would run, and nothing that is not run (help
texts, comments); it changes nothing of the macro state; every command
still runs once, and a load gives what a load running each command when
asked gives; an untrusted tree runs nothing, ahead or not."""

from __future__ import annotations

import threading
import time

from kconfig_ls.ide.project import ShellPolicy
from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.preprocess import Preprocessor
from kconfig_ls.kconfig.probes import ProbeRunner, Probes, commands_ahead
from kconfig_ls.kconfig.shell_cache import ShellCache
from kconfig_ls.kconfig.tree import Kconfig

FILE = """\
FLAG := two
config A
\tbool "a"
\tdefault $(probe,one)
\thelp
\t  Not expanded: $(shell,help-text).

# Nor a comment: $(shell,comment)
config B
\tstring "b"
\tdefault "$(shell,echo $(FLAG))"
FLAG := three
config C
\tdef_bool $(probe,$(FLAG))
$(info,not printed ahead)
"""


class Counting:
    """A runner that answers after a while and counts each command's runs."""

    def __init__(self, delay: float = 0.0):
        self.delay = delay
        self.runs: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, command: str) -> str:
        time.sleep(self.delay)
        with self.lock:
            self.runs[command] = self.runs.get(command, 0) + 1
        return "y" if command.startswith("probe") else command.upper()


def macro_state() -> Preprocessor:
    pp = Preprocessor(env={}, shell=lambda _c: "", info=lambda _t: None)
    pp.assign("probe", "$(shell,probe $(1))", "=")
    pp.assign("FLAG", "zero", ":=")
    return pp


def test_the_look_ahead_finds_what_the_lines_would_run_and_only_that():
    pp = macro_state()
    before = {name: (v.value, v.recursive) for name, v in pp.variables.items()}
    printed = []
    pp.info = printed.append
    assert commands_ahead(FILE, 0, 1, "Kconfig", pp, None) == ["probe one", "echo two", "probe three"]
    assert {name: (v.value, v.recursive) for name, v in pp.variables.items()} == before
    assert printed == []


def test_the_look_ahead_starts_where_it_is_asked_and_stops_at_an_error():
    pp = macro_state()
    start = FILE.index("FLAG := three")
    assert commands_ahead(FILE, start, 12, "Kconfig", pp, None) == ["probe three"]
    broken = "config X\n\tdefault $(probe,a)\n\tdefault $(unterminated\n\tdefault $(probe,b)\n"
    assert commands_ahead(broken, 0, 1, "Kconfig", pp, None) == ["probe a"]


def test_a_command_run_ahead_runs_once_and_answers_its_own_call():
    counting = Counting(delay=0.01)
    runner = ProbeRunner(counting)
    runner.prefetch(["probe a", "probe b", "probe a"])
    assert not runner.needs_run("probe a") and runner.needs_run("probe c")
    assert runner("probe b") == "y" and runner("probe a") == "y" and runner("echo c") == "ECHO C"
    runner.finish()
    assert counting.runs == {"probe a": 1, "probe b": 1, "echo c": 1}
    assert runner.used == 2


def test_finish_drops_what_was_never_asked_for():
    counting = Counting(delay=0.05)
    runner = ProbeRunner(counting, workers=1)
    runner.prefetch([f"probe {i}" for i in range(20)])
    runner.finish()
    time.sleep(0.2)
    assert sum(counting.runs.values()) < 20
    assert runner("probe 19") == "y"  # (asked for after all: run then)


def load(tmp_path, shell) -> Kconfig:
    (tmp_path / "Kconfig").write_text('probe = $(shell,probe $(1))\nFLAG := zero\n' + FILE)
    return Kconfig("Kconfig", srctree=str(tmp_path), env={}, shell=shell, info=lambda _t: None)


def test_a_load_running_ahead_equals_one_running_each_command_when_asked(tmp_path):
    counting = Counting(delay=0.01)
    runner = ProbeRunner(counting)
    ahead = load(tmp_path, runner)
    plain_runs = Counting()
    plain = load(tmp_path, plain_runs)
    assert configfile.config_text(ahead) == configfile.config_text(plain)
    assert counting.runs == plain_runs.runs == {"probe one": 1, "echo two": 1, "probe three": 1}
    assert runner.used == 3  # (all three ran ahead: the first starts the rest)
    assert ahead.pp.probes is None and ahead.pp.commands_ahead is None  # (nothing left for a snapshot)


def test_the_shell_cache_runs_ahead_only_what_it_cannot_answer(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Kconfig").write_text('config A\n\tstring "a"\n\tdefault "$(shell,echo one)"\n'
                                  'config B\n\tstring "b"\n\tdefault "$(shell,echo two)"\n')
    cache = ShellCache(str(tree), env)
    assert isinstance(cache, Probes)
    first = Kconfig("Kconfig", srctree=str(tree), env=env, shell=cache)
    cache.save()
    assert cache.runs == 2 and cache._runner.used == 2
    again = ShellCache(str(tree), env)
    second = Kconfig("Kconfig", srctree=str(tree), env=env, shell=again)
    assert again.runs == 0 and again._runner.used == 0 and not again.needs_run("echo one")
    assert configfile.config_text(first) == configfile.config_text(second)
    assert 'CONFIG_B="two"' in configfile.config_text(second)


def test_an_untrusted_tree_runs_nothing_ahead(tmp_path):
    policy = ShellPolicy(False, str(tmp_path), {})
    assert not policy.needs_run("probe a")
    policy.prefetch(["probe a"])
    kc = load(tmp_path, policy)
    assert policy.denied == ["probe one", "echo two", "probe three"]
    assert kc.find("C").type is not None
