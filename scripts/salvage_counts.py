#!/usr/bin/env python3
"""Instructions `toolfix salvage` (strict) executes on the bench inputs and on byte floods,
under callgrind, for one or more builds side by side: a noise-free before/after of a change
to the salvage core, process start included.

    cargo bench --bench dump_inputs -- "$CARGO_TARGET_DIR/bench-inputs"
    python3 scripts/salvage_counts.py --inputs "$CARGO_TARGET_DIR/bench-inputs" \\
        --build 2142934=/tmp/toolfix-before --build HEAD=target/release/toolfix \\
        --csv benches/results/"$(date -u +%F)"-salvage-counts.csv

The inputs are the 1 MiB replies of `dump_inputs` (the adversarial families and prose) and
six floods of 1 MiB written here: `<tool_call>`, `<tool_call>{`, `<|tool_call_begin|>`,
`[ARGS]`, `<` and `<t`, each repeated. The last column is the last build over the first.
Needs valgrind.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from doc_tables import markdown_table, write_csv

MIB = 1 << 20
# (the string repeated, its row's label: a Markdown cell holds no `|`).
FLOODS = [
    ("<tool_call>", "`<tool_call>` × n"),
    ("<tool_call>{", "`<tool_call>{` × n"),
    ("<|tool_call_begin|>", "Kimi's tool-call-begin token × n"),
    ("[ARGS]", "`[ARGS]` × n"),
    ("<", "`<` × n"),
    ("<t", "`<t` × n"),
]


def instructions(binary, tools, path):
    """The instructions callgrind counts for one `toolfix salvage` of `path`."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary,
         "salvage", "--tools", ",".join(tools), str(path)],
        capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        sys.exit(f"salvage_counts: no count from valgrind for {path}:\n{run.stderr}")
    return int(found.group(1))


def inputs(directory, scratch):
    """(label, tools, path) for each 1 MiB bench input and each flood."""
    manifest = json.loads((directory / "manifest.json").read_text())
    for item in manifest["salvage"]:
        if item["param"] == "1MiB":
            yield f"`{item['group']}` 1 MiB", item["tools"], directory / item["file"]
    for i, (unit, label) in enumerate(FLOODS):
        path = scratch / f"flood-{i}.txt"
        path.write_text(unit * (MIB // len(unit)))
        yield f"{label} 1 MiB", ["get_weather"], path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=Path, required=True, help="dump_inputs' directory")
    parser.add_argument("--build", action="append", required=True, metavar="NAME=PATH",
                        help="a toolfix binary and the name of its column (repeat)")
    parser.add_argument("--csv", type=Path, help="write the table here (else print it)")
    args = parser.parse_args()
    builds = [b.split("=", 1) for b in args.build]
    if any(len(b) != 2 for b in builds):
        sys.exit("salvage_counts: --build takes NAME=PATH")
    header = ["input"] + [f"`{name}`" for name, _ in builds]
    if len(builds) > 1:
        header.append(f"`{builds[-1][0]}` / `{builds[0][0]}`")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for label, tools, path in inputs(args.inputs, Path(scratch)):
            counts = [instructions(binary, tools, path) for _, binary in builds]
            row = [label] + [f"{c / 1e6:.2f} M" for c in counts]
            if len(builds) > 1:
                row.append(f"{counts[-1] / counts[0]:.2f}")
            rows.append(row)
            print(" | ".join(row), file=sys.stderr)
    if args.csv:
        write_csv(args.csv, header, rows)
    else:
        print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
