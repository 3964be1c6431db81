#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around LangChain's ReAct output
parser, `ReActSingleInputOutputParser` from the real `langchain-classic` package on PyPI
(LangChain, MIT), version pinned in requirements.txt. It is the parser
`create_react_agent` installs by default.

Salvage calls `ReActSingleInputOutputParser().parse(content)`:

* an `AgentAction(tool, tool_input)` is one call, `{"name": tool, "arguments":
  tool_input}`: the parser's `tool_input` is a string (the text after `Action Input:`,
  spaces and double quotes stripped), and the protocol's `arguments` is the string the
  tool receives, so it is sent verbatim (a tool given `{"city": "Paris"}` receives that
  text, which the comparison reads as the JSON object it spells);
* an `AgentFinish` (a `Final Answer:` and no action) is no call;
* an `OutputParserException` (the parser's "no action in this text" signal, raised on any
  reply without an `Action:` / `Action Input:` pair) is no call: no tool runs, whatever
  the loop does next (`AgentExecutor(handle_parsing_errors=True)` sends the exception's
  observation back to the model; with the default `False` the run raises). The exception
  goes to stderr. See README.md.

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

from importlib.metadata import version as _version  # noqa: E402

from langchain_classic.agents.output_parsers import (  # noqa: E402  (after _claim_stdout)
    ReActSingleInputOutputParser,
)
from langchain_core.agents import AgentAction, AgentFinish  # noqa: E402
from langchain_core.exceptions import OutputParserException  # noqa: E402

IMPLEMENTATION = {"name": "langchain-classic ReActSingleInputOutputParser",
                  "version": _version("langchain-classic"),
                  "language": "python",
                  "langchain_core": _version("langchain-core"),
                  "python": sys.version.split()[0],
                  "homepage": "https://github.com/langchain-ai/langchain",
                  "issues": "https://github.com/langchain-ai/langchain/issues"}

DECLARATIONS = {
    "profile": "portable",
    "ops": ["salvage"],
    # Checked with `toolfix smoke` and the suite's cases; README.md has the evidence.
    "dialects": ["react"],
    "policies": {"adapters": False, "unclosed_calls": False, "lenient_json": False,
                 "case_insensitive_names": False, "masks_reasoning": False},
}

PARSER = ReActSingleInputOutputParser()

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
    """The action the parser reads from `content` (it is never given the tool list)."""
    try:
        with interpreter_defaults():
            step = PARSER.parse(content)
    except OutputParserException as error:
        print(f"OutputParserException: {error}", file=sys.stderr)
        return []
    if isinstance(step, AgentFinish):
        return []
    if not isinstance(step, AgentAction):
        raise TypeError(f"parse returned {type(step).__name__}")
    # The string the tool receives, as the protocol's `arguments` is. The parser only
    # ever gives a string; anything else would be a new behaviour, shown as JSON.
    arguments = step.tool_input
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return [(step.tool, arguments)]


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
