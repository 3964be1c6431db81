"""Gemma 4 (`<|tool_call>call:NAME{key:value}<tool_call|>`, strings between `<|"|>`), as
transformers' fallback template for model type gemma4 reads it."""

import json

ENGINE = "transformers:gemma4"
CLOSER = "<tool_call|>"
REASONING = ("<|channel>thought\n", "<channel|>")
ENDS = ["<turn|>"]
NESTED = True


def value(v):
    if isinstance(v, str):
        return f'<|"|>{v}<|"|>'
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(value(x) for x in v) + "]"
    return json.dumps(v)


def call(name, args):
    return f"<|tool_call>call:{name}{value(args)}<tool_call|>"


def section(calls):
    return "".join(calls)
