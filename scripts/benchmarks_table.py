#!/usr/bin/env python3
"""Turns benchmark results into data files, and data files into BENCHMARKS.md's tables.

Every table of BENCHMARKS.md is the CSV file its ``<!-- table: PATH -->`` marker names
(``benches/results/<date>-<what>.csv``). A measurement writes new files; ``render``
writes them into the page:

    # instruction counts of the clean path under callgrind (optional, noise-free)
    scripts/benchmarks_table.py callgrind -o "$CARGO_TARGET_DIR/bench-callgrind.json"

    # the tables beside the real package, from criterion's estimates and its timings
    scripts/benchmarks_table.py tables \\
        --criterion "$CARGO_TARGET_DIR/criterion" \\
        --python "$CARGO_TARGET_DIR/bench-praisonai.json" \\
        --callgrind "$CARGO_TARGET_DIR/bench-callgrind.json" --results benches/results

    # the families of the dialects only strict recovers, timed under strict only
    scripts/benchmarks_table.py dialects --callgrind --results benches/results

    # streaming beside batch salvage, in instructions (valgrind; no criterion run)
    scripts/benchmarks_table.py stream --results benches/results
    # the shipped templates' replies, in instructions (valgrind), beside an earlier run
    scripts/benchmarks_table.py templates --before OLD.csv --results benches/results

    # BENCHMARKS.md from the files its markers name; --check only checks
    scripts/benchmarks_table.py render [--check]

Without ``--results`` a measurement prints its Markdown. With it, each table goes to
``<dir>/<date>-<name>.csv`` (``--date``, default today, UTC); point the page's markers at
the new files and run ``render``.

toolfix figures are criterion's point estimates (the slope of its linear regression, or
the mean when it sampled flat); the dialects table also gives the fastest sample, whose
time per iteration a burst of load on a shared machine does not move. The real
package's figures are the minimum over repeats that
``scripts/bench_praisonai.py`` measured. A minimum favours the package, so every ratio
here is, if anything, an understatement of toolfix's advantage.
"""

import argparse
import csv
import datetime
import glob
import json
import math
import os
import re
import subprocess
import sys

from doc_tables import ROOT, render_csv_blocks, tables_in, write_csv, write_or_check
from doc_tables import markdown_table as table

BENCHMARKS = os.path.join(ROOT, "BENCHMARKS.md")
# The name of each table ``tables`` writes, by the start of the line before it.
RESULT_NAMES = [
    ("### This run", "environment"),
    ("### Goals", "goals"),
    ("### Clean replies", "clean"),
    ("Instructions per run under callgrind", "clean-instructions"),
    ("Before and after the probe rewrite", "clean-probe-rewrite"),
    ("### Prose", "prose"),
    ("### Call-heavy", "calls"),
    ("### Adversarial", "adversarial"),
    ("toolfix at every size", "adversarial-sizes"),
    ("### Dispatch", "dispatch"),
]
# The time a 1 MiB reply of a dialect family may take (the target of the dialect work).
DIALECT_BUDGET_NS = 10e6

CLEAN_SIZES = ["1KiB", "64KiB", "1MiB"]
PROSE_GROUPS = ["action-once", "action-every-50-words", "react-every-50-words"]
CALL_GROUPS = ["calls-mixed", "calls-whole-json"]
DISPATCH_KINDS = ["exact", "repair", "not-found"]
SIZE_BYTES = {"KiB": 1024, "MiB": 1024 * 1024}

# Goals of issue 6.
CLEAN_FLOOR_GOAL = 2.0
SPEEDUP_GOAL = 20.0
# A fitted growth exponent up to this counts as linear (timer noise and cache effects
# move a linear curve by a few hundredths).
LINEAR_EXPONENT = 1.15


# --------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------

