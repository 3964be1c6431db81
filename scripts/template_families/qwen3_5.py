"""Qwen 3.5 (`<function=NAME><parameter=KEY>` inside `<tool_call>`), as transformers'
fallback template for model types qwen3_5… reads it."""

ENGINE = "transformers:qwen3_5"
CLOSER = "</tool_call>"
REASONING = ("<think>", "</think>")
ENDS = ["<|im_end|>"]
NESTED = False


def call(name, args):
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def section(calls):
    return "\n".join(calls)
