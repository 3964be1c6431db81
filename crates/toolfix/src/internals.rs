//! Not part of the API: the machinery beneath it that `toolfix-fuzzing` checks directly,
//! exposed to it the way rustls exposes its internals to its fuzzers. Hidden from the
//! docs and outside semver: anything here may change or go in any release.

/// The JSON transcoder salvage reads payloads with, and the decoder's check that builds
/// nothing: the `pyjson` fuzz target holds both to `json.loads` and `json.dumps`.
pub mod json {
    pub use crate::py::json::decode::raw_check;
    pub use crate::py::json::transcode::{
        GaveUp, Member, Transcoded, read_back, transcode, transcode_flat_first,
        transcode_object_text,
    };
}

/// The regions a response template reads: the `template` fuzz target looks for fences in
/// the text outside them, as the reading does, and holds every call to lie outside those.
#[cfg(feature = "template")]
pub mod template {
    use std::ops::Range;
    use std::sync::OnceLock;

    use regex::bytes::Regex;

    use crate::salvage::template::Template;
    use crate::salvage::template::groups::{Walk, check};

    /// Checks a match's groups found by walking `source` (a pattern as the `regex` crate
    /// reads it), and the matches found from where they may start, against the crate's
    /// own in `text`: how many were walked, or the first that differs. A pattern the crate
    /// refuses walks nothing.
    pub fn walk_agrees(source: &str, text: &[u8]) -> Result<usize, String> {
        match Regex::new(source) {
            Ok(regex) => check(&regex, Walk::compile(source).as_ref(), text),
            Err(_) => Ok(0),
        }
    }

    /// Every pattern of the shipped templates, as the `regex` crate is given it.
    pub fn shipped_patterns() -> Vec<String> {
        crate::salvage::template::shipped::patterns()
    }

    /// [`walk_agrees`] for every pattern of the shipped templates, each compiled once.
    pub fn walks_of_shipped_agree(text: &[u8]) -> Result<usize, String> {
        static COMPILED: OnceLock<Vec<(Regex, Option<Walk>)>> = OnceLock::new();
        let compiled = COMPILED.get_or_init(|| {
            let sources = shipped_patterns();
            let each = sources.iter().map(|s| (Regex::new(s), Walk::compile(s)));
            each.filter_map(|(regex, walk)| Some((regex.ok()?, walk)))
                .collect()
        });
        compiled.iter().try_fold(0, |walked, (regex, walk)| {
            Ok(walked + check(regex, walk.as_ref(), text)?)
        })
    }

    /// The span of every region of `text` that `template` reads (each field with an
    /// `open`: calls, reasoning), in text order.
    pub fn region_spans(text: &[u8], template: &Template) -> Vec<Range<usize>> {
        crate::salvage::template::region_spans(text, template)
    }
}