def read_criterion(folder):
    """``{(group, function, param): {"ns": …, "fastest": …, "bytes": …}}`` from
    criterion's output: its point estimate, and the time per iteration of its fastest
    sample (``fastest_sample``)."""
    results = {}
    for path in glob.glob(os.path.join(folder, "**", "new", "benchmark.json"), recursive=True):
        with open(path, encoding="utf-8") as f:
            bench = json.load(f)
        with open(os.path.join(os.path.dirname(path), "estimates.json"), encoding="utf-8") as f:
            estimates = json.load(f)
        estimate = estimates.get("slope") or estimates["mean"]
        throughput = bench.get("throughput") or {}
        key = (bench["group_id"], bench["function_id"], bench["value_str"])
        results[key] = {"ns": estimate["point_estimate"],
                        "fastest": fastest_sample(os.path.dirname(path)),
                        "bytes": throughput.get("Bytes")}
    return results


def fastest_sample(folder):
    """The time per iteration of the fastest of criterion's samples in ``folder``, or None.

    On a shared machine a burst of time taken by other guests slows every sample it
    falls in, here by up to twice (BENCHMARKS.md); the point estimate then moves with
    the load, while the fastest sample is what the code costs when it has a core to
    itself, as the real package's figures are the minimum over repeats."""
    try:
        with open(os.path.join(folder, "sample.json"), encoding="utf-8") as f:
            sample = json.load(f)
    except FileNotFoundError:
        return None
    per_iteration = [t / n for t, n in zip(sample["times"], sample["iters"]) if n]
    return min(per_iteration, default=None)


