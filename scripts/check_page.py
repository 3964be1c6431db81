#!/usr/bin/env python3
"""The peer matrix page (scripts/peer_matrix.py --html) in a real browser: headless
Chromium loads it, a probe opens every `<details>`, and the check holds when the page
rendered its tables and every failing case shows a reproduce line once opened.

    python3 scripts/check_page.py reports/peer-matrix.html

The probe is appended to a copy of the page (the page itself has no scripts), as
crates/toolfix-cli/tests/report_page.rs does for `toolfix report --html`: it records on
`<body>` how many failing cases it opened (`data-rows`, to compare with the
`data-failures` the page was written with), how many tables rendered, and the summaries
of the cases that show no visible `pre.reproduce` holding a protocol `run` request.

Needs `chromium` on PATH (Debian: apt-get install chromium). Without it the check says so
and exits 0, unless TOOLFIX_REQUIRE_BROWSER is set (exit 2). Exit 1: the check failed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = """<script>
for (const d of document.querySelectorAll("details")) d.open = true;
const rows = [...document.querySelectorAll("details.failure")];
const bad = [];
for (const row of rows) {
  const shown = [...row.querySelectorAll("pre.reproduce")]
    .filter(p => p.getClientRects().length > 0 && p.textContent.includes('"cmd": "run"'));
  if (shown.length === 0) bad.push(row.querySelector("summary").textContent.slice(0, 200));
}
const tables = [...document.querySelectorAll("table")].filter(t => t.getClientRects().length > 0);
document.body.setAttribute("data-rows", String(rows.length));
document.body.setAttribute("data-tables", String(tables.length));
document.body.setAttribute("data-table-rows", String(document.querySelectorAll("tr").length));
document.body.setAttribute("data-bad", JSON.stringify(bad.slice(0, 20)));
document.body.setAttribute("data-bad-count", String(bad.length));
</script></body>"""


def browser():
    """Chromium on PATH, under the names Debian and others give it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def body_attributes(dom):
    """The attributes of the rendered `<body>`."""
    match = re.search(r"<body([^>]*)>", dom)
    if not match:
        return {}
    return {name: value for name, value in re.findall(r'([\w-]+)="([^"]*)"', match.group(1))}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    page = Path(sys.argv[1])
    chromium = browser()
    if chromium is None:
        if os.environ.get("TOOLFIX_REQUIRE_BROWSER"):
            print("check_page: TOOLFIX_REQUIRE_BROWSER is set but no chromium is on PATH", file=sys.stderr)
            return 2
        print("check_page: skipped: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        probed = Path(tmp) / "probed.html"
        probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE), encoding="utf-8")
        done = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=30000",
             f"--user-data-dir={tmp}/profile", "--dump-dom", probed.as_uri()],
            capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        print(f"check_page: chromium failed ({done.returncode}): {done.stderr[-2000:]}", file=sys.stderr)
        return 1
    attrs = body_attributes(done.stdout)
    if "data-rows" not in attrs:
        print("check_page: the probe did not run: the page did not render", file=sys.stderr)
        return 1
    expected, opened = int(attrs.get("data-failures", "-1")), int(attrs["data-rows"])
    bad = json.loads(attrs["data-bad"].replace("&quot;", '"').replace("&amp;", "&"))
    problems = []
    if int(attrs["data-tables"]) == 0:
        problems.append("no table rendered")
    if opened != expected:
        problems.append(f"{opened} failing cases opened, the page lists {expected}")
    if int(attrs["data-bad-count"]):
        problems.append(f"{attrs['data-bad-count']} failing cases show no reproduce line, e.g.: "
                        + "; ".join(bad))
    if problems:
        print("check_page: " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"check_page: {page}: {attrs['data-tables']} tables ({attrs['data-table-rows']} rows) "
          f"rendered; {opened} failing cases, each opens to its reproduce line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
