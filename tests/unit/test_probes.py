"""Commands started ahead (kconfig_ls/kconfig/probes.py): the look-ahead
finds what the rest of a file would run, and nothing that is not run (help
texts, comments); it changes nothing of the macro state; every command
still runs once, and a load gives what a load running each command when
asked gives; an untrusted tree runs nothing, ahead or not."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from kconfig_ls.ide.project import ShellPolicy
from kconfig_ls.kconfig import configfile, probes
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
    assert list(commands_ahead(FILE, 0, 1, "Kconfig", pp, None)) == ["probe one", "echo two", "probe three"]
    assert {name: (v.value, v.recursive) for name, v in pp.variables.items()} == before
    assert printed == []


def test_the_look_ahead_starts_where_it_is_asked_and_stops_at_an_error():
    pp = macro_state()
    start = FILE.index("FLAG := three")
    assert list(commands_ahead(FILE, start, 12, "Kconfig", pp, None)) == ["probe three"]
    broken = "config X\n\tdefault $(probe,a)\n\tdefault $(unterminated\n\tdefault $(probe,b)\n"
    assert list(commands_ahead(broken, 0, 1, "Kconfig", pp, None)) == ["probe a"]


def test_a_command_run_ahead_runs_once_and_answers_its_own_call():
    counting = Counting(delay=0.01)
    runner = ProbeRunner(counting)
    runner.prefetch(["probe a", "probe b", "probe a"])
    assert not runner.needs_run("probe a") and runner.needs_run("probe c")
    wait_until(lambda: len(counting.runs) == 2)  # (asked for before a worker took it, it would run in line)
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


class Prefetching(ProbeRunner):
    """A runner that records each look-ahead's commands.  (Whether a worker
    takes one before the parse asks for it is up to the threads' schedule;
    which are handed to the workers is not.)"""

    def __init__(self, run):
        super().__init__(run)
        self.batches: list[list[str]] = []

    def prefetch(self, commands):
        batch = list(commands)
        self.batches.append(batch)
        super().prefetch(batch)


def test_a_load_running_ahead_equals_one_running_each_command_when_asked(tmp_path):
    counting = Counting(delay=0.01)
    runner = Prefetching(counting)
    ahead = load(tmp_path, runner)
    plain_runs = Counting()
    plain = load(tmp_path, plain_runs)
    assert configfile.config_text(ahead) == configfile.config_text(plain)
    assert counting.runs == plain_runs.runs == {"probe one": 1, "echo two": 1, "probe three": 1}
    assert runner.batches == [["probe one", "echo two", "probe three"]]  # (the first starts the rest)
    assert runner.used <= 3
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
    assert cache.runs == 2
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


# -- the look-ahead through the rest of the tree, and answers it waits for ---

LATER = "config L\n\tdef_bool $(probe,$(FLAG))\nconfig M\n\tbool \"m\"\n"


def test_the_look_ahead_goes_on_into_the_files_sourced_later_with_the_macro_state_carried():
    pp = macro_state()
    asked = []

    def later_files(current: str, expand):
        asked.append((current, expand("$(FLAG)")))
        return [("later/Kconfig", LATER), ("plain/Kconfig", "config P\n\tbool\n")]

    found = list(commands_ahead(FILE, FILE.index("FLAG := three"), 12, "Kconfig", pp, None, later_files))
    assert found == ["probe three", "probe three"]  # (the later file sees FLAG := three)
    assert asked == [("Kconfig", "three")]


def test_a_command_built_on_an_answer_is_not_guessed():
    pp = macro_state()
    text = ("CC_NAME := $(shell,cc-name)\n"
            "config GCC\n\tdef_bool $(shell,test $(CC_NAME) = GCC && echo y)\n"
            "config VERSION\n\tint\n\tdefault $(shell,echo $(probe,x))\n")
    assert list(commands_ahead(text, 0, 1, "Kconfig", pp, None)) == ["cc-name", "probe x"]


def test_an_answer_assigned_in_the_current_file_is_waited_for_not_in_later_ones():
    pp = macro_state()
    answers = []

    def answer(command: str) -> str:
        answers.append(command)
        return "GCC"

    text = "CC_NAME := $(shell,cc-name)\nconfig GCC\n\tdef_bool $(shell,test $(CC_NAME) = GCC)\n"
    later = "V := $(shell,cc-version)\nconfig NEW\n\tdef_bool $(shell,test $(V) -gt 10)\n"
    found = list(commands_ahead(text, 0, 1, "Kconfig", pp, None, lambda _c, _e: [("later", later)], answer))
    assert found == ["cc-name", "test GCC = GCC", "cc-version"]
    assert answers == ["cc-name"]
    assert "CC_NAME" not in pp.variables  # (the parse's own state is untouched)


def test_commands_that_need_no_answer_come_before_the_waits_for_answers():
    pp = macro_state()
    events = []

    def answer(command: str) -> str:
        events.append(("waited for", command))
        return command.upper()

    text = ("CC_INFO := $(shell,cc-info)\n"
            "CC_NAME := $(shell,name-of $(CC_INFO))\n"
            "AS_INFO := $(shell,as-info)\n"
            "config A\n\tdef_bool $(probe,$(CC_NAME))\n"
            "config B\n\tdef_bool $(probe,plain)\n")
    for command in commands_ahead(text, 0, 1, "Kconfig", pp, None, None, answer):
        events.append(("found", command))
    assert events == [
        ("found", "cc-info"), ("found", "as-info"), ("found", "probe plain"),  # (run side by side at once)
        ("waited for", "cc-info"), ("waited for", "name-of CC-INFO"), ("found", "name-of CC-INFO"),
        ("waited for", "as-info"), ("found", "probe NAME-OF CC-INFO"),  # (each found once)
    ]


class Gated(Counting):
    """A runner whose first command waits for ``release``; records the order
    the commands ran in."""

    def __init__(self):
        super().__init__()
        self.release = threading.Event()
        self.order: list[str] = []

    def __call__(self, command: str) -> str:
        if not self.order:
            self.order.append(command)
            self.release.wait(5)
        else:
            with self.lock:
                self.order.append(command)
        return super().__call__(command)


def wait_until(condition) -> None:
    deadline = time.monotonic() + 5
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


def test_the_latest_look_ahead_goes_first():
    gated = Gated()
    runner = ProbeRunner(gated, workers=1)
    runner.prefetch(["probe a1", "probe a2", "probe a3"])
    wait_until(lambda: gated.order)
    runner.prefetch(["probe b1", "probe a2"])
    gated.release.set()
    wait_until(lambda: len(gated.order) == 4)
    assert gated.order == ["probe a1", "probe b1", "probe a2", "probe a3"]
    assert [runner(c) for c in ("probe a1", "probe a2", "probe a3", "probe b1")] == ["y"] * 4
    runner.finish()
    assert runner.used == 4 and set(gated.runs.values()) == {1}


def test_a_command_asked_for_before_a_worker_took_it_runs_in_line_once():
    gated = Gated()
    runner = ProbeRunner(gated, workers=1)
    runner.prefetch(["probe slow", "probe queued"])
    wait_until(lambda: gated.order)
    assert runner("probe queued") == "y"  # (the worker is busy: not waited for)
    gated.release.set()
    assert runner("probe slow") == "y"
    runner.finish()
    time.sleep(0.05)
    assert gated.runs == {"probe slow": 1, "probe queued": 1}
    assert runner.used == 1


def test_an_answer_waited_for_ahead_runs_once_and_serves_the_parse():
    counting = Counting()
    runner = ProbeRunner(counting)
    assert runner.wait_for("echo v") == "ECHO V"
    assert runner.wait_for("echo v") == "ECHO V"
    assert not runner.needs_run("echo v")
    assert runner("echo v") == "ECHO V"
    runner("probe asked")
    runner.prefetch(["probe asked", "echo v"])  # (asked before: not run again)
    runner.finish()
    assert counting.runs == {"echo v": 1, "probe asked": 1}
    assert runner.used == 1


def test_a_failing_command_fails_its_own_call_not_the_look_ahead():
    def failing(command: str) -> str:
        raise OSError(f"cannot run {command}")

    runner = ProbeRunner(failing)
    runner.prefetch(["probe x"])
    with pytest.raises(OSError, match="probe x"):
        runner("probe x")
    runner.finish()


def test_a_load_looks_ahead_through_the_files_it_sources_later(tmp_path):
    (tmp_path / "Kconfig").write_text('probe = $(shell,probe $(1))\nFLAG := zero\n' + FILE
                                      + 'source "sub/Kconfig"\nsource "$(FLAG)/Kconfig"\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "Kconfig").write_text("config S\n\tbool\n")
    (tmp_path / "three").mkdir()
    (tmp_path / "three" / "Kconfig").write_text(LATER + "config T\n\tstring \"t\"\n\tdefault \"$(shell,echo t)\"\n")
    counting = Counting(delay=0.01)
    runner = Prefetching(counting)
    ahead = Kconfig("Kconfig", srctree=str(tmp_path), env={}, shell=runner, info=lambda _t: None)
    plain_runs = Counting()
    plain = Kconfig("Kconfig", srctree=str(tmp_path), env={}, shell=plain_runs, info=lambda _t: None)
    assert configfile.config_text(ahead) == configfile.config_text(plain)
    assert counting.runs == plain_runs.runs == {"probe one": 1, "echo two": 1, "probe three": 2, "echo t": 1}
    # (the first command's look-ahead found the later file's; the later
    # file's own look-ahead finds nothing new to start)
    assert runner.batches == [["probe one", "echo two", "probe three", "probe three", "echo t"],
                              ["probe three", "echo t"]]
    assert ahead._read_ahead == {}


def test_the_switch_interval_is_short_while_probes_run_ahead_and_put_back_after():
    default = sys.getswitchinterval()
    first, second = ProbeRunner(Counting()), ProbeRunner(Counting())
    first.prefetch(["probe a"])
    assert sys.getswitchinterval() == min(default, probes.SWITCH_INTERVAL)
    second.prefetch(["probe b"])  # (two loads at once, as in the server)
    first.finish()
    assert sys.getswitchinterval() == min(default, probes.SWITCH_INTERVAL)
    second.finish()
    second.finish()  # (twice: nothing more put back)
    assert sys.getswitchinterval() == default
    sys.setswitchinterval(probes.SWITCH_INTERVAL / 2)  # (already shorter: kept)
    try:
        third = ProbeRunner(Counting())
        third.prefetch(["probe c"])
        assert sys.getswitchinterval() == probes.SWITCH_INTERVAL / 2
        third.finish()
        assert sys.getswitchinterval() == probes.SWITCH_INTERVAL / 2
    finally:
        sys.setswitchinterval(default)


def test_the_load_works_while_it_waits_for_a_command_started_ahead():
    gated = Gated()
    runner = ProbeRunner(gated)
    pieces = []

    def work() -> bool:
        pieces.append(len(pieces))
        if len(pieces) == 3:
            gated.release.set()  # (the answer comes after three pieces of work)
        return len(pieces) < 5

    runner.while_waiting(work)
    runner.prefetch(["probe slow"])
    wait_until(lambda: gated.order)
    assert runner("probe slow") == "y"
    assert 3 <= len(pieces) <= 5  # (until the answer came, or the work ran out)
    done = len(pieces)
    runner.prefetch(["probe done"])
    wait_until(lambda: runner._started["probe done"].done())
    assert runner("probe done") == "y" and len(pieces) == done  # (no wait: no work)
    runner.finish()
