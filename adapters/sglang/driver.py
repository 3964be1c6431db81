#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around SGLang's tool-call parsers
(`sglang.srt.function_call.function_call_parser.FunctionCallParser`), version pinned in
requirements.txt. `run DETECTOR` picks the detector, by its name in
`FunctionCallParser.ToolCallParserEnum` (the server's `--tool-call-parser`).

Both ops call the parser as SGLang's OpenAI server does (`serving_chat.py`):

* salvage: `FunctionCallParser(tools, name)`, then `parse_non_stream(text)` when
  `has_tool_call(text)` says there is a call; an exception inside `parse_non_stream` is
  logged by the server and the reply keeps no calls;
* salvage_stream: one `FunctionCallParser` per reply, `parse_stream_chunk(delta)` per
  chunk; with the last chunk `parse_stream_end()`, then the arguments the detector parsed
  but never streamed (`_check_for_unstreamed_tool_args`).

See README.md.
"""

import functools
import json
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "engines"))
import engine_driver  # noqa: E402

engine_driver.toolfix_driver.claim_stdout()

import sglang  # noqa: E402  (after claim_stdout on purpose)
from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402

# The toolfix dialects each detector reads, checked with `toolfix smoke` (README.md). A
# detector missing here reads a format toolfix has no dialect for: it declares none.
DIALECTS = {
    "hermes": ["tool_call"], "qwen": ["tool_call"], "qwen25": ["tool_call"],
    "trinity": ["tool_call"],
    "llama3": ["python_tag", "llama_json", "whole_json"],
    "pythonic": ["pythonic"], "lfm2": ["pythonic"], "mistral": ["mistral"],
    "deepseekv3": ["deepseek"], "deepseekv31": ["deepseek"], "deepseekv32": ["deepseek"],
    "deepseekv4": ["deepseek"], "deepseekv41": ["deepseek"],
    "qwen3_coder": ["qwen_xml"], "step3p5": ["qwen_xml"], "nanbeige": ["qwen_xml"],
    "glm": ["glm"], "glm45": ["glm"], "glm47": ["glm"], "ling3": ["glm"],
    "poolside_v1": ["glm"], "spark25": ["glm"],
    "kimi_k2": ["kimi"], "gemma4": ["gemma"], "minimax-m2": ["minimax"],
    "gpt-oss": ["harmony"],
    **{name: ["template"] for name in (
        "beam", "cohere_command4", "dots", "gigachat3", "hunyuan", "inkling", "interns1",
        "iquest_q1", "k2_horizon", "kimi_k3", "minicpm5", "minimax-m3", "muse", "step3")},
}

# The forms each detector reads of a dialect it reads only in some forms, checked with
# `toolfix smoke` (README.md): a case written in another form is not sent to it.
FORMS = {
    "qwen25": {"tool_call": ["qwen-layout"]}, "qwen": {"tool_call": ["qwen-layout"]},
    "trinity": {"tool_call": ["qwen-layout"]},
    "llama3": {"whole_json": ["object"]},
    "pythonic": {"pythonic": ["list", "llama-4-tokens", "lfm2-tokens"]},
    "lfm2": {"pythonic": ["lfm2-tokens"]},
    "mistral": {"mistral": ["v11", "array-after-a-space"]},
    "deepseekv3": {"deepseek": ["v3"]}, "deepseekv31": {"deepseek": ["v3-1"]},
    "deepseekv32": {"deepseek": ["v3-2-dsml", "v4"]}, "deepseekv4": {"deepseek": ["v3-2-dsml", "v4"]},
    "deepseekv41": {"deepseek": ["v4-1"]},
    "glm": {"glm": ["glm-4-5"]}, "glm45": {"glm": ["glm-4-5"]},
    "glm47": {"glm": ["glm-4-7"]}, "spark25": {"glm": ["glm-4-7"]},
    "gemma4": {"gemma": ["gemma-4"]},
    "gpt-oss": {"harmony": ["start-assistant"]},
    # A detector of a format toolfix reads by a shipped template (docs/dialects/templates.md)
    # reads that template's form, named as the detector is.
    **{name: {"template": [name]} for name, dialects in DIALECTS.items() if dialects == ["template"]},
}

def sglang_tools(tools):
    """The request's tools as the server's pydantic models; an entry the server's request
    validation would refuse is left out (SGLang would refuse the whole request)."""
    out = []
    for entry in tools:
        try:
            out.append(Tool.model_validate(entry))
        except Exception:  # noqa: BLE001  pydantic's ValidationError, or a non-dict
            print(f"sglang driver: tool entry left out: {json.dumps(entry)[:200]}", file=sys.stderr)
    return out


def batch(name, content, tools):
    """`_process_tool_calls` with detector `name`: has_tool_call, then parse_non_stream; a
    parse error keeps no calls (the server logs it)."""
    parser = FunctionCallParser(sglang_tools(tools), name)
    if not parser.has_tool_call(content):
        return []
    try:
        _, calls = parser.parse_non_stream(content)
    except Exception as error:  # noqa: BLE001  the server's own catch
        print(f"sglang driver: Tool call parsing error: {error}", file=sys.stderr)
        return []
    return [(call.name, call.parameters) for call in calls]


def stream(name, chunks, tools, calls):
    """`_process_tool_call_stream` with detector `name` over the chunks, the last one with
    flush=True, then `_check_for_unstreamed_tool_args`."""
    parser = FunctionCallParser(sglang_tools(tools), name)
    shown = []
    for number, chunk in enumerate(chunks):
        text, items = parser.parse_stream_chunk(chunk)
        shown.append(text or "")
        for item in items:
            calls.add(item.tool_index, item.name, item.parameters, number)
    end_text, end_items = parser.parse_stream_end()
    shown.append(end_text or "")
    for item in end_items:
        calls.add(item.tool_index, item.name, item.parameters, len(chunks))
    remaining = unstreamed_arguments(parser.detector)
    if remaining:
        calls.add(remaining[0], None, remaining[1], len(chunks))
    return "".join(shown)


def unstreamed_arguments(detector):
    """(tool index, text) of the last call's arguments the detector parsed but never
    streamed, as the server sends them when generation finishes; None if there are none."""
    parsed = getattr(detector, "prev_tool_call_arr", None)
    streamed = getattr(detector, "streamed_args_for_tool", None)
    if not parsed or not streamed:
        return None
    index = len(parsed) - 1
    if index >= len(streamed):
        return None
    expected = engine_driver.arguments_text(parsed[index].get("arguments", {}))
    actual = streamed[index]
    if expected.startswith(actual) and expected != actual:
        return index, expected[len(actual):]
    return None


def implementation(name):
    """The handshake's `implementation` for detector `name`."""
    return {"name": "sglang", "version": sglang.__version__, "language": "python",
            "api": f"FunctionCallParser(tools, {name!r}): parse_non_stream, parse_stream_chunk",
            "parser": name, "python": sys.version.split()[0],
            "homepage": "https://github.com/sgl-project/sglang",
            "issues": "https://github.com/sgl-project/sglang/issues"}


if __name__ == "__main__":
    NAME = engine_driver.parser_name(FunctionCallParser.ToolCallParserEnum, "hermes")
    # The server detokenizes as it generates, so a chunk never ends inside a special token.
    dialects = engine_driver.dialects_of(DIALECTS, NAME)
    engine_driver.serve(implementation(NAME), dialects, functools.partial(batch, NAME),
                        functools.partial(stream, NAME),
                        forms=engine_driver.forms_of(FORMS, NAME, dialects), token_chunks=True)
