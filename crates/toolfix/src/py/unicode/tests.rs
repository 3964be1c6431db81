//! Expectations here were printed by CPython 3.11.7 (Unicode 14.0.0); the exhaustive tests
//! compare every code point with CPython through the digests the generator wrote.

use super::digests::{self, BLOCK};
use super::*;
use crate::py::repr::repr_str;

/// A `PyStr` from code points, for text with lone surrogates.
fn py(cps: &[u32]) -> PyStr {
    let mut s = PyStr::new();
    cps.iter().for_each(|&c| s.push(c));
    s
}

fn assert_property(name: &str, f: fn(u32) -> bool, cases: &[(u32, bool)]) {
    for &(cp, want) in cases {
        assert_eq!(f(cp), want, "{name}(U+{cp:04X})");
    }
}

#[test]
#[rustfmt::skip]
fn is_space_matches_cpython_at_every_boundary() {
    assert_property(
        "is_space",
        is_space,
        &[
            (0x8, false), (0x9, true), (0xD, true), (0xE, false), (0x1B, false), (0x1C, true),
            (0x20, true), (0x21, false), (0x84, false), (0x85, true), (0x86, false), (0x9F, false),
            (0xA0, true), (0xA1, false), (0x167F, false), (0x1680, true), (0x1681, false),
            (0x1FFF, false), (0x2000, true), (0x200A, true), (0x200B, false), (0x2027, false),
            (0x2028, true), (0x2029, true), (0x202A, false), (0x202E, false), (0x202F, true),
            (0x2030, false), (0x205E, false), (0x205F, true), (0x2060, false), (0x2FFF, false),
            (0x3000, true), (0x3001, false), (0xFEFF, false), (0xD800, false), (0x10FFFF, false),
        ],
    );
}

#[test]
#[rustfmt::skip]
fn is_word_matches_cpython_at_boundaries() {
    assert_property(
        "is_word",
        is_word,
        &[
            (0x2F, false), (0x30, true), (0x39, true), (0x3A, false), (0x40, false), (0x41, true),
            (0x5A, true), (0x5B, false), (0x5E, false), (0x5F, true), (0x60, false), (0x61, true),
            (0x7A, true), (0x7B, false), (0xA9, false), (0xAA, true), (0xAB, false), (0xB1, false),
            (0xB2, true), (0xB3, true), (0xB4, false), (0xA9CE, false), (0xA9CF, true),
            (0xA9D9, true), (0xA9DA, false), (0xA9DF, false), (0xA9E0, true), (0xA9E4, true),
            (0xA9E5, false), (0xA9E6, true), (0xA9FE, true), (0xA9FF, false), (0xAA00, true),
            (0xAA28, true), (0xAA29, false), (0x2A6FF, false), (0x2A700, true), (0x2B738, true),
            (0x2B739, false), (0x2B73F, false), (0x2B740, true), (0x2B81D, true), (0x2B81E, false),
            (0x2B81F, false), (0x2B820, true), (0x2CEA1, true), (0x2CEA2, false), (0x2CEAF, false),
            (0x2CEB0, true), (0x2EBE0, true), (0x2EBE1, false), (0x2F7FF, false), (0x2F800, true),
            (0x2FA1D, true), (0x2FA1E, false), (0x2FFFF, false), (0x30000, true), (0x3134A, true),
            (0x3134B, false),
            // Letters and digits added after Unicode 14: not `\w` in CPython 3.11.
            (0x0CF3, false), (0x31350, false), (0xD800, false),
        ],
    );
}

#[test]
#[rustfmt::skip]
fn is_printable_matches_cpython_at_boundaries() {
    assert_property(
        "is_printable",
        is_printable,
        &[
            (0x1F, false), (0x20, true), (0x7E, true), (0x7F, false), (0xA0, false), (0xA1, true),
            (0xAC, true), (0xAD, false), (0xAE, true), (0x377, true), (0x378, false),
            (0x379, false), (0x37A, true), (0x37F, true), (0x380, false), (0x383, false),
            (0x384, true), (0x38A, true), (0x38B, false), (0x38C, true), (0x38D, false),
            (0x1003B, false), (0x1003C, true), (0x1003D, true), (0x1003E, false), (0x1003F, true),
            (0x1004D, true), (0x1004E, false), (0x1004F, false), (0x10050, true), (0x1005D, true),
            (0x1005E, false), (0x1007F, false), (0x10080, true), (0x100FA, true), (0x100FB, false),
            (0x2B73F, false), (0x2B740, true), (0x2B81D, true), (0x2B81E, false), (0x2B81F, false),
            (0x2B820, true), (0x2CEA1, true), (0x2CEA2, false), (0x2CEAF, false), (0x2CEB0, true),
            (0x2EBE0, true), (0x2EBE1, false), (0x2F7FF, false), (0x2F800, true), (0x2FA1D, true),
            (0x2FA1E, false), (0x2FFFF, false), (0x30000, true), (0x3134A, true), (0x3134B, false),
            (0xE00FF, false), (0xE0100, true), (0xE01EF, true), (0xE01F0, false),
            // Assigned after Unicode 14, format and separator characters, surrogates.
            (0x1F6DC, false), (0x200B, false), (0x2028, false), (0xD800, false),
            (0x10FFFF, false),
        ],
    );
}

