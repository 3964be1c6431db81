//! The dialect registry: each dialect declared once, with its name, how its calls are
//! found, its markers and its scanner.
//!
//! Everything that needs a list of dialects or of their markers derives it from here:
//! `Dialect::ALL` and `Dialect::name`, the reading order (`scan_embedded`, `pass::blocks`),
//! the openers a stream watches for (`token_openers`), the probe's markers
//! (`probe_markers`), and the fuzzing grammar, which asks `Dialect::spec`. Adding a
//! dialect is a module with its scanner, its tokens in `tokens`, and one entry here.

use super::super::SalvageError;
use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::super::text::same;
use super::tokens::{
    bracket, deepseek, function, gemma, glm as glm_tokens, granite, harmony, kimi, minimax,
    mistral, phi4, python_tag, pythonic, react, tool_call,
};
use super::{
    Dialect, bracket as bracket_scan, deepseek as deepseek_scan, function as function_scan,
    gemma as gemma_scan, glm, granite as granite_scan, harmony as harmony_scan, kimi as kimi_scan,
    minimax as minimax_scan, mistral as mistral_scan, phi4 as phi4_scan,
    python_tag as python_tag_scan, pythonic as pythonic_scan, qwen_xml, react as react_scan,
    tool_call as tool_call_scan,
};

/// Where a dialect's calls are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Only as the whole reply: the stripped content is one payload.
    WholeContent,
    /// Anywhere in the text with fenced code (and, under `strict` and `portable`,
    /// reasoning) masked: the tags and words of the real package's dialects.
    Embedded,
    /// Anywhere in the text as written: special tokens whose own syntax may hold a fence.
    Token,
    /// As a template given at run time declares it (`salvage::template`), and only then.
    Declared,
}

/// Which byte a text must hold for a dialect's scanner to find anything: every opener of
/// a tag or token holds `<` or `[`, so a scanner whose byte the text lacks is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    /// `<`.
    Angle,
    /// `[`.
    Bracket,
    /// Nothing: a word (`Action`).
    Nothing,
}

/// A scanner: every candidate of its dialect in the scanned text.
#[derive(Clone, Copy)]
pub(crate) enum Scanner {
    /// None of its own: another dialect's scanner (or the whole-content path) reads it.
    None,
    /// Over the masked text; may raise what the real package raises (`praisonai`).
    Embedded(fn(&Payloads<'_>, &mut Candidates) -> Result<(), SalvageError>),
    /// Over the text as written; never fails.
    Token(fn(&Payloads<'_>, &mut Candidates)),
}

/// One dialect as the registry declares it.
pub struct Spec {
    dialect: Dialect,
    name: &'static str,
    kind: Kind,
    praisonai: bool,
    openers: &'static [&'static str],
    probe: &'static [&'static str],
    tokens: &'static [&'static str],
    needs: Needs,
    scanner: Scanner,
}

impl Spec {
    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Its name in case files and in the protocol.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Where its calls are found.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether praisonaiagents 1.7.17 recovers it (and so every profile does).
    pub fn is_praisonai(&self) -> bool {
        self.praisonai
    }

    /// The markers at which one of its structures can begin (for Harmony, any part of a
    /// message header): a stream keeps the text from one of these near its end until
    /// more text says whether a call begins there. Empty for the real package's
    /// dialects, whose stream needs are their own (`stream::frontier`).
    pub fn openers(&self) -> &'static [&'static str] {
        self.openers
    }

    /// The markers whose presence, in any ASCII case, lets a reply past the probe: one
    /// of them must occur for a call of this dialect to be recovered (the whole-content
    /// forms aside, which the probe does not gate).
    pub fn probe(&self) -> &'static [&'static str] {
        self.probe
    }

    /// Every special token the format writes, openers and closers alike: what the model
    /// family's tokenizer holds as one token, which a server streaming tokens never
    /// splits. Empty for formats written in plain text (`<function=…>`, `[TOOL_CALL]`).
    pub fn tokens(&self) -> &'static [&'static str] {
        self.tokens
    }

    /// Which byte a text must hold for the scanner to find anything.
    pub(crate) fn needs(&self) -> Needs {
        self.needs
    }

    /// Its scanner.
    pub(crate) fn scanner(&self) -> Scanner {
        self.scanner
    }
}

