"""how_to on the real Linux 6.1 x86_64 tree, checked by the C tool.

For each symbol, the answer's assignments are written into the base config
(allnoconfig's or defconfig's ``.config``, as made by ``make``) and
``make olddefconfig`` runs on it: the C tool must give the target value.
Targets that cannot be reached must say why, naming the cause.
"""

from __future__ import annotations

import shutil

import pytest
from kernel_parity import load, make_config

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.explain import explain
from kconfig_ls.kconfig.howto import how_to
from kconfig_ls.kconfig.scenario import config_with

pytestmark = [pytest.mark.kernel, pytest.mark.xdist_group("howto-x86_64")]

ARCH = "x86_64"

#: (base config, symbol, target): deep options that need several others.
REACHABLE = [
    ("allnoconfig", "E1000", "y"),
    ("allnoconfig", "E1000", "m"),
    ("allnoconfig", "IWLWIFI", "m"),
    ("allnoconfig", "BT_HCIBTUSB", "m"),
    ("allnoconfig", "SND_HDA_INTEL", "m"),
    ("allnoconfig", "DRM_AMDGPU", "m"),
    ("allnoconfig", "USB_STORAGE", "y"),
    ("allnoconfig", "VIRTIO_BLK", "y"),
    ("allnoconfig", "NFS_FS", "y"),
    ("allnoconfig", "KVM_INTEL", "y"),
    ("allnoconfig", "SERIAL_8250_CONSOLE", "y"),
    ("allnoconfig", "DEBUG_INFO_DWARF5", "y"),
    ("allnoconfig", "X86_X2APIC", "y"),
    ("allnoconfig", "ATH10K_AHB", "y"),
    ("allnoconfig", "VIDEO_CX231XX_ALSA", "y"),
    ("allnoconfig", "IWLEGACY_DEBUGFS", "y"),
    ("allnoconfig", "SND_SOC_INTEL_KBL_RT5663_MAX98927_MACH", "y"),
    ("allnoconfig", "HZ_1000", "y"),
    ("allnoconfig", "NR_CPUS", "64"),
    ("allnoconfig", "NR_CPUS", "8192"),
    ("allnoconfig", "LOCALVERSION", "-kconfig-ls"),
    ("defconfig", "IXGBE", "m"),
    ("defconfig", "BLOCK", "n"),
    ("defconfig", "CRC32", "n"),
    ("defconfig", "HZ_100", "y"),
]

#: (base, symbol, target, a word the reason must contain).
UNREACHABLE = [
    ("allnoconfig", "X86_32", "y", "64BIT"),
    ("allnoconfig", "HIGHMEM64G", "y", "X86_32"),
    ("defconfig", "NR_CPUS", "9000", "range"),
    ("allnoconfig", "APM_ALLOW_INTS", "y", "X86_32"),
    ("allnoconfig", "ZLIB_DFLTCC", "y", "S390"),
]


@pytest.fixture(scope="module")
def bases(kernel_tree, tmp_path_factory):
    root = tmp_path_factory.mktemp("howto-bases")
    return {mode: make_config(kernel_tree, root / mode, ARCH, [mode]).decode() for mode in ("allnoconfig", "defconfig")}


@pytest.fixture(scope="module")
def kc(kernel_tree):
    return load(kernel_tree, ARCH)


def c_olddefconfig(kernel_tree, build, text: str) -> str:
    if build.exists():
        shutil.rmtree(build)
    build.mkdir(parents=True)
    (build / ".config").write_text(text)
    return make_config(kernel_tree, build, ARCH, ["olddefconfig"]).decode()


def value_in(config: str, name: str) -> str:
    for line in config.splitlines():
        if line.startswith(f"CONFIG_{name}="):
            return line.split("=", 1)[1].strip('"')
        if line == f"# CONFIG_{name} is not set":
            return "n"
    return "n"


@pytest.mark.parametrize(("base", "name", "target"), REACHABLE, ids=[f"{b}-{n}={t}" for b, n, t in REACHABLE])
def test_how_to_answer_holds_in_the_c_tool(kernel_tree, tmp_path, bases, kc, base, name, target):
    text = bases[base]
    configfile.read_config(kc, "base", text=text)
    sym = kc.find(name)
    before = sym.value
    assert value_in(text, name) != target, "the case must need a change"
    answer = how_to(kc, sym, target, text)
    assert answer.reachable and answer.verified, answer.reason
    assert answer.assignments and len(answer.assignments) <= 15
    assert sym.value == before, "the search must leave the loaded values alone"
    produced = c_olddefconfig(kernel_tree, tmp_path / "build", config_with(kc, text, answer.assignments))
    assert value_in(produced, name) == target, answer.assignments


@pytest.mark.parametrize(("base", "name", "target", "cause"), UNREACHABLE,
                         ids=[f"{b}-{n}={t}" for b, n, t, _ in UNREACHABLE])
def test_unreachable_targets_name_the_cause(bases, kc, base, name, target, cause):
    configfile.read_config(kc, "base", text=bases[base])
    answer = how_to(kc, kc.find(name), target, bases[base])
    assert not answer.reachable and not answer.assignments
    assert any(cause in b for b in answer.blockers), answer.blockers


def test_explain_names_leaves_with_locations(bases, kc):
    configfile.read_config(kc, "base", text=bases["allnoconfig"])
    ex = explain(kc, kc.find("E1000"))
    assert ex.value == "n"
    leaves = {leaf.text: leaf for leaf in ex.leaves}
    assert "PCI [=n]" in leaves and "NETDEVICES [=n]" in leaves
    assert leaves["PCI [=n]"].symbols[0].definitions == [("drivers/pci/Kconfig", 16)]
    assert ex.prompts[0].file == "drivers/net/ethernet/intel/Kconfig"
