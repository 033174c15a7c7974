"""The configurator's menu on Linux 6.1 (x86_64) against the C tool: the
C tool asked through `make config` on an empty `.config` goes through
every visible prompt from the top in menu order; walking the menu model
from the top (the entries `kconfig/menu` answers with) must meet the same
headers, prompts and choices in the same order."""

from __future__ import annotations

import os
import subprocess

import pytest
from test_configurator import asked

from kconfig_ls.ide import configurator
from kconfig_ls.ide.project import Project, Settings

pytestmark = pytest.mark.kernel


def c_asked(tree, build) -> list[tuple]:
    build.mkdir()
    (build / ".config").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCONFIG_")}
    output = subprocess.run(["make", "-s", "ARCH=x86_64", f"O={build}", "config"], cwd=tree, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True).stdout
    assert "Restart config" not in output
    return asked(output)


def walked(project: Project) -> list[tuple]:
    out: list[tuple] = [("header", project.kc.root.prompt.text)]

    def visit(entry_id):
        for entry in configurator.children(project, entry_id):
            kind = entry["kind"]
            if kind in ("menu", "comment"):
                out.append(("header", entry["prompt"]))
            elif kind == "choice":
                out.append(("choice", entry["prompt"]))
                out.extend(("member", m["prompt"], m["symbol"]) for m in configurator.children(project, entry["id"]))
                continue
            else:
                if kind == "menuconfig":
                    out.append(("header", entry["prompt"]))  # (C heads a menuconfig's question like a menu)
                out.append(("config", entry["prompt"], entry["symbol"]))
            if entry["hasChildren"]:
                visit(entry["id"])

    visit(None)
    return out


def first_difference(ours: list[tuple], theirs: list[tuple]) -> str:
    """Where two sequences part, in a few lines (not two 1,000-item lists)."""
    at = next((n for n, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    return (f"{len(ours)} entries walked, {len(theirs)} asked; first difference at {at}:\n"
            f"  walked: {ours[max(at - 2, 0):at + 3]}\n  asked:  {theirs[max(at - 2, 0):at + 3]}")


def test_the_menu_is_what_conf_asks_on_x86_64(kernel_tree, tmp_path):
    expected = c_asked(kernel_tree, tmp_path / "build")
    empty = tmp_path / "empty.config"
    empty.write_text("")
    project = Project(str(kernel_tree), Settings(arch="x86_64", config_file=str(empty), trusted=True))
    project.load()
    with project.lock:
        ours = walked(project)
    assert len(expected) > 900
    assert ours == expected, first_difference(ours, expected)
