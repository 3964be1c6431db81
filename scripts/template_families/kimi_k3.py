"""Kimi K3 (XTML: `<|open|>call tool="NAME" index="N"<|sep|>` holding
`<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`, inside a
`<|open|>tools<|sep|>` channel), as toolfix's shipped template `kimi_k3` and SGLang's
`kimi_k3` detector read it.

Calls written in the `response` channel are text there, as SGLang reads only the tools
channel. The template types values by the tool's schema, not by the `type` attribute: the two agree
wherever the chat template wrote the attribute from the schema."""

import json

ENGINE = "sglang:kimi_k3"
TEMPLATE = "kimi_k3"
CLOSER = "<|close|>tools<|sep|>"
REASONING = ("<|open|>think<|sep|>", "<|close|>think<|sep|>")
ENDS = ["<|close|>message<|sep|>"]
NESTED = False

_index = 0


def call(name, args):
    global _index
    _index += 1
    params = "".join(
        f'<|open|>argument key="{k}" type="{"string" if isinstance(v, str) else "number"}"<|sep|>'
        f"{v if isinstance(v, str) else json.dumps(v)}<|close|>argument<|sep|>"
        for k, v in args.items()
    )
    return f'<|open|>call tool="{name}" index="{_index}"<|sep|>{params}<|close|>call<|sep|>'


def section(calls):
    global _index
    _index = 0
    return "<|open|>tools<|sep|>" + "".join(calls) + "<|close|>tools<|sep|>"
