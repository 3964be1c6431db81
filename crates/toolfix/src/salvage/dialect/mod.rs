//! The dialects: one module per way a model writes a call as text.
//!
//! Each dialect's scanner lists the candidates it finds in a text, accepted or
//! rejected-but-reserved. Under `praisonai` the six dialects of praisonaiagents
//! (`tool_call`, `function`, `bracket`, `python_tag`, `react`, `whole_json`) scan the
//! fence-masked text (`scan_embedded`) and `span::select` orders their candidates; under
//! `strict` and `portable` the one-pass reading (`salvage::pass`) asks every scanner, in
//! registry order, what begins at each place it stops at, over the text as written. The
//! whole-content path runs before all of them.
//!
//! Each dialect is declared once, in `registry`: its name, how its calls are found, its
//! markers and its scanner; every marker's text is written once, in `tokens`. The scan
//! order, the openers a stream watches for and the probe's markers are derived from
//! the registry, and the fuzzing grammar asks it (`Dialect::spec`).

mod bracket;
mod call_array;
mod closed_tag;
mod deepseek;
mod function;
mod gemma;
mod glm;
mod granite;
mod harmony;
mod invoke;
mod kimi;
mod minimax;
mod mistral;
mod pair;
mod phi4;
mod python_tag;
pub mod pythonic;
mod qwen_xml;
mod react;
mod registry;
mod token;
pub mod tokens;
mod tool_call;
pub mod whole_json;
mod xml_value;

use std::fmt;
use std::str::FromStr;

use super::SalvageError;
use super::payload::Payloads;
use super::span::Candidates;
use super::text::MarkerBytes;
use crate::profile::Profile;
use registry::Needs;
pub use registry::{Kind, Spec};
pub(super) use registry::{PROBE_NEW, PROBE_PRAISONAI, TOKEN_DIALECTS, probed_by};
pub(super) use registry::{REGISTRY, Scanner};

/// How a call was written.
///
/// The first six are the dialects praisonaiagents 1.7.17 recovers, under every profile.
/// The others are the native text formats of the model families in use today; only
/// `strict` and `portable` recover them (`praisonai` stays byte-faithful).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Dialect {
    /// The whole content is a JSON object or array of `{"name", "arguments"}`.
    WholeJson,
    /// `<tool_call>{…}</tool_call>` (Hermes, Qwen).
    ToolCall,
    /// `[TOOL_CALL]{…}[/TOOL_CALL]` and LM Studio's `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`.
    Bracket,
    /// Llama 3.x `<|python_tag|>{…}`.
    PythonTag,
    /// `<function=NAME>{…}</function>` (Functionary, Llama 3.1 custom tools).
    Function,
    /// ReAct `Action: NAME` / `Action Input: {…}`.
    React,
    /// Llama 3.x JSON: `{"name", "parameters"}` as the whole reply or after
    /// `<|python_tag|>`, several calls separated by `;`.
    LlamaJson,
    /// Mistral's `[TOOL_CALLS]`: a JSON array (v3), or `NAME[ARGS]{…}` with an optional
    /// `[CALL_ID]` (v11 and later).
    Mistral,
    /// Qwen3-Coder / Qwen3.5 XML: `<tool_call><function=NAME><parameter=K>V</parameter>…`.
    QwenXml,
    /// DeepSeek V3, V3.1, V3.2 and R1 tool-call tokens.
    DeepSeek,
    /// GLM-4.5 and later: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>`.
    Glm,
    /// Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}`.
    Kimi,
    /// gpt-oss Harmony: a message `to=functions.NAME` with a JSON body.
    Harmony,
    /// FunctionGemma and Gemma 4: `call:NAME{key:value,…}` between their call tokens
    /// (`<start_function_call>`, `<|tool_call>`).
    Gemma,
    /// MiniMax M2: `<minimax:tool_call><invoke name=NAME><parameter name=K>V</parameter>`.
    MiniMax,
    /// IBM Granite: `<|tool_call|>[{"name", "arguments"}, …]`.
    Granite,
    /// Phi-4-mini: `functools[{"name", "arguments"}, …]`.
    Phi4,
    /// A Python list of calls as the whole reply: `[get_weather(city="Paris")]` (Llama
    /// 3.2/4 and others), arguments as Python literals, never evaluated.
    Pythonic,
    /// A format declared at run time by a response template (`salvage::template`): read
    /// only for the requests it is given, never by the shipped reading.
    Template,
}

