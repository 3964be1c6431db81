"""Muse Glimmer (ATEM: `<atem:invoke name="NAME">` holding
`<atem:parameter name="K">V</atem:parameter>`, in `<atem:function_calls>`, sent on a
channel addressed to the tool: `<|start|>assistant to=functions.NAME<|message|>…<|eom|>`),
as toolfix's shipped template `muse` and SGLang's `muse` detector read it.

Reasoning is the `to=self` channel, and the `to=user` and `to=commentary` channels are
text. SGLang reads invokes only on a channel addressed to a tool; the template also reads
them in text outside every channel (it cannot tell a channel's absence), though never in
reasoning, those two channels or fences."""

import json
import re

ENGINE = "sglang:muse"
TEMPLATE = "muse"
CLOSER = "<|eom|>"
REASONING = (" to=self<|message|>", "<|eom|>")
ENDS = ["<|eot|>"]
NESTED = True


def call(name, args):
    params = "".join(
        f'<atem:parameter name="{k}">{v if isinstance(v, str) else json.dumps(v)}</atem:parameter>'
        for k, v in args.items()
    )
    return f'<atem:invoke name="{name}">{params}</atem:invoke>'


def section(calls):
    first = re.search(r'name="([^"]+)"', calls[0]).group(1)
    return (
        f"<|start|>assistant to=functions.{first}<|message|><atem:function_calls>\n"
        + "\n".join(calls)
        + "\n</atem:function_calls><|eom|>"
    )
