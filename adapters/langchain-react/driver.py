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

from importlib.metadata import version as _version  # noqa: E402

from langchain_classic.agents.output_parsers import (  # noqa: E402  (after claim_stdout)
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


if __name__ == "__main__":
    # The package runs under CPython's own limits (recursion 1000, 4300-digit integers),
    # as in the application that calls it: salvage calls it inside interpreter_defaults();
    # serve lifts them only to read requests and write answers.
    toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, salvage)
