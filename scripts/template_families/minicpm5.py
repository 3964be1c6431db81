"""MiniCPM 5 (`<function name="NAME"><param name="K">V</param></function>`, a value with a
line break or markup in `<![CDATA[…]]>`), as toolfix's shipped template `minicpm5` and
SGLang's `minicpm5` detector read it."""

ENGINE = "sglang:minicpm5"
TEMPLATE = "minicpm5"
CLOSER = "</function>"
REASONING = ("<think>", "</think>")
ENDS = ["<|im_end|>"]
NESTED = False


def value(v):
    v = str(v)
    return f"<![CDATA[{v}]]>" if any(c in v for c in "\n<&") else v


def call(name, args):
    params = "".join(f'<param name="{k}">{value(v)}</param>' for k, v in args.items())
    return f'<function name="{name}">{params}</function>'


def section(calls):
    return "\n".join(calls)
