# Run by `make scriptconfig SCRIPT=<this file> SCRIPT_ARG=<localversion>`
# (tests/system/test_boot.py): on top of tinyconfig, add what a serial
# console boot needs and a unique CONFIG_LOCALVERSION, through the engine.
added = require(BOOT_ESSENTIALS)  # noqa: F821 - provided by kconfig-ls script
require({"LOCALVERSION": arg})  # noqa: F821
kconf.write_config(".config")  # noqa: F821
print("boot essentials added:", " ".join(f"{n}={v}" for n, v in added.items()))
print("LOCALVERSION:", kconf.find("LOCALVERSION").value)  # noqa: F821