impl Dialect {
    /// Every dialect, in a stable order: the registry's.
    pub const ALL: [Dialect; 19] = registry::ORDER;

    /// The dialect as the registry declares it: its name, how its calls are found, its
    /// markers and its tokens.
    pub fn spec(self) -> &'static Spec {
        &REGISTRY[self as usize]
    }

    /// The dialect's name in case files and in the protocol.
    pub fn name(self) -> &'static str {
        self.spec().name()
    }

    /// Whether praisonaiagents 1.7.17 recovers it (and so every profile does).
    pub fn is_praisonai(self) -> bool {
        self.spec().is_praisonai()
    }

    /// The dialects a profile recovers: the six of praisonaiagents under `praisonai`,
    /// every one under `strict` and `portable`.
    pub fn recovered_by(profile: Profile) -> impl Iterator<Item = Dialect> {
        Dialect::ALL
            .into_iter()
            .filter(move |d| d.is_praisonai() || profile.reads_native_formats())
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Dialect, String> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown dialect {s:?}"))
    }
}

/// Every embedded dialect's candidates over the masked text, unordered.
pub(super) fn scan_embedded(payloads: &Payloads<'_>) -> Result<Candidates, SalvageError> {
    let mut candidates = Candidates::new();
    let held = MarkerBytes::of(payloads.text());
    for spec in &REGISTRY {
        if let Scanner::Embedded(scan) = spec.scanner() {
            if holds(held, spec.needs()) {
                scan(payloads, &mut candidates)?;
            }
        }
    }
    Ok(candidates)
}

/// Whether text that holds the bytes `held` can hold a marker of a dialect that `needs`
/// one: a scanner whose byte the text lacks has nothing to find.
pub(super) fn holds(held: MarkerBytes, needs: Needs) -> bool {
    match needs {
        Needs::Angle => held.angle,
        Needs::Bracket => held.bracket,
        Needs::Nothing => true,
    }
}

/// The markers at which a token dialect's structure (for Harmony, a message header) can
/// begin: a stream keeps text from one of these near the end of what it has until more
/// text says whether a call begins there (`scan::markers_near_end`). Harmony's include
/// any recipient, `to=`: a message to a built-in tool makes no call but reserves its body.
pub(super) const TOKEN_OPENERS: &[&str] = &registry::TOKEN_OPENERS;

/// The longest name, key or call id a dialect reads where its syntax bounds none (a
/// GLM name, a Qwen3 XML tag, a Mistral name before `[ARGS]`): longer is text, not a
/// call. The bound keeps what begins at a marker decidable from the few hundred bytes
/// after it (`pass::LOOK_AHEAD`), so a stream decides it as batch salvage does (F40 in
/// fuzz/findings.toml).
pub(super) const MAX_NAME: usize = 256;

/// Whether one of `TOKEN_OPENERS` begins at `at` of `text`. A structure of many calls
/// asks this at each call, and most openers share their first byte, `<`: the first
/// eight bytes there pick, in `OPENERS_BY_BYTE`, the few openers that could begin with
/// them, and only those are compared in full.
pub(super) fn opens_at(text: &[u8], at: usize) -> bool {
    let rest = &text[at..];
    let mut could = u64::MAX;
    for (k, &byte) in rest.iter().take(8).enumerate() {
        could &= OPENERS_BY_BYTE[k][usize::from(byte)];
    }
    while could != 0 {
        let i = could.trailing_zeros() as usize;
        if rest.starts_with(TOKEN_OPENERS[i].as_bytes()) {
            return true;
        }
        could &= could - 1;
    }
    false
}

