#!/usr/bin/env python3
"""Generate toolfix's Unicode tables from CPython 3.11's own behaviour.

Writes two files (run from anywhere; paths are relative to this script):

* ``crates/toolfix/src/py/unicode/tables.rs``: the range and mapping tables behind
  ``py::unicode`` (``str.isspace``, ``re``'s ``\\w``, ``str.isprintable``,
  ``str.lower`` with its Final_Sigma rule, ``re.IGNORECASE`` equivalences with
  ASCII letters, ``str.isidentifier`` and ``str.isdigit``).
* ``crates/toolfix/src/py/unicode/digests.rs``: per-block FNV-1a digests of CPython's answers
  for *every* code point, which a unit test recomputes through the Rust API,
  so ``cargo test`` checks the full tables without storing CPython's output.

Every table is read off CPython's behaviour, not off the Unicode data files:
the crate must match what praisonaiagents sees under CPython 3.11, whose
``unicodedata`` is Unicode 14.0.0, while Rust's own tables follow a newer
Unicode. Where CPython exposes no direct API (the ``cased`` and
``case-ignorable`` properties that ``str.lower`` consults for Final_Sigma),
the property is derived by probing ``str.lower`` itself; see
``sigma_classes``.

The output is deterministic: the same interpreter always writes the same bytes.
"""

import platform
import re
import string
import sys
import unicodedata
from pathlib import Path

assert sys.implementation.name == "cpython", "tables must come from CPython"
assert sys.version_info[:2] == (3, 11), "tables must come from CPython 3.11"
assert unicodedata.unidata_version == "14.0.0", "CPython 3.11 ships Unicode 14.0.0"

MAX_CP = 0x10FFFF
ALL_CPS = range(MAX_CP + 1)
# Digest block size: 68 blocks cover U+0000..U+10FFFF.
BLOCK = 0x4000
CAPITAL_SIGMA = "\u03a3"
FINAL_SIGMA = "\u03c2"
ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "crates" / "toolfix" / "src" / "py" / "unicode"


def utf8(s):
    """Generalized UTF-8, the encoding of toolfix's PyStr (lone surrogates kept)."""
    return s.encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------
# Properties, each read off CPython.
# ---------------------------------------------------------------------------


def is_space(c):
    return chr(c).isspace()


def is_word(c):
    ch = chr(c)
    return ch.isalnum() or ch == "_"


def is_printable(c):
    return chr(c).isprintable()


def is_identifier_start(c):
    """`chr(c).isidentifier()`: XID_Start, or `_` (CPython's `_PyUnicode_ScanIdentifier`)."""
    return chr(c).isidentifier()


def is_identifier_continue(c):
    """`('a' + chr(c)).isidentifier()`: XID_Continue."""
    return ("a" + chr(c)).isidentifier()


def is_digit(c):
    return chr(c).isdigit()


def check_identifier_rule(start, cont):
    """`str.isidentifier()` is per code point: the first XID_Start or `_`, the rest XID_Continue.

    The tables hold one-character answers; these probes show that a code point's answer
    does not depend on its neighbours or its position after the first, that every start is
    a continue, and that no NFKC normalisation happens (U+2122 TRADE MARK SIGN is refused
    although its NFKC form `TM` is an identifier).
    """
    start_set, cont_set = set(start), set(cont)
    for c in ALL_CPS:
        ch = chr(c)
        assert (ch + "a").isidentifier() == (c in start_set), hex(c)
        assert ("_" + ch).isidentifier() == (c in cont_set), hex(c)
        assert ("a" + ch + "a").isidentifier() == (c in cont_set), hex(c)
        assert ("ab" + ch).isidentifier() == (c in cont_set), hex(c)
    assert start_set <= cont_set
    ascii_start = {ord(x) for x in string.ascii_letters + "_"}
    assert {c for c in start if c < 0x80} == ascii_start
    assert {c for c in cont if c < 0x80} == ascii_start | {ord(x) for x in string.digits}
    assert not any(0xD800 <= c <= 0xDFFF for c in cont)
    assert not "\u2122".isidentifier() and not "a\u00b2".isidentifier() and "TM".isidentifier()
    assert 0xB7 in cont_set and 0xB7 not in start_set
    assert {0x2118, 0x212E} <= start_set and 0x309B not in cont_set
    assert not "".isidentifier()


def check_digits(digit):
    """`str.isdigit()` of a string is every code point's answer; ASCII digits are 0-9."""
    digit_set = set(digit)
    for c in ALL_CPS:
        assert ("0" + chr(c) + "9").isdigit() == (c in digit_set), hex(c)
    assert [c for c in digit if c < 0x80] == list(range(0x30, 0x3A))
    assert not "".isdigit()


