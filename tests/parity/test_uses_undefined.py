"""Undefined CONFIG_ names in C files and Makefiles against the kernel's own
``scripts/checkkconfigsymbols.py`` (its functions, imported from the 6.1
tree: the script itself lists files with git, which a source package has
not got).

For sampled files it finds the names that no Kconfig file of the tree
defines; kconfig-ls must warn about exactly those of them that it sees as
uses: the script reads comments, strings and ``-DCONFIG_X`` compiler flags
too, and names the file defines itself, which kconfig-ls leaves alone."""

from __future__ import annotations

import importlib.util
import os
import random
import re

import pytest

from kconfig_ls.ide import sources
from kconfig_ls.ide.project import Project, Settings
from kconfig_ls.uses.cpp import blank_comments
from kconfig_ls.uses.make import strip_comment

pytestmark = pytest.mark.kernel

SAMPLE = int(os.environ.get("USES_UNDEFINED_SAMPLE", 400))


@pytest.fixture(scope="module")
def checker(kernel_tree):
    spec = importlib.util.spec_from_file_location("checkkconfigsymbols",
                                                  kernel_tree / "scripts" / "checkkconfigsymbols.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def project(kernel_tree):
    project = Project(str(kernel_tree), Settings.from_options({"kconfig": {"arch": "x86_64"}}))
    project.load()
    return project


def kernel_files(tree, checker) -> tuple[list[str], list[str]]:
    kconfigs, candidates = [], []
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = os.path.relpath(os.path.join(root, name), tree)
            if checker.REGEX_FILE_KCONFIG.match(path):
                kconfigs.append(path)
            elif sources.source_kind(path) in ("cpp", "make") and not path.startswith("tools/"):
                candidates.append(path)
    candidates.sort()
    return kconfigs, candidates


def test_undefined_names_are_those_checkkconfigsymbols_finds(kernel_tree, checker, project):
    os.chdir(kernel_tree)  # (the script's functions take paths relative to the tree)
    kconfigs, candidates = kernel_files(kernel_tree, checker)
    defined = set()
    for path in kconfigs:
        defined.update(checker.parse_kconfig_file(path)[0])
    # Files that use names no Kconfig file defines, and as many others.
    rng = random.Random(15)
    rng.shuffle(candidates)
    chosen, others = [], []
    for path in candidates:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if "CONFIG_" not in text:
            continue
        names = set(checker.parse_source_file(path))
        undefined = {n for n in names - defined - {"FOO", "BAR", "FOO_BAR", "XXX"}
                     if not (n.endswith("_MODULE") and n[:-7] in defined)}
        (chosen if undefined else others).append((path, text, undefined))
        if len(chosen) >= SAMPLE // 2 and len(others) >= SAMPLE // 2:
            break
    flagged_total = 0
    for path, text, undefined in chosen[: SAMPLE // 2] + others[: SAMPLE // 2]:
        kind = sources.source_kind(path)
        with project.lock:
            found = [p for p in sources.questionable_uses(project, path, text, kind) if p.code == "undefined-symbol"]
        ours = {re.match(r"CONFIG_(\w+)", p.message).group(1) for p in found}
        assert ours <= undefined, (path, ours - undefined)
        parsed = sources.scanned(project, path, text, kind).parsed
        local = parsed.redefined if kind == "cpp" else parsed.assigned
        visible_text = blank_comments(text) if kind == "cpp" else "\n".join(map(strip_comment, text.split("\n")))
        visible = {n for n in re.findall(r"(?<![\w])CONFIG_(\w+)", visible_text)
                   if n in undefined and "CONFIG_" + n not in local}
        assert ours == visible, (path, sorted(ours ^ visible))
        flagged_total += len(found)
    print(f"{len(chosen[: SAMPLE // 2])} files with undefined names, {flagged_total} warnings")
    assert len(chosen) >= min(SAMPLE // 2, 50) and flagged_total > 0
