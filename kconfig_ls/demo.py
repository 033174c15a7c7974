"""``kconfig-ls demo``: configure a tree and show what the engine sees.

With no kernel tree it uses the small tree bundled in ``kconfig_ls/data``;
with ``--tree`` (or ``KCONFIG_LS_KERNEL``) it loads that kernel tree for the
host architecture and runs ``defconfig``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from importlib import resources

from .kconfig import configfile, session
from .kconfig.defconfigs import apply_defconfig
from .kconfig.kernel import kernel_env
from .kconfig.tree import Kconfig


def sample_tree() -> str:
    return str(resources.files("kconfig_ls") / "data" / "sample")


def demo_main(tree: str | None) -> int:
    tree = tree or os.environ.get("KCONFIG_LS_KERNEL")
    if tree and os.path.isfile(os.path.join(tree, "Kconfig")) and os.path.isdir(os.path.join(tree, "arch")):
        return _kernel_demo(os.path.abspath(tree))
    return _sample_demo()


def _sample_demo() -> int:
    root = sample_tree()
    kc = Kconfig("Kconfig", srctree=root, env={"srctree": root}, warn_stream=sys.stderr)
    print(f"Loaded the bundled sample tree {root}: {len(list(kc.defined_symbols()))} symbols")
    session.read_user_config(kc, os.path.join(root, "configs", "sample_defconfig"), None)
    session.apply_mode(kc, "defconfig")
    text = configfile.config_text(kc)
    print("\n.config for configs/sample_defconfig:\n")
    print(text)
    print("Minimal config (savedefconfig):\n")
    print(configfile.min_config_text(kc))
    return 0


def _kernel_demo(tree: str) -> int:
    ke = kernel_env(tree)
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        start = time.perf_counter()
        kc = Kconfig(ke.kconfig, srctree=".", env=ke.env)
        loaded = time.perf_counter() - start
        apply_defconfig(kc, tree, ke.srcarch, ke.defconfig)
        text = configfile.config_text(kc)
    finally:
        os.chdir(cwd)
    out = os.path.join(tempfile.gettempdir(), f"kconfig-ls-{ke.arch}-defconfig.config")
    with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    enabled = sum(1 for line in text.splitlines() if line.startswith("CONFIG_"))
    print(
        f"Loaded {tree} for ARCH={ke.arch}: {len(kc.files)} Kconfig files, "
        f"{len(list(kc.defined_symbols()))} symbols in {loaded:.2f}s"
    )
    print(f"make {ke.defconfig}: {enabled} options set; written to {out}")
    return 0
