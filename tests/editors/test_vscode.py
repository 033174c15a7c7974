"""The packaged VS Code extension in a real VS Code (code-server, the
browser build of VS Code 1.100) driven by Debian's headless Chromium:
install the .vsix, open a Kconfig file of the fixture tree, hover a symbol
and read the hover from the page, go to a definition with F12, break a
line and see the error count rise.  `scripts/provision-code-server` installs
code-server; `scripts/vscode-test` builds the .vsix (both run in CI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "editors" / "vscode"
VSIX = EXTENSION / "kconfig-ls.vsix"
DRIVER = EXTENSION / "e2e" / "drive.mjs"


def code_server() -> Path | None:
    configured = os.environ.get("KCONFIG_LS_CODE_SERVER")
    if configured:
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = cache / "kconfig-ls" / "code-server" / "node_modules" / ".bin" / "code-server"
    return path if path.exists() else None


def missing() -> str | None:
    if code_server() is None:
        return "code-server is not provisioned (scripts/provision-code-server)"
    if not VSIX.exists() or not (EXTENSION / "node_modules" / "playwright-core").exists():
        return "the extension is not built (scripts/vscode-test)"
    if shutil.which("chromium") is None:
        return "chromium is not installed (apt-get install chromium)"
    return None


@pytest.fixture
def ready():
    reason = missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def drive_vscode(folder: Path, file: str, line: int, column: int, expect: str, *extra: str) -> dict:
    """Run the driver (see editors/vscode/e2e/drive.mjs); its JSON result."""
    proc = subprocess.run(
        ["node", str(DRIVER), "--code-server", str(code_server()), "--vsix", str(VSIX), "--folder", str(folder),
         "--file", file, "--line", str(line), "--column", str(column), "--python", sys.executable,
         "--expect", expect, *extra],
        env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=300, check=False,
        cwd=EXTENSION,
    )
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


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
                          "--break-at", str(depends))
    hover = result["hover"]
    assert hover.startswith("CONFIG_E1000 · tristate · value m"), hover
    assert "set in .config" in hover and "Depends on: NETDEVICES [=y] && PCI [=y]" in hover
    assert "Driver for Intel(R) PRO/1000" in hover
    # The status bar item the extension adds once the server has loaded.
    assert "Kconfig: .config" in result["status"], result["status"]
    # F12 on PCI in "depends on PCI" lands on "config PCI".
    assert result["definition"] == f"Ln {lines.index('config PCI') + 1}, Col 1", result
    # "depends on PCI (" is an error the server reports; the edit stays in the editor.
    assert result["errors_after_break"] >= 1, result
    assert drivers.read_bytes() == before
