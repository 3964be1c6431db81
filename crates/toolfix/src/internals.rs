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
