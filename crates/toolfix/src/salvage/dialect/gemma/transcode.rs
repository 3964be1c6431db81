//! A Gemma call's arguments written straight as the argument string salvage reports for
//! them, `json.dumps` of the dict they read as, in one pass over the call's text and
//! without building a value: a call flood then costs a copy per call, not a dict, its
//! strings and their encoding (as `pythonic::transcode` does for pythonic calls).
//!
//! Only plain arguments are written: keys of bare words or strings between quote
//! tokens, values that are strings between quote tokens (any text, escaped as `dumps`
//! escapes it), JSON strings, integers and literals that `py::json::transcode` writes as
//! they are, and lists and objects of those, no key twice, shallow. Anything else (a
//! float, a key in JSON quotes, a repeated key, a syntax error) writes nothing, and the
//! reader builds the value and encodes it as before, so what the writer must get right
//! is small: the property test below holds it to that reader on every input.

use smallvec::SmallVec;

use super::super::super::text::skip_space;
use super::super::token::find_near;
use super::reader::bare_key_len;
use crate::profile::STRICT_MAX_DEPTH;
use crate::py::PyStr;
use crate::py::json::{self, DecodeLimits, write_str};

/// Deeper values are left to the reader.
const MAX_DEPTH: usize = 16;
/// Objects with more keys are left to the reader (the repeated-key check is quadratic).
const MAX_KEYS: usize = 16;

/// The arguments object at `brace` of `text` (read no further than its end), written as
/// `json.dumps` writes the dict the reader builds, with `quote` the generation's string
/// delimiter, and where it ends; `None` when they are not plain.
pub fn arguments(text: &[u8], brace: usize, quote: &[u8]) -> Option<(PyStr, usize)> {
    (text.get(brace) == Some(&b'{')).then_some(())?;
    let mut writer = Writer {
        text,
        quote,
        at: brace + 1,
        out: String::with_capacity(32),
    };
    writer.object(1)?;
    Some((PyStr::from(writer.out), writer.at))
}

/// The writer's state: the source, where it reads, what it wrote.
struct Writer<'t> {
    text: &'t [u8],
    quote: &'t [u8],
    at: usize,
    out: String,
}

impl<'t> Writer<'t> {
    /// A value (after whitespace) at `depth`.
    fn value(&mut self, depth: usize) -> Option<()> {
        self.space();
        match *self.text.get(self.at)? {
            _ if depth > MAX_DEPTH => None,
            b'{' => {
                self.at += 1;
                self.object(depth + 1)
            }
            b'[' => {
                self.at += 1;
                self.list(depth + 1)
            }
            _ if self.text[self.at..].starts_with(self.quote) => self.escaped().map(drop),
            _ => self.scalar(),
        }
    }

    /// `{KEY:VALUE,…}` after its `{`.
    fn object(&mut self, depth: usize) -> Option<()> {
        self.out.push('{');
        let mut keys: SmallVec<[&[u8]; 8]> = SmallVec::new();
        self.space();
        if self.eat(b'}') {
            self.out.push('}');
            return Some(());
        }
        loop {
            self.space();
            if !keys.is_empty() {
                self.out.push_str(", ");
            }
            let key = self.key()?;
            if keys.len() == MAX_KEYS || keys.contains(&key) {
                return None;
            }
            keys.push(key);
            self.out.push_str(": ");
            self.space();
            self.eat(b':').then_some(())?;
            self.value(depth)?;
            self.space();
            if self.eat(b'}') {
                self.out.push('}');
                return Some(());
            }
            self.eat(b',').then_some(())?;
        }
    }

    /// `[VALUE,…]` after its `[`.
    fn list(&mut self, depth: usize) -> Option<()> {
        self.out.push('[');
        self.space();
        if self.eat(b']') {
            self.out.push(']');
            return Some(());
        }
        loop {
            self.value(depth)?;
            self.space();
            if self.eat(b']') {
                self.out.push(']');
                return Some(());
            }
            self.eat(b',').then_some(())?;
            self.out.push_str(", ");
        }
    }

