"""GigaChat 3 (`<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name", "arguments"}`) and
GigaChat 3.1 (`<|function_call|>{…}`): one call, ended by the end of the turn (`</s>`), as
toolfix's shipped template `gigachat3` and SGLang's `gigachat3` detector read it."""

import itertools
import json

ENGINE = "sglang:gigachat3"
TEMPLATE = "gigachat3"
CLOSER = "</s>"
REASONING = None
ENDS = []
NESTED = True

# Alternate the two versions' openers from call to call.
_OPENERS = itertools.cycle(["<|message_sep|>\n\nfunction call<|role_sep|>\n", "<|function_call|>"])


def call(name, args):
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def section(calls):
    # The format holds one call per turn: a second one is its own turn.
    return "".join(f"{next(_OPENERS)}{c}</s>" for c in calls)
