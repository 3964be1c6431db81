#!/usr/bin/env python3
"""A toolfix driver (protocol v1, profile portable) around vLLM's tool-call parsers
(`vllm.tool_parsers.ToolParserManager`), version pinned in requirements.txt. `run PARSER`
picks the parser, by its registered name (the server's `--tool-call-parser`).

Both ops go through the `Parser` the OpenAI server composes for that name
(`vllm.parser.ParserManager.get_parser(tool_parser_name=…, enable_auto_tools=True)`, no
reasoning parser), built per reply with the request's tools as `_make_parser` builds it:

* salvage: `parser.parse(text, request, enable_auto_tools=True)`, which runs the tool
  parser's `extract_tool_calls` (serving.py's non-streaming path);
* salvage_stream: `parser.parse_delta(delta, delta_token_ids, request, finished=…)` per
  chunk, which runs `extract_tool_calls_streaming(previous, current, delta, ids…)` and,
  with the last chunk, the arguments parsed but not streamed.

No model hub is reachable, so the tokenizer is a stand-in (`stand_in_tokenizer`): a
byte-level tokenizer with no merges whose added special tokens are the markers written in
the parser's own source. See README.md.
"""

import ast
import enum
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "engines"))
import engine_driver  # noqa: E402

engine_driver.toolfix_driver.claim_stdout()

import vllm  # noqa: E402  (after claim_stdout on purpose)
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser import ParserManager  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402

# The parsers of formats toolfix reads by a shipped template (docs/dialects/templates.md),
# each with the template whose example it reads, checked with `toolfix smoke`.
TEMPLATES = {
    "cohere_command3": "cohere_command4", "cohere_command4": "cohere_command4", "dots": "dots",
    "gigachat3": "gigachat3", "granite-20b-fc": "granite-20b-fc",
    "hunyuan_a13b": "hunyuan_a13b", "hy_v3": "hunyuan",
    "inkling": "inkling", "jamba": "jamba", "k2_horizon": "k2_horizon", "kimi_k3": "kimi_k3",
    "longcat": "longcat", "minicpm5": "minicpm5",
    "minimax_m3": "minimax-m3", "muse": "muse", "muse_glimmer": "muse", "musespark1x": "muse",
    "plamo3": "plamo3", "step3": "step3",
}

# The toolfix dialects each parser reads, checked with `toolfix smoke` (README.md). A
# parser missing here reads a format toolfix has no dialect for: it declares none.
DIALECTS = {
    "hermes": ["tool_call"], "qwen3_json": ["tool_call"], "granite4": ["tool_call"],
    "ernie45": ["tool_call"],
    "llama3_json": ["python_tag", "llama_json", "whole_json"],
    "llama4_json": ["python_tag", "llama_json", "whole_json"], "xlam": ["whole_json"],
    "pythonic": ["pythonic"], "llama4_pythonic": ["pythonic"], "olmo3": ["pythonic"],
    "lfm2": ["pythonic"], "mistral": ["mistral"],
    "deepseek_v3": ["deepseek"], "deepseek_v31": ["deepseek"], "deepseek_v32": ["deepseek"],
    "deepseek_v4": ["deepseek"], "deepseek_v41": ["deepseek"],
    "qwen3_xml": ["qwen_xml"], "qwen3_coder": ["qwen_xml"], "seed_oss": ["qwen_xml"],
    "step3p5": ["qwen_xml"], "step5": ["qwen_xml"],
    "glm45": ["glm"], "glm47": ["glm"], "ling3": ["glm"], "poolside_v1": ["glm"],
    "kimi_k2": ["kimi"], "gemma4": ["gemma"], "functiongemma": ["gemma"],
    "minimax_m2": ["minimax"], "granite": ["granite"], "phi4_mini_json": ["phi4"],
    **{name: ["template"] for name in TEMPLATES},
}

