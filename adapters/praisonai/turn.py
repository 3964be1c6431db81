"""Op ``turn``: one agent turn of the real praisonaiagents loops, driven by a scripted model.

A real ``Agent`` runs ``chat`` (the sync loop, ``LLM.get_response``) or ``achat`` (the
async loop, ``LLM.get_response_async``) with real tool functions built as for
``execute``. Its model is the package's own test double, ``ScriptedModel`` (an ``LLM``
subclass that replaces only the two methods that would reach a provider), so every
reply is parsed, salvaged, validated, dispatched and answered by production code, and
no request ever leaves the process (``allow_model_requests(False)`` on top).

What the driver adds, and why:

* **Raw argument strings.** The protocol's native calls carry their arguments as the
  string the model sent (malformed JSON included); ``ScriptedModel`` would re-encode a
  dict, so the subclass below passes the string through.
* **Which adapter.** ``Agent(llm=...)`` picks the provider adapter from the model id, so
  each protocol adapter maps to a model id of that provider (none contains ``qwen``,
  which would switch on the XML tool format for every reply).
* **What is observed.** Tool bodies record ``(name, bound kwargs)`` when they run; the
  loop's message list records what is appended to it, and the messages that answer the
  model's calls (tool results, argument-parse errors, validation repair prompts) are
  picked out by identity, in the order they were appended.
* **Script exhaustion.** ``ScriptExhausted`` is a ``BaseException``, so no handler in the
  package can swallow it; the turn ends there and reports it with the protocol's fixed
  text.
* **Back-off.** The package sleeps between tool retries (about 1 s, then 2 s). The
  sleeps are observable only as time, so the driver makes them instantaneous.
"""

import asyncio
import itertools
import json

from praisonaiagents import Agent
from praisonaiagents.model_harness import ScriptedModel, ScriptExhausted, allow_model_requests
from praisonaiagents.model_harness.scripted import ScriptedReply

allow_model_requests(False)

# One model id per protocol adapter: the id decides the adapter (llm.py _detect_provider).
MODEL_IDS = {
    "ollama": "ollama/llama3.2",
    "local": "lm_studio/local-model",
    "default": "openai/gpt-4o-mini",
    "anthropic": "anthropic/claude-sonnet-4",
    "gemini": "gemini/gemini-2.0-flash",
}
LOOPS = ("sync", "async")
DEFAULT_PROMPT = "Go."


class Reply:
    """One scripted reply, with native calls kept as the model sent them."""

    __slots__ = ("content", "calls")

    def __init__(self, content, calls):
        self.content = content
        self.calls = calls


class RawScriptedModel(ScriptedModel):
    """``ScriptedModel`` whose tool calls carry the argument string verbatim."""

    def __init__(self, replies, model):
        super().__init__([ScriptedReply(text=r.content, tool_calls=tuple(r.calls))
                          for r in replies], model=model)
        self.messages = None

    def _tool_call_payload(self, call):
        return {
            "id": call.id or f"scripted_tool_{next(self._id_counter)}",
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }


class RawCall:
    """A native call: ``name`` and the raw ``arguments`` string."""

    __slots__ = ("name", "arguments", "id")

    def __init__(self, name, arguments):
        self.name = name
        self.arguments = arguments
        self.id = None


class Conversation(list):
    """The loop's message list, recording every message appended to it, in order."""

    def __init__(self, items):
        super().__init__(items)
        self.appended = []

    def append(self, message):
        self.appended.append(message)
        super().append(message)

    def extend(self, messages):
        messages = list(messages)
        self.appended.extend(messages)
        super().extend(messages)


class Observer:
    """What one turn did: the tool bodies that ran and the messages answering calls."""

    def __init__(self):
        self.name = None  # the Dispatch interface build_tool records into
        self.executed = []
        self.answers = set()  # ids of message dicts that answer a call
        self.repairs = []  # the repair-prompt strings, matched by identity
        self.conversation = None

    def ran(self, name, bound):
        self.executed.append({"name": name, "kwargs": dict(bound)})

    def tool_messages(self):
        if self.conversation is None:
            return []
        picked = []
        for message in self.conversation.appended:
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            if id(message) in self.answers or any(content is r for r in self.repairs):
                picked.append(content)
        return picked


def instrument(llm, observer):
    """Wrap the loop's message builders so the observer sees what they make."""
    build_messages = llm._build_messages

    def _build_messages(*args, **kwargs):
        messages, original = build_messages(*args, **kwargs)
        observer.conversation = Conversation(messages)
        return observer.conversation, original

    llm._build_messages = _build_messages

    adapter = llm._provider_adapter
    format_result = adapter.format_tool_result_message

    def format_tool_result_message(*args, **kwargs):
        message = format_result(*args, **kwargs)
        observer.answers.add(id(message))
        return message

    adapter.format_tool_result_message = format_tool_result_message

    parse_error = llm._tool_parse_error_message

    def _tool_parse_error_message(*args, **kwargs):
        message = parse_error(*args, **kwargs)
        observer.answers.add(id(message))
        return message

    llm._tool_parse_error_message = _tool_parse_error_message

    repair = llm._tool_repair_message

    def _tool_repair_message(*args, **kwargs):
        text = repair(*args, **kwargs)
        if text is not None:
            observer.repairs.append(text)
        return text

    llm._tool_repair_message = _tool_repair_message


