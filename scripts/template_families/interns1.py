"""Intern-S1 / InternLM2 (`<|action_start|><|plugin|>` then a JSON `{"name", "parameters"}`
up to `<|action_end|>`), as toolfix's shipped template `interns1` and SGLang's `interns1`
detector read it.

The chat template writes the two tokens side by side; SGLang's server detokenizes with a
space between special tokens and its detector looks for `<|action_start|> <|plugin|>`, so
the replies here carry that space (the template accepts any whitespace, or none)."""

import json

ENGINE = "sglang:interns1"
TEMPLATE = "interns1"
CLOSER = "<|action_end|>"
REASONING = ("<think>", "</think>")
ENDS = ["<|im_end|>"]
NESTED = True


def call(name, args):
    payload = json.dumps({"name": name, "parameters": args}, ensure_ascii=False)
    return f"<|action_start|> <|plugin|>\n{payload}<|action_end|>"


def section(calls):
    return "\n".join(calls)
