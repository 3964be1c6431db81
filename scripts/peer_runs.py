#!/usr/bin/env python3
"""The runs of adapters/peers.txt, read in one place: .ci/peers runs them, peer_matrix.py
and adapter_tables.py count them.

Each run has a name (its report is reports/peer-NAME.jsonl), an adapter folder, a parser
(empty for an adapter with one) and a known-failures file: an adapter's first run is its
default, whose file is known-failures.toml; another parser's is known-failures-PARSER.toml.

    python3 scripts/peer_runs.py    # one line per run: NAME ADAPTER PARSER-or-- KNOWN
"""

from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "adapters" / "peers.txt"


class Run(NamedTuple):
    """One run of adapters/peers.txt."""
    name: str
    adapter: str
    parser: str
    # The known-failures file, relative to the repository.
    known: str


def runs():
    """Every run of adapters/peers.txt, in order."""
    out, seen = [], set()
    for line in PEERS.read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        adapter, parser = words[0], (words[1] if len(words) > 1 else "")
        default = adapter not in seen
        seen.add(adapter)
        known = "known-failures.toml" if default else f"known-failures-{parser}.toml"
        out.append(Run(f"{adapter}-{parser}" if parser else adapter, adapter, parser,
                       f"adapters/{adapter}/{known}"))
    return out


def main():
    for run in runs():
        print(run.name, run.adapter, run.parser or "-", run.known)


if __name__ == "__main__":
    main()