def read_python(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    measured = {(r["group"], r["param"]): r for r in data.get("salvage", [])}
    extrapolated = {(r["group"], r["param"]): r for r in data.get("salvage_extrapolated", [])}
    dispatch = {(r["group"], r["param"]): r for r in data.get("dispatch", [])}
    self_repair = {r["param"]: r for r in data.get("self_repair", [])}
    return data.get("environment", {}), measured, extrapolated, dispatch, self_repair


def size_bytes(label):
    match = re.fullmatch(r"(\d+)(KiB|MiB)", label)
    return int(match.group(1)) * SIZE_BYTES[match.group(2)]


# --------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------

def fmt_time(ns, approx=False):
    if ns is None:
        return "–"
    prefix = "~" if approx else ""
    for unit, scale in (("min", 60e9), ("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale and (unit != "min" or ns >= 120e9):
            return f"{prefix}{ns / scale:.3g} {unit}"
    return f"{prefix}{ns:.3g} ns"


def fmt_rate(nbytes, ns):
    if not nbytes or not ns:
        return "–"
    per_second = nbytes / (ns * 1e-9)
    if per_second >= 2**30:
        return f"{per_second / 2**30:.2f} GiB/s"
    return f"{per_second / 2**20:.1f} MiB/s"


def quotient(a, b):
    """``a / b``, or None when either figure is missing."""
    return a / b if a and b else None


def fmt_ratio(ratio, approx=False):
    if ratio is None:
        return "–"
    prefix = "~" if approx else ""
    if ratio >= 100:
        return f"{prefix}{ratio:,.0f}×"
    return f"{prefix}{ratio:.3g}×"


def fit_exponent(points):
    """Least-squares slope of log(time) against log(size)."""
    if len(points) < 2:
        return None
    xs = [math.log(b) for b, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

class Report:
    def __init__(self, criterion, python, callgrind, before=None):
        self.rust = criterion
        self.before = before
        (self.env, self.py, self.py_extrapolated,
         self.py_dispatch, self.py_self_repair) = python
        self.callgrind = callgrind
        self.goals = []

    def rust_ns(self, group, function, param):
        result = self.rust.get((group, function, param))
        return result and result["ns"]

    def rust_bytes(self, group, function, param):
        result = self.rust.get((group, function, param))
        return result and result["bytes"]

    def py_ns(self, group, param):
        result = self.py.get((group, param))
        return result and result["seconds"] * 1e9

    def run_description(self):
        env = self.env
        rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout
        load = lambda key: ", ".join(f"{x:.2f}" for x in env.get(key, []))  # noqa: E731
        return table(["", ""], [
            ["CPU", f"{env.get('cpu', '?')}, {env.get('nproc', '?')} logical CPUs"],
            ["Rust", rustc.strip()],
            ["Python", f"{env.get('implementation', '')} {env.get('python', '?')}, "
                       f"praisonaiagents {env.get('praisonaiagents', '?')}"],
            ["real package timed", f"{env.get('started', '?')} to {env.get('finished', '?')}"],
            ["load average (1, 5, 15 min) before / after the Python run",
             f"{load('loadavg_before')} / {load('loadavg_after')}"],
        ])

    def clean(self):
        rows, worst_floor, worst_speedup = [], 0.0, math.inf
        for size in CLEAN_SIZES:
            floor = self.rust_ns("clean", "memmem", size)
            probe = self.rust_ns("clean", "probe", size)
            salvage = self.rust_ns("clean", "toolfix-praisonai", size)
            nbytes = self.rust_bytes("clean", "toolfix-praisonai", size)
            py = self.py_ns("clean", size)
            ratio = quotient(salvage, floor)
            speedup = quotient(py, salvage)
            if ratio:
                worst_floor = max(worst_floor, ratio)
            if speedup:
                worst_speedup = min(worst_speedup, speedup)
            rows.append([size, fmt_time(floor), fmt_time(probe), fmt_time(salvage),
                         f"**{fmt_ratio(ratio)}**", fmt_rate(nbytes, salvage), fmt_time(py),
                         fmt_ratio(speedup)])
        self.goals.append(("clean salvage within 2× of the memmem floor",
                           f"worst {fmt_ratio(worst_floor)}", worst_floor <= CLEAN_FLOOR_GOAL))
        header = ["size", "memmem floor", "probe alone", "toolfix salvage",
                  "salvage / floor (goal ≤ 2×)", "salvage throughput", "praisonaiagents",
                  "speedup"]
        return table(header, rows), worst_speedup

    def callgrind_table(self):
        if not self.callgrind:
            return None
        rows = []
        counts = self.callgrind["instructions_per_run"]
        for size in CLEAN_SIZES:
            nbytes = str(size_bytes(size))
            floor = counts.get("memmem", {}).get(nbytes)
            probe = counts.get("probe", {}).get(nbytes)
            salvage = counts.get("salvage", {}).get(nbytes)
            ratio = salvage / floor if salvage and floor else None
            rows.append([size, f"{floor:,.0f}", f"{probe:,.0f}", f"{salvage:,.0f}",
                         fmt_ratio(ratio)])
        header = ["size", "memmem floor", "probe alone", "toolfix salvage", "salvage / floor"]
        return table(header, rows)

    def before_after(self):
        """The clean path at the commit before the probe rewrite, and now."""
        if not self.before:
            return None
        rows = []
        for size in CLEAN_SIZES:
            row = [size]
            for function in ("probe", "toolfix-praisonai"):
                old = self.before.get(("clean", function, size))
                new = self.rust_ns("clean", function, size)
                old_floor = self.before.get(("clean", "memmem", size))
                floor = self.rust_ns("clean", "memmem", size)
                row += [fmt_time(old and old["ns"]), fmt_time(new),
                        f"{fmt_ratio(old['ns'] / old_floor['ns'])} → "
                        f"{fmt_ratio(new / floor)}" if old and old_floor and new and floor
                        else "–"]
            rows.append(row)
        header = ["size", "probe before", "probe after", "probe / floor",
                  "salvage before", "salvage after", "salvage / floor"]
        return table(header, rows)

    def prose(self):
        rows, speedups = [], []
        for group in PROSE_GROUPS:
            for size in CLEAN_SIZES:
                ns = self.rust_ns(group, "toolfix-praisonai", size)
                py = self.py_ns(group, size)
                speedups.append(quotient(py, ns))
                rows.append([f"`{group}`", size, fmt_time(ns),
                             fmt_rate(self.rust_bytes(group, "toolfix-praisonai", size), ns),
                             fmt_time(py), fmt_ratio(speedups[-1])])
        header = ["reply", "size", "toolfix", "throughput", "praisonaiagents", "speedup"]
        return table(header, rows), min(filter(None, speedups), default=math.inf)

    def calls(self):
        rows, speedups = [], []
        params = sorted({p for (g, _, p) in self.rust if g in CALL_GROUPS},
                        key=lambda p: int(p.split()[0]))
        for group in CALL_GROUPS:
            for param in params:
                ns = self.rust_ns(group, "toolfix-praisonai", param)
                nbytes = self.rust_bytes(group, "toolfix-praisonai", param)
                py = self.py_ns(group, param)
                speedups.append(quotient(py, ns))
                rows.append([f"`{group}`", param, f"{nbytes / 1024:,.1f} KiB" if nbytes else "–",
                             fmt_time(ns), fmt_time(self.rust_ns(group, "toolfix-strict", param)),
                             fmt_rate(nbytes, ns), fmt_time(py), fmt_ratio(speedups[-1])])
        worst = min(filter(None, speedups), default=math.inf)
        header = ["reply", "calls", "size", "toolfix `praisonai`", "toolfix `strict`",
                  "throughput", "praisonaiagents", "speedup"]
        return table(header, rows), worst

    def adversarial(self):
        families = []
        known = CALL_GROUPS + PROSE_GROUPS + ["clean"]
        for (group, function, param) in self.rust:
            if function == "toolfix-praisonai" and group not in known \
                    and not group.startswith("dispatch-") and (group, function) not in families:
                families.append((group, function))
        sizes = sorted({p for (g, f, p) in self.rust if (g, f) in families}, key=size_bytes)
        rows, details, all_linear = [], [], True
        order = [g for g, _ in families]
        py_groups = {g for g, _ in self.py} | {g for g, _ in self.py_extrapolated}
        for group in sorted(order, key=lambda g: (g not in py_groups, order.index(g))):
            for function in ("toolfix-praisonai", "toolfix-strict"):
                points = [(size_bytes(s), self.rust_ns(group, function, s)) for s in sizes]
                points = [(b, t) for b, t in points if t]
                if not points:
                    continue
                label = f"`{group}`" + (" (`strict`)" if function == "toolfix-strict" else "")
                exponent = fit_exponent(points)
                py_points = [(size_bytes(p), r["seconds"] * 1e9)
                             for (g, p), r in self.py.items() if g == group]
                py_points.sort()
                py_exponent = fit_exponent(py_points)
                flags = [r.get("quadratic_in_cpython") for (g, _), r in self.py.items()
                         if g == group]
                quadratic = any(flags)
                if quadratic and function == "toolfix-praisonai":
                    all_linear &= exponent <= LINEAR_EXPONENT
                largest_common = max((b for b, _ in py_points if b in dict(points)), default=None)
                common_ratio = (dict(py_points)[largest_common] / dict(points)[largest_common]
                                if largest_common else None)
                last_bytes, last_ns = points[-1]
                last_label = sizes[-1]
                py_last = self.py.get((group, last_label))
                approx = py_last is None
                if approx:
                    py_last = self.py_extrapolated.get((group, last_label))
                py_last_ns = py_last and py_last["seconds"] * 1e9
                last_ratio = py_last_ns / last_ns if py_last_ns else None
                rows.append([
                    label,
                    "quadratic" if quadratic else "linear",
                    fmt_time(points[0][1]), fmt_time(last_ns),
                    f"{exponent:.2f}",
                    fmt_time(py_points[0][1]) if py_points else "–",
                    f"{py_exponent:.2f}" if py_exponent is not None else "–",
                    (f"{fmt_ratio(common_ratio)} at {sizes[[size_bytes(s) for s in sizes].index(largest_common)]}"
                     if common_ratio else "–"),
                    fmt_time(py_last_ns, approx),
                    fmt_ratio(last_ratio, approx),
                ])
                details.append([label] + [fmt_time(self.rust_ns(group, function, s)) for s in sizes]
                               + [fmt_rate(last_bytes and self.rust_bytes(group, function, last_label), last_ns)])
        self.goals.append((
            "linear growth on every family where the real package is quadratic",
            f"toolfix exponents ≤ {LINEAR_EXPONENT} on all of them" if all_linear
            else "some toolfix exponent above the linear threshold",
            all_linear))
        first, last = sizes[0], sizes[-1]
        header = ["family", "CPython (behaviour doc §5(c))", f"toolfix {first}",
                  f"toolfix {last}", "toolfix exponent",
                  f"praisonaiagents {first}", "praisonaiagents exponent",
                  "ratio, largest size both measured", f"praisonaiagents {last}",
                  f"ratio at {last}"]
        detail_header = ["family"] + [f"toolfix {s}" for s in sizes] + [f"throughput at {last}"]
        return table(header, rows), table(detail_header, details)

    def dispatch(self):
        rows = []
        params = sorted({p for (g, _, p) in self.rust if g.startswith("dispatch-")},
                        key=lambda p: int(p.split()[0]))
        largest = params[-1] if params else None
        slowest_largest = 0.0
        for kind in DISPATCH_KINDS:
            group = f"dispatch-{kind}"
            for param in params:
                ns = self.rust_ns(group, "toolfix-praisonai", param)
                strict = self.rust_ns(group, "toolfix-strict", param)
                py = self.py_dispatch.get((group, param))
                py_ns = py and py["seconds"] * 1e9
                if param == largest:
                    slowest_largest = max(slowest_largest, ns or 0, strict or 0)
                rows.append([kind, param, fmt_time(ns), fmt_time(strict), fmt_time(py_ns),
                             fmt_ratio(py_ns / ns if py_ns and ns else None)])
        for param in params:
            repair = self.py_self_repair.get(param)
            if repair:
                rows.append(["`_self_repair_tool_name` alone", param, "", "",
                             fmt_time(repair["seconds"] * 1e9), ""])
        self.goals.append((f"dispatch against {largest}, suggestion included, well under 1 ms "
                           "(taken as ≤ 0.2 ms, a fifth of it)",
                           f"slowest {fmt_time(slowest_largest)}", slowest_largest <= 2e5))
        header = ["case", "registry", "toolfix `praisonai`", "toolfix `strict`",
                  "praisonaiagents `_execute_tool_impl`", "speedup"]
        return table(header, rows)

    def render(self):
        clean, clean_speedup = self.clean()
        prose, prose_speedup = self.prose()
        calls, calls_speedup = self.calls()
        adversarial, adversarial_detail = self.adversarial()
        dispatch = self.dispatch()
        speedup = min(clean_speedup, prose_speedup, calls_speedup)
        self.goals.insert(1, ("at least 20× faster than the real package on clean, "
                              "action-prose and call-heavy replies",
                              f"worst {fmt_ratio(speedup)} (clean {fmt_ratio(clean_speedup)}, "
                              f"action prose {fmt_ratio(prose_speedup)}, call-heavy "
                              f"{fmt_ratio(calls_speedup)})",
                              speedup >= SPEEDUP_GOAL))
        goals = table(["goal", "measured", "met"],
                      [[g, m, "yes" if ok else "**no**"] for g, m, ok in self.goals])
        parts = [
            "### This run\n\n" + self.run_description(),
            "### Goals\n\n" + goals,
            "### Clean replies (no marker): the memmem floor\n\n" + clean,
        ]
        callgrind = self.callgrind_table()
        if callgrind:
            parts.append("Instructions per run under callgrind (noise-free; counts, not cycles):"
                         "\n\n" + callgrind)
        before_after = self.before_after()
        if before_after:
            parts.append("Before and after the probe rewrite (the commit before it, built and "
                         "timed in the same run; each ratio against its own run's floor):"
                         "\n\n" + before_after)
        parts += [
            "### Prose with the marker word\n\n" + prose,
            "### Call-heavy replies\n\n" + calls,
            "### Adversarial replies\n\n" + adversarial
            + "\n\n`~`: the real package's time extrapolated from its fitted exponent "
              "(measured only up to the size in its column of measured sizes).\n\n"
            + "toolfix at every size:\n\n" + adversarial_detail,
            "### Dispatch\n\n" + dispatch,
        ]
        return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------

def bench_executable(name, features=()):
    """The path of a bench's executable, built if needed (with ``features``)."""
    flags = ["--features", ",".join(features)] if features else []
    output = subprocess.run(
        ["cargo", "bench", "--bench", name, *flags, "--no-run", "--message-format=json"],
        check=True, capture_output=True, text=True).stdout
    for line in output.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable") \
                and message["target"]["name"] == name:
            return message["executable"]
    sys.exit(f"no executable for bench {name}")


def command_callgrind(args):
    executable = bench_executable("clean_instructions")
    counts = {}
    for kind in ("memmem", "probe", "salvage"):
        for size in CLEAN_SIZES:
            nbytes = size_bytes(size)
            out = os.path.join(args.work, f"callgrind.{kind}.{nbytes}.out")
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                 "--toggle-collect=*clean_instructions::measured*",
                 executable, kind, str(nbytes)],
                check=True, capture_output=True, text=True)
            runs = int(re.search(r"runs: (\d+)", run.stdout).group(1))
            with open(out, encoding="utf-8") as f:
                total = next(int(line.split()[1]) for line in f
                             if line.startswith(("summary:", "totals:")))
            counts.setdefault(kind, {})[str(nbytes)] = total / runs
            print(f"{kind:8} {size:>6} {total / runs:14,.0f} instructions per run",
                  file=sys.stderr)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"valgrind": subprocess.run(["valgrind", "--version"], capture_output=True,
                                              text=True).stdout.strip(),
                   "instructions_per_run": counts}, f, indent=1)
        f.write("\n")