class NoSleep:
    """A ``time`` stand-in for the tool-retry back-off: everything but ``sleep``."""

    def __init__(self, real):
        self._real = real

    def sleep(self, _seconds):
        return None

    def __getattr__(self, name):
        return getattr(self._real, name)


def _instant_backoff():
    import asyncio as _asyncio
    import time as _time

    from praisonaiagents.agent import execution_mixin, tool_execution

    tool_execution.time = NoSleep(_time)
    real_sleep = _asyncio.sleep

    async def no_sleep(_delay, result=None):
        await real_sleep(0)
        return result

    execution_mixin.asyncio = _AsyncioShim(_asyncio, no_sleep)


class _AsyncioShim:
    def __init__(self, real, sleep):
        self._real = real
        self.sleep = sleep

    def __getattr__(self, name):
        return getattr(self._real, name)


_instant_backoff()


def read_replies(entries, bad_input):
    replies = []
    for index, entry in enumerate(entries):
        what = f"replies[{index}]"
        if not isinstance(entry, dict):
            raise bad_input(f"{what} is not an object")
        extra = set(entry) - {"content", "tool_calls"}
        if extra:
            raise bad_input(f"{what}: unknown keys {sorted(extra)}")
        if "content" not in entry:
            raise bad_input(f"{what}: missing 'content'")
        content = entry["content"]
        if content is not None and not isinstance(content, str):
            raise bad_input(f"{what}: 'content' must be a string or null")
        calls = []
        raw_calls = entry.get("tool_calls", [])
        if not isinstance(raw_calls, list):
            raise bad_input(f"{what}: 'tool_calls' must be a list")
        for position, call in enumerate(raw_calls):
            where = f"{what}.tool_calls[{position}]"
            if not isinstance(call, dict) or set(call) != {"name", "arguments"}:
                raise bad_input(f"{where} must be {{\"name\", \"arguments\"}}")
            if not isinstance(call["name"], str) or not isinstance(call["arguments"], str):
                raise bad_input(f"{where}: name and arguments must be strings")
            calls.append(RawCall(call["name"], call["arguments"]))
        replies.append(Reply(content, calls))
    return replies


def exhausted_text(requested, held):
    return f"ScriptExhausted: reply {requested} was requested but the script holds {held}"


def run_turn(inp, build_tool, bad_input, only_keys, field):
    """The ``turn`` op: returns the protocol output."""
    only_keys(inp, ("tools", "adapter", "loop", "prompt", "deny", "replies"), "input")
    observer = Observer()
    specs = field(inp, "tools", list, "input")
    if any(isinstance(s, dict) and "mcp" in s for s in specs):
        raise bad_input("input: turn tools are TOOL specs (no mcp groups)")
    adapter = field(inp, "adapter", str, "input")
    if adapter not in MODEL_IDS:
        raise bad_input(f"input: unknown adapter {adapter!r}")
    loop = field(inp, "loop", str, "input")
    if loop not in LOOPS:
        raise bad_input(f"input: loop must be 'sync' or 'async', not {loop!r}")
    prompt = field(inp, "prompt", str, "input", DEFAULT_PROMPT, required=False)
    deny = field(inp, "deny", list, "input", [], required=False)
    if not all(isinstance(item, str) for item in deny):
        raise bad_input("input: deny must list strings")
    replies = read_replies(field(inp, "replies", list, "input"), bad_input)

    tools = [build_tool(spec, observer) for spec in specs]
    model = RawScriptedModel(replies, MODEL_IDS[adapter])
    instrument(model, observer)
    agent = Agent(name="toolfix", instructions="toolfix conformance driver", llm=model,
                  tools=tools, approval=False)
    agent._perm_deny = frozenset(deny)

    output = {"executed": observer.executed}
    try:
        if loop == "sync":
            final = agent.chat(prompt)
        else:
            final = asyncio.run(agent.achat(prompt))
        output["final"] = final
    except ScriptExhausted as exc:
        output["final"] = None
        output["raised"] = exhausted_text(exc.request_index, exc.scripted)
    except Exception as exc:  # the turn raised: the package's own exception
        output["final"] = None
        message = getattr(exc, "message", None)
        output["raised"] = f"{type(exc).__name__}: {message if isinstance(message, str) else exc}"
    output["tool_messages"] = observer.tool_messages()
    output["model_calls"] = model.request_count
    return {key: output[key] for key in
            ("executed", "tool_messages", "final", "raised", "model_calls") if key in output}
