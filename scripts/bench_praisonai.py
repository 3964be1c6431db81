#!/usr/bin/env python3
"""Times the real praisonaiagents 1.7.17 on the inputs of toolfix's benchmarks.

The inputs are the bytes the Rust benches time, written by ``crates/toolfix/benches/dump_inputs.rs``;
each carries what salvage or dispatch must return, and this script checks the real
package against it before timing (the same check the benches make on toolfix):

    cargo bench --bench dump_inputs -- "$CARGO_TARGET_DIR/bench-inputs"
    /work/pyvenv/bin/python scripts/bench_praisonai.py "$CARGO_TARGET_DIR/bench-inputs" \\
        -o "$CARGO_TARGET_DIR/bench-praisonai.json"

What is timed:

* salvage: ``_recover_json_tool_calls(text, tools)`` with OpenAI-style tool dicts;
* dispatch: ``agent._execute_tool_impl(name, {"query": "Paris"})`` (exact name, drifted
  name, unknown name with its difflib suggestion) against 10, 100 and 1,000 tools, and
  ``agent._self_repair_tool_name(name)`` alone for the drifted name.

Timing is ``time.perf_counter`` around a loop of calls, with the garbage collector off
(as ``timeit`` does), the loop long enough to take at least 0.2 s, and the minimum over
repeats. The package logs every unknown tool name at ERROR level through Rich; logging
is disabled while dispatch is timed, so the figures are the package's own work, not a
terminal's (this favours the package).

CPython is quadratic on most adversarial families (docs/behaviour.md §5(c)); those are
measured up to ``--cap-kib`` (64 KiB by default) only, and their time at the larger sizes
is extrapolated from a least-squares fit of log(time) against log(size) over the measured
sizes. The output marks every extrapolated figure as such.
"""

import argparse
import gc
import json
import logging
import math
import os
import platform
import sys
import time

# The package asks a human before running tools it considers dangerous (``delete_file``,
# ``write_file``, ...), which the generated registries contain.
os.environ.setdefault("PRAISONAI_AUTO_APPROVE", "true")

from praisonaiagents import Agent  # noqa: E402
from praisonaiagents.llm.adapters import _recover_json_tool_calls  # noqa: E402

MIN_LOOP_SECONDS = 0.2


