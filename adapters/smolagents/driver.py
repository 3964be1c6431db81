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

Built on templates/python/toolfix_driver.py, the protocol side every Python driver
shares (as templates/python/driver.py is).
"""

import json
import sys
import traceback
from pathlib import Path

# The protocol (reading requests, the handshake, the answers, stdout, CPython's limits) is
# templates/python/toolfix_driver.py, shared by every Python driver.
sys.path.append(str(Path(__file__).resolve().parents[2] / "templates" / "python"))
import toolfix_driver  # noqa: E402
from toolfix_driver import interpreter_defaults  # noqa: E402

toolfix_driver.claim_stdout()

import smolagents  # noqa: E402  (after claim_stdout on purpose)
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


if __name__ == "__main__":
    # The package runs under CPython's own limits (recursion 1000, 4300-digit integers),
    # as in the application that calls it: salvage calls it inside interpreter_defaults();
    # serve lifts them only to read requests and write answers.
    toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, salvage)
