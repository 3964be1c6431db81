"""LongCat-Flash (`<longcat_tool_call>` holding one JSON `{"name", "arguments"}` object, a
line apart from its tags, up to `</longcat_tool_call>`), as toolfix's shipped template
`longcat` and vLLM's `longcat` tool parser read it (SGLang has no detector of it)."""

import json

ENGINE = "vllm:longcat"
TEMPLATE = "longcat"
CLOSER = "</longcat_tool_call>"
REASONING = ("<longcat_think>", "</longcat_think>")
ENDS = ["</longcat_s>"]
NESTED = True


def call(name, args):
    payload = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return f"<longcat_tool_call>\n{payload}\n</longcat_tool_call>"


def section(calls):
    return "\n".join(calls)
