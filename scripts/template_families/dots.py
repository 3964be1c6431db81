"""dots (`<dots_function_call>` holding `<invoke name="NAME">` with `<parameter name=…>`
elements, one a line), as toolfix's shipped template `dots` and SGLang's `dots` detector
read it."""

ENGINE = "sglang:dots"
TEMPLATE = "dots"
CLOSER = "</dots_function_call>"
REASONING = ("<think>", "</think>")
ENDS = []
NESTED = False


def call(name, args):
    params = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in args.items())
    return f'<invoke name="{name}">\n{params}</invoke>'


def section(calls):
    return "<dots_function_call>\n" + "\n".join(calls) + "\n</dots_function_call>"
