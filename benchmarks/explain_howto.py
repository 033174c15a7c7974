#!/usr/bin/env python3
"""Time of ``explain`` and ``how_to`` on the x86_64 tree, for deep options
that are ``n`` in allnoconfig (the base config is made by the C tool).

    python benchmarks/explain_howto.py [--tree DIR] [--arch x86_64]

Prints per-symbol times (the how_to time includes verifying the answer by
re-reading the edited config) and the medians.  Kconfiglib and the C tool
have no equivalent, so there is no ratio to print.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kconfig_ls.kconfig import configfile  # noqa: E402
from kconfig_ls.kconfig.explain import explain  # noqa: E402
from kconfig_ls.kconfig.howto import how_to  # noqa: E402
from kconfig_ls.kconfig.kernel import kernel_env  # noqa: E402
from kconfig_ls.kconfig.tree import Kconfig  # noqa: E402

SYMBOLS = [
    ("E1000", "y"), ("IWLWIFI", "m"), ("BT_HCIBTUSB", "m"), ("SND_HDA_INTEL", "m"), ("DRM_AMDGPU", "m"),
    ("USB_STORAGE", "y"), ("VIRTIO_BLK", "y"), ("NFS_FS", "y"), ("KVM_INTEL", "y"), ("SERIAL_8250_CONSOLE", "y"),
    ("DEBUG_INFO_DWARF5", "y"), ("X86_X2APIC", "y"), ("ATH10K_AHB", "y"), ("VIDEO_CX231XX_ALSA", "y"),
    ("IWLEGACY_DEBUGFS", "y"), ("SND_SOC_INTEL_KBL_RT5663_MAX98927_MACH", "y"), ("HZ_1000", "y"),
    ("NR_CPUS", "8192"), ("X86_32", "y"), ("HIGHMEM64G", "y"),
]  # fmt: skip


def main() -> int:
    default_tree = os.environ.get("KCONFIG_LS_KERNEL", os.path.expanduser("~/.cache/kconfig-ls/linux-source-6.1"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", default=default_tree)
    parser.add_argument("--arch", default="x86_64")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as build:
        subprocess.run(["make", "-s", f"ARCH={args.arch}", f"O={build}", "allnoconfig"], cwd=args.tree,
                       check=True, capture_output=True)
        base = Path(build, ".config").read_text()
    ke = kernel_env(args.tree, args.arch)
    start = time.perf_counter()
    kc = Kconfig(ke.kconfig, srctree=args.tree, env=ke.env)
    configfile.read_config(kc, "allnoconfig", text=base)
    print(f"load + read config: {time.perf_counter() - start:.2f} s")
    explain_times, howto_times = [], []
    print(f"{'symbol':42} {'explain':>9} {'how_to':>9}  answer")
    for name, target in SYMBOLS:
        sym = kc.find(name)
        t0 = time.perf_counter()
        explain(kc, sym)
        t1 = time.perf_counter()
        answer = how_to(kc, sym, target, base)
        t2 = time.perf_counter()
        explain_times.append(t1 - t0)
        howto_times.append(t2 - t1)
        what = f"{len(answer.assignments)} changes" if answer.reachable else "impossible"
        print(f"{name + '=' + target:42} {1000 * (t1 - t0):7.1f}ms {1000 * (t2 - t1):7.0f}ms  {what}")
    print(f"median: explain {1000 * statistics.median(explain_times):.1f} ms, "
          f"how_to {1000 * statistics.median(howto_times):.0f} ms, max how_to {max(howto_times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