def emit(markdown, args, name=None):
    """Prints ``markdown``, or with ``--results`` writes each of its tables to
    ``<results>/<date>-<name>.csv``: ``name`` for a single table, else by
    ``RESULT_NAMES``."""
    if not args.results:
        sys.stdout.write(markdown)
        return
    for before, header, rows in tables_in(markdown):
        table_name = name or next(n for start, n in RESULT_NAMES if before.startswith(start))
        path = os.path.join(args.results, f"{args.date}-{table_name}.csv")
        write_csv(path, header, rows)
        print(f"wrote {path}", file=sys.stderr)


def command_render(args):
    """Rewrites (or with ``--check`` checks) every table block of BENCHMARKS.md."""
    with open(BENCHMARKS, encoding="utf-8") as f:
        text = f.read()
    sys.exit(write_or_check(BENCHMARKS, render_csv_blocks(text), args.check))


def command_tables(args):
    criterion = read_criterion(args.criterion)
    if not criterion:
        sys.exit(f"no criterion results under {args.criterion}")
    python = read_python(args.python)
    callgrind = None
    if args.callgrind:
        with open(args.callgrind, encoding="utf-8") as f:
            callgrind = json.load(f)
    before = read_criterion(args.before_criterion) if args.before_criterion else None
    emit(Report(criterion, python, callgrind, before).render(), args)


