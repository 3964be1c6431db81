"""The inventory of an inference engine's tool-call parsers (adapters/sglang, adapters/vllm,
adapters/transformers): one JSON line per parser the engine itself registers, so that
every one of them gets a row in docs/matrix.md and none is left out because the suite has
nothing to send it (issue 34).

    adapters/ENGINE/run --inventory reports/inventory-ENGINE.jsonl

Each engine's `inventory.py` lists the registered names and says how one is loaded; this
module tries each, in one process (an engine's import takes seconds, its parsers
milliseconds), and writes what it found:

* `status: "runs"`: the parser loads and its driver maps it to toolfix dialects, so
  adapters/peers.txt has its conform run (scripts/peer_matrix.py checks both ways);
* `status: "no-cases"`: it loads, but reads a format no toolfix dialect covers, so the
  suite has no case to send it (issue 33); `format` says what it reads (its class and the
  markers its source writes);
* `status: "fails"`: it does not import or does not start; `error` is what it raised and
  `stage` where.

Every parser that loads also gets the prose checks, the one part of the suite that is
the same in every format: a reply with no call (`It is sunny in Paris today.`, the reply
of `toolfix smoke`'s clean-reply check) must give no call, in batch and streamed in two
chunks, and streamed it must be shown unchanged. The suite's other format-free rules
(allowlist, fences) are not sent to a `no-cases` parser: each of their cases is written in
some dialect's markup, which such a parser does not read, so it would "pass" them without
ever parsing a call (adapters/vllm/README.md, "Parsers").
"""

import ast
import importlib
import inspect
import json
import re
import traceback

import engine_driver

# The prose checks' reply and its two chunks (cut inside a word, as a server may cut).
PROSE = "It is sunny in Paris today."
PROSE_CHUNKS = [PROSE[:13], PROSE[13:]]
PROSE_TOOLS = ["get_weather"]

# A marker a chat template writes as one special token: `<…>` or `[UPPER_CASE]`, no space
# (adapters/vllm/driver.py reads its parsers' markers the same way).
MARKER = re.compile(r"^(?:<[^\s<>]{1,48}>|\[[A-Z_]{2,32}\])$")


class Failed(Exception):
    """A parser that does not load: `stage` is where (`import`, `start`)."""

    def __init__(self, stage, error):
        super().__init__(engine_driver.exception_text(error))
        self.stage = stage


def source_markers(module_names):
    """The marker strings written as constants in the source of the given modules."""
    markers = set()
    for name in module_names:
        try:
            tree = ast.parse(inspect.getsource(importlib.import_module(name)))
        except (OSError, TypeError, SyntaxError, ImportError):
            continue
        markers.update(node.value for node in ast.walk(tree)
                       if isinstance(node, ast.Constant) and isinstance(node.value, str)
                       and MARKER.match(node.value))
    return sorted(markers)


def prose_checks(batch, stream):
    """The prose checks: `batch(content, tools)` and `stream(chunks, tools, calls)` as the
    engine's driver defines them. Each result is `ok` or what went wrong."""
    tools = engine_driver.tool_entries(PROSE_TOOLS)
    out = {}
    try:
        with engine_driver.interpreter_defaults():
            pairs = batch(PROSE, tools)
        out["batch"] = "ok" if not pairs else f"calls {', '.join(repr(n) for n, _ in pairs)}"
    except Exception as error:  # noqa: BLE001  what it raises is its answer
        out["batch"] = f"raises {engine_driver.exception_text(error)}"
    calls = engine_driver.StreamedCalls()
    try:
        with engine_driver.interpreter_defaults():
            shown = stream(list(PROSE_CHUNKS), tools, calls)
        made = calls.output(shown)["calls"]
        if made:
            out["stream"] = f"calls {', '.join(repr(c['name']) for c in made)}"
        elif shown != PROSE:
            out["stream"] = f"shows {shown!r}"
        else:
            out["stream"] = "ok"
    except Exception as error:  # noqa: BLE001
        out["stream"] = f"raises {engine_driver.exception_text(error)}"
    return out


def write(path, engine, version, registry, parsers):
    """Write the inventory to `path`: a header line, then one line per parser.

    `parsers` yields `(name, dialects, load)`, in the engine's order: `dialects` those its
    driver maps it to (empty: a format toolfix has no dialect for), and `load()` returns
    `(batch, stream, format)` for a parser that loads (`format`: its class and markers, a
    dict) or raises `Failed`."""
    rows = []
    for name, dialects, load in parsers:
        row = {"type": "parser", "engine": engine, "parser": name, "dialects": list(dialects)}
        try:
            batch, stream, described = load()
        except Failed as failure:
            row.update(status="fails", stage=failure.stage, error=str(failure))
        except Exception as error:  # noqa: BLE001  a loader's own slip is still a failure to load
            traceback.print_exc(limit=3)
            row.update(status="fails", stage="start", error=engine_driver.exception_text(error))
        else:
            row.update(status="runs" if dialects else "no-cases", format=described,
                       prose=prose_checks(batch, stream))
        rows.append(row)
    header = {"type": "inventory", "engine": engine, "version": version, "registry": registry,
              "parsers": len(rows),
              "prose": {"reply": PROSE, "chunks": PROSE_CHUNKS, "tools": PROSE_TOOLS}}
    with open(path, "w", encoding="utf-8") as out:
        for line in [header, *rows]:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    counts = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print(f"{engine} {version}: {len(rows)} parsers in {registry}: "
          + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
