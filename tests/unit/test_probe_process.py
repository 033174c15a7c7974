"""Probes run ahead in a worker process (kconfig_ls/kconfig/probe_process.py,
probe_worker.py), with real shell commands: every answer equals the one the
load would get running the command itself (output, environment, directory,
errors), each command runs once, the newest look-ahead goes first, a
command the load needs now does not wait for a busy worker, and a worker
that cannot start or dies costs nothing but time."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.preprocess import run_shell
from kconfig_ls.kconfig.probe_process import ProcessAnswer, WorkerProcess
from kconfig_ls.kconfig.probes import ProbeRunner
from kconfig_ls.kconfig.tree import Kconfig

COMMANDS = [
    "echo plain",
    "printf 'two\\nlines\\n\\n\\n'",  # (inner newlines become spaces, trailing ones go)
    "head -c 6000 /dev/zero | tr '\\0' x",  # (only the first 4095 bytes count)
    "printf '\\377\\376 not utf-8'",
    "echo \"$KCONFIG_LS_PROBE_TEST\" $HOME",
    "pwd",
    "exit 3",
    "echo to stderr >&2; echo out",
    "env | sort",
    "echo 'λ unicode'",
]


def environment(tmp_path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KCONFIG_LS_PROBE_TEST": "a value\u00e9",
            "HOME": str(tmp_path), "ODD": "surrogate \udcff"}


def wait_until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


def test_answers_from_the_worker_equal_running_each_command_here(tmp_path):
    env = environment(tmp_path)
    runner = ProbeRunner.for_shell(str(tmp_path), env)
    runner.prefetch(COMMANDS)
    assert isinstance(runner._queue, WorkerProcess)
    for command in COMMANDS:
        assert runner(command) == run_shell(command, cwd=str(tmp_path), env=env), command
    runner.finish()
    assert runner.used == len(COMMANDS)


def marker_commands(tmp_path, count: int) -> list[str]:
    """Commands that each leave a file behind, so their runs can be counted."""
    return [f"echo run >> {tmp_path}/ran-{i}; echo {i}" for i in range(count)]


def runs(tmp_path, count: int) -> list[int]:
    return [len((tmp_path / f"ran-{i}").read_text().split()) if (tmp_path / f"ran-{i}").exists() else 0
            for i in range(count)]


def gate(tmp_path) -> str:
    """A command that runs until the file ``open`` appears (it leaves the
    file ``taken`` when it starts)."""
    return (f"touch {tmp_path}/taken; while [ ! -e {tmp_path}/open ]; do sleep 0.01; done; "
            f"echo gated >> {tmp_path}/order; echo g")


def test_each_command_runs_once_and_the_newest_look_ahead_goes_first(tmp_path):
    runner = ProbeRunner.for_shell(str(tmp_path), {"PATH": os.environ["PATH"]}, workers=1)
    first = [gate(tmp_path)] + [f"echo a{i} >> {tmp_path}/order; echo a{i}" for i in range(3)]
    runner.prefetch(first)
    wait_until((tmp_path / "taken").exists)
    runner.prefetch([f"echo b >> {tmp_path}/order; echo b", first[2]])  # (a repeat is not put again)
    (tmp_path / "open").touch()
    order = tmp_path / "order"
    wait_until(lambda: order.exists() and len(order.read_text().split()) == 5)
    assert order.read_text().split() == ["gated", "b", "a0", "a1", "a2"]
    assert [runner(command) for command in first] == ["g", "a0", "a1", "a2"]
    runner.finish()
    assert runner.used == 4


def test_a_command_needed_now_does_not_wait_for_a_busy_worker(tmp_path):
    runner = ProbeRunner.for_shell(str(tmp_path), {"PATH": os.environ["PATH"]}, workers=1)
    commands = marker_commands(tmp_path, 3)
    runner.prefetch([gate(tmp_path)] + commands)
    wait_until((tmp_path / "taken").exists)
    opener = threading.Timer(4.0, (tmp_path / "open").touch)  # (without hurrying, the answer would wait for it)
    opener.start()
    try:
        started = time.monotonic()
        assert runner(commands[2]) == "2"  # (hurried: run beside the gated worker)
        assert runner.wait_for(commands[1]) == "1"
        assert time.monotonic() - started < 3
    finally:
        opener.join()
    assert runner(gate(tmp_path)) == "g"
    assert runner(commands[0]) == "0" and runner(commands[1]) == "1"
    runner.finish()
    assert runs(tmp_path, 3) == [1, 1, 1]


def test_finish_drops_what_no_worker_took(tmp_path):
    runner = ProbeRunner.for_shell(str(tmp_path), {"PATH": os.environ["PATH"]}, workers=1)
    commands = marker_commands(tmp_path, 5)
    runner.prefetch([gate(tmp_path)] + commands)
    wait_until((tmp_path / "taken").exists)
    worker: WorkerProcess = runner._queue
    runner.finish()
    worker._proc.wait(timeout=10)  # (it ends at once, the gated command left running on its own)
    (tmp_path / "open").touch()
    time.sleep(0.3)
    assert runs(tmp_path, 5) == [0] * 5
    assert runner(commands[0]) == "0"  # (asked for after all: run then, here)


def test_a_worker_that_cannot_start_leaves_the_work_to_threads_and_errors_as_before(tmp_path):
    missing = str(tmp_path / "no-such-directory")
    runner = ProbeRunner.for_shell(missing, {"PATH": os.environ["PATH"]})
    runner.prefetch(["echo a"])
    assert not isinstance(runner._queue, WorkerProcess)
    with pytest.raises(FileNotFoundError):
        run_shell("echo a", cwd=missing)
    with pytest.raises(FileNotFoundError):
        runner("echo a")
    runner.finish()


def test_a_command_the_worker_cannot_run_fails_here_as_it_would_have(tmp_path):
    env = {"PATH": os.environ["PATH"], "BAD": "nul\0inside"}  # (no process can have it)
    runner = ProbeRunner.for_shell(str(tmp_path), env)
    runner.prefetch(["echo a"])
    assert isinstance(runner._queue, WorkerProcess)
    with pytest.raises(ValueError):
        run_shell("echo a", cwd=str(tmp_path), env=env)
    with pytest.raises(ValueError):
        runner("echo a")
    runner.finish()


def test_a_worker_that_dies_costs_only_time(tmp_path):
    runner = ProbeRunner.for_shell(str(tmp_path), {"PATH": os.environ["PATH"]}, workers=1)
    commands = marker_commands(tmp_path, 4)
    runner.prefetch([gate(tmp_path)] + commands)
    worker: WorkerProcess = runner._queue
    os.kill(worker._proc.pid, signal.SIGKILL)
    worker._proc.wait()
    (tmp_path / "open").touch()
    assert [runner(command) for command in commands] == ["0", "1", "2", "3"]
    runner.prefetch(["echo after"])  # (to the dead worker: answered here)
    assert runner("echo after") == "after"
    runner.finish()
    assert runs(tmp_path, 4) == [1, 1, 1, 1]


def test_an_answer_is_ready_without_waiting_once_it_came(tmp_path):
    runner = ProbeRunner.for_shell(str(tmp_path), {"PATH": os.environ["PATH"]})
    runner.prefetch(["echo x"])
    answer: ProcessAnswer = runner._started["echo x"]
    wait_until(answer.done)
    assert answer.done() and answer.raw == b"x\n"
    assert runner("echo x") == "x"
    runner.finish()


def test_a_tree_loaded_with_the_worker_equals_one_running_each_command_when_asked(tmp_path):
    lines = ['probe = $(shell,echo $(1) >> ran; echo y)\n']
    for i in range(30):
        lines.append(f'config C{i}\n\tstring "c{i}"\n\tdefault "$(probe,{i})-$(shell,echo {i} | tr 0-9 a-j)"\n')
    (tmp_path / "Kconfig").write_text("".join(lines))
    env = {"PATH": os.environ["PATH"]}
    ahead = Kconfig("Kconfig", srctree=str(tmp_path), env=env)
    ran_ahead = sorted((tmp_path / "ran").read_text().split(), key=int)
    (tmp_path / "ran").unlink()
    plain = Kconfig("Kconfig", srctree=str(tmp_path), env=env,
                    shell=lambda command: run_shell(command, cwd=str(tmp_path), env=env))
    assert configfile.config_text(ahead) == configfile.config_text(plain)
    assert 'CONFIG_C17="y-bh"' in configfile.config_text(ahead)
    assert ran_ahead == (tmp_path / "ran").read_text().split() == [str(i) for i in range(30)]
