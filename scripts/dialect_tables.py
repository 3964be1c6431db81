#!/usr/bin/env python3
"""The tables of the dialect pages (`docs/dialects/*.md`) that data files hold.

A page holds a measured table (say, a differential against an engine's parser, written
by `scripts/compare_engine_parsers.py --csv`) between `<!-- table: PATH -->` and
`<!-- end table -->`; this rewrites each such block from its CSV file, or with `--check`
exits 1 when a page is not what its data gives.

    python3 scripts/dialect_tables.py [--check]
"""

import argparse
import glob
import os
import sys

from doc_tables import ROOT, render_csv_blocks, write_or_check


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    status = 0
    for page in sorted(glob.glob(os.path.join(ROOT, "docs/dialects/*.md"))):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        status |= write_or_check(page, render_csv_blocks(text), args.check)
    return status


if __name__ == "__main__":
    sys.exit(main())
