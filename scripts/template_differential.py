#!/usr/bin/env python3
"""The template differential: `toolfix salvage --dialect` beside an engine's own parser,
on generated replies, for every format in scripts/template_families/.

Each family module names the engine that reads its format (`ENGINE`): transformers'
`parse_response` with one of the templates `transformers serve` falls back to (Qwen 2/3,
Qwen 3.5, Gemma 4), one of SGLang's detectors, or one of vLLM's tool parsers (for a format
SGLang has no detector for), beside the template toolfix ships for it (`TEMPLATE`). Run it
with the Python that has the engine:

    adapters/transformers/.venv/bin/python scripts/template_differential.py --engine transformers
    adapters/sglang/.venv/bin/python scripts/template_differential.py --engine sglang
    adapters/vllm/.venv/bin/python scripts/template_differential.py --engine vllm

(`adapters/engines/venv adapters/NAME` builds each.) Each reply is a random sequence of
prose, calls in the family's format, calls the model only drafted in its reasoning, calls
shown in a Markdown fence, calls to a tool that was not offered, end-of-turn markers, and
sometimes a last call cut short or without its closing token. The generator knows what
each call is, so every reply gets one verdict:

* agree: both recover the same calls (names and decoded arguments, in order);
* guarantee: they differ only where a guarantee intervenes: the engine runs the fenced
  example, the unoffered name or the call drafted in reasoning, toolfix does not;
* refused: the engine gives up on the whole reply (transformers raises on a call whose
  text its parser cannot read; a detector keeps nothing) and toolfix recovers every
  complete, offered call outside fences and reasoning;
* differ: anything else, printed with the reply; the script exits 1.

`--markdown` prints only the table (docs/dialects/README.md holds the rows of both
engines under one header, "Templates toolfix ships"); `--check FILE` fails when FILE
does not hold every row of it.
"""

import argparse
import importlib.util
import json
import logging
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# One module per format: `ENGINE` ("transformers:MODEL_TYPE", "sglang:DETECTOR" or
# "vllm:PARSER"),
# `TEMPLATE` (the shipped template's name; transformers' own fallback for that engine),
# `call(name, args)` and `section(calls)` (the text of one call, and of a turn's calls
# together), `CLOSER` (the last token, which a server may strip as a stop token),
# `REASONING` (the reasoning block's open and close, or None), `ENDS` (end-of-turn
# markers) and `NESTED` (whether arguments may nest).
FAMILIES = Path(__file__).resolve().parent / "template_families"
TOOLS = {
    "get_weather": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "search": {"query": {"type": "string"}, "limit": {"type": "integer"}},
    "send_email": {"to": {"type": "string"}, "body": {"type": "string"}},
}
UNOFFERED = ["delete_user", "wire_transfer"]
WORDS = "the a weather report Paris Berlin tomorrow check it email now, then: {x} <b> résumé 東京 done".split()
STRINGS = ["Paris", "New York", "東京", "a, b: c", "line one\nline two", "say \"hi\"", "50% off", "x{y}"]


@dataclass
class Call:
    name: str
    args: dict
    offered: bool
    fenced: bool = False
    reasoning: bool = False
    complete: bool = True
    stripped: bool = False


def prose(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))


def arguments(rng, name, nested):
    args = {}
    for key, schema in TOOLS.get(name, TOOLS["search"]).items():
        if rng.random() < 0.25:
            continue
        args[key] = rng.randint(0, 99) if schema["type"] == "integer" else rng.choice(STRINGS)
    if nested and rng.random() < 0.2:
        args["options"] = {"units": rng.choice(["metric", "imperial"]), "tags": ["a", "b"]}
    return args