# The forms each parser reads of a dialect it reads only in some forms, checked with
# `toolfix smoke` (README.md): a case written in another form is not sent to it.
FORMS = {
    "xlam": {"whole_json": ["array"]},
    "pythonic": {"pythonic": ["list"]}, "llama4_pythonic": {"pythonic": ["list", "llama-4-tokens"]},
    "olmo3": {"pythonic": ["olmo-3"]}, "lfm2": {"pythonic": ["lfm2-tokens"]},
    "mistral": {"mistral": ["v11"]},
    "deepseek_v3": {"deepseek": ["v3"]}, "deepseek_v31": {"deepseek": ["v3-1"]},
    "deepseek_v32": {"deepseek": ["v3-2-dsml", "v4"]}, "deepseek_v4": {"deepseek": ["v3-2-dsml", "v4"]},
    "deepseek_v41": {"deepseek": ["v4-1"]},
    "gemma4": {"gemma": ["gemma-4"]}, "functiongemma": {"gemma": ["functiongemma"]},
    "phi4_mini_json": {"phi4": ["functools"]},
    **{name: {"template": [template]} for name, template in TEMPLATES.items()},
}

# A marker a chat template writes as one special token: `<…>` or `[UPPER_CASE]`, no space.
MARKER = re.compile(r"^(?:<[^\s<>]{1,48}>|\[[A-Z_]{2,32}\])$")



def parser_modules(parser_class):
    """The vLLM modules that define the parser: its class's, its bases', those of the
    classes they hold (an adapter's engine parser under vllm.parser), and those its module
    imports from."""
    modules = {parser_class.__module__}
    for base in parser_class.__mro__:
        modules.add(base.__module__)
        modules.update(value.__module__ for value in vars(base).values() if isinstance(value, type))
    for value in vars(sys.modules[parser_class.__module__]).values():
        owner = getattr(value, "__module__", None) or getattr(value, "__name__", "")
        if isinstance(owner, str):
            modules.add(owner)
    return sorted(m for m in modules if m.startswith(("vllm.tool_parsers", "vllm.parser")))


def source_markers(parser_class):
    """The marker strings written in the source of the parser's modules: the special
    tokens its model's tokenizer holds, as far as the parser knows them."""
    modules = parser_modules(parser_class)
    markers = set()
    for name in modules:
        try:
            tree = ast.parse(inspect.getsource(importlib.import_module(name)))
        except (OSError, TypeError, SyntaxError):
            continue
        markers.update(node.value for node in ast.walk(tree)
                       if isinstance(node, ast.Constant) and isinstance(node.value, str)
                       and MARKER.match(node.value))
    return sorted(markers)


def enum_markers(parser_class):
    """The marker values of the enums the parser's modules import (Mistral's
    `SpecialTokens` lives in mistral_common)."""
    markers = set()
    for name in parser_modules(parser_class):
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and issubclass(value, enum.Enum):
                markers.update(str(member.value) for member in value
                               if isinstance(member.value, str) and MARKER.match(member.value))
    return markers


def constructor_markers(parser_class, tokenizer):
    """The markers a parser's constructor set on itself (`self.tool_call_start_token =
    f"<tool_calls{suffix}>"`), read from the instance even when the constructor then
    refused the tokenizer for lacking them."""
    instance = parser_class.__new__(parser_class)
    try:
        instance.__init__(tokenizer, [])
    except Exception:  # noqa: BLE001  the refusal is expected: the token was missing
        pass
    markers = set()
    for value in vars(instance).values():
        values = value if isinstance(value, (list, tuple, set)) else [value]
        markers.update(v for v in values if isinstance(v, str) and MARKER.match(v))
    return markers


def parser_tokenizer(parser_class):
    """The stand-in tokenizer for a parser: the markers of its source, of the enums it
    imports and of what its constructor looked for."""
    markers = set(source_markers(parser_class)) | enum_markers(parser_class)
    markers |= constructor_markers(parser_class, stand_in_tokenizer(sorted(markers)))
    return stand_in_tokenizer(sorted(markers))


