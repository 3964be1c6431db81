#!/usr/bin/env python3
"""Write an engine run's known-failures file from its conform report, every entry with a
reason sorted by root cause.

    python3 adapters/engines/known_failures.py REPORT.jsonl OUT.toml "TITLE" [DIALECT:FORM,…] [--token-chunks]

`toolfix conform --write-known-failures` writes the same stable ids (`CASE`, and `CASE@*`
with `partial` for a case's streaming checks) but leaves every `portable` reason a TODO;
this writes each reason from what the parser returned:

* a case that fails in batch gets one entry, its reason read from what the parser
  returned (an unoffered name, a fenced call, altered arguments, no call, an error);
* the streaming checks of a case get one entry `CASE@*` (`partial`: the chunkings that
  pass stay passes), whose reason says whether the failure is the parser's (the batch
  case fails the same way, or a chunking a server could send fails) or the harness's.

The run's driver declares its forms and `token_chunks`, so the harness does not send
what a parser was never written for; an entry whose reason starts with `harness:` is a
case the harness still sends or judges unfairly, each named for what is missing there:

* a reply written in a form of the dialect the parser does not read (DIALECT:FORM,… gives
  the forms the driver declares), sent because the case has no `form` key;
* a streaming twin sent with a hosted `adapter` although the driver declares
  `adapters = false`;
* a difference only in the text shown, filed under a safety rule;
* with --token-chunks (the driver declares it), a failure only under chunkings that cut
  a marker in two: a special token the harness does not keep whole.

Stdlib only.
"""

import json
import re
import sys
from collections import defaultdict

# How each form of a dialect with several shows in a reply (docs/protocol.md; the forms
# `toolfix smoke` names). scripts/case_forms.py checks every spec case against it.
FORM_SIGNS = {
    "deepseek": {"v3": r"<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
                 "v3-1": r"<｜tool▁call▁begin｜>(?!function<)[^<]*<｜tool▁sep｜>",
                 "v3-2-dsml": r"｜DSML｜function_calls", "v4": r"｜DSML｜tool_calls",
                 "v4-1": r"｜DSML｜ calls"},
    "glm": {"glm-4-5": r"<tool_call>[^<\n]+\n<arg_key>", "glm-4-7": r"<tool_call>[^<\n]+<arg_key>"},
    "tool_call": {"qwen-layout": r"<tool_call>\s*\n", "inline": r"<tool_call>[ \t]*\{"},
    "mistral": {"v11": r"\[TOOL_CALLS\][^\[\s]+\[ARGS\]", "array": r"\[TOOL_CALLS\]\[",
                "array-after-a-space": r"\[TOOL_CALLS\] \["},
    "pythonic": {"llama-4-tokens": r"<\|python_start\|>", "lfm2-tokens": r"<\|tool_call_start\|>",
                 "olmo-3": r"<function_calls>", "list": r"^\s*\[\w+\("},
    "harmony": {"commentary": r"(?<!<\|start\|>assistant)<\|channel\|>\w+ to=functions\.",
                "start-assistant": r"<\|start\|>assistant<\|channel\|>\w+ to=functions\.",
                "role-header": r"to=functions\.[^\s<]+\s*<\|channel\|>"},
    "gemma": {"functiongemma": r"<start_function_call>", "gemma-4": r"<\|tool_call>"},
    "phi4": {"functools": r"functools\[", "tool-call-tokens": r"<\|tool_call\|>"},
    "whole_json": {"object": r"\A\s*\{", "array": r"\A\s*\["},
}
# docs/guarantees.md: the rules about safety.
SAFETY = {"G1", "G2", "G3", "G4", "G6", "G9", "G11", "G12"}
FINE_CHUNKINGS = ("code-points", "small-", "marker-cuts")
HOSTED = ('\\"adapter\\": \\"anthropic\\"', '\\"adapter\\": \\"default\\"', '\\"adapter\\": \\"gemini\\"')


def failing(case):
    """Whether the case fails the run (a must or should case not passed, or broken). A
    known failure that passes now (`xpass`, in a run given the old file) is no failure."""
    if case["outcome"] in ("pass", "skip", "xpass"):
        return False
    return case["level"] != "may" or case["outcome"] in ("error", "crash", "timeout", "protocol", "not_run")


def calls_of(output):
    """The (name, arguments) calls of an output, or None when it has none."""
    if not isinstance(output, dict) or not output.get("calls"):
        return None
    return [(call.get("name"), call.get("arguments")) for call in output["calls"]]


