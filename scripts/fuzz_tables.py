#!/usr/bin/env python3
"""Writes docs/fuzzing.md's generated tables from fuzz/campaigns.csv and fuzz/findings.toml.

    python3 scripts/fuzz_tables.py            # rewrite the tables in docs/fuzzing.md
    python3 scripts/fuzz_tables.py --check    # exit 1 if they are not what the data gives

Two tables: campaign totals per target (between ``<!-- campaign-totals:begin -->`` and
``<!-- campaign-totals:end -->``) and the findings (``<!-- findings:begin -->`` …
``<!-- findings:end -->``). A campaign's seconds or runs written ``~N`` are about N; a
total that adds one is written "about".
"""

import argparse
import os
import sys
import tomllib

from doc_tables import ROOT, markdown_table, read_csv, replace_between, write_or_check

DOC = os.path.join(ROOT, "docs", "fuzzing.md")
CAMPAIGNS = os.path.join("fuzz", "campaigns.csv")
FINDINGS = os.path.join(ROOT, "fuzz", "findings.toml")


def fuzz_targets():
    """The cargo-fuzz targets, in the order fuzz/Cargo.toml declares them (and
    docs/fuzzing.md lists them)."""
    with open(os.path.join(ROOT, "fuzz", "Cargo.toml"), "rb") as f:
        return [binary["name"] for binary in tomllib.load(f)["bin"]]


TARGETS = fuzz_targets()


def read_findings():
    """The ``[[finding]]`` tables of fuzz/findings.toml, in file order."""
    with open(FINDINGS, "rb") as f:
        return tomllib.load(f)["finding"]


def number(text):
    """``(value, approximate)`` of a count written ``1234`` or ``~1234``."""
    return int(text.lstrip("~")), text.startswith("~")


def about(value, approximate, unit=""):
    """A total with thousands separators, "about" when any part was approximate."""
    return ("about " if approximate else "") + f"{value:,}{unit}"


def campaign_totals(campaigns, findings):
    """One row per target: campaigns, hours, executions, the last campaign, findings."""
    rows = []
    for target in TARGETS:
        mine = [c for c in campaigns if c["target"] == target]
        seconds = [number(c["seconds"]) for c in mine]
        runs = [number(c["runs"]) for c in mine]
        hours = sum(s for s, _ in seconds) / 3600
        last = mine[-1] if mine else None
        ids = [f["id"] for f in findings if f["target"] == target]
        rows.append([
            f"`{target}`",
            str(len(mine)),
            ("about " if any(a for _, a in seconds) else "") + f"{hours:.1f} h",
            about(sum(r for r, _ in runs), any(a for _, a in runs)),
            f"{last['date']} {last['commit']}".strip() if last else "–",
            ", ".join(ids) or "none",
        ])
    header = ["target", "campaigns", "time", "executions", "last campaign", "findings"]
    return markdown_table(header, rows)


def findings_table(findings):
    """One row per finding: id, target, kind, what it broke, fix commits, input count."""
    rows = [[f["id"], f"`{f['target']}`" if f["target"] in TARGETS else f["target"], f["kind"],
             f["broke"],
             ", ".join(f["fix_commits"]) or "not identified", str(len(f["regressions"]))]
            for f in findings]
    return markdown_table(["id", "target", "kind", "broke", "fix", "inputs"], rows)


def generate(text):
    """docs/fuzzing.md's text with both tables written from the data."""
    header, rows = read_csv(CAMPAIGNS)
    campaigns = [dict(zip(header, row)) for row in rows]
    unknown = {c["target"] for c in campaigns} - set(TARGETS)
    if unknown:
        sys.exit(f"{CAMPAIGNS}: unknown targets {sorted(unknown)}")
    findings = read_findings()
    text = replace_between(text, "<!-- campaign-totals:begin -->",
                           "<!-- campaign-totals:end -->",
                           campaign_totals(campaigns, findings))
    return replace_between(text, "<!-- findings:begin -->", "<!-- findings:end -->",
                           findings_table(findings))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that docs/fuzzing.md is current")
    args = parser.parse_args()
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    sys.exit(write_or_check(DOC, generate(text), args.check))


if __name__ == "__main__":
    main()
