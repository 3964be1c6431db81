"""What the drivers around the inference engines' tool-call parsers share (adapters/sglang,
adapters/vllm, adapters/transformers): the parser named on the command line, the handshake
built from each parser's dialects, and the two ops answered from an engine's own results.

An engine parses a reply once (batch) or as it streams (a list of deltas per chunk, each a
tool index with a name and/or a fragment of the argument text). Each driver only says how
its engine is called; this module turns that into protocol answers, so the three engines
are judged by one reading of their results.

The protocol itself (requests, handshake, answers, stdout, CPython's limits) is
templates/python/toolfix_driver.py, which this module puts on sys.path.
"""

import json
import os
import sys
import traceback
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[2] / "templates" / "python"))
import toolfix_driver  # noqa: E402
from toolfix_driver import interpreter_defaults, tool_entries  # noqa: E402,F401

# Every driver here declares the same policies: none of these parsers knows a provider,
# reads single quotes or trailing commas, compares names without case, or hides what is
# inside reasoning tags (the engines' reasoning parsers are a separate step the tool
# parser never sees). `unclosed_calls` is left false for every parser: what each does
# with an unclosed call is what the suite's cases under that value show.
POLICIES = {"adapters": False, "unclosed_calls": False, "lenient_json": False,
            "case_insensitive_names": False, "masks_reasoning": False}


# Every toolfix dialect (docs/protocol.md), for TOOLFIX_ENGINE_DIALECTS=all.
ALL_DIALECTS = ["whole_json", "tool_call", "function", "bracket", "python_tag", "react",
                "llama_json", "pythonic", "mistral", "qwen_xml", "deepseek", "glm", "kimi",
                "harmony", "gemma", "minimax", "granite", "phi4", "template"]


def dialects_of(table, name):
    """A parser's dialects from its driver's table (none when it is not listed: a format
    toolfix has no dialect for). TOOLFIX_ENGINE_DIALECTS=all declares every dialect, to
    find with `toolfix smoke` which a parser reads."""
    if os.environ.get("TOOLFIX_ENGINE_DIALECTS") == "all":
        return list(ALL_DIALECTS)
    return list(table.get(name, []))


def parser_name(known, default):
    """The parser named on the command line (`run PARSER`), which must be one of `known`."""
    name = sys.argv[1] if len(sys.argv) > 1 else default
    if name not in known:
        sys.exit(f"unknown parser {name!r}; one of: {', '.join(sorted(known))}")
    return name


def forms_of(table, name, dialects):
    """The forms the parser reads of those of its dialects it reads only in some forms
    (docs/protocol.md's table), from its driver's table: a case written in another form
    is then not sent, since the parser was never written for it. None under
    TOOLFIX_ENGINE_DIALECTS=all, so `toolfix smoke` reports every form of every dialect."""
    if os.environ.get("TOOLFIX_ENGINE_DIALECTS") == "all":
        return None
    forms = {dialect: list(names) for dialect, names in table.get(name, {}).items()}
    return {dialect: names for dialect, names in forms.items() if dialect in dialects} or None


def declarations(dialects, forms=None, token_chunks=False):
    """The handshake's declarations for a parser of the given toolfix dialects. A parser of
    a format toolfix has no dialect for declares none: only dialect-free cases reach it.
    `forms` narrows a dialect to the forms the parser reads; `token_chunks` says its
    server feeds it whole tokens, so no chunk ends inside a special token."""
    declared = {"profile": "portable", "ops": ops(), "dialects": list(dialects),
                "policies": dict(POLICIES)}
    if forms:
        declared["forms"] = {dialect: list(names) for dialect, names in forms.items()}
    if token_chunks:
        declared["token_chunks"] = True
    return declared


def ops():
    """Both salvage ops, or those TOOLFIX_ENGINE_OPS lists (comma-separated): .ci/peers runs
    `toolfix smoke` batch only, since smoke has no known-failures file for the streaming
    checks these parsers fail."""
    both = ["salvage", "salvage_stream"]
    wanted = os.environ.get("TOOLFIX_ENGINE_OPS")
    return [op for op in both if op in wanted.split(",")] if wanted else both


def exception_text(error):
    """An `error` output: the exception's class name, a colon, its message."""
    return f"{type(error).__name__}: {error}"


class StreamedCalls:
    """The calls a client assembles from a stream of tool-call deltas, as an OpenAI client
    does: by tool index, the first name given, the argument fragments concatenated. A call
    is known after the chunk that brought its last piece (`after_chunk`)."""

    def __init__(self):
        self.calls = {}

    def add(self, index, name, arguments, chunk):
        """One delta of the call at `index`, arrived with chunk number `chunk`."""
        call = self.calls.setdefault(index, {"name": None, "arguments": "", "after_chunk": chunk})
        if name and call["name"] is None:
            call["name"] = name
        if arguments:
            call["arguments"] += arguments
        call["after_chunk"] = chunk

    def output(self, content):
        """The salvage_stream output: the named calls in index order, and the content shown."""
        calls = [call for _, call in sorted(self.calls.items()) if call["name"] is not None]
        return {"calls": calls or None, "content": content}


def serve(implementation, dialects, batch, stream, forms=None, token_chunks=False):
    """Answer the protocol with an engine's parser, declaring `dialects`, `forms` and
    `token_chunks` (`declarations`).

    * `batch(content, tools)`: the `(name, arguments)` pairs the engine's non-streaming
      path returns for a whole reply (tools: the OpenAI tool list);
    * `stream(chunks, tools, calls)`: feeds the chunks to the engine's streaming path as
      its server does, calling `calls.add(...)` for each tool-call delta, and returns the
      content it showed.

    What the engine raises is its answer (`{"error": "Class: message"}`), with the
    traceback on stderr: the server would fail the request.
    """

    def salvage(data):
        try:
            with interpreter_defaults():
                pairs = batch(data["content"], tool_entries(data["tools"]))
        except Exception as error:  # noqa: BLE001  the engine's failure is its answer
            traceback.print_exc(limit=5, file=sys.stderr)
            return {"error": exception_text(error)}
        if not pairs:
            return {"calls": None}
        return {"calls": [{"name": name, "arguments": arguments} for name, arguments in pairs]}

    def salvage_stream(data):
        calls = StreamedCalls()
        try:
            with interpreter_defaults():
                content = stream(list(data["chunks"]), tool_entries(data["tools"]), calls)
        except Exception as error:  # noqa: BLE001
            traceback.print_exc(limit=5, file=sys.stderr)
            return {"error": exception_text(error)}
        return calls.output(content)

    toolfix_driver.serve(implementation, declarations(dialects, forms, token_chunks), None,
                         {"salvage": salvage, "salvage_stream": salvage_stream})


def arguments_text(value):
    """An argument value as the engine's server hands it on: a string verbatim, anything
    else as JSON text."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
