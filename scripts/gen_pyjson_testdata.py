#!/usr/bin/env python3
"""Records what CPython's `json` does with several hundred JSON-ish texts.

Writes `crates/toolfix/src/py/json/testdata/cpython-3.11.jsonl`, which the unit tests of `crates/toolfix/src/py/json`
replay against the Rust decoder and encoder. Run it with CPython 3.11.7 (the interpreter
toolfix reproduces); the seed is fixed, so the output is the same on every run:

    python3 scripts/gen_pyjson_testdata.py

Line 1 is a header: the interpreter version and the limits CPython enforced while the cases
were recorded (`max_depth_*` is how many containers `json.loads` / `raw_decode` could open
before `RecursionError` at the call depth used below). Every other line is one case:

    {"op": "loads", "input": <text>, ...outcome}
    {"op": "raw_decode", "input": <text>, "pos": <byte offset>, ...outcome}

`input` is the text as a JSON string (ASCII, so lone surrogates and control characters
survive; no case holds a raw high surrogate directly followed by a raw low one, which that
encoding could not tell from a pair). The outcome is either `"ok"`, the `json.dumps` of the
decoded value (plus `"end"`, a byte offset, for `raw_decode`), or `"error"`, the exception
class and message, with `"error_pos"` (a byte offset) for a `JSONDecodeError`. Offsets are
into the text's UTF-8 encoding, lone surrogates encoded on their own.
"""

import json
import pathlib
import platform
import random
import sys

SEED = 3117
OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/toolfix/src/py/json/testdata/cpython-3.11.jsonl"
DECODER = json.JSONDecoder()

# Characters mutations insert: JSON syntax, escapes' letters, whitespace JSON knows and
# whitespace it does not, controls, surrogates and non-ASCII text.
ALPHABET = list('{}[]",:\\/ubfnrt0123456789aAeE.-+NIl \t\n\r') + [
    "\x00", "\x1f", "\x7f", "\xa0", "\u2028", "\ufeff", "\ud800", "\udc00", "é", "\U0001f600",
    "\u0663",
]


def byte_pos(s, i):
    """The byte offset of code-point index `i` (which may lie past the end) in `s`."""
    return len(s[:i].encode("utf-8", "surrogatepass")) + max(0, i - len(s))


def record(op, s, pos=0):
    """Runs one case and returns its JSONL record."""
    case = {"op": op, "input": s}
    if op == "raw_decode":
        case["pos"] = byte_pos(s, pos)
    try:
        if op == "loads":
            value = json.loads(s)
        else:
            value, end = DECODER.raw_decode(s, pos)
            case["end"] = byte_pos(s, end)
    except json.JSONDecodeError as e:
        case["error"] = f"JSONDecodeError: {e.msg}"
        case["error_pos"] = byte_pos(s, e.pos)
        return case
    except (ValueError, RecursionError) as e:
        case["error"] = f"{type(e).__name__}: {e}"
        return case
    # json.dumps recurses too; give it room to print what loads could decode.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 1000)
    try:
        case["ok"] = json.dumps(value)
    finally:
        sys.setrecursionlimit(limit)
    return case


