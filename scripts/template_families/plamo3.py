"""PLaMo 3 (a `<|plamo:begin_tool_requests:plamo|>` section of requests, each a name and
JSON arguments between `<|plamo:…|>` markers), as toolfix's shipped template `plamo3` and
vLLM's `plamo3` parser read it (SGLang has no detector of it).

`CLOSER` is the section's closer: a reply without it (the closers after the JSON stripped)
still holds whole JSON. The turn ends with `<|plamo:tag|>`."""

import json

ENGINE = "vllm:plamo3"
TEMPLATE = "plamo3"
CLOSER = "<|plamo:end_tool_requests:plamo|>"
REASONING = ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")
ENDS = ["<|plamo:tag|>"]
NESTED = True


def call(name, args):
    payload = json.dumps(args, ensure_ascii=False)
    return (
        "<|plamo:begin_tool_request:plamo|>"
        f"<|plamo:begin_tool_name:plamo|>{name}<|plamo:end_tool_name:plamo|>"
        "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
        f"{payload}<|plamo:end_tool_arguments:plamo|>"
        "<|plamo:end_tool_request:plamo|>"
    )


def section(calls):
    return "<|plamo:begin_tool_requests:plamo|>" + "".join(calls) + CLOSER
