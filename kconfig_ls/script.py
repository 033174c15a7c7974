"""``kconfig-ls script``: run Python against a kernel configuration, as the
``make scriptconfig`` / ``make iscriptconfig`` targets of the kernel patch
series (``kernel/patches/``) do.

It runs where make runs the kconfig targets: the working directory is the
object tree, and make exports ``srctree``, ``ARCH``, ``SRCARCH``, ``CC``...,
so the tree is parsed exactly as ``conf`` would parse it.  The script sees
``kconf`` (the tree with the config loaded), ``arg`` (SCRIPT_ARG),
``require`` and ``explain``.
"""

from __future__ import annotations

import argparse
import code
import os
import runpy
import sys

from .kconfig import session
from .kconfig.errors import KconfigError
from .kconfig.essentials import BOOT_ESSENTIALS, require
from .kconfig.explain import explain
from .kconfig.explain_report import explanation_text
from .kconfig.tree import Kconfig


def namespace(kc: Kconfig, arg: str | None) -> dict:
    """The names a script sees."""

    def require_values(values: dict[str, str]) -> dict[str, str]:
        return require(kc, values)

    def explain_symbol(name: str) -> str:
        sym = kc.find(name.removeprefix("CONFIG_"))
        if sym is None or not sym.nodes:
            return f"{name} is not defined in this tree\n"
        return explanation_text(kc, explain(kc, sym))

    return {
        "kconf": kc,
        "arg": arg,
        "require": require_values,
        "explain": explain_symbol,
        "BOOT_ESSENTIALS": dict(BOOT_ESSENTIALS),
        "__name__": "__main__",
    }


def script_main(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    try:
        kc = Kconfig(args.kconfig, env=env, warn_stream=sys.stderr)
        session.read_user_config(kc, None, None)
    except KconfigError as exc:
        sys.stderr.write(f"kconfig-ls: {exc}\n")
        return 1
    if args.interactive:
        banner = (f"kconfig-ls: {len(list(kc.defined_symbols()))} symbols for ARCH={env.get('ARCH', '?')}, "
                  f"config {env.get('KCONFIG_CONFIG', '.config')}\n"
                  "kconf.find('E1000').value, explain('E1000'), require({'E1000': 'm'}), "
                  "kconf.write_config('.config')")
        code.interact(banner=banner, local=namespace(kc, None), exitmsg="")
        return 0
    if not args.script:
        sys.stderr.write("kconfig-ls: script: no SCRIPT given\n")
        return 2
    sys.argv = [args.script, *args.args]
    try:
        runpy.run_path(args.script, init_globals=namespace(kc, args.args[0] if args.args else None),
                       run_name="__main__")
    except KconfigError as exc:
        sys.stderr.write(f"kconfig-ls: {args.script}: {exc}\n")
        return 1
    return 0


def add_parser(sub) -> None:
    parser = sub.add_parser("script", help="run a Python script against a config (make scriptconfig)")
    parser.add_argument("--interactive", action="store_true", help="an interactive shell instead")
    parser.add_argument("kconfig", help="top Kconfig file (relative to $srctree)")
    parser.add_argument("script", nargs="?", help="the Python script")
    parser.add_argument("args", nargs="*", help="passed to the script as arg / sys.argv[1:]")
