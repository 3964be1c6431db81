"""Hunyuan A13B (`<tool_calls>[{"name", "arguments"}, …]</tool_calls>` in its answer, after
`<think>` reasoning), as toolfix's shipped template `hunyuan_a13b` and vLLM's `hunyuan_a13b`
tool parser read it (SGLang has no detector for it)."""

import json

ENGINE = "vllm:hunyuan_a13b"
TEMPLATE = "hunyuan_a13b"
CLOSER = "</tool_calls>"
REASONING = ("<think>\n", "\n</think>")
ENDS = ["\n</answer>"]
NESTED = True


def call(name, args):
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def section(calls):
    return "<tool_calls>[" + ", ".join(calls) + "]</tool_calls>"
