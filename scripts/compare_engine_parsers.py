#!/usr/bin/env python3
"""Per model family: does toolfix `strict` recover what the family's own engine parser does?

Issue 12 asks that, on well-formed output of each family, the calls `strict` recovers
equal (names and decoded arguments) what that family's engine parser returns. The engine
parsers are the ones wrapped as toolfix drivers in `adapters/`: Dynamo's `dynamo-parsers`
and SGLang's `tool-parser` (smg), one parser per family, as an inference server picks
one per served model. Every parser speaks the same driver protocol as `toolfix serve`, so
this script sends each item to the reference and to the family's parsers and compares.

Items are JSON lines with at least `content`, `dialect` (see `FAMILIES`) and `intent`.
Where a family has several forms (DeepSeek V3, V3.1, V3.2), the first of its parsers
that returns calls answers for the engine. Without `tools` in the item, only
`intent == "call"` items are compared, and the tools offered are the names the engine
returned (Dynamo's and smg's parsers do not filter by name; `strict` does), so only the
recovery itself is compared; an item the engine returns nothing for is not well-formed
output for that engine and is counted apart. An item with `tools` (SGLang's and vLLM's
parsers drop unoffered names, so they need them) offers those to both, is compared
whatever its intent, and when it says which calls were `written` (as `[name,
arguments]`) each side is also compared with those (`scripts/dsml_replies.py` writes
such items).

    python3 scripts/compare_engine_parsers.py ITEMS.jsonl [--toolfix target/release/toolfix]

Prints one row per family, engine and intent: items, engine returned calls, toolfix
equal, toolfix different (with the ids) and, for items with `written` calls, how many
each side returned exactly; exits 0 (this is a measurement, not a gate).
"""

import argparse
import csv
import json
import pathlib
import subprocess
import sys
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent

# dialect label of an item -> (family, {engine: [parser, ...]})
FAMILIES = {
    "hermes_tool_call": ("Hermes/Qwen <tool_call>", {"dynamo": ["hermes"], "smg": ["qwen"]}),
    "think_then_hermes": ("Hermes/Qwen <tool_call>", {"dynamo": ["hermes"], "smg": ["qwen"]}),
    "qwen3_xml": ("Qwen3 XML", {"dynamo": ["qwen3_coder"], "smg": ["qwen_xml"]}),
    "think_then_qwen3_xml": ("Qwen3 XML", {"dynamo": ["qwen3_coder"], "smg": ["qwen_xml"]}),
    "deepseek_tokens": (
        "DeepSeek",
        {
            "dynamo": ["deepseek_v3_1", "deepseek_v3", "deepseek_v3_2"],
            "smg": ["deepseek31", "deepseek", "deepseek32"],
        },
    ),
    "glm_xml": ("GLM", {"dynamo": ["glm47"], "smg": ["glm47_moe"]}),
    "kimi_tokens": ("Kimi K2", {"dynamo": ["kimi_k2"], "smg": ["kimik2"]}),
    "minimax_xml": ("MiniMax", {"dynamo": ["minimax_m2"], "smg": ["minimax_m2"]}),
    "mistral_tool_calls": ("Mistral", {"dynamo": ["mistral"], "smg": ["mistral"]}),
    "gemma4_tool_call": ("Gemma 4", {"dynamo": ["gemma4"], "smg": ["gemma4"]}),
    "phi4_functools": ("Phi-4", {"dynamo": ["phi4"]}),
    "pythonic_list": ("pythonic", {"dynamo": ["pythonic"], "smg": ["pythonic"]}),
    "pythonic_bare": ("pythonic", {"dynamo": ["pythonic"], "smg": ["pythonic"]}),
    "lfm2_pythonic_tokens": ("pythonic", {"dynamo": ["pythonic"], "smg": ["pythonic"]}),
    "pythonic_function_calls_tag": ("pythonic", {"dynamo": ["pythonic"], "smg": ["pythonic"]}),
    "llama_python_tag_json": ("Llama 3.x JSON", {"dynamo": ["llama3_json"], "smg": ["llama"]}),
    "llama3_json": ("Llama 3.x JSON", {"dynamo": ["llama3_json"], "smg": ["llama"]}),
    "deepseek_v4_dsml": ("DeepSeek V4", {"sglang": ["deepseekv4"], "vllm": ["deepseek_v4"]}),
    "deepseek_v41_dsml": (
        "DeepSeek V4.1",
        {"sglang": ["deepseekv41"], "vllm": ["deepseek_v41"]},
    ),
}