/// Every dialect, in `Dialect`'s order, which is the order they are scanned in within
/// each kind: two dialects may read a block from the same opener (`<tool_call>` is the
/// `tool_call` dialect's, Qwen3 XML's and GLM's), and candidates starting together keep
/// that order.
pub(crate) static REGISTRY: [Spec; 19] = SPECS;

/// The entries, as a constant the derived arrays below are built from.
const SPECS: [Spec; 19] = [
    Spec {
        dialect: Dialect::WholeJson,
        name: "whole_json",
        kind: Kind::WholeContent,
        praisonai: true,
        openers: &[],
        probe: &[],
        tokens: &[],
        needs: Needs::Nothing,
        scanner: Scanner::None,
    },
    Spec {
        dialect: Dialect::ToolCall,
        name: "tool_call",
        kind: Kind::Embedded,
        praisonai: true,
        openers: &[],
        probe: &[tool_call::OPEN],
        tokens: &[tool_call::OPEN, tool_call::CLOSE],
        needs: Needs::Angle,
        scanner: Scanner::Embedded(tool_call_scan::scan),
    },
    Spec {
        dialect: Dialect::Bracket,
        name: "bracket",
        kind: Kind::Embedded,
        praisonai: true,
        openers: &[],
        probe: &[bracket::TOOL_CALL, bracket::TOOL_REQUEST],
        tokens: &[],
        needs: Needs::Bracket,
        scanner: Scanner::Embedded(bracket_scan::scan),
    },
    Spec {
        dialect: Dialect::PythonTag,
        name: "python_tag",
        kind: Kind::Embedded,
        praisonai: true,
        openers: &[],
        probe: &[python_tag::TAG],
        tokens: &[python_tag::TAG, python_tag::EOM, python_tag::EOT],
        needs: Needs::Angle,
        scanner: Scanner::Embedded(python_tag_scan::scan),
    },
    Spec {
        dialect: Dialect::Function,
        name: "function",
        kind: Kind::Embedded,
        praisonai: true,
        openers: &[],
        probe: &[function::OPEN],
        tokens: &[],
        needs: Needs::Angle,
        scanner: Scanner::Embedded(function_scan::scan),
    },
    Spec {
        dialect: Dialect::React,
        name: "react",
        kind: Kind::Embedded,
        praisonai: true,
        openers: &[],
        probe: &[react::ACTION],
        tokens: &[],
        needs: Needs::Nothing,
        scanner: Scanner::Embedded(react_scan::scan),
    },
    Spec {
        dialect: Dialect::LlamaJson,
        name: "llama_json",
        kind: Kind::Embedded,
        praisonai: false,
        openers: &[],
        probe: &[python_tag::TAG],
        tokens: &[python_tag::TAG],
        needs: Needs::Angle,
        scanner: Scanner::None,
    },
    Spec {
        dialect: Dialect::Mistral,
        name: "mistral",
        kind: Kind::Token,
        praisonai: false,
        openers: &[mistral::TOOL_CALLS],
        probe: &[mistral::TOOL_CALLS],
        tokens: &[mistral::TOOL_CALLS, mistral::ARGS, mistral::CALL_ID],
        needs: Needs::Bracket,
        scanner: Scanner::Token(mistral_scan::scan),
    },
    Spec {
        dialect: Dialect::QwenXml,
        name: "qwen_xml",
        kind: Kind::Token,
        praisonai: false,
        openers: &[function::OPEN, tool_call::OPEN],
        probe: &[function::OPEN, tool_call::OPEN],
        tokens: &[tool_call::OPEN, tool_call::CLOSE],
        needs: Needs::Angle,
        scanner: Scanner::Token(qwen_xml::scan),
    },
    Spec {
        dialect: Dialect::DeepSeek,
        name: "deepseek",
        kind: Kind::Token,
        praisonai: false,
        openers: &[
            deepseek::CALLS_BEGIN,
            deepseek::CALL_BEGIN,
            deepseek::DSML_CALLS,
            deepseek::DSML_V4_CALLS,
            deepseek::DSML_V41_CALLS,
        ],
        probe: &[
            deepseek::CALLS_BEGIN,
            deepseek::CALL_BEGIN,
            deepseek::DSML_CALLS,
            deepseek::DSML_V4_CALLS,
            deepseek::DSML_V41_CALLS,
        ],
        tokens: &[
            deepseek::CALLS_BEGIN,
            deepseek::CALLS_END,
            deepseek::CALL_BEGIN,
            deepseek::CALL_END,
            deepseek::SEP,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(deepseek_scan::scan),
    },
    Spec {
        dialect: Dialect::Glm,
        name: "glm",
        kind: Kind::Token,
        praisonai: false,
        openers: &[tool_call::OPEN],
        probe: &[tool_call::OPEN],
        tokens: &[
            tool_call::OPEN,
            tool_call::CLOSE,
            glm_tokens::KEY,
            glm_tokens::KEY_CLOSE,
            glm_tokens::VALUE,
            glm_tokens::VALUE_CLOSE,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(glm::scan),
    },
    Spec {
        dialect: Dialect::Kimi,
        name: "kimi",
        kind: Kind::Token,
        praisonai: false,
        openers: &[kimi::SECTION_BEGIN, kimi::CALL_BEGIN],
        probe: &[kimi::SECTION_BEGIN, kimi::CALL_BEGIN],
        tokens: &[
            kimi::SECTION_BEGIN,
            kimi::SECTION_END,
            kimi::CALL_BEGIN,
            kimi::ARGUMENT_BEGIN,
            kimi::CALL_END,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(kimi_scan::scan),
    },
    Spec {
        dialect: Dialect::Harmony,
        name: "harmony",
        kind: Kind::Token,
        praisonai: false,
        openers: &[
            harmony::START,
            harmony::CHANNEL,
            harmony::RECIPIENT,
            harmony::MESSAGE,
            harmony::CONSTRAIN,
        ],
        probe: &[harmony::MESSAGE],
        tokens: &[
            harmony::START,
            harmony::CHANNEL,
            harmony::CONSTRAIN,
            harmony::MESSAGE,
            harmony::CALL,
            harmony::END,
            harmony::RETURN,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(harmony_scan::scan),
    },
    Spec {
        dialect: Dialect::Gemma,
        name: "gemma",
        kind: Kind::Token,
        praisonai: false,
        openers: &[gemma::FUNCTION_GEMMA_OPEN, gemma::GEMMA_4_OPEN],
        probe: &[gemma::FUNCTION_GEMMA_OPEN, gemma::GEMMA_4_OPEN],
        tokens: &[
            gemma::FUNCTION_GEMMA_OPEN,
            gemma::FUNCTION_GEMMA_CLOSE,
            gemma::FUNCTION_GEMMA_QUOTE,
            gemma::GEMMA_4_OPEN,
            gemma::GEMMA_4_CLOSE,
            gemma::GEMMA_4_QUOTE,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(gemma_scan::scan),
    },
    Spec {
        dialect: Dialect::MiniMax,
        name: "minimax",
        kind: Kind::Token,
        praisonai: false,
        openers: &[minimax::SECTION],
        probe: &[minimax::SECTION],
        tokens: &[minimax::SECTION, minimax::SECTION_CLOSE],
        needs: Needs::Angle,
        scanner: Scanner::Token(minimax_scan::scan),
    },
    Spec {
        dialect: Dialect::Granite,
        name: "granite",
        kind: Kind::Token,
        praisonai: false,
        openers: &[granite::TOOL_CALL],
        probe: &[granite::TOOL_CALL],
        tokens: &[granite::TOOL_CALL],
        needs: Needs::Angle,
        scanner: Scanner::Token(granite_scan::scan),
    },
    Spec {
        dialect: Dialect::Phi4,
        name: "phi4",
        kind: Kind::Token,
        praisonai: false,
        openers: &[phi4::FUNCTOOLS],
        probe: &[phi4::FUNCTOOLS, granite::TOOL_CALL],
        tokens: &[granite::TOOL_CALL, phi4::CLOSE],
        needs: Needs::Bracket,
        scanner: Scanner::Token(phi4_scan::scan),
    },
    Spec {
        dialect: Dialect::Pythonic,
        name: "pythonic",
        kind: Kind::Token,
        praisonai: false,
        openers: &[pythonic::PYTHON_START, pythonic::TOOL_CALL_START],
        probe: &[
            pythonic::PYTHON_START,
            pythonic::TOOL_CALL_START,
            pythonic::FUNCTION_CALLS,
        ],
        tokens: &[
            pythonic::PYTHON_START,
            pythonic::PYTHON_END,
            pythonic::TOOL_CALL_START,
            pythonic::TOOL_CALL_END,
            pythonic::FUNCTION_CALLS,
            pythonic::FUNCTION_CALLS_CLOSE,
        ],
        needs: Needs::Angle,
        scanner: Scanner::Token(pythonic_scan::scan),
    },
    Spec {
        dialect: Dialect::Template,
        name: "template",
        kind: Kind::Declared,
        praisonai: false,
        openers: &[],
        probe: &[],
        tokens: &[],
        needs: Needs::Nothing,
        scanner: Scanner::None,
    },
];

/// Every dialect in registry order: `Dialect::ALL`.
pub(crate) const ORDER: [Dialect; 19] = {
    let mut order = [Dialect::WholeJson; 19];
    let mut i = 0;
    while i < SPECS.len() {
        order[i] = SPECS[i].dialect;
        i += 1;
    }
    order
};

/// Which of a spec's marker lists a derived array takes.
#[derive(Clone, Copy)]
enum List {
    Openers,
    Probe,
}

/// Which dialects a derived array takes its markers from.
#[derive(Clone, Copy)]
enum Side {
    /// The six of the real package.
    PraisonAi,
    /// The ones only `strict` and `portable` recover.
    New,
    /// Every one.
    Every,
}

/// `spec`'s markers of `list`.
const fn markers(spec: &Spec, list: List) -> &'static [&'static str] {
    match list {
        List::Openers => spec.openers,
        List::Probe => spec.probe,
    }
}

/// Whether marker `j` of entry `i` is picked for `side`: its dialect is of that side, and
/// no earlier entry (in registry order, whatever its side) names the same marker, so each
/// marker is looked for once (`<tool_call>` is the `tool_call` dialect's, and GLM's).
const fn picked(i: usize, j: usize, list: List, side: Side) -> bool {
    let spec = &SPECS[i];
    let of_side = match side {
        Side::PraisonAi => spec.praisonai,
        Side::New => !spec.praisonai,
        Side::Every => true,
    };
    let marker = markers(spec, list)[j].as_bytes();
    let mut k = 0;
    while k < i {
        let earlier = markers(&SPECS[k], list);
        let mut m = 0;
        while m < earlier.len() {
            if same(earlier[m].as_bytes(), marker) {
                return false;
            }
            m += 1;
        }
        k += 1;
    }
    of_side
}

/// How many markers `list` and `side` pick: the length of the array they make.
const fn count(list: List, side: Side) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < SPECS.len() {
        let mut j = 0;
        while j < markers(&SPECS[i], list).len() {
            n += picked(i, j, list, side) as usize;
            j += 1;
        }
        i += 1;
    }
    n
}

/// The markers `list` and `side` pick, in registry order.
const fn flatten<const N: usize>(list: List, side: Side) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut n, mut i) = (0, 0);
    while i < SPECS.len() {
        let all = markers(&SPECS[i], list);
        let mut j = 0;
        while j < all.len() {
            if picked(i, j, list, side) {
                out[n] = all[j];
                n += 1;
            }
            j += 1;
        }
        i += 1;
    }
    out
}

/// The markers at which a token dialect's structure can begin (`Spec::openers`).
pub(crate) const TOKEN_OPENERS: [&str; count(List::Openers, Side::Every)] =
    flatten(List::Openers, Side::Every);

/// The token dialects (bit `i` for the registry's `i`th): their scanners match their
/// markers as written, so one whose probe markers a text lacks in any ASCII case reads
/// nothing in it. The real package's dialects match theirs as Python's `re.IGNORECASE`
/// does, where `<functıon=` (a dotless `ı`) is `<function=`.
pub(crate) const TOKEN_DIALECTS: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < SPECS.len() {
        if matches!(SPECS[i].kind, Kind::Token) {
            bits |= 1 << i;
        }
        i += 1;
    }
    bits
};

