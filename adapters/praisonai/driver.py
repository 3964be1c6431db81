"""toolfix protocol-v1 driver around the real praisonaiagents package.

The runner (``toolfix conform``) and ``toolfix diff`` talk to this
program over stdin/stdout, one JSON object per line, exactly as
``docs/protocol.md`` specifies.  Every answer comes from the installed
package's own functions; this file only translates between the wire format
and Python values, and pins the few interpreter settings that would otherwise
make the package's answers depend on how it was called:

* **stdout and stdin belong to the protocol.**  The package logs through Rich
  and can prompt a human for approval; a stray print on fd 1 would corrupt the
  answer stream and a stray ``input()`` would swallow the next request.  So fd
  1 and fd 0 are claimed before the package is imported, fd 1 is pointed at
  stderr and fd 0 at /dev/null.
* **Recursion depth.**  CPython raises ``RecursionError`` at a nesting depth
  that depends on how deep the caller's stack is, and the package lets it
  escape on deeply nested model output.  Every package call therefore runs as
  if it were made from a module-level frame with the default limit of 1000
  (see ``AsIfModuleLevel``), so the boundary is a property of the input, not
  of this driver.
* **Integer size.**  The protocol carries integers of any size, but the
  package's ``ValueError`` on >4300-digit integers is behaviour the suite
  pins, so the limit is lifted for reading and writing protocol lines only.
* **Approvals.**  The package asks a human before running tools it considers
  dangerous (``write_file``, ``execute_query``, ...) unless they are in the
  deny-set.  The protocol has no field for a human's answer; the driver sets
  ``PRAISONAI_AUTO_APPROVE=true`` so such calls behave like any other tool.
* **Start-up before the handshake.**  Op ``turn`` needs litellm, whose import
  takes about 5 s on a two-core machine: more than a case's 5 s budget.  The
  package imports it lazily, in a turn's first model call, so that case timed
  out, and every restarted driver paid it again on its next turn, until the
  restart budget was spent.  So the driver imports it itself before ``hello``
  is answered (the handshake has 120 s; importing ``turn`` alone does not load
  it), and litellm is told to use its bundled model-cost map instead of
  fetching one: nothing this driver does reaches the network.
"""

import os
import sys


def _claim_stdio():
    """Keep private handles on the protocol streams and neutralise fd 0/1.

    Returns ``(protocol_in, protocol_out)`` binary files on duplicates of the
    original fds.  Afterwards fd 1 is a copy of stderr and fd 0 reads
    /dev/null, so nothing the package does can touch the protocol streams.
    """
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, "r", encoding="utf-8")
    return protocol_in, protocol_out


if os.environ.get("PYTHONHASHSEED") != "0":
    # Set iteration order decides which parameter a case-drifted kwarg binds to
    # in the package's _cast_arguments; pin the string hash so it is stable.
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]],
              {**os.environ, "PYTHONHASHSEED": "0"})

PROTOCOL_IN, PROTOCOL_OUT = _claim_stdio()

import builtins  # noqa: E402
import importlib.metadata  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402

os.environ["PRAISONAI_AUTO_APPROVE"] = "true"
os.environ.setdefault("DO_NOT_TRACK", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from praisonaiagents import Agent  # noqa: E402
from praisonaiagents.llm.adapters import get_provider_adapter  # noqa: E402
from praisonaiagents.mcp.mcp import MCP  # noqa: E402

PROTOCOL_VERSION = 1
PACKAGE = "praisonaiagents"
ADAPTERS = ("ollama", "local", "default", "anthropic", "gemini")
DIALECTS = ["whole_json", "tool_call", "function", "bracket", "python_tag", "react"]

from module_level import IO_INT_MAX_STR_DIGITS, IO_RECURSION_LIMIT, AsIfModuleLevel  # noqa: E402
import turn  # noqa: E402

# The package imports litellm lazily, inside the first model call of a turn: import it
# here, before the handshake (see above).
import litellm  # noqa: E402,F401

NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}

# Exception classes a TOOL's "raise" may name (docs/protocol.md).
RAISABLE = {
    name: getattr(builtins, name)
    for name in ("ValueError", "TypeError", "KeyError", "RuntimeError", "AttributeError",
                 "IndexError", "LookupError", "OSError", "PermissionError", "TimeoutError",
                 "ConnectionError", "NotImplementedError", "ZeroDivisionError", "Exception")
}


class BadInput(Exception):
    """A request the driver cannot read; answered with ``errored``."""


