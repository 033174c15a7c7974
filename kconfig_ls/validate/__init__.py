"""Validation: write the configuration, check it with the kernel's own
tool, build ``bzImage`` out of tree and boot it in QEMU.

Not part of the engine: this layer runs ``make``, ``gcc`` and QEMU.  Every
long step is an ``async`` function that reports progress through a callback
and ends its child processes when cancelled.
"""
