"""Self-test of the praisonai driver: start ``./run`` and check answers docs/behaviour.md states.

Plain Python, no pytest: ``python3 adapters/praisonai/test_driver.py`` prints
one line per check and exits 1 on any mismatch.  The expected values are the
ones docs/behaviour.md records, verified against the real package
(its section 6 seed table, sections 2(b)-(h), 2(j) and 4), so a failure here
means the driver no longer reaches the real behaviour.  It then runs
recursion_table.py, which re-measures every recursion boundary at module
level and through the driver and prints the table README.md shows.
"""

import os
import subprocess
import sys

from protocol_client import DriverProcess

HERE = os.path.dirname(os.path.abspath(__file__))
EM_DASH = "\u2014"

WEB_SEARCH = {"name": "web_search",
              "params": [{"name": "query"}, {"name": "limit", "required": False, "default": 5}],
              "returns_template": "results for {query}"}
WEB_SEARCH_VALIDATING = {"name": "web_search", "params": [{"name": "query"}],
                         "raise": {"type": "ValueError", "message": "query must not be empty",
                                   "if_falsy": "query"},
                         "returns_template": "results for {query}"}
CALCULATOR = {"name": "calculator", "params": [{"name": "expression"}]}


class Checks:
    """Collects check results; every check prints one line."""

    def __init__(self):
        self.failed = 0
        self.total = 0

    def equal(self, label, got, expected):
        self.total += 1
        if got == expected:
            print(f"ok   {label}")
        else:
            self.failed += 1
            print(f"FAIL {label}\n     got:      {got!r}\n     expected: {expected!r}")

    def true(self, label, condition, detail=""):
        self.equal(label + (f" ({detail})" if detail else ""), bool(condition), True)


def check_handshake(c, driver):
    hello = driver.hello()
    c.equal("hello: protocol", hello["protocol"], 1)
    c.equal("hello: implementation", {k: hello["implementation"][k] for k in ("name", "version", "language")},
            {"name": "praisonaiagents", "version": "1.7.17", "language": "python"})
    c.equal("hello: profile and ops", (hello["profile"], hello["ops"]),
            ("praisonai", ["salvage", "salvage_stream", "execute", "format_result", "turn"]))
    c.equal("hello: dialects", sorted(hello["dialects"]),
            sorted(["whole_json", "tool_call", "function", "bracket", "python_tag", "react"]))


def check_execute(c, driver):
    def execute(tools, name, arguments, deny=None):
        inp = {"tools": tools, "call": {"name": name, "arguments": arguments}}
        if deny is not None:
            inp["deny"] = deny
        return driver.output("execute", inp)

    c.equal("execute: WebSearch self-repairs to web_search",
            execute([WEB_SEARCH], "WebSearch", {"query": "hello"}),
            {"dispatched": "web_search", "returned": "results for hello",
             "repair_log": "Self-repaired tool name 'WebSearch' -> 'web_search'"})
    c.equal("execute: web-search self-repairs to web_search",
            execute([WEB_SEARCH], "web-search", {"query": "world"}),
            {"dispatched": "web_search", "returned": "results for world",
             "repair_log": "Self-repaired tool name 'web-search' -> 'web_search'"})
    c.equal("execute: totally_made_up_tool gets no 'Did you mean' (ratio 0.13)",
            execute([WEB_SEARCH], "totally_made_up_tool", {}),
            {"dispatched": None, "returned": {
                "error": "Tool 'totally_made_up_tool' not found. Available tools: ['web_search']",
                "available_tools": ["web_search"]}})
    c.equal("execute: near miss web_serch gets the difflib hint",
            execute([CALCULATOR, WEB_SEARCH], "web_serch", {})["returned"]["error"],
            "Tool 'web_serch' not found. Did you mean 'web_search'? "
            "Available tools: ['calculator', 'web_search']")
    c.equal("execute: bind failure echoes the parameters, CPython's TypeError first",
            execute([WEB_SEARCH], "web_search", {}),
            {"dispatched": None, "returned": {
                "error": "web_search() missing 1 required positional argument: 'query' "
                         f"Expected parameters for 'web_search' {EM_DASH} "
                         "required: ['query'], optional: ['limit'].",
                "expected_parameters": {"required": ["query"], "optional": ["limit"]}}})
    c.equal("execute: ValueError inside a bound tool passes through unchanged",
            execute([WEB_SEARCH_VALIDATING], "web_search", {"query": ""}),
            {"dispatched": "web_search", "returned": {"error": "query must not be empty"}})
    c.equal("execute: deny-set blocks the exact name",
            execute([{"name": "delete_file", "params": [{"name": "path"}]}], "delete_file",
                    {"path": "x"}, deny=["delete_file"]),
            {"dispatched": None, "returned": {"error": "Tool 'delete_file' blocked by permission policy",
                                              "permission_denied": True}})
    c.equal("execute: name repair bypasses the deny-set (DeleteFile runs delete_file)",
            execute([{"name": "delete_file", "params": [{"name": "path"}]}], "DeleteFile",
                    {"path": "x"}, deny=["delete_file"]),
            {"dispatched": "delete_file", "returned": {"tool": "delete_file", "kwargs": {"path": "x"}},
             "repair_log": "Self-repaired tool name 'DeleteFile' -> 'delete_file'"})
    mcp = {"mcp": "files", "tools": [{"name": "read_file", "params": [{"name": "path"}]},
                                     {"name": "write_file", "params": [{"name": "path"}]}]}
    c.equal("execute: MCP tool Read-File repairs to read_file",
            execute([mcp, {"name": "web_search", "params": [{"name": "query"}]}], "Read-File", {"path": "x"}),
            {"dispatched": "read_file", "returned": {"tool": "read_file", "kwargs": {"path": "x"}},
             "repair_log": "Self-repaired tool name 'Read-File' -> 'read_file'"})
    c.equal("execute: a miss lists the MCP tool names",
            execute([mcp, {"name": "web_search", "params": [{"name": "query"}]}], "nope", {})
            ["returned"]["available_tools"],
            ["read_file", "web_search", "write_file"])
    c.equal("execute: values JSON cannot hold round-trip through the kwargs",
            execute([{"name": "f", "params": [{"name": "x"}, {"name": "kw", "kind": "var_keyword"}]}],
                    "f", {"x": {"$float": "nan"}, "big": 123456789012345678901234567890}),
            {"dispatched": "f", "returned": {"tool": "f", "kwargs": {
                "x": {"$float": "nan"}, "kw": {"big": 123456789012345678901234567890}}}})