ENGINES = {
    "dynamo": ROOT / "adapters/dynamo-parsers/run",
    "smg": ROOT / "adapters/smg-tool-parser/run",
    "sglang": ROOT / "adapters/sglang/run",
    "vllm": ROOT / "adapters/vllm/run",
}


class Driver:
    """One driver process speaking protocol v1 over stdin/stdout."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        )
        self.seq = 0
        self.ask({"cmd": "hello", "protocol": 1})

    def ask(self, request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"driver {self.proc.args} closed its output")
        return json.loads(line)

    def salvage(self, content, tools):
        """The calls as (name, decoded arguments), or None (nothing or not answered)."""
        self.seq += 1
        answer = self.ask(
            {
                "cmd": "run",
                "seq": self.seq,
                "op": "salvage",
                "input": {"content": content, "tools": tools, "adapter": "ollama"},
            }
        )
        calls = (answer.get("output") or {}).get("calls")
        if not calls:
            return None
        return [(c["name"], decoded(c["arguments"])) for c in calls]

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=30)


CSV_HEADER = [
    "family", "engine", "intent", "items", "engine returned calls", "toolfix strict equal",
    "different", "toolfix = written", "engine = written",
]


def write_rows(path, rows):
    """The rows as CSV, counts only: what `docs/dialects/` pages show
    (`scripts/dialect_tables.py`)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(CSV_HEADER)
        for (family, engine, intent), row in sorted(rows.items()):
            out.writerow([
                family, engine, intent, row["items"], row["engine"], row["equal"],
                len(row["different"]), *written_cells(row),
            ])


def written_cells(row):
    """How often toolfix and the engine returned exactly the calls written, as `N/ITEMS`
    (`-` when no item of the row says what was written)."""
    return [
        f"{row[k]}/{row['written']}" if row["written"] else "-"
        for k in ("toolfix_written", "engine_written")
    ]


def decoded(arguments):
    """Arguments compared as decoded JSON values, as profile `portable` compares them."""
    try:
        return json.loads(arguments)
    except (TypeError, ValueError):
        return arguments


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", type=pathlib.Path)
    parser.add_argument("--toolfix", default=str(ROOT / "target/release/toolfix"))
    parser.add_argument(
        "--csv", type=pathlib.Path, help="also write the rows, without ids, to this CSV file"
    )
    args = parser.parse_args()

    items = [json.loads(line) for line in args.items.read_text(encoding="utf-8").splitlines()]
    items = [
        i
        for i in items
        if i.get("dialect") in FAMILIES and (i.get("intent") == "call" or "tools" in i)
    ]
    drivers = {}

    def driver(engine, name):
        key = (engine, name)
        if key not in drivers:
            drivers[key] = Driver([str(ENGINES[engine]), name])
        return drivers[key]

    reference = Driver([args.toolfix, "serve", "--profile", "strict"])
    rows = defaultdict(
        lambda: {"items": 0, "engine": 0, "equal": 0, "different": [], "written": 0,
                 "toolfix_written": 0, "engine_written": 0}
    )
    try:
        for item in items:
            family, engines = FAMILIES[item["dialect"]]
            offered = item.get("tools")
            for engine, parsers in engines.items():
                row = rows[(family, engine, item["intent"])]
                row["items"] += 1
                theirs = next(
                    (
                        c
                        for p in parsers
                        if (c := driver(engine, p).salvage(item["content"], offered or []))
                    ),
                    None,
                )
                if theirs is None and offered is None:
                    continue
                row["engine"] += theirs is not None
                tools = offered or sorted({name for name, _ in theirs if isinstance(name, str)})
                ours = reference.salvage(item["content"], tools)
                if ours == theirs:
                    row["equal"] += 1
                else:
                    row["different"].append(item.get("id", "?"))
                if "written" in item:
                    written = [tuple(call) for call in item["written"]] or None
                    row["written"] += 1
                    row["toolfix_written"] += ours == written
                    row["engine_written"] += theirs == written
    finally:
        for d in [reference, *drivers.values()]:
            d.close()

    if args.csv:
        write_rows(args.csv, rows)
    print(
        "| family | engine | intent | items | engine returned calls | toolfix strict equal "
        "| different | toolfix = written | engine = written |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (family, engine, intent), row in sorted(rows.items()):
        different = ", ".join(row["different"][:5]) or "-"
        more = len(row["different"]) - 5
        if more > 0:
            different += f" and {more} more"
        written = written_cells(row)
        print(
            f"| {family} | {engine} | {intent} | {row['items']} | {row['engine']} "
            f"| {row['equal']} | {len(row['different'])} ({different}) | {written[0]} "
            f"| {written[1]} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