def dialect_instructions(groups):
    """``{group: (instructions at 256 KiB, at 1 MiB)}`` under callgrind, from the
    ``dialect_instructions`` bench (one salvage under ``strict``), or for the shipped
    templates' groups (``template-…``) the ``template_instructions`` bench."""
    executables = {}
    counts = {}
    for group in groups:
        template = group.startswith("template-")
        bench = "template_instructions" if template else "dialect_instructions"
        if bench not in executables:
            features = ["toolfix/template"] if template else []
            executables[bench] = bench_executable(bench, features)
        executable = executables[bench]
        pair = []
        for nbytes in (256 * 1024, 1024 * 1024):
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/stdout",
                 f"--toggle-collect=*{bench}::measured*",
                 executable, group, str(nbytes)],
                check=True, capture_output=True, text=True)
            pair.append(next(int(line.split()[1]) for line in run.stdout.splitlines()
                             if line.startswith(("summary:", "totals:"))))
        counts[group] = tuple(pair)
        print(f"{group:40} {pair[0]:14,} {pair[1]:14,}", file=sys.stderr)
    return counts


def dialect_table(criterion, callgrind=False):
    """The families timed under ``strict`` only: every size, the fitted exponent, the
    throughput at the largest size and whether it stays within ``DIALECT_BUDGET_NS``, by
    the point estimate and by the fastest sample (``fastest_sample``); with
    ``callgrind``, the instructions at 1 MiB and their growth from 256 KiB (4.00 is
    linear), which no load on the machine moves."""
    praisonai = {g for (g, f, _) in criterion if f == "toolfix-praisonai"}
    groups = sorted({g for (g, f, _) in criterion
                     if f == "toolfix-strict" and g not in praisonai
                     and not g.startswith("dispatch-") and g not in CALL_GROUPS})
    if not groups:
        sys.exit("no families timed under strict only in the criterion results")
    sizes = sorted({p for (g, f, p) in criterion if g in groups}, key=size_bytes)
    instructions = dialect_instructions(groups) if callgrind else {}
    rows = []
    for group in groups:
        def result(size):
            return criterion.get((group, "toolfix-strict", size)) or {}
        points = [(size_bytes(s), result(s).get("ns")) for s in sizes]
        points = [(b, t) for b, t in points if t]
        exponent = fit_exponent(points)
        last_bytes, last_ns = points[-1]
        fastest = result(sizes[-1]).get("fastest")
        # A run cut short may lack the largest size: then the target is not shown as met.
        measured_all = last_bytes == size_bytes(sizes[-1])

        def verdict(ns):
            if not measured_all:
                return "not run"
            return "yes" if ns is not None and ns <= DIALECT_BUDGET_NS else "**no**"
        rows.append([f"`{group}`"]
                    + [fmt_time(result(s).get("ns")) for s in sizes]
                    + [f"{exponent:.2f}" if exponent is not None else "–",
                       fmt_rate(last_bytes, last_ns),
                       verdict(last_ns),
                       fmt_time(fastest),
                       verdict(fastest)]
                    + ([f"{instructions[group][1] / 1e6:,.0f} M",
                        f"{instructions[group][1] / instructions[group][0]:.2f}"]
                       if callgrind else []))
    header = (["family"] + [f"{s}" for s in sizes]
              + ["exponent", f"throughput at {sizes[-1]}",
                 f"{sizes[-1]} ≤ {fmt_time(DIALECT_BUDGET_NS)}",
                 f"fastest sample at {sizes[-1]}", f"fastest ≤ {fmt_time(DIALECT_BUDGET_NS)}"]
              + (["instructions at 1MiB", "instructions 1MiB / 256KiB"] if callgrind else []))
    return table(header, rows)


