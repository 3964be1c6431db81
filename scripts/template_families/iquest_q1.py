"""IQuest Q1 (GLM-4.7-style `NAME<arg_key>K</arg_key><arg_value>V</arg_value>` inside
`<iquest_tool_call>`), as toolfix's shipped template `iquest_q1` and SGLang's `iquest_q1`
detector read it."""

ENGINE = "sglang:iquest_q1"
TEMPLATE = "iquest_q1"
CLOSER = "</iquest_tool_call>"
REASONING = ("<think>", "</think>")
ENDS = ["<|im_end|>"]
NESTED = False


def call(name, args):
    params = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in args.items())
    return f"<iquest_tool_call>{name}{params}</iquest_tool_call>"


def section(calls):
    return "\n".join(calls)
