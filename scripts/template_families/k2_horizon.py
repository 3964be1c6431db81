"""K2 Horizon (IFM tokens: `NAME<ifm|arg_key>K</ifm|arg_key><ifm|arg_value>V</ifm|arg_value>`
inside `<ifm|tool_call>`, the calls of a turn in one `<ifm|tool_calls>` group, an optional
`<ifm|arg_type>` before each value), as toolfix's shipped template `k2_horizon` and
SGLang's `k2_horizon` detector read it.

The chat template prefills the reasoning opener, so a reply usually starts inside its
reasoning: the template's reasoning field runs from the start of the reply to the first
`</ifm|think…>`, written or not. Calls to `search` carry the typed form's
`<ifm|arg_type>`; the others the plain form. The JSON form of a call body (`{…}` inside
`<ifm|tool_call>`) is not read by the template."""

ENGINE = "sglang:k2_horizon"
TEMPLATE = "k2_horizon"
CLOSER = "</ifm|tool_calls>"
REASONING = ("<ifm|think>", "</ifm|think>")
ENDS = []
NESTED = False


def call(name, args):
    typed = name == "search"
    params = ""
    for k, v in args.items():
        kind = f"<ifm|arg_type>{'string' if isinstance(v, str) else 'integer'}</ifm|arg_type>\n" if typed else ""
        params += f"<ifm|arg_key>{k}</ifm|arg_key>\n{kind}<ifm|arg_value>{v}</ifm|arg_value>\n"
    return f"<ifm|tool_call>{name}\n{params}</ifm|tool_call>"


def section(calls):
    return "<ifm|tool_calls>\n" + "\n".join(calls) + "\n</ifm|tool_calls>"
