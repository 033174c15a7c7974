"""Where Kconfig symbols are used outside Kconfig files: C sources,
headers, assembly, device trees and linker scripts (through the C
preprocessor), Makefiles and Kbuild files.

Plain text in, plain data out; no tree is needed to scan a file.  What a
use or a conditional evaluates to under a configuration comes from the
macros the configuration defines (:class:`.macros.ConfigMacros`, made from
a loaded tree the way ``include/generated/autoconf.h`` and
``include/config/auto.conf`` are written).
"""