def command_dialects(args):
    criterion = read_criterion(args.criterion)
    emit(dialect_table(criterion, args.callgrind) + "\n", args, "dialects")


STREAM_INPUTS = ("stream-prose", "stream-calls")
STREAM_CHUNKS = (0, 1, 16, 4096)


def stream_instructions():
    """``{(input, profile, chunk, size): instructions}`` under callgrind, from the
    ``stream_instructions`` bench: one batch salvage (chunk 0) or one stream."""
    executable = bench_executable("stream_instructions")
    counts = {}
    for name in STREAM_INPUTS:
        for profile in ("praisonai", "strict"):
            for chunk in STREAM_CHUNKS:
                for nbytes in (256 * 1024, 1024 * 1024):
                    run = subprocess.run(
                        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/stdout",
                         "--toggle-collect=*stream_instructions::measured*",
                         executable, name, profile, str(chunk), str(nbytes)],
                        check=True, capture_output=True, text=True)
                    total = next(int(line.split()[1]) for line in run.stdout.splitlines()
                                 if line.startswith(("summary:", "totals:")))
                    counts[(name, profile, chunk, nbytes)] = total
                    print(f"{name:13} {profile:9} {chunk:5} {nbytes:8} {total:15,}",
                          file=sys.stderr)
    return counts


