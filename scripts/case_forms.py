#!/usr/bin/env python3
"""Check that every spec case names the form of its dialect it is written in.

    python3 scripts/case_forms.py --check    list the cases whose `form` is missing or wrong
    python3 scripts/case_forms.py --write    add the missing `form` keys, after each case's name

A driver that declares the forms it reads (docs/protocol.md, `forms`) is sent only the
cases of those forms, and a case with no `form` key is sent to every driver of its
dialect. So a case written in one form that does not say so is sent to parsers that were
never written for it, and their failures are the harness's (issue 34, kind 3). This reads
each salvage case of one dialect, finds the forms its reply shows (`FORM_SIGNS`, the one
table of how each form looks, which `adapters/engines/known_failures.py` also uses to
word such failures) and requires:

* a reply that shows forms of its dialect names exactly those (`form = "v3"`, or for a
  reply in several, `form = ["functiongemma", "gemma-4"]`: only a driver that reads each
  is sent it).

A reply that shows no form (prose, a token the dialect does not read, a reply cut before
its form shows) names none, and is sent to every driver of the dialect.

Stdlib only.
"""

import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "adapters" / "engines"))
from known_failures import FORM_SIGNS  # noqa: E402  the path above is where it lives


def cases(path):
    """Each case of a case file, `defaults` merged under its own keys."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    defaults = data.get("defaults", {})
    for case in data.get("case", []):
        yield {**defaults, **case}


def shown(case):
    """The case's one dialect and the forms of it its reply shows, else None."""
    dialects, content = case.get("dialects", []), case.get("content")
    if len(dialects) != 1 or dialects[0] not in FORM_SIGNS or not isinstance(content, str):
        return None
    signs = FORM_SIGNS[dialects[0]]
    return dialects[0], [form for form, sign in signs.items() if re.search(sign, content, re.M)]


def findings(path):
    """(case name, the forms to add or None, the problem) for each case of the file."""
    for case in cases(path):
        found = shown(case)
        if found is None or not found[1]:
            continue
        dialect, seen = found
        form = case.get("form")
        named = [form] if isinstance(form, str) else form
        if named is None:
            yield case["name"], seen, f"shows {' and '.join(seen)} of {dialect} but has no `form` key"
        elif sorted(named) != sorted(seen):
            yield case["name"], None, f"says form {', '.join(named)} but its reply shows {', '.join(seen)}"


def add_forms(path, additions):
    """The file's text with a `form` key after the `name` line of each case in
    `additions`: a string for one form, a list for several."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for line in lines:
        out.append(line)
        match = re.fullmatch(r"name = ([\"'])(.*)\1", line)
        if match and match.group(2) in additions:
            forms = additions[match.group(2)]
            value = f'"{forms[0]}"' if len(forms) == 1 else "[" + ", ".join(f'"{f}"' for f in forms) + "]"
            out.append(f"form = {value}")
    return "\n".join(out)


def main():
    if sys.argv[1:] not in (["--check"], ["--write"]):
        sys.exit(__doc__)
    write = sys.argv[1] == "--write"
    problems = 0
    for path in sorted((ROOT / "spec-cases").rglob("*.toml")):
        found = list(findings(path))
        additions = {name: form for name, form, _ in found if form is not None}
        if write and additions:
            path.write_text(add_forms(path, additions), encoding="utf-8")
        for name, form, problem in found:
            if not (write and form is not None):
                problems += 1
                print(f"{path.relative_to(ROOT)}: case {name}: {problem}")
    if problems:
        sys.exit(f"{problems} case(s) with a missing or wrong `form` (scripts/case_forms.py --write adds the missing)")


if __name__ == "__main__":
    main()
