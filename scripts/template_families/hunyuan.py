"""Hunyuan Hy3 (`<tool_calls>` holding `<tool_call>NAME<tool_sep>` with `<arg_key>` /
`<arg_value>` pairs), as toolfix's shipped template `hunyuan` and SGLang's `hunyuan`
detector read it."""

ENGINE = "sglang:hunyuan"
TEMPLATE = "hunyuan"
CLOSER = "</tool_calls>"
REASONING = ("<think>", "</think>")
ENDS = []
NESTED = False


def call(name, args):
    pairs = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items())
    return f"<tool_call>{name}<tool_sep>\n{pairs}</tool_call>"


def section(calls):
    return "<tool_calls>\n" + "\n".join(calls) + "\n</tool_calls>"
