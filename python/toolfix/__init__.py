"""toolfix: making LLM tool calls that go wrong safe and repairable.

Drop-in functions that behave exactly like the adapters of praisonaiagents 1.7.17
(profile ``"praisonai"``, the default) or keep the documented guarantees on every path
(``"strict"``), computed by toolfix's Rust core in linear time:

* :func:`recover_tool_calls_from_text` -- the tool calls a model wrote as text;
* :func:`format_tool_result_message` -- the message the model reads after a tool ran;
* :class:`StreamSalvager` -- the same salvage on a reply streamed chunk by chunk: text to
  show and each call as soon as no continuation could change it.

A PraisonAI user can patch an adapter with them::

    import toolfix
    from praisonaiagents.llm.adapters import OllamaAdapter

    OllamaAdapter.recover_tool_calls_from_text = (
        lambda self, text, tools: toolfix.recover_tool_calls_from_text(text, tools, "ollama"))

The ``toolfix`` command (``toolfix conform``, ``toolfix serve``, ...) is installed with
the package; it is the same program as the one ``cargo install`` builds.
"""

from toolfix._native import StreamSalvager, __version__, recover_tool_calls_from_text
from toolfix._format import format_tool_result_message

__all__ = [
    "StreamSalvager",
    "__version__",
    "format_tool_result_message",
    "recover_tool_calls_from_text",
]
