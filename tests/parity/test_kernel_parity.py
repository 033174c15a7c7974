"""Byte-identical parity with `make ARCH=<arch> <mode>` on each kernel tree,
against that tree's own C tool (Linux 6.1, and 6.12 with the member-choice
generation of kconfig).

The default run covers every arch of each tree with the five whole-tree
modes, a deterministic sample of defconfigs (with savedefconfig), merged
defconfig targets and fragments; `-m sweep` runs every defconfig of each
tree.
"""

from __future__ import annotations

import pytest
from conftest import GENERATIONS, kernel_tree_path, require_kernel
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

#: How many defconfigs of each tree the default run samples.
SAMPLE_SIZE = {"6.1": 64, "6.12": 32}


def _have(version: str) -> bool:
    return (kernel_tree_path(version) / "scripts" / "kconfig" / "conf").is_file()


def _per_tree(pairs_of_tree) -> list:
    """(version, *item) for every tree; without a tree, one placeholder
    whose test then fails (or is left out by KCONFIG_LS_NO_KERNEL) through
    require_kernel."""
    out = []
    for version in GENERATIONS:
        items = pairs_of_tree(version, kernel_tree_path(version)) if _have(version) else [("no-tree", "no-tree")]
        out.extend((version, *item) for item in items)
    return out


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


def _group(version: str, arch: str):
    # One xdist worker takes all tests of a tree's arch, so it is parsed once.
    return pytest.mark.xdist_group(f"{version}-{arch}")


ARCH_MODES = [
    pytest.param(version, arch, mode, marks=[_group(version, arch)], id=f"{version}-{arch}-{mode}")
    for version, arch, mode in _per_tree(
        lambda _v, tree: [(arch, mode) for arch in all_arches(tree) for mode in MODES])
]


@pytest.mark.parametrize(("version", "arch", "mode"), ARCH_MODES)
def test_whole_tree_modes(build_root, version, arch, mode):
    kernel_tree = require_kernel(version)
    expected = make_config(kernel_tree, build_root / version / arch, arch, [mode])
    actual = our_mode(kernel_tree, arch, mode)
    assert actual == expected, f"Linux {version} ARCH={arch} {mode}:\n{_diff(expected, actual)}"


def _check_defconfig(version, build_root, arch, name):
    kernel_tree = require_kernel(version)
    build = build_root / version / ("def-" + arch)
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


def _defconfig_params(triples):
    return [pytest.param(v, a, n, marks=[_group(v, a)], id=f"{v}-{a}:{n}") for v, a, n in triples]


@pytest.mark.parametrize(("version", "arch", "name"), _defconfig_params(
    _per_tree(lambda v, tree: sample_defconfigs(tree, SAMPLE_SIZE[v]))))
def test_defconfig_sample(build_root, version, arch, name):
    _check_defconfig(version, build_root, arch, name)


@pytest.mark.sweep
@pytest.mark.parametrize(("version", "arch", "name"),
                         _defconfig_params(_per_tree(lambda _v, tree: all_defconfigs(tree))))
def test_every_defconfig(build_root, version, arch, name):
    _check_defconfig(version, build_root, arch, name)


MERGED = [("powerpc", "ppc64le_defconfig"), ("powerpc", "mpc85xx_smp_defconfig"), ("riscv", "rv32_defconfig"),
          ("mips", "32r6_defconfig"), ("mips", "xilfpga_defconfig")]


@pytest.mark.parametrize(("version", "arch", "name"), _defconfig_params(
    (v, a, n) for v in GENERATIONS for a, n in MERGED))
def test_defconfig_targets_arch_makefiles_generate(build_root, version, arch, name):
    """Targets an arch Makefile builds from fragments rather than a file."""
    _check_defconfig(version, build_root, arch, name)


@pytest.mark.parametrize(
    ("version", "arch", "fragments"),
    [
        pytest.param(v, arch, fragments, marks=[_group(v, arch)], id=f"{v}-{arch}-{fragments[0]}")
        for v in GENERATIONS for arch, fragments in (("x86_64", ["kvm_guest.config"]), ("arm64", ["nopm.config"]))
    ],
)
def test_defconfig_with_fragments(build_root, version, arch, fragments):
    kernel_tree = require_kernel(version)
    build = build_root / version / ("frag-" + arch)
    expected = make_config(kernel_tree, build, arch, ["defconfig", *fragments])
    from kconfig_ls.kconfig.kernel import kernel_env

    ke = kernel_env(str(kernel_tree), arch)
    actual, _ = our_defconfig(kernel_tree, arch, ke.defconfig, fragments)
    assert actual == expected, f"ARCH={arch} defconfig {' '.join(fragments)}:\n{_diff(expected, actual)}"
