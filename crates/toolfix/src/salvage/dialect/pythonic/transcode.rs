//! A pythonic call written straight as the argument string salvage reports for it,
//! `json.dumps` of its keyword arguments, in one pass over the call's text and without
//! building a value: a call flood then costs a copy per call, not a dict, its strings and
//! their encoding (issue 15's transcoding path, as `py::json::transcode` is for JSON).
//!
//! Only plain calls are written: printable ASCII strings in either quote without escapes,
//! integers of at most 18 digits, `True`, `False`, `None` and their JSON spellings, and
//! lists and string-keyed dicts of those, no key twice, shallow. Anything else (an escape,
//! a float, a big integer, a tuple, a repeated key, a syntax error) writes nothing, and
//! the reader builds the value and encodes it as before, so what the writer must get
//! right is small: the property test below holds it to that reader on every input.

use smallvec::SmallVec;

use crate::py::PyStr;

/// Deeper values are left to the reader.
const MAX_DEPTH: usize = 16;
/// Objects with more keys are left to the reader (the repeated-key check is quadratic).
const MAX_KEYS: usize = 16;
/// Longer integers are left to the reader (Python's `int` has no limit; this keeps the
/// written digits those of an `i64`).
const MAX_DIGITS: usize = 18;

/// `NAME(key=value, …)` at `at`: its name, its arguments as `json.dumps` writes the dict
/// of them, and the end of the call; `None` when the call is not plain.
pub fn call(text: &[u8], at: usize) -> Option<(PyStr, PyStr, usize)> {
    let mut writer = Writer {
        text,
        at,
        out: String::with_capacity(32),
    };
    let name = writer.identifier()?;
    writer.space();
    writer.expect(b'(')?;
    writer.members(b')', 0, |w| {
        let key = w.identifier()?;
        w.out.push('"');
        w.push_ascii(key);
        w.out.push_str("\": ");
        w.space();
        w.expect(b'=')?;
        Some(key)
    })?;
    Some((PyStr::from(ascii(name)), PyStr::from(writer.out), writer.at))
}

/// The reader's state: the source, where it reads, what it wrote.
struct Writer<'t> {
    text: &'t [u8],
    at: usize,
    out: String,
}

impl<'t> Writer<'t> {
    /// A literal (after whitespace) at `depth`.
    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match self.peek()? {
            b'[' => {
                self.at += 1;
                self.items(depth + 1)
            }
            b'{' => {
                self.at += 1;
                self.members(b'}', depth + 1, |w| {
                    let key = w.string()?;
                    w.out.push_str(": ");
                    w.space();
                    w.expect(b':')?;
                    Some(key)
                })
            }
            b'-' | b'0'..=b'9' => self.integer(),
            b'"' | b'\'' => self.string().map(drop),
            _ => self.constant(),
        }
    }

    /// `[value, …]` after its `[`.
    fn items(&mut self, depth: usize) -> Option<()> {
        self.out.push('[');
        let mut first = true;
        loop {
            self.space();
            if self.peek()? == b']' {
                self.at += 1;
                return self.close(']');
            }
            if !first {
                self.out.push_str(", ");
            }
            first = false;
            self.value(depth)?;
            self.space();
            match self.next()? {
                b',' => {}
                b']' => return self.close(']'),
                _ => return None,
            }
        }
    }

    /// `KEY… value, …` up to `close` after its opener, as a JSON object: `key` reads a key
    /// and what separates it from its value, writes the key, and gives its text.
    fn members(
        &mut self,
        close: u8,
        depth: usize,
        key: impl Fn(&mut Self) -> Option<&'t [u8]>,
    ) -> Option<()> {
        self.out.push('{');
        let mut keys: SmallVec<[&[u8]; 8]> = SmallVec::new();
        loop {
            self.space();
            if self.peek()? == close {
                self.at += 1;
                return self.close('}');
            }
            if !keys.is_empty() {
                self.out.push_str(", ");
            }
            let read = key(self)?;
            if keys.len() == MAX_KEYS || keys.contains(&read) {
                return None;
            }
            keys.push(read);
            self.value(depth)?;
            self.space();
            match self.next()? {
                b',' => {}
                b if b == close => return self.close('}'),
                _ => return None,
            }
        }
    }

    /// Writes a container's closer.
    fn close(&mut self, closer: char) -> Option<()> {
        self.out.push(closer);
        Some(())
    }

    /// A decimal integer with an optional `-`: what the reader reads as a number (its run
    /// of number bytes) must be all digits, without a leading zero, and not `-0`.
    fn integer(&mut self) -> Option<()> {
        let negative = self.peek() == Some(b'-');
        let start = self.at + usize::from(negative);
        let len = self.text[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-'))
            .count();
        let digits = &self.text[start..start + len];
        let plain = !digits.is_empty()
            && digits.len() <= MAX_DIGITS
            && digits.iter().all(u8::is_ascii_digit)
            && (digits[0] != b'0' || (digits.len() == 1 && !negative));
        plain.then_some(())?;
        if negative {
            self.out.push('-');
        }
        self.push_ascii(digits);
        self.at = start + len;
        Some(())
    }

    /// A string in single or double quotes, not triple, holding only printable ASCII and
    /// no backslash: written as JSON, and its text given.
    fn string(&mut self) -> Option<&'t [u8]> {
        let text = self.text;
        let quote = *text.get(self.at)?;
        if !matches!(quote, b'"' | b'\'') || text[self.at..].starts_with(&[quote; 3]) {
            return None;
        }
        let start = self.at + 1;
        // One pass, stopping at the first byte that is not plain: the closing quote, or a
        // byte that leaves the string to the reader.
        let len = text[start..]
            .iter()
            .position(|&b| b == quote || !matches!(b, 0x20..=0x7E) || b == b'\\')?;
        (text[start + len] == quote).then_some(())?;
        let body = &text[start..start + len];
        self.out.push('"');
        for piece in body.split_inclusive(|&b| b == b'"') {
            match piece.split_last() {
                Some((b'"', before)) => {
                    self.push_ascii(before);
                    self.out.push_str("\\\"");
                }
                _ => self.push_ascii(piece),
            }
        }
        self.out.push('"');
        self.at = start + len + 1;
        Some(body)
    }

    /// `True`, `False`, `None`, or JSON's `true`, `false`, `null`.
    fn constant(&mut self) -> Option<()> {
        let word = self.identifier()?;
        let json = match word {
            b"True" | b"true" => "true",
            b"False" | b"false" => "false",
            b"None" | b"null" => "null",
            _ => return None,
        };
        self.out.push_str(json);
        Some(())
    }

    /// An identifier (ASCII letters, digits and `_`, not starting with a digit).
    fn identifier(&mut self) -> Option<&'t [u8]> {
        let text = self.text;
        let first = *text.get(self.at)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let len = text[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let word = &text[self.at..self.at + len];
        self.at += len;
        Some(word)
    }

    /// Steps over `byte`, which must come next.
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// The next byte, stepped over.
    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    /// The next byte.
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Steps over ASCII whitespace, as the reader does.
    fn space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Writes bytes known to be ASCII.
    fn push_ascii(&mut self, bytes: &[u8]) {
        self.out.push_str(ascii(bytes));
    }
}

