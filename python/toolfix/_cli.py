"""The ``toolfix`` command of the Python package: the Rust command line, run in-process."""

import signal
import sys

from toolfix._native import main as _main


def main():
    """Runs ``toolfix`` with this process's arguments and exits with its status."""
    # The command runs without the interpreter's lock, where Python's own Ctrl-C handler
    # would never get to run: let the signal end the process as it ends the binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_main(["toolfix", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
