"""The Linux kernel's Kconfig environment, computed as the top Makefile
would, so a tree can be configured without running ``make``.

One place derives ``ARCH``/``SRCARCH``, the toolchain variables,
``KERNELVERSION``, ``CC_VERSION_TEXT``, the default defconfig and the
defconfig list; the CLI, the server and the tests all use it.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache

from .errors import KconfigError

#: ARCH values that name a different arch/ directory.
_SRCARCH = {
    "i386": "x86",
    "x86_64": "x86",
    "sparc32": "sparc",
    "sparc64": "sparc",
    "parisc64": "parisc",
    "sh64": "sh",
}


def host_arch() -> str:
    """``SUBARCH`` from the kernel's scripts/subarch.include."""
    machine = platform.machine()
    m = machine
    m = re.sub(r"i.86", "x86", m)
    m = m.replace("x86_64", "x86")
    m = re.sub(r"sun4u", "sparc64", m)
    m = re.sub(r"arm.*", "arm", m)
    m = re.sub(r"sa110", "arm", m)
    m = re.sub(r"s390x", "s390", m)
    m = re.sub(r"parisc64", "parisc", m)
    m = re.sub(r"ppc.*", "powerpc", m)
    m = re.sub(r"mips.*", "mips", m)
    m = re.sub(r"sh[234].*", "sh", m)
    m = re.sub(r"aarch64.*", "arm64", m)
    m = re.sub(r"riscv.*", "riscv", m)
    m = re.sub(r"loongarch.*", "loongarch", m)
    return m


def srcarch_for(arch: str) -> str:
    return _SRCARCH.get(arch, arch)


def kernel_version(tree: str) -> str:
    """``KERNELVERSION`` from the top Makefile's VERSION/PATCHLEVEL/... ."""
    fields: dict[str, str] = {}
    with open(os.path.join(tree, "Makefile"), encoding="utf-8", errors="replace") as f:
        for _ in range(12):
            line = f.readline()
            m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(.*?)\s*$", line)
            if m:
                fields[m.group(1)] = m.group(2)
    version = fields.get("VERSION", "")
    if fields.get("PATCHLEVEL"):
        version += "." + fields["PATCHLEVEL"]
        if fields.get("SUBLEVEL"):
            version += "." + fields["SUBLEVEL"]
    return version + fields.get("EXTRAVERSION", "")


