//! The behaviours toolfix implements, and every switch that tells them apart.
//!
//! `praisonai` is byte-faithful to praisonaiagents 1.7.17, including where the package
//! breaks its own documentation. `strict` keeps the documented guarantees on every path.
//! `portable` is the profile of the guarantees any implementation should keep
//! (`docs/guarantees.md`); in the core it is `strict`, and only the suite tells the two
//! apart (see [`Profile::Portable`]). Each difference is one method here, named for the
//! behaviour it switches (as regex-automata's `Config` names its options), so a reader can
//! see the whole contract in one place; `docs/profiles.md` argues each one.

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
    /// (`docs/guarantees.md`).
    ///
    /// This is the suite's concept, not the core's: no switch of `Profile` tells it from
    /// `strict`, so the reference behaves here exactly as under `strict`. The harness
    /// checks its expectations more loosely (calls by name and decoded arguments, no
    /// CPython forms, a streamed reply's text only when it holds no call), so that an
    /// implementation in another language can pass them.
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
    /// limits included: every switch below is defined by it. Private, so that every
    /// behaviour that differs is named here rather than branched on where it is used.
    fn is_faithful(self) -> bool {
        self == Profile::PraisonAi
    }

    // Salvage: the tool list and the interpreter.

    /// Whether a malformed tool entry (`{"function": null}`, a list as the name) is
    /// skipped when the allowlist is built, rather than raising the `AttributeError` or
    /// `TypeError` praisonai lets escape from salvage.
    ///
    /// Salvage must not fail on a bad tool list (`docs/deviations.md` §23, "Salvage can
    /// raise"; `docs/profiles.md`, Salvage, "malformed tool entries").
    pub fn skips_malformed_tool_entries(self) -> bool {
        !self.is_faithful()
    }

    /// Whether CPython's interpreter limits raise where the package meets them: an
    /// integer of more than 4300 digits (`ValueError`) and nesting past the recursion
    /// limit (`RecursionError`), in decoding a payload or a call's arguments, encoding
    /// them, or printing a result. The exception then escapes, or is caught, as the
    /// package's code around it does (a loop's validator words it as an error).
    ///
    /// Under strict there are no interpreter limits: big integers are kept exactly and
    /// nesting has the documented bound of [`json_limits`](Profile::json_limits)
    /// (`docs/deviations.md` §23; `docs/profiles.md`, Salvage, "a >4300-digit integer"
    /// and "nesting", Dispatch, "results CPython cannot print").
    pub fn raises_interpreter_errors(self) -> bool {
        self.is_faithful()
    }

    // Salvage: the whole-content path.

    /// Whether the whole-content JSON path checks names against the offered tools.
    ///
    /// The seed promises no call is invented; praisonai dropped the check on this path
    /// (PR #5359), so a hallucinated `{"name": "wire_transfer"}` is recovered there.
    pub fn allowlists_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// Whether a whole-content JSON object or list that makes no call (every call
    /// rejected, or none written) still claims the whole content, so a call quoted inside
    /// its strings is never run.
    ///
    /// "A marker quoted in another call's arguments is data", the package's own comment
    /// on overlap (`docs/profiles.md`, Salvage, "a whole-content payload whose every call
    /// is rejected").
    pub fn reserves_rejected_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// Whether whole content that the reply cut off inside a JSON payload (inside a
    /// string, or before the value ends) is reserved whole, rather than scanned for a
    /// call quoted in the part that was written.
    ///
    /// The payload was being written, and what is quoted in it is data
    /// (`docs/profiles.md`, Salvage, "whole content cut off inside a JSON payload";
    /// `docs/dialects/llama_json.md`).
    pub fn reserves_cut_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// Whether whole content that is JSON nested past strict's bound
    /// (`STRICT_MAX_DEPTH`) is reserved whole, like a rejected payload, rather than
    /// decoded up to CPython's limit.
    ///
    /// Strict does not read the payload, and nothing quoted inside it runs
    /// (`docs/profiles.md`, Salvage, "whole content that is JSON nested past strict's
    /// bound").
    pub fn reserves_deep_whole_content(self) -> bool {
        !self.is_faithful()
    }

    /// Whether several calls in one payload, separated by `;` (and, as the whole reply,
    /// by whitespace), are all read: as the whole content, and after `<|python_tag|>`.
    ///
    /// It is Llama 3.x's own format for several calls; praisonai's `json.loads` fails on
    /// the whole reply and its `raw_decode` reads only the first object after the tag
    /// (`docs/dialects/llama_json.md`; `docs/profiles.md`, Salvage, "Llama 3.x's
    /// `{"name", "parameters"}`" and "`<|python_tag|>{…}; {…}`").
    pub fn reads_call_sequences(self) -> bool {
        !self.is_faithful()
    }

    // Salvage: formats, reasoning and payloads.

    /// Whether salvage reads the native text formats of today's model families beyond
    /// the six dialects of praisonaiagents: their dialects ([`Dialect::recovered_by`]),
    /// their markers in the probe, Llama's `parameters` as a call's arguments and a
    /// pythonic list as the whole reply.
    ///
    /// praisonai reads none of them, as the real package does not (`docs/dialects/`;
    /// `docs/profiles.md`, the paragraph before Salvage, and Salvage, the probe).
    ///
    /// [`Dialect::recovered_by`]: crate::salvage::Dialect::recovered_by
    pub fn reads_native_formats(self) -> bool {
        !self.is_faithful()
    }

    /// Whether reasoning (`<think>` blocks, Gemma 4's thought and Harmony's analysis
    /// channels) is masked as fenced code is, so a call drafted in it never runs.
    ///
    /// A call the model thought about is not a call it made (`docs/guarantees.md` G9;
    /// `docs/dialects/reasoning.md`; `docs/profiles.md`, Salvage, "reasoning").
    pub fn masks_reasoning(self) -> bool {
        !self.is_faithful()
    }

    /// Whether a reply that begins with reasoning and then holds only a whole-content
    /// payload (`<think>…</think>{…}`) is read as a whole-content payload.
    ///
    /// praisonai's `json.loads` fails on such a reply, which it scans instead
    /// (`docs/dialects/reasoning.md`; `docs/profiles.md`, Salvage, case 4 of the calls
    /// only strict recovers).
    pub fn reads_payload_after_reasoning(self) -> bool {
        !self.is_faithful()
    }

    /// Whether call payloads are re-read from the text as the model wrote it.
    ///
    /// praisonai decodes payloads from the fence-masked text, so a fence inside a JSON
    /// string argument reaches the tool as spaces (docs/behaviour.md §2(e).3).
    pub fn decodes_unmasked_payloads(self) -> bool {
        !self.is_faithful()
    }

    // Streaming.

    /// Whether a stream shows every chunk as it arrives, call markup included, and gives
    /// the calls out at the end, rather than showing the reply without the calls' spans
    /// and each call once it is settled.
    ///
    /// It is what the real package's streaming loop shows (`docs/streaming.md`, "What is
    /// guaranteed"; `docs/deviations.md` §13).
    pub fn echoes_stream_chunks(self) -> bool {
        self.is_faithful()
    }

    // The agent loop.

    /// Whether a turn runs praisonaiagents' sync or async loop, as the `loop` input says,
    /// quirks included, rather than the one loop that keeps the documented async parity.
    ///
    /// `docs/profiles.md`, "The agent loop"; `docs/deviations.md`, "Loop-level
    /// deviations"; `docs/behaviour.md` §2(i).
    pub fn runs_package_loops(self) -> bool {
        self.is_faithful()
    }

    /// Whether the repair budget re-prompts for what the call's dispatch would fix: a
    /// name not offered verbatim (self-repair resolves it) and a missing schema-required
    /// argument (the parameter hint answers it).
    ///
    /// Drift "auto-fixes … no re-prompt, no extra round trip", as documented
    /// (`docs/deviations.md`, §3 #21 of the loop-level deviations; `docs/profiles.md`,
    /// "The agent loop", "the repair budget").
    pub fn reprompts_for_drift(self) -> bool {
        self.is_faithful()
    }

    // Dispatch.

    /// Whether dispatch first runs the package's approval step, which fails a call whose
    /// name is a list or dict (unhashable) or whose arguments nest deeper than
    /// `praisonai_depth::APPROVAL_ENCODE`.
    ///
    /// Any name is dispatched, and arguments of any depth, under strict
    /// (`docs/profiles.md`, Dispatch, "list or dict call names").
    pub fn runs_approval_step(self) -> bool {
        self.is_faithful()
    }

    /// Whether the deny-list is checked against the tool a name resolves to as well as
    /// the name as requested, so that no spelling (`DeleteFile`) runs a denied
    /// `delete_file`.
    ///
    /// A permission check that a case change defeats is not one (`docs/deviations.md`
    /// §22; `docs/behaviour.md` §2(j); `docs/profiles.md`, Dispatch, "deny-list").
    pub fn checks_deny_list_after_repair(self) -> bool {
        !self.is_faithful()
    }

    /// Whether dispatch introspects a tool as `inspect.signature` does, which raises on
    /// parameter names that are not identifiers: such a tool gets no parameter hint and
    /// no key sanitising.
    ///
    /// A Rust registry's introspection is not limited by Python's syntax
    /// (`docs/profiles.md`, Dispatch, "parameter names that are not identifiers").
    pub fn inspects_signatures(self) -> bool {
        self.is_faithful()
    }

    /// Whether the parameter hint names the tool as requested (`'WebSearch'`) rather
    /// than as registered (`'web_search'`), from which the model also learns the name.
    ///
    /// "The model learns which arguments to send next" (`docs/behaviour.md` §2(c);
    /// `docs/profiles.md`, Dispatch, "the name in the parameter hint").
    pub fn hints_requested_name(self) -> bool {
        self.is_faithful()
    }

    /// Whether `inspect.Signature.bind` decides binding before the body runs: a call
    /// that does not bind never runs, its hint carries `bind`'s error text, and a hint
    /// always means the body did not run.
    ///
    /// praisonai runs the call and, when it raises, asks `bind` whether to add the hint,
    /// so a body that ran can get one, worded with CPython's call error
    /// (`docs/deviations.md` §3 and A1; `docs/profiles.md`, Dispatch, "the bind gate"
    /// and "bind error text").
    pub fn binds_before_running(self) -> bool {
        !self.is_faithful()
    }

    // Limits.

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each named switch of `profile`, with its name.
    macro_rules! named {
        ($profile:expr; $($switch:ident),+ $(,)?) => {
            [$((stringify!($switch), $profile.$switch())),+]
        };
    }

    /// Every switch of `profile`, by name.
    fn switches(profile: Profile) -> [(&'static str, bool); 19] {
        named!(profile;
            skips_malformed_tool_entries,
            raises_interpreter_errors,
            allowlists_whole_content,
            reserves_rejected_whole_content,
            reserves_cut_whole_content,
            reserves_deep_whole_content,
            reads_call_sequences,
            reads_native_formats,
            masks_reasoning,
            reads_payload_after_reasoning,
            decodes_unmasked_payloads,
            echoes_stream_chunks,
            runs_package_loops,
            reprompts_for_drift,
            runs_approval_step,
            checks_deny_list_after_repair,
            inspects_signatures,
            hints_requested_name,
            binds_before_running,
        )
    }

    /// The decoder limits of `profile` at every JSON site.
    fn limits(profile: Profile) -> [DecodeLimits; 3] {
        [JsonSite::WholeContent, JsonSite::Tag, JsonSite::OpenEnded].map(|s| profile.json_limits(s))
    }

    /// `portable` is the suite's concept only: the core cannot tell it from `strict`.
    #[test]
    fn no_switch_tells_portable_from_strict() {
        assert_eq!(switches(Profile::Portable), switches(Profile::Strict));
        assert_eq!(limits(Profile::Portable), limits(Profile::Strict));
    }

    /// Each switch is a difference: `praisonai` and `strict` take opposite sides of it.
    #[test]
    fn every_switch_tells_praisonai_from_strict() {
        let praisonai = switches(Profile::PraisonAi);
        for ((name, faithful), (_, strict)) in praisonai.into_iter().zip(switches(Profile::Strict))
        {
            assert_ne!(faithful, strict, "{name}");
        }
        for (faithful, strict) in limits(Profile::PraisonAi)
            .into_iter()
            .zip(limits(Profile::Strict))
        {
            assert_ne!(faithful, strict);
        }
    }
}