def reply(rng, family):
    parts, calls = [], []

    def new_call(**labels):
        offered = rng.random() < 0.85
        name = rng.choice(list(TOOLS)) if offered else rng.choice(UNOFFERED)
        call = Call(name, arguments(rng, name, family.NESTED), offered, **labels)
        calls.append(call)
        return family.call(call.name, call.args)

    def new_section(**labels):
        return family.section([new_call(**labels) for _ in range(rng.randint(1, 2))])

    if family.REASONING and rng.random() < 0.3:
        think_open, think_close = family.REASONING
        parts.append(f"{think_open}{prose(rng)}\n{new_section(reasoning=True)}\n{prose(rng)}{think_close}\n\n")
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.3:
            parts.append(prose(rng) + "\n")
        elif kind < 0.8:
            parts.append(new_section() + "\n")
        else:
            fence = rng.choice(["```", "~~~", "````json"])
            mark = fence.removesuffix("json")
            parts.append(f"Example:\n{fence}\n{new_section(fenced=True)}\n{mark}\n")
    tail = rng.random()
    if tail < 0.15:
        text = family.section([new_call()])
        calls[-1].complete = False
        parts.append(text[: rng.randint(1, len(text) - 1)])
    elif tail < 0.3:
        parts.append(family.section([new_call(stripped=True)]).removesuffix(family.CLOSER))
    elif tail < 0.5 and family.ENDS:
        parts.append(rng.choice(family.ENDS))
    return "".join(parts), calls


TOOL_ENTRIES = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": p}}}
    for n, p in TOOLS.items()
]


class Transformers:
    """transformers' `parse_response` with the fallback template of the family's model type."""

    def __init__(self, model_type, tmp):
        from transformers.cli.serving.utils import _RESPONSE_TEMPLATE_FALLBACKS
        from transformers.utils.chat_parsing.response_parser import parse_response

        self.parse_response = parse_response
        self.template = next(t for types, t in _RESPONSE_TEMPLATE_FALLBACKS.items() if model_type in types)
        self.dialect = Path(tmp) / f"{model_type}.json"
        self.dialect.write_text(json.dumps(self.template))

    def calls(self, text):
        try:
            message = self.parse_response(text, self.template, prefix="", tools=TOOL_ENTRIES)
        except Exception:  # noqa: BLE001  the parser refuses the whole reply
            return None
        out = []
        for call in message.get("tool_calls") or []:
            fn = call["function"]
            args = fn.get("arguments", {})
            out.append((fn["name"], json.loads(args) if isinstance(args, str) else args))
        return out


class SGLang:
    """SGLang's detector, called as its OpenAI server calls it (adapters/sglang/driver.py),
    beside the template toolfix ships for the family."""

    def __init__(self, detector, template):
        from sglang.srt.entrypoints.openai.protocol import Tool
        from sglang.srt.function_call.function_call_parser import FunctionCallParser

        self.parser = lambda: FunctionCallParser([Tool.model_validate(t) for t in TOOL_ENTRIES], detector)
        self.dialect = template

    def calls(self, text):
        parser = self.parser()
        if not parser.has_tool_call(text):
            return []
        try:
            _, calls = parser.parse_non_stream(text)
        except Exception:  # noqa: BLE001  the server logs it and keeps no calls
            return None
        return [(c.name, json.loads(c.parameters)) for c in calls]


class VLLM:
    """vLLM's tool parser, called as its OpenAI server calls it on a whole reply
    (adapters/vllm/driver.py: the stand-in tokenizer, `Parser.parse`), beside the template
    toolfix ships for the family."""

    def __init__(self, parser, template):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "adapters" / "vllm"))
        import driver  # noqa: PLC0415  only with vLLM's Python

        # The driver points stdout at stderr (its protocol's stream); the table goes to stdout.
        sys.stdout = driver.engine_driver.toolfix_driver.claim_stdout()
        self.loaded = driver.Loaded(parser)
        self.dialect = template

    def calls(self, text):
        try:
            got = self.loaded.batch(text, TOOL_ENTRIES)
        except Exception:  # noqa: BLE001  the server fails the request
            return None
        return [(name, decoded(args)) for name, args in got]


def decoded(args):
    """A call's arguments as JSON, or as the engine gave them when they do not read: what
    was written of a cut call, which some parsers run (`aligned` pairs it by its name)."""
    try:
        return json.loads(args)
    except ValueError:
        return args


def engine(family, tmp):
    kind, name = family.ENGINE.split(":")
    if kind == "transformers":
        return Transformers(name, tmp)
    return SGLang(name, family.TEMPLATE) if kind == "sglang" else VLLM(name, family.TEMPLATE)