def stand_in_tokenizer(markers):
    """A transformers tokenizer with no model behind it: every byte of ordinary text is one
    token (byte-level BPE without merges) and each marker is one added special token, as
    in the real model's vocabulary."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {symbol: number for number, symbol in enumerate(sorted(alphabet))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|endoftext|>")
    tokenizer.add_special_tokens({"additional_special_tokens": list(markers)})
    return tokenizer


def request_for(tools):
    """The chat request the reply answers: the offered tools (an entry the server's request
    validation refuses is left out, as the server would refuse the request), tool_choice
    auto, then the tool parser's own `adjust_request`, as the server applies it."""
    valid = []
    for entry in tools:
        try:
            ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                  tools=[entry])
            valid.append(entry)
        except Exception:  # noqa: BLE001  pydantic's ValidationError
            print(f"vllm driver: tool entry left out: {json.dumps(entry)[:200]}", file=sys.stderr)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=valid or None, tool_choice="auto" if valid else None)
    return request


class Loaded:
    """One parser as the server loads it for `--tool-call-parser NAME`: its class, the
    stand-in tokenizer with its markers, the prompt's token ids (which the server hands to
    the first parse_delta: with no reasoning parser, they tell it the reply starts outside
    reasoning) and the `Parser` class the server composes around it."""

    def __init__(self, name):
        self.name = name
        self.parser_class = ToolParserManager.get_tool_parser(name)
        self.tokenizer = parser_tokenizer(self.parser_class)
        self.prompt_ids = self.tokenizer.encode("hi", add_special_tokens=False)
        self.server_parser_class = ParserManager.get_parser(tool_parser_name=name,
                                                            enable_auto_tools=True)

    def server_parser(self, request):
        """A fresh Parser for one reply, built as serving.py's `_make_parser` builds it."""
        parser = self.server_parser_class(self.tokenizer, request.tools,
                                          chat_template_kwargs={}, model_config=None)
        tool_parser = getattr(parser, "_tool_parser", None)
        if tool_parser is not None:
            request = tool_parser.adjust_request(request)
        return parser, request

    def batch(self, content, tools):
        """serving.py's non-streaming path: `parser.parse(output.text, request, …)`."""
        parser, request = self.server_parser(request_for(tools))
        token_ids = self.tokenizer.encode(content, add_special_tokens=False)
        _, _, calls = parser.parse(content, request, enable_auto_tools=True,
                                   model_output_token_ids=token_ids)
        return [(call.name, call.arguments) for call in calls or []]

    def stream(self, chunks, tools, calls):
        """The streaming path: `parse_delta` per chunk, each with the token ids the stand-in
        tokenizer gives it, the last one `finished`."""
        parser, request = self.server_parser(request_for(tools))
        shown = []
        pieces = chunks or [""]
        for number, chunk in enumerate(pieces):
            ids = self.tokenizer.encode(chunk, add_special_tokens=False)
            delta = parser.parse_delta(chunk, ids, request, prompt_token_ids=self.prompt_ids,
                                       finished=number == len(pieces) - 1)
            if delta is None:
                continue
            shown.append(delta.content or "")
            for tool_call in delta.tool_calls or []:
                function = tool_call.function
                calls.add(tool_call.index, function.name if function else None,
                          function.arguments if function else None, number)
        return "".join(shown)


def implementation(name):
    """The handshake's `implementation` for parser `name`."""
    return {"name": "vllm", "version": vllm.__version__, "language": "python",
            "api": f"ParserManager.get_parser(tool_parser_name={name!r}): parse, parse_delta",
            "parser": name,
            "tokenizer": "stand-in: byte-level, the parser's markers as special tokens",
            "python": sys.version.split()[0],
            "homepage": "https://github.com/vllm-project/vllm",
            "issues": "https://github.com/vllm-project/vllm/issues"}


if __name__ == "__main__":
    NAME = engine_driver.parser_name(ToolParserManager.list_registered(), "hermes")
    LOADED = Loaded(NAME)
    # The server detokenizes as it generates, so a chunk never ends inside a special token.
    dialects = engine_driver.dialects_of(DIALECTS, NAME)
    engine_driver.serve(implementation(NAME), dialects, LOADED.batch, LOADED.stream,
                        forms=engine_driver.forms_of(FORMS, NAME, dialects), token_chunks=True)