/// `OPENERS_BY_BYTE[k][b]`: the openers (bit `i` for `TOKEN_OPENERS[i]`) whose byte `k`
/// is `b`, or which are shorter than `k + 1` bytes.
const OPENERS_BY_BYTE: [[u64; 256]; 8] = {
    assert!(registry::TOKEN_OPENERS.len() <= 64, "one bit per opener");
    let mut table = [[0u64; 256]; 8];
    let mut i = 0;
    while i < registry::TOKEN_OPENERS.len() {
        let opener = registry::TOKEN_OPENERS[i].as_bytes();
        let mut k = 0;
        while k < 8 {
            let mut b = 0;
            while b < 256 {
                if k >= opener.len() || opener[k] as usize == b {
                    table[k][b] |= 1 << i;
                }
                b += 1;
            }
            k += 1;
        }
        i += 1;
    }
    table
};

/// The calls `strict` salvages from `text` with `tools` offered, as (name, arguments):
/// what the dialects' unit tests compare.
#[cfg(test)]
fn strict_calls(text: &str, tools: &[&str]) -> Vec<(String, String)> {
    use super::{Allowlist, Request, salvage};
    use crate::Adapter;
    let tools = Allowlist::new(tools.iter().copied());
    salvage(&Request::new(text, &tools).adapter(Adapter::Local))
        .iter()
        .map(|c| {
            (
                c.name_str().unwrap().to_owned(),
                c.arguments_text().as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `leaves`, and values nested four deep of them: lists (`[a, b]`) and what `containers`
/// writes around the values it is given (a format's own objects, tuples): the literals
/// the transcoders' property tests write.
#[cfg(test)]
fn nested_literals<C>(
    leaves: Vec<&'static str>,
    containers: impl Fn(proptest::strategy::BoxedStrategy<String>) -> C + 'static,
) -> impl proptest::strategy::Strategy<Value = String>
where
    C: proptest::strategy::Strategy<Value = String> + 'static,
{
    use proptest::prelude::*;
    let leaf = prop::sample::select(leaves).prop_map(String::from);
    leaf.prop_recursive(4, 32, 4, move |inner| {
        let list =
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", ")));
        prop_oneof![list, containers(inner)]
    })
}

/// How many of 1,000 texts `generate` makes (deterministically) `written` says a
/// transcoder wrote: what the transcoders' property tests check, so that the property
/// sees plain calls often enough to test them.
#[cfg(test)]
fn written_of_a_thousand(
    generate: impl proptest::strategy::Strategy<Value = String>,
    written: impl Fn(&str) -> bool,
) -> usize {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..1000)
        .filter(|_| written(&generate.new_tree(&mut runner).unwrap().current()))
        .count()
}

/// The candidates `scanners` find in `text` under `strict` with `tools` offered, nothing
/// masked: what the scanners' unit tests inspect.
#[cfg(test)]
fn candidates_of(
    scanners: &[fn(&Payloads<'_>, &mut Candidates)],
    text: &str,
    tools: &[&str],
) -> Candidates {
    let tools = super::Allowlist::new(tools.iter().copied());
    let masked = super::fence::Masked::with_ranges(text.as_bytes(), Vec::new());
    let payloads = Payloads::new(&masked, &tools, crate::Profile::Strict);
    let mut out = Candidates::new();
    for scan in scanners {
        scan(&payloads, &mut out);
    }
    out
}

/// The accepted calls of `candidates` as (name, arguments JSON), and every span.
#[cfg(test)]
fn accepted_and_spans(
    candidates: Candidates,
) -> (Vec<(String, String)>, Vec<std::ops::Range<usize>>) {
    let spans = candidates.iter().map(|c| c.span.clone()).collect();
    let calls = candidates
        .into_found()
        .filter_map(|(_, found)| found)
        .map(|f| (f.name.to_string(), argument_string(f.args)))
        .collect();
    (calls, spans)
}

/// What `scan` accepts in `text` with `get_weather` and `search` offered, as
/// `accepted_and_spans` gives it.
#[cfg(test)]
fn scanned_by(
    scan: fn(&Payloads<'_>, &mut Candidates),
    text: &str,
) -> (Vec<(String, String)>, Vec<std::ops::Range<usize>>) {
    accepted_and_spans(candidates_of(&[scan], text, &["get_weather", "search"]))
}

/// The argument string of arguments as a dialect read them.
#[cfg(test)]
fn argument_string(args: super::call::Args) -> String {
    match args {
        super::call::Args::Decoded(value) => crate::py::json::dumps(&value).unwrap(),
        super::call::Args::Written(text) => text.to_string(),
    }
}
