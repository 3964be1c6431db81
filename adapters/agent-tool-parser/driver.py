#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around the real `agent-tool-parser`
package from PyPI (InBoost Team, MIT), version pinned in requirements.txt.

Salvage calls the package's public object API,

    ToolParser(allowed_tools=<the offered tool names>).try_parse_all(content)

which is the Rust core (`agent_tool_parser._accelerated`, `ACCELERATED is True`), and
answers each returned `ToolCall` as `{"name": call.name, "arguments": json.dumps(call.args)}`.
Every other option keeps the package default (its built-in tool and parameter aliases,
`strip_thinking=True`, `allow_shell_fallback=False`). See README.md.

Built on templates/python/toolfix_driver.py, the protocol side every Python driver
shares (as templates/python/driver.py is).
"""

import json
import sys
from pathlib import Path

# The protocol (reading requests, the handshake, the answers, stdout, CPython's limits) is
# templates/python/toolfix_driver.py, shared by every Python driver.
sys.path.append(str(Path(__file__).resolve().parents[2] / "templates" / "python"))
import toolfix_driver  # noqa: E402
from toolfix_driver import interpreter_defaults  # noqa: E402

toolfix_driver.claim_stdout()

import agent_tool_parser  # noqa: E402  (after claim_stdout on purpose)
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


if __name__ == "__main__":
    # The package runs under CPython's own limits (recursion 1000, 4300-digit integers),
    # as in the application that calls it: salvage calls it inside interpreter_defaults();
    # serve lifts them only to read requests and write answers.
    toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, salvage)
