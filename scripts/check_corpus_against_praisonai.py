#!/usr/bin/env python3
"""Check the corpus against the real package: every item, reference vs praisonaiagents.

    scripts/check_corpus_against_praisonai.py [--reference CMD] [--real CMD] [--filter S] [-v]
    scripts/check_corpus_against_praisonai.py --counts           # category table (Markdown)
    scripts/check_corpus_against_praisonai.py --update-readme    # rewrite it in corpus/README.md
    scripts/check_corpus_against_praisonai.py --check-readme     # exit 1 if the table is stale

The corpus snapshots (crates/toolfix/tests/corpus.rs) record what the reference does with each model
output; this script is what makes the `praisonai` half of those snapshots trustworthy.
Every item under corpus/ is sent as a protocol-v1 `salvage` request (docs/protocol.md)
to the reference (`toolfix serve --profile praisonai`) and to the driver around the real
package (adapters/praisonai/run), and every item whose answers differ is printed with
both answers. Answers are compared as JSON values, except that `{"error": S}` outputs
compare only the exception class name, as the protocol says. Exit status: 0 when every
item agrees, 1 on any difference (or a malformed item, or a driver that fails).

The reference defaults to $CARGO_TARGET_DIR/release/toolfix (else target/release/toolfix);
build it first with `cargo build --release`. Standard library only (Python >= 3.11).
"""

import argparse
import json
import os
import shlex
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
README = CORPUS / "README.md"
sys.path.insert(0, str(ROOT / "adapters" / "praisonai"))
from protocol_client import DriverProcess  # noqa: E402  (path set up just above)

KEYS = {"style", "pattern", "provenance", "tools", "adapter", "content"}
ADAPTERS = {"ollama", "local", "default", "anthropic", "gemini"}
COUNTS_BEGIN = "<!-- counts:begin (scripts/check_corpus_against_praisonai.py --update-readme) -->"
COUNTS_END = "<!-- counts:end -->"


class MalformedItem(Exception):
    """An item the snapshot test would also reject (crates/toolfix/crates/toolfix/tests/corpus.rs, parse_item)."""


def load_item(path):
    """The item at `path` as a dict, validated as crates/toolfix/tests/corpus.rs validates it."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("# "):
        raise MalformedItem("the first line must be a `# ` comment")
    try:
        item = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MalformedItem(f"not valid TOML: {e}") from None
    unknown = sorted(set(item) - KEYS)
    if unknown:
        raise MalformedItem(f"unknown key(s) {unknown}")
    for key in ("style", "pattern", "provenance", "adapter", "content"):
        if not isinstance(item.get(key), str):
            raise MalformedItem(f"missing or non-string `{key}`")
    for key in ("style", "pattern"):
        if not item[key].strip():
            raise MalformedItem(f"`{key}` must say something")
    tools = item.get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise MalformedItem("`tools` must be an array of tool names")
    if item["adapter"] not in ADAPTERS:
        raise MalformedItem(f"unknown adapter {item['adapter']!r}")
    return item


def corpus_paths():
    return sorted(CORPUS.glob("*/*.toml"))


def category_counts():
    """Items per category (the folder under corpus/), in name order."""
    return Counter(p.parent.name for p in corpus_paths())


def counts_table():
    """The Markdown table of items per category that corpus/README.md embeds."""
    counts = category_counts()
    lines = ["| category | items |", "|---|---:|"]
    lines += [f"| `{name}` | {counts[name]} |" for name in sorted(counts)]
    lines.append(f"| **total** | **{sum(counts.values())}** |")
    return "\n".join(lines)


def readme_with_counts(text):
    """`text` with the block between the count markers replaced by the current table."""
    begin, end = text.find(COUNTS_BEGIN), text.find(COUNTS_END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{README}: count markers not found")
    return text[: begin + len(COUNTS_BEGIN)] + "\n" + counts_table() + "\n" + text[end:]


def default_reference():
    target = os.environ.get("CARGO_TARGET_DIR") or str(ROOT / "target")
    return f"{shlex.quote(str(Path(target) / 'release' / 'toolfix'))} serve --profile praisonai"


def comparable(answer):
    """The part of an answer that must agree: the output, with errors cut to the class."""
    if "output" not in answer:
        return answer  # errored / skipped: never agrees with an output
    output = answer["output"]
    if isinstance(output, dict) and isinstance(output.get("error"), str):
        return {"error": output["error"].split(":", 1)[0]}
    return output


def start(command, label):
    driver = DriverProcess(shlex.split(command))
    hello = driver.hello()
    if hello.get("protocol") != 1 or hello.get("profile") != "praisonai":
        driver.close()
        raise SystemExit(f"{label} ({command}): unexpected handshake {hello}")
    return driver


def check(args):
    paths = [p for p in corpus_paths() if args.filter in str(p.relative_to(CORPUS))]
    items, malformed = [], []
    for path in paths:
        try:
            items.append((path, load_item(path)))
        except MalformedItem as e:
            malformed.append(f"{path.relative_to(ROOT)}: {e}")
    for line in malformed:
        print(f"MALFORMED {line}")
    reference = start(args.reference, "reference")
    real = start(args.real, "real package")
    differ = []
    try:
        for path, item in items:
            request = {k: item[k] for k in ("content", "tools", "adapter")}
            answers = []
            for driver, label in ((reference, "reference"), (real, "real package")):
                try:
                    answers.append(driver.run("salvage", request))
                except RuntimeError as e:
                    raise SystemExit(f"{label} failed on {path.relative_to(ROOT)}: {e}") from None
            ref, got = answers
            name = str(path.relative_to(CORPUS))
            if comparable(ref) != comparable(got):
                differ.append(name)
                print(f"DIFFERS {name}")
                print(f"  reference:    {json.dumps(ref.get('output', ref))}")
                print(f"  real package: {json.dumps(got.get('output', got))}")
            elif args.verbose:
                print(f"same    {name}: {json.dumps(got.get('output', got))}")
    finally:
        reference.close()
        real.close()
    per_category = Counter(path.parent.name for path, _ in items)
    differ_category = Counter(name.split("/", 1)[0] for name in differ)
    print()
    for category in sorted(per_category):
        print(f"  {category:28} {per_category[category]:4} items, {differ_category[category]} differ")
    print(f"{len(items)} items checked, {len(items) - len(differ)} agree, "
          f"{len(differ)} differ, {len(malformed)} malformed")
    return 1 if differ or malformed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default=default_reference(),
                        help="command of the reference driver (default: %(default)s)")
    parser.add_argument("--real", default=str(ROOT / "adapters" / "praisonai" / "run"),
                        help="command of the real package's driver (default: %(default)s)")
    parser.add_argument("--filter", default="", help="only items whose path contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="print agreeing items too")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--counts", action="store_true", help="print the category table and exit")
    mode.add_argument("--update-readme", action="store_true",
                      help="rewrite the category table in corpus/README.md")
    mode.add_argument("--check-readme", action="store_true",
                      help="exit 1 if corpus/README.md's category table is stale")
    args = parser.parse_args()
    if args.counts:
        print(counts_table())
        return 0
    if args.update_readme or args.check_readme:
        text = README.read_text(encoding="utf-8")
        fresh = readme_with_counts(text)
        if args.check_readme:
            if fresh != text:
                print(f"{README.relative_to(ROOT)}: category table is stale; "
                      "run scripts/check_corpus_against_praisonai.py --update-readme")
                return 1
            return 0
        README.write_text(fresh, encoding="utf-8")
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