/// The dialects (bit `i` for the registry's `i`th) whose probe markers include `marker`:
/// those a text holding it may have a block of (`probe::dialects_in`).
pub(crate) const fn probed_by(marker: &str) -> u32 {
    let mut bits = 0;
    let mut i = 0;
    while i < SPECS.len() {
        let probe = SPECS[i].probe;
        let mut j = 0;
        while j < probe.len() {
            if same(probe[j].as_bytes(), marker.as_bytes()) {
                bits |= 1 << i;
            }
            j += 1;
        }
        i += 1;
    }
    bits
}

/// The probe's markers for the real package's six dialects (`Spec::probe`).
pub(crate) const PROBE_PRAISONAI: [&str; count(List::Probe, Side::PraisonAi)] =
    flatten(List::Probe, Side::PraisonAi);

/// The probe's markers for the dialects only `strict` and `portable` recover.
pub(crate) const PROBE_NEW: [&str; count(List::Probe, Side::New)] = flatten(List::Probe, Side::New);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_its_own_entry_in_enum_order() {
        for (i, dialect) in Dialect::ALL.into_iter().enumerate() {
            assert_eq!(dialect as usize, i);
            assert_eq!(dialect.spec().dialect(), dialect);
            assert_eq!(dialect.name().parse::<Dialect>(), Ok(dialect));
        }
    }

    /// The probe's markers of the real package are the six substrings its probe looks for
    /// in `str.lower()` of the reply (docs/behaviour.md §2(e).2).
    #[test]
    fn the_real_packages_probe_markers_are_its_six() {
        let mut lower: Vec<String> = PROBE_PRAISONAI.iter().map(|m| m.to_lowercase()).collect();
        lower.sort_unstable();
        let mut six = [
            "<tool_call>",
            "<function=",
            "[tool_call]",
            "[tool_request]",
            "<|python_tag|>",
            "action",
        ];
        six.sort_unstable();
        assert_eq!(lower, six);
    }

    /// The probe finds its candidates at `<` and `[` (and `action` by its letters): every
    /// other marker must start with one of them, save `functools[`, found at its `[`.
    #[test]
    fn every_probe_marker_starts_where_the_probe_looks() {
        for marker in PROBE_PRAISONAI.iter().chain(&PROBE_NEW) {
            let first = marker.as_bytes()[0];
            let word = [react::ACTION, phi4::FUNCTOOLS].contains(marker);
            assert!(word || first == b'<' || first == b'[', "{marker}");
        }
    }

    /// Each marker is listed once, and a scanner is skipped only in text that lacks the
    /// byte all its openers hold.
    #[test]
    fn markers_are_unique_and_hold_the_byte_their_scanner_needs() {
        for list in [&TOKEN_OPENERS[..], &PROBE_PRAISONAI, &PROBE_NEW] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len());
        }
        for spec in &REGISTRY {
            let byte = match spec.needs() {
                Needs::Angle => b'<',
                Needs::Bracket => b'[',
                Needs::Nothing => continue,
            };
            let own = match spec.kind() {
                Kind::Token => spec.openers(),
                _ => spec.probe(),
            };
            assert!(!own.is_empty(), "{}", spec.name());
            // Harmony reads a recipient only before a `<|message|>`.
            let holds = |m: &&str| m.as_bytes().contains(&byte) || *m == harmony::RECIPIENT;
            assert!(own.iter().all(holds), "{}", spec.name());
        }
    }

    /// Every token dialect with a scanner of its own names where its structures open, and
    /// lists its special tokens; a token is never empty.
    #[test]
    fn token_dialects_declare_their_openers_and_tokens() {
        for spec in &REGISTRY {
            if let Scanner::Token(_) = spec.scanner() {
                assert!(!spec.openers().is_empty(), "{}", spec.name());
            }
            assert!(spec.tokens().iter().all(|t| !t.is_empty()));
        }
    }
}