def short(value, limit=90):
    """A value for a reason: JSON, cut."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def input_of(case):
    """The input a case sends, read back from its reproduce line ({} if unreadable)."""
    found = re.search(r"'(\{\"cmd\": \"run\".*\})'", (case.get("reproduce") or "").replace("'\\''", "\u0000"))
    if not found:
        return {}
    try:
        return json.loads(found.group(1).replace("\u0000", "'"))["input"]
    except (ValueError, KeyError):
        return {}


def content_of(case):
    """The reply a case sends."""
    data = input_of(case)
    return data.get("content") or "".join(data.get("chunks") or [])


# A marker a chat template writes as one special token: `<…>`, `<｜…｜>`, `[UPPER]`.
MARKER = re.compile(r"<[^\s<>]{1,48}>|\[[A-Z_]{2,32}\]")


def cuts_a_marker(case):
    """Whether a chunk boundary of a streaming check falls inside a marker: a cut no
    server streaming whole special tokens makes."""
    chunks = input_of(case).get("chunks") or []
    ends, at = set(), 0
    for chunk in chunks[:-1]:
        at += len(chunk)
        ends.add(at)
    text = "".join(chunks)
    return any(any(m.start() < end < m.end() for end in ends) for m in MARKER.finditer(text))


def other_form(case, reads):
    """The form of the case's reply when it is written only in forms the parser does not
    read: (dialect, form), else None."""
    content = content_of(case)
    for dialect, forms in reads.items():
        signs = FORM_SIGNS.get(dialect, {})
        seen = [form for form, sign in signs.items() if re.search(sign, content, re.M)]
        if seen and not any(form in forms for form in seen):
            return dialect, seen[0]
    return None


def batch_reason(case, reads=None):
    """What the parser did with a whole reply, in one sentence."""
    got, want = case.get("actual") or {}, case.get("expected") or {}
    missed = calls_of(want) and not calls_of(got) and "error" not in got
    form = other_form(case, reads or {}) if missed else None
    if form:
        return (f"harness: the reply is written in the `{form[1]}` form of `{form[0]}`, which this parser "
                f"does not read (it declares forms {', '.join(reads[form[0]])}); the case has no `form` key, "
                "so it is sent anyway")
    if "error" in got:
        return f"raises on this reply ({short(got['error'].splitlines()[0], 110)}), so the request fails"
    got_calls, want_calls = calls_of(got), calls_of(want)
    offered = case.get("rule")
    if got_calls and not want_calls:
        names = ", ".join(f"`{name}`" for name, _ in got_calls)
        if offered == "G2":
            return f"returns a call to {names} although that name was not offered (names are never checked against the tools)"
        if offered == "G1":
            return f"returns {names} from a call written inside a code fence or quoted as an example, which no model meant to run"
        if offered == "G6":
            return f"reads a call to {names} out of prose that only describes the format"
        return f"returns {names} where the reply holds no call to run ({short(got_calls)})"
    if want_calls and not got_calls:
        return f"returns no call where the reply holds {short([n for n, _ in want_calls])}"
    if got_calls and want_calls:
        if [n for n, _ in got_calls] != [n for n, _ in want_calls]:
            return f"returns the calls {short([n for n, _ in got_calls])} where the reply holds {short([n for n, _ in want_calls])}"
        return f"returns the arguments {short([a for _, a in got_calls])} where the model wrote {short([a for _, a in want_calls])}"
    return f"answers {short(got)} where {short(want)} is expected"


def stream_reason(base, twins, reads, token_chunks=False):
    """Why the streaming checks of one case fail, in one sentence."""
    failed = [t for t in twins if failing(t)]
    chunkings = sorted({t["id"].split("@", 1)[1].split("-")[0] if t["id"].split("@", 1)[1].startswith(("small-", "large-"))
                        else t["id"].split("@", 1)[1] for t in failed})
    where = ", ".join(chunkings)
    if any(h in (t.get("reproduce") or "") for t in failed for h in HOSTED):
        return ("harness: a streaming twin sent with a hosted adapter although the driver declares "
                f"adapters = false, whose batch case is never sent [{where}]")
    same_calls = all(calls_of(t.get("actual")) == calls_of(t.get("expected")) for t in failed
                     if isinstance(t.get("actual"), dict) and "error" not in t["actual"])
    only_content = same_calls and all(isinstance(t.get("actual"), dict) and "error" not in t["actual"] for t in failed)
    if only_content and failed:
        shown = short(failed[0]["actual"].get("content", ""), 60) or "it shows nothing"
        if base is not None and failing(base):
            return f"the calls are right but the text shown differs ({shown}), as the batch answer differs [{where}]"
        if failed[0].get("rule") in SAFETY:
            return ("harness: the calls are the case's; only the text shown differs "
                    f"({shown}), a display difference filed under a safety rule [{where}]")
        return f"the calls are the case's, but the text shown differs ({shown}) [{where}]"
    if base is not None and failing(base):
        reason = batch_reason(failed[0], reads)
        if reason.startswith("harness:"):
            return f"{reason} [{where}]"
        return f"streams what its batch path returns: {reason} [{where}]"
    fine_only = all(t["id"].split("@", 1)[1].startswith(FINE_CHUNKINGS) for t in failed)
    coarse_pass = any(not failing(t) for t in twins if t["id"].split("@", 1)[1].startswith(("one-chunk", "large-")))
    if token_chunks and fine_only and coarse_pass and all(cuts_a_marker(t) for t in failed):
        return ("harness: fails only when the reply is cut inside a marker (one-chunk and large chunks pass), "
                "a special token the harness does not keep whole although the driver declares token_chunks: "
                f"{batch_reason(failed[0], reads)} [{where}]")
    reason = batch_reason(failed[0], reads)
    if reason.startswith("harness:"):
        return f"{reason} [{where}]"
    return f"streaming differs from its batch answer: {reason} [{where}]"


def entries(cases, reads, token_chunks=False):
    """(comment, id, reason, partial) for every failing case or group of streaming checks."""
    by_base = defaultdict(lambda: {"base": None, "twins": []})
    for case in cases:
        base, _, chunking = case["id"].partition("@")
        if chunking:
            by_base[base]["twins"].append(case)
        else:
            by_base[base]["base"] = case
    out = []
    for base_id, group in sorted(by_base.items()):
        base = group["base"]
        if base is not None and failing(base):
            out.append((base, base_id, batch_reason(base, reads), False))
        if any(failing(t) for t in group["twins"]):
            first = next(t for t in group["twins"] if failing(t))
            out.append((first, base_id + "@*", stream_reason(base, group["twins"], reads, token_chunks), True))
    return out


def toml_string(text):
    """A TOML basic string."""
    return json.dumps(text, ensure_ascii=False)


def main():
    args = [a for a in sys.argv[1:] if a != "--token-chunks"]
    token_chunks = "--token-chunks" in sys.argv[1:]
    report, out, title = args[0], args[1], args[2]
    reads = {}
    if len(args) > 3 and args[3]:
        dialect, _, forms = args[3].partition(":")
        reads[dialect] = forms.split(",")
    cases = [json.loads(line) for line in open(report, encoding="utf-8") if line.strip()]
    header = next(c for c in cases if c.get("type") == "header")
    cases = [c for c in cases if c.get("type") == "case" and c.get("profile") == "portable"]
    listed = entries(cases, reads, token_chunks)
    harness = sum(reason.startswith("harness:") for _, _, reason, _ in listed)
    lines = [f"# Known failures of {title}, under profile portable: what the parser really does",
             "# with each input, grouped by case (a case's streaming checks share one `CASE@*`",
             "# entry). Entries whose reason starts with `harness:` fail for the harness's reasons,",
             "# not the parser's (adapters/engines/known_failures.py says which).",
             f"# Written by adapters/engines/known_failures.py from a report of `{header.get('command')}`;",
             f"# {len(listed)} entries, {harness} of them the harness's.", ""]
    for rule in sorted({case.get("rule") or "" for case, _, _, _ in listed}):
        group = [e for e in listed if (e[0].get("rule") or "") == rule]
        lines.append(f"# ---- {rule or 'no rule'}: {len(group)} entries")
        for case, case_id, reason, partial in group:
            lines.append(f"# got: {short(case.get('actual'), 200)}")
            lines.append("[[failure]]")
            lines.append(f"id = {toml_string(case_id)}")
            lines.append('profile = "portable"')
            if partial:
                lines.append("partial = true")
            lines.append(f"reason = {toml_string(reason)}")
            lines.append('link = ""')
            lines.append("")
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))


if __name__ == "__main__":
    main()