@lru_cache(maxsize=8)
def cc_version_text(cc: str) -> str:
    """The first line of ``$(CC) --version`` (the Makefile's CC_VERSION_TEXT)."""
    try:
        out = subprocess.run(
            [cc, "--version"], capture_output=True, text=True, check=False, timeout=30
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.split("\n", 1)[0]


def default_defconfig(tree: str, arch: str, subarch: str | None = None) -> str:
    """``KBUILD_DEFCONFIG`` as arch/$(SRCARCH)/Makefile sets it."""
    srcarch = srcarch_for(arch)
    subarch = subarch or host_arch()
    if srcarch == "x86":
        if arch == "x86":
            return "x86_64_defconfig" if platform.machine() == "x86_64" else "i386_defconfig"
        return f"{arch}_defconfig"
    if srcarch == "sparc":
        return "sparc64_defconfig" if arch == "sparc64" else "sparc32_defconfig"
    if srcarch == "parisc":
        return "generic-64bit_defconfig" if arch == "parisc64" else "generic-32bit_defconfig"
    if srcarch == "um":
        if subarch == "x86":
            return "x86_64_defconfig" if platform.machine() == "x86_64" else "i386_defconfig"
        return f"{subarch}_defconfig"
    makefile = os.path.join(tree, "arch", srcarch, "Makefile")
    try:
        with open(makefile, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        lines = []
    for line in lines:
        m = re.match(r"^\s*KBUILD_DEFCONFIG\s*:?=\s*(\S+)", line)
        if not m:
            continue
        value = m.group(1)
        # powerpc: $(if $(filter ppc%,$(uname)),$(uname),ppc64le)_defconfig
        # (the fallback is ppc64 before Linux 6.12).
        rhs = line.split("=", 1)[1].strip()
        host = re.match(r"^\$\(if \$\(filter ppc%,\$\(uname\)\),\$\(uname\),(\w+)\)_defconfig$", rhs)
        if host:
            uname = platform.machine()
            return (uname if uname.startswith("ppc") else host.group(1)) + "_defconfig"
        return value
    return "defconfig"


@dataclass
class KernelEnv:
    """Everything needed to load a kernel tree for one architecture."""

    tree: str
    arch: str
    srcarch: str
    env: dict[str, str] = field(default_factory=dict)
    defconfig: str = ""

    @property
    def kconfig(self) -> str:
        return self.env.get("KBUILD_KCONFIG") or "Kconfig"


def kernel_env(
    tree: str,
    arch: str | None = None,
    base_env: dict[str, str] | None = None,
    cross_compile: str | None = None,
) -> KernelEnv:
    """The environment ``make ARCH=<arch> <target>config`` gives conf."""
    if not os.path.isfile(os.path.join(tree, "Kconfig")):
        raise KconfigError(f"{tree}: not a kernel tree (no top-level Kconfig)")
    env = dict(os.environ if base_env is None else base_env)
    subarch = host_arch()
    arch = arch or env.get("ARCH") or subarch
    srcarch = srcarch_for(arch)
    if not os.path.isdir(os.path.join(tree, "arch", srcarch)):
        arches = ", ".join(available_arches(tree))
        raise KconfigError(f"unknown architecture '{arch}' (this tree has: {arches})")
    cross = cross_compile if cross_compile is not None else env.get("CROSS_COMPILE", "")
    cc = cross + "gcc"
    defconfig = default_defconfig(tree, arch, subarch)
    env.update(
        {
            "ARCH": arch,
            "SRCARCH": srcarch,
            "SUBARCH": subarch,
            "srctree": ".",
            "objtree": ".",
            "KERNELVERSION": kernel_version(tree),
            "CROSS_COMPILE": cross,
            "CC": cc,
            "LD": cross + "ld",
            "AR": cross + "ar",
            "NM": cross + "nm",
            "OBJCOPY": cross + "objcopy",
            "OBJDUMP": cross + "objdump",
            "READELF": cross + "readelf",
            "STRIP": cross + "strip",
            "HOSTCC": "gcc",
            "HOSTCXX": "g++",
            "HOSTRUSTC": "rustc",
            "RUSTC": "rustc",
            "BINDGEN": "bindgen",
            "PAHOLE": "pahole",
            "CC_VERSION_TEXT": cc_version_text(cc),
            "KBUILD_DEFCONFIG": defconfig,
            "KCONFIG_DEFCONFIG_LIST": _defconfig_list(srcarch, defconfig),
        }
    )
    if srcarch == "um":
        # arch/um/Makefile exports the host arch it builds on.
        env["HEADER_ARCH"] = "x86" if subarch in ("x86", "i386", "x86_64") else subarch
    if "KCONFIG_CONFIG" not in env:
        env["KCONFIG_CONFIG"] = ".config"
    for var in ("CLANG_FLAGS", "KBUILD_KCONFIG"):
        env.pop(var, None)
    return KernelEnv(tree, arch, srcarch, env, defconfig)


def _defconfig_list(srcarch: str, defconfig: str) -> str:
    # 6.1's scripts/kconfig/Makefile tests a `cross_compiling` variable that
    # nothing sets, so the host's files are always listed first.
    release = platform.release()
    entries = [f"/lib/modules/{release}/.config", "/etc/kernel-config", f"/boot/config-{release}"]
    entries.append(f"arch/{srcarch}/configs/{defconfig}")
    return " ".join(entries)


def available_arches(tree: str) -> list[str]:
    base = os.path.join(tree, "arch")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    return [n for n in names if os.path.isfile(os.path.join(base, n, "Kconfig"))]
