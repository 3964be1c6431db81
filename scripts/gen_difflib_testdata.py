#!/usr/bin/env python3
"""Generate the differential dataset for toolfix's port of ``difflib``.

Writes ``crates/toolfix/src/py/testdata/difflib-cpython-3.11.jsonl`` (paths are relative to
this script, so run it from anywhere). Each line is one call of
``difflib.get_close_matches`` and the ratio of every pair it compared::

    [word, [possibility, ...], n, cutoff, [result, ...], [ratio, ...]]

``ratio[i]`` is ``SequenceMatcher(None, possibilities[i], word).ratio()``:
the candidate is ``a`` and the requested word is ``b``, as in
``get_close_matches``. Floats are written by ``json.dumps``, that is with
``float.__repr__``, so they read back to the exact same double. Strings are
ASCII-escaped JSON; lone surrogates appear as ``\\udXXX`` escapes. A lone high
surrogate directly followed by a lone low surrogate would read back as one
astral character, so such strings are never generated (checked below).

The unit test in ``crates/toolfix/src/py/difflib.rs`` replays every line and demands exact
equality. The output is deterministic: a fixed seed and CPython 3.11.
"""

import difflib
import json
import random
import sys
from pathlib import Path

assert sys.implementation.name == "cpython", "expectations must come from CPython"
assert sys.version_info[:2] == (3, 11), "expectations must come from CPython 3.11"

SEED = 20240611
OUT = (
    Path(__file__).resolve().parent.parent
    / "crates" / "toolfix" / "src" / "py" / "testdata" / "difflib-cpython-3.11.jsonl"
)

WORDS = [
    "web", "search", "fetch", "url", "get", "set", "weather", "calc",
    "calculator", "read", "write", "file", "list", "dir", "run", "shell",
    "python", "code", "query", "db", "sql", "send", "email", "slack",
    "message", "create", "update", "delete", "user", "issue", "github",
    "tool", "scrape", "page", "image", "gen", "translate", "text", "time",
    "now", "convert", "currency", "stock", "price", "news", "wiki",
]
ASCII_NOISE = "abcdefghijklmnopqrstuvwxyz_-. 0123456789"
UNICODE_POOL = [
    "é", "ü", "ß", "İ", "ı", "Σ", "ς", "ж", "中", "文", "日本", "\u0301",
    "\u200b", "\u00a0", "😀", "🔍", "\U0001d400", "\ufffd", "\ud800",
    "\udfff", "\udc00", "\ud83d", "\x00", "\t", "\x7f",
]


def name(rng):
    """A tool-like name: 1-3 words joined by a separator or camel-cased."""
    parts = rng.sample(WORDS, rng.randint(1, 3))
    style = rng.randrange(4)
    if style == 0:
        return "_".join(parts)
    if style == 1:
        return "-".join(parts)
    if style == 2:
        return "".join(p.capitalize() for p in parts)
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def drift(rng, s):
    """What a model does to a tool name: case, separators, typos, truncation."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        if op == 0:
            s = s.lower()
        elif op == 1:
            s = s.upper()
        elif op == 2:
            s = s.replace("_", rng.choice(["", "-", " ", "."]))
        elif op == 3 and s:
            i = rng.randrange(len(s))
            s = s[:i] + s[i + 1:]
        elif op == 4:
            i = rng.randrange(len(s) + 1)
            s = s[:i] + rng.choice(ASCII_NOISE) + s[i:]
        elif op == 5 and len(s) > 1:
            i = rng.randrange(len(s) - 1)
            s = s[:i] + s[i + 1] + s[i] + s[i + 2:]
        elif op == 6 and s:
            s = s[: rng.randint(0, len(s))]
        elif op == 7:
            s = rng.choice(["get_", "tool_", "", "my"]) + s + rng.choice(["", "_tool", "s", "()"])
        else:
            s = s.title()
    return s


def sprinkle(rng, s):
    """Inserts a few non-ASCII code points (astral, combining, lone surrogates)."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(s) + 1)
        s = s[:i] + rng.choice(UNICODE_POOL) + s[i:]
    return s