def handpicked(depth):
    """Cases for each rule of the scanner and the encoder."""
    big = "1" * 5000
    texts = [
        # constants and their near misses
        "null", "true", "false", "NaN", "Infinity", "-Infinity", "Null", "nul", "tru",
        "nan", "infinity", "-infinity", "-Inf", "NaNx", "[NaN, Infinity, -Infinity]",
        # numbers, complete and partial
        "0", "-0", "-0.0", "0.0", "1", "-1", "12", "01", "-01", "1.", "1.e5", ".5", "1e",
        "1e+", "1e-", "1E5", "1e+5", "1e-5", "1.5e-07", "1.5E+07", "1e16", "1e400", "-1e400",
        "1e-400", "-1e-400", "0e0", "0.1", "123456789.123456789", "1.7976931348623157e308",
        "5e-324", "2.5e-308", "9007199254740993", "-", "-x", "--1", "+1", "1_000", "0x10",
        "\u0661", "1\u0661", "[1.]", "[1e]", "[-]", "1e99999999999999999999",
        "1e-99999999999999999999", "0e99999999999999999999",
        "123456789012345678901234567890", "-123456789012345678901234567890",
        "1" * 4300, "-" + "1" * 4300, "1" * 4301, "-" + "1" * 4301, big + ".0", big + "e0",
        "[" + big + ", ]]]", "[1, ]" + big, '{"a": ' + big + ", x",
        # strings and escapes
        '""', '"abc"', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\u0041\\u00e9\\u00E9\\u2028"',
        '"\\x41"', '"\\a"', '"\\\'"', '"\\U0041"', '"\\u004"', '"\\u004g"', '"\\u0041',
        '"\\u00"', '"\\', '"\\"', '"abc', '"', '"a\x00b"', '"a\x1fb"', '"a\tb"', '"a\nb"',
        '"\x7f"', '"\xa0"', '"\u2028\u2029"', '"\ud800"', '"\udc00"', '"\U0001f600"',
        '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\ud83d"', '"\\ude00"', '"\\ude00\\ud83d"',
        '"\\ud83d\\u0041"', '"\\ud83d\\ud83d\\ude00"', '"\\ud83dx\\ude00"', '"\\ud83d\\ude0"',
        '"\\ud83d\\ude00', '"\\ud83d\\uzzzz"', '"\\ud83d\\u"', '"\\ud83d\\"', '"\\ud83d\\n"',
        '"\ud83d\\ude00"', '"\\ud83d\ude00"', '"\\u0000"', '"\\u001f\\u007f"',
        # objects and arrays
        "[]", "{}", "[ ]", "{ }", "[1,2]", "[1 , 2]", "[1,]", "[,1]", "[1 2]", "[1,,2]", "[",
        "[1", "[1,", "]", "{", '{"a"', '{"a":', '{"a":1', '{"a":1,', '{"a":1,}', "{,}",
        '{"a" 1}', '{"a":1 "b":2}', "{'a':1}", "{a:1}", '{1:1}', '{"a":1,"b":2,"a":3}',
        '{"a":{"b":[1,{"c":null}]}}', '{"":""}', '[[[]]]', '[{}, [], ""]',
        '{"a":[1,2,{"b":true}],"c":"d"}', '{"k":1}}', "[1]]", '["a" "b"]',
        # whitespace, BOM and trailing data
        " 1", "1 ", " \t\n\r1\r\n\t ", "\xa01", "1\xa0", "\u20281", "\ufeff1", "1\ufeff",
        "\ufeff", "", " ", "1 2", "[] []", "nullx", "truex", '"a"b', "{}x", "[1]\x00",
        "\x00", "\v1", "\f1",
        # depth
        "[" * depth + "]" * depth, "[" * depth, "[" * (depth + 1), "{" * (depth + 1),
        '{"a":' * depth + "1" + "}" * depth, '{"a":' * depth + "{", "[" * depth + "{",
        "[" * (depth - 1) + "{}" + "]" * (depth - 1), "[" * depth + "x",
        "[" * (depth - 1) + "x" + "[", "[" * (depth + 5) + "x", "[" * 5000 + "]" * 5000,
        "[" * 100 + '"\\q"' + "[" * 2000,
    ]
    return [("loads", t, 0) for t in texts]


def handpicked_raw():
    """raw_decode: where a value ends, and what is not skipped."""
    cases = [
        ("1.", 0), ("1e", 0), ("1e+", 0), ("1.5e", 0), ("01", 0), ("-0x", 0), ("12abc", 0),
        ("  1", 0), ("  1", 2), ("[1] x", 0), ("abc", 5), ("abc", 3), ("x{}", 1),
        ('"a"b', 0), ("nullnull", 4), ("[1,2] [3]", 6), ("é1", 1), ("éé[1]", 2),
        ("😀{}", 1), ("\ufeff1", 0), ("\ufeff1", 1), ("NaN1", 0), ("-Infinityx", 0),
        ("-Infinit", 0), ('{"a":1}}', 0), ("truefalse", 4), ("1e5x", 0), ("0.5.5", 0),
        ('"\\ud83d\\ude00"x', 0), ("", 0), (" ", 0),
    ]
    return [("raw_decode", s, p) for s, p in cases]


def near_depth_limit(op, depth):
    """Errors met with nearly every recursion level in use, where CPython fails to build
    the JSONDecodeError and raises RecursionError instead (`Expecting value` and the
    ValueError for long integers excepted)."""
    cases = []
    for open_ in range(depth - 3, depth + 1):
        arrays = "[" * (open_ - 1)
        for tail in ["[1 2", '["\\q"', '["\x00"', "[x", '{"a" 1', "{1", '{"a":1 x', '{"a":"\\u12"']:
            cases.append((op, arrays + tail, 0))
    cases.append((op, "[" * depth + "1" * 4301, 0))
    return cases


