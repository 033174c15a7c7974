"""The validation loop for a loaded project: the configuration the editor
shows, written and checked by the kernel's own ``make olddefconfig``, then
built out of tree and booted in QEMU.  Used by ``kconfig-ls validate`` and
the server's ``kconfig.writeConfig`` / ``kconfig.validate`` commands."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..ide.project import Project
from ..kconfig import configfile
from ..kconfig.essentials import BOOT_ESSENTIALS, RequireError, missing, require
from ..kconfig.scenario import Scenario
from .steps import Outcome, Progress, StepFailed, boot_kernel, build_kernel, check_with_make

BOOT_ARCHES = ("x86_64", "x86", "i386")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kconfig-ls"


def default_build_dir(tree: str, arch: str) -> Path:
    """Out-of-tree build directory for a tree and arch, in the cache."""
    key = hashlib.sha256(os.path.abspath(tree).encode()).hexdigest()[:10]
    return cache_root() / "build" / f"{arch}-{key}"


def unsaved_kconfig_files(project: Project) -> list[str]:
    """Kconfig files with unsaved edits: make would not see them."""
    return sorted(name for name, text in project.overlays.items()
                  if not project.is_config_file(project.absolute(name)) and _differs_from_disk(project, name, text))


def _differs_from_disk(project: Project, name: str, text: str) -> bool:
    """Whether an open buffer's text is not the file's (an open buffer is
    kept over its file even when nothing was edited)."""
    try:
        with open(project.absolute(name), encoding="utf-8", errors="surrogateescape", newline="") as f:
            return f.read() != text
    except OSError:
        return True


def current_config(project: Project, add_essentials: bool = False) -> tuple[str, dict[str, str]]:
    """The config the project shows (the loaded config with unsaved edits
    of its buffer, completed as olddefconfig would), optionally with the
    boot essentials added through the engine; the project's own values are
    left as they were.  Returns (text, assignments added)."""
    kc = project.kc
    with project.lock:
        text = configfile.config_text(kc)
        if not add_essentials or not missing(kc, BOOT_ESSENTIALS):
            return text, {}
        with Scenario(kc, text):
            added = require(kc, BOOT_ESSENTIALS, text)
            return configfile.config_text(kc), added


#: Why nothing of an untrusted tree runs (its Makefiles are its code).
UNTRUSTED = ("the workspace is not trusted, so kconfig-ls runs none of the tree's code: no make, no build, "
             "no QEMU (trust the folder, or list it in kconfig.trustedRoots)")


def _refuse_unsaved(project: Project, stage: str) -> None:
    unsaved = unsaved_kconfig_files(project)
    if unsaved:
        raise StepFailed(Outcome(False, stage, "Kconfig files have unsaved edits that make would not see: "
                                 + ", ".join(unsaved) + " (save them first)"))


def _write(path: Path, text: str, stage: str) -> None:
    parent = path.parent
    if (path.exists() and not os.access(path, os.W_OK)) or (parent.exists() and not os.access(parent, os.W_OK)):
        raise StepFailed(Outcome(False, stage, f"{path} is not writable; nothing was changed"))
    try:
        configfile.write_file_atomic(str(path), text)
    except OSError as exc:
        message = f"cannot write {path}: {exc.strerror or exc}; nothing was changed"
        raise StepFailed(Outcome(False, stage, message)) from exc


async def write_config(project: Project, path: str | None, progress: Progress) -> Outcome:
    """``kconfig.writeConfig``: write the shown config to ``path`` (default:
    the project's config file), atomically with ``.old``, then check that
    ``make olddefconfig`` leaves it byte-identical."""
    try:
        _refuse_unsaved(project, "config")
        target = Path(path or project.config_path)
        text, _ = current_config(project)
        progress("config", f"writing {target}")
        _write(target, text, "config")
        if not project.kernel:
            return Outcome(True, "config", f"wrote {target}", config_path=str(target))
        if not project.trusted:
            return Outcome(True, "config", f"wrote {target}; not checked with make olddefconfig: {UNTRUSTED}",
                           config_path=str(target))
        progress("check", "make olddefconfig on a copy")
        differences = await check_with_make(project.root, project.arch, text, cache_root() / "tmp")
    except StepFailed as failed:
        return failed.outcome
    if differences:
        return Outcome(False, "check", "make olddefconfig changes the written config: " + ", ".join(differences),
                       config_path=str(target), differences=differences)
    return Outcome(True, "check", f"wrote {target}; make olddefconfig leaves it unchanged", config_path=str(target))


async def validate(
    project: Project,
    progress: Progress,
    build_dir: str | None = None,
    boot: bool = True,
    add_essentials: bool = False,
    jobs: int | None = None,
) -> Outcome:
    """Write the shown config into the build directory, check it with make,
    build ``bzImage`` and (``boot``) boot it in QEMU."""
    try:
        return await _validate(project, progress, build_dir, boot, add_essentials, jobs)
    except StepFailed as failed:
        return failed.outcome


async def _validate(project, progress, build_dir, boot, add_essentials, jobs) -> Outcome:
    if not project.kernel or project.arch not in BOOT_ARCHES:
        return Outcome(False, "config", f"validation builds and boots x86 kernels; this tree is "
                       f"{'ARCH=' + str(project.arch) if project.kernel else 'not a kernel tree'}")
    if not project.trusted:
        return Outcome(False, "trust", f"not validated: {UNTRUSTED}")
    _refuse_unsaved(project, "config")
    progress("config", "computing the configuration")
    try:
        text, added = current_config(project, add_essentials)
    except RequireError as exc:
        return Outcome(False, "config", f"cannot add the boot essentials: {exc}")
    with project.lock:
        lacking = missing(project.kc, BOOT_ESSENTIALS) if not add_essentials else []
    if lacking:
        return Outcome(False, "config", "this config cannot show anything on the serial console; missing: "
                       + "; ".join(m.describe() for m in lacking)
                       + " (use --add-boot-essentials / addBootEssentials to enable them)",
                       missing=[m.name for m in lacking])
    if added:
        progress("config", "added " + ", ".join(f"{n}={v}" for n, v in added.items()))
    progress("check", "make olddefconfig on a copy")
    differences = await check_with_make(project.root, project.arch, text, cache_root() / "tmp")
    if differences:
        return Outcome(False, "check", "make olddefconfig changes the config: " + ", ".join(differences),
                       differences=differences)
    build = Path(build_dir) if build_dir else default_build_dir(project.root, project.arch)
    config_path = build / ".config"
    _write(config_path, text, "config")
    image = await build_kernel(project.root, project.arch, build, progress, jobs)
    if not boot:
        return Outcome(True, "build", f"built {image}", config_path=str(config_path), bzimage=str(image))
    outcome = await boot_kernel(image, cache_root() / "initramfs", build / "kconfig-ls-boot.log", progress)
    outcome.config_path, outcome.bzimage = str(config_path), str(image)
    return outcome
