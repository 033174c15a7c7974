"""Thirty real "why" questions, each with the facts its answer must give.

Each case is a symbol on Linux 6.1 under a ``.config`` made by the C tool
(``make ARCH=... <mode>``; "empty": no ``.config``), sometimes with lines a user added; the answer
(``kconfig-ls why`` text) must hold every listed fact, its first sentence
must hold the listed summary facts, and its structured form must have the
listed reason kinds.  The facts were checked by hand against the Kconfig
sources and the C tool's ``.config``.
"""

from __future__ import annotations

import pytest
from explain_audit import SourceFacts
from kernel_parity import load, make_config

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.explain import explain
from kconfig_ls.kconfig.explain_report import explanation_markdown, explanation_text

pytestmark = [pytest.mark.kernel]

#: (arch, mode, added config lines, symbol, value, summary facts, text facts, reason kinds)
GOLDEN = [
    # Contradictions the first audit found: selected symbols that were said to have no selector.
    ("x86_64", "defconfig", [], "842_COMPRESS", "n",
     ["no prompt", "its only selector CRYPTO_842 is n — you can set it"],
     ["CRYPTO_842 [=n] if CRYPTO [=y] (crypto/Kconfig:1184)", "CRYPTO_842 is n: you can set it to m"],
     ["no-prompt", "selects-off", "settable"]),
    ("x86_64", "defconfig", ["# CONFIG_CRC32 is not set"], "CRC32", "y",
     ["select it, so your n does not stick", "ACPI, HIBERNATION, XZ_DEC and 14 more"],
     ["selected by 17 symbols that are on", "ACPI is y: you can set it to n (drivers/acpi/Kconfig:9)",
      "193 other selects of it are off"],
     ["user-overridden", "selected"]),
    ("x86_64", "defconfig", [], "HAVE_FUNCTION_GRAPH_TRACER", "n",
     ["X86 selects it only if X86_32 [=n] || X86_64 [=y] && DYNAMIC_FTRACE [=n], which is n"],
     ["(arch/x86/Kconfig:216): the condition is n", "FUNCTION_TRACER is n: you can set it to y"],
     ["selects-off", "select-line"]),
    ("x86_64", "allnoconfig", [], "DEBUG_INFO", "n",
     ["the selects that could turn it on are off (DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT"],
     ['the choice "Debug information" is hidden: it needs DEBUG_KERNEL [=n]',
      "DEBUG_KERNEL is n: you can set it to y (lib/Kconfig.debug:211)"],
     ["selects-off", "choice-hidden"]),
    # Choices: the member picked, by the user or by default.
    ("x86_64", "defconfig", [], "DEBUG_INFO_DWARF5", "n",
     ['the choice "Debug information" is set to DEBUG_INFO_NONE', "you can pick this one"],
     ["you picked DEBUG_INFO_NONE in .config:"], ["choice"]),
    ("x86_64", "defconfig", [], "HZ_100", "n",
     ['the choice "Timer frequency" is set to HZ_1000'], ["(kernel/Kconfig.hz:6)"], ["choice"]),
    ("arm64", "defconfig", [], "ARM64_64K_PAGES", "n",
     ['the choice "Page size" is set to ARM64_4K_PAGES'], ["(arch/arm64/Kconfig:1295)"], ["choice"]),
    ("x86_64", "empty", [], "HZ_250", "y",
     ['selected member of the choice "Timer frequency"', "its default is HZ_250"],
     ["its default HZ_250 applies (kernel/Kconfig.hz:"], ["choice"]),
    # Menus, menuconfig blocks and if blocks: the chain down to what can be set.
    ("x86_64", "allnoconfig", [], "E1000", "n",
     ["it needs NETDEVICES [=n], ETHERNET [=n], NET_VENDOR_INTEL [=n] and PCI [=n]", "you can set NET and PCI"],
     ["NET is n: you can set it to y (net/Kconfig:6)", "NETDEVICES is n (see above)",
      "UML is defined only for um: arch/um/Kconfig:5"],
     ["hidden", "settable", "seen", "other-arch"]),
    ("x86_64", "allnoconfig", [], "CRYPTO_842", "n",
     ["it needs CRYPTO [=n]; you can set CRYPTO"], ["CRYPTO is n: you can set it to y (crypto/Kconfig:16)"],
     ["hidden"]),
    ("x86_64", "allnoconfig", [], "USB_STORAGE", "n",
     ["you can set USB_SUPPORT and SCSI"], ["USB_ARCH_HAS_HCD is n: it has no prompt"], ["hidden"]),
    ("x86_64", "allnoconfig", [], "IPV6", "n", ["it needs NET [=n] and INET [=n]; you can set NET"],
     ["INET is n: it needs NET [=n]", "default y if NET [=n] && INET [=n] (net/ipv6/Kconfig:9)"],
     ["hidden", "defaults-off"]),
    # m and MODULES.
    ("x86_64", "allnoconfig", ["CONFIG_NET=y", "CONFIG_NETDEVICES=y", "CONFIG_ETHERNET=y",
                               "CONFIG_NET_VENDOR_INTEL=y", "CONFIG_PCI=y", "CONFIG_E1000=m"], "E1000", "y",
     ["you set it to m", "m counts as y without MODULES"], ["m counts as y while MODULES is n"], ["modules-off"]),
    ("x86_64", "allmodconfig", ["CONFIG_ATH10K_PCI=y"], "ATH10K_PCI", "m",
     ["you set it to y, but ATH10K [=m] limits it to m"],
     ["its prompt allows at most m", "MAC80211 is m: you set it to m"], ["user-limited"]),
    ("x86_64", "allmodconfig", [], "E1000", "m", ["you set it to m in .config:"], [], ["user"]),
    ("x86_64", "defconfig", ["# CONFIG_MODULES is not set"], "MODULES", "n",
     ["you set it to n in .config:"], ["you can set it to y", "nothing selects it"], ["user", "not-selected"]),
    # Toolchain and environment facts.
    ("x86_64", "defconfig", [], "CC_IS_CLANG", "n",
     ["the toolchain gives n", "$(success,test \"$(cc-name)\" = Clang)"],
     ["(init/Kconfig:28)", "the compiler is gcc"], ["toolchain", "no-prompt", "not-selected"]),
    ("x86_64", "defconfig", [], "X86_32", "n", ["no default applies and nothing selects it"],
     ["default y if !64BIT [=y] (arch/x86/Kconfig:11)", "the environment gives y",
      '`default "$(ARCH)" != "i386"`'], ["defaults-off", "toolchain"]),
    ("arm64", "defconfig", [], "ARM64_BTI_KERNEL", "n",
     ["it needs ARM64_PTR_AUTH_KERNEL [=n], CC_HAS_BRANCH_PROT_PAC_RET_BTI [=n] and !CC_IS_GCC [=y]",
      "fixed by the toolchain"],
     ["CC_HAS_SIGN_RETURN_ADDRESS is n: fixed by the toolchain: `def_bool $(cc-option,-msign-return-address=all)`"],
     ["hidden", "toolchain"]),
    # Other arches' symbols and symbols no Kconfig file defines.
    ("arm64", "defconfig", [], "DRM_I915", "n", ["it needs X86", "X86 is not on this architecture"],
     ["X86 is defined only for x86: arch/x86/Kconfig:55"], ["other-arch"]),
    ("x86_64", "defconfig", [], "BT1_APB", "n", ["you can set COMPILE_TEST"],
     ["MIPS_BAIKAL_T1 is not defined by any Kconfig file in the tree"], ["undefined"]),
    ("x86_64", "defconfig", [], "21285_WATCHDOG", "n", ["it needs FOOTBRIDGE; FOOTBRIDGE is not on this architecture"],
     ["FOOTBRIDGE is defined only for arm: arch/arm/mach-footbridge/Kconfig:58"], ["other-arch"]),
    # y and m: who gives the value, and what the user could turn off.
    ("x86_64", "defconfig", [], "JBD2", "y", ["EXT4_FS selects it"],
     ["EXT4_FS is y: you can set it to n (fs/ext4/Kconfig:29)", "1 other select of it is off"], ["selected"]),
    ("x86_64", "defconfig", [], "RT_MUTEXES", "y", ["it is implied by FUTEX"], ["implied by FUTEX [=y]"],
     ["implied"]),
    ("x86_64", "defconfig", [], "PRINTK", "y", ["its default y applies (init/Kconfig:1585)"],
     ["its prompt is hidden, so you cannot set it yourself (it needs EXPERT [=n])"], ["default", "hidden"]),
    ("x86_64", "defconfig", [], "IMA_SECURE_AND_OR_TRUSTED_BOOT", "n", ["its dependencies stop an imply"],
     ["implied by X86 [=y], but an imply cannot pass its dependencies", "IMA is n: you can set it to y"],
     ["imply-blocked"]),
    # Values that did not stick, and invisible values.
    ("x86_64", "defconfig", ["CONFIG_NR_CPUS=9000"], "NR_CPUS", "64",
     ["your 9000 was rejected (it is outside the range 2..512)"],
     ["which the reader rejected: it is outside the range 2..512 (arch/x86/Kconfig:1026)",
      "its default NR_CPUS_DEFAULT [=64] applies (arch/x86/Kconfig:1027)"], ["user-rejected", "default"]),
    ("x86_64", "allnoconfig", [], "NR_CPUS", "1", ["its default applies (arch/x86/Kconfig:1027)"],
     ["it needs SMP [=n]", "SMP is n: you can set it to y"], ["hidden", "default"]),
    ("x86_64", "defconfig", ["# CONFIG_EFI_PARTITION is not set"], "EFI_PARTITION", "y",
     ["is not used: its prompt is hidden because it needs PARTITION_ADVANCED [=n]"],
     ["you set it to n in .config:5138, but its prompt is hidden, so that value is not used",
      "PARTITION_ADVANCED is n: you can set it to y (block/partitions/Kconfig:7)"], ["user-ignored"]),
    ("x86_64", "defconfig", ['CONFIG_LOCALVERSION="-test"'], "LOCALVERSION", "-test",
     ["you set it in .config:"], ["you set it to -test in .config:"], ["user"]),
]