/// Bytes known to be ASCII, as text.
fn ascii(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use proptest::prelude::*;

    use super::super::super::argument_string;
    use super::super::super::{nested_literals, written_of_a_thousand};
    use super::super::{Mode, Reader};
    use super::*;
    use crate::py::json::read_back;

    /// What the reader builds for the call at 0 (its name, argument string, decoded
    /// value and end), when it reads.
    fn built(text: &[u8]) -> Option<(String, String, crate::py::Value, usize)> {
        let reader = Reader(text, Cell::new(0), Cell::new(Mode::Build));
        let ((name, args), end) = reader.call(0)?;
        let super::super::Args::Decoded(value) = args.clone() else {
            panic!("the Build reader built {args:?}");
        };
        Some((name.to_string(), argument_string(args), value, end))
    }

    /// Holds the writer to the reader on `text`: when it writes, the reader reads the
    /// same call, to the same end, and its value encodes to what was written and is what
    /// the written text reads back as. Returns whether it wrote.
    fn holds(text: &[u8]) -> bool {
        let Some((name, written, end)) = call(text, 0) else {
            return false;
        };
        let shown = String::from_utf8_lossy(text);
        let (built_name, built_args, value, built_end) =
            built(text).unwrap_or_else(|| panic!("{shown:?}: written, but the reader fails"));
        assert_eq!(name.to_string(), built_name, "{shown:?}");
        assert_eq!(written.to_string(), built_args, "{shown:?}");
        assert_eq!(end, built_end, "{shown:?}");
        assert_eq!(read_back(written.as_bytes()).unwrap(), value, "{shown:?}");
        true
    }

    #[test]
    fn plain_calls_are_written() {
        for text in [
            "f()",
            "f( )",
            "get_weather(city=\"Paris\")",
            "search(q='it\"s', n=3, ok=True, none=None, also=null, no=false)",
            "f(a=[1, -2, [], ['x']], b={'k': 1, \"j\": {}}, c=0,)",
            "f (\n  a = 1 ,\n  b = [ 1 , 2 , ] \n)",
            "f(n=123456789012345678)",
        ] {
            assert!(holds(text.as_bytes()), "{text:?} is plain");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_reader() {
        for text in [
            // Escapes, non-ASCII, control characters, triple and prefixed strings.
            r"f(q='a\nb')",
            "f(q='caf\u{e9}')",
            "f(q='a\tb')",
            "f(q='''x''')",
            "f(q=r'x')",
            // Floats, signs, separators, leading zeros, big and negative-zero integers.
            "f(n=1.5)",
            "f(n=+1)",
            "f(n=1_000)",
            "f(n=007)",
            "f(n=-0)",
            "f(n=1234567890123456789)",
            // Tuples, repeated keys, too many keys, too deep.
            "f(t=(1,))",
            "f(a=1, a=2)",
            "f(d={'k': 1, 'k': 2})",
            "f(a0=0,a1=1,a2=2,a3=3,a4=4,a5=5,a6=6,a7=7,a8=8,a9=9,b0=0,b1=1,b2=2,b3=3,b4=4,b5=5,b6=6)",
            "f(a=[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]])",
            // Syntax the reader rejects too.
            "f(q='it''s')",
            "f(x=y)",
            "f(x=1 2)",
            "f(x=1",
            "f(",
        ] {
            assert!(!holds(text.as_bytes()), "{text:?} is not plain");
        }
    }

    /// Python literals, plain and not: leaves, lists, tuples and dicts of them.
    fn literal() -> impl Strategy<Value = String> {
        nested_literals(
            vec![
                "1",
                "-7",
                "0",
                "-0",
                "007",
                "1_0",
                "1.5",
                "123456789012345678",
                "1234567890123456789",
                "True",
                "None",
                "null",
                "false",
                "'a'",
                "\"b\"",
                "'x\"y'",
                "''",
                "'a\\nb'",
                "'caf\u{e9}'",
                "'t\tb'",
                "r'x'",
                "'''x'''",
                "+1",
                "y",
            ],
            |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 1..3)
                        .prop_map(|v| format!("({},)", v.join(","))),
                    prop::collection::vec((key(), inner), 0..4).prop_map(|v| {
                        let members: Vec<String> =
                            v.iter().map(|(k, v)| format!("'{k}': {v}")).collect();
                        format!("{{{}}}", members.join(", "))
                    }),
                ]
            },
        )
    }

    /// Keys, often the same.
    fn key() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["a", "b", "k", "a"])
    }

    /// A call of keyword arguments, with whitespace or a trailing comma here and there.
    fn pythonic_call() -> impl Strategy<Value = String> {
        let space = || prop::sample::select(vec!["", "", " ", "\n  "]);
        (
            prop::collection::vec((key(), literal(), space()), 0..5),
            space(),
            any::<bool>(),
        )
            .prop_map(|(args, pad, trailing)| {
                let args: Vec<String> = args
                    .iter()
                    .map(|(k, v, s)| format!("{s}{k}{s}={s}{v}"))
                    .collect();
                let comma = if trailing && !args.is_empty() {
                    ","
                } else {
                    ""
                };
                format!("f{pad}({}{comma}{pad})", args.join(","))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Whenever the writer writes, it writes what the reader builds and encodes; a
        /// call cut short is never written.
        #[test]
        fn writes_what_the_reader_builds(
            text in pythonic_call(),
            cut in any::<prop::sample::Index>(),
        ) {
            holds(text.as_bytes());
            prop_assert!(!holds(&text.as_bytes()[..cut.index(text.len())]));
        }

        /// The syntax check, which builds nothing, reads what the build reads: the call
        /// to the same end, or a failure, with the same answer to whether it ran into
        /// the end of the text; on whole calls, calls cut short, and calls with a byte
        /// changed to any ASCII one.
        #[test]
        fn the_check_reads_what_the_build_reads(
            text in pythonic_call(),
            cut in any::<prop::sample::Index>(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            // Changed and cut on character boundaries: the reader reads UTF-8.
            let at = at.index(text.chars().count());
            let changed: String = (text.chars().enumerate())
                .map(|(i, c)| if i == at { char::from(byte & 0x7f) } else { c })
                .collect();
            let mut cut = cut.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            for text in [text.as_bytes(), &text.as_bytes()[..cut], changed.as_bytes()] {
                let read = |mode| {
                    let reader = Reader(text, Cell::new(0), Cell::new(mode));
                    let end = reader.call(0).map(|(_, end)| end);
                    (end, reader.reached_end())
                };
                prop_assert_eq!(
                    read(Mode::Check),
                    read(Mode::Build),
                    "{:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    /// The generator makes plain calls often enough for the property to test them.
    #[test]
    fn the_property_sees_plain_calls() {
        let written = written_of_a_thousand(pythonic_call(), |text| holds(text.as_bytes()));
        assert!(
            written > 200,
            "{written} of 1000 generated calls were plain"
        );
    }
}
