#!/usr/bin/env python3
"""Generate the differential dataset for toolfix's ``py::inspect`` and call binder.

Writes ``crates/toolfix/src/py/testdata/inspect-cpython-3.11.jsonl`` (paths are relative to
this script, so run it from anywhere). Each line is one function called with
one set of keyword arguments::

    [qualname, [[name, kind], ...], [key, ...], signature, bind, call]

* ``kind`` is one letter per parameter, in definition order: ``P``
  positional-only, ``O`` positional-or-keyword, ``V`` ``*args``, ``K``
  keyword-only, ``W`` ``**kwargs``; lowercase (``p``, ``o``, ``k``) when the
  parameter has a default.
* ``signature`` is ``null`` when ``inspect.signature(f)`` succeeds, else
  ``[exception type name, str(exception)]``.
* ``bind`` is the outcome of ``inspect.signature(f).bind(**kwargs)``: ``"OK"``
  or ``str()`` of the ``TypeError``; ``null`` when the signature failed.
* ``call`` is the outcome of ``f(**kwargs)``, the same way.

The keys are passed in the order listed (a dict's order). Functions are built
from a code object whose ``co_varnames`` are replaced, so a name can be any
``str``: keywords, non-identifiers, the empty string, comprehension-style
``.0``. Strings are ASCII-escaped JSON; the one lone surrogate in the pools is
never next to another.

The unit test in ``crates/toolfix/src/py/inspect.rs`` replays every line: ``bind`` against
``py::inspect``, ``call`` against ``py::signature``'s binder. The output is
deterministic: a fixed seed and CPython 3.11.
"""

import inspect
import json
import random
import sys
import types
from pathlib import Path

assert sys.implementation.name == "cpython", "expectations must come from CPython"
assert sys.version_info[:3] == (3, 11, 7), "expectations must come from CPython 3.11.7"

SEED = 20240611
LINES = 1650
OUT = (
    Path(__file__).resolve().parent.parent
    / "crates" / "toolfix" / "src" / "py" / "testdata" / "inspect-cpython-3.11.jsonl"
)

# Names a tool's parameters might have, with case variants for the sanitiser's benefit and
# soft keywords (valid names).
NAMES = [
    "a", "b", "c", "A", "B", "q", "Q", "x", "query", "Query", "QUERY", "self", "args",
    "kwargs", "kw", "url", "_", "match", "case", "\u00e9t\u00e9", "\uff46\uff4f\uff52", "implicit0",
]
# Names `inspect.signature` treats specially: keywords (accepted only as positional-only),
# non-identifiers, the empty name (IndexError), implicit `.N` names (renamed `implicitN`).
ODD_NAMES = [
    "for", "None", "async", "", ".0", ".1", ".12", ".", ".\u00b2", ".\u1369", "1a", "a b",
    "a-b", "a\u00b7", "\u00b7a", "\u2122", "it's",
]
# Keys a model might send besides the parameter names; quotes, tabs and a lone surrogate
# tell `inspect`'s repr quoting from the call's plain `'%S'`.
EXTRA_KEYS = [
    "zz", "Query", "query ", "query=", "implicit1", "", "q", "self", "kwargs", "it's",
    'say "hi"', "tab\t", "x\ud800",
]
QUALNAMES = ["f", "f", "f", "web_search", "outer.<locals>.inner", "C.run", "we'ird"]

TEMPLATE = (lambda: None).__code__
KIND_ORDER = "POVKW"


def make_function(qualname, params):
    """A function with exactly these parameters: [(name, kind, has_default)]."""
    by_kind = {k: [n for n, kind, _ in params if kind == k] for k in KIND_ORDER}
    positional = by_kind["P"] + by_kind["O"]
    varnames = positional + by_kind["K"] + by_kind["V"] + by_kind["W"]
    flags = TEMPLATE.co_flags
    flags |= inspect.CO_VARARGS if by_kind["V"] else 0
    flags |= inspect.CO_VARKEYWORDS if by_kind["W"] else 0
    code = TEMPLATE.replace(
        co_argcount=len(positional),
        co_posonlyargcount=len(by_kind["P"]),
        co_kwonlyargcount=len(by_kind["K"]),
        co_flags=flags,
        co_varnames=tuple(varnames),
        co_nlocals=len(varnames),
    )
    f = types.FunctionType(code, {}, "f")
    f.__qualname__ = qualname
    defaults = tuple(0 for _, kind, d in params if kind in "PO" and d)
    f.__defaults__ = defaults or None
    kwdefaults = {n: 0 for n, kind, d in params if kind == "K" and d}
    f.__kwdefaults__ = kwdefaults or None
    return f


