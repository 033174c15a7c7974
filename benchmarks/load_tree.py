#!/usr/bin/env python3
"""Load-and-configure time on a kernel tree: kconfig-ls against the C tool
(and Kconfiglib when it is installed), measured side by side in one run.

    python benchmarks/load_tree.py [--tree DIR] [--arch x86_64] [--mode allnoconfig] [--runs 5]

Prints the median wall time of each contender and the ratios to the C tool;
each round runs every contender once (this VM's speed drifts by a fifth
from one quarter hour to the next, and so weighs on all alike).
"Cold" runs every toolchain probe and parses every file; "warm" is the next
run of the same tree: probe results from the shell cache and the finalised
tree from its snapshot (kconfig_ls/kconfig/tree_cache.py).
"Forked by the resident process" is `kconfig-ls conf` as a user runs it
once an earlier run left the resident process behind (kconfig_ls/resident.py).
The C tool runs as `conf --<mode> Kconfig` in the tree with the same
environment the engine computes (what `make` gives it, minus make itself);
`make <mode>` is timed too.  Kconfiglib 14.1 cannot parse Linux 6.1 as is,
so it runs on a copy whose kernel/module/Kconfig says `option modules`.
"CPU" accounts for where the cold time goes: the C tool's own CPU time
and its toolchain probes' (every command the tree runs, run once more one
after the other), ours with every probe answered from the cache, and the
floor that leaves on this machine's cores for a cold run of ours, however
well the probes overlap the parse: the parse needs every probe's answer
before it ends, and what follows it (finalising, the cycle check, the
values, writing: "ours after the parse") runs on one core whatever the
probes did, so the floor is (our parse + the probes) / cores + the rest.
Timings are never asserted anywhere: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from user_python import user_env  # noqa: E402

from kconfig_ls.kconfig import (  # noqa: E402
    configfile,
    session,
    shell_cache,
    tree_cache,
)
from kconfig_ls.kconfig import generation as generations  # noqa: E402
from kconfig_ls.kconfig.kernel import kernel_env  # noqa: E402
from kconfig_ls.kconfig.preprocess import run_shell  # noqa: E402
from kconfig_ls.kconfig.shell_cache import ShellCache  # noqa: E402
from kconfig_ls.kconfig.tree import Kconfig  # noqa: E402


def _only_kconfig_inputs(directory: str, names: list[str]) -> list[str]:
    """copytree filter: Kconfig files everywhere, all of scripts/."""
    if "/scripts" in directory or directory.endswith("scripts"):
        return []
    return [n for n in names if os.path.isfile(os.path.join(directory, n)) and not n.startswith("Kconfig")]


def children_cpu(fn) -> float:
    """CPU seconds (user + system) of the processes ``fn`` ran and waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def cpu_after_parse(fn) -> float:
    """CPU seconds of this process in ``fn`` after a load's parse ended
    (``Kconfig._build`` returned: every statement read, every probe
    answered)."""
    marks: list[float] = []
    build = Kconfig._build

    def timed_build(self, *args):
        result = build(self, *args)
        marks.append(time.process_time())
        return result

    Kconfig._build = timed_build
    try:
        fn()
    finally:
        Kconfig._build = build
    return time.process_time() - marks[-1]


def own_cpu(fn) -> float:
    """CPU seconds of this process (all its threads) while ``fn`` runs."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def wait_for_snapshots(directory: Path, count: int) -> None:
    """Until the tree snapshots a finished run left behind are written."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(directory.glob("*.pickle"))) < count:
        time.sleep(0.1)


