#!/usr/bin/env python3
"""Generated DeepSeek V4 and V4.1 replies, for a differential against the engines' parsers.

Writes JSON lines that `scripts/compare_engine_parsers.py` reads: `id`, `content`,
`dialect` (`deepseek_v4_dsml` or `deepseek_v41_dsml`), `tools`, `intent` and `written`
(the calls meant to run, as `[name, arguments]`). A `call`
reply is one the encoder could have written (1 to 3 invokes after optional prose and
reasoning, each with 0 to 3 parameters, `string="true"` text or `string="false"` JSON,
a call without arguments written either empty or self-closing); the other intents are
the replies where toolfix differs from an engine on purpose: `example` (the section
inside a Markdown fence, G1), `unoffered` (an invoke of a name not offered, G2) and
`draft` (a section inside `<think>`, G9), each followed by one real call, the only one
`written`.

    python3 scripts/dsml_replies.py [--per-version N] [--seed S] > ITEMS.jsonl
"""

import argparse
import json
import random

DSML = "｜DSML｜"
VERSIONS = {
    # dialect label: (section, invoke, parameter), the tag names after the marker
    "deepseek_v4_dsml": ("tool_calls", "invoke", "parameter"),
    "deepseek_v41_dsml": (" calls", " invoke", " parameter"),
}
TOOLS = ["get_weather", "get_time", "write_file", "search_docs"]
KEYS = ["city", "days", "path", "content", "query", "limit", "tags", "options"]
TEXT = ["Paris", "東京", "São Paulo", "a b  c", "line one\nline two", "x < y", "{not json}",
        "42", "", "say \"hi\""]
JSON = ["3", "-1.5", "true", "null", '["a", "b"]', '{"k": [1, 2]}', "0"]


def invoke(rng, tags, name):
    """One invoke of `name`: its text and the arguments it carries."""
    _, inv, par = tags
    keys = rng.sample(KEYS, rng.randint(0, 3))
    if not keys and rng.random() < 0.5:
        return f'<{DSML}{inv} name="{name}"/>', {}
    args, lines = {}, []
    for key in keys:
        if rng.random() < 0.5:
            value = rng.choice(TEXT)
            args[key] = value
            lines.append(f'<{DSML}{par} name="{key}" string="true">{value}</{DSML}{par}>')
        else:
            value = rng.choice(JSON)
            args[key] = json.loads(value)
            lines.append(f'<{DSML}{par} name="{key}" string="false">{value}</{DSML}{par}>')
    body = "\n".join(lines)
    return f'<{DSML}{inv} name="{name}">\n{body}\n</{DSML}{inv}>', args


def section(rng, tags, names):
    """A section holding an invoke of each of `names`, and the calls it writes."""
    sec = tags[0]
    invokes = [invoke(rng, tags, n) for n in names]
    text = "\n".join(t for t, _ in invokes)
    return f"<{DSML}{sec}>\n{text}\n</{DSML}{sec}>", [[n, a] for n, (_, a) in zip(names, invokes)]


def call_reply(rng, tags):
    names = [rng.choice(TOOLS) for _ in range(rng.randint(1, 3))]
    prose = rng.choice(["", "Let me check.\n\n", "I will call the tools now.\n\n"])
    think = rng.choice(["", "<think>The user wants data; call the tool.</think>"])
    text, calls = section(rng, tags, names)
    return think + prose + text, calls


def differing_reply(rng, tags, intent):
    real, calls = section(rng, tags, ["get_time"])
    if intent == "example":
        shown = section(rng, tags, ["get_weather"])[0]
        return "The format is:\n```\n" + shown + "\n```\n" + real, calls
    if intent == "unoffered":
        return section(rng, tags, ["wire_transfer"])[0] + "\n" + real, calls
    draft = section(rng, tags, ["write_file"])[0]
    return "<think>Draft: " + draft + " no.</think>\n" + real, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-version", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261206)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for dialect, tags in VERSIONS.items():
        for i in range(args.per_version):
            content, calls = call_reply(rng, tags)
            item = {"id": f"{dialect}-{i}", "dialect": dialect, "tools": TOOLS,
                    "intent": "call", "content": content, "written": calls}
            print(json.dumps(item, ensure_ascii=False))
        for intent in ["example", "unoffered", "draft"]:
            for i in range(10):
                content, calls = differing_reply(rng, tags, intent)
                item = {"id": f"{dialect}-{intent}-{i}", "dialect": dialect, "tools": TOOLS,
                        "intent": intent, "content": content, "written": calls}
                print(json.dumps(item, ensure_ascii=False))


if __name__ == "__main__":
    main()
