"""Inkling (`<|message_model|>NAME<|content_invoke_tool_json|>{"name", "args"}<|end_message|>`,
one message per call), as toolfix's shipped template `inkling` and SGLang's `inkling`
detector read it."""

import json

ENGINE = "sglang:inkling"
TEMPLATE = "inkling"
CLOSER = "<|end_message|>"
# Thinking is a message of its own (`<|message_model|><|content_thinking|>…<|end_message|>`):
# its first `<|end_message|>` ends it, so a call cannot be drafted inside it and the
# generator's reasoning block (which holds whole calls) does not fit the format.
REASONING = None
ENDS = ["<|content_model_end_sampling|>"]
NESTED = True


def call(name, args):
    payload = json.dumps({"name": name, "args": args}, ensure_ascii=False, separators=(",", ":"))
    return f"<|message_model|>{name}<|content_invoke_tool_json|>{payload}<|end_message|>"


def section(calls):
    return "".join(calls)
