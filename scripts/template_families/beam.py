"""Beam (Harmony-like messages: a call opens ` to=NAME<|channel|>analysis
<|constrain|>xml<|message|>` after `<|start|>assistant` and holds
`<rfl:parameter name=…>\\nVALUE\\n</rfl:parameter>` elements), as toolfix's shipped template
`beam` and SGLang's `beam` detector (its own response template) read it."""

ENGINE = "sglang:beam"
TEMPLATE = "beam"
CLOSER = "<|call|>"
# Reasoning (`<|channel|>analysis<|message|>…`) ends at `<|end|><|start|>assistant`, the very
# text that separates two calls of a turn: a turn's calls cannot be drafted inside it, so the
# generator's reasoning block (which holds a whole turn of calls) does not fit the format.
REASONING = None
ENDS = ["<|return|>"]
NESTED = False


def call(name, args):
    params = "".join(f'<rfl:parameter name="{k}">\n{v}\n</rfl:parameter>' for k, v in sorted(args.items()))
    return f" to={name}<|channel|>analysis <|constrain|>xml<|message|>{params}"


def section(calls):
    return "<|start|>assistant" + "<|end|><|start|>assistant".join(calls) + "<|call|>"
