"""The protocol side of a toolfix driver for a Python implementation (docs/protocol.md).

A driver is a short script on top of this module (`driver.py` next to it is one):

    import toolfix_driver

    toolfix_driver.claim_stdout()  # before the package under test is imported
    import my_package

    IMPLEMENTATION = {"name": "my-package", "version": "1.0.0", "language": "python"}
    DECLARATIONS = {"profile": "portable", "ops": ["salvage"], "dialects": [...]}

    def salvage(content, tools, adapter):
        with toolfix_driver.interpreter_defaults():
            calls = my_package.parse(content, tools)
        return [(name, json.dumps(arguments)) for name, arguments in calls]

    if __name__ == "__main__":
        toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, salvage)

This module reads the requests, answers the handshake, runs each case and writes the
answers, and survives what real implementations do:

* nothing but answers reaches stdout: `claim_stdout()` keeps the protocol stream for the
  driver and points fd 1 and `sys.stdout` at stderr, so anything the package prints (a
  banner, a progress bar, a warning) goes to stderr;
* a request line that is not JSON, or not a request, gets an `errored` answer and the
  driver keeps serving;
* a runner that asks for another protocol version still gets this driver's version in the
  handshake, so it can stop with a clear message;
* anything the driver's code raises becomes `errored` for that case, with the traceback,
  including `BaseException`s that are not exits: a Rust extension's panic arrives as
  `pyo3_runtime.PanicException`, which does not derive from `Exception`. That includes
  `NotImplementedError`, which a package under test raises for its own reasons (SGLang's
  `has_tool_call` does): only `Declined`, raised by the driver's own code, declines a
  case (`skipped`, with its message as the reason);
* a streaming hook (`serve(..., stream=...)`) is fed the chunks of a `salvage_stream`
  request one by one, and this module works out each call's `after_chunk` and the text
  shown (docs/protocol.md, op `salvage_stream`);
* every answer is one flushed line; the driver exits on `stop` or at the end of input;
* CPython's recursion and integer-digit limits are lifted to read requests and write
  answers only: the package runs under CPython's defaults inside `interpreter_defaults()`.

It is the same file for every Python driver: the adapters under adapters/ import this one.
"""

import json
import os
import sys
import traceback

PROTOCOL = 1

_OUT = None


class Declined(Exception):
    """Raised by the driver's own code to decline an input it knowingly does not support:
    the answer is `skipped`, with the message as the reason. A declined case counts
    against the implementation: declare what you support instead."""


def claim_stdout():
    """The protocol's output stream, claimed once: from the first call on, fd 1 and
    `sys.stdout` point at stderr. Call it before importing the package under test, so
    nothing it prints on import can reach the protocol stream; `serve` claims it if no
    one has."""
    global _OUT
    if _OUT is None:
        _OUT = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _OUT


# The driver lifts CPython's recursion and integer-digit limits so it can read any request
# and write any answer (a 5000-digit integer, a value nested 10,000 deep); the package
# under test must not run with them lifted, or the suite would measure an interpreter no
# application runs it in (a RecursionError or a ValueError on a huge integer is the
# package's behaviour, and the cases about them expect it). The defaults are the limits in
# force when this module is first imported.
_INT_DIGITS = (getattr(sys, "get_int_max_str_digits", lambda: 0),
               getattr(sys, "set_int_max_str_digits", lambda digits: None))
INTERPRETER_DEFAULTS = (sys.getrecursionlimit(), _INT_DIGITS[0]())


class interpreter_defaults:  # noqa: N801  (used as a `with` statement)
    """CPython's default recursion and integer-digit limits for the body of a `with`:
    call the package under test inside it."""

    def __enter__(self):
        self.lifted = (sys.getrecursionlimit(), _INT_DIGITS[0]())
        sys.setrecursionlimit(INTERPRETER_DEFAULTS[0])
        _INT_DIGITS[1](INTERPRETER_DEFAULTS[1])

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.lifted[0])
        _INT_DIGITS[1](self.lifted[1])
        return False


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


