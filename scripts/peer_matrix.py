#!/usr/bin/env python3
"""docs/matrix.md and the results table of each adapter's README: what every peer
implementation does with the suite, from the reports `.ci/peers` writes
(reports/peer-NAME.jsonl, one per run of adapters/peers.txt).

    python3 scripts/peer_matrix.py                  # write docs/matrix.md and the READMEs' tables
    python3 scripts/peer_matrix.py --check          # exit 1 (with a diff) if one is not current
    python3 scripts/peer_matrix.py --reports DIR    # reports elsewhere (default: reports)
    python3 scripts/peer_matrix.py --html PAGE      # also the page as HTML, every failure in it

The page is generated, never edited: one row per implementation and parser, with pass and
fail counts per rule of docs/guarantees.md, per dialect and per op; one row per parser each
inference engine registers (adapters/ENGINE/inventory.py, reports/inventory-ENGINE.jsonl),
whether it runs the suite or why not; the failures on safety rules, one line per case with
the chunkings it fails in and the reason its known-failures file gives; and the findings of
adapters/findings.toml, each with the command that reproduces it. A finding whose case does
not fail for its run is an error: a fixed bug or a renamed case cannot linger on the page;
so is an engine parser that maps to a toolfix dialect with no run in adapters/peers.txt, or
a run of a parser its engine no longer registers or loads. Nothing on it depends on when or
how fast the runs went, so `--check` holds until a result changes.

Each adapter's README (adapters/ADAPTER/README.md) holds its runs' counts as a table the
script writes between marker lines (scripts/adapter_tables.py), the same counts as the
page's Runs table, with each run's failures by rule and its known-failures file; no
README states a count by hand. A README of an adapter with a run but without the markers
is an error.

`--html` writes the same page as HTML (scripts/matrix_html.py), with every failing case of
every run opening to the command that replays it; `scripts/check_page.py` checks that in
headless Chromium (.ci/peers runs both).

Exit status: 0 written or current, 1 one not current (--check), 2 a report, finding or
README's markers are missing or wrong.
"""

import argparse
import difflib
import json
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

import adapter_tables
import matrix_html
import peer_runs

ROOT = Path(__file__).resolve().parent.parent
FINDINGS = ROOT / "adapters" / "findings.toml"
ADAPTERS = ROOT / "adapters"
OUT = ROOT / "docs" / "matrix.md"

# docs/guarantees.md: the rules and which are about safety.
RULES = ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "G10", "G11", "G12", "G13", "G14"]
SAFETY = {"G1", "G2", "G3", "G4", "G6", "G9", "G11", "G12"}
# Outcomes that went wrong, whatever the level; `fail` and `declined` only count at must
# and should (docs/conform.md, "Counting").
BROKEN = {"error", "crash", "timeout", "protocol", "not_run"}


class Problem(Exception):
    """A report or a finding that cannot make the page."""


def runs():
    """(name, adapter, parser) of each run of adapters/peers.txt, in order."""
    return [(run.name, run.adapter, run.parser) for run in peer_runs.runs()]


def load(path):
    """A report: its header, its portable case lines, its footer."""
    if not path.exists():
        raise Problem(f"{path}: no report (run .ci/peers first)")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    header = lines[0] if lines and lines[0].get("type") == "header" else None
    footer = lines[-1] if lines and lines[-1].get("type") == "footer" else None
    if header is None or footer is None:
        raise Problem(f"{path}: not a whole report (no header or no footer)")
    cases = [line for line in lines if line.get("type") == "case" and line.get("profile") == "portable"]
    return header, collapse(cases), footer


def engines():
    """The adapters whose engine registers parsers of its own: those with an inventory.py."""
    return sorted(path.parent.name for path in ADAPTERS.glob("*/inventory.py"))