def stream_table(counts):
    """Per input and profile: batch salvage and each chunk size at 1 MiB (instructions,
    per byte, against batch) and the growth from 256 KiB (4.00 is linear)."""
    mib = 1024 * 1024
    rows = []
    for name in STREAM_INPUTS:
        for profile in ("praisonai", "strict"):
            batch = counts[(name, profile, 0, mib)]
            for chunk in STREAM_CHUNKS:
                total = counts[(name, profile, chunk, mib)]
                growth = total / counts[(name, profile, chunk, 256 * 1024)]
                rows.append([f"`{name}`", profile,
                             "batch" if chunk == 0 else f"{chunk} B chunks",
                             f"{total / 1e6:,.1f} M", f"{total / mib:,.1f}",
                             fmt_ratio(total / batch), f"{growth:.2f}"])
    return table(["input", "profile", "salvage", "instructions at 1 MiB", "per byte",
                  "against batch", "1 MiB / 256 KiB"], rows)


def command_stream(args):
    emit(stream_table(stream_instructions()) + "\n", args, "stream")


SHIPPED_TEMPLATES = os.path.join(ROOT, "crates/toolfix/src/salvage/template/shipped")


def template_table(before=None):
    """Per shipped template and reply family (``template_replies``): the instructions of
    one reading at 1 MiB, their growth from 256 KiB (4.00 is linear), and with ``before``
    (an earlier output of this command, as CSV) the count there and the change."""
    names = sorted(f[:-len(".json")] for f in os.listdir(SHIPPED_TEMPLATES)
                   if f.endswith(".json"))
    groups = [f"template-{name}-{family}" for name in names for family in ("calls", "cut")]
    counts = dialect_instructions(groups)
    earlier = {}
    if before:
        with open(before, encoding="utf-8", newline="") as f:
            earlier = {row["reply"]: row["instructions at 1 MiB"] for row in csv.DictReader(f)}
    rows = []
    for group in groups:
        small, large = counts[group]
        row = [f"`{group}`", f"{large / 1e6:,.1f} M", f"{large / small:.2f}"]
        if before:
            was = earlier.get(f"`{group}`")
            change = (f"{large / (float(was.rstrip(' M').replace(',', '')) * 1e6) - 1:+.0%}"
                      if was else "–")
            row += [was or "–", change]
        rows.append(row)
    header = ["reply", "instructions at 1 MiB", "1 MiB / 256 KiB"]
    return table(header + (["before", "change"] if before else []), rows)


