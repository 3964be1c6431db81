#!/usr/bin/env python3
"""BENCHMARKS.md's table of toolfix beside the peers, from one run's criterion results.

Usage: python3 benches/peers/table.py "$CARGO_TARGET_DIR/criterion" [--csv FILE]

prints the table, or with ``--csv`` writes it to FILE (``benches/results/<date>-peers.csv``,
which BENCHMARKS.md's marker names; ``scripts/benchmarks_table.py render`` writes it there).

Each cell is criterion's median (the machine is shared, and a median is what one slow
sample moves least), then its multiple of the floor in the same group; the call-heavy
row adds throughput in MB/s (10^6 bytes per second) under each time.
"""

import argparse
import csv
import json
from pathlib import Path

# (criterion group, row label), in the order.
CLASSES = [
    ("peers-clean-prose", "clean prose, 1 MiB"),
    ("peers-action-prose", '"action"/"function" prose, 1 MiB'),
    ("peers-calls-256KiB", "`<tool_call>` replies, 256 KiB"),
    ("peers-tool_call-open-brace", "`<tool_call>{` × n, 1 MiB"),
    ("peers-tool_call-bare", "`<tool_call>` × n, 1 MiB"),
]
# (criterion function, column label).
COLUMNS = [
    ("floor-memmem", "floor (memmem count)"),
    ("toolfix-strict", "toolfix `strict`"),
    ("toolfix-praisonai", "toolfix `praisonai`"),
    ("dynamo-parsers-hermes", "dynamo-parsers `hermes`"),
    ("smg-tool-parser-qwen", "tool-parser `qwen`"),
    ("agent-tool-parser-core", "agent-tool-parser-core"),
]


def median_and_bytes(root: Path, group: str, function: str) -> tuple[float, int]:
    """Criterion's median in ns and the input's size, from the one parameter directory."""
    (run,) = (root / group / function).glob("*/new")
    median = json.loads((run / "estimates.json").read_text())["median"]["point_estimate"]
    size = json.loads((run / "benchmark.json").read_text())["throughput"]["Bytes"]
    return median, size


def fmt_time(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs" if ns >= 1e3 else f"{ns:.0f} ns"


def rows(root: Path) -> list[list[str]]:
    """One row per input class: its label, then each contender's cell."""
    table = []
    for group, label in CLASSES:
        floor, size = median_and_bytes(root, group, "floor-memmem")
        cells = []
        for function, _ in COLUMNS:
            ns, _ = median_and_bytes(root, group, function)
            cell = fmt_time(ns)
            if function != "floor-memmem":
                cell += f" ({ns / floor:,.1f}×)"
            if group == "peers-calls-256KiB":
                cell += f", {size / ns * 1e3:,.0f} MB/s"
            cells.append(cell)
        table.append([label] + cells)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("criterion", type=Path, help="criterion's output folder")
    parser.add_argument("--csv", type=Path, help="write the table to this CSV file")
    args = parser.parse_args()
    header = ["input"] + [label for _, label in COLUMNS]
    body = rows(args.criterion)
    if args.csv:
        with args.csv.open("w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([header] + body)
        return
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for row in body:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