#[test]
#[rustfmt::skip]
fn lower_maps_single_code_points_like_cpython() {
    let cases: &[(u32, &[u32])] = &[
        (0x40, &[0x40]), (0x41, &[0x61]), (0x5A, &[0x7A]), (0x5B, &[0x5B]), (0xBF, &[0xBF]),
        (0xC0, &[0xE0]), (0xD6, &[0xF6]), (0xD7, &[0xD7]), (0xD8, &[0xF8]), (0xDE, &[0xFE]),
        (0xDF, &[0xDF]), (0x100, &[0x101]), (0x101, &[0x101]), (0x12E, &[0x12F]),
        (0x12F, &[0x12F]), (0x130, &[0x69, 0x307]), (0x131, &[0x131]), (0x178, &[0xFF]),
        (0x179, &[0x17A]), (0x17A, &[0x17A]), (0x17F, &[0x17F]), (0x1C4, &[0x1C6]),
        (0x1C5, &[0x1C6]), (0x1C6, &[0x1C6]), (0x3A3, &[0x3C3]), (0x3F4, &[0x3B8]),
        (0x1E9E, &[0xDF]), (0x1F88, &[0x1F80]), (0x2126, &[0x3C9]), (0x212A, &[0x6B]),
        (0x212B, &[0xE5]), (0x2C2F, &[0x2C5F]), (0xA7C0, &[0xA7C1]), (0xA7F5, &[0xA7F6]),
        (0x10400, &[0x10428]), (0x10570, &[0x10597]), (0x1E900, &[0x1E922]),
        (0x1E921, &[0x1E943]), (0x1E922, &[0x1E922]),
        // Capitals added after Unicode 14 have no lowercase in CPython 3.11.
        (0x1C89, &[0x1C89]), (0xA7CB, &[0xA7CB]),
        (0xD800, &[0xD800]), (0xDFFF, &[0xDFFF]), (0x10FFFF, &[0x10FFFF]),
    ];
    for &(cp, want) in cases {
        assert_eq!(lower(&py(&[cp])), py(want), "lower(U+{cp:04X})");
    }
}

#[test]
fn lower_applies_final_sigma_like_cpython() {
    let cases = [
        ("ΑΣ", "ας"),
        ("ΑΣ ΑΣ.", "ας ας."),
        ("Σ", "σ"),
        ("AΣ", "aς"),
        ("AΣb", "aσb"),
        ("A'Σ", "a'ς"),
        ("AΣ'", "aς'"),
        ("AΣ'b", "aσ'b"),
        ("A'Σ'b", "a'σ'b"),
        ("A'Σ'.", "a'ς'."),
        ("'Σ", "'σ"),
        ("A\u{301}Σ", "a\u{301}ς"),
        ("AΣ\u{301}", "aς\u{301}"),
        ("AΣ\u{301}b", "aσ\u{301}b"),
        ("A.:'Σ", "a.:'ς"),
        ("ΣΣ", "σς"),
        ("ΣΣΣ", "σσς"),
        ("A\u{AD}Σ", "a\u{AD}ς"),
        ("1Σ", "1σ"),
        ("AΣ1", "aς1"),
        ("A Σ", "a σ"),
        ("\u{345}Σ", "\u{345}σ"),
        ("A\u{345}Σ", "a\u{345}ς"),
        ("ΑΣ\u{345}", "ας\u{345}"),
        ("İΣ", "i\u{307}ς"),
        ("ΣA", "σa"),
        ("Σ\u{301}", "σ\u{301}"),
        ("aΣ\u{2019}", "aς\u{2019}"),
        ("ὈΔΥΣΣΕΎΣ", "ὀδυσσεύς"),
        ("ΌΣΟΣ ΣΟΦΌΣ", "όσος σοφός"),
        ("ǅΣ", "ǆς"),
        ("ᾼΣ", "ᾳς"),
        // U+02B0 is cased but also case-ignorable, so the scan skips it.
        ("\u{2B0}Σ", "\u{2B0}σ"),
        ("A\u{2B0}Σ", "a\u{2B0}ς"),
    ];
    for (text, want) in cases {
        assert_eq!(lower(&PyStr::from(text)), want, "lower({text:?})");
    }
}