def repetitive(rng, length):
    """A string over a tiny alphabet, where matches tie and overlap everywhere."""
    alphabet = rng.choice(["ab", "abc", "aab", "xy_", "a"])
    return "".join(rng.choice(alphabet) for _ in range(length))


def long_string(rng):
    """Strings around and past 200 code points, where autojunk drops popular elements."""
    n = rng.choice([150, 199, 200, 201, 210, 250, 300])
    kind = rng.randrange(4)
    if kind == 0:
        return repetitive(rng, n)
    if kind == 1:
        return "".join(rng.choice(ASCII_NOISE) for _ in range(n))
    if kind == 2:
        unit = name(rng) + "_"
        return (unit * (n // len(unit) + 1))[:n]
    return "b" * rng.randint(0, 12) + "a" * (n - 12) + name(rng)


def case_tool_names(rng):
    pool = [name(rng) for _ in range(rng.randint(1, 6))]
    word = drift(rng, rng.choice(pool)) if rng.random() < 0.8 else name(rng)
    return word, pool


def case_unicode(rng):
    pool = [sprinkle(rng, name(rng)) if rng.random() < 0.6 else name(rng) for _ in range(rng.randint(1, 4))]
    word = sprinkle(rng, drift(rng, rng.choice(pool)))
    return word, pool


def case_repetitive(rng):
    pool = [repetitive(rng, rng.randint(0, 12)) for _ in range(rng.randint(1, 5))]
    return repetitive(rng, rng.randint(0, 12)), pool


def case_long(rng):
    base = long_string(rng)
    pool = [long_string(rng) for _ in range(rng.randint(0, 1))]
    pool.append(drift(rng, base) if rng.random() < 0.5 else base[: rng.randint(len(base) * 3 // 4, len(base))])
    rng.shuffle(pool)
    word = base if rng.random() < 0.5 else drift(rng, base)
    return word, pool


def case_short_ties(rng):
    """Short strings that often reach equal scores, so nlargest's tie rule decides."""
    alphabet = "abxyz"
    pool = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(2, 6))]
    word = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
    return word, pool


CASES = [
    (case_tool_names, 1200),
    (case_unicode, 400),
    (case_repetitive, 400),
    (case_short_ties, 400),
    (case_long, 30),
]

# Hand-picked calls from the behaviour notes (§4 D) and the boundaries of autojunk.
FIXED = [
    ("WebSearch", ["web_search"]),
    ("ab", ["ay", "xb"]),
    ("ab", ["xb", "ay"]),
    ("ab", ["ac"]),
    ("tide", ["diet"]),
    ("diet", ["tide"]),
    ("b" * 10 + "a" * 200, ["a" * 200]),
    ("b" * 10 + "a" * 189, ["a" * 189]),
    ("totally_made_up_tool", ["web_search"]),
    ("", [""]),
    ("", ["a"]),
    ("a", [""]),
    ("web_search", ["web_search", "web_search"]),
]


def safe(s):
    """True when the ASCII-escaped JSON of ``s`` reads back to ``s`` itself."""
    return json.loads(json.dumps(s)) == s


def row(word, pool, n, cutoff):
    result = difflib.get_close_matches(word, pool, n=n, cutoff=cutoff)
    ratios = [difflib.SequenceMatcher(None, x, word).ratio() for x in pool]
    return [word, pool, n, cutoff, result, ratios]


def params(rng):
    """Mostly praisonaiagents' own call (n=1, cutoff=0.5), sometimes others."""
    if rng.random() < 0.7:
        return 1, 0.5
    return rng.choice([1, 2, 3, 5]), rng.choice([0.0, 0.25, 0.5, 0.6, 0.7368421052631579, 0.8, 1.0])


def main():
    rng = random.Random(SEED)
    rows = [row(w, p, 1, 0.5) for w, p in FIXED]
    for make, count in CASES:
        made = 0
        while made < count:
            word, pool = make(rng)
            if not all(safe(s) for s in [word, *pool]):
                continue
            rows.append(row(word, pool, *params(rng)))
            made += 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="ascii", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n")
    print(f"wrote {len(rows)} rows, {OUT.stat().st_size} bytes to {OUT}")


if __name__ == "__main__":
    main()
