"""Qwen 2/3 (Hermes-style JSON in `<tool_call>`), as transformers' fallback template for
model types qwen2…qwen3_vl_moe reads it."""

import json

ENGINE = "transformers:qwen2"
CLOSER = "</tool_call>"
REASONING = ("<think>", "</think>")
ENDS = ["<|im_end|>"]
NESTED = True


def call(name, args):
    payload = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return f"<tool_call>\n{payload}\n</tool_call>"


def section(calls):
    return "\n".join(calls)
