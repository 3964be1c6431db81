#!/usr/bin/env python3
"""Compare two toolfix protocol-v1 implementations on generated inputs.

    scripts/differential.py --a 'target/release/toolfix serve' --b adapters/praisonai/run \\
        [--op salvage|execute|format_result|all] [--count N] [--seed S] \\
        [--profile-check] [--save-diffs FILE] [--replay FILE]

Both commands are started once and sent the same requests, one at a time.
Every input whose answers differ is reported with both answers, followed by
counts per op and per generator family; the exit status is 1 on any
difference (or a crash, a timeout, or, with --profile-check, a handshake
mismatch).  --save-diffs writes the differing cases as JSON lines, which
--replay sends again after a fix.

The inputs are not random bytes: each op has generator families that compose
inputs from the grammar the real package parses (the six salvage dialects,
Python signatures and call shapes, tool results), then mutate them where the
docs/behaviour.md says implementations go wrong (Unicode case folds, Python's
whitespace set, fences, duplicate keys, non-finite numbers, recursion depth,
4300-digit integers, difflib near misses, kwarg sanitising, deny-list drift).
Case i of op X with seed S is generated from its own Random("S/X/i"), so one
case can be regenerated without the others.

Answers are compared as JSON values, except that salvage ``{"error": S}``
outputs compare only the exception class name (docs/protocol.md). An ``errored``
answer (the implementation refused the input) agrees with another only in the
families that generate malformed inputs on purpose (``REFUSED_ON_PURPOSE``);
anywhere else two ``errored`` answers are counted apart and fail the run like a
difference. ``--min-compared N`` fails the run when fewer
than N cases were answered by both with an output, so a run that quietly sends
nothing (an undeclared op, a broken generator) cannot pass.
Standard library only.
"""

import argparse
import json
import os
import random
import selectors
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

OPS = ("salvage", "execute", "format_result")
ADAPTERS = ("ollama", "local", "default", "anthropic", "gemini")
# Protocol lines in the recursion families nest past the default limit, and
# the huge-integer family needs integers longer than 4300 digits.
sys.setrecursionlimit(20000)
sys.set_int_max_str_digits(0)


# ===========================================================================
# Talking to an implementation
# ===========================================================================

class DriverFailure(Exception):
    """The implementation crashed, hung, or wrote something that is not an answer."""


