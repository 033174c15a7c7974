#!/usr/bin/env python3
"""Differential fuzzing against the C tool: random small Kconfig trees
(tests/parity/random_trees.py: every symbol type, comparisons, negations,
menus, ifs, choices, a random .config and mode) run through a generation's
C `conf` and through `kconfig-ls conf` following that generation; exit code,
stdout, stderr and the written .config must be the same.  Stops at the first
difference and prints the case (make it a parity snippet once fixed), or
reports how many agreed.

    python scripts/fuzz_parity.py [--seeds 0:2000] [--generation 6.1|6.12] [--conf PATH]

The default tests run a fixed slice of seeds for 6.1 and 6.12
(tests/parity/test_fuzz_parity.py); this script is the long run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "parity"))

from random_trees import RandomTree, random_tree  # noqa: E402

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kconfig-ls"
TREES = {"6.1": "KCONFIG_LS_KERNEL", "6.12": "KCONFIG_LS_KERNEL_6_12"}


def default_conf(generation: str) -> Path:
    tree = os.environ.get(TREES[generation]) or CACHE / f"linux-source-{generation}"
    return Path(tree) / "scripts" / "kconfig" / "conf"


def run_case(case: RandomTree, command: list[str], work: Path, env: dict[str, str]) -> tuple:
    """Exit code, stdout, stderr and the .config one tool leaves for ``case``."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "Kconfig").write_text(case.kconfig)
    config = work / ".config"
    config.write_text(case.config)
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/"),
                "KCONFIG_SEED": "0x5eed", **env}
    proc = subprocess.run([*command, f"--{case.mode}", "Kconfig"], cwd=work, capture_output=True, text=True,
                          env=full_env, timeout=120, check=False)
    return proc.returncode, proc.stdout, proc.stderr, config.read_text() if config.exists() else None


#: What compare() says of a case the C tool itself crashed on, or read
#: freed memory in (6.12's cycle check prints "Oops! How to check <garbage>"
#: for some trees): there is no defined output to agree with; such trees are
#: counted, not compared.
C_CRASHED = "the C tool crashed"


def compare(seed: int, generation: str, conf: Path, work: Path) -> str | None:
    """None when both tools agree on the case of ``seed``, C_CRASHED when
    the C tool died of a signal, else a report of the difference."""
    case = random_tree(seed, member_choices=generation != "6.1")
    c = run_case(case, [str(conf)], work / "c", {})
    if c[0] < 0 or "Oops! How to check" in c[2]:
        return C_CRASHED
    ours = run_case(case, [sys.executable, "-m", "kconfig_ls.cli", "conf"], work / "ours",
                    {"PYTHONPATH": str(REPO), "KCONFIG_LS_KCONFIG_VERSION": generation})
    if c == ours:
        return None
    report = [f"seed {seed} ({generation}, --{case.mode}): the outputs differ",
              "--- Kconfig ---", case.kconfig, "--- .config given ---", case.config]
    for label, (rc, out, err, config) in (("C conf", c), ("kconfig-ls", ours)):
        report.append(f"--- {label}: exit {rc} ---\n{out}{err}--- {label}: .config ---\n{config}")
    return "\n".join(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:2000", help="first:last (exclusive)")
    parser.add_argument("--generation", default="6.1", choices=sorted(TREES))
    parser.add_argument("--conf", help="the C conf binary (default: the generation's provisioned tree)")
    args = parser.parse_args()
    conf = Path(args.conf) if args.conf else default_conf(args.generation)
    first, last = (int(x) for x in args.seeds.split(":"))
    crashed = []
    with tempfile.TemporaryDirectory(prefix="kconfig-ls-fuzz-") as tmp:
        for seed in range(first, last):
            report = compare(seed, args.generation, conf, Path(tmp))
            if report == C_CRASHED:
                crashed.append(seed)
            elif report is not None:
                print(report)
                return 1
    print(f"{last - first - len(crashed)} random trees ({args.generation}): the same exit codes, messages and "
          f".config; the C tool crashed on {len(crashed)} (seeds {crashed[:20]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
