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
    # (resident.py imports only the standard library.)
    from .resident import run_through_resident

    status = run_through_resident(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from .cli import run as run_cli

    run_cli()
