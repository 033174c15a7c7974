"""The Neovim plugin in Debian's real `nvim` (headless), against the real
server: attach, hover, definition, and a diagnostic after an edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim"
DRIVER = Path(__file__).with_name("nvim_driver.lua")



@pytest.fixture(autouse=True)
def nvim_installed():
    if shutil.which("nvim") is None:
        missing("nvim is not installed (scripts/setup installs Debian's neovim)")


def run_nvim(tmp_path: Path, file: Path, hover: tuple[int, int], break_line: int, settings: dict | None = None,
             trusted: bool = False, why: str | None = None) -> dict:
    out = tmp_path / "nvim-result.json"
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        KCONFIG_LS_OUT=str(out),
        KCONFIG_LS_FILE=str(file),
        KCONFIG_LS_HOVER_LINE=str(hover[0]),
        KCONFIG_LS_HOVER_COL=str(hover[1]),
        KCONFIG_LS_BREAK_LINE=str(break_line),
        KCONFIG_LS_CMD=json.dumps([sys.executable, "-m", "kconfig_ls.cli", "serve"]),
        KCONFIG_LS_SETTINGS=json.dumps(settings or {}),
        KCONFIG_LS_TRUSTED="1" if trusted else "0",
        **({"KCONFIG_LS_WHY": why, "KCONFIG_LS_WRITE": str(tmp_path / "written.config")} if why else {}),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
    )
    proc = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp^={PLUGIN}",
         "-c", f"luafile {DRIVER}"],
        env=env, capture_output=True, text=True, timeout=400, check=False,
    )
    assert out.exists(), f"nvim wrote nothing: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert "error" not in result, result["error"]
    return result


def test_nvim_on_the_bundled_sample(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO / "kconfig_ls" / "data" / "sample", root)
    (root / ".config").write_text("CONFIG_NET=y\nCONFIG_NETDEVICES=y\nCONFIG_E1000=m\n")
    drivers = root / "drivers" / "Kconfig"
    lines = drivers.read_text().split("\n")
    e1000 = lines.index("config E1000")
    depends = lines.index("\tdepends on PCI")
    result = run_nvim(tmp_path, drivers, (depends, 13), e1000 + 2, why="SERIAL_8250_CONSOLE")
    assert result["filetype"] == "kconfig"
    assert "CONFIG_SERIAL_8250_CONSOLE (bool) = n" in result["why"] and "SERIAL_8250 [=n]=y" in result["why"]
    assert "CONFIG_SERIAL_8250=y" in result["how_to"] and "verified" in result["how_to"]
    assert result["write_ok"] and "CONFIG_E1000=m" in (tmp_path / "written.config").read_text()
    assert "not a kernel tree" in result["validate_message"]
    assert result["attached"]
    assert "CONFIG_PCI" in result["hover"] and "value **y**" in result["hover"]
    assert result["statusline"] == "Kconfig: .config"
    assert [(Path(d["file"]).name, d["line"]) for d in result["definitions"]] == [("Kconfig", 2)]
    assert result["diagnostic_seen"], result


@pytest.mark.kernel
def test_nvim_on_the_kernel_tree(tmp_path, kernel_tree):
    tree = kernel_tree
    name = tree / "drivers" / "net" / "ethernet" / "intel" / "Kconfig"
    text_lines = name.read_text().split("\n")
    e1000 = text_lines.index("config E1000")
    # Edits stay in the buffer: the file on disk is never written.
    before = name.read_bytes()
    result = run_nvim(tmp_path, name, (e1000, 8), e1000 + 1, settings={"arch": "x86_64"}, trusted=True)
    assert name.read_bytes() == before
    assert result["attached"]
    assert "CONFIG_E1000" in result["hover"] and "tristate" in result["hover"]
    # The float Neovim shows: the sentence saying why on its own line, the
    # reasons as list items, nothing escaped for HTML.
    float_lines = result["hover_float"]
    assert any(line.startswith(("n because ", "y because ", "m because ")) for line in float_lines), float_lines
    assert any(line.startswith("- ") for line in float_lines), float_lines
    assert not any("&lt;" in line or "\\<" in line for line in float_lines), float_lines
    assert result["statusline"].startswith("Kconfig: x86_64 · ")
    assert [(d["file"].split("linux-source-6.1/")[1], d["line"]) for d in result["definitions"]] == [
        ("drivers/net/ethernet/intel/Kconfig", e1000)]
    assert result["diagnostic_seen"], result


@pytest.mark.kernel
def test_nvim_on_a_c_file_of_the_kernel_tree(tmp_path, kernel_tree):
    """kernel/sched/core.c (filetype c) with the x86_64 defaults, under which
    SCHED_CORE is n: the plugin attaches, the hover says what #ifdef sees,
    gd goes to the Kconfig entry, the guarded block is highlighted."""
    name = kernel_tree / "kernel" / "sched" / "core.c"
    lines = name.read_text().split("\n")
    ifdef = lines.index("#ifdef CONFIG_SCHED_CORE")
    other = lines.index("#else /* !CONFIG_SCHED_CORE */")
    result = run_nvim(tmp_path, name, (ifdef, 10), -1, settings={"arch": "x86_64"}, trusted=True)
    assert result["filetype"] == "c" and result["attached"]
    assert result["hover"].startswith("`CONFIG_SCHED_CORE` is not defined") and "value **n**" in result["hover"]
    assert [(d["file"].split("linux-source-6.1/")[1]) for d in result["definitions"]] == ["kernel/Kconfig.preempt"]
    faded = set(result["faded_lines"])
    assert set(range(ifdef + 1, other)) <= faded and other + 1 not in faded


def checkhealth(tmp_path: Path, cmd: list[str]) -> str:
    """`:checkhealth kconfig_ls` in the real nvim with this server command."""
    out = tmp_path / "health.txt"
    setup = f"lua require('kconfig_ls').setup({{cmd = vim.fn.json_decode('{json.dumps(cmd)}')}})"
    subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp^={PLUGIN}", "-c", setup,
                    "-c", "checkhealth kconfig_ls", "-c", f"write! {out}", "-c", "qa!"],
                   env=dict(os.environ, PYTHONPATH=str(REPO), XDG_STATE_HOME=str(tmp_path / "state")),
                   capture_output=True, text=True, timeout=60, check=False)
    return out.read_text()


def test_checkhealth_reports_the_server_version(tmp_path):
    from kconfig_ls import __version__

    report = checkhealth(tmp_path, [sys.executable, "-m", "kconfig_ls.cli", "serve"])
    assert f"OK: server found: {sys.executable} (kconfig-ls {__version__}, same as the plugin)" in report, report
    other = tmp_path / "old-kconfig-ls"
    other.write_text("#!/bin/sh\necho kconfig-ls 0.0.1\n")
    other.chmod(0o755)
    report = checkhealth(tmp_path, [str(other), "serve"])
    assert f"WARNING: server {other} is kconfig-ls 0.0.1, the plugin is {__version__}" in report, report


MENU_DRIVER = Path(__file__).with_name("nvim_menu_driver.lua")


def test_nvim_kconfig_menu_on_the_bundled_sample(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO / "kconfig_ls" / "data" / "sample", root)
    (root / ".config").write_text("CONFIG_MODULES=y\n")
    out = tmp_path / "nvim-menu.json"
    env = dict(os.environ, PYTHONPATH=str(REPO), KCONFIG_LS_OUT=str(out), KCONFIG_LS_FILE=str(root / ".config"),
               KCONFIG_LS_CMD=json.dumps([sys.executable, "-m", "kconfig_ls.cli", "serve"]),
               XDG_CONFIG_HOME=str(tmp_path / "xdg-config"), XDG_DATA_HOME=str(tmp_path / "xdg-data"),
               XDG_STATE_HOME=str(tmp_path / "xdg-state"))
    proc = subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp^={PLUGIN}",
                           "-c", f"luafile {MENU_DRIVER}"], env=env, capture_output=True, text=True, timeout=300)
    assert out.exists(), f"nvim wrote nothing: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["attached"]
    assert result["top"][0].startswith("Kconfig menu")
    assert any("[*] Enable loadable module support  [MODULES]" in line for line in result["top"])
    assert any("> " in line and "Device drivers" in line for line in result["top"])
    assert any("[ ] Networking support  [NET]" in line for line in result["expanded"])
    assert result["config_after_set"] and "CONFIG_NET=y" in result["config_lines"]
    assert "[*] Networking support  [NET]" in result["net_line"]
    assert result["netdevices_shown"], result["after_refresh"]
    assert result["choice_chosen"]
    assert "NETDEVICES" in result["refused_reason"] and result["config_unchanged"]
    assert result["search"][0].startswith("Search: e1000")
    assert any("[E1000]" in line and "in Device drivers" in line for line in result["search"])
    assert any("CONFIG_E1000 (tristate) = n" in line for line in result["why"])
    assert result["back"].startswith("Kconfig menu")
    # (E1000 is hidden while NETDEVICES is n: revealing it shows all entries.)
    assert result["revealed"]["header"].startswith("Kconfig menu (all entries)"), result["revealed"]
    assert "[E1000]" in result["revealed"]["line"], result["revealed"]
    if os.environ.get("KCONFIG_LS_SCREENSHOTS"):
        capture = "\n".join(result["after_refresh"] + ["", ":KconfigMenu, then / e1000 <CR>:", ""] + result["search"])
        (REPO / "docs" / "screenshots" / "nvim-menu.txt").write_text(capture + "\n")
    assert (Path(result["definition"]["file"]).relative_to(root).as_posix(), result["definition"]["line"]) \
        == ("drivers/Kconfig", (root / "drivers" / "Kconfig").read_text().split("\n").index("config NET") + 1)