def check_regex_classes():
    """`re`'s \\s and \\w for str patterns are exactly isspace and isalnum-or-underscore."""
    space_re = re.compile(r"\s")
    word_re = re.compile(r"\w")
    for c in ALL_CPS:
        ch = chr(c)
        assert bool(space_re.fullmatch(ch)) == is_space(c), hex(c)
        assert bool(word_re.fullmatch(ch)) == is_word(c), hex(c)
        assert (ch.strip() == "") == is_space(c), hex(c)


def sigma_probes(c):
    """Three Final_Sigma probes around code point `c`, as a 3-bit number.

    CPython's `lower()` maps U+03A3 to U+03C2 when the sigma is preceded by
    cased (case-ignorable)* and not followed by (case-ignorable)* cased
    (`handle_capital_sigma` in Objects/unicodeobject.c). With `A` cased:

    * bit 0: 'A' + c + 'Σ' ends in ς  <=>  ignorable(c) or cased(c)
    * bit 1: c + 'Σ' ends in ς        <=>  not ignorable(c) and cased(c)
    * bit 2: 'AΣ' + c has ς second    <=>  ignorable(c) or not cased(c)
    """
    ch = chr(c)
    p1 = ("A" + ch + CAPITAL_SIGMA).lower().endswith(FINAL_SIGMA)
    p2 = (ch + CAPITAL_SIGMA).lower().endswith(FINAL_SIGMA)
    p3 = ("A" + CAPITAL_SIGMA + ch).lower()[1] == FINAL_SIGMA
    return p1 | p2 << 1 | p3 << 2


def sigma_classes(probes):
    """Split code points into the classes `handle_capital_sigma` can tell apart.

    Both of its scans skip case-ignorable characters, so a character that is
    case-ignorable is never tested for being cased: the classes lower() can
    observe are "case-ignorable", "cased and not case-ignorable" and "neither".
    The probes identify them exactly (see `sigma_probes`); the third probe is
    redundant and is checked for consistency.
    """
    ignorable, cased = [], []
    for c in ALL_CPS:
        p = probes[c]
        p1, p2, p3 = p & 1, p >> 1 & 1, p >> 2 & 1
        if p2:
            assert p1 and not p3, hex(c)
            cased.append(c)
        elif p1:
            assert p3, hex(c)
            ignorable.append(c)
        else:
            assert p3, hex(c)
    return ignorable, cased


def lower_mappings():
    """Code points whose lower() differs from themselves: single and multi-code-point."""
    single, multi = {}, {}
    for c in ALL_CPS:
        low = chr(c).lower()
        if low == chr(c):
            continue
        if len(low) == 1:
            single[c] = ord(low)
        else:
            multi[c] = [ord(x) for x in low]
    assert multi == {0x130: [0x69, 0x307]}, multi
    return single, multi


def lower_runs(single):
    """Compress single mappings into runs (start, end, stride, lower(start)).

    Within a run the code points start, start+stride, ..., end map to
    lower(start) + (c - start). Runs are built over consecutive mapped code
    points, so they never overlap.
    """
    runs = []
    for c in sorted(single):
        if runs:
            start, end, stride, target = runs[-1]
            gap = c - end
            same_shift = single[c] - c == target - start
            if same_shift and (gap == stride or (start == end and gap in (1, 2))):
                runs[-1] = (start, c, gap, target)
                continue
        runs.append((c, c, 1, single[c]))
    for start, end, stride, target in runs:
        for c in range(start, end + 1):
            mapped = (c - start) % stride == 0
            assert (single.get(c) == target + c - start) == mapped, hex(c)
    return runs


def ignorecase_ascii():
    """For every code point, the ASCII letters `(?i)x` fully matches, as lowercase."""
    found = {}
    for x in string.ascii_letters:
        pattern = re.compile("(?i)" + x)
        for c in ALL_CPS:
            if pattern.fullmatch(chr(c)):
                found.setdefault(c, set()).add(x.lower())
    for c, letters in found.items():
        assert len(letters) == 1, (hex(c), letters)
    result = {c: letters.pop() for c, letters in found.items()}
    for c in range(0x80):
        ch = chr(c)
        assert result.get(c) == (ch.lower() if ch.isalpha() else None), hex(c)
    non_ascii = {c: x for c, x in result.items() if c >= 0x80}
    assert non_ascii == {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}, non_ascii
    return result


def lower_adds_ascii():
    found = [c for c in range(0x80, MAX_CP + 1) if any(ord(x) < 0x80 for x in chr(c).lower())]
    assert found == [0x130, 0x212A], found
    return found


def ranges(members):
    """Sorted code points -> sorted inclusive (start, end) ranges."""
    out = []
    for c in members:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [tuple(r) for r in out]


