"""``python -m toolfix``: the ``toolfix`` command."""

from toolfix._cli import main

main()
