#!/usr/bin/env python3
"""The Python module `toolfix` against the real praisonaiagents 1.7.17, in one process.

    python scripts/check_python_module.py [--count N] [--seed S] [--min-compared M] [-v]
        [--toolfix CMD]

Run it with an interpreter whose environment holds both the toolfix wheel and
praisonaiagents==1.7.17 (`.ci/python-package` builds such a venv). For every corpus
item and for N generated `salvage` and `format_result` inputs (the cases of
`toolfix diff`, written by `toolfix diff --write-cases`, plus Python objects the
protocol cannot carry: tuples, sets, datetimes, subclasses), it calls the package's adapter method and the module's drop-in
function the same way, as if from a module-level frame, and compares the whole answer:
the list of calls with their ids, the message, or the exception class and message.
Nothing is left out of the comparison; ids agree because both sides hash the reply with
the same interpreter.

Exit status: 0 when every input agrees and at least --min-compared inputs were
compared, 1 otherwise.
"""

import argparse
import datetime
import json
import math
import random
import shlex
import shutil
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "adapters" / "praisonai"))
sys.path.insert(0, str(ROOT / "scripts"))
# Generated inputs nest past the default recursion limit and hold integers longer than
# 4300 digits; both sides are called under the same limits.
sys.setrecursionlimit(20000)
sys.set_int_max_str_digits(0)

from check_corpus_against_praisonai import corpus_paths, load_item  # noqa: E402
from module_level import AsIfModuleLevel  # noqa: E402

import toolfix  # noqa: E402
from praisonaiagents.llm.adapters import get_provider_adapter  # noqa: E402


class Opaque:
    """The protocol's `$opaque` value: an object JSON cannot hold, printed as its text."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text


class Labelled(dict):
    """A dict subclass: `json.dumps` takes it, its `str()` is its own."""

    def __str__(self):
        return "Labelled(" + dict.__repr__(self) + ")"


NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# Results only Python can build: each sends the module down its Python printing.
PYTHON_ONLY = [
    (1, "two", 3.0),
    {1, 2, 3},
    datetime.datetime(2024, 1, 2, 3, 4, 5),
    {"when": datetime.date(2024, 1, 2)},
    Labelled(a=1),
    OrderedDict(b=2),
    {1: "int key"},
    [("tuple", "inside"), {"error": None}],
    {"error": (1, 2)},
]


def from_wire(value):
    """A protocol value as the Python object the package would be handed."""
    if isinstance(value, dict):
        if len(value) == 1 and "$float" in value:
            return NON_FINITE[value["$float"]]
        if len(value) == 1 and "$opaque" in value:
            return Opaque(value["$opaque"])
        return {key: from_wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_wire(item) for item in value]
    return value


def tool_list(entries):
    """The OpenAI tool list a protocol `tools` input stands for (docs/protocol.md)."""
    tools = []
    for entry in entries:
        if isinstance(entry, str):
            tools.append({"type": "function", "function": {
                "name": entry, "description": "",
                "parameters": {"type": "object", "properties": {}}}})
        elif isinstance(entry, dict) and set(entry) == {"$raw"}:
            tools.append(entry["$raw"])
        else:
            tools.append(from_wire(entry))
    return tools


def outcome(call):
    """What a call returned, or the exception it raised, as a comparable value."""
    try:
        return ("returned", call())
    except Exception as exc:  # both sides raising alike is agreement
        return ("raised", type(exc).__name__, str(exc))


def salvage_both(content, tools, adapter):
    """(package, module) outcomes of salvaging one reply."""
    package = get_provider_adapter(adapter)

    def real():
        with AsIfModuleLevel():
            return package.recover_tool_calls_from_text(content, tools)

    def ours():
        with AsIfModuleLevel():
            return toolfix.recover_tool_calls_from_text(content, tools, adapter)

    return outcome(real), outcome(ours)


def stream_both(content, tools, adapter):
    """(package, module) outcomes of salvaging one reply, the module streaming it in
    chunks of 1 to 7 characters: the calls without their ids (a stream has not seen the
    whole reply when it gives a call), and for the module also the text it showed, which
    under profile praisonai is every chunk, as the package's streaming loop shows it."""
    package = get_provider_adapter(adapter)

    def strip_ids(calls):
        return None if calls is None else [call["function"] for call in calls]

    def real():
        with AsIfModuleLevel():
            return strip_ids(package.recover_tool_calls_from_text(content, tools)), content

    def ours():
        rng = random.Random(content)
        with AsIfModuleLevel():
            stream = toolfix.StreamSalvager(tools, adapter, "praisonai")
            events, at = [], 0
            while at < len(content):
                step = rng.randint(1, 7)
                events += stream.feed(content[at:at + step])
                at += step
            events += stream.finish()
        calls = [payload["function"] for kind, payload in events if kind == "call"]
        shown = "".join(payload for kind, payload in events if kind == "text")
        return (calls or None), shown

    return outcome(real), outcome(ours)