def toolfix_calls(toolfix, dialect, tools_file, text):
    run = subprocess.run(
        [toolfix, "salvage", "--tools-file", tools_file, "--dialect", dialect, "-"],
        input=text.encode(), capture_output=True, check=False,
    )
    if run.returncode != 0:
        raise SystemExit(f"toolfix failed: {run.stderr.decode()}")
    lines = run.stdout.decode().splitlines()
    if lines == ["no calls"]:
        return []
    return [(c["name"], json.loads(c["arguments"])) for c in map(json.loads, lines)]


def safe(call):
    return call.offered and not call.fenced and not call.reasoning


def aligned(got_e, calls):
    """Each engine call beside the generated call it is: the next one with its name and
    arguments, or else (a call the engine read a part of) the next one with its name;
    None when one has none."""
    out, at = [], 0
    for name, args in got_e:
        rest = range(at, len(calls))
        same = next((i for i in rest if (calls[i].name, calls[i].args) == (name, args)), None)
        named = next((i for i in rest if calls[i].name == name), None)
        found = same if same is not None else named
        if found is None:
            return None
        out.append(((name, args), calls[found]))
        at = found + 1
    return out


def verdict(got_e, got_r, calls):
    if got_e == got_r:
        return "agree"
    pairs = aligned(got_e or [], calls)
    # A call cut short is no call (G4); one whose closing token was stripped may be
    # either, by the format (JSON reads whole; tags would read a prefix).
    kept = [(e, c) for e, c in pairs or [] if safe(c) and c.complete]
    either = [kept, [(e, c) for e, c in kept if not c.stripped]]
    if pairs is not None and any(got_r == [e for e, _ in k] for k in either):
        return "guarantee"
    # The engine missed calls or gave up: toolfix recovers each complete safe call, and
    # a cut last call only as far as the engine would read it too.
    complete = [(c.name, c.args) for c in calls if safe(c) and c.complete]
    cut_last = calls and not calls[-1].complete and safe(calls[-1])
    if got_r == complete or (cut_last and got_r[:-1] == complete and got_r[-1][0] == calls[-1].name):
        return "more"
    return "differ"


def families(engine_kind):
    for path in sorted(FAMILIES.glob("*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if module.ENGINE.startswith(engine_kind + ":"):
            yield path.stem, module


HEADER = (
    "| format | engine | replies | agree | differ only by a guarantee "
    "| toolfix recovers calls the engine misses | differ |\n|---|---|---:|---:|---:|---:|---:|\n"
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=["transformers", "sglang", "vllm"], required=True)
    ap.add_argument("--toolfix", default="target/release/toolfix")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--family", help="only this family (a file stem of scripts/template_families)")
    ap.add_argument("--markdown", action="store_true", help="print only the table")
    ap.add_argument("--check", metavar="FILE", help="fail unless FILE holds the table")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the detectors log every unoffered name
    table, failed = HEADER, 0
    with tempfile.TemporaryDirectory() as tmp:
        tools_file = Path(tmp) / "tools.json"
        tools_file.write_text(json.dumps(TOOL_ENTRIES))
        for stem, family in families(args.engine):
            if args.family and stem != args.family:
                continue
            reader = engine(family, tmp)
            rng = random.Random(f"{args.seed}-{stem}")
            counts = dict.fromkeys(["agree", "guarantee", "more", "differ"], 0)
            for _ in range(args.count):
                text, calls = reply(rng, family)
                got_e = reader.calls(text)
                got_r = toolfix_calls(args.toolfix, reader.dialect, tools_file, text)
                v = verdict(got_e, got_r, calls)
                counts[v] += 1
                if v == "differ":
                    failed += 1
                    if not args.markdown:
                        print(f"differ ({stem}): {text!r}\n  engine: {got_e}\n  toolfix: {got_r}")
            c = counts
            table += (
                f"| `{getattr(family, 'TEMPLATE', stem)}` | {family.ENGINE.replace(':', ' ')} | {sum(c.values())} | {c['agree']} "
                f"| {c['guarantee']} | {c['more']} | {c['differ']} |\n"
            )
    print(table, end="")
    if args.check:
        page = Path(args.check).read_text()
        missing = [row for row in table.splitlines() if row not in page.splitlines()]
        if missing:
            print(f"{args.check} does not hold these rows: paste them there", file=sys.stderr)
            failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
