#!/usr/bin/env python3
"""Differential fuzzing against the C tool: random small Kconfig trees
(menus, ifs, depends/select/imply/default with random expressions, so
cycles and unclosed blocks come up) run through the kernel's C `conf` and
through `kconfig-ls conf`; exit code, stdout, stderr and the written
.config must be the same.  Stops at the first difference and prints the
tree (use it as a parity snippet), or reports how many trees agreed.

    python scripts/fuzz_parity.py [--seeds 0:200] [--mode allnoconfig] [--conf PATH]

Not part of the test suite: it looks for new cases; what it finds becomes
a test in tests/unit/test_parity_snippets.py once fixed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONF = Path(os.environ.get("KCONFIG_LS_KERNEL")
                    or Path.home() / ".cache/kconfig-ls/linux-source-6.1") / "scripts/kconfig/conf"


def random_tree(rng: random.Random) -> str:
    """A tree of 3-9 tristate symbols with random properties and blocks."""
    names = [f"S{i}" for i in range(rng.randint(3, 9))]

    def expr() -> str:
        parts = [rng.choice(names) for _ in range(rng.randint(1, 3))]
        text = parts[0]
        for part in parts[1:]:
            text += rng.choice([" && ", " || "]) + part
        return text

    lines: list[str] = []
    open_blocks: list[str] = []
    for name in names:
        if rng.random() < 0.25 and len(open_blocks) < 3:
            lines.append(f'menu "m{len(lines)}"')
            if rng.random() < 0.7:
                lines.append(f"\tdepends on {expr()}")
            open_blocks.append("endmenu")
        if rng.random() < 0.2 and len(open_blocks) < 3:
            lines.append(f"if {expr()}")
            open_blocks.append("endif")
        lines.append(f'config {name}\n\ttristate "{name}"')
        for _ in range(rng.randint(0, 3)):
            kind = rng.choice(["depends on", "select", "imply", "default"])
            cond = f" if {expr()}" if kind != "depends on" and rng.random() < 0.4 else ""
            target = expr() if kind in ("depends on", "default") else rng.choice(names)
            lines.append(f"\t{kind} {target}{cond}")
        if open_blocks and rng.random() < 0.3:
            lines.append(open_blocks.pop())
    while open_blocks and rng.random() < 0.9:
        lines.append(open_blocks.pop())
    return "\n".join(lines) + "\n"


def run(cmd: list[str], tree: str, work: Path) -> tuple:
    work.mkdir(parents=True, exist_ok=True)
    (work / "Kconfig").write_text(tree)
    config = work / ".config"
    config.unlink(missing_ok=True)
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    return proc.returncode, proc.stdout, proc.stderr, config.read_text() if config.exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:200", help="first:last (exclusive)")
    parser.add_argument("--mode", default="allnoconfig")
    parser.add_argument("--conf", default=str(DEFAULT_CONF), help="the C conf binary")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split(":"))
    with tempfile.TemporaryDirectory(prefix="kconfig-ls-fuzz-") as tmp:
        for seed in range(first, last):
            tree = random_tree(random.Random(seed))
            c = run([args.conf, f"--{args.mode}", "Kconfig"], tree, Path(tmp) / "c")
            ours = run([sys.executable, "-m", "kconfig_ls.cli", "conf", f"--{args.mode}", "Kconfig"], tree,
                       Path(tmp) / "ours")
            if c != ours:
                print(f"seed {seed}: the outputs differ\n--- Kconfig ---\n{tree}")
                for label, (rc, out, err, config) in (("C conf", c), ("kconfig-ls", ours)):
                    print(f"--- {label}: exit {rc} ---\n{out}{err}")
                    if config != c[3]:
                        print(config)
                return 1
    print(f"{last - first} random trees: the same exit codes, messages and .config")
    return 0


if __name__ == "__main__":
    sys.exit(main())
