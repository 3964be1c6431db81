//! Text primitives of the grammar: whitespace as Python sees it, the case variants the
//! dialect patterns accept, and fuzzer bytes as a Python `str`.

use arbitrary::Result;

use super::choice::Gen;
use toolfix::py::PyStr;

/// Runs of `str.isspace` characters: what `\s` matches in the dialect patterns, what
/// `str.strip()` removes around whole-content JSON, and what `_json_object_at` skips.
/// Rust's `char::is_whitespace` differs (it lacks `\x1c`-`\x1f`), which is the point.
const SPACES: [&str; 14] = [
    "", " ", "\n", "\t", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\u{85}", "\u{a0}", "\u{2028}",
    "\u{3000}", " \n\t ",
];

/// JSON's own whitespace, the only kind allowed between the tokens of a payload.
const JSON_SPACES: [&str; 5] = ["", " ", "\n", "\t", "\r\n  "];

/// A run of `\s` (possibly empty).
pub fn space(g: &mut Gen<'_, '_>) -> Result<&'static str> {
    g.pick(&SPACES)
}

/// A run of JSON whitespace (possibly empty).
pub fn json_space(g: &mut Gen<'_, '_>) -> Result<&'static str> {
    g.pick(&JSON_SPACES)
}

/// What separates two segments: never empty in clean replies, so a ReAct step always
/// starts at a word boundary and prose never runs into a tag.
pub fn separator(g: &mut Gen<'_, '_>) -> Result<&'static str> {
    if g.hostile() {
        g.pick(&SPACES)
    } else {
        g.pick(&SPACES[1..])
    }
}

/// How a tag's letters are written. The patterns are compiled with `re.IGNORECASE`, so
/// every variant matches; the folded ones use the non-ASCII letters Python's `re` folds
/// to ASCII (`ı` and `İ` to `i`, `ſ` to `s`, `K` to `k`), which `str.lower()` does not,
/// so a folded opening tag is no marker for the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Casing {
    /// `<tool_call>`
    Lower,
    /// `<TOOL_CALL>`
    Upper,
    /// `<ToOl_CaLl>`
    Alternating,
    /// `<Tool_call>`, `Action`: the first letter upper.
    Title,
    /// `<functıon=` (dotless i, long s, Kelvin sign)
    Dotless,
    /// `<functİon=` (dotted capital I, long s, Kelvin sign)
    Dotted,
}

impl Casing {
    const ALL: [Casing; 6] = [
        Casing::Lower,
        Casing::Upper,
        Casing::Alternating,
        Casing::Title,
        Casing::Dotless,
        Casing::Dotted,
    ];

    /// Any variant.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Casing> {
        g.pick(&Casing::ALL)
    }

    /// `template` (ASCII, in any case: the registry writes some tags upper) written in
    /// this case.
    pub fn apply(self, template: &str) -> String {
        let mut letters = 0;
        template
            .chars()
            .map(|c| {
                let c = c.to_ascii_lowercase();
                if c.is_ascii_alphabetic() {
                    letters += 1;
                }
                match self {
                    Casing::Lower => c,
                    Casing::Upper => c.to_ascii_uppercase(),
                    Casing::Alternating if letters % 2 == 1 => c.to_ascii_uppercase(),
                    Casing::Alternating => c,
                    Casing::Title if letters == 1 && c.is_ascii_alphabetic() => {
                        c.to_ascii_uppercase()
                    }
                    Casing::Title => c,
                    Casing::Dotless => fold(c, 'ı'),
                    Casing::Dotted => fold(c, 'İ'),
                }
            })
            .collect()
    }
}

/// The `re.IGNORECASE` fold of `c`, using `i_fold` for `i`.
fn fold(c: char, i_fold: char) -> char {
    match c {
        'i' => i_fold,
        's' => 'ſ',
        'k' => '\u{212A}',
        other => other,
    }
}

/// Fuzzer bytes as a Python `str` in generalized UTF-8: valid UTF-8 sequences as they
/// are, the three-byte encodings of surrogates (`ED A0..BF 80..BF`) as lone surrogates,
/// and every other byte as U+FFFD.
///
/// Valid runs are copied whole (`std::str::from_utf8` finds where they end), and only the
/// byte at each error goes through `code_point_at`: pushing every code point alone was a
/// fifth of the `pyjson` target's time.
pub fn py_str_from_bytes(bytes: &[u8]) -> PyStr {
    let mut out = PyStr::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match std::str::from_utf8(&bytes[i..]) {
            Ok(rest) => {
                out.push_str(rest);
                break;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                out.push_str(std::str::from_utf8(&bytes[i..i + valid]).expect("valid up to"));
                let (cp, len) = code_point_at(&bytes[i + valid..]);
                out.push(cp);
                i += valid + len;
            }
        }
    }
    out
}

/// The code point at the start of `bytes` (not empty) and its length.
fn code_point_at(bytes: &[u8]) -> (u32, usize) {
    if let [0xED, b1 @ 0xA0..=0xBF, b2 @ 0x80..=0xBF, ..] = *bytes {
        return (0xD000 | u32::from(b1 & 0x3F) << 6 | u32::from(b2 & 0x3F), 3);
    }
    let width = match bytes[0] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (0xFFFD, 1),
    };
    match bytes.get(..width).and_then(|b| std::str::from_utf8(b).ok()) {
        Some(s) => (s.chars().next().map_or(0xFFFD, u32::from), width),
        None => (0xFFFD, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_only_the_letters_python_folds() {
        assert_eq!(Casing::Dotless.apply("<function="), "<functıon=");
        assert_eq!(Casing::Dotted.apply("[tool_request]"), "[tool_requeſt]");
        assert_eq!(Casing::Dotless.apply("<tool_call>"), "<tool_call>");
        assert_eq!(Casing::Alternating.apply("<tool_call>"), "<ToOl_CaLl>");
    }

    #[test]
    fn bytes_become_code_points_with_lone_surrogates() {
        let s = py_str_from_bytes(b"a\xED\xA0\x80\xFF\xC3\xA9\xE2\x82");
        assert_eq!(
            s.code_points().collect::<Vec<_>>(),
            [0x61, 0xD800, 0xFFFD, 0xE9, 0xFFFD, 0xFFFD]
        );
    }

    /// Copying valid runs whole reads the bytes as decoding one code point at a time does.
    #[test]
    fn valid_runs_read_as_one_code_point_at_a_time() {
        for bytes in [
            &b""[..],
            b"plain",
            b"\xED\xA0\x80\xED\xBF\xBFx\xF0\x9F\x98\x80\xF0\x9F\x98",
            b"\xE0\x80\x80\xC0\xAF\xF5\x80\xFF\xFE\xED\x9F\xBF\xEDa\xC3",
            "é<tool_call>\u{3000}".as_bytes(),
        ] {
            let mut one_at_a_time = PyStr::new();
            let mut i = 0;
            while i < bytes.len() {
                let (cp, len) = code_point_at(&bytes[i..]);
                one_at_a_time.push(cp);
                i += len;
            }
            assert_eq!(py_str_from_bytes(bytes), one_at_a_time, "{bytes:?}");
        }
    }
}
