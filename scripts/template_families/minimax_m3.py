"""MiniMax M3 (every tag behind the `]<]minimax[>[` namespace token:
`<tool_call>`, `<invoke name="NAME">`, and one `<KEY>V</KEY>` element per argument), as
toolfix's shipped template `minimax-m3` and SGLang's `minimax-m3` detector read it.

Arguments that nest (objects and arrays written as child elements) are not read by the
template, whose parsers give one level of keys."""

ENGINE = "sglang:minimax-m3"
TEMPLATE = "minimax-m3"
NS = "]<]minimax[>["
CLOSER = NS + "</tool_call>"
REASONING = ("<mm:think>", "</mm:think>")
ENDS = []
NESTED = False


def call(name, args):
    params = "".join(f"{NS}<{k}>{v}{NS}</{k}>\n" for k, v in args.items())
    return f'{NS}<invoke name="{name}">\n{params}{NS}</invoke>\n'


def section(calls):
    return f"{NS}<tool_call>\n" + "".join(calls) + CLOSER
