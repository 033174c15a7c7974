"""``python -m kconfig_ls``: the same as the ``kconfig-ls`` command."""

import sys

from .cli import main

sys.exit(main())
