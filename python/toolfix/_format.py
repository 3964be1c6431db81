"""``format_tool_result_message``: the Rust core for plain JSON results, Python for the rest.

The core prints values the way CPython does, but only values made of the exact built-in
JSON types (``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``dict`` with ``str``
keys) can cross into it exactly. Any other result -- a tuple, a set, a ``datetime``, a
subclass with its own ``__str__`` -- is printed here with Python's own ``json.dumps`` and
``str``, following the same rules (docs/behaviour.md §2(g)), so the answer is exact either
way.
"""

import json

from toolfix._native import format_exact

_TOOL_ERROR = "Error: {}. Please inform the user that the operation could not be completed."
_OLLAMA_ERROR = (
    'The tool "{}" encountered an error:\n{}\n\n'
    "Please provide a helpful response to the user explaining that the operation could "
    "not be completed. \nBe apologetic and suggest alternatives if possible. Do NOT repeat "
    "the raw error message.\nGive a natural, conversational response."
)
_OLLAMA_RESULT = (
    "Tool execution complete.\nFunction: {}\nResult: {}\n\n"
    "Now provide your final answer using this result. Summarize the information "
    "naturally for the user."
)
_USER_ROLE_ADAPTERS = ("ollama",)


def format_tool_result_message(function_name, tool_result, tool_call_id=None,
                               adapter="ollama", profile="praisonai"):
    """``adapter.format_tool_result_message(function_name, tool_result, tool_call_id)``.

    Returns ``{"role": "tool", "tool_call_id", "content"}`` (OpenAI-shaped adapters) or
    ``{"role": "user", "content"}`` (Ollama's natural-language turn). Under
    ``"praisonai"`` a result CPython cannot print raises as it does in the package.
    """
    message = format_exact(function_name, tool_result, tool_call_id, adapter, profile)
    if message is not None:
        return message
    if adapter in _USER_ROLE_ADAPTERS:
        return _ollama_message(function_name, tool_result)
    return _tool_message(function_name, tool_result, tool_call_id)


def _error_of(result):
    """``(True, message)`` when the result reports an error, else ``(False, None)``."""
    if isinstance(result, dict) and "error" in result:
        return True, result.get("error", "Unknown error")
    if isinstance(result, list) and result and isinstance(result[0], dict) and "error" in result[0]:
        return True, result[0].get("error", "Unknown error")
    return False, None


def _tool_message(function_name, result, tool_call_id):
    is_error, error = _error_of(result)
    if result is None:
        content = "Function returned an empty output"
    elif is_error:
        content = _TOOL_ERROR.format(error)
    else:
        try:
            content = json.dumps(result)
        except (TypeError, ValueError):
            content = str(result)
    call_id = tool_call_id if tool_call_id is not None else f"call_{function_name}"
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _ollama_message(function_name, result):
    is_error, error = _error_of(result)
    if is_error:
        return {"role": "user", "content": _OLLAMA_ERROR.format(function_name, error)}
    return {"role": "user", "content": _OLLAMA_RESULT.format(function_name, result)}
