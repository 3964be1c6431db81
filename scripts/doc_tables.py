"""Markdown tables kept in data files: what BENCHMARKS.md and docs/fuzzing.md share.

A document holds generated tables between marker lines. ``<!-- table: PATH -->`` …
``<!-- end table -->`` holds the CSV file at PATH (relative to the repository) as a
Markdown table; other markers hold what a script computes. ``write_or_check`` rewrites
the document, or with ``check`` only says whether it is current.
"""

import csv
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_BLOCK = re.compile(r"(<!-- table: (\S+) -->\n)(.*?)(<!-- end table -->)", re.S)


def markdown_table(header, rows):
    """The Markdown text of a table: a header row, a rule, one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def read_csv(path):
    """The header and rows of a CSV file (a path relative to the repository or absolute)."""
    with open(os.path.join(ROOT, path), encoding="utf-8", newline="") as f:
        header, *rows = list(csv.reader(f))
    return header, rows


def write_csv(path, header, rows):
    """Writes ``header`` and ``rows`` to the CSV file at ``path``."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def tables_in(markdown):
    """``[(the text line before the table, header, rows)]`` for each Markdown table."""
    found, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-"):
            before = next((l for l in reversed(lines[:i]) if l.strip()), "")
            header = split_row(lines[i])
            i += 2
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            found.append((before, header, rows))
        else:
            i += 1
    return found


def split_row(line):
    """The cells of one Markdown table row (cells hold no ``|``)."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def render_csv_blocks(text):
    """``text`` with every ``<!-- table: PATH -->`` block holding PATH's CSV."""
    def block(match):
        header, rows = read_csv(match.group(2))
        return match.group(1) + markdown_table(header, rows) + "\n" + match.group(4)
    return CSV_BLOCK.sub(block, text)


def replace_between(text, begin, end, markdown):
    """``text`` with what lies between the ``begin`` and ``end`` lines replaced."""
    if begin not in text or end not in text:
        sys.exit(f"no {begin} … {end} section")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + markdown + "\n" + end + tail


def write_or_check(path, new_text, check):
    """Writes ``new_text`` to ``path``, or with ``check`` returns 1 (printing the
    difference) when the file is not already ``new_text``, else 0."""
    with open(path, encoding="utf-8") as f:
        old_text = f.read()
    if not check:
        if old_text != new_text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new_text)
        return 0
    if old_text == new_text:
        return 0
    diff = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(),
                                path, "generated", lineterm="", n=1)
    print("\n".join(list(diff)[:40]), file=sys.stderr)
    print(f"{path} is not what its data gives; regenerate it", file=sys.stderr)
    return 1
