"""The kernel patch series (kernel/patches/): it applies cleanly to the
package's pristine tree, and the patched tree's `make help` lists the new
targets."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
PATCHES = sorted((REPO / "kernel" / "patches").glob("*.patch"))


def test_series_is_in_format_patch_style():
    assert [p.name[:5] for p in PATCHES] == ["0001-", "0002-"]
    for patch in PATCHES:
        text = patch.read_text()
        assert text.startswith("From 0000000000000000000000000000000000000000 ")
        assert "\nSubject: [PATCH " in text and "\n---\n" in text


def test_series_applies_cleanly_to_the_pristine_tree(kernel_tree, tmp_path):
    # The provisioned tree is a fresh extract of linux-source-6.1 that
    # nothing modifies: copy the files the series touches and apply for real.
    touched = set()
    for patch in PATCHES:
        for line in patch.read_text().splitlines():
            if line.startswith("+++ b/"):
                touched.add(line[6:])
    for name in touched:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((kernel_tree / name).read_bytes())
    for patch in PATCHES:
        proc = subprocess.run(["patch", "-p1", "--forward", "--no-backup-if-mismatch", "-i", str(patch)],
                              cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode == 0 and "offset" not in proc.stdout and "fuzz" not in proc.stdout, proc.stdout


def test_patched_tree_lists_the_targets_in_make_help(tmp_path):
    tree = subprocess.run([str(REPO / "scripts" / "patched-kernel")], capture_output=True, text=True,
                          check=True).stdout.strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCONFIG_")}
    out = subprocess.run(["make", "-s", f"O={tmp_path}", "help"], cwd=tree, env=env, capture_output=True,
                         text=True, check=True).stdout
    assert "  scriptconfig	  - Run a Python script against the configuration (kconfig-ls):" in out
    assert "  iscriptconfig	  - Interactive Python shell with the configuration loaded (kconfig-ls)" in out
    docs = Path(tree, "Documentation", "kbuild", "kconfig.rst").read_text()
    assert "Python scripts: scriptconfig and iscriptconfig" in docs
