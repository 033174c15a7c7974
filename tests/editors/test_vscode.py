"""The packaged VS Code extension in a real VS Code (code-server, the
browser build of VS Code 1.100) driven by Debian's headless Chromium:
install the .vsix, open a Kconfig file of the fixture tree, hover a symbol
and read the hover from the page, go to a definition with F12, break a
line and see the error count rise; on the kernel tree, hover a symbol.

The server is the one bundled in the .vsix, run by Debian's python3, with
no kconfig-ls on PATH, no PYTHONPATH and no server setting: what a user who
only installed the .vsix gets.  `scripts/provision-code-server` installs
code-server; `scripts/vscode-test` builds the .vsix (both run by
scripts/setup and scripts/test)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import missing

from kconfig_ls import __version__

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "editors" / "vscode"
VSIX = EXTENSION / "kconfig-ls.vsix"
DRIVER = EXTENSION / "e2e" / "drive.mjs"
#: Debian's interpreter and a PATH holding neither the venv nor pyenv.
DEBIAN_PYTHON = Path("/usr/bin/python3")
PLAIN_PATH = "/usr/bin:/bin"


def code_server() -> Path | None:
    configured = os.environ.get("KCONFIG_LS_CODE_SERVER")
    if configured:
        return Path(configured) if Path(configured).exists() else None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = cache / "kconfig-ls" / "code-server" / "node_modules" / ".bin" / "code-server"
    return path if path.exists() else None


def absent() -> str | None:
    if code_server() is None:
        return "code-server is not provisioned (scripts/provision-code-server)"
    if not VSIX.exists() or not (EXTENSION / "node_modules" / "playwright-core").exists():
        return "the extension is not built (scripts/vscode-test)"
    if shutil.which("chromium") is None:
        return "chromium is not installed (scripts/setup installs it)"
    if not DEBIAN_PYTHON.exists():
        return f"{DEBIAN_PYTHON} is missing (scripts/setup installs Debian's python3)"
    return None


@pytest.fixture
def ready():
    reason = absent()
    if reason is not None:
        missing(reason, "KCONFIG_LS_NO_CODE_SERVER")
    # The proof that the bundled server runs: nothing else could.
    plain = {"PATH": PLAIN_PATH, "HOME": os.environ.get("HOME", "/")}
    assert shutil.which("kconfig-ls", path=PLAIN_PATH) is None
    probe = subprocess.run([str(DEBIAN_PYTHON), "-c", "import kconfig_ls"], env=plain, cwd="/", capture_output=True,
                           check=False)
    assert probe.returncode != 0, "Debian's python3 can import kconfig_ls by itself; the test would prove nothing"


def drive_vscode(folder: Path, file: str, line: int, column: int, expect: str, *extra: str,
                 home: Path) -> dict:
    """Run the driver (see editors/vscode/e2e/drive.mjs) with no server
    setting, in an environment where only the bundled server can run: an
    empty HOME too, since VS Code takes the environment of a login shell,
    whose profile could put a Python of its own on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYENV", "XDG_"))}
    home.mkdir(exist_ok=True)
    env.update(PATH=PLAIN_PATH, HOME=str(home))
    proc = subprocess.run(
        ["node", str(DRIVER), "--code-server", str(code_server()), "--vsix", str(VSIX), "--folder", str(folder),
         "--file", file, "--line", str(line), "--column", str(column), "--expect", expect, *extra],
        env=env, capture_output=True, text=True, timeout=300, check=False, cwd=EXTENSION,
    )
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def page_text(text: str) -> str:
    """Text read off the page as one line of plain spaces (the Output view
    renders spaces as no-break spaces and wraps long lines)."""
    return " ".join(text.replace("\xa0", " ").split())


def test_hover_definition_and_diagnostics_in_a_real_vscode(ready, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO / "kconfig_ls" / "data" / "sample", root)
    (root / ".config").write_text("CONFIG_NET=y\nCONFIG_NETDEVICES=y\nCONFIG_E1000=m\n")
    drivers = root / "drivers" / "Kconfig"
    before = drivers.read_bytes()
    lines = drivers.read_text().split("\n")
    line = lines.index("config E1000") + 1
    depends = lines.index("\tdepends on PCI", line) + 1
    result = drive_vscode(root, "drivers/Kconfig", line, len("config E1") + 1, "value m",
                          "--definition-at", f"{depends}:{len(chr(9) + 'depends on PC') + 1}",
                          "--break-at", str(depends), "--read-output", home=tmp_path / "home")
    hover = result["hover"]
    assert hover.startswith("CONFIG_E1000 · tristate · value m"), hover
    assert "m because you set it to m in .config:3" in hover and "if NETDEVICES [=y] && PCI [=y] · visible y" in hover
    assert "Driver for Intel(R) PRO/1000" in hover
    # The status bar item the extension adds once the server has loaded.
    assert "Kconfig: .config" in result["status"], result["status"]
    # F12 on PCI in "depends on PCI" lands on "config PCI".
    assert result["definition"] == f"Ln {lines.index('config PCI') + 1}, Col 1", result
    # "depends on PCI (" is an error the server reports; the edit stays in the editor.
    assert result["errors_after_break"] >= 1, result
    assert drivers.read_bytes() == before
    # The Output channel says which server runs: the bundled one, its
    # version, and Debian's python3 running it.
    output = page_text(result["output"]).replace("/ ", "/")
    assert f"starting kconfig-ls {__version__} bundled in the extension" in output, output
    assert f"run by {DEBIAN_PYTHON} (Python 3." in output, output
    assert f"server: kconfig-ls {__version__} from " in output and "/bundled/libs/kconfig_ls" in output, output


