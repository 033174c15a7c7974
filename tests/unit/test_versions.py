"""One version everywhere: the Python package (and so its wheel), the VS
Code extension and the Neovim plugin (whose :checkhealth compares it with
the server's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kconfig_ls import __version__

REPO = Path(__file__).resolve().parents[2]


def test_extension_and_plugin_carry_the_package_version():
    package = json.loads((REPO / "editors" / "vscode" / "package.json").read_text())
    assert package["version"] == __version__
    plugin = (REPO / "editors" / "nvim" / "lua" / "kconfig_ls" / "init.lua").read_text()
    assert re.search(r"^M\.version = '([^']+)'$", plugin, re.M).group(1) == __version__
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'attr = "kconfig_ls.__version__"' in pyproject
