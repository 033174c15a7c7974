"""On the real Linux 6.1 tree: checking a file on its own (what the server
publishes right after an edit) finds exactly what a full load finds in it,
for files as they are and for a line broken in each."""

from pathlib import Path

import pytest

from kconfig_ls.ide.diagnostics import TREE_CODES, kconfig_problems, quick_kconfig_problems
from kconfig_ls.ide.project import Project, Settings


@pytest.fixture(scope="module")
def project(kernel_tree):
    project = Project(str(kernel_tree), Settings(arch="x86_64", trusted=True))
    project.load()
    return project


def shown(problems) -> set:
    return {(p.line, p.col, p.message) for p in problems if p.code not in TREE_CODES}


def sample(project: Project) -> list[str]:
    names = sorted(project.kc.files)
    big = ["arch/x86/Kconfig", "init/Kconfig", "drivers/net/ethernet/Kconfig", "lib/Kconfig.debug", "Kconfig"]
    return big + names[::25]


def test_unchanged_files_check_the_same_alone(project):
    for name in sample(project):
        text = project.kc.files[name].text
        assert shown(quick_kconfig_problems(project, name, text)) == shown(
            kconfig_problems(project, project.kc, name)), name


def test_a_broken_line_is_found_alone_as_in_a_full_load(project):
    name = "drivers/net/ethernet/Kconfig"
    text = project.kc.files[name].text
    broken = text.replace("config CX_ECAT\n", "config CX_ECAT oops\n", 1)
    assert broken != text
    quick = shown(quick_kconfig_problems(project, name, broken))
    edited = Project(project.root, project.settings)
    edited.set_overlay(project.absolute(name), broken)
    edited.load()
    assert quick == shown(kconfig_problems(edited, edited.kc, name))
    assert any("oops" in message or "syntax" in message for _line, _col, message in quick)


def test_other_arch_files_get_no_false_alarms(project):
    # KVM is a tristate for x86, a bool for arm64: not a redefinition there.
    for name in ("arch/arm64/kvm/Kconfig", "arch/arm/Kconfig", "arch/powerpc/kvm/Kconfig"):
        text = Path(project.absolute(name)).read_text()
        problems = quick_kconfig_problems(project, name, text)
        assert {p.code for p in problems} <= {"undefined-symbol", "not-loaded"}, name
    text = Path(project.absolute("arch/arm/Kconfig")).read_text().replace("config ARM\n", "config ARM oops\n", 1)
    problems = quick_kconfig_problems(project, "arch/arm/Kconfig", text)
    assert min(p.line for p in problems if p.severity == "error") == text.split("\n").index("config ARM oops") + 1
