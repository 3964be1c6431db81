#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around Qwen-Agent's text tool-call
parser: PyPI `qwen-agent`, version pinned in requirements.txt.

Salvage runs what Qwen-Agent's function-calling models run on a model reply when the
`nous` function-call prompt is in use (the default for Qwen3 models):

    NousFnCallPrompt().postprocess_fncall_messages(
        [Message(role="assistant", content=[ContentItem(text=content)])])

and answers each returned message that has a `function_call` as
`{"name": fc.name, "arguments": fc.arguments}`: `arguments` is already the string
Qwen-Agent hands to its tool (`json.dumps(fn["arguments"])` for a payload json5 reads,
the raw text after `"arguments": ` for an unclosed or unreadable one). The parser takes
no tool list: every name comes through (Qwen-Agent's Agent refuses an unknown name later,
at dispatch). An exception the parser raises is answered as the op's `{"error": ...}`
output, as docs/protocol.md says for a salvage that raised. See README.md.

Built on templates/python/toolfix_driver.py, the protocol side every Python driver shares.
"""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[2] / "templates" / "python"))
import toolfix_driver  # noqa: E402
from toolfix_driver import interpreter_defaults, tool_entries  # noqa: E402

toolfix_driver.claim_stdout()

# After claim_stdout on purpose: importing qwen_agent loads the whole agent (~3 s), and
# anything it prints goes to stderr. Done before the handshake, so no case pays for it.
from importlib.metadata import version  # noqa: E402

from qwen_agent.llm.fncall_prompts.nous_fncall_prompt import NousFnCallPrompt  # noqa: E402
from qwen_agent.llm.schema import ContentItem, Message  # noqa: E402

IMPLEMENTATION = {"name": "qwen-agent", "version": version("qwen-agent"),
                  "language": "python",
                  "parser": "qwen_agent.llm.fncall_prompts.nous_fncall_prompt."
                            "NousFnCallPrompt.postprocess_fncall_messages",
                  "python": sys.version.split()[0],
                  "homepage": "https://github.com/QwenLM/Qwen-Agent",
                  "issues": "https://github.com/QwenLM/Qwen-Agent/issues"}

DECLARATIONS = {
    "profile": "portable",
    "ops": ["salvage"],
    # The nous format: `<tool_call>` then a JSON object with `name` and `arguments`, read
    # with json5 after strip(), so both the inline form and Qwen's layout (the JSON on a
    # line of its own) are read.
    "dialects": ["tool_call"],
    # README.md has the evidence for each.
    "policies": {"adapters": False, "unclosed_calls": True, "lenient_json": True,
                 "case_insensitive_names": False, "masks_reasoning": True},
}


def salvage(data):
    """Op `salvage`: the parser's function calls for `data["content"]`, in order."""
    unknown = set(data) - {"content", "tools", "adapter"}
    if unknown:
        raise ValueError(f"unknown input keys: {sorted(unknown)}")
    content = data["content"]
    if not isinstance(content, str):
        raise TypeError(f"content is not a string: {content!r}")
    tool_entries(data["tools"])  # read, as a request must be; the parser takes no tools
    try:
        with interpreter_defaults():
            reply = Message(role="assistant", content=[ContentItem(text=content)])
            messages = NousFnCallPrompt().postprocess_fncall_messages([reply])
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as error:  # noqa: BLE001  the package raised: its behaviour
        return {"error": f"{type(error).__name__}: {error}"}
    calls = [{"name": message.function_call.name,
              "arguments": message.function_call.arguments}
             for message in messages if message.function_call]
    return {"calls": calls or None}


if __name__ == "__main__":
    # The package runs under CPython's own limits (recursion 1000, 4300-digit integers),
    # as in the application that calls it; serve lifts them only to read requests and
    # write answers.
    toolfix_driver.serve(IMPLEMENTATION, DECLARATIONS, None, ops={"salvage": salvage})