def command_templates(args):
    emit(template_table(args.before) + "\n", args, "templates-instructions")


def add_results(parser):
    """The options of a command that writes data files."""
    parser.add_argument("--results", help="write each table to RESULTS/<date>-<name>.csv")
    parser.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc)
                        .strftime("%Y-%m-%d"), help="the date in the file names")


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    callgrind = commands.add_parser("callgrind", help="count the clean path's instructions")
    callgrind.add_argument("-o", "--output", default=os.path.join(target, "bench-callgrind.json"))
    callgrind.add_argument("--work", default=target, help="where callgrind's files go")
    tables = commands.add_parser("tables", help="the tables beside the real package")
    tables.add_argument("--criterion", default=os.path.join(target, "criterion"))
    tables.add_argument("--python", default=os.path.join(target, "bench-praisonai.json"))
    tables.add_argument("--callgrind", help="the output of the callgrind command")
    tables.add_argument("--before-criterion",
                        help="criterion results of the clean group at an earlier commit")
    add_results(tables)
    dialects = commands.add_parser(
        "dialects", help="the table of the families timed under strict only")
    dialects.add_argument("--criterion", default=os.path.join(target, "criterion"))
    dialects.add_argument("--callgrind", action="store_true",
                          help="add instruction counts at 256 KiB and 1 MiB (valgrind)")
    add_results(dialects)
    stream = commands.add_parser("stream", help="streaming instruction counts (valgrind)")
    add_results(stream)
    templates = commands.add_parser(
        "templates", help="the shipped templates' instruction counts (valgrind)")
    templates.add_argument("--before", help="an earlier output of this command (CSV)")
    add_results(templates)
    render = commands.add_parser("render", help="write BENCHMARKS.md's tables from the data")
    render.add_argument("--check", action="store_true",
                        help="only check that BENCHMARKS.md is current")
    args = parser.parse_args()
    run = {"stream": command_stream, "callgrind": command_callgrind,
           "dialects": command_dialects, "render": command_render, "tables": command_tables,
           "templates": command_templates}
    run[args.command](args)


if __name__ == "__main__":
    main()
