"""Configuration sessions: load a tree, apply a conf mode, write results.

This is the engine-side logic of ``scripts/kconfig/conf``'s ``main``: which
files a mode reads, how it fills in values, and what it writes (``.config``
with ``.config.old``, the minimal config, and the ``include/`` files that
``syncconfig`` produces).  The command line layers only parse arguments and
print.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from . import configfile, modes
from .errors import KconfigError
from .expr import BOOL, TRISTATE, N
from .tree import Kconfig

Message = Callable[[str], None]


class ConfError(KconfigError):
    """A failure the C tool reports and exits 1 on."""


def read_user_config(kc: Kconfig, name: str | None, message: Message | None) -> configfile.ConfigReadResult | None:
    """``conf_read``: ``name``, or ``KCONFIG_CONFIG``, or the first file of
    ``KCONFIG_DEFCONFIG_LIST``; ``None`` when none exists."""
    if name is None:
        name = kc.env.get("KCONFIG_CONFIG") or ".config"
        path = kc.resolve_config_path(name)
        if path is None:
            kc.conf_changed = True
            for candidate in kc.env.get("KCONFIG_DEFCONFIG_LIST", "").split():
                path = kc.resolve_config_path(candidate)
                if path is not None:
                    if message:
                        message(f"using defaults found in {candidate}")
                    name = candidate
                    break
            else:
                kc.modules_sym.calc_value()
                return None
    else:
        path = kc.resolve_config_path(name)
        if path is None:
            kc.modules_sym.calc_value()
            return None
    kc.conf_changed = False
    result = configfile.read_config_simple(kc, path, name)
    configfile.settle_after_read(kc, result)
    return result


def apply_mode(kc: Kconfig, mode: str, seed: int | None = None) -> None:
    """Fill in values for ``mode`` after the inputs were read."""
    if mode in ("allnoconfig", "allyesconfig", "allmodconfig", "alldefconfig", "defconfig"):
        modes.set_all_new_symbols(kc, modes.MODE_BY_NAME.get(mode, modes.DEF_DEFAULT))
    elif mode == "randconfig":
        rng = modes.GlibcRandom(seed if seed is not None else 0)
        while modes.set_all_new_symbols(kc, modes.DEF_RANDOM, rng):
            pass
    elif mode == "yes2modconfig":
        modes.rewrite_tristates(kc, 2, 1)
    elif mode == "mod2yesconfig":
        modes.rewrite_tristates(kc, 1, 2)
    elif mode == "mod2noconfig":
        modes.rewrite_tristates(kc, 1, 0)


def write_config(kc: Kconfig, name: str | None = None, message: Message | None = None) -> bool:
    """``conf_write``: write the ``.config`` atomically, keeping the old one
    as ``.config.old``; says "No change" when the content is the same."""
    if name is None:
        name = kc.env.get("KCONFIG_CONFIG") or ".config"
    if not name:
        raise ConfError("config name is empty")
    if os.path.isdir(name):
        raise ConfError(f"{name}: Is a directory")
    text = configfile.config_text(kc)
    if kc.env.get("KCONFIG_OVERWRITECONFIG"):
        parent = os.path.dirname(name)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(name, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
    elif not configfile.write_file_atomic(name, text):
        if message:
            message(f"No change to {name}")
        kc.conf_changed = False
        return False
    if message:
        message(f"configuration written to {name}")
    kc.conf_changed = False
    return True


def write_min_config(kc: Kconfig, name: str) -> None:
    text = configfile.min_config_text(kc)
    parent = os.path.dirname(name)
    if parent and not os.path.isdir(parent):
        raise OSError(f"{parent}: No such directory")
    configfile.write_file_atomic(name, text, keep_old=False, always=True)


def write_autoconf(kc: Kconfig, overwrite: bool) -> None:
    """``conf_write_autoconf``: ``include/config/auto.conf`` (+ ``.cmd``),
    ``include/generated/autoconf.h``, ``rustc_cfg`` and the per-symbol
    dependency files under ``include/config/``."""
    env = kc.env
    autoconf = env.get("KCONFIG_AUTOCONFIG") or "include/config/auto.conf"
    if not overwrite and os.path.exists(autoconf):
        return
    _write_autoconf_cmd(kc, autoconf)
    _touch_deps(kc, autoconf)
    for sym in kc.hash_order():
        sym.calc_value()
    _write_plain(env.get("KCONFIG_AUTOHEADER") or "include/generated/autoconf.h", configfile.autoheader_text(kc))
    _write_plain(env.get("KCONFIG_RUSTCCFG") or "include/generated/rustc_cfg", configfile.rustc_cfg_text(kc))
    _write_plain(autoconf, configfile.autoconf_text(kc))


def _write_plain(path: str, text: str) -> None:
    configfile.write_file_atomic(path, text, keep_old=False, always=True)


def _write_autoconf_cmd(kc: Kconfig, autoconf: str) -> None:
    if kc.gen.autoconf_cmd_names_autoconfig:
        _write_plain(autoconf + ".cmd", _autoconf_cmd_text(kc, autoconf))
        return
    lines = ["deps_config := \\\n"]
    for name in reversed(list(kc.files)):
        lines.append(f"\t{name} \\\n")
    lines.append(f"\n{autoconf}: $(deps_config)\n\n")
    for var, value in kc.pp.env_used.items():
        lines.append(f'ifneq "$({var})" "{value}"\n{autoconf}: FORCE\nendif\n')
    lines.append("\n$(deps_config): ;\n")
    _write_plain(autoconf + ".cmd", "".join(lines))


def _autoconf_cmd_text(kc: Kconfig, autoconf: str) -> str:
    """``auto.conf.cmd`` as Linux 6.11+ writes it: the files in the order
    they were opened, and ``$(autoconfig)`` for the target."""
    lines = [f"autoconfig := {autoconf}\n", "\ndeps_config := \\\n"]
    lines.extend(f"\t{name} \\\n" for name in kc.files)
    lines.append("\n$(autoconfig): $(deps_config)\n$(deps_config): ;\n")
    for var, value in kc.pp.env_used.items():
        lines.append(f'\nifneq "$({var})" "{value}"\n$(autoconfig): FORCE\nendif\n')
    return "".join(lines)


def _touch_deps(kc: Kconfig, autoconf: str) -> None:
    prefix_dir = autoconf[: autoconf.rfind("/") + 1] if "/" in autoconf else ""
    old: dict[str, str] = {}
    cfg_prefix = configfile.config_prefix(kc)

    def touch(name: str) -> None:
        path = prefix_dir + name
        with open(path, "w"):
            pass

    try:
        with open(autoconf, encoding="utf-8", errors="surrogateescape") as f:
            previous = f.read().splitlines()
    except OSError:
        previous = None
    if previous is not None:
        # Reading the old auto.conf invalidates every value (conf_read_simple).
        for line in previous:
            if line.startswith(cfg_prefix) and "=" in line:
                name, value = line[len(cfg_prefix) :].split("=", 1)
                if kc.find(name) is None:
                    touch(name)
                else:
                    old[name] = value
        for sym in kc.all_symbols:
            sym.valid = False
        kc.modules_sym.calc_value()
    for sym in kc.hash_order():
        sym.calc_value()
        if sym.no_write or not sym.name:
            continue
        had_old = sym.name in old
        if sym.write:
            if had_old:
                if sym.type in (BOOL, TRISTATE):
                    if sym.str_value() == _tri_text(old[sym.name]):
                        continue
                elif sym.str_value() == old[sym.name]:
                    continue
            elif sym.type in (BOOL, TRISTATE) and sym.curr_tri == N:
                continue
        elif not had_old:
            continue
        touch(sym.name)


def _tri_text(value: str) -> str:
    return value[:1] if value[:1] in ("y", "m", "n") else "?"
