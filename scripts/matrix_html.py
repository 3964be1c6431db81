"""The peer matrix as one HTML page (scripts/peer_matrix.py --html): docs/matrix.md rendered,
then every failing case of every run, each opening to the command that replays it.

The Markdown is the page's source of truth, so the HTML is made from it rather than from a
second renderer that could drift: `markdown` turns the few constructs peer_matrix.py writes
(headings, paragraphs, tables, bullet lists, `<details>` blocks, code spans and bold) into
HTML, stdlib only. The failures section is the one thing the Markdown has no room for (a
full run's failures would make it thousands of lines long): one `<details class="run">` per
run, and in it one `<details class="failure">` per case at `must` or `should` it fails
(its streaming checks folded in, as the Markdown counts it), safety rules first, opening to
the message and one `<pre class="reproduce">` per failing check (`printf … | COMMAND`, the
harness's own reproduce line) and the `toolfix conform --id` command. `scripts/check_page.py`
opens every one in headless Chromium and checks each shows a reproduce line.

Inline CSS, no scripts, no external assets: the page can be attached to a CI run as one
file.
"""

import html
import re

STYLE = ("body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:110em}"
         "table{border-collapse:collapse;margin:1em 0}"
         "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
         "td.n{text-align:right;font-variant-numeric:tabular-nums}"
         "code{font-size:.9em}pre{white-space:pre-wrap;word-break:break-all;margin:.2em 0;"
         "font-size:.8em;background:#f6f6f6;padding:.3em}"
         "details{margin:.25em 0}details details{margin-left:1.5em}summary{cursor:pointer}"
         ".safety{color:#a00;font-weight:bold}")

# The most characters of a failure's message shown.
SHOWN = 2000

# A code span as CommonMark reads one: a run of backticks, up to the next run of as many
# (a span holding a backtick is written with two: `` ```json ``), one space each side dropped.
CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
BOLD = re.compile(r"\*\*(.+?)\*\*")
ITALIC = re.compile(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])")
# A cell of counts (`12`, `3/4`, `·`), right-aligned.
NUMBER = re.compile(r"^(?=.*[0-9·])[0-9·/ ]+$")


def emphasis(text):
    """Text outside code spans: escaped, with its bold and italics."""
    return ITALIC.sub(r"<i>\1</i>", BOLD.sub(r"<b>\1</b>", html.escape(text, quote=False)))


def inline(text):
    """A Markdown line's inline markup as HTML: code spans, bold, italics, escaped pipes."""
    text = text.replace("\\|", "|")
    out = []
    last = 0
    for match in CODE.finditer(text):
        out.append(emphasis(text[last:match.start()]))
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        out.append(f"<code>{html.escape(code, quote=False)}</code>")
        last = match.end()
    out.append(emphasis(text[last:]))
    return "".join(out)


def cells(line):
    """A table row's cells: split on the pipes peer_matrix.py did not escape."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def markdown(page):
    """docs/matrix.md as HTML (the constructs peer_matrix.py writes, no others)."""
    out = []
    lines = page.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("<!--"):
            while "-->" not in lines[i]:
                i += 1
            i += 1
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")
            i += 1
        elif line.startswith("<details>") or line.startswith("</details>"):
            # peer_matrix.py writes the summary's text through md(), as a cell's.
            out.append(re.sub(r"<summary>(.*)</summary>", lambda m: f"<summary>{inline(m.group(1))}</summary>", line))
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            head, body = cells(rows[0]), [cells(r) for r in rows[2:]]
            out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr>")
            for row in body:
                out.append("<tr>" + "".join(
                    f"<td class=\"n\">{inline(c)}</td>" if NUMBER.match(c) else f"<td>{inline(c)}</td>"
                    for c in row) + "</tr>")
            out.append("</table>")
        elif line.startswith("* "):
            out.append("<ul>")
            while i < len(lines) and (lines[i].startswith("* ") or lines[i].startswith("  ")):
                item = [lines[i][2:]]
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and not lines[i].startswith("* "):
                    item.append(lines[i].strip())
                    i += 1
                out.append("<li>" + "<br>".join(inline(part.rstrip()) for part in item) + "</li>")
            out.append("</ul>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "* ", "<")):
                para.append(lines[i])
                i += 1
            out.append(f"<p>{inline(' '.join(para))}</p>")
    return "\n".join(out)


def failures(reports, where, safety, rule_order):
    """Every failing case of every run, each opening to what replays it; and their number."""
    out = ["<h2 id=\"failures\">Every failure</h2>",
           "<p>Each run's cases at <code>must</code> or <code>should</code> it fails (every one "
           "listed, with its reason, in its known-failures file), safety rules first; a case "
           "counts once with its streaming checks. Each opens to the harness's message and the "
           "command that replays each failing check, from the repository root (the driver sets "
           "itself up on first use).</p>"]
    total = 0
    for name, header, cases, _ in reports:
        failing = sorted((c for c in cases if where(c) == "failing"),
                         key=lambda c: (not safety(c), rule_order(c.get("rule")), c["base"]))
        if not failing:
            continue
        total += len(failing)
        out.append(f"<details class=\"run\"><summary>{html.escape(name)}: {len(failing)} failing "
                   f"cases, {sum(safety(c) for c in failing)} on a safety rule</summary>")
        for case in failing:
            out.append(failure(header, case, safety(case)))
        out.append("</details>")
    return "\n".join(out), total


def failure(header, case, is_safety):
    """One failing case: its summary line, then its message, reason and reproduce lines."""
    reason = (case.get("known") or {}).get("reason", "") or "not listed: fails the run"
    rule = html.escape(case.get("rule") or "—")
    rule = f"<span class=\"safety\">{rule} ⚠</span>" if is_safety else rule
    parts = [f"<details class=\"failure\"><summary>{rule} {html.escape(case['level'])} "
             f"<code>{html.escape(case['base'])}</code> — in {html.escape(', '.join(case['chunkings']))}"
             f" — {inline(reason)}</summary>"]
    if case.get("message"):
        parts.append(f"<div>message:<pre class=\"message\">{html.escape(case['message'][:SHOWN])}</pre></div>")
    command = (f"target/release/toolfix conform --impl '{header['command']}' --profile portable "
               f"--id '{case['base']}'")
    parts.append(f"<div>the case, every check:<pre class=\"conform\">{html.escape(command)}</pre></div>")
    for chunking, line in case["reproduces"]:
        if line:
            parts.append(f"<div>reproduce ({html.escape(chunking)}):"
                         f"<pre class=\"reproduce\">{html.escape(line)}</pre></div>")
    parts.append("</details>")
    return "".join(parts)


def page(markdown_page, reports, where, safety, rule_order):
    """The whole page: docs/matrix.md, then every failure. `<body data-failures>` holds the
    number of failing cases, which scripts/check_page.py compares with what it opened."""
    listed, total = failures(reports, where, safety, rule_order)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>toolfix: the peer matrix</title><style>{STYLE}</style></head>"
            f"<body data-failures=\"{total}\">\n{markdown(markdown_page)}\n"
            f"<p><a href=\"#failures\">Every failure</a>, with the command that replays it.</p>\n"
            f"{listed}\n</body></html>\n")
