"""Helpers for parity against the C tool on the real Linux 6.1 tree: the
reference comes from running `make` in the tree (into an O= build dir), our
side from the engine with one parse per architecture."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from kconfig_ls.kconfig import configfile, session
from kconfig_ls.kconfig.defconfigs import apply_defconfig
from kconfig_ls.kconfig.fragments import merge_fragments, olddefconfig_text
from kconfig_ls.kconfig.kernel import available_arches, kernel_env, srcarch_for
from kconfig_ls.kconfig.tree import Kconfig

EXTRA_ARCHES = ["i386", "x86_64", "sparc64", "um"]
MODES = ["allnoconfig", "allyesconfig", "allmodconfig", "alldefconfig", "defconfig"]

_loaded: dict[tuple[str, str], Kconfig] = {}


def all_arches(tree: Path) -> list[str]:
    return [a for a in available_arches(str(tree)) if a != "um"] + EXTRA_ARCHES


def all_defconfigs(tree: Path) -> list[tuple[str, str]]:
    """(ARCH, name) for every arch/*/configs/**/*defconfig, name relative
    to the configs directory as `make <name>` takes it."""
    found = []
    for arch_dir in sorted((tree / "arch").iterdir()):
        configs = arch_dir / "configs"
        if not configs.is_dir():
            continue
        for path in sorted(configs.rglob("*defconfig")):
            found.append((arch_dir.name, str(path.relative_to(configs))))
    return found


def sample_defconfigs(tree: Path, count: int = 64) -> list[tuple[str, str]]:
    """A deterministic sample spread over all arches: round-robin over the
    arches' sorted lists."""
    by_arch: dict[str, list[str]] = {}
    for arch, name in all_defconfigs(tree):
        by_arch.setdefault(arch, []).append(name)
    picked: list[tuple[str, str]] = []
    depth = 0
    while len(picked) < count and any(depth < len(v) for v in by_arch.values()):
        for arch in sorted(by_arch):
            names = by_arch[arch]
            # Spread the picks over each arch's list instead of taking the head.
            if depth < len(names):
                step = max(1, len(names) // 4)
                index = (depth * step + depth // 4) % len(names)
                item = (arch, names[index])
                if item not in picked:
                    picked.append(item)
            if len(picked) >= count:
                break
        depth += 1
    return picked


def load(tree: Path, arch: str) -> Kconfig:
    key = (str(tree), arch)
    kc = _loaded.get(key)
    if kc is None:
        ke = kernel_env(str(tree), arch)
        kc = Kconfig(ke.kconfig, srctree=str(tree), env=ke.env)
        _loaded[key] = kc
    kc.reset_values()
    return kc


class MakeFailed(AssertionError):
    """`make` itself failed for a target."""


def make_config(tree: Path, build: Path, arch: str, targets: list[str], out_name: str = ".config") -> bytes:
    """Run `make ARCH=<arch> O=<build> <targets...>` and return the file."""
    build.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCONFIG_")}
    for target in targets:
        proc = subprocess.run(
            ["make", "-s", f"ARCH={arch}", f"O={build}", target],
            cwd=tree, env=env, capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            raise MakeFailed(f"make {target} failed for ARCH={arch}:\n{proc.stderr[-2000:]}")
    return (build / out_name).read_bytes()


def our_mode(tree: Path, arch: str, mode: str) -> bytes:
    kc = load(tree, arch)
    if mode == "defconfig":
        ke = kernel_env(str(tree), arch)
        apply_defconfig(kc, str(tree), srcarch_for(arch), ke.defconfig)
    else:
        session.apply_mode(kc, mode)
    return configfile.config_text(kc).encode("utf-8", "surrogateescape")


def our_defconfig(tree: Path, arch: str, name: str, fragments: list[str] = ()) -> tuple[bytes, bytes]:
    """(.config, savedefconfig output) for `make <name> [fragments]` and
    then `make savedefconfig` (a new conf run reading that .config)."""
    kc = load(tree, arch)
    apply_defconfig(kc, str(tree), srcarch_for(arch), name)
    if fragments:
        merge_fragments(kc, list(fragments))
    text = configfile.config_text(kc)
    olddefconfig_text(kc, text)
    minimal = configfile.min_config_text(kc).encode("utf-8", "surrogateescape")
    return text.encode("utf-8", "surrogateescape"), minimal