# ---------------------------------------------------------------------------
# Digests of CPython's answers for every code point.
# ---------------------------------------------------------------------------

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def fnv1a(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def block_digests(record):
    """FNV-1a 64 of the concatenated records of each BLOCK of code points."""
    return [
        fnv1a(b"".join(record(c) for c in range(base, base + BLOCK)))
        for base in range(0, MAX_CP + 1, BLOCK)
    ]


def flags_record(c):
    ch = chr(c)
    bits = ch.isspace() | is_word(c) << 1 | ch.isprintable() << 2 | (ch.strip() == "") << 3
    return bytes([bits])


def lower_record(c):
    return utf8(chr(c).lower()) + b"\xff"


def repr_record(c):
    return utf8(repr(chr(c))) + b"\xff"


def identifier_record(c):
    return bytes([is_identifier_start(c) | is_identifier_continue(c) << 1])


# ---------------------------------------------------------------------------
# Rust output.
# ---------------------------------------------------------------------------


def header(purpose, details):
    """The file's inner doc comment: what it is, how it was generated, then `details`."""
    lines = [
        purpose,
        "",
        f"GENERATED by `scripts/gen_unicode_tables.py` under CPython {platform.python_version()},",
        f"`unicodedata.unidata_version` {unicodedata.unidata_version}. Do not edit: "
        "change the script and re-run it.",
        "",
        *details,
    ]
    return [f"//! {line}".rstrip() for line in lines] + [""]


def packed(items, indent="    ", width=100):
    """Items joined by spaces, wrapped at `width` columns."""
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def table(doc, decl, items, open_bracket="&["):
    lines = [f"/// {d}".rstrip() for d in doc] + [f"{decl} = {open_bracket}"]
    return lines + packed(items) + ["];", ""]


def range_table(name, doc, rs):
    items = [f"(0x{a:X}, 0x{b:X})," for a, b in rs]
    return table(doc, f"pub static {name}: &[(u32, u32)]", items)


def tables_rs(
    space, word, printable, ignorable, cased, runs, multi, icase, adds_ascii, start, cont, digit
):
    out = header(
        "Unicode tables for CPython 3.11 `str` and `re` semantics.",
        [
            "Range tables are sorted, disjoint, inclusive `(start, end)` code point ranges,",
            "searched by binary search.",
        ],
    )
    out += range_table(
        "SPACE",
        ["`str.isspace()`: also `re`'s `\\s` for str patterns and what `str.strip()` strips."],
        ranges(space),
    )
    out += range_table(
        "WORD", ["`re`'s `\\w` for str patterns: `ch.isalnum() or ch == '_'`."], ranges(word)
    )
    out += range_table(
        "PRINTABLE", ["`str.isprintable()` of a one-character string."], ranges(printable)
    )
    out += range_table(
        "CASE_IGNORABLE",
        [
            "Case-ignorable for `str.lower()`'s Final_Sigma rule, probed from `str.lower`.",
        ],
        ranges(ignorable),
    )
    out += range_table(
        "CASED",
        [
            "Cased and not case-ignorable, probed from `str.lower`: the only cased",
            "characters Final_Sigma can observe, since both of its scans skip",
            "case-ignorable ones.",
        ],
        ranges(cased),
    )
    out += table(
        [
            "`str.lower()` of single code points that map to one other code point, as runs",
            "`(start, end, stride, lower(start))`: `start`, `start + stride`, ... `end` map to",
            "`lower(start) + (c - start)`. U+03A3 maps to U+03C3 here; Final_Sigma is code.",
        ],
        "pub static LOWER_RUNS: &[(u32, u32, u32, u32)]",
        [f"(0x{a:X}, 0x{b:X}, {s}, 0x{t:X})," for a, b, s, t in runs],
    )
    out += table(
        ["`str.lower()` of code points that map to several code points."],
        "pub static LOWER_MULTI: &[(u32, &[u32])]",
        [
            f"(0x{c:X}, &[{', '.join(f'0x{x:X}' for x in xs)}]),"
            for c, xs in sorted(multi.items())
        ],
    )
    out += table(
        [
            "Non-ASCII code points that `re.fullmatch('(?i)' + x, ch)` matches for an ASCII",
            "letter `x`, with that letter in lowercase.",
        ],
        "pub static IGNORECASE_ASCII: &[(u32, u8)]",
        [f"(0x{c:X}, b'{x}')," for c, x in sorted(icase.items()) if c >= 0x80],
    )
    out += table(
        ["Non-ASCII code points whose `str.lower()` contains an ASCII character."],
        "#[cfg(test)]\npub const LOWER_ADDS_ASCII: &[u32]",
        [f"0x{c:X}," for c in adds_ascii],
    )
    out += range_table(
        "IDENTIFIER_START",
        [
            "`ch.isidentifier()` of a one-character string: XID_Start plus `_`, what",
            "`str.isidentifier()` demands of the first code point.",
        ],
        ranges(start),
    )
    out += range_table(
        "IDENTIFIER_CONTINUE",
        [
            "`('a' + ch).isidentifier()`: XID_Continue, what `str.isidentifier()` demands of",
            "every code point after the first.",
        ],
        ranges(cont),
    )
    out += range_table(
        "DIGIT",
        [
            "`ch.isdigit()` of a one-character string: `inspect.Parameter` renames `.0` only",
            "when the rest of the name passes it.",
        ],
        ranges(digit),
    )
    return "\n".join(out).rstrip() + "\n"


def digests_rs(digests):
    out = header(
        "Digests of CPython 3.11's answers for every code point, for the exhaustive test.",
        [
            "Each array holds, per block of `BLOCK` code points from U+0000, the FNV-1a 64",
            "digest of the concatenated per-code-point records described on the array.",
        ],
    )
    out += [
        "/// Code points per digest block.",
        f"pub const BLOCK: u32 = 0x{BLOCK:X};",
        "",
    ]
    for name, doc, values in digests:
        items = [f"0x{v:016X}," for v in values]
        out += table(doc, f"pub static {name}: [u64; {len(values)}]", items, "[")
    return "\n".join(out).rstrip() + "\n"


def main():
    check_regex_classes()
    space = [c for c in ALL_CPS if is_space(c)]
    assert space == [
        *range(0x9, 0xE), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
        0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    ], space
    word = [c for c in ALL_CPS if is_word(c)]
    printable = [c for c in ALL_CPS if is_printable(c)]
    probes = [sigma_probes(c) for c in ALL_CPS]
    ignorable, cased = sigma_classes(probes)
    single, multi = lower_mappings()
    runs = lower_runs(single)
    icase = ignorecase_ascii()
    adds_ascii = lower_adds_ascii()
    start = [c for c in ALL_CPS if is_identifier_start(c)]
    cont = [c for c in ALL_CPS if is_identifier_continue(c)]
    check_identifier_rule(start, cont)
    digit = [c for c in ALL_CPS if is_digit(c)]
    check_digits(digit)

    tables = tables_rs(
        space, word, printable, ignorable, cased, runs, multi, icase, adds_ascii, start, cont, digit
    )
    (OUT_DIR / "tables.rs").write_text(tables)

    digests = [
        (
            "FLAGS",
            [
                "One byte per code point: bit 0 `isspace()`, bit 1 `re` `\\w`, bit 2",
                "`isprintable()`, bit 3 `ch.strip() == ''`.",
            ],
            block_digests(flags_record),
        ),
        (
            "SIGMA",
            [
                "One byte per code point `c`: bit 0 `('A' + c + 'Σ').lower()` ends in 'ς', bit 1",
                "`(c + 'Σ').lower()` ends in 'ς', bit 2 `('AΣ' + c).lower()[1] == 'ς'`.",
            ],
            block_digests(lambda c: bytes([probes[c]])),
        ),
        (
            "LOWER",
            ["Per code point: `chr(c).lower()` in generalized UTF-8, then byte 0xFF."],
            block_digests(lower_record),
        ),
        (
            "IGNORECASE",
            [
                "One byte per code point: the lowercase ASCII letter `x` for which",
                "`re.fullmatch('(?i)' + x, chr(c))` matches, or 0.",
            ],
            block_digests(lambda c: icase.get(c, "\0").encode("ascii")),
        ),
        (
            "REPR",
            ["Per code point: `repr(chr(c))` in generalized UTF-8, then byte 0xFF."],
            block_digests(repr_record),
        ),
        (
            "IDENTIFIER",
            [
                "One byte per code point: bit 0 `chr(c).isidentifier()`, bit 1",
                "`('a' + chr(c)).isidentifier()`.",
            ],
            block_digests(identifier_record),
        ),
        (
            "DIGIT",
            ["One byte per code point: `chr(c).isdigit()`."],
            block_digests(lambda c: bytes([is_digit(c)])),
        ),
    ]
    (OUT_DIR / "digests.rs").write_text(digests_rs(digests))
    print(
        f"tables.rs: {len(tables)} bytes; SPACE {len(ranges(space))}, WORD {len(ranges(word))}, "
        f"PRINTABLE {len(ranges(printable))}, CASE_IGNORABLE {len(ranges(ignorable))}, "
        f"CASED {len(ranges(cased))} ranges; LOWER_RUNS {len(runs)}, LOWER_MULTI {len(multi)}; "
        f"IDENTIFIER_START {len(ranges(start))}, IDENTIFIER_CONTINUE {len(ranges(cont))}, "
        f"DIGIT {len(ranges(digit))} ranges"
    )


if __name__ == "__main__":
    main()