def test_the_kconfig_menu_view_sets_values_in_the_config_buffer(ready, tmp_path):
    """The tree view in the real VS Code: expand Device drivers, tick
    Networking support, see the unsaved .config buffer say CONFIG_NET=y and
    the entries that depend on it appear."""
    root = tmp_path / "tree"
    shutil.copytree(REPO / "kconfig_ls" / "data" / "sample", root)
    (root / ".config").write_text("CONFIG_MODULES=y\n")
    screenshot = tmp_path / "menu.png"
    result = drive_vscode(root, ".config", 1, len("CONFIG_MO") + 1, "CONFIG_MODULES", "--menu",
                          "--menu-screenshot", str(screenshot), home=tmp_path / "home")
    menu = result["menu"]
    assert any("Device drivers" in row for row in menu["top"]), menu
    assert any("Networking support" in row and "CONFIG_NET" in row for row in menu["expanded"]), menu
    assert "CONFIG_NET=y" in menu["configText"], menu
    assert any("Network device support" in row for row in menu["after"]), menu
    # (The buffer is the user's to save: the file on disk is as it was.)
    assert (root / ".config").read_text() == "CONFIG_MODULES=y\n"
    assert screenshot.stat().st_size > 10_000
    if os.environ.get("KCONFIG_LS_SCREENSHOTS"):
        shutil.copy(screenshot, REPO / "docs" / "screenshots" / "vscode-menu.png")


def test_the_bundled_server_serves_hover_on_the_kernel_tree(ready, kernel_tree, tmp_path):
    """The .vsix alone on the real kernel tree (ARCH defaults to the host, as
    make does; no .config): a hover with the value the C tool gives.  The
    editor opens one driver directory of the tree (Quick Open over all of
    it can take minutes on a loaded machine); the server finds the tree's
    root above it."""
    folder = kernel_tree / "drivers" / "net" / "ethernet" / "intel"
    lines = (folder / "Kconfig").read_text().split("\n")
    line = lines.index("config E1000") + 1
    result = drive_vscode(folder, "Kconfig", line, len("config E1") + 1, "value n", home=tmp_path / "home")
    hover = result["hover"]
    assert hover.startswith("CONFIG_E1000 · tristate · value n"), hover
    assert "Intel(R) PRO/1000 Gigabit Ethernet support" in hover
    # ARCH as the kernel Makefile defaults it on this host (uname -m x86_64 -> x86).
    assert "Kconfig: x86 · .config (defaults)" in result["status"], result["status"]


def test_a_c_file_of_the_kernel_tree_shows_config_values_and_faded_blocks(ready, kernel_tree, tmp_path):
    """kernel/sched/core.c in the real VS Code, the .vsix alone (no
    .config: the defaults, with which SCHED_CORE is n): the hover on
    CONFIG_SCHED_CORE says what #ifdef sees and the symbol's value, and the
    block it guards is drawn faded.  The editor opens kernel/ (Kconfig.*
    files activate the extension); the server finds the tree's root."""
    folder = kernel_tree / "kernel"
    lines = (folder / "sched" / "core.c").read_text().split("\n")
    line = lines.index("#ifdef CONFIG_SCHED_CORE") + 1
    result = drive_vscode(folder, "sched/core.c", line, len("#ifdef CONFIG_S") + 1, "CONFIG_SCHED_CORE is not defined",
                          "--count-faded", home=tmp_path / "home")
    hover = page_text(result["hover"])
    assert hover.startswith("CONFIG_SCHED_CORE is not defined"), hover
    assert "CONFIG_SCHED_CORE · bool · value n" in hover, hover
    assert result["faded"] > 0, result


def test_the_vsix_carries_the_server_and_its_dependencies():
    if not VSIX.exists():
        missing("the extension is not built (scripts/vscode-test)")
    with zipfile.ZipFile(VSIX) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
        bundled_init = vsix.read("extension/bundled/libs/kconfig_ls/__init__.py").decode()
    libs = "extension/bundled/libs/"
    for module in ("kconfig_ls/cli.py", "kconfig_ls/data/sample/Kconfig", "kconfig_ls/data/boot/init.c",
                   "pygls/server.py", "lsprotocol/types.py", "cattrs/__init__.py", "attrs/__init__.py",
                   "typing_extensions.py"):
        assert libs + module in names, module
    assert not any("__pycache__" in name for name in names)
    assert f'__version__ = "{__version__}"' in bundled_init
    assert manifest["version"] == __version__