class Generator:
    """Random JSON-ish text: valid documents in varied spellings, then broken ones."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def text(self):
        r = self.rng
        doc = self.value(r.randint(0, 4))
        if r.random() < 0.3:
            doc = self.ws() + doc + self.ws()
        if r.random() < 0.6:
            doc = self.mutate(doc)
        return doc

    def ws(self):
        return "".join(self.rng.choice(" \t\n\r") for _ in range(self.rng.choice([0, 0, 1, 2])))

    def value(self, depth):
        r = self.rng
        kind = r.choice(["scalar", "scalar", "string", "list", "dict"] if depth else ["scalar", "string"])
        if kind == "scalar":
            return self.scalar()
        if kind == "string":
            return self.string()
        items = [self.value(depth - 1) for _ in range(r.randint(0, 4))]
        if kind == "dict":
            keys = [self.string() if r.random() < 0.7 else '"k"' for _ in items]
            items = [k + self.ws() + ":" + self.ws() + v for k, v in zip(keys, items)]
        sep = [self.ws() + "," + self.ws() for _ in items]
        body = "".join(s + i for s, i in zip(sep, items))[len(sep[0]) :] if items else self.ws()
        return ("[", "{")[kind == "dict"] + self.ws() + body + self.ws() + ("]", "}")[kind == "dict"]

    def scalar(self):
        r = self.rng
        choice = r.random()
        if choice < 0.2:
            return r.choice(["null", "true", "false", "NaN", "Infinity", "-Infinity"])
        sign = r.choice(["", "", "-"])
        integer = r.choice(["0", str(r.randint(1, 9)), str(r.randint(10, 10**6)), str(r.randint(1, 10**30))])
        frac = r.choice(["", "", "." + str(r.randint(0, 10**r.randint(1, 20)))])
        exp = r.choice(["", "", "", r.choice("eE") + r.choice(["", "+", "-"]) + str(r.randint(0, 400))])
        return sign + integer + frac + exp

    def string(self):
        r = self.rng
        pieces = []
        for _ in range(r.randint(0, 6)):
            kind = r.random()
            if kind < 0.4:
                pieces.append(r.choice(["a", "key", " ", "/", "é", "\u2028", "\x7f", "\U0001f600", "\ud800", "\udfff", "中"]))
            elif kind < 0.6:
                pieces.append("\\" + r.choice('"\\/bfnrt'))
            else:
                unit = r.choice([0x41, 0xE9, 0x1F, 0x7F, 0x2028, 0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0xFFFF, 0])
                digits = "%04x" % unit
                pieces.append("\\u" + (digits.upper() if r.random() < 0.3 else digits))
        return '"' + "".join(pieces) + '"'

    def mutate(self, doc):
        r = self.rng
        for _ in range(r.randint(1, 2)):
            i = r.randint(0, len(doc))
            how = r.random()
            if how < 0.3:
                doc = doc[:i]
            elif how < 0.6:
                doc = doc[:i] + r.choice(ALPHABET) + doc[i:]
            elif how < 0.8:
                doc = doc[:i] + doc[i + 1 :]
            else:
                doc = doc[:i] + r.choice(ALPHABET) + doc[i + 1 :]
        return doc


def storable(s):
    """Whether the JSON-string form of `s` reads back as `s` (no raw surrogate pair)."""
    return json.loads(json.dumps(s)) == s


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"run this with CPython 3.11, not {platform.python_version()}")
    # How many containers CPython can open, measured at the call depth of the cases below
    # (record called from main): one frame more or less shifts the limit by one.
    depths = {}
    for op in ("loads", "raw_decode"):
        n = 1
        while "RecursionError" not in record(op, "[" * n).get("error", ""):
            n += 1
        depths[op] = n - 1
    loads_depth, raw_depth = depths["loads"], depths["raw_decode"]
    gen = Generator(SEED)
    cases = handpicked(loads_depth) + handpicked_raw()
    cases += near_depth_limit("loads", loads_depth) + near_depth_limit("raw_decode", raw_depth)
    while len(cases) < 900:
        text = gen.text()
        if len(cases) % 4 == 0:
            cases.append(("raw_decode", text, gen.rng.randint(0, len(text))))
        else:
            cases.append(("loads", text, 0))
    header = {
        "python": platform.python_version(),
        "max_depth_loads": loads_depth,
        "max_depth_raw_decode": raw_depth,
        "int_max_str_digits": sys.get_int_max_str_digits(),
    }
    lines = [json.dumps(header)]
    skipped = 0
    for op, text, pos in cases:
        if storable(text):
            lines.append(json.dumps(record(op, text, pos)))
        else:
            skipped += 1
    with open(OUT, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} cases written to {OUT}, {skipped} skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
