"""Nothing of an untrusted tree runs: not its `$(shell,...)`, not its
Makefile (writeConfig's make check, validate), no build, no QEMU.

The tree is a small kernel look-alike whose every way of running code
leaves a marker file; a trusted control run proves each marker works."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kconfig_ls.ide.project import Project, Settings
from kconfig_ls.validate.run import validate, write_config

KCONFIG = """
mainmenu "trust test"
config SHELL_RAN
	string
	default "$(shell,touch shell-ran; echo yes)"
source "arch/$(SRCARCH)/Kconfig"
"""

MAKEFILE = """
%:
\ttouch $(CURDIR)/make-ran
\tcp $(O)/.config $(O)/.config.keep 2>/dev/null || true
"""


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "tree"
    (root / "arch" / "x86").mkdir(parents=True)
    (root / "Kconfig").write_text(KCONFIG)
    (root / "arch" / "x86" / "Kconfig").write_text('config X86\n\tdef_bool y\nconfig SERIAL\n\tbool "serial"\n')
    (root / "Makefile").write_text(MAKEFILE)
    return root


def project_for(root: Path, trusted: bool) -> Project:
    project = Project(str(root), Settings(arch="x86_64", trusted=trusted))
    assert project.load().kc is not None
    return project


def progress(_stage: str, _message: str) -> None:
    pass


def test_an_untrusted_tree_runs_nothing(tree, tmp_path):
    project = project_for(tree, trusted=False)
    assert project.kernel
    assert not (tree / "shell-ran").exists()
    outcome = asyncio.run(write_config(project, str(tmp_path / "out.config"), progress))
    assert outcome.ok and "not checked with make olddefconfig: the workspace is not trusted" in outcome.message
    assert (tmp_path / "out.config").exists()
    outcome = asyncio.run(validate(project, progress, build_dir=str(tmp_path / "build"), boot=True))
    assert not outcome.ok and outcome.stage == "trust" and "no make, no build, no QEMU" in outcome.message
    assert not (tree / "make-ran").exists() and not (tree / "shell-ran").exists()
    assert not (tmp_path / "build").exists()


def test_the_markers_work_when_the_tree_is_trusted(tree, tmp_path):
    project = project_for(tree, trusted=True)
    assert (tree / "shell-ran").exists()
    asyncio.run(write_config(project, str(tmp_path / "out.config"), progress))
    assert (tree / "make-ran").exists()