class Implementation:
    """One implementation under comparison: a command speaking protocol v1.

    A crash or a timeout is turned into the answer of the case that caused it
    and the process is restarted, so one bad input does not end the run.
    """

    def __init__(self, label, command, timeout):
        self.label = label
        self.argv = shlex.split(command)
        self.command = command
        self.timeout = timeout
        self.proc = None
        self.hello = None
        self.restarts = 0
        self._stderr = None
        self._buffer = b""
        self.start()

    def start(self):
        self._stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr)
        except OSError as exc:
            sys.exit(f"differential: cannot start {self.label} ({self.command}): {exc}")
        self._buffer = b""
        self.hello = self._exchange({"cmd": "hello", "protocol": 1}, timeout=max(self.timeout, 600))

    def stop(self):
        if self.proc is None:
            return
        try:
            self.proc.stdin.write(b'{"cmd": "stop"}\n')
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        self._stderr.close()
        self.restarts += 1
        self.start()

    def stderr_tail(self, limit=2000):
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-limit:]

    def send(self, request):
        """Write one request line; the answer is collected by ``receive``."""
        try:
            self.proc.stdin.write(encode(request) + b"\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise DriverFailure(f"write failed: {exc}") from None

    def receive(self, timeout=None):
        """Read one answer line within the timeout."""
        deadline = time.monotonic() + (timeout or self.timeout)
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise DriverFailure(f"no answer within {timeout or self.timeout:g} s")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise DriverFailure(f"exited (status {self.proc.poll()}); stderr:\n"
                                        f"{self.stderr_tail()}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            raise DriverFailure(f"wrote a line that is not JSON: {line[:200]!r}") from None
        if not isinstance(answer, dict):
            raise DriverFailure(f"wrote a non-object answer: {line[:200]!r}")
        return answer

    def _exchange(self, request, timeout=None):
        try:
            self.send(request)
            return self.receive(timeout)
        except DriverFailure as exc:
            sys.exit(f"differential: {self.label} ({self.command}) failed the handshake: {exc}")


def encode(value):
    """One protocol line: ASCII JSON, non-finite floats refused (they travel as $float)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False).encode("ascii")


def exchange_both(impls, request):
    """Send one request to every implementation, then collect each answer."""
    sent = {}
    for impl in impls:
        try:
            impl.send(request)
            sent[impl.label] = None
        except DriverFailure as exc:
            sent[impl.label] = exc
    answers = {}
    for impl in impls:
        failure = sent[impl.label]
        if failure is None:
            try:
                answers[impl.label] = impl.receive()
                continue
            except DriverFailure as exc:
                failure = exc
        answers[impl.label] = {"driver_failure": str(failure)}
        impl.restart()
    return answers


# ===========================================================================
# Comparing answers
# ===========================================================================

def comparable(answer, seq):
    """The part of an answer two implementations must agree on."""
    if "driver_failure" in answer:
        return ("driver_failure",)
    if answer.get("seq") != seq:
        return ("answer for another seq", json.dumps(answer.get("seq")))
    if "errored" in answer:
        return ("errored",)
    if "skipped" in answer:
        return ("skipped",)
    if "output" not in answer:
        return ("malformed answer", json.dumps(answer, sort_keys=True))
    output = answer["output"]
    if isinstance(output, dict) and set(output) == {"error"} and isinstance(output["error"], str):
        # The package raising: only the exception class is pinned (docs/protocol.md).
        return ("raised", output["error"].split(":", 1)[0])
    return ("output", json.dumps(output, sort_keys=False, ensure_ascii=True))


# The generator families whose inputs are malformed on purpose: refusing them (both
# drivers answering ``errored``) is the agreement expected there, and only there.
REFUSED_ON_PURPOSE = {("execute", "invalid_signature")}


def judge(answers, seq, op, family):
    """The outcome of one case from both answers."""
    left, right = (comparable(answer, seq) for answer in answers)
    if left != right or left[0] in ("driver_failure", "answer for another seq", "malformed answer"):
        return "different"
    if left[0] == "errored":
        return "same" if (op, family) in REFUSED_ON_PURPOSE else "both errored"
    return "skipped" if left[0] == "skipped" else "same"


class Tally:
    """Counts per op and per generator family."""

    FIELDS = ("cases", "same", "different", "both errored", "skipped", "not sent")

    def __init__(self):
        self.by_op = defaultdict(Counter)
        self.by_family = defaultdict(Counter)

    def add(self, op, family, outcome):
        for counter in (self.by_op[op], self.by_family[(op, family)]):
            counter["cases"] += 1
            counter[outcome] += 1

    def lines(self):
        out = []
        for op in OPS:
            if op not in self.by_op:
                continue
            out.append(f"{op}: " + self._fmt(self.by_op[op]))
            for (fop, family), counter in sorted(self.by_family.items()):
                if fop == op:
                    out.append(f"    {family:<22} " + self._fmt(counter))
        return out

    def _fmt(self, counter):
        return ", ".join(f"{counter[f]} {f}" for f in self.FIELDS if counter[f] or f == "different")


def shorten(text, limit):
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


# ===========================================================================
# Generators: shared vocabulary
# ===========================================================================

# Python's str.isspace() set is what str.strip(), \s and _json_object_at skip;
# \x1c-\x1f are in it but not in Unicode White_Space.  U+FEFF is in neither.
PY_SPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0",
            "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_SPACE = ["\ufeff", "\u200b", "\x00"]
JSON_SPACE = ["", "", "", " ", "\n", "\t", "\r\n", "  "]

PROSE = [
    "Sure, let me look that up.", "I'll check that for you.", "Here is what I found:",
    "The transaction was approved.", "That was an interesting reaction.", "Next action: none.",
    "Action items are listed below.", "This is actionable advice.", "Let me think about it.",
    "Café prices rose 3% — see the table.", "日本語のテキストです。", "Result: 42",
    "You can call <tool_call> tags in your reply.", "Use [TOOL_CALL] blocks.",
    "The <function=...> syntax is documented.", "Respond with JSON like {\"name\": ...}.",
    "ACTION: rest", "transaction: pending", "No tool is needed here.", "Done!",
]

TOOL_NAMES = ["get_weather", "web_search", "search", "get_time", "delete_user", "read_file",
              "send_email", "calculator", "get_stock_price", "lookup", "a", "f", "x1",
              "kelvin_temp", "wire_transfer", "translate-text"]
HALLUCINATED = ["wire_transfer", "rm_rf", "transfer_funds", "admin_login", "unknown_tool", "Search"]


def drift(rng, name):
    """A spelling of ``name`` that only name normalisation (case/_/-/space) can repair."""
    parts = [p for p in name.replace("-", "_").split("_") if p]
    choice = rng.randrange(8)
    if choice == 0:
        return "".join(p[:1].upper() + p[1:] for p in parts)            # WebSearch
    if choice == 1:
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])  # webSearch
    if choice == 2:
        return "-".join(parts)                                         # web-search
    if choice == 3:
        return name.upper()
    if choice == 4:
        return " " + " ".join(p.title() for p in parts) + "_ "          # ' Web Search_ '
    if choice == 5:
        return "__" + name + "--"
    if choice == 6:
        return name.replace("_", "\t")                                  # not repaired: \t is kept
    return name.replace("_", ".")                                       # not repaired: . is kept


def near_miss(rng, name):
    """A one-edit typo of ``name`` (difflib ratio usually >= 0.5)."""
    if not name:
        return "x"
    i = rng.randrange(len(name))
    edit = rng.randrange(3)
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz_")
    if edit == 0:
        return name[:i] + name[i + 1:]
    if edit == 1:
        return name[:i] + letter + name[i:]
    return name[:i] + letter + name[i + 1:]


def fold_case(rng, text):
    """Case mutations of a tag word, including the folds only Python's re.I knows."""
    choice = rng.randrange(10)
    if choice < 4:
        return text
    if choice == 4:
        return text.upper()
    if choice == 5:
        return text.title()
    if choice == 6:
        return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in text)
    folds = {"i": ["İ", "ı"], "I": ["İ", "ı"], "s": ["ſ"], "S": ["ſ"], "k": ["K"], "K": ["K"]}
    chars = list(text)
    spots = [i for i, ch in enumerate(chars) if ch in folds]
    for i in rng.sample(spots, min(len(spots), rng.randint(1, 2))):
        chars[i] = rng.choice(folds[chars[i]])
    return "".join(chars)


def py_space(rng, allow_empty=True):
    """A run of Python whitespace (sometimes empty, sometimes with a non-space)."""
    roll = rng.random()
    if allow_empty and roll < 0.45:
        return ""
    if roll < 0.75:
        return rng.choice([" ", "\n", "\n\n", "\t", " \n"])
    run = "".join(rng.choice(PY_SPACE) for _ in range(rng.randint(1, 3)))
    if roll > 0.95:
        run += rng.choice(NOT_SPACE)
    return run


# ===========================================================================
# Generators: JSON text (salvage payloads are text, so they can hold what a
# JSON library would never write: duplicate keys, NaN, 1e400, bad escapes)
# ===========================================================================

NUMBERS = ["0", "-0", "1", "42", "-7", "1.0", "1E2", "1e16", "1.5e-7", "-0.0", "0.1", "3.14",
           "123456789.123456789", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
           "12345678901234567890123456789", "9007199254740993", "1e-400", "2.5E+3"]
STRING_PIECES = ["Paris", "Berlin", "hello", "", " ", "42", "true", "null", "caf\\u00e9", "café",
                 "日本", "\\ud800", "\\udfff", "\\ud83d\\ude00", "😀", "\\n", "\\t", "\\\"", "\\\\",
                 "\\/", "```rm -rf```", "~~~", "```", "}</tool_call>", "<tool_call>", "</function>",
                 "[/TOOL_CALL]", "Action: search", "{\\\"name\\\": \\\"search\\\"}", "a b", "\\u0000",
                 "\u007f", "\\u2028", "\u2028", "\xa0", "İ", "ſ", "K"]
ARG_KEYS = ["city", "query", "id", "q", "path", "text", "n", "units", "limit", "to", "amount"]


class JsonText:
    """Random JSON-ish text built from the grammar, with Python json's extensions."""

    def __init__(self, rng):
        self.rng = rng

    def ws(self):
        return self.rng.choice(JSON_SPACE)

    def string(self):
        pieces = [self.rng.choice(STRING_PIECES) for _ in range(self.rng.randint(1, 3))]
        return '"' + "".join(pieces) + '"'

    def number(self):
        return self.rng.choice(NUMBERS)

    def scalar(self):
        roll = self.rng.random()
        if roll < 0.45:
            return self.string()
        if roll < 0.8:
            return self.number()
        return self.rng.choice(["true", "false", "null"])

    def value(self, depth=0):
        roll = self.rng.random()
        if depth < 3 and roll < 0.2:
            return self.obj([(self.rng.choice(ARG_KEYS), self.value(depth + 1))
                             for _ in range(self.rng.randint(0, 3))])
        if depth < 3 and roll < 0.3:
            items = [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]
            return "[" + ("," + self.ws()).join(items) + "]"
        return self.scalar()

    def obj(self, pairs):
        """An object from (key, value-text) pairs, keys repeated verbatim if given twice."""
        sep = self.rng.choice([", ", ",", ",\n"])
        colon = self.rng.choice([": ", ":", " : "])
        body = sep.join(f"{json.dumps(k)}{colon}{v}" for k, v in pairs)
        return "{" + self.ws() + body + self.ws() + "}"

    def arguments(self):
        """An arguments object, sometimes with a duplicate key."""
        pairs = [(self.rng.choice(ARG_KEYS), self.value(1)) for _ in range(self.rng.randint(0, 3))]
        if pairs and self.rng.random() < 0.1:
            pairs.append((pairs[0][0], self.value(1)))
        return self.obj(pairs)


# ===========================================================================
# Generators: salvage
# ===========================================================================

class SalvageCase:
    """Builds one salvage input: content, offered tools, adapter, dialects used."""

    def __init__(self, rng):
        self.rng = rng
        self.json = JsonText(rng)
        self.offered = rng.sample(TOOL_NAMES, rng.randint(1, 5))
        self.dialects = set()

    # --- names and payloads -------------------------------------------------

    def name(self):
        roll = self.rng.random()
        if roll < 0.7:
            return self.rng.choice(self.offered)
        if roll < 0.85:
            return self.rng.choice(HALLUCINATED)
        return drift(self.rng, self.rng.choice(self.offered))

    def args_value(self):
        roll = self.rng.random()
        if roll < 0.75:
            return self.json.arguments()
        if roll < 0.8:
            return "null"
        if roll < 0.85:
            return self.json.number()
        if roll < 0.9:
            return json.dumps(self.json.arguments())      # stringified arguments
        if roll < 0.95:
            return self.rng.choice(["true", "false", '"x"', "[]", "[1, 2]"])
        # A call nested inside the arguments of another.
        return self.json.obj([("name", json.dumps(self.name())), ("arguments", self.json.arguments())])

    def payload(self, name=None, args=None):
        """A call object ``{"name"|"tool": ..., "arguments"|"parameters": ...}`` as text."""
        name = self.name() if name is None else name
        name_text = json.dumps(name)
        if self.rng.random() < 0.04:
            name_text = self.rng.choice(["42", "null", "true", '["x"]', '{"a": 1}', '""'])
        pairs = []
        roll = self.rng.random()
        if roll < 0.75:
            pairs.append(("name", name_text))
        elif roll < 0.88:
            pairs.append(("tool", name_text))
        elif roll < 0.94:
            pairs += [("name", '""'), ("tool", name_text)]
        else:
            pairs += [("name", json.dumps(self.rng.choice(HALLUCINATED))), ("name", name_text)]
        args = self.args_value() if args is None else args
        roll = self.rng.random()
        if roll < 0.7:
            pairs.append(("arguments", args))
        elif roll < 0.85:
            pairs.append(("parameters", args))
        elif roll < 0.92:
            pairs += [("parameters", self.json.arguments()), ("arguments", args)]
        if self.rng.random() < 0.5:
            self.rng.shuffle(pairs)
        return self.json.obj(pairs)

    # --- dialects -----------------------------------------------------------

    def whole(self):
        self.dialects.add("whole_json")
        if self.rng.random() < 0.35:
            items = [self.payload() if self.rng.random() < 0.8 else self.json.value(1)
                     for _ in range(self.rng.randint(0, 3))]
            body = "[" + ", ".join(items) + "]"
        else:
            body = self.payload()
        return py_space(self.rng) + body + py_space(self.rng)

    def tool_call(self, payload=None):
        self.dialects.add("tool_call")
        tag = fold_case(self.rng, "tool_call")
        close = tag if self.rng.random() < 0.8 else fold_case(self.rng, "tool_call")
        return (f"<{tag}>" + py_space(self.rng) + (payload or self.payload()) + py_space(self.rng)
                + f"</{close}>")

    def function(self, args=None, name=None):
        self.dialects.add("function")
        word = fold_case(self.rng, "function")
        name = name or self.name()
        if self.rng.random() < 0.1:
            name = fold_case(self.rng, name) if self.rng.random() < 0.5 else name + ".v2"
        return (f"<{word}={name}>" + py_space(self.rng) + (args or self.args_value())
                + py_space(self.rng) + f"</{fold_case(self.rng, 'function')}>")

    def bracket(self, payload=None):
        self.dialects.add("bracket")
        opener = self.rng.choice(["TOOL_CALL", "TOOL_REQUEST"])
        closer = self.rng.choice(["/TOOL_CALL", "END_TOOL_REQUEST"])  # crossed pairs match too
        return (f"[{fold_case(self.rng, opener)}]" + py_space(self.rng) + (payload or self.payload())
                + py_space(self.rng) + f"[{fold_case(self.rng, closer)}]")

    def python_tag(self, payload=None):
        self.dialects.add("python_tag")
        tag = "<|" + fold_case(self.rng, "python_tag") + "|>"
        body = payload or self.payload()
        if self.rng.random() < 0.1:
            body = self.rng.choice(["[1, 2]", "not json", "", body[: len(body) // 2]])
        return tag + py_space(self.rng) + body + self.rng.choice(["", " trailing text", "\n"])

    def react(self, args=None, name=None):
        self.dialects.add("react")
        before = self.rng.choice(["", "", "Thought: I should look it up.\n", "trans", "_", "-",
                                  "\u00b2", "\u0301", "\u200d", "\u24b6"])
        action = fold_case(self.rng, "Action")
        gap = self.rng.choice(["\n", " ", "", "\n\n"])
        input_word = self.rng.choice(["Action Input", "ActionInput", "Action  Input"])
        body = args or self.args_value()
        if self.rng.random() < 0.1:
            body = self.rng.choice(["[1]", "none", '"x"'])
        return (before + action + self.rng.choice([":", " :", ": "]) + py_space(self.rng)
                + (name or self.name()) + gap + fold_case(self.rng, input_word) + ":" + py_space(self.rng)
                + body)

    def any_embedded(self):
        return self.rng.choice([self.tool_call, self.function, self.bracket, self.python_tag,
                                self.react])()

    # --- prose, fences, think blocks ----------------------------------------

    def prose(self):
        return " ".join(self.rng.choice(PROSE) for _ in range(self.rng.randint(1, 3)))

    def fenced(self, inner):
        opener = self.rng.choice(["```", "```", "~~~", "````", "```json", "~~~~"])
        closer = opener.removesuffix("json")
        roll = self.rng.random()
        if roll < 0.5:
            return f"{opener}\n{inner}\n{closer}"
        if roll < 0.65:
            return f"{opener}\n{inner}"                                  # unclosed
        if roll < 0.8:
            return f"see {closer}{inner}{closer} inline"                  # inline fence
        if roll < 0.9:
            return f"{opener}\n{inner}\n{self.rng.choice(['```', '~~~'])}"  # maybe mismatched closer
        return f"{opener}{closer}\n{inner}"                                # empty fence, then the call

    def think(self, inner):
        return f"<think>{inner}</think>"

    def compose(self, pieces):
        return self.rng.choice(["\n", " ", "\n\n", ""]).join(pieces)

    def maybe_truncate(self, text, chance):
        if text and self.rng.random() < chance:
            return text[: self.rng.randrange(len(text))]
        return text

    # --- offered tool lists -------------------------------------------------

    def tools(self):
        tools = list(self.offered)
        if self.rng.random() < 0.12:
            odd = self.rng.choice([
                {"$raw": self.rng.choice(self.offered)}, {"name": self.rng.choice(HALLUCINATED)},
                {"function": {"name": self.rng.choice(TOOL_NAMES)}}, {"function": None},
                {"function": {"name": 5}}, {"function": {}}, 42, None, [], "",
                {"type": "function", "function": {"name": ""}}])
            tools.insert(self.rng.randrange(len(tools) + 1), odd)
        if self.rng.random() < 0.03:
            tools = []
        return tools


def _salvage_whole_object(case):
    return case.whole()


def _salvage_whole_array(case):
    case.dialects.add("whole_json")
    items = [case.payload() for _ in range(case.rng.randint(1, 3))]
    if case.rng.random() < 0.3:
        items.insert(0, case.rng.choice(["1", '"x"', '{"x": 1}', "null"]))
    return py_space(case.rng) + "[" + ",".join(items) + "]" + py_space(case.rng)


def _salvage_whole_variants(case):
    """Whole-content JSON that must fall through: concatenated, fenced, BOM, prose-wrapped."""
    case.dialects.add("whole_json")
    body = case.payload()
    return case.rng.choice([body + body, case.fenced(body), "\ufeff" + body, body + " thanks",
                            case.prose() + " " + body, body.replace('"name"', '"Name"')])


def _salvage_single(method):
    def family(case):
        pieces = [getattr(case, method)()]
        if case.rng.random() < 0.7:
            pieces.insert(0, case.prose())
        if case.rng.random() < 0.3:
            pieces.append(case.prose())
        return case.compose(pieces)
    return family


def _salvage_repeated(case):
    """Several calls of one dialect, in order."""
    method = case.rng.choice([case.tool_call, case.function, case.bracket, case.python_tag, case.react])
    return case.compose([case.prose()] + [method() for _ in range(case.rng.randint(2, 4))])


def _salvage_interleaved(case):
    return case.compose([case.any_embedded() if case.rng.random() < 0.75 else case.prose()
                         for _ in range(case.rng.randint(2, 5))])


def _salvage_fenced(case):
    pieces = [case.prose(), case.fenced(case.any_embedded())]
    if case.rng.random() < 0.5:
        pieces.append(case.any_embedded())
    if case.rng.random() < 0.3:
        pieces.reverse()
    return case.compose(pieces)


def _salvage_think(case):
    pieces = [case.think(case.compose([case.prose(), case.any_embedded()]))]
    if case.rng.random() < 0.6:
        pieces.append(case.any_embedded())
    return case.compose(pieces)


def _salvage_nested(case):
    """Calls quoted inside other calls' strings or arguments: span reservation."""
    inner = case.any_embedded()
    args = case.json.obj([("note", json.dumps(inner)), (case.rng.choice(ARG_KEYS), case.json.value(1))])
    outer = case.rng.choice([
        lambda: case.tool_call(case.payload(args=args)), lambda: case.function(args),
        lambda: case.bracket(case.payload(args=args)), lambda: case.python_tag(case.payload(args=args)),
        lambda: case.react(args)])()
    return case.compose([case.prose(), outer, case.any_embedded() if case.rng.random() < 0.4 else ""])


def _salvage_cut_inside_string(case):
    """`}</tool_call>` (or a closer) inside a string argument: the lazy match cuts the JSON."""
    closer = case.rng.choice(["}</tool_call>", "}</function>", "}[/TOOL_CALL]", "} [END_TOOL_REQUEST]"])
    args = case.json.obj([("text", json.dumps("a " + closer + " b"))])
    return case.compose([case.prose(), case.rng.choice([
        lambda: case.tool_call(case.payload(args=args)), lambda: case.function(args),
        lambda: case.bracket(case.payload(args=args))])()])


def _salvage_truncated(case):
    text = case.compose([case.prose(), case.any_embedded(), case.any_embedded()])
    return case.maybe_truncate(text, 1.0)


def _salvage_prose(case):
    return case.compose([case.prose() for _ in range(case.rng.randint(1, 4))])


def _salvage_deep(case):
    """Nesting around the recursion boundary (RecursionError escapes the package)."""
    depth = case.rng.randint(984, 1000)
    args = case.rng.choice(["[" * depth + "]" * depth, "{\"x\": " + "[" * depth + "]" * depth + "}"])
    name = case.rng.choice(case.offered)
    dialect = case.rng.choice(["whole", "tool_call", "bracket", "python_tag", "function", "react"])
    if dialect == "whole":
        case.dialects.add("whole_json")
        return case.json.obj([("name", json.dumps(name)), ("arguments", args)])
    if dialect in ("function", "react"):
        as_object = args if args.startswith("{") else "{\"x\": " + args + "}"
        return getattr(case, dialect)(as_object, name=name)
    return getattr(case, dialect)(case.payload(name=name, args=args))


def _salvage_huge_int(case):
    """Integers around CPython's 4300-digit str->int limit (ValueError escapes)."""
    digits = case.rng.choice([4299, 4300, 4301, 5000])
    args = case.json.obj([("n", "9" * digits)])
    dialect = case.rng.choice(["whole", "tool_call", "bracket", "python_tag", "react"])
    if dialect == "whole":
        case.dialects.add("whole_json")
        return case.payload(name=case.rng.choice(case.offered), args=args)
    if dialect == "react":
        return case.react(args)
    return getattr(case, dialect)(case.payload(name=case.rng.choice(case.offered), args=args))


SALVAGE_FAMILIES = {
    "whole_object": _salvage_whole_object,
    "whole_array": _salvage_whole_array,
    "whole_variants": _salvage_whole_variants,
    "tool_call": _salvage_single("tool_call"),
    "function": _salvage_single("function"),
    "bracket": _salvage_single("bracket"),
    "python_tag": _salvage_single("python_tag"),
    "react": _salvage_single("react"),
    "repeated": _salvage_repeated,
    "interleaved": _salvage_interleaved,
    "fenced": _salvage_fenced,
    "think": _salvage_think,
    "nested": _salvage_nested,
    "cut_inside_string": _salvage_cut_inside_string,
    "truncated": _salvage_truncated,
    "prose": _salvage_prose,
    "deep": _salvage_deep,
    "huge_int": _salvage_huge_int,
}
RARE_FAMILIES = {"deep": 0.25, "huge_int": 0.25}


def pick_family(rng, families):
    """A family name; the expensive boundary families are drawn less often."""
    names = list(families)
    weights = [RARE_FAMILIES.get(name, 1.0) for name in names]
    return rng.choices(names, weights)[0]


def generate_salvage(rng):
    family = pick_family(rng, SALVAGE_FAMILIES)
    case = SalvageCase(rng)
    content = SALVAGE_FAMILIES[family](case)
    if family not in ("truncated", "deep", "huge_int"):
        content = case.maybe_truncate(content, 0.05)
    adapter = rng.choices(ADAPTERS, [5, 3, 1, 1, 1])[0]
    inp = {"content": content, "tools": case.tools(), "adapter": adapter}
    return family, inp, sorted(case.dialects)


# ===========================================================================
# Generators: execute
# ===========================================================================

REGISTRY_NAMES = ["web_search", "websearch", "Web_Search", "get_weather", "getWeather", "read_file",
                  "write_file", "delete_file", "send-email", "calculator", "lookup", "search",
                  "translate_text", "İnfo", "straße", "it's", 'say "hi"', "web.search", "web\tsearch",
                  "x", "network_scan", "fetch_url", "kill_process", "execute_command"]
PARAM_NAMES = ["query", "limit", "city", "path", "x", "y", "id", "content", "text", "n", "timeout",
               "Query", "QUERY", "my param", "class", "İd", "a", "b", "units", "verbose"]
RAISE_TYPES = ["ValueError", "TypeError", "KeyError", "RuntimeError", "AttributeError", "IndexError",
               "LookupError", "OSError", "PermissionError", "TimeoutError", "ConnectionError",
               "NotImplementedError", "ZeroDivisionError", "Exception"]
RAISE_MESSAGES = ["query must not be empty", "card declined", "connection reset by peer", "",
                  "missing", "rate limit exceeded", "unexpected keyword argument 'q'", "naïve ✓"]


HUGE_INT = int("9" * 4400)  # past CPython's 4300-digit str<->int limit


def wire_value(rng, depth=0):
    """A protocol value (wrappers included) for arguments, defaults and returns."""
    roll = rng.random()
    if depth < 2 and roll < 0.1:
        return {rng.choice(ARG_KEYS): wire_value(rng, depth + 1) for _ in range(rng.randint(0, 2))}
    if depth < 2 and roll < 0.18:
        return [wire_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice([
        "hello", "", "Paris", "café ✓", "5", "true", "\ud800", "line\nbreak", 0, 1, -3, 5, 10 ** 30,
        2 ** 63, 1.5, 1e16, 1.5e-7, -0.0, 0.0, True, False, None, {"$float": "nan"},
        {"$float": "inf"}, {"$opaque": "{1, 2, 3}"}, {"$opaque": "2024-01-02 03:04:05"}, [], {},
        HUGE_INT if rng.random() < 0.1 else 7])


def format_safe(name):
    """Whether ``{name}`` is a plain str.format field for this parameter name."""
    return name and not any(ch in name for ch in "{}[].!:") and not name.isdigit()


class ExecuteCase:
    """Builds one execute input: a registry, a call, maybe a deny list."""

    def __init__(self, rng):
        self.rng = rng

    def params(self):
        """A valid Python parameter list (kinds in order, defaults after required)."""
        rng = self.rng
        names = rng.sample(PARAM_NAMES, rng.randint(0, 4))
        params, optional_seen = [], False
        order = {"positional_only": 0, "positional_or_keyword": 1, "keyword_only": 3}
        kinds = sorted((rng.choice(["positional_or_keyword"] * 4 + ["positional_only", "keyword_only"])
                        for _ in names), key=order.get)
        for name, kind in zip(names, kinds):
            param = {"name": name}
            if kind != "positional_or_keyword" or rng.random() < 0.2:
                param["kind"] = kind
            optional = rng.random() < 0.35 or (optional_seen and kind != "keyword_only")
            if optional:
                param["required"] = False
                if rng.random() < 0.8:
                    param["default"] = wire_value(rng, 1)
                optional_seen = optional_seen or kind != "keyword_only"
            elif rng.random() < 0.1:
                param["required"] = True
            params.append(param)
        if rng.random() < 0.15:
            star = {"name": rng.choice(["args", "rest", "*"]), "kind": "var_positional"}
            split = next((i for i, p in enumerate(params) if p.get("kind") == "keyword_only"), len(params))
            params.insert(split, star)
        if rng.random() < 0.2:
            params.append({"name": rng.choice(["kwargs", "extra", "opts"]), "kind": "var_keyword"})
        return params

    def tool(self, name):
        rng = self.rng
        params = self.params()
        tool = {"name": name, "params": params}
        plain = [p["name"] for p in params]
        roll = rng.random()
        if roll < 0.3 and plain:
            target = rng.choice(plain)
            field = target if format_safe(target) else "missing"
            tool["returns_template"] = rng.choice([f"results for {{{field}}}", f"{name}: {{{field}}}!",
                                                   "{missing}", "{0}", "constant"])
        elif roll < 0.45:
            tool["returns"] = rng.choice([wire_value(rng), {"error": "card declined"},
                                          [{"error": "boom"}], None, "ok"])
        if rng.random() < 0.25:
            spec = {"type": rng.choice(RAISE_TYPES), "message": rng.choice(RAISE_MESSAGES)}
            if plain and rng.random() < 0.6:
                spec["if_falsy"] = rng.choice(plain)
            tool["raise"] = spec
        return tool

    def registry(self):
        rng = self.rng
        names = [rng.choice(REGISTRY_NAMES) for _ in range(rng.randint(0, 12))]
        if names and rng.random() < 0.15:
            names.append(rng.choice(names))                               # duplicate tool
        entries = [self.tool(name) for name in names]
        if rng.random() < 0.25:
            group = {"mcp": rng.choice(["files", "fetch", "db"]),
                     "tools": [self.tool(rng.choice(["read_file", "write_file", "fetch", "query_db",
                                                     "web_search", "list_dir"]))
                               for _ in range(rng.randint(1, 3))]}
            entries.insert(rng.randrange(len(entries) + 1), group)
        return entries

    @staticmethod
    def all_tools(registry):
        for entry in registry:
            if "mcp" in entry:
                yield from entry["tools"]
            else:
                yield entry

    def arguments(self, tool, mode):
        """Arguments for ``tool``: binding, or broken the way ``mode`` says."""
        rng = self.rng
        args = {}
        for param in (tool or {}).get("params", []):
            kind = param.get("kind", "positional_or_keyword")
            if kind == "var_positional":
                continue
            if kind == "var_keyword":
                if rng.random() < 0.5:
                    args[rng.choice(["extra", "q", "query"])] = wire_value(rng)
                continue
            if param.get("required", True) or rng.random() < 0.5:
                args[param["name"]] = wire_value(rng)
        if mode == "bind_miss" and args:
            del args[rng.choice(list(args))]
        elif mode == "bind_extra":
            args[rng.choice(["q", "bogus", "querry", "limit", "self"])] = wire_value(rng)
        elif mode == "kwarg_sanitise" and args:
            key = rng.choice(list(args))
            bends = [f" {key} ", f"{key}=", f"{key} =", key.upper(), key.lower(), key.title()]
            bent = rng.choice([b for b in bends if not case_ambiguous(tool, b)])
            args = {bent if k == key else k: v for k, v in args.items()}
            if rng.random() < 0.2:
                args[key] = wire_value(rng)                                 # collides after sanitising
        elif mode == "falsy":
            for key in args:
                args[key] = rng.choice(["", 0, None, [], {}, False, "x"])
        return {k: v for k, v in args.items() if not case_ambiguous(tool, k)}


def case_ambiguous(tool, key):
    """Whether the real package's pick of a parameter for ``key`` is left to ``set``
    iteration order, which varies per process: the cleaned key names no parameter exactly
    and matches several case-insensitively (docs/behaviour.md §2(c)). Such arguments are
    implementation-defined, so the generator never sends them."""
    names = [p["name"] for p in (tool or {}).get("params", []) if p["name"] != "self"]
    clean = key.strip().rstrip("=").strip()
    return clean not in names and sum(n.lower() == clean.lower() for n in names) > 1


def generate_execute(rng):
    case = ExecuteCase(rng)
    registry = case.registry()
    tools = list(case.all_tools(registry))
    names = [t["name"] for t in tools]
    family = rng.choice(["exact", "drifted", "ambiguous", "unknown", "near_miss", "non_string_name",
                         "bind_miss", "bind_extra", "kwarg_sanitise", "falsy", "mcp", "deny",
                         "invalid_signature"])
    target = rng.choice(tools) if tools else None
    name = target["name"] if target else "web_search"
    mode = family if family in ("bind_miss", "bind_extra", "kwarg_sanitise", "falsy") else None
    if family == "drifted":
        name = drift(rng, name)
    elif family == "ambiguous":
        registry += [case.tool("web_search"), case.tool(rng.choice(["websearch", "WebSearch", "web-search"]))]
        name = rng.choice(["WebSearch", "web search", "WEB_SEARCH"])
        target = None
    elif family == "unknown":
        name = rng.choice(["totally_made_up_tool", "nope", "network_scan_v2", "x" * 210,
                           "b" * 10 + "a" * 200, "tide", "diet", ""])
        target = None
    elif family == "near_miss":
        name = near_miss(rng, name)
    elif family == "non_string_name":
        name = rng.choice([42, None, True, 1.5, ["web_search"], {"name": "web_search"}, {"$float": "nan"}])
        target = None
    elif family == "mcp":
        group = {"mcp": "files", "tools": [case.tool("read_file"), case.tool("write_file")]}
        registry.insert(rng.randrange(len(registry) + 1), group)
        target = rng.choice(group["tools"])
        name = rng.choice([target["name"], drift(rng, target["name"])])
    elif family == "invalid_signature":
        target = {"name": "broken", "params": rng.choice([
            [{"name": "a", "required": False}, {"name": "b"}],
            [{"name": "a", "kind": "keyword_only"}, {"name": "b"}],
            [{"name": "a"}, {"name": "a"}],
            [{"name": "r", "kind": "var_positional"}, {"name": "s", "kind": "var_positional"}],
            [{"name": "a", "required": True, "default": 1}],
            [{"name": "k", "kind": "var_keyword", "default": {}}]])}
        registry.append(target)
        name = "broken"
    inp = {"tools": registry, "call": {"name": name, "arguments": case.arguments(target, mode)}}
    if family == "deny" or rng.random() < 0.15:
        pool = names + ["delete_file", "execute_command", "write_file", "web_search"]
        deny = [rng.choice([n, drift(rng, n)]) for n in rng.sample(pool, min(len(pool), rng.randint(1, 3)))]
        if family == "deny" and isinstance(name, str):
            deny.append(rng.choice([name, drift(rng, name)]))
        inp["deny"] = deny
    return family, inp, []


# ===========================================================================
# Generators: format_result
# ===========================================================================

def generate_format_result(rng):
    family = rng.choice(["none", "string", "scalar", "error_dict", "error_list", "plain_dict",
                         "list", "nested", "non_finite", "opaque"])
    if family == "none":
        result = None
    elif family == "string":
        result = rng.choice(["ok", "", "héllo", "日本語", "\ud800 lone", "line\nbreak", "\"quoted\"",
                             "{\"json\": \"in a string\"}", "\u2028", "tab\there"])
    elif family == "scalar":
        result = rng.choice([0, 1, -1, 10 ** 30, 1.0, 1e16, 1.5e-7, -0.0, 123456789.123456789, True, False,
                             HUGE_INT])
    elif family == "error_dict":
        result = {"error": rng.choice(["card declined", None, "", 0, ["a"], {"code": 7}, "naïve ✓",
                                       {"$float": "nan"}, {"$opaque": "{'x'}"}])}
        if rng.random() < 0.4:
            result["available_tools"] = ["web_search"]
        if rng.random() < 0.2:
            result = {"status": "failed", **result}
    elif family == "error_list":
        result = rng.choice([[{"error": "boom"}], [{"error": None}, "x"], [], [{"err": "no"}],
                             ["error"], [[{"error": "nested"}]], [{"error": "first"}, {"error": "second"}]])
    elif family == "plain_dict":
        result = {rng.choice(ARG_KEYS): wire_value(rng, 1) for _ in range(rng.randint(0, 4))}
    elif family == "list":
        result = [wire_value(rng, 1) for _ in range(rng.randint(0, 4))]
    elif family == "nested":
        result = {"data": {"items": [wire_value(rng, 1) for _ in range(3)], "meta": {"error": None}}}
    elif family == "non_finite":
        result = rng.choice([{"$float": "nan"}, {"$float": "inf"}, {"$float": "-inf"},
                             {"v": {"$float": "inf"}}, [{"$float": "-inf"}, 1]])
    else:
        opaque = {"$opaque": rng.choice(["{1, 2, 3}", "2024-01-02 03:04:05", "PosixPath('/tmp/x')",
                                         "<object at 0x0>", "", "naïve"])}
        result = rng.choice([opaque, {"when": opaque}, [opaque, 1], {"error": opaque}])
    inp = {"adapter": rng.choice(ADAPTERS),
           "function_name": rng.choice(["get_weather", "WebSearch", "charge", "日本", "it's", ""]),
           "tool_result": result}
    if rng.random() < 0.6:
        inp["tool_call_id"] = rng.choice(["call_1", "call_get_weather_0_1234", "", "tool_0_1"])
    return family, inp, []


GENERATORS = {"salvage": generate_salvage, "execute": generate_execute,
              "format_result": generate_format_result}


# ===========================================================================
# Running a comparison
# ===========================================================================

def generated_cases(ops, count, seed):
    """(op, family, index, input, dialects) for ``count`` cases of each op."""
    for op in ops:
        for index in range(count):
            rng = random.Random(f"{seed}/{op}/{index}")
            family, inp, dialects = GENERATORS[op](rng)
            yield op, family, index, inp, dialects


def replayed_cases(path):
    """The cases a previous ``--save-diffs`` run wrote."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                saved = json.loads(line)
                yield saved["op"], saved["family"], saved["index"], saved["input"], saved.get("dialects", [])


def handshake_report(impls, profile_check):
    """Print both handshakes; return the number of mismatches that count."""
    a, b = impls
    for impl in impls:
        info = impl.hello.get("implementation", {})
        print(f"{impl.label} = {impl.command}: {info.get('name')} {info.get('version')} "
              f"({info.get('language')}), profile {impl.hello.get('profile')}")
    mismatches = 0
    for key in ("protocol", "profile", "ops", "dialects"):
        left, right = a.hello.get(key), b.hello.get(key)
        if isinstance(left, list) and isinstance(right, list):
            left, right = sorted(left), sorted(right)
        if left != right:
            print(f"handshake {key} differs: a {left!r}, b {right!r}")
            mismatches += profile_check
    if a.hello.get("protocol") != 1 or b.hello.get("protocol") != 1:
        sys.exit("differential: both implementations must speak protocol 1")
    return mismatches


def declared(impls, op, dialects):
    """Whether both implementations declared the op and every dialect the case uses."""
    return all(op in impl.hello.get("ops", []) and set(dialects) <= set(impl.hello.get("dialects", []))
               for impl in impls)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="command of implementation a")
    parser.add_argument("--b", required=True, help="command of implementation b")
    parser.add_argument("--op", choices=OPS + ("all",), default="all")
    parser.add_argument("--count", type=int, default=200, help="cases per op (default 200)")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--min-compared", type=int, default=0,
                        help="fail when fewer cases than this were answered by both with an output")
    parser.add_argument("--profile-check", action="store_true",
                        help="count handshake differences (profile, ops, dialects) as differences")
    parser.add_argument("--save-diffs", metavar="FILE", help="write differing cases as JSON lines")
    parser.add_argument("--replay", metavar="FILE", help="send the cases of a --save-diffs file")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    parser.add_argument("--show-chars", type=int, default=3000,
                        help="truncate each printed input/answer to this many characters")
    args = parser.parse_args(argv)

    impls = [Implementation("a", args.a, args.timeout), Implementation("b", args.b, args.timeout)]
    differences = handshake_report(impls, args.profile_check)
    ops = OPS if args.op == "all" else (args.op,)
    cases = replayed_cases(args.replay) if args.replay else generated_cases(ops, args.count, args.seed)
    tally = Tally()
    saved = open(args.save_diffs, "w", encoding="utf-8") if args.save_diffs else None
    started = time.monotonic()
    seq = 0
    try:
        for op, family, index, inp, dialects in cases:
            if not declared(impls, op, dialects):
                tally.add(op, family, "not sent")
                continue
            seq += 1
            answers = exchange_both(impls, {"cmd": "run", "seq": seq, "op": op, "input": inp})
            outcome = judge([answers[impl.label] for impl in impls], seq, op, family)
            tally.add(op, family, outcome)
            if outcome == "different":
                differences += 1
                print(f"\nDIFFERENCE #{differences}: {op}/{family} case {index} (seed {args.seed})")
                print("  input: " + shorten(json.dumps(inp, ensure_ascii=True), args.show_chars))
                for impl in impls:
                    print(f"  {impl.label}: " + shorten(json.dumps(answers[impl.label], ensure_ascii=True),
                                                       args.show_chars))
                if saved:
                    saved.write(json.dumps({"op": op, "family": family, "index": index, "seed": args.seed,
                                            "dialects": dialects, "input": inp,
                                            "a": answers["a"], "b": answers["b"]},
                                           ensure_ascii=True) + "\n")
    finally:
        if saved:
            saved.close()
        for impl in impls:
            impl.stop()
    elapsed = time.monotonic() - started
    print(f"\n{seq} cases sent in {elapsed:.1f} s")
    for line in tally.lines():
        print(line)
    for impl in impls:
        if impl.restarts:
            print(f"{impl.label} was restarted {impl.restarts} time(s) after a crash or timeout")
    both_errored = sum(counter["both errored"] for counter in tally.by_op.values())
    compared = sum(counter["same"] + counter["different"] for counter in tally.by_op.values())
    print(f"{differences} difference(s), {both_errored} case(s) both refused, {compared} compared")
    if compared < args.min_compared:
        print(f"only {compared} cases were compared; at least {args.min_compared} are required")
        return 1
    return 1 if differences or both_errored else 0


if __name__ == "__main__":
    sys.exit(main())
