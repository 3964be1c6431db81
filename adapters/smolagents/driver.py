#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around the real `smolagents` package
from PyPI (Hugging Face, Apache-2.0), version pinned in requirements.txt.

Salvage runs what a `ToolCallingAgent` step runs on a model reply that carries no native
tool calls (smolagents/agents.py, `_step_stream`):

    chat_message = self.model.parse_tool_calls(chat_message)

on a plain `smolagents.models.Model()` (default `tool_name_key="name"`,
`tool_arguments_key="arguments"`): `get_tool_call_from_text` -> `utils.parse_json_blob`
(the text from the first `{` to the last `}`, read with `json.loads(strict=False)`), then
`parse_json_if_needed` on the arguments. The agent turns any `Exception` raised there into
`AgentParsingError`, records it in the step's memory and goes on to the next step without
running a tool: the driver answers such a reply with no calls (README.md). The parser is
never given the tool list. See README.md.

Started from templates/python/driver.py.
"""

import contextlib
import json
import os
import sys
import traceback

PROTOCOL = 1


def _claim_stdout():
    """The protocol's output stream, with fd 1 and `sys.stdout` pointed at stderr."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


OUT = _claim_stdout()

# ---------------------------------------------------------------------------------------
# Fill in from here. Import your implementation after _claim_stdout(), so nothing it
# prints on import can reach the protocol stream.
# ---------------------------------------------------------------------------------------

import smolagents  # noqa: E402  (after _claim_stdout on purpose)
from smolagents.models import ChatMessage, MessageRole, Model  # noqa: E402

IMPLEMENTATION = {"name": "smolagents", "version": smolagents.__version__,
                  "language": "python",
                  "api": "Model.parse_tool_calls (ToolCallingAgent text path)",
                  "python": sys.version.split()[0],
                  "homepage": "https://github.com/huggingface/smolagents",
                  "issues": "https://github.com/huggingface/smolagents/issues"}

DECLARATIONS = {
    "profile": "portable",
    "ops": ["salvage"],
    # Checked with `toolfix smoke` and the suite's cases; README.md has the evidence.
    "dialects": ["whole_json"],
    "policies": {"adapters": False, "unclosed_calls": False, "lenient_json": False,
                 "case_insensitive_names": False, "masks_reasoning": False},
}

MODEL = Model()  # the base class: parse_tool_calls needs no model and no network

# The package runs under CPython's own limits (recursion 1000, 4300-digit integers), as in
# the application that calls it; main() lifts them only to read requests and write answers.
_INT_DIGITS = (getattr(sys, "get_int_max_str_digits", lambda: 0),
               getattr(sys, "set_int_max_str_digits", lambda digits: None))
INTERPRETER_DEFAULTS = (sys.getrecursionlimit(), _INT_DIGITS[0]())


@contextlib.contextmanager
def interpreter_defaults():
    lifted = (sys.getrecursionlimit(), _INT_DIGITS[0]())
    sys.setrecursionlimit(INTERPRETER_DEFAULTS[0])
    _INT_DIGITS[1](INTERPRETER_DEFAULTS[1])
    try:
        yield
    finally:
        sys.setrecursionlimit(lifted[0])
        _INT_DIGITS[1](lifted[1])


def salvage(content, tools, adapter):
    """The call a ToolCallingAgent step recovers from `content` (tools are never consulted)."""
    message = ChatMessage(role=MessageRole.ASSISTANT, content=content)
    try:
        with interpreter_defaults():
            message = MODEL.parse_tool_calls(message)
    except Exception:  # noqa: BLE001  the agent's own catch: AgentParsingError, no tool runs
        traceback.print_exc(limit=3, file=sys.stderr)
        return []
    return [(call.function.name, json.dumps(call.function.arguments))
            for call in message.tool_calls]


# ---------------------------------------------------------------------------------------
# The protocol. Nothing below needs changing for a salvage-only implementation.
# ---------------------------------------------------------------------------------------

def tool_entries(tools):
    """The OpenAI tool list a protocol `tools` input stands for (docs/protocol.md)."""
    entries = []
    for tool in tools:
        if isinstance(tool, str):
            entries.append({"type": "function", "function": {
                "name": tool, "description": "",
                "parameters": {"type": "object", "properties": {}}}})
        elif isinstance(tool, dict) and set(tool) == {"$raw"}:
            entries.append(tool["$raw"])
        else:
            entries.append(tool)
    return entries


def run_salvage(data):
    calls = salvage(data["content"], tool_entries(data["tools"]), data.get("adapter", "local"))
    if not calls:
        return {"calls": None}
    return {"calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}


OPS = {"salvage": run_salvage}


def hello(request):
    return {"protocol": PROTOCOL, "implementation": IMPLEMENTATION, **DECLARATIONS}


def answer_run(request):
    seq = request.get("seq")
    op = OPS.get(request.get("op"))
    if op is None or not isinstance(request.get("input"), dict):
        return {"seq": seq, "errored": f"unknown op or malformed input: {request.get('op')!r}"}
    try:
        return {"seq": seq, "output": op(request["input"])}
    except NotImplementedError as declined:
        return {"seq": seq, "skipped": f"not supported: {declined}" if str(declined)
                else "not supported by this implementation"}
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException:  # noqa: BLE001  (PyO3's PanicException is a BaseException)
        return {"seq": seq, "errored": traceback.format_exc(limit=20)}


def respond(line):
    """The answer to one request line, or None for `stop`."""
    try:
        request = json.loads(line)
    except ValueError as error:
        return {"errored": f"the request is not JSON: {error}"}
    if not isinstance(request, dict):
        return {"errored": "the request is not a JSON object"}
    command = request.get("cmd")
    if command == "hello":
        return hello(request)
    if command == "run":
        return answer_run(request)
    if command == "stop":
        return None
    return {"seq": request.get("seq"), "errored": f"unknown cmd {command!r}"}


def main():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    for line in sys.stdin.buffer:
        answer = respond(line.decode("utf-8", "surrogatepass"))
        if answer is None:
            return
        OUT.write(json.dumps(answer) + "\n")
        OUT.flush()


if __name__ == "__main__":
    main()