@pytest.fixture(scope="module")
def configs(kernel_tree, tmp_path_factory):
    made: dict[tuple[str, str], str] = {}

    def get(arch: str, mode: str) -> str:
        if mode == "empty":
            return ""
        if (arch, mode) not in made:
            build = tmp_path_factory.mktemp(f"golden-{arch}-{mode}")
            made[arch, mode] = make_config(kernel_tree, build, arch, [mode]).decode()
        return made[arch, mode]

    return get


def with_lines(config: str, added: list[str]) -> str:
    """``config`` with each added line replacing the symbol's own line."""
    names = {line.split("=")[0].removeprefix("# ").split(" is not set")[0] for line in added}
    kept = [line for line in config.split("\n")
            if line.split("=")[0] not in names and line.removeprefix("# ").split(" is not set")[0] not in names]
    return "\n".join(kept).rstrip("\n") + "\n" + "\n".join(added) + "\n"


def test_the_golden_set_has_thirty_questions():
    assert len(GOLDEN) == 30 and len({(c[0], c[1], c[3], tuple(c[2])) for c in GOLDEN}) == len(GOLDEN)


@pytest.mark.parametrize("case", GOLDEN, ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in GOLDEN])
def test_answer_holds_the_key_facts(kernel_tree, configs, case):
    arch, mode, added, name, value, summary_facts, text_facts, kinds = case
    config = with_lines(configs(arch, mode), added)
    kc = load(kernel_tree, arch)
    configfile.read_config(kc, ".config", text=config)
    facts = SourceFacts(kernel_tree, set(kc.files))
    ex = explain(kc, kc.find(name), ".config", config, facts.everywhere())
    text = explanation_text(kc, ex)
    assert ex.value == value, text
    for fact in summary_facts:
        assert fact in ex.summary, f"{fact!r} not in the summary: {ex.summary}"
    for fact in text_facts:
        assert fact in text, f"{fact!r} not in:\n{text}"
    found = {r.kind for top in ex.account for r in top.walk()}
    assert set(kinds) <= found, f"kinds {sorted(found)}"
    # Short first: one sentence, the same in all three forms.
    assert ex.summary.startswith(text.split("\n")[1]) and ex.to_dict()["summary"] == ex.summary
    assert ex.summary.replace("*", "\\*") in explanation_markdown(ex)
    assert max(len(line) for line in text.split("\n")) <= 200