def timed(fn, loops):
    """Seconds for ``loops`` calls of ``fn``, the garbage collector off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def best_time(fn, repeats):
    """The minimum over ``repeats`` of the time per call, and the loop length used."""
    loops = 1
    while True:
        elapsed = timed(fn, loops)
        if elapsed >= MIN_LOOP_SECONDS:
            break
        loops = loops * 10 if elapsed < MIN_LOOP_SECONDS / 10 else loops * 2
    one_call = elapsed / loops
    repeats = 3 if one_call > 1.0 else repeats
    best = min([elapsed] + [timed(fn, loops) for _ in range(repeats - 1)])
    return best / loops, loops, repeats


def fit_exponent(points):
    """Least-squares slope of log(seconds) against log(bytes)."""
    xs = [math.log(b) for b, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def bench_salvage(folder, entries, cap_bytes, repeats, only):
    results, extrapolated = [], []
    by_group = {}
    for entry in entries:
        by_group.setdefault(entry["group"], []).append(entry)
    for group, group_entries in by_group.items():
        if only and not any(word in group for word in only):
            continue
        measured = []
        for entry in sorted(group_entries, key=lambda e: e["bytes"]):
            if entry["quadratic_in_cpython"] and entry["bytes"] > cap_bytes:
                continue
            with open(os.path.join(folder, entry["file"]), encoding="utf-8") as f:
                text = f.read()
            assert len(text.encode("utf-8")) == entry["bytes"], entry["file"]
            tools = [{"type": "function", "function": {"name": n}} for n in entry["tools"]]
            calls = _recover_json_tool_calls(text, tools)
            found = len(calls or [])
            if found != entry["calls"]:
                sys.exit(f"{group}/{entry['param']}: the package recovered {found} calls, "
                         f"the input expects {entry['calls']}")
            seconds, loops, reps = best_time(lambda: _recover_json_tool_calls(text, tools), repeats)
            measured.append((entry, seconds))
            results.append({"group": group, "param": entry["param"], "bytes": entry["bytes"],
                            "seconds": seconds, "loops": loops, "repeats": reps,
                            "calls": found,
                            "quadratic_in_cpython": entry["quadratic_in_cpython"]})
            print(f"salvage {group:32} {entry['param']:>10} {seconds * 1e3:12.4f} ms",
                  file=sys.stderr, flush=True)
        skipped = [e for e in group_entries
                   if e["quadratic_in_cpython"] and e["bytes"] > cap_bytes]
        if skipped and len(measured) >= 2:
            points = [(e["bytes"], s) for e, s in measured]
            exponent = fit_exponent(points)
            last_bytes, last_seconds = points[-1]
            for entry in sorted(skipped, key=lambda e: e["bytes"]):
                seconds = last_seconds * (entry["bytes"] / last_bytes) ** exponent
                extrapolated.append({"group": group, "param": entry["param"],
                                     "bytes": entry["bytes"], "seconds": seconds,
                                     "exponent": exponent,
                                     "from": [e["param"] for e, _ in measured]})
    return results, extrapolated


def make_tool(name):
    """A plain function tool ``name(query)`` returning ``"name: query"``, as the benches'
    Rust tools do."""
    prefix = name + ": "

    def tool(query):
        return prefix + query

    tool.__name__ = name
    tool.__qualname__ = name
    return tool


def bench_dispatch(cases, query, repeats):
    agent = Agent(name="bench", instructions="benchmark", approval=False)
    arguments = {"query": query}
    dispatch, self_repair = [], []
    logging.disable(logging.CRITICAL)
    try:
        for case in cases:
            agent.tools = [make_tool(n) for n in case["tools"]]
            name = case["requested"]
            returned = agent._execute_tool_impl(name, dict(arguments))
            if case["runs"] is not None:
                ok = returned == f"{case['runs']}: {query}"
            else:
                ok = isinstance(returned, dict) and returned.get("error") == case["error"]
            if not ok:
                sys.exit(f"{case['group']}/{case['param']}: the package returned {returned!r}")
            seconds, loops, reps = best_time(
                lambda: agent._execute_tool_impl(name, dict(arguments)), repeats)
            dispatch.append({"group": case["group"], "param": case["param"],
                             "seconds": seconds, "loops": loops, "repeats": reps})
            print(f"dispatch {case['group']:24} {case['param']:>10} {seconds * 1e6:12.2f} us",
                  file=sys.stderr, flush=True)
            if case["kind"] == "repair":
                tool = agent._self_repair_tool_name(name)
                if getattr(tool, "__name__", None) != case["runs"]:
                    sys.exit(f"self-repair/{case['param']}: the package returned {tool!r}")
                seconds, loops, reps = best_time(lambda: agent._self_repair_tool_name(name),
                                                 repeats)
                self_repair.append({"group": "self-repair", "param": case["param"],
                                    "seconds": seconds, "loops": loops, "repeats": reps})
    finally:
        logging.disable(logging.NOTSET)
    return dispatch, self_repair


def environment():
    import importlib.metadata

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "praisonaiagents": importlib.metadata.version("praisonaiagents"),
        "platform": platform.platform(),
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "loadavg_before": os.getloadavg(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", help="the folder crates/toolfix/benches/dump_inputs.rs wrote")
    parser.add_argument("-o", "--output", required=True, help="where to write the JSON results")
    parser.add_argument("--cap-kib", type=int, default=64,
                        help="largest size measured for the families CPython is quadratic on")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=[],
                        help="time only the salvage groups containing one of these words "
                             "(and skip dispatch)")
    args = parser.parse_args()
    with open(os.path.join(args.inputs, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    results = {"environment": environment()}
    salvage, extrapolated = bench_salvage(args.inputs, manifest["salvage"],
                                          args.cap_kib * 1024, args.repeats, args.only)
    results["salvage"] = salvage
    results["salvage_extrapolated"] = extrapolated
    if not args.only:
        dispatch, self_repair = bench_dispatch(manifest["dispatch"], manifest["argument_query"],
                                               args.repeats)
        results["dispatch"] = dispatch
        results["self_repair"] = self_repair
    results["environment"]["loadavg_after"] = os.getloadavg()
    results["environment"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