def main() -> int:
    default_tree = os.environ.get("KCONFIG_LS_KERNEL") or os.path.expanduser(
        "~/.cache/kconfig-ls/linux-source-6.1"
    )
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=default_tree)
    parser.add_argument("--arch", default="x86_64")
    parser.add_argument("--mode", default="allnoconfig")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tree = Path(args.tree).resolve()
    ke = kernel_env(str(tree), args.arch)
    work = Path(tempfile.mkdtemp(prefix="kconfig-ls-bench-"))

    conf = tree / "scripts" / "kconfig" / "conf"
    c_env = dict(ke.env, KCONFIG_CONFIG=str(work / "c.config"))
    for var in ("KCONFIG_AUTOCONFIG", "KCONFIG_AUTOHEADER", "KCONFIG_RUSTCCFG"):
        c_env[var] = str(work / f"c-{var.lower()}")

    def run_c() -> None:
        subprocess.run([str(conf), "-s", f"--{args.mode}", "Kconfig"], cwd=tree, env=c_env, check=True,
                       stdout=subprocess.DEVNULL)

    build = work / "make-build"

    def run_make() -> None:
        subprocess.run(["make", "-s", f"ARCH={args.arch}", f"O={build}", args.mode], cwd=tree, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    cache_home = work / "cache"

    def run_ours(warm: bool) -> None:
        shell = ShellCache(str(tree), dict(ke.env, XDG_CACHE_HOME=str(cache_home))) if warm else None
        kc = Kconfig(ke.kconfig, srctree=str(tree), env=ke.env, shell=shell)
        if shell is not None:
            shell.save()
        session.apply_mode(kc, args.mode)
        configfile.config_text(kc)

    snapshot_env = dict(ke.env, XDG_CACHE_HOME=str(cache_home))
    snapshot_env.pop(shell_cache.NO_CACHE_VARIABLE, None)

    def run_ours_snapshot() -> None:
        shell = ShellCache(str(tree), snapshot_env)
        kc = tree_cache.load(ke.kconfig, srctree=str(tree), env=snapshot_env, shell=shell,
                             generation=generations.choose(str(tree), snapshot_env))
        session.apply_mode(kc, args.mode)
        configfile.config_text(kc)
        tree_cache.reap_writers(wait=120)

    ours_env = user_env(dict(c_env, KCONFIG_CONFIG=str(work / "ours.config")))

    def run_ours_cli(warm: bool) -> None:
        env = dict(ours_env, XDG_CACHE_HOME=str(cache_home)) if warm else dict(ours_env, KCONFIG_LS_NO_CACHE="1")
        subprocess.run([sys.executable, "-m", "kconfig_ls.cli", "conf", "-s", f"--{args.mode}", "Kconfig"],
                       cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)

    # `kconfig-ls config MODE` as the issue names it: no make, the tree's
    # environment computed by kconfig-ls itself (kernel.py), a user's shell.
    config_out = work / "config.config"
    config_env = user_env(dict(os.environ, KCONFIG_LS_NO_CACHE="1"))

    def run_ours_config() -> None:
        subprocess.run([sys.executable, "-m", "kconfig_ls.cli", "config", args.mode, "--tree", str(tree),
                        "--arch", args.arch, "-o", str(config_out)],
                       cwd=work, env=config_env, check=True, stdout=subprocess.DEVNULL)

    # `kconfig-ls conf` as users run it: forked by the resident process
    # (kconfig_ls/resident.py) that the first run leaves behind, with the
    # tree's snapshot read ahead.  A runtime directory of this run's own
    # (short: a Unix socket's path is limited), its resident ended after.
    runtime = tempfile.mkdtemp(prefix="klb", dir="/tmp")
    resident_env = dict(ours_env, XDG_CACHE_HOME=str(cache_home), XDG_RUNTIME_DIR=runtime)
    resident_env.pop("KCONFIG_LS_RESIDENT", None)

    def run_ours_resident() -> None:
        subprocess.run([sys.executable, "-m", "kconfig_ls", "conf", "-s", f"--{args.mode}", "Kconfig"],
                       cwd=tree, env=resident_env, check=True, stdout=subprocess.DEVNULL)

    contenders = {
        "C conf": run_c,
        "make (C conf + make overhead)": run_make,
        "kconfig-ls (in process, cold)": lambda: run_ours(False),
        "kconfig-ls (in process, warm shell cache)": lambda: run_ours(True),
        "kconfig-ls (in process, warm snapshot)": run_ours_snapshot,
        "kconfig-ls conf (new process, cold)": lambda: run_ours_cli(False),
        "kconfig-ls config (new process, cold)": run_ours_config,
        "kconfig-ls conf (new process, warm)": lambda: run_ours_cli(True),
        "kconfig-ls conf (forked by the resident process)": run_ours_resident,
    }

    try:
        import kconfiglib  # type: ignore
    except ImportError:
        kconfiglib = None
    if kconfiglib is not None:
        copy = work / "kconfiglib-tree"
        shutil.copytree(tree, copy, symlinks=True, ignore=_only_kconfig_inputs)
        module_kconfig = copy / "kernel" / "module" / "Kconfig"
        text = module_kconfig.read_text()
        module_kconfig.write_text(text.replace("\n\tmodules\n", "\n\toption modules\n", 1))
        env_backup = dict(os.environ)

        def run_kconfiglib() -> None:
            os.environ.update(ke.env)
            os.environ["srctree"] = str(copy)
            try:
                kconf = kconfiglib.Kconfig(str(copy / "Kconfig"), warn=False)
                for sym in kconf.unique_defined_syms:
                    sym.set_value(0 if args.mode == "allnoconfig" else 2)
                kconf.write_config(str(work / "kconfiglib.config"), save_old=False)
            finally:
                os.environ.clear()
                os.environ.update(env_backup)

        contenders["Kconfiglib 14.1 (load, set all, write)"] = run_kconfiglib

    # Every cache a warm contender reads is filled first; then each round
    # runs every contender once, so a slower spell of this machine weighs
    # on all of them alike.
    run_make()  # builds conf in the O= directory once
    run_ours(True)  # the shell cache
    run_ours_snapshot()  # the tree's snapshot
    run_ours_cli(True)
    wait_for_snapshots(cache_home / "kconfig-ls" / "trees", 2)
    times: dict[str, list[float]] = {name: [] for name in contenders}
    try:
        for _ in range(3):  # (the first starts the resident process; it reads the snapshot ahead)
            run_ours_resident()
            time.sleep(1.5)
        for _ in range(args.runs):
            for name, run in contenders.items():
                gc.collect()  # (an earlier contender's garbage is not this one's to collect)
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
    finally:
        subprocess.run(["pkill", "-f", f"kconfig_ls.resident {runtime}/"], check=False)
        shutil.rmtree(runtime, ignore_errors=True)
    results = {name: statistics.median(values) for name, values in times.items()}
    c_config = (work / "c.config").read_bytes()
    same = (work / "ours.config").read_bytes() == c_config and config_out.read_bytes() == c_config

    commands = list(ShellCache(str(tree), dict(ke.env, XDG_CACHE_HOME=str(cache_home)))._entries)
    cpu = {
        "C conf": statistics.median(children_cpu(run_c) for _ in range(args.runs)),
        "its probes": statistics.median(
            children_cpu(lambda: [run_shell(c, cwd=str(tree), env=ke.env) for c in commands])
            for _ in range(args.runs)),
        "ours without probes": statistics.median(own_cpu(lambda: run_ours(True)) for _ in range(args.runs)),
        "ours after the parse": statistics.median(cpu_after_parse(lambda: run_ours(True)) for _ in range(args.runs)),
    }

    base = results["C conf"]
    make = results["make (C conf + make overhead)"]
    print(f"{args.mode} on {tree} ARCH={args.arch}, median of {args.runs} rounds (each runs every contender once)")
    for name, seconds in results.items():
        print(f"  {name:50s} {seconds:7.3f} s   x{seconds / base:5.2f} of C conf   x{seconds / make:5.2f} of make")
    print(f"  kconfig-ls output identical to C conf: {same}")
    cores = os.cpu_count() or 1
    ours, after = cpu["ours without probes"], cpu["ours after the parse"]
    floor = max(ours, (ours - after + cpu["its probes"]) / cores + after)
    print(f"CPU seconds: C conf {cpu['C conf']:.3f} (its {len(commands)} probes {cpu['its probes']:.3f}), "
          f"kconfig-ls without probes {ours:.3f} ({after:.3f} of it after the parse)")
    print(f"  floor of a cold in-process run on {cores} cores (probes perfectly overlapped with the parse, "
          f"the rest after it): {floor:.3f} s, x{floor / base:.2f} of C conf")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