def random_params(rng, odd):
    """Parameters a `def` could declare: kinds in order, positional defaults a suffix."""
    counts = {
        "P": rng.choice([0, 0, 0, 1, 2]),
        "O": rng.choice([0, 1, 1, 2, 2, 3]),
        "V": int(rng.random() < 0.25),
        "K": rng.choice([0, 0, 1, 2]),
        "W": int(rng.random() < 0.3),
    }
    total = sum(counts.values())
    names = rng.sample(NAMES, total)
    if odd and total:
        names[rng.randrange(total)] = rng.choice(ODD_NAMES)
        if len(set(names)) < total:
            return None
    kinds = [k for k in KIND_ORDER for _ in range(counts[k])]
    positional = counts["P"] + counts["O"]
    first_default = positional - rng.randint(0, positional)
    params = []
    for i, (name, kind) in enumerate(zip(names, kinds)):
        if kind in "PO":
            default = i >= first_default
        elif kind == "K":
            default = rng.random() < 0.5
        else:
            default = False
        params.append((name, kind, default))
    return params


def random_keys(rng, params):
    """Distinct keys in random order: each parameter's name with probability 0.7 (0.3 for
    a positional-only one), so calls often bind, then up to two other names."""
    keys = [n for n, kind, _ in params if rng.random() < (0.3 if kind == "P" else 0.7)]
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        r = rng.random()
        pool = NAMES if r < 0.5 else EXTRA_KEYS if r < 0.9 else ODD_NAMES
        key = rng.choice(pool)
        if key not in keys:
            keys.append(key)
    rng.shuffle(keys)
    return keys


def outcome(thunk):
    try:
        thunk()
    except TypeError as e:
        return str(e)
    return "OK"


def row(qualname, params, keys):
    f = make_function(qualname, params)
    kwargs = {k: i for i, k in enumerate(keys)}
    try:
        signature = inspect.signature(f)
    except (ValueError, IndexError) as e:
        sig, bind = [type(e).__name__, str(e)], None
    else:
        sig, bind = None, outcome(lambda: signature.bind(**kwargs))
    call = outcome(lambda: f(**kwargs))
    encoded = [[n, k.lower() if d else k] for n, k, d in params]
    return [qualname, encoded, keys, sig, bind, call]


# Hand-picked: the package's gate differing from the call, and inspect's corners.
FIXED = [
    ("f", [("a", "P", False), ("kw", "W", False)], ["a"]),
    ("f", [("a", "P", True), ("kw", "W", False)], ["a"]),
    ("f", [("query", "O", False)], ["q"]),
    ("f", [("query", "O", False), ("b", "O", False)], ["b", "q"]),
    ("f", [("args", "V", False), ("k", "K", False)], ["args", "k"]),
    ("f", [(".0", "O", False)], [".0"]),
    ("f", [(".0", "O", False)], ["implicit0"]),
    ("f", [("a", "O", False), (".0", "O", False)], ["a"]),
    ("f", [(".0", "O", False), ("implicit0", "O", False)], ["implicit0"]),
    ("f", [("for", "P", False)], []),
    ("f", [("", "O", False), ("for", "O", False)], []),
    ("f", [("for", "O", False), ("", "O", False)], []),
]


def main():
    rng = random.Random(SEED)
    rows = [row(q, p, k) for q, p, k in FIXED]
    seen = {json.dumps(r) for r in rows}
    while len(rows) < LINES:
        params = random_params(rng, odd=rng.random() < 0.15)
        if params is None:
            continue
        qualname = rng.choice(QUALNAMES)
        for _ in range(rng.choice([1, 1, 2])):
            r = row(qualname, params, random_keys(rng, params))
            if json.dumps(r) not in seen and len(rows) < LINES:
                seen.add(json.dumps(r))
                rows.append(r)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="ascii", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n")
    sig_failed = sum(r[3] is not None for r in rows)
    differ = sum(r[4] is not None and (r[4] == "OK") != (r[5] == "OK") for r in rows)
    print(
        f"wrote {len(rows)} rows ({sig_failed} with a failing signature, {differ} where bind "
        f"and call disagree on success), {OUT.stat().st_size} bytes to {OUT}"
    )


if __name__ == "__main__":
    main()
