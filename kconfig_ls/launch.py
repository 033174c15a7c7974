"""The ``kconfig-ls`` command's first step (and ``python -m kconfig_ls``'s).

``serve`` (over stdio), ``conf``, ``config`` and ``why`` are first offered
to the resident process (:mod:`.resident`), before anything heavy is
imported: when one is running, this process only waits for the one it
forked.  Everything else, and every command when no resident process runs,
goes on to :mod:`.cli`.
"""

from __future__ import annotations

import sys


def run() -> None:
    argv = sys.argv[1:]
    if argv[:1] and argv[0] in ("serve", "conf", "config", "why") and not any(
            a == "--tcp" or a.startswith("--tcp=") for a in argv):
        from .resident import run_through_resident

        status = run_through_resident(argv)
        if status is not None:
            sys.exit(status)
    from .cli import run as run_cli

    run_cli()
