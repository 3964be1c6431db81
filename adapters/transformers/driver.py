#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around transformers' response parser
(`transformers.utils.chat_parsing.response_parser`), version pinned in requirements.txt,
with each fallback `response_template` of `transformers serve`
(`transformers/cli/serving/utils.py`, `_RESPONSE_TEMPLATE_FALLBACKS`). `run TEMPLATE`
picks the template: `qwen3` (the Qwen 2/3 entry), `qwen3_5` (Qwen 3.5), `gemma4`.

Both ops call the parser as `transformers serve` does, with the prompt's end as `prefix`
(the generation prompt its chat template writes):

* salvage: `parse_response(text, template, prefix=…, tools=…)` (what
  `tokenizer.parse_response` runs), the calls normalised as `parse_assistant_message`
  does (`arguments` re-serialised to JSON text);
* salvage_stream: `ResponseParser(template, prefix=…, tools=…)`, `feed(chunk)` per chunk,
  then `finalize()` (a failure there drops the tail, as the server does), each event list
  read by the server's own `response_events_to_chunks`.

Runs without torch. See README.md.
"""

import functools
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "engines"))
import engine_driver  # noqa: E402

engine_driver.toolfix_driver.claim_stdout()

import transformers  # noqa: E402  (after claim_stdout on purpose)
from transformers.cli.serving.utils import (  # noqa: E402
    _RESPONSE_TEMPLATE_FALLBACKS, ToolCall, _normalize_tool_call, response_events_to_chunks)
from transformers.utils.chat_parsing.response_parser import ResponseParser, parse_response  # noqa: E402

# run's argument -> (a model_type of the fallback entry, the prompt's end the chat
# template writes before the reply, the toolfix dialects the template reads).
TEMPLATES = {
    "qwen3": ("qwen3", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", ["tool_call"]),
    # Qwen 3.5's template prefills an empty think block when thinking is off (its default).
    "qwen3_5": ("qwen3_5", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                ["qwen_xml"]),
    "gemma4": ("gemma4", "<|turn>user\nhi<turn|>\n<|turn>model\n", ["gemma"]),
}

# The forms each template reads of a dialect it reads only in some forms, checked with
# `toolfix smoke` (README.md): the Gemma 4 template does not read FunctionGemma's tokens.
FORMS = {"gemma4": {"gemma": ["gemma-4"]}}


def template_of(name):
    """The fallback `response_template` a run's argument picks."""
    model_type = TEMPLATES[name][0]
    return next(entry for types, entry in _RESPONSE_TEMPLATE_FALLBACKS.items() if model_type in types)


def batch(name, content, tools):
    """`parse_assistant_message`'s reading of a whole reply, with template `name`."""
    parsed = parse_response(content, template_of(name), prefix=TEMPLATES[name][1], tools=tools)
    calls = [_normalize_tool_call(value) for value in parsed.get("tool_calls") or []]
    return [(call.name, call.arguments) for call in calls]


def stream(name, chunks, tools, calls):
    """The server's streaming loop with template `name`: feed each chunk, then finalize."""
    parser = ResponseParser(template_of(name), prefix=TEMPLATES[name][1], tools=tools)
    shown = []
    found = [0]

    def take(events, number):
        for item in response_events_to_chunks(events):
            if isinstance(item, ToolCall):
                calls.add(found[0], item.name, item.arguments, number)
                found[0] += 1
            elif isinstance(item, str):
                shown.append(item)

    take(parser.initial_events, 0)
    for number, chunk in enumerate(chunks):
        take(parser.feed(chunk), number)
    try:
        _, final_events = parser.finalize()
    except Exception as error:  # noqa: BLE001  the server logs it and drops the tail
        print(f"transformers driver: ResponseParser.finalize() failed: {error}", file=sys.stderr)
        final_events = []
    take(final_events, len(chunks))
    return "".join(shown)


def implementation(name):
    """The handshake's `implementation` for template `name`."""
    return {"name": "transformers", "version": transformers.__version__,
            "language": "python",
            "api": f"parse_response / ResponseParser with serve's {name!r} fallback template",
            "parser": name, "python": sys.version.split()[0],
            "homepage": "https://github.com/huggingface/transformers",
            "issues": "https://github.com/huggingface/transformers/issues"}


if __name__ == "__main__":
    NAME = engine_driver.parser_name(TEMPLATES, "qwen3")
    dialects = TEMPLATES[NAME][2]
    # No `token_chunks`: the parser reads text and holds back a marker cut at a chunk's end
    # itself, so every chunking is fair to it.
    engine_driver.serve(implementation(NAME), dialects, functools.partial(batch, NAME),
                        functools.partial(stream, NAME),
                        forms=engine_driver.forms_of(FORMS, NAME, dialects))