    /// A key, written: bare words or a string between quote tokens, whose text is the
    /// key (a JSON string's is not, until decoded, so it is left to the reader).
    fn key(&mut self) -> Option<&'t [u8]> {
        if self.text[self.at..].starts_with(self.quote) {
            return self.escaped();
        }
        let len = bare_key_len(&self.text[self.at..]);
        (len > 0).then_some(())?;
        let key = &self.text[self.at..self.at + len];
        write_str(&mut self.out, key);
        self.at += len;
        Some(key)
    }

    /// A string between two quote tokens, written; its text.
    fn escaped(&mut self) -> Option<&'t [u8]> {
        let start = self.at + self.quote.len();
        let len = find_near(&self.text[start..], self.quote)?;
        let body = &self.text[start..start + len];
        write_str(&mut self.out, body);
        self.at = start + len + self.quote.len();
        Some(body)
    }

    /// A JSON string, integer, `true`, `false` or `null` that `json.dumps` writes as
    /// `py::json::transcode` does, under the reader's limits.
    fn scalar(&mut self) -> Option<()> {
        let limits = DecodeLimits {
            max_depth: STRICT_MAX_DEPTH,
            int_max_str_digits: None,
        };
        let written = json::transcode(self.text, self.at, limits).ok()?;
        self.out.push_str(std::str::from_utf8(written.text()).ok()?);
        self.at = written.end;
        Some(())
    }

    /// Steps over `byte` when it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.text.get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    /// Steps over whitespace, as the reader does.
    fn space(&mut self) {
        self.at = skip_space(self.text, self.at);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use proptest::prelude::*;

    use super::super::super::{nested_literals, written_of_a_thousand};
    use super::super::{Build, Check, Cut, FUNCTION_GEMMA, GEMMA_4, Make, Tokens, read_as};
    use super::*;
    use crate::py::json::{dumps, read_back};

    /// Holds the writer to the reader on the call `call:f` then `args`, written with
    /// `tokens`: when it writes, the reader reads the same arguments, to the same end, and
    /// their value encodes to what was written and is what the written text reads back
    /// as. Returns whether it wrote.
    fn holds(args: &str, tokens: &Tokens) -> bool {
        let text = format!("call:f{args}");
        let text = text.as_bytes();
        let Some((written, end)) = arguments(text, 6, tokens.quote) else {
            return false;
        };
        let cut = Cell::new(Cut::Not);
        let built = read_as::<Build>(text, 0, text.len(), tokens, &cut);
        let Some((read, built_end)) = built else {
            panic!("{args:?}: written as {written:?}, but the reader fails");
        };
        assert_eq!(read_end::<Check>(text, tokens).0, Some(end), "{args:?}");
        assert_eq!(written.to_string(), dumps(&read.args).unwrap(), "{args:?}");
        assert_eq!(end, built_end, "{args:?}");
        assert_eq!(
            read_back(written.as_bytes()).unwrap(),
            read.args,
            "{args:?}"
        );
        true
    }

    /// Where `M`'s read of the call `text` ends, and whether and where the text's end cut
    /// it.
    fn read_end<M: Make>(text: &[u8], tokens: &Tokens) -> (Option<usize>, Cut) {
        let cut = Cell::new(Cut::Not);
        let end = read_as::<M>(text, 0, text.len(), tokens, &cut).map(|(_, end)| end);
        (end, cut.get())
    }

    /// `index` of `text`, moved back to a character boundary: where to cut it short.
    fn cut_at(text: &str, index: prop::sample::Index) -> usize {
        let mut cut = index.index(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        cut
    }

    #[test]
    fn plain_arguments_are_written() {
        for args in [
            "{}",
            "{ }",
            "{city:<escape>Paris<escape>}",
            "{q:<escape>it's \"quoted\" \\ and\n caf\u{e9} \u{1F600}<escape>,n:3}",
            "{a:[1, -2, [], [<escape>x<escape>]], b:{k:true,j:{}}, c:null, d:\"s\"}",
            "{\n  a : 1 ,\n  b : [ 1 , 2 ] \n}",
            "{n:123456789012345678, ключ:false, <escape>k k<escape>:0}",
        ] {
            assert!(holds(args, &FUNCTION_GEMMA), "{args:?} is plain");
            let gemma_4 = args.replace("<escape>", "<|\"|>");
            assert!(holds(&gemma_4, &GEMMA_4), "{gemma_4:?} is plain");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_reader() {
        for args in [
            // Floats, big integers, escapes a JSON string decodes, keys in JSON quotes.
            "{n:1.5}",
            "{n:1e3}",
            "{n:-0}",
            "{n:1234567890123456789}",
            "{q:\"caf\\u00e9\"}",
            "{\"k\":1}",
            // Repeated keys (whatever their quoting), too many, too deep.
            "{a:1,a:2}",
            "{a:1,<escape>a<escape>:2}",
            "{a0:0,a1:1,a2:2,a3:3,a4:4,a5:5,a6:6,a7:7,a8:8,a9:9,b0:0,b1:1,b2:2,b3:3,b4:4,b5:5,b6:6}",
            "{a:[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}",
            // Syntax the reader rejects too.
            "{a:b}",
            "{a:1,}",
            "{a:[1,]}",
            "{a 1}",
            "{a:<escape>x}",
            "{a:1",
            "{",
        ] {
            assert!(!holds(args, &FUNCTION_GEMMA), "{args:?} is not plain");
        }
    }

    /// Gemma values, plain and not: leaves, lists and objects of them.
    fn value() -> impl Strategy<Value = String> {
        nested_literals(
            vec![
                "1",
                "-7",
                "0",
                "-0",
                "007",
                "1.5",
                "123456789012345678",
                "1234567890123456789",
                "true",
                "null",
                "false",
                "\"b\"",
                "\"x\\\"y\"",
                "\"\\u00e9\"",
                "\"caf\u{e9}\"",
                "<escape>a<escape>",
                "<escape><escape>",
                "<escape>a\"b\\c\nd \u{e9} \u{1F600}\u{7f}\u{1}<escape>",
                "NaN",
                "y",
            ],
            |inner| object(inner).boxed(),
        )
    }

    /// An object of `values` under keys that are often the same, with whitespace here
    /// and there.
    fn object(values: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![
            "a",
            "b",
            "k-1",
            "\u{e9}",
            "<escape>a<escape>",
            "\"k\"",
        ]);
        let space = prop::sample::select(vec!["", "", " ", "\n  "]);
        prop::collection::vec((key, values, space), 0..5).prop_map(|members| {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v, s)| format!("{s}{k}{s}:{s}{v}{s}"))
                .collect();
            format!("{{{}}}", members.join(","))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Whenever the writer writes, it writes what the reader builds and encodes, in
        /// either generation's quoting; arguments cut short are never written.
        #[test]
        fn writes_what_the_reader_builds(
            args in object(value()),
            cut in any::<prop::sample::Index>(),
        ) {
            holds(&args, &FUNCTION_GEMMA);
            holds(&args.replace("<escape>", "<|\"|>"), &GEMMA_4);
            prop_assert!(!holds(&args[..cut_at(&args, cut)], &FUNCTION_GEMMA));
        }

        /// The reader's syntax check (which builds nothing) reads what it builds: the same
        /// arguments to the same end, or fails where it fails, for the same cause, on whole
        /// arguments, arguments cut short, and arguments with a character changed to any
        /// ASCII one.
        #[test]
        fn the_check_reads_what_the_build_reads(
            args in object(value()),
            cut in any::<prop::sample::Index>(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let at = at.index(args.chars().count());
            let changed: String = args
                .chars()
                .enumerate()
                .map(|(i, c)| if i == at { char::from(byte & 0x7f) } else { c })
                .collect();
            let cut = cut_at(&args, cut);
            for text in [args.as_bytes(), &args.as_bytes()[..cut], changed.as_bytes()] {
                let text = [b"call:f", text].concat();
                prop_assert_eq!(
                    read_end::<Build>(&text, &FUNCTION_GEMMA),
                    read_end::<Check>(&text, &FUNCTION_GEMMA),
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    /// The generator makes plain arguments often enough for the property to test them.
    #[test]
    fn the_property_sees_plain_arguments() {
        let written = written_of_a_thousand(object(value()), |args| holds(args, &FUNCTION_GEMMA));
        assert!(
            written > 200,
            "{written} of 1000 generated calls were plain"
        );
    }
}
