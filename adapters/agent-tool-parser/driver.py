#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around the real `agent-tool-parser`
package from PyPI (InBoost Team, MIT), version pinned in requirements.txt.

Salvage calls the package's public object API,

    ToolParser(allowed_tools=<the offered tool names>).try_parse_all(content)

which is the Rust core (`agent_tool_parser._accelerated`, `ACCELERATED is True`), and
answers each returned `ToolCall` as `{"name": call.name, "arguments": json.dumps(call.args)}`.
Every other option keeps the package default (its built-in tool and parameter aliases,
`strip_thinking=True`, `allow_shell_fallback=False`). See README.md.

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

import agent_tool_parser  # noqa: E402  (after _claim_stdout on purpose)
from agent_tool_parser import ToolParser  # noqa: E402

IMPLEMENTATION = {"name": "agent-tool-parser", "version": agent_tool_parser.__version__,
                  "language": "python",
                  "accelerated": bool(agent_tool_parser.ACCELERATED),
                  "python": sys.version.split()[0],
                  "homepage": "https://github.com/inboost-dev/agent-tool-parser",
                  "issues": "https://github.com/inboost-dev/agent-tool-parser/issues"}

DECLARATIONS = {
    "profile": "portable",
    "ops": ["salvage"],
    # Each checked with `toolfix smoke` and the suite's cases; README.md has the evidence.
    "dialects": ["whole_json", "tool_call", "python_tag", "react"],
    "policies": {"adapters": False, "unclosed_calls": True, "lenient_json": True,
                 "case_insensitive_names": True, "masks_reasoning": True},
}


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


def offered_names(tools):
    """The offered names, as the set `allowed_tools` takes: each OpenAI tool entry's
    `function.name` (an entry without a string one offers no name)."""
    names = set()
    for entry in tools:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


def salvage(content, tools, adapter):
    """The package's calls for `content`, restricted to the offered names."""
    parser = ToolParser(allowed_tools=offered_names(tools))
    with interpreter_defaults():
        calls = parser.try_parse_all(content)
    return [(call.name, json.dumps(call.args)) for call in calls]


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
