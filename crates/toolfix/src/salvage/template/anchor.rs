//! Where a region opens or closes: literals or a pattern, compiled for the `regex` crate.

use regex::bytes::Regex;
use serde::de::{self, Deserialize, Deserializer};

/// A pattern as transformers compiles it (`re.DOTALL`), on the `regex` crate: linear in
/// the text, with no look-around and no back-reference.
#[derive(Clone, Debug)]
pub struct Pattern(pub Regex);

impl Pattern {
    /// Compiles `source` as Python's `regex` module reads it with `re.DOTALL`; `\Z`, the
    /// end of the text in Python, is the crate's `\z`.
    pub fn compile(source: &str) -> Result<Pattern, String> {
        Regex::new(&format!("(?s){}", end_anchors(source)))
            .map(Pattern)
            .map_err(|e| format!("pattern {source:?} cannot run on the regex crate: {e}"))
    }

    /// The names of its named groups.
    pub fn group_names(&self) -> impl Iterator<Item = &str> {
        self.0.capture_names().flatten()
    }
}

/// `source` with each `\Z` escape (not an escaped backslash before a `Z`) as `\z`.
fn end_anchors(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '\\' {
            match chars.next() {
                Some('Z') => out.push('z'),
                Some(escaped) => out.push(escaped),
                None => {}
            }
        }
    }
    out
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Pattern, D::Error> {
        let source = String::deserialize(deserializer)?;
        Pattern::compile(&source).map_err(de::Error::custom)
    }
}

/// One literal or a list of them (`open`, `close`, `start_anchor`), any of which matches;
/// never empty, and no literal is empty.
#[derive(Clone, Debug)]
pub struct Literals(pub Vec<String>);

impl<'de> Deserialize<'de> for Literals {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Literals, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Written {
            One(String),
            Many(Vec<String>),
        }
        let literals = match Written::deserialize(deserializer).map_err(|_| {
            de::Error::custom("a literal anchor must be a string or a list of strings")
        })? {
            Written::One(one) => vec![one],
            Written::Many(many) => many,
        };
        if literals.is_empty() {
            return Err(de::Error::custom(
                "a list of literals must hold at least one",
            ));
        }
        if literals.iter().any(String::is_empty) {
            return Err(de::Error::custom("a literal cannot be the empty string"));
        }
        Ok(Literals(literals))
    }
}

impl Literals {
    /// The pattern matching any of them, the longest first where one begins another, as
    /// transformers orders the alternation.
    pub fn pattern(&self) -> Result<Pattern, String> {
        let mut ordered: Vec<&String> = self.0.iter().collect();
        ordered.sort_by_key(|l| std::cmp::Reverse(l.len()));
        let alternation: Vec<String> = ordered.iter().map(|l| regex::escape(l)).collect();
        Regex::new(&alternation.join("|"))
            .map(Pattern)
            .map_err(|e| format!("literals {:?} cannot run on the regex crate: {e}", self.0))
    }
}

/// An anchor written either way: `open` or `open_pattern`, `close` or `close_pattern`.
pub fn either(
    literals: Option<Literals>,
    pattern: Option<Pattern>,
    key: &str,
) -> Result<Option<Pattern>, String> {
    match (literals, pattern) {
        (Some(_), Some(_)) => Err(format!("cannot specify both '{key}' and '{key}_pattern'")),
        (Some(literals), None) => literals.pattern().map(Some),
        (None, pattern) => Ok(pattern),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_end_escape_becomes_the_crates() {
        assert_eq!(end_anchors(r"a\Z"), r"a\z");
        assert_eq!(end_anchors(r"a\\Z"), r"a\\Z");
        assert_eq!(end_anchors(r"\\\Z\d"), r"\\\z\d");
    }
}