class _Driver:
    """The answers of one driver. Its call chain down to the package (serve, respond,
    answer_run, the op, salvage) is as deep as a driver written in one file: the package
    meets CPython's recursion limit at the same depth either way."""

    def __init__(self, implementation, declarations, salvage, ops, stream):
        self.implementation = implementation
        self.declarations = declarations
        self.salvage = salvage
        self.stream = stream
        self.ops = {} if salvage is None else {"salvage": self.run_salvage}
        if stream is not None:
            self.ops["salvage_stream"] = self.run_salvage_stream
        self.ops.update(ops or {})

    def run_salvage(self, data):
        calls = self.salvage(data["content"], tool_entries(data["tools"]),
                             data.get("adapter", "local"))
        if not calls:
            return {"calls": None}
        return {"calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}

    def run_salvage_stream(self, data):
        """Feeds the chunks to a new stream one by one: a call it gives out while fed
        chunk `i` has `after_chunk` `i`, one it gives out at the end `len(chunks)`; the
        content is everything it showed, in order."""
        stream = self.stream(tool_entries(data["tools"]), data.get("adapter", "local"))
        chunks = data["chunks"]
        calls, shown = [], []

        def take(index, given):
            text, completed = given
            shown.append(text or "")
            calls.extend({"name": name, "arguments": arguments, "after_chunk": index}
                         for name, arguments in completed or [])

        for index, chunk in enumerate(chunks):
            take(index, stream.feed(chunk))
        take(len(chunks), stream.finish())
        return {"calls": calls or None, "content": "".join(shown)}

    def hello(self, request):
        return {"protocol": PROTOCOL, "implementation": self.implementation,
                **self.declarations}

    def answer_run(self, request):
        seq = request.get("seq")
        op = self.ops.get(request.get("op"))
        if op is None or not isinstance(request.get("input"), dict):
            return {"seq": seq,
                    "errored": f"unknown op or malformed input: {request.get('op')!r}"}
        try:
            return {"seq": seq, "output": op(request["input"])}
        except Declined as declined:
            return {"seq": seq, "skipped": str(declined) or "not supported by this driver"}
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException:  # noqa: BLE001  (PyO3's PanicException is a BaseException)
            return {"seq": seq, "errored": traceback.format_exc(limit=20)}

    def respond(self, line):
        """The answer to one request line, or None for `stop`."""
        try:
            request = json.loads(line)
        except ValueError as error:
            return {"errored": f"the request is not JSON: {error}"}
        if not isinstance(request, dict):
            return {"errored": "the request is not a JSON object"}
        command = request.get("cmd")
        if command == "hello":
            return self.hello(request)
        if command == "run":
            return self.answer_run(request)
        if command == "stop":
            return None
        return {"seq": request.get("seq"), "errored": f"unknown cmd {command!r}"}


def serve(implementation, declarations, salvage, ops=None, stream=None):
    """Answer the requests on stdin until `stop` or the end of input.

    * `implementation`: the handshake's `implementation` object (`name`, `version` and
      `language` required, other keys free);
    * `declarations`: the rest of the handshake: `profile`, `ops`, `dialects`, `policies`;
    * `salvage(content, tools, adapter)`: the calls written as text in `content`, as
      `[(name, arguments_json_text), ...]` (none: `{"calls": null}`); `tools` is the OpenAI
      tool list (`tool_entries`), `adapter` the provider the reply came through. Raise
      `Declined` to decline an input (any other exception, `NotImplementedError`
      included, is `errored` with its traceback); None if you have no salvage op;
    * `ops`: any other op, by name: a function from the request's `input` to the op's
      output (docs/protocol.md shapes both);
    * `stream(tools, adapter)`: your streaming parser on a new reply, an object with
      `feed(chunk)` and `finish()`, each returning `(text_shown_now, calls_completed_now)`
      with calls as `salvage` gives them, each whole (a parser that streams argument
      deltas joins them and reports the call when its last delta is known to be the
      last). It serves op `salvage_stream`: declare that op with it.

    Call it from the script's top level (`if __name__ == "__main__":`), as the example
    does: the package under test then runs as deep in the stack as in every other driver.
    """
    driver = _Driver(implementation, declarations, salvage, ops, stream)
    out = claim_stdout()
    # Lifted to read requests and write answers only; call the package inside
    # interpreter_defaults().
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    for line in sys.stdin.buffer:
        answer = driver.respond(line.decode("utf-8", "surrogatepass"))
        if answer is None:
            return
        out.write(json.dumps(answer) + "\n")
        out.flush()
