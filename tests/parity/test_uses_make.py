"""Makefile conditionals on configuration variables against GNU make
itself, on Makefiles and Kbuild files of the Linux 6.1 tree under
x86_64_defconfig.

Each sampled file keeps its conditionals; every other logical line
becomes ``$(info __KLS_LINE_<n>)``, and make reads ``auto.conf`` first:
the printed markers are the lines make keeps.  Every line kconfig-ls
calls dead is not printed, and the lines of groups kconfig-ls decides
whole are printed exactly when it keeps them (see test_uses_gcc.py).
"""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest
from conftest import have
from test_uses_gcc import configured  # noqa: F401 - a fixture

from kconfig_ls.kconfig import configfile
from kconfig_ls.uses import make
from kconfig_ls.uses.cpp import Branch
from kconfig_ls.uses.macros import ConfigMacros

pytestmark = [pytest.mark.kernel, pytest.mark.skipif(not have("make"), reason="needs make")]

SAMPLE = int(os.environ.get("USES_MAKE_SAMPLE", 200))  # (6.1 has 267 such files)
_TESTS_CONFIG = re.compile(r"^[ \t]*(?:else[ \t]+)?(?:ifdef|ifndef|ifeq|ifneq)\b.*CONFIG_", re.M)


def sample_files(tree) -> list[str]:
    candidates = []
    for root, _dirs, files in os.walk(tree):
        for name in files:
            if name in ("Makefile", "Kbuild") or name.endswith(".mk") or name.startswith("Makefile."):
                candidates.append(os.path.relpath(os.path.join(root, name), tree))
    candidates.sort()
    random.Random(15).shuffle(candidates)
    chosen = []
    for name in candidates:
        if name.startswith(("tools/", "scripts/", "Documentation/")):
            continue  # (trees with their own configuration)
        with open(tree / name, encoding="utf-8", errors="surrogateescape") as f:
            if _TESTS_CONFIG.search(f.read()):
                chosen.append(name)
        if len(chosen) == SAMPLE:
            break
    return chosen


def for_make(text: str, parsed: make.MakeFile) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    out = [f"$(info __KLS_LINE_{n})" if line.strip() else "" for n, line in enumerate(lines, 1)]
    for n, line in enumerate(lines):
        if line.endswith("\\") and n + 1 < len(out):
            out[n + 1] = ""  # (a continuation: one logical line)
    for d in parsed.directives:
        out[d.line - 1] = f"{d.keyword} {d.text}"
        for n in range(d.line + 1, d.end_line + 1):
            out[n - 1] = ""
    in_define = False
    for n, line in enumerate(lines):
        keyword = line.strip().split(" ")[0]
        if keyword == "define" or in_define:
            out[n] = ""
            in_define = keyword != "endef"
    return "\n".join(out) + "\n"


def decided_lines(parsed: make.MakeFile, macros: ConfigMacros) -> set[int]:
    decidable: dict[int, bool] = {}

    def whole(branch: Branch | None) -> bool:
        if branch is None:
            return True
        group = next(g for g in parsed.groups if branch in g.branches)
        if id(group) not in decidable:
            known = all(make.condition(b, macros, parsed.assigned).value is not None for b in group.branches)
            decidable[id(group)] = known and whole(group.parent)
        return decidable[id(group)]

    innermost: dict[int, Branch] = {}
    for group in parsed.groups:
        for branch in group.branches:
            for n in range(branch.first_line, branch.last_line + 1):
                innermost[n] = branch
    return {n for n, branch in innermost.items() if whole(branch)}


def test_dead_makefile_lines_are_those_make_skips(kernel_tree, configured, tmp_path):  # noqa: F811
    auto_conf = tmp_path / "auto.conf"
    auto_conf.write_text(configfile.autoconf_text(configured))
    (tmp_path / "end.mk").write_text("all: ;\n")
    macros = ConfigMacros.of_tree(configured)
    compared = decided = dead_total = 0
    files = sample_files(kernel_tree)
    for name in files:
        text = (kernel_tree / name).read_text(encoding="utf-8", errors="surrogateescape")
        parsed = make.scan(text)
        (tmp_path / "file.mk").write_text(for_make(text, parsed))
        run = subprocess.run(["make", "-s", "-f", str(auto_conf), "-f", str(tmp_path / "file.mk"),
                              "-f", str(tmp_path / "end.mk"), "all"], capture_output=True, text=True,
                             cwd=tmp_path, env={"PATH": os.environ["PATH"]})
        assert run.returncode == 0, (name, run.stderr)
        printed = {int(n) for n in re.findall(r"__KLS_LINE_(\d+)", run.stdout)}
        dead = {n for r in make.dead_ranges(parsed, macros) for n in range(r.first_line, r.last_line + 1)}
        directive_lines = {n for d in parsed.directives for n in range(d.line, d.end_line + 1)}
        dead -= directive_lines
        assert not dead & printed, (name, sorted(dead & printed)[:10])
        sure = decided_lines(parsed, macros) - directive_lines
        written = {n for n in sure if f"__KLS_LINE_{n})" in (tmp_path / "file.mk").read_text()}
        gone = written - printed
        assert gone == written & dead, (name, sorted(gone ^ (written & dead))[:10])
        compared += 1
        decided += len(written)
        dead_total += len(dead)
    print(f"{compared} files compared, {decided} decided lines, {dead_total} dead")
    assert compared == len(files) >= min(SAMPLE, 200) and dead_total > 100 and decided > 1000
