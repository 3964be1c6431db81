"""Cohere Command A / Command 4 (`<|START_ACTION|>[{"tool_call_id", "tool_name",
"parameters"}, …]<|END_ACTION|>`), as toolfix's shipped template `cohere_command4` and
SGLang's `cohere_command4` detector read it."""

import json

ENGINE = "sglang:cohere_command4"
TEMPLATE = "cohere_command4"
CLOSER = "<|END_ACTION|>"
REASONING = ("<|START_THINKING|>", "<|END_THINKING|>")
ENDS = ["<|END_OF_TURN_TOKEN|>"]
NESTED = True

_ids = iter(range(10**9))


def call(name, args):
    item = {"tool_call_id": str(next(_ids) % 10), "tool_name": name, "parameters": args}
    return json.dumps(item, ensure_ascii=False)


def section(calls):
    return "<|START_ACTION|>[\n    " + ",\n    ".join(calls) + "\n]<|END_ACTION|>"
