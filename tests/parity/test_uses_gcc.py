"""Compiled-out regions against the C preprocessor itself, on files of the
Linux 6.1 tree under x86_64_defconfig.

Each sampled file is given to ``gcc -E`` with the configuration's
``autoconf.h`` and the kernel's ``include/linux/kconfig.h`` (for
``IS_ENABLED`` and friends), its ``#include``/``#error`` lines blanked and
every other line that is no directive replaced by a marker naming its
number; the markers in gcc's output are the lines that survive.  Then:

* every line kconfig-ls calls compiled out is gone in gcc's output;
* every line of an arm whose group kconfig-ls can decide entirely (each
  arm's condition known, and the same for the groups around it) survives
  exactly when kconfig-ls keeps it.
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest
from conftest import have

from kconfig_ls.kconfig import configfile
from kconfig_ls.kconfig.kernel import kernel_env
from kconfig_ls.kconfig.preprocess import run_shell
from kconfig_ls.kconfig.revalue import ConfigValues
from kconfig_ls.kconfig.tree import Kconfig
from kconfig_ls.uses.cpp import Branch, CppFile, scan
from kconfig_ls.uses.macros import ConfigMacros
from kconfig_ls.uses.regions import condition, dead_ranges

pytestmark = [pytest.mark.kernel, pytest.mark.skipif(not have("gcc"), reason="needs gcc")]

SAMPLE = int(os.environ.get("USES_GCC_SAMPLE", 160))
DIRECTORIES = ("kernel", "mm", "fs/ext4", "net/ipv4", "drivers/net/ethernet/intel", "arch/x86/kernel",
               "arch/x86/mm", "include/linux", "block", "security")
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b.*CONFIG_", re.M)


@pytest.fixture(scope="module")
def configured(kernel_tree):
    env = kernel_env(str(kernel_tree), "x86_64").env
    kc = Kconfig("Kconfig", srctree=str(kernel_tree), env=env,
                 shell=lambda command: run_shell(command, cwd=str(kernel_tree), env=env),
                 warn_stream=None, info=lambda _text: None)
    defconfig = kernel_tree / "arch/x86/configs/x86_64_defconfig"
    ConfigValues(kc, str(defconfig), "x86_64_defconfig", defconfig.read_text())
    return kc


def sample_files(tree) -> list[str]:
    candidates = []
    for directory in DIRECTORIES:
        for root, _dirs, files in os.walk(tree / directory):
            for name in files:
                if name.endswith((".c", ".h", ".S")):
                    candidates.append(os.path.relpath(os.path.join(root, name), tree))
    candidates.sort()
    rng = random.Random(15)
    rng.shuffle(candidates)
    chosen = []
    for name in candidates:
        with open(tree / name, encoding="utf-8", errors="surrogateescape") as f:
            if _CONDITIONAL.search(f.read()):
                chosen.append(name)
        if len(chosen) == SAMPLE:
            break
    return chosen


def for_gcc(text: str, cpp: CppFile) -> str:
    """The text with each line that is no directive replaced by a marker,
    directives as kconfig-ls read them (comments blanked, continuations on
    their first line), ``#include``/``#error``/``#warning`` blanked."""
    lines = [f"__KLS_LINE_{n} " for n in range(1, text.count("\n") + 2)]
    for d in cpp.directives:
        keep = d.keyword not in ("include", "include_next", "error", "warning", "pragma", "line", "")
        lines[d.line - 1] = f"#{d.keyword} {d.text}" if keep else ""
        for n in range(d.line + 1, d.end_line + 1):
            lines[n - 1] = ""
    return "\n".join(lines) + "\n"


def decided_lines(cpp: CppFile, macros: ConfigMacros) -> set[int]:
    """Lines inside conditional groups that kconfig-ls can decide whole:
    every arm's condition known, and so for every group around them."""
    decidable: dict[int, bool] = {}

    def whole(branch: Branch | None) -> bool:
        if branch is None:
            return True
        group = next(g for g in cpp.groups if branch in g.branches)
        key = id(group)
        if key not in decidable:
            known = all(condition(b, macros, cpp.redefined).value is not None for b in group.branches)
            decidable[key] = known and whole(group.parent)
        return decidable[key]

    innermost: dict[int, Branch] = {}
    for group in cpp.groups:  # (outer groups come first)
        for branch in group.branches:
            for n in range(branch.first_line, branch.last_line + 1):
                innermost[n] = branch
    lines = {n for n, branch in innermost.items() if whole(branch)}
    directive_lines = {n for d in cpp.directives for n in range(d.line, d.end_line + 1)}
    return lines - directive_lines


def test_compiled_out_lines_are_those_gcc_drops(kernel_tree, configured, tmp_path):
    include = tmp_path / "include" / "generated"
    include.mkdir(parents=True)
    (include / "autoconf.h").write_text(configfile.autoheader_text(configured))
    macros = ConfigMacros.of_tree(configured)
    compared = decided = dead_total = 0
    for name in sample_files(kernel_tree):
        text = (kernel_tree / name).read_text(encoding="utf-8", errors="surrogateescape")
        cpp = scan(text)
        run = subprocess.run(
            ["gcc", "-E", "-P", "-w", "-x", "c", "-D__KERNEL__", f"-I{tmp_path / 'include'}",
             "-include", str(kernel_tree / "include/linux/kconfig.h"), "-"],
            input=for_gcc(text, cpp), capture_output=True, text=True)
        if run.returncode != 0:
            continue  # (a condition gcc cannot read without the headers: not a region of ours)
        survived = {int(n) for n in re.findall(r"__KLS_LINE_(\d+)", run.stdout)}
        dead = {n for r in dead_ranges(cpp, macros) for n in range(r.first_line, r.last_line + 1)}
        directive_lines = {n for d in cpp.directives for n in range(d.line, d.end_line + 1)}
        dead -= directive_lines
        assert not dead & survived, (name, sorted(dead & survived)[:10])
        sure = decided_lines(cpp, macros)
        gone = sure - survived
        assert gone == sure & dead, (name, sorted(gone ^ (sure & dead))[:10])
        compared += 1
        decided += len(sure)
        dead_total += len(dead)
    print(f"{compared} files compared, {decided} decided lines, {dead_total} compiled out")
    assert compared >= SAMPLE * 0.9 and dead_total > 1000 and decided > 5000