def inventories(reports_dir, all_runs):
    """Each engine's inventory (adapters/ENGINE/inventory.py wrote it while .ci/peers ran):
    (adapter, header, rows), checked against adapters/peers.txt both ways, so that no
    parser the engine loads and toolfix can send cases to is left without its run, and no
    run is of a parser the engine no longer registers or loads."""
    out = []
    problems = []
    for adapter in engines():
        path = Path(reports_dir) / f"inventory-{adapter}.jsonl"
        if not path.exists():
            raise Problem(f"{path}: no inventory (run .ci/peers {adapter} first)")
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        header, rows = (lines[0], lines[1:]) if lines else ({}, [])
        if header.get("type") != "inventory" or header.get("parsers") != len(rows):
            raise Problem(f"{path}: not a whole inventory")
        runs_of = {parser for _, a, parser in all_runs if a == adapter}
        runnable = {row["parser"] for row in rows if row["status"] == "runs"}
        status = {row["parser"]: row["status"] for row in rows}
        for parser in sorted(runnable - runs_of):
            problems.append(f"{adapter} {parser}: its driver maps it to a toolfix dialect, but "
                            "adapters/peers.txt has no run of it: add one")
        for parser in sorted(runs_of - runnable):
            problems.append(f"adapters/peers.txt runs {adapter} {parser}, which the engine's "
                            f"inventory says is {status.get(parser, 'not registered')}")
        out.append((adapter, header, rows))
    if problems:
        raise Problem("\n".join(problems))
    return out


def collapse(cases):
    """One line per case: a salvage case and its streaming checks (`ID@chunking`) count
    once, as the one of them that counts worst (failing, then may, passed, not sent; a
    failure that fails the run or breaks a safety rule first), as `toolfix conform` counts
    them (docs/conform.md, "Counting")."""
    rank = {"failing": 0, "may": 1, "passed": 2, "unsent": 3}
    families = {}
    for case in cases:
        families.setdefault(case["id"].split("@")[0], []).append(case)
    out = []
    for base, members in families.items():
        worst = min(members, key=lambda c: (rank[where(c)], not fails_the_run(c), not safety(c)))
        failing = [c for c in members if where(c) == "failing"]
        out.append(dict(worst, base=base, chunkings=chunkings(members, where(worst)),
                        failing_ids={c["id"] for c in failing},
                        # What replays each failing check (the HTML page shows them all).
                        reproduces=[(chunkings([c], "failing")[0], c.get("reproduce"))
                                    for c in failing]))
    return out


def chunkings(members, kind):
    """Where a case counts as `kind`: `batch` and the chunkings of its streaming checks
    (`small`, not `small-SEED`), as the harness's reports name them."""
    found = []
    for case in members:
        if where(case) != kind:
            continue
        _, _, chunking = case["id"].partition("@")
        name = chunking.split("-")[0] if chunking.startswith(("small-", "large-")) else chunking
        found.append(name or "batch")
    return sorted(set(found), key=lambda n: (n != "batch", n))


def where(case):
    """How a case counts on the page: passed, failing (a failure at must or should,
    listed in known failures or not), may (an implementation-defined difference), or
    unsent (outside the run's declarations)."""
    outcome, level = case["outcome"], case["level"]
    if outcome == "pass":
        return "passed"
    if outcome == "skip":
        return "unsent"
    if outcome in ("fail", "declined") and level == "may":
        return "may"
    return "failing"


def fails_the_run(case):
    """Whether the case fails the run (docs/conform.md): what a known failure excuses is
    not in it."""
    outcome, level = case["outcome"], case["level"]
    if outcome in BROKEN or outcome == "xpass":
        return True
    return outcome in ("fail", "declined") and level != "may"


def safety(case):
    """A failure at must on a safety rule: what every run warns about."""
    return where(case) == "failing" and case["level"] == "must" and case.get("rule") in SAFETY


def cell(counter):
    """`passed/failing`, or `·` when no case was sent."""
    passed, failing = counter["passed"], counter["failing"]
    if passed == 0 and failing == 0:
        return "·"
    return f"{passed}/{failing}"


