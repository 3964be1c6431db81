//! The behaviours toolfix implements, and every switch that tells them apart.
//!
//! `praisonai` is byte-faithful to praisonaiagents 1.7.17, including where the package
//! breaks its own documentation. `strict` keeps the documented guarantees on every path.
//! `portable` is the profile of the guarantees any implementation should keep
//! (`docs/guarantees.md`); the reference implements it exactly as `strict`, and the suite
//! checks it more loosely (arguments as decoded JSON, no CPython forms). Each difference is
//! one method here, so a reader can see the whole contract in one place;
//! `docs/profiles.md` argues each one.

use std::fmt;
use std::str::FromStr;

use crate::py::INT_MAX_STR_DIGITS;
use crate::py::json::DecodeLimits;

/// Which behaviour to reproduce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Profile {
    /// What praisonaiagents 1.7.17 actually does.
    PraisonAi,
    /// The documented guarantees, kept on every path: the default for a Rust runtime.
    #[default]
    Strict,
    /// The guarantees every implementation should keep, whatever its language
    /// (`docs/guarantees.md`). The reference behaves here exactly as under `strict`.
    Portable,
}

/// The places salvage decodes JSON, which CPython reaches at different stack depths and
/// so with different recursion headroom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonSite {
    /// `json.loads(response_text.strip())` on the whole content.
    WholeContent,
    /// `json.loads(group)` inside `<tool_call>`, `[TOOL_CALL]` and `<function=…>`.
    Tag,
    /// `JSONDecoder.raw_decode` after `<|python_tag|>` and ReAct's `Action Input:`.
    OpenEnded,
}

/// The deepest JSON nesting `strict` accepts in a call payload; deeper payloads are
/// rejected as malformed (never an error). Real calls nest a handful of levels.
pub const STRICT_MAX_DEPTH: usize = 512;

impl Profile {
    /// Every profile, in a stable order.
    pub const ALL: [Profile; 3] = [Profile::PraisonAi, Profile::Strict, Profile::Portable];

    /// The profile's name on the command line, in case files and in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            Profile::PraisonAi => "praisonai",
            Profile::Strict => "strict",
            Profile::Portable => "portable",
        }
    }

    /// Whether the profile reproduces praisonaiagents 1.7.17, quirks and interpreter
    /// limits included, rather than keeping the documented guarantees.
    pub fn is_faithful(self) -> bool {
        self == Profile::PraisonAi
    }

    /// Whether the whole-content JSON path checks names against the offered tools.
    ///
    /// The seed promises no call is invented; praisonai dropped the check on this path
    /// (PR #5359), so a hallucinated `{"name": "wire_transfer"}` is recovered there.
    pub fn allowlists_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// Whether call payloads are re-read from the text as the model wrote it.
    ///
    /// praisonai decodes payloads from the fence-masked text, so a fence inside a JSON
    /// string argument reaches the tool as spaces (docs/behaviour.md §2(e).3).
    pub fn decodes_unmasked_payloads(self) -> bool {
        !self.is_faithful()
    }

    /// Whether a whole-content JSON call that fails the allowlist still claims the whole
    /// content, so a call quoted inside its strings is never run.
    pub fn reserves_rejected_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// The decoder limits at a JSON site: CPython's interpreter limits under praisonai
    /// (exceeding them is an error outcome), a documented depth bound under strict
    /// (exceeding it rejects the payload).
    pub fn json_limits(self, site: JsonSite) -> DecodeLimits {
        if self.is_faithful() {
            DecodeLimits {
                max_depth: praisonai_max_depth(site),
                int_max_str_digits: Some(INT_MAX_STR_DIGITS),
            }
        } else {
            DecodeLimits {
                max_depth: STRICT_MAX_DEPTH,
                int_max_str_digits: None,
            }
        }
    }
}

fn praisonai_max_depth(site: JsonSite) -> usize {
    match site {
        JsonSite::WholeContent | JsonSite::Tag => praisonai_depth::TAG_DECODE,
        JsonSite::OpenEnded => praisonai_depth::OPEN_ENDED_DECODE,
    }
}

/// How many containers deep CPython 3.11 can go at each place praisonaiagents parses or
/// prints a value before `RecursionError`, when the package function is called from a
/// module-level frame with the default recursion limit of 1000: the rule
/// `adapters/praisonai` enforces, and whose boundaries its `recursion_table.py` measures.
/// The places differ by the Python frames between the caller and the C code.
pub mod praisonai_depth {
    /// `json.loads` of the whole content or of a tag's group.
    pub const TAG_DECODE: usize = 993;
    /// `raw_decode` after `<|python_tag|>` or `Action Input:`.
    pub const OPEN_ENDED_DECODE: usize = 994;
    /// `json.dumps(arguments)` when a recovered call is built.
    pub const CALL_ARGUMENTS_ENCODE: usize = 992;
    /// The approval gate serialising a call's arguments dict, before dispatch.
    pub const APPROVAL_ENCODE: usize = 990;
    /// `json.dumps(tool_result)` in a role-`tool` result message.
    pub const RESULT_ENCODE: usize = 994;
    /// `str(tool_result)` in Ollama's result message.
    pub const RESULT_REPR: usize = 997;
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!("unknown profile {s:?} (expected praisonai, strict or portable)")
            })
    }
}
