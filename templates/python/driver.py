#!/usr/bin/env python3
"""A toolfix driver for a Python implementation: copy this file and toolfix_driver.py
(the protocol: reading requests, the handshake, the answers, stdout, CPython's limits;
nothing in it needs changing) into one folder, fill in `IMPLEMENTATION`, `DECLARATIONS`
and `salvage` (and pass `serve` your `execute` / `format_result` if you have them), then

    toolfix smoke   --impl 'python3 driver.py'
    toolfix conform --impl 'python3 driver.py'

toolfix_driver.py has the list of what the driver survives: stray prints, non-JSON lines,
another protocol version, exceptions and panics in your code.
"""

import json

import toolfix_driver

toolfix_driver.claim_stdout()

# ---------------------------------------------------------------------------------------
# Fill in from here. Import your implementation after claim_stdout(), so nothing it
# prints on import can reach the protocol stream.
# ---------------------------------------------------------------------------------------

IMPLEMENTATION = {"name": "my-implementation", "version": "0.0.0", "language": "python"}

DECLARATIONS = {
    # The profile you claim: "portable" for any implementation that is not PraisonAI
    # (docs/guarantees.md).
    "profile": "portable",
    # The ops you implement: salvage, salvage_stream (with `ReplyStream` below),
    # execute, format_result.
    "ops": ["salvage"],
    # The dialects your salvage recovers (docs/protocol.md lists them), and for a
    # dialect of several forms the ones you read, e.g. "forms": {"deepseek": ["v3-1"]}.
    "dialects": [],
    # Set "token_chunks": True when your stream is fed token by token, as a server feeds
    # it: the streaming checks then never cut inside a special token.
    # Your conventions (docs/guarantees.md, "Policies"); a policy you leave out is false.
    "policies": {"adapters": False, "unclosed_calls": False, "lenient_json": False,
                 "case_insensitive_names": False, "masks_reasoning": False},
}


def salvage(content, tools, adapter):
    """The calls written as text in `content`, as `[(name, arguments_json_text), ...]`.

    `tools` are OpenAI tool entries (a bare string in the request is a tool name) and
    `adapter` is the provider the reply came through (ignore it unless you declare the
    `adapters` policy). Raise `toolfix_driver.Declined(reason)` to decline an input you
    knowingly do not support; the reason is reported, and a declined case counts
    against you. Anything else raised (`NotImplementedError` from your package included)
    is reported as `errored`, with its traceback.

    Call your package inside `interpreter_defaults()`: it must meet deep and long inputs
    under CPython's own limits, as it does in an application.
    """
    with toolfix_driver.interpreter_defaults():
        calls = []  # your package's calls, e.g. my_parser.parse(content, tools)
    # json.dumps for a package that gives a decoded object; a package that already gives
    # the argument string its tool receives passes that string through unchanged.
    return [(name, json.dumps(arguments)) for name, arguments in calls]


class ReplyStream:
    """Your streaming parser on one reply (op `salvage_stream`: add it to `ops` above).

    `feed(chunk)` is called with each chunk in order and `finish()` once at the end; each
    returns `(text, calls)`: the text the user is shown now, and the calls this chunk
    completed, as `salvage` returns them. A parser that streams a call's arguments as
    deltas joins them and returns the call from the chunk that completes it
    (docs/protocol.md, "`after_chunk` for delta streams"). This one is the baseline a
    parser that is not incremental gives: nothing until the end, then the whole reply
    through `salvage`.
    """

    def __init__(self, tools, adapter):
        self.tools, self.adapter, self.text = tools, adapter, []

    def feed(self, chunk):
        self.text.append(chunk)
        return "", []

    def finish(self):
        reply = "".join(self.text)
        calls = salvage(reply, self.tools, self.adapter)
        return ("" if calls else reply), calls


if __name__ == "__main__":
    toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, salvage, stream=ReplyStream)
