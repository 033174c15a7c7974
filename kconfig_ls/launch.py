"""The ``kconfig-ls`` command's first step (and ``python -m kconfig_ls``'s).

``kconfig-ls serve`` over stdio is first offered to the resident process
(:mod:`.server.resident`), before anything heavy is imported: when one is
running, this process only waits for the server it forked.  Everything
else, and ``serve`` without a resident process, goes on to :mod:`.cli`.
"""

from __future__ import annotations

import sys


def run() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["serve"] and not any(a == "--tcp" or a.startswith("--tcp=") for a in argv):
        from .server.resident import serve_through_resident

        status = serve_through_resident(argv)
        if status is not None:
            sys.exit(status)
    from .cli import run as run_cli

    run_cli()
