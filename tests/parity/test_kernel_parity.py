"""Byte-identical parity with `make ARCH=<arch> <mode>` on Linux 6.1.

The default run covers every arch with the five whole-tree modes and a
deterministic sample of 64 defconfigs (with savedefconfig); `-m sweep` runs
every defconfig of the tree.
"""

from __future__ import annotations

import pytest
from conftest import kernel_tree_path
from kernel_parity import (
    MODES,
    MakeFailed,
    all_arches,
    all_defconfigs,
    make_config,
    our_defconfig,
    our_mode,
    sample_defconfigs,
)

from kconfig_ls.kconfig.errors import KconfigError

pytestmark = pytest.mark.kernel

TREE = kernel_tree_path()
HAVE_TREE = (TREE / "scripts" / "kconfig" / "conf").is_file()
# Without a tree, one placeholder each: its test then fails (or is left out
# by KCONFIG_LS_NO_KERNEL) through the kernel_tree fixture.
ARCHES = all_arches(TREE) if HAVE_TREE else ["no-tree"]
SAMPLE = sample_defconfigs(TREE) if HAVE_TREE else [("no-tree", "no-tree")]
ALL_DEFCONFIGS = all_defconfigs(TREE) if HAVE_TREE else [("no-tree", "no-tree")]


@pytest.fixture(scope="session")
def build_root(tmp_path_factory):
    return tmp_path_factory.mktemp("kbuild")


def _diff(expected: bytes, actual: bytes) -> str:
    import difflib

    lines = difflib.unified_diff(
        expected.decode(errors="replace").splitlines(), actual.decode(errors="replace").splitlines(),
        "make (C tool)", "kconfig-ls", lineterm="", n=1,
    )
    return "\n".join(list(lines)[:40])


_KNOWN_GAPS: set[tuple[str, str]] = set()


def _arch_mode_param(arch: str, mode: str):
    # One xdist worker takes all modes of an arch, so the tree is parsed once.
    marks = [pytest.mark.xdist_group(arch)]
    if (arch, mode) in _KNOWN_GAPS:
        marks.append(pytest.mark.xfail(strict=True, reason="known gap"))
    return pytest.param(arch, mode, marks=marks, id=f"{arch}-{mode}")


ARCH_MODES = [_arch_mode_param(arch, mode) for arch in ARCHES for mode in MODES]


@pytest.mark.parametrize(("arch", "mode"), ARCH_MODES)
def test_whole_tree_modes(kernel_tree, build_root, arch, mode):
    expected = make_config(kernel_tree, build_root / arch, arch, [mode])
    actual = our_mode(kernel_tree, arch, mode)
    assert actual == expected, f"ARCH={arch} {mode}:\n{_diff(expected, actual)}"


def _check_defconfig(kernel_tree, build_root, arch, name):
    build = build_root / ("def-" + arch)
    try:
        expected = make_config(kernel_tree, build, arch, [name])
    except MakeFailed:
        # The arch Makefile refuses this target (mips generic_defconfig): so must we.
        with pytest.raises(KconfigError):
            our_defconfig(kernel_tree, arch, name)
        return
    expected_min = make_config(kernel_tree, build, arch, ["savedefconfig"], "defconfig")
    actual, actual_min = our_defconfig(kernel_tree, arch, name)
    assert actual == expected, f"ARCH={arch} make {name}:\n{_diff(expected, actual)}"
    assert actual_min == expected_min, f"ARCH={arch} {name} savedefconfig:\n{_diff(expected_min, actual_min)}"


def _defconfig_params(pairs):
    return [pytest.param(a, n, marks=[pytest.mark.xdist_group(a)], id=f"{a}:{n}") for a, n in pairs]


@pytest.mark.parametrize(("arch", "name"), _defconfig_params(SAMPLE))
def test_defconfig_sample(kernel_tree, build_root, arch, name):
    _check_defconfig(kernel_tree, build_root, arch, name)


@pytest.mark.sweep
@pytest.mark.parametrize(("arch", "name"), _defconfig_params(ALL_DEFCONFIGS))
def test_every_defconfig(kernel_tree, build_root, arch, name):
    _check_defconfig(kernel_tree, build_root, arch, name)


MERGED = [("powerpc", "ppc64le_defconfig"), ("powerpc", "mpc85xx_smp_defconfig"), ("riscv", "rv32_defconfig"),
          ("mips", "32r6_defconfig"), ("mips", "xilfpga_defconfig")]


@pytest.mark.parametrize(("arch", "name"), _defconfig_params(MERGED))
def test_defconfig_targets_arch_makefiles_generate(kernel_tree, build_root, arch, name):
    """Targets an arch Makefile builds from fragments rather than a file."""
    _check_defconfig(kernel_tree, build_root, arch, name)


@pytest.mark.parametrize(
    ("arch", "fragments"),
    [
        pytest.param("x86_64", ["kvm_guest.config"], marks=[pytest.mark.xdist_group("x86_64")]),
        pytest.param("arm64", ["nopm.config"], marks=[pytest.mark.xdist_group("arm64")]),
    ],
)
def test_defconfig_with_fragments(kernel_tree, build_root, arch, fragments):
    build = build_root / ("frag-" + arch)
    expected = make_config(kernel_tree, build, arch, ["defconfig", *fragments])
    from kconfig_ls.kconfig.kernel import kernel_env

    ke = kernel_env(str(kernel_tree), arch)
    actual, _ = our_defconfig(kernel_tree, arch, ke.defconfig, fragments)
    assert actual == expected, f"ARCH={arch} defconfig {' '.join(fragments)}:\n{_diff(expected, actual)}"