def check_salvage(c, driver):
    def salvage(content, tools, adapter="ollama"):
        return driver.output("salvage", {"content": content, "tools": tools, "adapter": adapter})

    paris_berlin = ("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n"
                    "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Berlin\"}}</tool_call>")
    c.equal("salvage: two <tool_call> blocks come out in order",
            salvage(paris_berlin, ["get_weather"]),
            {"calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"},
                       {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}]})
    c.equal("salvage: a fenced delete_user example is never recovered",
            salvage("Example format:\n```\n<tool_call>{\"name\": \"delete_user\", "
                    "\"arguments\": {\"id\": \"42\"}}</tool_call>\n```", ["delete_user"]),
            {"calls": None})
    c.equal("salvage: a hallucinated wire_transfer is discarded",
            salvage("<tool_call>{\"name\": \"wire_transfer\", \"arguments\": {\"to\": \"x\"}}</tool_call>",
                    ["get_weather", "get_stock_price"]),
            {"calls": None})
    c.equal("salvage: DefaultAdapter recovers nothing",
            salvage(paris_berlin, ["get_weather"], adapter="default"), {"calls": None})
    c.equal("salvage: whole-content arguments null becomes the string 'None'",
            salvage("{\"name\": \"x\", \"arguments\": null}", ["get_weather"], adapter="local"),
            {"calls": [{"name": "x", "arguments": "None"}]})
    c.equal("salvage: a >4300-digit integer escapes as ValueError",
            salvage("{\"name\": \"a\", \"arguments\": {\"n\": " + "9" * 4301 + "}}", ["a"])["error"]
            .split(":")[0], "ValueError")
    nested = "{\"name\":\"a\",\"arguments\":%s}"
    c.equal("salvage: recursion boundary, whole-content dict works at d=992",
            "calls" in salvage(nested % ("[" * 992 + "]" * 992), ["a"]), True)
    c.equal("salvage: recursion boundary, whole-content dict raises at d=993",
            salvage(nested % ("[" * 993 + "]" * 993), ["a"]).get("error", "").split(":")[0],
            "RecursionError")


