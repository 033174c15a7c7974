"""``python -m kconfig_ls``: the same as the ``kconfig-ls`` command."""

from .launch import run

run()