def code(text):
    """Text as a Markdown code span in a table cell, however many backticks it holds."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{md(text)}{pad}{fence}"


def md(text):
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def render(reports, findings, engine_inventories):
    """The page."""
    versions = {(h["toolfix"], h["suite"]["cases"]) for _, h, _, _ in reports}
    if len(versions) != 1:
        raise Problem(f"the reports come from different toolfix builds or suites: {sorted(versions)}")
    (toolfix, suite_cases), = versions
    out = []
    w = out.append
    w("# The peer matrix\n")
    w("<!-- Generated by scripts/peer_matrix.py from the reports of .ci/peers. Do not edit:")
    w("     .ci/peers fails when this page is not what the reports give. -->\n")
    w(f"What the peer implementations under `adapters/` do with the suite of toolfix {toolfix} "
      f"({suite_cases} cases), each under profile `portable` (`docs/guarantees.md`), through "
      "its driver: one row per implementation and, for an adapter with several parsers, per parser "
      "(`adapters/peers.txt`). `.ci/peers` runs them all and fails on any regression; the "
      "adapters' READMEs say how each driver calls the package and what it declares.\n")
    w("How to read a cell: `passed/failing`, where *failing* counts the cases at `must` or "
      "`should` the implementation gets wrong (each listed, with its reason, in its "
      "known-failures file, so the run still passes), and `·` means no case of the column "
      "was sent (the driver does not declare its op, dialect or policy). A failure is "
      "counted under the rule it breaks: a call to an unoffered tool is G2 and a call with "
      "altered arguments G4 whatever the case checks (`docs/spec-cases.md`, \"The rule a "
      "failure is filed under\"). Implementation-defined (`may`) differences are counted "
      "apart.\n")

    w("## Runs\n")
    w("| implementation | parser | passed | failing (known) | fails the run | may differences | not sent | safety failures |")
    w("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, header, cases, parser in reports:
        counts = Counter(where(c) for c in cases)
        who = header["implementation"]
        w(f"| {md(who['name'])} {md(who['version'])} | {md(parser) or '—'} | {counts['passed']} | "
          f"{counts['failing']} | {sum(fails_the_run(c) for c in cases)} | {counts['may']} | "
          f"{counts['unsent']} | {sum(safety(c) for c in cases)} |")
    w("")
    parsers_section(reports, engine_inventories, w)

    def table(title, intro, key_of, columns, label=lambda k: f"`{k}`"):
        w(f"## {title}\n")
        w(intro + "\n")
        w("| implementation | " + " | ".join(label(k) for k in columns) + " |")
        w("|---|" + "---:|" * len(columns))
        for name, header, cases, parser in reports:
            by = defaultdict(Counter)
            for case in cases:
                kind = where(case)
                if kind in ("passed", "failing"):
                    for key in key_of(case):
                        by[key][kind] += 1
            w(f"| {md(name)} | " + " | ".join(cell(by[k]) for k in columns) + " |")
        w("")

    sent = [c for _, _, cases, _ in reports for c in cases if where(c) in ("passed", "failing")]
    rules = [r for r in RULES if any(c.get("rule") == r for c in sent)]
    table("By rule",
          "Each rule of `docs/guarantees.md` whose cases any run was sent; ⚠ marks the safety "
          "rules, whose known failures every run prints as warnings.",
          lambda c: [c["rule"]] if c.get("rule") else [],
          rules,
          label=lambda r: f"{r} ⚠" if r in SAFETY else r)
    dialects = sorted({d for c in sent for d in c.get("dialects", [])})
    table("By dialect",
          "The salvage dialects the cases need (`docs/protocol.md`); a case that needs two "
          "counts in both.",
          lambda c: c.get("dialects", []),
          dialects)
    ops = sorted({c["op"] for c in sent})
    table("By op", "The protocol ops of the cases sent.", lambda c: [c["op"]], ops)

    safety_rules = [r for r in RULES if r in SAFETY and any(safety(c) and c["rule"] == r for c in sent)]
    w("## Safety failures\n")
    w("Failures at `must` on a safety rule: something runs that the model did not mean to "
      "run (a fenced example, an unoffered tool, another tool than the one named, "
      "altered arguments, a call from prose or from reasoning). Every one is a known "
      "failure its run warns about.\n")
    w("| implementation | " + " | ".join(safety_rules) + " | total |")
    w("|---|" + "---:|" * (len(safety_rules) + 1))
    for name, header, cases, parser in reports:
        per = Counter(c["rule"] for c in cases if safety(c))
        w(f"| {md(name)} | " + " | ".join(str(per[r]) if per[r] else "·" for r in safety_rules)
          + f" | {sum(per.values())} |")
    w("")
    for name, header, cases, parser in reports:
        listed = sorted((c["rule"], c["base"], ", ".join(c["chunkings"]), (c.get("known") or {}).get("reason", ""))
                        for c in cases if safety(c))
        if not listed:
            continue
        w(f"<details><summary>{md(name)}: {len(listed)} safety failures</summary>\n")
        w("| rule | case | in | what it does |")
        w("|---|---|---|---|")
        for rule, case_id, where_, reason in sorted(listed, key=lambda t: (RULES.index(t[0]), t[1])):
            w(f"| {rule} | `{md(case_id)}` | {md(where_)} | {md(reason) or 'not listed: fails the run'} |")
        w("\n</details>\n")

    w("## Findings\n")
    w("The real bugs the suite found, as the adapters' READMEs record them "
      "(`adapters/findings.toml`). Each line ends with the command that shows it, from the "
      "repository root after `cargo build --release` (the driver builds or sets itself up "
      "on first use); `scripts/peer_matrix.py` checks that every one still fails.\n")
    by_name = {name: (header, {c["id"]: c for c in cases}) for name, header, cases, _ in reports}
    current = None
    for finding in findings:
        header, _ = by_name[finding["run"]]
        who = header["implementation"]
        title = f"{who['name']} {who['version']}"
        if title != current:
            if current is not None:
                w("")
            w(f"### {md(title)}\n")
            current = title
        command = f"target/release/toolfix conform --impl '{header['command']}' --profile portable --id '{finding['case']}'"
        w(f"* **{finding['title']}** ({finding['rule']}): {finding['text']}  ")
        w(f"  `{command}`")
    w("")
    return "\n".join(out)


# A parser's inventory status as its row says it (adapters/engines/parser_inventory.py).
NO_CASES = "imports; no cases in the suite for this format (issue 33)"


def parsers_section(reports, engine_inventories, w):
    """One row per parser each inference engine registers: its run's counts, or, for a
    parser the suite has nothing to send or that does not load, why, never left out."""
    if not engine_inventories:
        return
    by_run = {name: cases for name, _, cases, _ in reports}
    totals = Counter(row["status"] for _, _, rows in engine_inventories for row in rows)
    w("## Every engine parser\n")
    w("Every parser the inference engines register, as each engine lists them (its "
      "registry, below), tried by `.ci/peers` in the engine's own environment "
      "(`adapters/ENGINE/run --inventory`): "
      f"{totals['runs']} run the suite (their rows are in Runs above); {totals['no-cases']} "
      "import but read a format no toolfix dialect covers, so the suite has no case to send "
      f"them (issue 33); {totals['fails']} do not load, with the error. The last column is "
      "the one check that needs no format: a reply with no call "
      "(`It is sunny in Paris today.`) gives no call, in batch and streamed in two chunks, "
      "and streamed it is shown unchanged (`ok`, or what the parser did). The suite's "
      "allowlist and fence cases are not sent to a parser of another format: each is "
      "written in some dialect's markup, which such a parser never parses, so it would pass "
      "them without reading a call.\n")
    for adapter, header, rows in engine_inventories:
        per = Counter(row["status"] for row in rows)
        w(f"### {md(header['engine'])} {md(header['version'])}: {len(rows)} parsers "
          f"(`{md(header['registry'])}`)\n")
        w(f"Run the suite: {per['runs']}; no cases in it: {per['no-cases']}; "
          f"do not load: {per['fails']}.\n")
        w("| parser | status | what it reads | a reply with no call: batch · streamed |")
        w("|---|---|---|---|")
        for row in rows:
            w(f"| {md(row['parser'])} | {parser_status(adapter, row, by_run)} | "
              f"{parser_format(row)} | {parser_prose(row)} |")
        w("")


def parser_status(adapter, row, by_run):
    """The status cell of an engine parser's row."""
    if row["status"] == "runs":
        counts = Counter(where(c) for c in by_run[f"{adapter}-{row['parser']}"])
        return f"runs the suite: {counts['passed']} passed, {counts['failing']} failing"
    if row["status"] == "no-cases":
        return NO_CASES
    where_ = "does not import" if row.get("stage") == "import" else "imports, does not start"
    return f"{where_}: {code(row['error'])}"