def format_both(adapter, function_name, result, tool_call_id):
    """(package, module) outcomes of formatting one result."""
    package = get_provider_adapter(adapter)

    def real():
        with AsIfModuleLevel():
            return package.format_tool_result_message(function_name, result, tool_call_id)

    def ours():
        with AsIfModuleLevel():
            return toolfix.format_tool_result_message(function_name, result, tool_call_id, adapter)

    return outcome(real), outcome(ours)


def same(a, b):
    """Equality that counts NaN equal to NaN (a result may hold one)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def generated_cases(toolfix_command, op, count, seed):
    """The cases `toolfix diff` generates for `op`, as protocol values."""
    argv = shlex.split(toolfix_command) + [
        "diff", "--write-cases", "-", "--op", op, "--count", str(count), "--seed", seed]
    written = subprocess.run(argv, check=True, stdout=subprocess.PIPE).stdout
    return [json.loads(line) for line in written.splitlines() if line.strip()]


def default_toolfix():
    """The `toolfix` command beside this interpreter (the wheel's), else on PATH."""
    beside = Path(sys.executable).with_name("toolfix")
    return str(beside) if beside.exists() else (shutil.which("toolfix") or "toolfix")


def inputs(toolfix_command, count, seed):
    """(label, kind, arguments) for every corpus item and every generated input."""
    for path in corpus_paths():
        item = load_item(path)
        yield path.relative_to(ROOT).as_posix(), "salvage", (
            item["content"], tool_list(item["tools"]), item["adapter"])
    for case in generated_cases(toolfix_command, "salvage", count, seed):
        inp = case["input"]
        yield f"salvage/{case['family']}/{case['index']}", "salvage", (
            inp["content"], tool_list(inp["tools"]), inp["adapter"])
    for case in generated_cases(toolfix_command, "format_result", count, seed):
        inp = case["input"]
        yield f"format_result/{case['family']}/{case['index']}", "format_result", (
            inp["adapter"], inp["function_name"], from_wire(inp["tool_result"]),
            inp.get("tool_call_id"))
    for index, result in enumerate(PYTHON_ONLY):
        for adapter in ("ollama", "local"):
            yield f"format_result/python-only/{index}/{adapter}", "format_result", (
                adapter, "get_weather", result, None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="generated inputs per op")
    parser.add_argument("--seed", default="2026")
    parser.add_argument("--min-compared", type=int, default=0,
                        help="fail unless at least this many inputs were compared")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--toolfix", default=default_toolfix(),
                        help="the toolfix command that generates the inputs "
                             "(default: the one beside this interpreter)")
    args = parser.parse_args(argv)
    compared, differences = 0, []
    for label, kind, arguments in inputs(args.toolfix, args.count, args.seed):
        both = salvage_both(*arguments) if kind == "salvage" else format_both(*arguments)
        compared += 1
        if not same(*both):
            differences.append((label, arguments, both))
        elif args.verbose:
            print(f"agree {label}")
        if kind == "salvage" and isinstance(arguments[0], str) and arguments[1]:
            streamed = stream_both(*arguments)
            compared += 1
            if not same(*streamed):
                differences.append((f"{label} (streamed)", arguments, streamed))
    for label, arguments, (real, ours) in differences[:20]:
        print(f"DIFFERS {label}\n  input:   {arguments!r:.300}\n  package: {real!r:.300}\n"
              f"  module:  {ours!r:.300}")
    print(f"python module vs praisonaiagents 1.7.17: {compared} compared, "
          f"{len(differences)} differ")
    if compared < args.min_compared:
        print(f"fewer than the {args.min_compared} inputs asked for were compared")
        return 1
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
