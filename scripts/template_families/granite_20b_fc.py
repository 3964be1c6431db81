"""Granite 20B FunctionCalling (`<function_call>` then one JSON `{"name", "arguments"}` per
call, no closing token), as toolfix's shipped template `granite-20b-fc` and vLLM's
`granite-20b-fc` tool parser read it (SGLang has no detector of it).

With no closing token, `CLOSER` is the end-of-turn token a server strips as a stop token:
a call without it is whole."""

import json

ENGINE = "vllm:granite-20b-fc"
TEMPLATE = "granite-20b-fc"
CLOSER = "<|endoftext|>"
REASONING = None
ENDS = ["<|endoftext|>"]
NESTED = True


def call(name, args):
    payload = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return f"<function_call> {payload}"


def section(calls):
    return "\n".join(calls)