def parser_format(row):
    """The format cell: the dialects of a parser that runs, else its class and markers."""
    if row["status"] == "runs":
        return "dialects " + ", ".join(f"`{d}`" for d in row["dialects"])
    described = row.get("format")
    if not described:
        return "—"
    cls = described["class"].rsplit(".", 1)[-1]
    markers = described["markers"]
    if not markers:
        return f"`{md(cls)}`"
    shown = ", ".join(f"`{md(json.dumps(m, ensure_ascii=False)[1:-1])}`" for m in markers[:6])
    more = f" and {len(markers) - 6} more" if len(markers) > 6 else ""
    return f"`{md(cls)}`: {shown}{more} ({md(described['markers_from'])})"


def parser_prose(row):
    """The prose checks' cell."""
    prose = row.get("prose")
    if not prose:
        return "—"
    return " · ".join(md(prose[k]) for k in ("batch", "stream"))


def checked_findings(reports):
    """adapters/findings.toml, each entry checked against its run's report."""
    data = tomllib.loads(FINDINGS.read_text(encoding="utf-8"))
    by_name = {name: {c["base"]: c for c in cases} for name, _, cases, _ in reports}
    problems = []
    findings = data.get("finding", [])
    for finding in findings:
        missing = {"run", "rule", "title", "text", "case"} - finding.keys()
        if missing:
            problems.append(f"finding {finding.get('title', '?')!r}: no {', '.join(sorted(missing))}")
            continue
        if finding["run"] not in by_name:
            problems.append(f"finding {finding['title']!r}: no run {finding['run']!r} in adapters/peers.txt")
            continue
        case = by_name[finding["run"]].get(finding["case"].split("@")[0])
        if case is None:
            problems.append(f"finding {finding['title']!r}: {finding['run']} has no case {finding['case']!r}")
        elif finding["case"] not in case["failing_ids"]:
            problems.append(f"finding {finding['title']!r}: {finding['case']} does not fail for "
                            f"{finding['run']} (the case counts as {where(case)}): remove or update it")
    if problems:
        raise Problem("\n".join(problems))
    return findings


