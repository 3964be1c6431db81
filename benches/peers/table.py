#!/usr/bin/env python3
"""BENCHMARKS.md's table of toolfix beside the peers, from one run's criterion results.

Usage: python3 benches/peers/table.py "$CARGO_TARGET_DIR/criterion" [--csv FILE] [--goals FILE]

prints the table, or with ``--csv`` writes it to FILE (``benches/results/<date>-peers.csv``,
which BENCHMARKS.md's marker names; ``scripts/benchmarks_table.py render`` writes it there);
``--goals`` writes issue 32's speed goals, judged on the same run, beside it
(``<date>-peers-goals.csv``).

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


def goals(root: Path) -> list[list[str]]:
    """Issue 32's speed goals, each judged on this run: `strict` at least as fast as
    dynamo-parsers `hermes` on every class, the floods within 1.5× the floor, and call-heavy
    replies at 300 MB/s or more."""
    rows = []
    for i, (group, label) in enumerate(CLASSES):
        ours, _ = median_and_bytes(root, group, "toolfix-strict")
        hermes, _ = median_and_bytes(root, group, "dynamo-parsers-hermes")
        goal = "`strict` at least as fast as dynamo-parsers `hermes`, " if i == 0 else "… "
        met = f"**yes** ({hermes / ours:,.1f}×)" if ours <= hermes else \
            f"**no** (hermes {ours / hermes:,.2f}× faster)"
        rows.append([goal + label, f"{fmt_time(ours)} against {fmt_time(hermes)}", met])
    floods = []
    for group, _ in CLASSES[3:]:
        floor, _ = median_and_bytes(root, group, "floor-memmem")
        floods.append(median_and_bytes(root, group, "toolfix-strict")[0] / floor)
    rows.append(["adversarial inputs (the two floods) within 1.5× the floor",
                 " and ".join(f"{x:,.1f}×" for x in floods),
                 "**yes**" if max(floods) <= 1.5 else "**no**"])
    ns, size = median_and_bytes(root, "peers-calls-256KiB", "toolfix-strict")
    floor, _ = median_and_bytes(root, "peers-calls-256KiB", "floor-memmem")
    rate = size / ns * 1e3
    rows.append(["call-heavy replies at 300 MB/s or more (on the way to 600)",
                 f"{rate:,.0f} MB/s (floor {size / floor * 1e3:,.0f} MB/s)",
                 "**yes**" if rate >= 300 else "**no**"])
    return rows


def write(path: Path, header: list[str], body: list[list[str]]) -> None:
    """One table as a CSV file."""
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("criterion", type=Path, help="criterion's output folder")
    parser.add_argument("--csv", type=Path, help="write the table to this CSV file")
    parser.add_argument("--goals", type=Path, help="write the goals to this CSV file")
    args = parser.parse_args()
    header = ["input"] + [label for _, label in COLUMNS]
    body = rows(args.criterion)
    if args.goals:
        write(args.goals, ["goal", "measured", "met"], goals(args.criterion))
    if args.csv:
        write(args.csv, header, body)
        return
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for row in body:
        print("| " + " | ".join(row) + " |")

if __name__ == "__main__":
    main()