#[test]
fn lower_keeps_surrogates_and_expands_dotted_capital_i() {
    assert_eq!(lower(&PyStr::from("İ")), "i\u{307}");
    assert_eq!(lower(&PyStr::from("KELVIN\u{212A}")), "kelvink");
    let cases: &[(&[u32], &[u32])] = &[
        (&[0xD800, 0x3A3], &[0xD800, 0x3C3]),
        (&[0x41, 0xD800, 0x3A3], &[0x61, 0xD800, 0x3C3]),
        (&[0x41, 0x3A3, 0xDC00], &[0x61, 0x3C2, 0xDC00]),
    ];
    for &(text, want) in cases {
        assert_eq!(lower(&py(text)), py(want), "lower({text:X?})");
    }
    assert_eq!(lower(&PyStr::new()), "");
}

#[test]
fn ignorecase_ascii_matches_cpython() {
    let cases = [
        (u32::from('A'), Some(b'a')),
        (u32::from('z'), Some(b'z')),
        (u32::from('1'), None),
        (u32::from('_'), None),
        (0x130, Some(b'i')),
        (0x131, Some(b'i')),
        (0x17F, Some(b's')),
        (0x212A, Some(b'k')),
        (0x212B, None),
        (0xDF, None),
        (0xFF41, None),
        (0xD800, None),
    ];
    for (cp, want) in cases {
        assert_eq!(ignorecase_ascii(cp), want, "ignorecase_ascii(U+{cp:04X})");
    }
}

#[test]
fn lower_adds_ascii_only_for_dotted_capital_i_and_kelvin() {
    assert_eq!(LOWER_ADDS_ASCII, &[0x130, 0x212A]);
}

#[test]
fn strip_removes_python_whitespace_only() {
    let cases: &[(&str, &str)] = &[
        ("", ""),
        (" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", ""),
        ("  x y \u{3000}", "x y"),
        ("\u{85}a\u{A0}", "a"),
        ("\u{2028}\u{202F}a\u{205F}\u{1680}", "a"),
        ("\u{200B} x \u{FEFF}", "\u{200B} x \u{FEFF}"),
        ("é", "é"),
    ];
    for &(text, want) in cases {
        assert_eq!(strip(text.as_bytes()), want.as_bytes(), "strip({text:?})");
    }
    assert_eq!(
        strip(py(&[0x20, 0xD800, 0x20]).as_bytes()),
        py(&[0xD800]).as_bytes()
    );
}

#[test]
fn strip_stops_at_bytes_that_do_not_decode() {
    assert_eq!(strip(&[0x80, 0x20]), &[0x80]);
    assert_eq!(strip(&[0x20, 0xE3, 0x80]), &[0xE3, 0x80]);
    // U+3000 is a whole space sequence; the stray continuation byte after it stops.
    assert_eq!(strip(&[0xE3, 0x80, 0x80, 0x80]), &[0x80]);
    assert_eq!(
        strip(&[0x20, 0x80, 0x80, 0x80, 0xA0]),
        &[0x80, 0x80, 0x80, 0xA0]
    );
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

/// Recomputes, through the public API, each block's FNV-1a 64 of the records CPython
/// produced (as described on each array in `digests.rs`), and names the blocks that differ.
fn check_against_cpython(name: &str, expected: &[u64], record: impl Fn(u32, &mut Vec<u8>)) {
    assert_eq!(
        expected.len() as u32 * BLOCK,
        0x11_0000,
        "{name} covers all code points"
    );
    let mut differing = Vec::new();
    let mut records = Vec::new();
    for (block, &want) in (0..).zip(expected) {
        records.clear();
        let base = block * BLOCK;
        (base..base + BLOCK).for_each(|cp| record(cp, &mut records));
        let got = records.iter().fold(FNV_OFFSET, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
        });
        if got != want {
            differing.push(format!("U+{base:04X}..U+{:04X}", base + BLOCK - 1));
        }
    }
    assert!(
        differing.is_empty(),
        "{name} differs from CPython in {differing:?}"
    );
}

#[test]
fn flags_match_cpython_for_every_code_point() {
    check_against_cpython("flags", &digests::FLAGS, |cp, out| {
        let alone = py(&[cp]);
        let stripped_away = strip(alone.as_bytes()).is_empty();
        out.push(
            u8::from(is_space(cp))
                | u8::from(is_word(cp)) << 1
                | u8::from(is_printable(cp)) << 2
                | u8::from(stripped_away) << 3,
        );
    });
}

