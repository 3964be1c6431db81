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

* a reply that shows exactly one form names it;
* a case that names a form shows it, when its reply shows any form of the dialect.

A reply that shows no form (prose, a token the dialect does not read) or several (two
generations in one reply) is left as it is: every driver of the dialect is sent it.

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
    """(case name, the form to add or None, the problem) for each case of the file."""
    for case in cases(path):
        found = shown(case)
        if found is None:
            continue
        dialect, seen = found
        form = case.get("form")
        if form is None and len(seen) == 1:
            yield case["name"], seen[0], f"shows form {seen[0]} of {dialect} but has no `form` key"
        elif form is not None and seen and form not in seen:
            yield case["name"], None, f"says form {form} but its reply shows {', '.join(seen)}"


def add_forms(path, additions):
    """The file's text with `form = "…"` after the `name` line of each case in `additions`."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for line in lines:
        out.append(line)
        match = re.fullmatch(r"name = ([\"'])(.*)\1", line)
        if match and match.group(2) in additions:
            out.append(f'form = "{additions[match.group(2)]}"')
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
