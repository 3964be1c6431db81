#!/usr/bin/env python3
"""Compare the harmony spec cases with the calls the `openai-harmony` package reads.

For every case whose reply is Harmony alone (`dialects = ["harmony"]`), the reply is
encoded with the `o200k_harmony` encoding (special tokens allowed), parsed with
`parse_messages_from_completion_tokens` (role `assistant`, or none when the reply starts
with `<|start|>`), and the calls are taken as vLLM's gpt-oss tool parser takes them: each
message whose recipient is `functions.NAME` of an offered tool, its content decoded as a
JSON object. The script prints every case where that differs from the strict expectation,
and a summary (docs/dialects/harmony.md, "Agreement with openai-harmony").

Needs `pip install openai-harmony` and the public `o200k_base.tiktoken` vocabulary
(sha256 446a9538…1a2d): the package downloads it, or reads it from the directory named by
TIKTOKEN_ENCODINGS_BASE.

    python3 scripts/check_harmony_against_openai_harmony.py \\
        spec-cases/salvage-harmony/*.toml spec-cases/salvage-reasoning/channels.toml
"""

import json
import sys
import tomllib

from openai_harmony import HarmonyEncodingName, Role, load_harmony_encoding

ENCODING = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)


def tool_names(tools):
    """The offered names: a bare name, or an OpenAI tool entry."""
    return [t if isinstance(t, str) else t["function"]["name"] for t in tools]


def harmony_calls(text, offered):
    """The calls vLLM would take from the messages openai-harmony parses out of `text`."""
    tokens = ENCODING.encode(text, allowed_special="all")
    role = None if text.lstrip().startswith("<|start|>") else Role.ASSISTANT
    messages = ENCODING.parse_messages_from_completion_tokens(tokens, role, strict=False)
    calls = []
    for message in messages:
        recipient = message.recipient or ""
        if not recipient.startswith("functions."):
            continue
        name = recipient[len("functions."):]
        if name not in offered or not message.content:
            continue
        try:
            args = json.loads(message.content[0].text)
        except ValueError:
            continue
        if isinstance(args, dict):
            calls.append([name, args])
    return calls


def expected_calls(case):
    """The strict expectation, arguments decoded."""
    expectation = case.get("strict") or case.get("expect") or {}
    calls = expectation.get("calls")
    return None if calls is None else [[n, json.loads(a)] for n, a in calls]


def main(paths):
    agree = differ = unparsed = 0
    for path in sorted(paths):
        with open(path, "rb") as f:
            data = tomllib.load(f)
        defaults = data.get("defaults", {})
        for raw in data.get("case", []):
            case = {**defaults, **raw}
            if case.get("dialects") != ["harmony"]:
                continue
            expected = expected_calls(case)
            if expected is None:
                continue
            where = f"{path}: {case['name']}"
            try:
                got = harmony_calls(case["content"], tool_names(case["tools"]))
            except Exception as e:  # the package raises its own HarmonyError
                unparsed += 1
                print(f"not parsed  {where}: {str(e)[:90]} (salvage: {len(expected)} calls)")
                continue
            if got == expected:
                agree += 1
            else:
                differ += 1
                print(f"differs     {where}\n  salvage: {expected}\n  harmony: {got}")
    print(f"{agree} agree, {differ} differ, {unparsed} not parsed by openai-harmony")


if __name__ == "__main__":
    main(sys.argv[1:])