class Opaque:
    """A value JSON cannot hold (a set, a datetime): ``str`` and ``repr`` are its text.

    ``json.dumps`` rejects it with ``TypeError`` like any unknown type, which is
    what sends the package down its ``str(result)`` fallbacks.
    """

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text


def package_error(exc):
    """The ``{"error": ...}`` output for an exception the package let escape."""
    return {"error": f"{type(exc).__name__}: {exc}"}


# --------------------------------------------------------------------------
# Wire format <-> Python values
# --------------------------------------------------------------------------

def _unwrap(obj):
    """``object_hook``: turn ``$float`` / ``$opaque`` wrappers into values."""
    if len(obj) == 1:
        if "$float" in obj:
            value = obj["$float"]
            if not isinstance(value, str) or value not in NON_FINITE:
                raise BadInput(f"bad $float wrapper: {value!r}")
            return NON_FINITE[value]
        if "$opaque" in obj:
            value = obj["$opaque"]
            if not isinstance(value, str):
                raise BadInput(f"bad $opaque wrapper: {value!r}")
            return Opaque(value)
    return obj


def read_request(raw):
    """Decode one request line; raises ``BadInput`` with the seq when it can."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"request is not UTF-8: {exc}") from None
    try:
        request = json.loads(text, object_hook=_unwrap)
    except BadInput as exc:
        # Re-read without the hook only to recover the seq for the answer.
        plain = json.loads(text)
        raise BadInput(str(exc), plain.get("seq") if isinstance(plain, dict) else None) from None
    except ValueError as exc:
        raise BadInput(f"request is not JSON: {exc}") from None
    if not isinstance(request, dict):
        raise BadInput("request is not a JSON object")
    return request


def to_wire(value):
    """Map a Python value to JSON-ready data, wrapping what JSON cannot hold."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, Opaque):
        return {"$opaque": value.text}
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"cannot encode a {type(key).__name__} key")
            out[key] = to_wire(item)
        return out
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    raise TypeError(f"cannot encode a {type(value).__name__} value")


def write_line(answer):
    """Write one answer line on the protocol stream and flush it."""
    line = json.dumps(to_wire(answer), ensure_ascii=True, allow_nan=False)
    PROTOCOL_OUT.write(line.encode("ascii") + b"\n")
    PROTOCOL_OUT.flush()