def check_format_result(c, driver):
    def fmt(adapter, result, **extra):
        return driver.output("format_result", {"adapter": adapter, "function_name": "charge",
                                               "tool_result": result, **extra})["message"]

    c.equal("format_result: {'error': 'card declined'} for a role-tool adapter",
            fmt("default", {"error": "card declined"}, tool_call_id="call_1"),
            {"role": "tool", "tool_call_id": "call_1",
             "content": "Error: card declined. Please inform the user that the operation could not be completed."})
    c.equal("format_result: Ollama delivers the error as a user-role message",
            fmt("ollama", {"error": "card declined"}),
            {"role": "user", "content": "The tool \"charge\" encountered an error:\ncard declined\n\n"
             "Please provide a helpful response to the user explaining that the operation could not "
             "be completed. \nBe apologetic and suggest alternatives if possible. Do NOT repeat the raw "
             "error message.\nGive a natural, conversational response."})
    c.equal("format_result: None is 'Function returned an empty output', default id call_<name>",
            fmt("local", None),
            {"role": "tool", "tool_call_id": "call_charge", "content": "Function returned an empty output"})
    c.equal("format_result: an opaque value falls back to str(), NaN stays NaN in json.dumps",
            [fmt("anthropic", {"$opaque": "2024-01-02 03:04:05"})["content"],
             fmt("gemini", [{"$float": "nan"}, "h\u00e9llo"])["content"]],
            ["2024-01-02 03:04:05", "[NaN, \"h\\u00e9llo\"]"])


def check_malformed(c, driver):
    def errored(label, line, seq=None):
        answer = driver.send_raw(line)
        c.true(f"malformed: {label}", "errored" in answer and answer.get("seq") == seq, str(answer))

    errored("not JSON", b"this is not json")
    errored("not UTF-8", b"\xff\xfe{}")
    errored("not an object", b"[1, 2]")
    errored("no cmd", b'{"seq": 3}', seq=3)
    errored("unknown cmd", b'{"cmd": "dance", "seq": 4}', seq=4)
    errored("unknown op", b'{"cmd": "run", "seq": 5, "op": "fly", "input": {}}', seq=5)
    errored("bad $float wrapper", b'{"cmd": "run", "seq": 6, "op": "format_result", "input": '
            b'{"adapter": "default", "function_name": "f", "tool_result": {"$float": "NaN"}}}', seq=6)
    errored("unknown adapter", b'{"cmd": "run", "seq": 7, "op": "salvage", "input": '
            b'{"content": "x", "tools": [], "adapter": "openai"}}', seq=7)
    errored("required parameter after an optional one", b'{"cmd": "run", "seq": 8, "op": "execute", '
            b'"input": {"tools": [{"name": "f", "params": [{"name": "a", "required": false}, {"name": "b"}]}],'
            b' "call": {"name": "f", "arguments": {}}}}', seq=8)
    c.equal("malformed: the driver keeps serving", driver.hello()["protocol"], 1)


def check_startup_imports(c):
    """litellm is loaded before the driver reads its first request, so no case pays for it.

    Its import takes about 5 s on a two-core machine, a whole case's budget; the package
    imports it lazily, inside a turn's first model call (docs/protocol.md, "Handshake").
    ``-X importtime`` lists every module imported; the driver is given only ``stop``.
    """
    started = subprocess.run([os.path.join(HERE, ".venv", "bin", "python"), "-X", "importtime",
                              os.path.join(HERE, "driver.py")],
                             input=b'{"cmd": "stop"}\n', capture_output=True,
                             env={**os.environ, "PYTHONHASHSEED": "0"})
    imported = {line.rsplit("|", 1)[-1].strip()
                for line in started.stderr.decode(errors="replace").splitlines()
                if line.startswith("import time:")}
    c.equal("start-up: litellm is imported before the first request", "litellm" in imported, True)


def main():
    checks = Checks()
    driver = DriverProcess([os.path.join(HERE, "run")])
    try:
        check_handshake(checks, driver)
        check_execute(checks, driver)
        check_salvage(checks, driver)
        check_format_result(checks, driver)
        check_malformed(checks, driver)
        status, rest = driver.stop()
        checks.equal("stop: exit status 0 and nothing written", (status, rest), (0, b""))
    except Exception:
        print(f"driver stderr (tail):\n{driver.stderr_tail()}", file=sys.stderr)
        raise
    finally:
        driver.close()
    # ./run has built .venv by now; the table needs the package in-process.
    table = subprocess.run([os.path.join(HERE, ".venv", "bin", "python"),
                            os.path.join(HERE, "recursion_table.py")],
                           env={**os.environ, "PYTHONHASHSEED": "0"}, stderr=subprocess.DEVNULL)
    checks.equal("recursion table: every boundary matches module level", table.returncode, 0)
    check_startup_imports(checks)
    print(f"{checks.total - checks.failed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
