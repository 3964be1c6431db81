"""AI21 Jamba (`<tool_calls>[{"name", "arguments"}, …]</tool_calls>`), as toolfix's shipped
template `jamba` and vLLM's `jamba` tool parser read it (SGLang has no detector for it)."""

import json

ENGINE = "vllm:jamba"
TEMPLATE = "jamba"
CLOSER = "</tool_calls>"
REASONING = None
ENDS = ["<|eom|>"]
NESTED = True


def call(name, args):
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def section(calls):
    return "<tool_calls>[" + ", ".join(calls) + "]</tool_calls>"
