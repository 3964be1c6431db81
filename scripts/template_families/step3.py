"""Step-3 (`<steptml:invoke name=…>` with `<steptml:parameter name=…>` inside DeepSeek-like
call tokens), as toolfix's shipped template `step3` and SGLang's `step3` detector read it."""

ENGINE = "sglang:step3"
TEMPLATE = "step3"
CLOSER = "<｜tool_calls_end｜>"
REASONING = ("<think>", "</think>")
ENDS = []
NESTED = False


def call(name, args):
    params = "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in args.items()
    )
    return (
        f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">'
        f"{params}</steptml:invoke><｜tool_call_end｜>"
    )


def section(calls):
    return "<｜tool_calls_begin｜>" + "".join(calls) + "<｜tool_calls_end｜>"
