//! Where a region opens or closes: literals or a pattern, compiled for the `regex` crate.

use std::ops::Range;

use memchr::memmem::Finder;
use regex::bytes::Regex;
use serde::de::{self, Deserialize, Deserializer};
use smallvec::SmallVec;

use super::groups::{Walk, crate_groups};

/// A pattern as transformers compiles it (`re.DOTALL`), on the `regex` crate: linear in
/// the text, with no look-around and no back-reference.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The compiled pattern, which finds every match.
    pub regex: Regex,
    /// The same pattern for walking a match's groups, where it can be walked.
    walk: Option<Walk>,
    /// Its one literal, when it is written as one (`open`, `close`): found by `memmem`
    /// alone (`find_from`).
    literal: Option<Finder<'static>>,
}

impl Pattern {
    /// Compiles `source` as Python's `regex` module reads it with `re.DOTALL`; `\Z`, the
    /// end of the text in Python, is the crate's `\z`.
    pub fn compile(source: &str) -> Result<Pattern, String> {
        Pattern::new(&crate_source(source))
            .map_err(|e| format!("pattern {source:?} cannot run on the regex crate: {e}"))
    }

    /// `source` compiled as the crate's syntax, with its walk.
    fn new(source: &str) -> Result<Pattern, regex::Error> {
        let regex = Regex::new(source)?;
        let walk = (regex.captures_len() > 1)
            .then(|| Walk::compile(source))
            .flatten();
        Ok(Pattern {
            regex,
            walk,
            literal: None,
        })
    }

    /// The first match at or after `from`, as the crate's `find_at` finds it, with no
    /// walk: a pattern written as one literal is found by `memmem` alone, with no regex
    /// search around it (a region's close, and an open no walk finds).
    pub fn find_from(&self, text: &[u8], from: usize) -> Option<Range<usize>> {
        match &self.literal {
            Some(literal) => {
                let at = from + literal.find(text.get(from..)?)?;
                Some(at..at + literal.needle().len())
            }
            None => self.regex.find_at(text, from).map(|m| m.range()),
        }
    }

    /// The names of its named groups.
    pub fn group_names(&self) -> impl Iterator<Item = &str> {
        self.regex.capture_names().flatten()
    }

    /// Fills `slots` with the spans of the groups of the match at `found` (group `n` at
    /// `slots[2n]` and `slots[2n + 1]`): `found` must be a match of this pattern that the
    /// crate's `find_at` or `find_iter` returned.
    fn groups(&self, text: &[u8], found: Range<usize>, slots: &mut Slots) {
        slots.resize(2 * self.regex.captures_len(), None);
        let walked = self.walk.as_ref();
        if walked.is_some_and(|w| w.groups(text, found.start, found.end, slots)) {
            return;
        }
        crate_groups(&self.regex, text, found.start, slots);
    }

    /// The first match at or after `from`, as the crate's `find_at` finds it, its groups
    /// kept in `search` where finding it walked them: a pattern whose matches start with
    /// one of a few literals is found from where they occur (`Walk::find`), not by the
    /// crate's scan to the match's end and back. Places passed over are paid for from a
    /// budget of the text's length, after which the crate finds every later match: the
    /// walks and scans read at most about twice the text.
    pub fn find_at(&self, text: &[u8], from: usize, search: &mut Search) -> Option<Range<usize>> {
        search.walked = None;
        let budget = search.budget.get_or_insert(text.len());
        if let Some(walk) = self.walk.as_ref().filter(|w| w.finds() && *budget > 0) {
            search.slots.resize(2 * self.regex.captures_len(), None);
            match walk.find(&self.regex, text, from, &mut search.slots, budget) {
                Some(found) => {
                    search.walked = found.clone();
                    return found;
                }
                // A walk that could not say is charged all it may have read.
                None => *budget = budget.saturating_sub(text.len() - from),
            }
        }
        self.find_from(text, from)
    }

    /// Gives `visit` each match in `text` in turn, as the crate's `find_iter` finds them,
    /// with its groups (as `groups` fills them), until `visit` returns `None`, which this
    /// then returns.
    pub fn each_match(
        &self,
        text: &[u8],
        mut visit: impl FnMut(Range<usize>, &[Option<usize>]) -> Option<()>,
    ) -> Option<()> {
        let mut search = Search::default();
        // A pattern found from where it may start never matches the empty string, so
        // each search may start where the last match ended, as `find_iter` does then.
        if !self.walk.as_ref().is_some_and(Walk::finds) {
            for found in self.regex.find_iter(text) {
                self.groups(text, found.range(), &mut search.slots);
                visit(found.range(), &search.slots)?;
            }
            return Some(());
        }
        let mut at = 0;
        while let Some(found) = self.find_at(text, at, &mut search) {
            at = found.end;
            visit(found.clone(), self.groups_found(text, found, &mut search))?;
        }
        Some(())
    }

    /// The groups (as `groups` fills them) of the match at `found`, which `search` found
    /// last: kept where finding it walked them.
    pub fn groups_found<'s>(
        &self,
        text: &[u8],
        found: Range<usize>,
        search: &'s mut Search,
    ) -> &'s [Option<usize>] {
        if search.walked.as_ref() != Some(&found) {
            self.groups(text, found, &mut search.slots);
        }
        &search.slots
    }

    /// The index of the group named `name`.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.regex.capture_names().position(|n| n == Some(name))
    }
}

/// A match's groups: two slots for each, held inline for the few groups a template's
/// pattern has.
pub type Slots = SmallVec<[Option<usize>; 8]>;

/// One pattern's searches over one text (`Pattern::find_at`): the groups of the match it
/// last found, where a walk found it, and how many bytes walks that found no match may
/// still read (the text's length at first), after which the crate finds every match.
#[derive(Clone, Debug, Default)]
pub struct Search {
    slots: Slots,
    walked: Option<Range<usize>>,
    budget: Option<usize>,
}

/// A template's pattern as the crate is given it: `re.DOTALL` as `(?s)`, and Python's
/// `\Z` as `\z`.
pub(super) fn crate_source(source: &str) -> String {
    format!("(?s){}", end_anchors(source))
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
        let mut pattern = Pattern::new(&alternation.join("|"))
            .map_err(|e| format!("literals {:?} cannot run on the regex crate: {e}", self.0))?;
        if let [one] = &self.0[..] {
            pattern.literal = Some(Finder::new(one.as_bytes()).into_owned());
        }
        Ok(pattern)
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

    /// A close written as one literal is found by `memmem` where the crate finds it.
    #[test]
    fn a_literal_is_found_where_the_crate_finds_it() {
        let text = "ab</c>é</c></c</c>".as_bytes();
        for literals in [vec!["</c>"], vec!["</c>", "é"], vec!["é</"]] {
            let literals = Literals(literals.into_iter().map(String::from).collect());
            let pattern = literals.pattern().unwrap();
            assert_eq!(pattern.literal.is_some(), literals.0.len() == 1);
            for from in 0..=text.len() + 1 {
                let by_crate = (from <= text.len())
                    .then(|| pattern.regex.find_at(text, from).map(|m| m.range()))
                    .flatten();
                assert_eq!(
                    pattern.find_from(text, from),
                    by_crate,
                    "{literals:?} {from}"
                );
            }
        }
    }

    #[test]
    fn only_the_end_escape_becomes_the_crates() {
        assert_eq!(end_anchors(r"a\Z"), r"a\z");
        assert_eq!(end_anchors(r"a\\Z"), r"a\\Z");
        assert_eq!(end_anchors(r"\\\Z\d"), r"\\\z\d");
    }
}
