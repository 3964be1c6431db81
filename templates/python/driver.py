#!/usr/bin/env python3
"""A toolfix driver for a Python implementation: copy this file, fill in `IMPLEMENTATION`,
`DECLARATIONS` and `salvage` (and `execute` / `format_result` if you have them), then

    toolfix smoke   --impl 'python3 driver.py'
    toolfix conform --impl 'python3 driver.py'

It speaks the JSON-lines driver protocol (docs/protocol.md) and survives what real
implementations do:

* nothing but answers reaches stdout: the protocol stream is claimed before your package
  is imported, and anything printed (a banner, a progress bar, a warning) goes to stderr;
* a request line that is not JSON, or not a request, gets an `errored` answer and the
  driver keeps serving;
* a runner that asks for another protocol version still gets this driver's version in the
  handshake, so it can stop with a clear message;
* anything your code raises becomes `errored` for that case, including `BaseException`s
  that are not exits: a Rust extension's panic arrives as `pyo3_runtime.PanicException`,
  which does not derive from `Exception`;
* every answer is one flushed line; the driver exits on `stop` or at the end of input.
"""

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

IMPLEMENTATION = {"name": "my-implementation", "version": "0.0.0", "language": "python"}

DECLARATIONS = {
    # The profile you claim: "portable" for any implementation that is not PraisonAI
    # (docs/guarantees.md).
    "profile": "portable",
    # The ops you implement: salvage, execute, format_result.
    "ops": ["salvage"],
    # The dialects your salvage recovers (docs/protocol.md lists them).
    "dialects": [],
    # Your conventions (docs/guarantees.md, "Policies"); a policy you leave out is false.
    "policies": {"adapters": False, "unclosed_calls": False, "lenient_json": False,
                 "case_insensitive_names": False, "masks_reasoning": False},
}


def salvage(content, tools, adapter):
    """The calls written as text in `content`, as `[(name, arguments_json_text), ...]`.

    `tools` are OpenAI tool entries (a bare string in the request is a tool name) and
    `adapter` is the provider the reply came through (ignore it unless you declare the
    `adapters` policy). Raise `NotImplementedError` to decline an input you knowingly
    do not support; the reason is reported, and a declined case counts against you.

    Call your package inside `interpreter_defaults()`: it must meet deep and long inputs
    under CPython's own limits, as it does in an application.
    """
    with interpreter_defaults():
        calls = []  # your package's calls, e.g. my_parser.parse(content, tools)
    return [(name, json.dumps(arguments)) for name, arguments in calls]


# The driver lifts CPython's recursion and integer-digit limits so it can read any request
# and write any answer (a 5000-digit integer, a value nested 10,000 deep); the package
# under test must not run with them lifted, or the suite would measure an interpreter no
# application runs it in (a RecursionError or a ValueError on a huge integer is the
# package's behaviour, and the cases about them expect it).
_INT_DIGITS = (getattr(sys, "get_int_max_str_digits", lambda: 0),
               getattr(sys, "set_int_max_str_digits", lambda digits: None))
INTERPRETER_DEFAULTS = (sys.getrecursionlimit(), _INT_DIGITS[0]())


class interpreter_defaults:  # noqa: N801  (used as a `with` statement)
    """CPython's default recursion and integer-digit limits for the body of a `with`."""

    def __enter__(self):
        self.lifted = (sys.getrecursionlimit(), _INT_DIGITS[0]())
        sys.setrecursionlimit(INTERPRETER_DEFAULTS[0])
        _INT_DIGITS[1](INTERPRETER_DEFAULTS[1])

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.lifted[0])
        _INT_DIGITS[1](self.lifted[1])
        return False


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
    # Lifted to read requests and write answers only; salvage runs the package inside
    # interpreter_defaults().
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
