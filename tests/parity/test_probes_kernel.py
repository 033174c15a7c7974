"""Probes started ahead on the real tree (x86_64, arm64, riscv): a cold load
runs each command the parse asks for exactly once, runs nothing it does not
ask for, starts most of them ahead (the tree-wide look-ahead), and gives the
bytes of a load that runs each command only when asked."""

from __future__ import annotations

import threading

import pytest

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.kernel import kernel_env
from kconfig_ls.kconfig.preprocess import run_shell
from kconfig_ls.kconfig.probes import ProbeRunner
from kconfig_ls.kconfig.tree import Kconfig

pytestmark = [pytest.mark.kernel]


class Recording:
    """Runs commands for real and counts each one's runs (from any thread)."""

    def __init__(self, srctree: str, env: dict[str, str]):
        self.srctree, self.env = srctree, env
        self.runs: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, command: str) -> str:
        out = run_shell(command, cwd=self.srctree, env=self.env)
        with self.lock:
            self.runs[command] = self.runs.get(command, 0) + 1
        return out


@pytest.mark.parametrize("arch", ["x86_64", "arm64", "riscv"])
def test_a_cold_load_runs_every_probe_once_and_most_ahead(kernel_tree, arch):
    ke = kernel_env(str(kernel_tree), arch)
    plain = Recording(str(kernel_tree), ke.env)
    asked_in_order = Kconfig(ke.kconfig, srctree=str(kernel_tree), env=ke.env, shell=plain, info=lambda _t: None)
    recording = Recording(str(kernel_tree), ke.env)
    runner = ProbeRunner(recording)
    ahead = Kconfig(ke.kconfig, srctree=str(kernel_tree), env=ke.env, shell=runner, info=lambda _t: None)
    assert configfile.config_text(ahead) == configfile.config_text(asked_in_order)
    assert len(plain.runs) > 20
    # (as many runs of each command as the parse asks for: none twice, none for nothing)
    assert recording.runs == plain.runs
    assert runner.used >= 0.8 * len(plain.runs)