def _field(obj, key, kind, what, default=None, required=True):
    """Read a typed field of a request object, or raise ``BadInput``."""
    if key not in obj:
        if required:
            raise BadInput(f"{what}: missing {key!r}")
        return default
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        raise BadInput(f"{what}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _only_keys(obj, allowed, what):
    extra = set(obj) - set(allowed)
    if extra:
        raise BadInput(f"{what}: unknown keys {sorted(extra)}")


def _adapter(inp):
    name = _field(inp, "adapter", str, "input")
    if name not in ADAPTERS:
        raise BadInput(f"input: unknown adapter {name!r}")
    return get_provider_adapter(name)


# --------------------------------------------------------------------------
# Op: salvage
# --------------------------------------------------------------------------

def salvage_tools(entries):
    """The OpenAI tool list the model was offered, built from the protocol's shorthand."""
    tools = []
    for entry in entries:
        if isinstance(entry, str):
            tools.append({"type": "function",
                          "function": {"name": entry, "description": "",
                                       "parameters": {"type": "object", "properties": {}}}})
        elif isinstance(entry, dict) and len(entry) == 1 and "$raw" in entry:
            tools.append(entry["$raw"])
        else:
            tools.append(entry)
    return tools


def op_salvage(inp):
    """``adapter.recover_tool_calls_from_text(content, tools)``."""
    _only_keys(inp, ("content", "tools", "adapter"), "input")
    content = _field(inp, "content", str, "input")
    tools = salvage_tools(_field(inp, "tools", list, "input"))
    adapter = _adapter(inp)
    try:
        with AsIfModuleLevel():
            calls = adapter.recover_tool_calls_from_text(content, tools)
    except Exception as exc:  # the package raising is a pinned behaviour
        return package_error(exc)
    if calls is None:
        return {"calls": None}
    return {"calls": [{"name": call["function"]["name"], "arguments": call["function"]["arguments"]}
                      for call in calls]}


def op_salvage_stream(inp):
    """The sync loop's streamed reply (``LLM.get_response`` with ``stream=True``): every
    chunk is shown as it arrives, markup included, and the accumulated text is salvaged
    once the stream ends, so every call comes after the last chunk. (The async loop does
    not salvage streamed text at all; the ``turn`` op shows that loop.)"""
    _only_keys(inp, ("chunks", "tools", "adapter"), "input")
    chunks = _field(inp, "chunks", list, "input")
    if not all(isinstance(chunk, str) for chunk in chunks):
        raise BadInput("input: every chunk must be a string")
    content = "".join(chunks)
    answer = op_salvage({"content": content, "tools": inp.get("tools"), "adapter": inp.get("adapter")})
    if "error" in answer:
        return answer
    calls = answer["calls"]
    if calls is not None:
        calls = [dict(call, after_chunk=len(chunks)) for call in calls]
    return {"calls": calls, "content": content}


# --------------------------------------------------------------------------
# Op: execute
# --------------------------------------------------------------------------

KIND_ORDER = {"positional_only": 0, "positional_or_keyword": 1, "var_positional": 2,
              "keyword_only": 3, "var_keyword": 4}
_NO_DEFAULT = object()


class Dispatch:
    """Records which tool body ran during one ``execute`` request."""

    def __init__(self):
        self.name = None


def _parse_params(specs, what):
    """Validate PARAM specs as a Python signature; returns ``[(name, kind, default)]``."""
    params, names, last_rank, seen_optional = [], set(), -1, False
    for spec in specs:
        if not isinstance(spec, dict):
            raise BadInput(f"{what}: a param is not an object")
        _only_keys(spec, ("name", "required", "default", "kind"), what)
        name = _field(spec, "name", str, what)
        kind = _field(spec, "kind", str, what, "positional_or_keyword", required=False)
        # A default makes a parameter optional unless the spec says otherwise.
        required = _field(spec, "required", bool, what, "default" not in spec, required=False)
        if kind not in KIND_ORDER:
            raise BadInput(f"{what}: unknown kind {kind!r}")
        if name in names:
            raise BadInput(f"{what}: duplicate parameter {name!r}")
        rank = KIND_ORDER[kind]
        if rank < last_rank or (rank == last_rank and kind.startswith("var_")):
            raise BadInput(f"{what}: parameter {name!r} ({kind}) is out of order")
        if kind.startswith("var_"):
            if "default" in spec:
                raise BadInput(f"{what}: {kind} parameter {name!r} cannot have a default")
            default = _NO_DEFAULT
        elif required:
            if "default" in spec:
                raise BadInput(f"{what}: required parameter {name!r} has a default")
            default = _NO_DEFAULT
        else:
            default = spec.get("default")
        if rank <= 1:
            if default is _NO_DEFAULT and seen_optional:
                raise BadInput(f"{what}: required parameter {name!r} follows an optional one")
            seen_optional = seen_optional or default is not _NO_DEFAULT
        names.add(name)
        last_rank = rank
        params.append((name, kind, default))
    return params


_TEMPLATE_CACHE = {}


def _template_code(kinds_and_optional):
    """Compile (once per shape) a function with placeholder parameter names."""
    code = _TEMPLATE_CACHE.get(kinds_and_optional)
    if code is None:
        parts, star_written = [], False
        for index, (kind, optional) in enumerate(kinds_and_optional):
            placeholder = f"p{index}"
            if kind == "keyword_only" and not star_written:
                parts.append("*")
                star_written = True
            if kind == "var_positional":
                parts.append("*" + placeholder)
                star_written = True
            elif kind == "var_keyword":
                parts.append("**" + placeholder)
            else:
                parts.append(placeholder + ("=None" if optional else ""))
            if kind == "positional_only" and (
                    index + 1 == len(kinds_and_optional)
                    or kinds_and_optional[index + 1][0] != "positional_only"):
                parts.append("/")
        args = ", ".join(f"p{i}" for i in range(len(kinds_and_optional)))
        source = (f"def tool({', '.join(parts)}):\n"
                  f"    return __toolfix_body(({args}{',' if args else ''}))\n")
        namespace = {}
        exec(source, namespace)  # noqa: S102 - source built from placeholders only
        code = _TEMPLATE_CACHE[kinds_and_optional] = namespace["tool"].__code__
    return code


def build_tool(spec, dispatch):
    """A real Python function for a TOOL spec, so CPython itself binds the call.

    The signature is compiled from placeholder identifiers and then renamed
    with ``__code__.replace(co_varnames=...)``: parameter names can be any
    string (spaces, keywords, ``İ``), and every ``TypeError`` the call raises
    is CPython's own text with the real names and ``__qualname__``.
    """
    if not isinstance(spec, dict):
        raise BadInput("tools: an entry is not an object")
    _only_keys(spec, ("name", "params", "returns", "returns_template", "raise"), "tool")
    name = _field(spec, "name", str, "tool")
    what = f"tool {name!r}"
    params = _parse_params(_field(spec, "params", list, what, [], required=False), what)
    template = _field(spec, "returns_template", str, what, None, required=False)
    raise_spec = _field(spec, "raise", dict, what, None, required=False)
    exc_class = message = if_falsy = None
    if raise_spec is not None:
        _only_keys(raise_spec, ("type", "message", "if_falsy"), what)
        exc_class = RAISABLE.get(_field(raise_spec, "type", str, what))
        if exc_class is None:
            raise BadInput(f"{what}: unsupported exception type {raise_spec['type']!r}")
        message = _field(raise_spec, "message", str, what)
        if_falsy = _field(raise_spec, "if_falsy", str, what, None, required=False)
        if if_falsy is not None and if_falsy not in {p[0] for p in params}:
            raise BadInput(f"{what}: if_falsy names no parameter: {if_falsy!r}")
    has_returns = "returns" in spec
    returns = spec.get("returns")

    def body(values):
        dispatch.name = name
        bound = {}
        for (pname, kind, _), value in zip(params, values):
            bound[pname] = list(value) if kind == "var_positional" else value
        record = getattr(dispatch, "ran", None)
        if record is not None:
            record(name, bound)
        if exc_class is not None and (if_falsy is None or not bound[if_falsy]):
            raise exc_class(message)
        if template is not None:
            return template.format(**bound)
        if has_returns:
            return returns
        return {"tool": name, "kwargs": bound}

    shape = tuple((kind, default is not _NO_DEFAULT) for _, kind, default in params)
    code = _template_code(shape)
    real = {f"p{i}": pname for i, (pname, _, _) in enumerate(params)}
    code = code.replace(co_varnames=tuple(real[v] for v in code.co_varnames),
                        co_name=name, co_qualname=name)
    positional_defaults = tuple(d for _, k, d in params
                                if k in ("positional_only", "positional_or_keyword")
                                and d is not _NO_DEFAULT)
    function = types.FunctionType(code, {"__toolfix_body": body}, name,
                                  positional_defaults or None)
    function.__qualname__ = name
    function.__kwdefaults__ = {pname: d for pname, k, d in params
                               if k == "keyword_only" and d is not _NO_DEFAULT} or None
    return function


def build_registry(entries, dispatch):
    """``agent.tools`` for a protocol registry: functions and real ``MCP`` containers."""
    registry = []
    for entry in entries:
        if isinstance(entry, dict) and "mcp" in entry:
            _only_keys(entry, ("mcp", "tools"), "mcp group")
            _field(entry, "mcp", str, "mcp group")
            # A real MCP without a server: the package expands it by iterating
            # _tools, which is all a live MCP adds to name repair and inventory.
            container = MCP.__new__(MCP)
            container._tools = [build_tool(spec, dispatch)
                                for spec in _field(entry, "tools", list, "mcp group")]
            registry.append(container)
        else:
            registry.append(build_tool(entry, dispatch))
    return registry


# One agent serves every request: construction costs ~0.1 s, and
# _execute_tool_impl reads only agent.tools and the permission sets, which
# are replaced per request.  approval=False keeps a console-approval backend
# from being installed when the driver happens to run on a terminal.
AGENT = Agent(name="toolfix", instructions="toolfix conformance driver", approval=False)


class RepairLog(logging.Handler):
    """Captures the package's ``Self-repaired tool name 'X' -> 'y'`` debug line.

    The package logs it with ``logging.debug`` on the root logger, whose level normally
    drops debug records, so the root level is lowered only for the duration of one call.
    """

    PREFIX = "Self-repaired tool name "

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.line = None

    def emit(self, record):
        message = record.getMessage()
        if message.startswith(self.PREFIX):
            self.line = message

    def __enter__(self):
        root = logging.getLogger()
        self._level = root.level
        root.addHandler(self)
        root.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        root = logging.getLogger()
        root.setLevel(self._level)
        root.removeHandler(self)
        return False


def op_execute(inp):
    """``agent._execute_tool_impl(call.name, call.arguments)`` against a fresh registry."""
    _only_keys(inp, ("tools", "call", "deny"), "input")
    dispatch = Dispatch()
    registry = build_registry(_field(inp, "tools", list, "input"), dispatch)
    call = _field(inp, "call", dict, "input")
    _only_keys(call, ("name", "arguments"), "call")
    call_name = _field(call, "name", None, "call")
    arguments = _field(call, "arguments", dict, "call")
    deny = _field(inp, "deny", list, "input", [], required=False)
    if not all(isinstance(item, str) for item in deny):
        raise BadInput("input: deny must list strings")
    AGENT.tools = registry
    AGENT._perm_deny = frozenset(deny)
    try:
        with RepairLog() as log, AsIfModuleLevel():
            returned = AGENT._execute_tool_impl(call_name, arguments)
    except Exception as exc:
        return package_error(exc)
    if isinstance(returned, dict):
        returned.pop("_praison_retryable", None)
    output = {"dispatched": dispatch.name, "returned": returned}
    if log.line is not None:
        output["repair_log"] = log.line
    return output


# --------------------------------------------------------------------------
# Op: format_result
# --------------------------------------------------------------------------

def op_format_result(inp):
    """``adapter.format_tool_result_message(function_name, tool_result, tool_call_id)``."""
    _only_keys(inp, ("adapter", "function_name", "tool_result", "tool_call_id"), "input")
    adapter = _adapter(inp)
    function_name = _field(inp, "function_name", None, "input")
    tool_result = _field(inp, "tool_result", None, "input")
    tool_call_id = _field(inp, "tool_call_id", None, "input", None, required=False)
    try:
        with AsIfModuleLevel():
            message = adapter.format_tool_result_message(function_name, tool_result, tool_call_id)
    except Exception as exc:
        return package_error(exc)
    return {"message": message}


# --------------------------------------------------------------------------
# Op: turn
# --------------------------------------------------------------------------

def op_turn(inp):
    """One agent turn of the real sync or async loop against a scripted model (turn.py)."""
    return turn.run_turn(inp, build_tool, BadInput, _only_keys, _field)


OPS = {"salvage": op_salvage, "salvage_stream": op_salvage_stream, "execute": op_execute,
       "format_result": op_format_result, "turn": op_turn}


# --------------------------------------------------------------------------
# The serving loop
# --------------------------------------------------------------------------

def hello():
    """The handshake answer."""
    return {
        "protocol": PROTOCOL_VERSION,
        "implementation": {
            "name": PACKAGE,
            "version": importlib.metadata.version(PACKAGE),
            "language": "python",
            "python": platform.python_version(),
            "homepage": "https://github.com/MervinPraison/PraisonAI",
            "issues": "https://github.com/MervinPraison/PraisonAI/issues",
            "driver": "toolfix adapters/praisonai",
        },
        "profile": "praisonai",
        "ops": list(OPS),
        "dialects": DIALECTS,
        # Salvage depends on the adapter (only ollama and local salvage); calls are
        # recovered only when closed, from JSON, by their exact name; reasoning is text.
        "policies": {"adapters": True, "unclosed_calls": False, "lenient_json": False,
                     "case_insensitive_names": False, "masks_reasoning": False},
    }


def run_case(request):
    """Answer one ``run`` request."""
    if "seq" not in request:
        raise BadInput("run request without seq")
    seq = request["seq"]
    op = request.get("op")
    if op not in OPS:
        raise BadInput(f"unknown op {op!r}", seq)
    inp = request.get("input")
    if not isinstance(inp, dict):
        raise BadInput("input is not an object", seq)
    try:
        output = OPS[op](inp)
    except BadInput as exc:
        raise BadInput(exc.args[0], seq) from None
    return {"seq": seq, "output": output}


def serve():
    """Answer requests until ``stop`` or end of input; returns the exit status."""
    for raw in PROTOCOL_IN:
        request = None
        try:
            request = read_request(raw)
            cmd = request.get("cmd")
            if cmd == "stop":
                return 0
            if cmd == "hello":
                answer = hello()
            elif cmd == "run":
                answer = run_case(request)
            else:
                raise BadInput(f"unknown cmd {cmd!r}", request.get("seq"))
            write_line(answer)
        except BadInput as exc:
            seq = exc.args[1] if len(exc.args) > 1 else None
            write_errored(seq, exc.args[0])
        except Exception as exc:  # a driver bug: report it on this case and keep serving
            traceback.print_exc(file=sys.stderr)
            seq = request.get("seq") if isinstance(request, dict) else None
            write_errored(seq, f"driver error: {type(exc).__name__}: {exc}")
    return 0


def write_errored(seq, message):
    """An ``errored`` answer, carrying the seq when one was read."""
    write_line({"errored": message} if seq is None else {"seq": seq, "errored": message})


def main():
    sys.setrecursionlimit(IO_RECURSION_LIMIT)
    sys.set_int_max_str_digits(IO_INT_MAX_STR_DIGITS)
    return serve()


if __name__ == "__main__":
    sys.exit(main())
