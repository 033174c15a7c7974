"""``python -m kconfig_ls``: the same as the ``kconfig-ls`` command."""

from .cli import run

run()
