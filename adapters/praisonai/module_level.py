"""Calling the package as if from a script's module-level frame.

Shared by the driver and by ``scripts/check_python_module.py``, which calls the package
and the ``toolfix`` module side by side in one process.
"""

import sys

# What a fresh interpreter running a user's script has; the package's own
# RecursionError / ValueError boundaries are defined against these.
PACKAGE_RECURSION_LIMIT = 1000
PACKAGE_INT_MAX_STR_DIGITS = 4300
# Protocol lines may nest deeper and hold longer integers than the package
# tolerates; reading and writing them must not fail where the package would.
IO_RECURSION_LIMIT = 20000
IO_INT_MAX_STR_DIGITS = 0


class AsIfModuleLevel:
    """Run the enclosed package call as if made from a module-level frame.

    CPython counts every frame (and every nested JSON container the C codec
    enters) against one recursion limit, so the depth at which the package
    raises ``RecursionError`` shrinks by one for each frame of this driver
    above the call.  The rule the suite relies on: a package function called
    directly inside this block behaves exactly as if called from a script's
    module-level frame (stack depth 1) with the default limit of 1000.  The
    caller's stack depth is measured on entry and the limit raised by the
    difference; the block must call the package function directly (no
    ``*args`` or C trampolines in between, which would add uncounted levels).
    """

    def __enter__(self):
        depth = 0
        frame = sys._getframe(1)
        while frame is not None:
            depth += 1
            frame = frame.f_back
        sys.setrecursionlimit(PACKAGE_RECURSION_LIMIT + depth - 1)
        sys.set_int_max_str_digits(PACKAGE_INT_MAX_STR_DIGITS)
        return self

    def __exit__(self, *exc_info):
        sys.setrecursionlimit(IO_RECURSION_LIMIT)
        sys.set_int_max_str_digits(IO_INT_MAX_STR_DIGITS)
        return False
