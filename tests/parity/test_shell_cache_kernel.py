"""The shell cache on the real tree: a warm load runs no command and gives
the same bytes as a load that ran every probe (x86_64, arm64, riscv)."""

from __future__ import annotations

import pytest

from kconfig_ls.kconfig import configfile, shell_cache
from kconfig_ls.kconfig.defconfigs import apply_defconfig
from kconfig_ls.kconfig.kernel import kernel_env, srcarch_for
from kconfig_ls.kconfig.shell_cache import ShellCache
from kconfig_ls.kconfig.tree import Kconfig

pytestmark = [pytest.mark.kernel]


def defconfig_text(tree, arch: str, shell) -> str:
    ke = kernel_env(str(tree), arch)
    kc = Kconfig(ke.kconfig, srctree=str(tree), env=ke.env, shell=shell)
    apply_defconfig(kc, str(tree), srcarch_for(arch), ke.defconfig)
    return configfile.config_text(kc)


@pytest.mark.parametrize("arch", ["x86_64", "arm64", "riscv"])
def test_warm_load_runs_nothing_and_matches_the_cold_one(kernel_tree, tmp_path, monkeypatch, arch):
    monkeypatch.delenv(shell_cache.NO_CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # Without the cache: every probe runs, as the C tool does.
    cold = defconfig_text(kernel_tree, arch, None)
    env = kernel_env(str(kernel_tree), arch).env
    first = ShellCache(str(kernel_tree), env)
    assert defconfig_text(kernel_tree, arch, first) == cold
    first.save()
    assert first.runs > 20 and first.hits >= 0
    warm = ShellCache(str(kernel_tree), env)
    assert defconfig_text(kernel_tree, arch, warm) == cold
    assert warm.runs == 0 and warm.hits >= first.runs
