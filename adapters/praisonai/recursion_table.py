"""Measure the package's recursion boundaries, at module level and through the driver.

Run with the adapter's interpreter (``.venv/bin/python recursion_table.py``).

CPython raises ``RecursionError`` at a nesting depth that depends on how deep
the caller's stack is.  The driver's rule is that every op behaves as if the
package function were called from a script's module-level frame with the
default limit of 1000.  This script checks that rule end to end: for each case
it finds, by bisection, the deepest nesting ``d`` that still works when the
package is called **from this file's module-level frame** (the loop below is
deliberately not inside a function), then finds the same boundary through
``./run``, prints the table that README.md reproduces, and exits 1 if any
boundary differs.

``d`` is the number of nested ``[`` in the innermost value.
"""

import os
import sys

from praisonaiagents import Agent
from praisonaiagents.llm.adapters import get_provider_adapter

from protocol_client import DriverProcess

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = [{"type": "function", "function": {"name": "a", "description": "",
                                           "parameters": {"type": "object", "properties": {}}}}]


def nest(d):
    return "[" * d + "]" * d


def nested_list(d):
    """``nest(d)`` as a Python value, built without recursion."""
    value = []
    for _ in range(d - 1):
        value = [value]
    return value


def f(x):
    """The tool of the execute case: a plain function, as a user would write it."""
    return {"tool": "f", "kwargs": {"x": x}}


# (op, case, protocol input for nesting d).  Module-level calls read the same input.
CASES = [
    ("salvage", "whole-content dict `{\"name\",\"arguments\": D}`",
     lambda d: {"content": '{"name":"a","arguments":' + nest(d) + '}'}),
    ("salvage", "whole-content list `[{\"name\",\"arguments\": D}]`",
     lambda d: {"content": '[{"name":"a","arguments":' + nest(d) + '}]'}),
    ("salvage", "`<tool_call>{\"name\",\"arguments\": D}</tool_call>`",
     lambda d: {"content": '<tool_call>{"name":"a","arguments":' + nest(d) + '}</tool_call>'}),
    ("salvage", "`[TOOL_CALL]{\"name\",\"arguments\": D}[/TOOL_CALL]`",
     lambda d: {"content": '[TOOL_CALL]{"name":"a","arguments":' + nest(d) + '}[/TOOL_CALL]'}),
    ("salvage", "`<function=a>{\"x\": D}</function>`",
     lambda d: {"content": '<function=a>{"x":' + nest(d) + '}</function>'}),
    ("salvage", "`<|python_tag|>{\"name\",\"arguments\": D}`",
     lambda d: {"content": '<|python_tag|>{"name":"a","arguments":' + nest(d) + '}'}),
    ("salvage", "ReAct `Action: a` / `Action Input: {\"x\": D}`",
     lambda d: {"content": 'Action: a\nAction Input: {"x":' + nest(d) + '}'}),
    ("execute", "`f(x)` called with `{\"x\": D}`",
     lambda d: {"call": {"name": "f", "arguments": {"x": nested_list(d)}}}),
    ("format_result", "`tool_result` D, adapter `default`",
     lambda d: {"adapter": "default", "tool_result": nested_list(d)}),
    ("format_result", "`tool_result` D, adapter `ollama`",
     lambda d: {"adapter": "ollama", "tool_result": nested_list(d)}),
]


def protocol_input(op, partial):
    """The full protocol input of a case."""
    if op == "salvage":
        return {"content": partial["content"], "tools": ["a"], "adapter": "ollama"}
    if op == "execute":
        return {"tools": [{"name": "f", "params": [{"name": "x"}]}], "call": partial["call"]}
    return {"adapter": partial["adapter"], "function_name": "f",
            "tool_result": partial["tool_result"]}


def failure_of_answer(op, answer):
    """The failure text of a driver answer, or None when the op worked."""
    output = answer["output"]
    if "error" in output:
        return output["error"]
    if op == "execute" and "approval_error" in output["returned"]:
        return output["returned"]["error"]
    return None


def bisect(works, lo=1, hi=2000):
    """Largest d in [lo, hi) with works(d) true, assuming monotonicity."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if works(mid):
            lo = mid
        else:
            hi = mid
    return lo


# ---- module level: every package call below is made from this frame --------
AGENT = Agent(name="toolfix", instructions="recursion table", tools=[f], approval=False)
AGENT._perm_deny = frozenset()
os.environ["PRAISONAI_AUTO_APPROVE"] = "true"
module_level = {}
for op, case, make in CASES:
    lo, hi, failure = 1, 2000, None
    while hi - lo > 1:
        d = (lo + hi) // 2
        partial = make(d)
        try:
            if op == "salvage":
                result = get_provider_adapter("ollama").recover_tool_calls_from_text(
                    partial["content"], TOOLS)
                failed = None
            elif op == "execute":
                result = AGENT._execute_tool_impl("f", partial["call"]["arguments"])
                failed = result["error"] if "approval_error" in result else None
            else:
                result = get_provider_adapter(partial["adapter"]).format_tool_result_message(
                    "f", partial["tool_result"], None)
                failed = None
        except RecursionError as exc:
            failed = f"RecursionError: {exc}"
        if failed is None:
            lo = d
        else:
            hi, failure = d, failed
    module_level[case] = (lo, failure)
# ------------------------------------------------------------------------------


def main():
    driver = DriverProcess([os.path.join(HERE, "run")])
    mismatches = 0
    try:
        driver.hello()
        print("| op | case | module level: last OK d | through the driver | error at d+1 |")
        print("|---|---|---|---|---|")
        for op, case, make in CASES:
            def works(d, op=op, make=make):
                return failure_of_answer(op, driver.run(op, protocol_input(op, make(d)))) is None
            via_driver = bisect(works)
            expected, failure = module_level[case]
            failure_driver = failure_of_answer(
                op, driver.run(op, protocol_input(op, make(via_driver + 1))))
            same = via_driver == expected and failure_driver == failure
            mismatches += not same
            print(f"| {op} | {case} | {expected} | {via_driver}{'' if same else ' MISMATCH'} "
                  f"| {failure} |")
    finally:
        driver.close()
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