#[test]
fn final_sigma_matches_cpython_around_every_code_point() {
    const FINAL: &[u8] = "ς".as_bytes();
    check_against_cpython("final sigma", &digests::SIGMA, |cp, out| {
        let after_cased = lower(&py(&[0x41, cp, CAPITAL_SIGMA]));
        let alone_before = lower(&py(&[cp, CAPITAL_SIGMA]));
        let after_sigma = lower(&py(&[0x41, CAPITAL_SIGMA, cp]));
        out.push(
            u8::from(after_cased.as_bytes().ends_with(FINAL))
                | u8::from(alone_before.as_bytes().ends_with(FINAL)) << 1
                | u8::from(after_sigma.as_bytes().get(1..3) == Some(FINAL)) << 2,
        );
    });
}

#[test]
fn lower_matches_cpython_for_every_code_point() {
    check_against_cpython("lower", &digests::LOWER, |cp, out| {
        out.extend_from_slice(lower(&py(&[cp])).as_bytes());
        out.push(0xFF);
    });
}

#[test]
fn ignorecase_matches_cpython_for_every_code_point() {
    check_against_cpython("ignorecase", &digests::IGNORECASE, |cp, out| {
        out.push(ignorecase_ascii(cp).unwrap_or(0));
    });
}

#[test]
fn repr_matches_cpython_for_every_code_point() {
    check_against_cpython("repr", &digests::REPR, |cp, out| {
        out.extend_from_slice(repr_str(&py(&[cp])).as_bytes());
        out.push(0xFF);
    });
}

#[test]
#[rustfmt::skip]
fn is_identifier_matches_cpython() {
    let cases: &[(&str, bool)] = &[
        ("", false), ("a", true), ("_", true), ("__init__", true), ("A1", true), ("1a", false),
        ("9", false), ("a b", false), ("a-b", false), ("a$", false), ("a\0", false),
        ("web_search", true),
        // U+00B7 MIDDLE DOT continues but cannot start; U+2118 and U+212E start
        // (Other_ID_Start); U+309B is ID_Start but not XID_Start, nor XID_Continue.
        ("a\u{B7}", true), ("\u{B7}", false), ("\u{B7}a", false), ("\u{2118}", true),
        ("\u{212E}", true), ("a\u{2118}", true), ("\u{309B}", false), ("a\u{309B}", false),
        ("\u{309D}", true), ("a\u{AA}", true),
        // No NFKC normalisation: the code points are tested as they are.
        ("\u{FB01}le", true), ("a\u{B2}", false), ("\u{2122}", false), ("\u{24B6}", false),
        ("\u{FF46}\u{FF4F}\u{FF52}", true),
        // Digits continue but cannot start, in every script.
        ("\u{661}", false), ("a\u{661}", true), ("\u{1369}", false), ("a\u{1369}", true),
        ("été", true), ("Σσ", true), ("中文", true), ("a\u{301}", true), ("\u{301}a", false),
        ("\u{1D400}", true), ("\u{1F600}", false), ("a\u{E0100}", true), ("\u{3000}", false),
        // Unicode 14: ZWNJ and ZWJ are not XID_Continue yet; later letters are not letters.
        ("a\u{200C}", false), ("a\u{200D}", false), ("a\u{200B}", false),
        ("\u{31350}", false), ("a\u{CF3}", false),
    ];
    for &(text, want) in cases {
        assert_eq!(is_identifier(&PyStr::from(text)), want, "{text:?}.isidentifier()");
    }
    // Lone surrogates are neither XID_Start nor XID_Continue.
    for cps in [&[0xD800][..], &[0x61, 0xD800], &[0xDFFF, 0x5F]] {
        assert!(!is_identifier(&py(cps)), "{cps:X?}");
    }
}

#[test]
#[rustfmt::skip]
fn is_digit_matches_cpython() {
    assert_property(
        "is_digit",
        is_digit,
        &[
            (0x2F, false), (0x30, true), (0x39, true), (0x3A, false), (0xB2, true), (0xBC, false),
            (0x660, true), (0x1369, true), (0x19DA, true), (0x2070, true), (0x2071, false),
            (0x2155, false), (0x2460, true), (0x3007, false), (0x16B0, false), (0xFF10, true),
            (0x1D7CE, true), (0x1F100, true), (0x1F10A, true), (0xD800, false),
        ],
    );
}

#[test]
fn identifier_matches_cpython_for_every_code_point() {
    check_against_cpython("identifier", &digests::IDENTIFIER, |cp, out| {
        let after_letter = py(&[u32::from('a'), cp]);
        out.push(u8::from(is_identifier(&py(&[cp]))) | u8::from(is_identifier(&after_letter)) << 1);
    });
}

#[test]
fn digit_matches_cpython_for_every_code_point() {
    check_against_cpython("digit", &digests::DIGIT, |cp, out| {
        out.push(u8::from(is_digit(cp)));
    });
}
