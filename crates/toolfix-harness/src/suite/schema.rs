//! Reading a TOML file format through serde: each format's shape is a set of structs
//! with `#[serde(deny_unknown_fields)]`, so a misspelt key is an error rather than an
//! expectation silently dropped, and every error names the line it is on.

use serde::de::DeserializeOwned;

/// A problem with a file: the line it is on (1-based, when known) and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub line: Option<usize>,
    pub message: String,
}

/// `text` read as `T`: the first problem serde or the TOML parser finds, with its line,
/// when it does not fit.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, SchemaError> {
    toml::from_str(text).map_err(|e| SchemaError {
        line: e.span().map(|span| line_of(text, span.start)),
        message: e.message().trim_end().to_owned(),
    })
}

/// The 1-based line holding byte `offset` of `text`: `toml` reports byte spans, people
/// read lines.
pub fn line_of(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    memchr::memchr_iter(b'\n', before).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Shape {
        known: Option<String>,
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let error = parse::<Shape>("# a comment\n\nknwon = \"x\"\n").unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("unknown field `knwon`"), "{error:?}");
    }

    #[test]
    fn a_known_key_reads() {
        let shape = parse::<Shape>("known = \"x\"\n").expect("fits");
        assert_eq!(shape.known.as_deref(), Some("x"));
    }

    #[test]
    fn lines_count_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