def rule_order(rule):
    """Where a rule sorts: in the order of docs/guarantees.md, a case without one last."""
    return RULES.index(rule) if rule in RULES else len(RULES)


def readmes(reports):
    """{README path: its text with the results table the reports give}, for each adapter
    with a run, in the order of adapters/peers.txt."""
    cases_of = {name: cases for name, _, cases, _ in reports}
    by_adapter = defaultdict(list)
    for run in peer_runs.runs():
        by_adapter[run.adapter].append((run, cases_of[run.name]))
    out = {}
    for adapter, runs_of in by_adapter.items():
        path = ADAPTERS / adapter / "README.md"
        table = adapter_tables.table(runs_of, where, safety, rule_order)
        text = adapter_tables.with_table(path.read_text(encoding="utf-8"), table)
        if text is None:
            raise Problem(f"{path}: no results block ({adapter_tables.BEGIN} … "
                          f"{adapter_tables.END}): add one where the counts belong")
        out[path] = text
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", default=str(ROOT / "reports"), help="where the peer-NAME.jsonl reports are")
    parser.add_argument("--out", default=str(OUT), help="the page to write or check")
    parser.add_argument("--check", action="store_true", help="fail if the page is not what the reports give")
    parser.add_argument("--html", metavar="PAGE", help="also write the page as HTML, every failure opening to its reproduce line")
    args = parser.parse_args()
    try:
        reports = []
        for name, adapter, parser_name in runs():
            header, cases, _ = load(Path(args.reports) / f"peer-{name}.jsonl")
            reports.append((name, header, cases, parser_name))
        page = render(reports, checked_findings(reports), inventories(args.reports, runs()))
        wanted = {Path(args.out): page, **readmes(reports)}
        if args.html:
            html_page = matrix_html.page(page, reports, where, safety, rule_order)
            Path(args.html).write_text(html_page, encoding="utf-8")
    except Problem as problem:
        print(f"peer_matrix: {problem}", file=sys.stderr)
        return 2
    stale = []
    for path, text in wanted.items():
        have = path.read_text(encoding="utf-8") if path.exists() else ""
        if have == text:
            continue
        if not args.check:
            path.write_text(text, encoding="utf-8")
            continue
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(keepends=True), text.splitlines(keepends=True),
            str(path), "what the reports give"))
        stale.append(path)
    for path in stale:
        print(f"peer_matrix: {path} is not current: run python3 scripts/peer_matrix.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
