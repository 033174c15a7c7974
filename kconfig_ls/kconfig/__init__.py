"""The kconfig-ls engine: parse a Kconfig tree, compute symbol values with
the kernel C tool's semantics, read and write configuration files.

    from kconfig_ls.kconfig import Kconfig
    kc = Kconfig("Kconfig", srctree="/path/to/linux", env=kernel_env(...).env)
    kc.load_config(".config")
    kc.find("E1000").value

The engine never imports the language server.
"""

from .errors import Diagnostic, KconfigError, Severity
from .evaluate import KconfigSyntaxError
from .expr import BOOL, HEX, INT, STRING, TRISTATE, UNKNOWN, M, N, Y
from .kernel import KernelEnv, kernel_env
from .menu import MenuNode, Property
from .symbols import Symbol
from .tree import Kconfig

__all__ = [
    "BOOL", "HEX", "INT", "STRING", "TRISTATE", "UNKNOWN", "M", "N", "Y",
    "Diagnostic", "Kconfig", "KconfigError", "KconfigSyntaxError", "KernelEnv",
    "MenuNode", "Property", "Severity", "Symbol", "kernel_env",
]  # fmt: skip
