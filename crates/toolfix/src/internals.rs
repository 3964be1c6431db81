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

    use crate::salvage::template::Template;

    /// The span of every region of `text` that `template` reads (each field with an
    /// `open`: calls, reasoning), in text order.
    pub fn region_spans(text: &[u8], template: &Template) -> Vec<Range<usize>> {
        crate::salvage::template::region_spans(text, template)
    }
}
