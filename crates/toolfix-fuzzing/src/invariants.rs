//! What every salvage must keep, whatever the reply: the guarantees the fuzz targets and
//! the property tests assert. Each check returns a description of the first violation.

use std::ops::Range;
use std::sync::LazyLock;

use super::markers::concat;
use super::reply::{Intended, MARKERS_NEW, MARKERS_PRAISONAI};
use super::surrogates::joined;
use toolfix::Profile;
use toolfix::py::json::{self, DecodeLimits};
use toolfix::py::{INT_MAX_STR_DIGITS, Value, is_space};
use toolfix::salvage::fenced_ranges;
use toolfix::salvage::tokens::{
    bracket, function, harmony, phi4, python_tag, pythonic, react, reasoning, tool_call,
};
use toolfix::salvage::{Allowlist, Call, Content, Dialect, DialectKind};

/// A broken guarantee, described for the person reading the failure.
pub type Violation = String;

/// Every check below: the calls' own (`calls_hold`), then that none comes from a fence as
/// `profile` masks fences.
pub fn check_all(
    content: Content<'_>,
    tools: &Allowlist,
    profile: Profile,
    calls: &[Call],
) -> Result<(), Violation> {
    calls_hold(content.as_bytes(), tools, profile, calls)?;
    match profile {
        Profile::PraisonAi => outside_fences(content, calls),
        _ => outside_fences_strict(content, calls),
    }
}

/// The checks of the calls themselves, whatever reads them (a dialect or a response
/// template, which finds fences its own way): spans in bounds, in text order and none
/// inside another, offered names, and arguments that decode.
pub fn calls_hold(
    content: &[u8],
    tools: &Allowlist,
    profile: Profile,
    calls: &[Call],
) -> Result<(), Violation> {
    spans_in_bounds(content, calls)?;
    text_order(calls)?;
    allowlisted(tools, profile, calls)?;
    no_span_starts_inside_another(calls)?;
    arguments_decode(calls)
}

/// Every span is a non-empty range of the content.
pub fn spans_in_bounds(content: &[u8], calls: &[Call]) -> Result<(), Violation> {
    match calls
        .iter()
        .find(|c| c.span().start >= c.span().end || c.span().end > content.len())
    {
        Some(call) => Err(format!(
            "span {:?} of {} is not inside the {} bytes of content",
            call.span(),
            describe(call),
            content.len()
        )),
        None => Ok(()),
    }
}

/// Calls come out in the order of their spans.
pub fn text_order(calls: &[Call]) -> Result<(), Violation> {
    match calls
        .windows(2)
        .find(|w| w[1].span().start < w[0].span().start)
    {
        Some(w) => Err(format!(
            "{} comes before {} but starts later",
            describe(&w[0]),
            describe(&w[1])
        )),
        None => Ok(()),
    }
}

/// Every call from an embedded dialect names an offered tool; under `strict`, every call
/// does (whole-content JSON too).
pub fn allowlisted(tools: &Allowlist, profile: Profile, calls: &[Call]) -> Result<(), Violation> {
    let must_be_offered =
        |call: &Call| call.dialect() != Dialect::WholeJson || profile == Profile::Strict;
    let offered = |call: &Call| call.name().as_py_str().is_some_and(|n| tools.contains(n));
    match calls.iter().find(|c| must_be_offered(c) && !offered(c)) {
        Some(call) => Err(format!(
            "{} names a tool that was not offered",
            describe(call)
        )),
        None => Ok(()),
    }
}

/// No call starts inside a fenced range of the content: a fenced call is an example.
pub fn outside_fences(content: Content<'_>, calls: &[Call]) -> Result<(), Violation> {
    if calls.is_empty() {
        return Ok(());
    }
    let fenced = fenced_ranges(content);
    for call in calls {
        if let Some(fence) = fenced.iter().find(|f| f.contains(&call.span().start)) {
            return Err(format!(
                "{} starts inside the fenced range {fence:?}",
                describe(call)
            ));
        }
    }
    Ok(())
}

/// Under `strict` and `portable`: no call starts inside a fenced range of the content,
/// unless the fence opens inside a dialect's block or a reasoning block, which owns its
/// text: the one-pass reading decides a region from its opener on, so a fence mark inside
/// it (DeepSeek V3's JSON between ```` ```json ```` and ```` ``` ````, a code argument, a
/// string argument of a `<tool_call>`, a draft in `<think>`) opens no fence. The block holding the fence need not be recovered
/// (one to an unoffered tool, or one that fails to decode, still owns its text), so this
/// accepts any dialect's opener before the fence (`block_openers`), unless the opener is
/// quoted inside a recovered call (then it is that call's data and opens no block).
///
/// The fences are found once and the openers only when a call starts in a fence: the
/// `salvage` target runs this on every input.
pub fn outside_fences_strict(content: Content<'_>, calls: &[Call]) -> Result<(), Violation> {
    if calls.is_empty() {
        return Ok(());
    }
    let fenced = fenced_ranges(content);
    let mut openers = None;
    let quoted = |at: usize| {
        calls
            .iter()
            .any(|c| c.dialect().is_praisonai() && c.span().start < at && at < c.span().end)
    };
    for call in calls {
        let start = call.span().start;
        let Some(fence) = fenced.iter().find(|f| f.contains(&start)) else {
            continue;
        };
        let openers = openers.get_or_insert_with(|| block_openers(content.as_bytes()));
        if !openers.iter().any(|&at| at <= fence.start && !quoted(at)) {
            return Err(format!(
                "{} starts inside the fenced range {fence:?}, which no dialect's block holds",
                describe(call)
            ));
        }
    }
    Ok(())
}

/// Where a call of a token dialect may start: its opening token (as the scanners match
/// it: exactly, Olmo 3's `<function_calls>` among them), a Harmony header's first token
/// or recipient, a Qwen3 XML
/// `<function=NAME>` (or its `<tool_call>`) followed by `<parameter=` or `</function>`,
/// a GLM `<tool_call>NAME` followed by `<arg_key>` or `</tool_call>`. Loose on purpose:
/// an exception may only be wider than the rule it excuses.
pub fn token_openers(text: &[u8]) -> Vec<usize> {
    let mut at: Vec<usize> = Vec::new();
    for &opener in OPENERS.iter() {
        let xml = opener == function::OPEN || opener == tool_call::OPEN;
        let mut from = 0;
        while let Some(i) = find(&text[from..], opener.as_bytes()) {
            let p = from + i;
            if !xml || native_xml_at(text, p) {
                at.push(p);
            }
            from = p + 1;
        }
    }
    at.sort_unstable();
    at
}

/// Where any dialect's block may start: `token_openers`, and the openers of the six
/// dialects of the real package (`<tool_call>`, `<function=`, `[TOOL_CALL]`,
/// `[TOOL_REQUEST]`, `<|python_tag|>`, ReAct's `action`) and the reasoning openers, in
/// any case, with the non-ASCII letters `re.IGNORECASE` folds to ASCII ones. Loose on
/// purpose, as `token_openers` is.
pub fn block_openers(text: &[u8]) -> Vec<usize> {
    let mut at = token_openers(text);
    let folded: Vec<(usize, char)> = String::from_utf8_lossy(text)
        .char_indices()
        .map(|(i, c)| (i, fold_to_ascii(c)))
        .collect();
    let others = [
        tool_call::OPEN,
        function::OPEN,
        bracket::TOOL_CALL,
        bracket::TOOL_REQUEST,
        python_tag::TAG,
        react::ACTION,
        reasoning::THINK,
        reasoning::GEMMA_THOUGHT,
        reasoning::MISTRAL_THINK,
        reasoning::HARMONY_ANALYSIS,
    ];
    for marker in others {
        let marker: Vec<char> = marker.chars().map(fold_to_ascii).collect();
        at.extend(
            folded
                .windows(marker.len())
                .filter(|w| w.iter().map(|&(_, c)| c).eq(marker.iter().copied()))
                .map(|w| w[0].0),
        );
    }
    at.sort_unstable();
    at
}

/// `c` in ASCII lower case, with the letters `re.IGNORECASE` folds to an ASCII letter
/// (dotless and dotted I, long s, the Kelvin sign) folded to it.
fn fold_to_ascii(c: char) -> char {
    match c {
        '\u{130}' | '\u{131}' => 'i',
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        c => c.to_ascii_lowercase(),
    }
}

/// Whether a Qwen3 XML or GLM call (not Hermes' `<tool_call>{…}` nor `<function=NAME>{…}`)
/// may start at `p`: after the tag and its name, something other than `{`.
fn native_xml_at(text: &[u8], p: usize) -> bool {
    let rest = &text[p..];
    let after = match rest.iter().position(|&b| b == b'>') {
        Some(gt) => &rest[gt + 1..],
        None => return true,
    };
    let after = if rest.starts_with(tool_call::OPEN.as_bytes()) {
        // GLM writes the name right after the tag; Qwen3 XML a `<function=` tag.
        let name = after
            .iter()
            .take_while(|&&b| !b.is_ascii_whitespace() && b != b'<')
            .count();
        &after[name..]
    } else {
        after
    };
    after.trim_ascii_start().first() != Some(&b'{')
}

/// The openers `token_openers` looks for: every opener the registry declares for a token
/// dialect (F45: a hand-kept copy of them lacked DeepSeek V4's `<｜DSML｜tool_calls>`),
/// Harmony's recipient as `to=functions.` (the only one a call is written to), Phi-4's
/// `functools[` and Olmo 3's `<function_calls>`, which their readers open at too; the
/// Qwen3 XML and GLM tags among them are narrowed by `native_xml_at`.
static OPENERS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let declared = Dialect::ALL
        .iter()
        .filter(|d| d.spec().kind() == DialectKind::Token)
        .flat_map(|d| d.spec().openers().iter().copied())
        .filter(|&opener| opener != harmony::RECIPIENT);
    let mut openers: Vec<&str> = declared
        .chain([
            concat(&[harmony::RECIPIENT, harmony::FUNCTIONS]),
            phi4::FUNCTOOLS,
            pythonic::FUNCTION_CALLS,
        ])
        .collect();
    openers.sort_unstable();
    openers.dedup();
    openers
});

/// The first occurrence of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// No recovered span starts inside another call's span. Whole-content calls share the
/// whole content as their span and come alone; the calls of a leading pythonic list
/// share the list's span, and the calls of the text after it follow; the calls of one
/// response template region (a JSON array of calls) share the region's span.
pub fn no_span_starts_inside_another(calls: &[Call]) -> Result<(), Violation> {
    let whole_dialect = calls
        .iter()
        .any(|c| matches!(c.dialect(), Dialect::WholeJson | Dialect::LlamaJson));
    let one_span = calls.len() > 1 && calls.iter().all(|c| c.span() == calls[0].span());
    if one_span {
        // A whole-content payload of several calls (JSON, Llama's `;`, a pythonic list).
        return Ok(());
    }
    if whole_dialect && calls.len() > 1 {
        return Err("whole-content calls are mixed with embedded ones".to_owned());
    }
    let shared_list_span = |w: &[Call]| {
        w[0].span() == w[1].span()
            && matches!(w[0].dialect(), Dialect::Pythonic | Dialect::Template)
    };
    match calls
        .windows(2)
        .find(|w| w[1].span().start < w[0].span().end && !shared_list_span(w))
    {
        Some(w) => Err(format!(
            "{} starts inside {}",
            describe(&w[1]),
            describe(&w[0])
        )),
        None => Ok(()),
    }
}

/// Limits that decode anything salvage can have encoded.
const READ_BACK: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    int_max_str_digits: None,
};

/// A call's `arguments` string is `json.dumps` of its arguments when they are a dict or
/// a list, so it decodes back to them (with lone surrogate pairs joined, as CPython reads
/// them back: see `surrogates`).
pub fn arguments_decode(calls: &[Call]) -> Result<(), Violation> {
    for call in calls {
        if !matches!(call.arguments_value(), Value::Dict(_) | Value::List(_)) {
            continue;
        }
        let decoded = json::loads(call.arguments_text().as_bytes(), READ_BACK);
        if decoded.as_ref() != Ok(&joined(call.arguments_value())) {
            return Err(format!(
                "the arguments string of {} decodes to {decoded:?}, not its arguments",
                describe(call)
            ));
        }
    }
    Ok(())
}

/// A call, briefly, for messages.
fn describe(call: &Call) -> String {
    format!(
        "the {} call {:?} at {:?}",
        call.dialect(),
        call.name(),
        call.span()
    )
}

/// `strict` recovers no call of the six dialects of praisonaiagents that `praisonai`
/// does not (compared by span, dialect and name), except where `docs/profiles.md`
/// documents a rule. Calls of the dialects only `strict` reads are not compared. The
/// rules, each checked here as loosely as stated there:
/// * a payload containing a fence is judged by its written text under `strict` and by
///   its masked text under `praisonai`, so a name with a fence in it differs (the call
///   overlaps a fenced range);
/// * an integer literal of more than 4300 digits after `<|python_tag|>` or `Action Input:`
///   makes CPython's `raw_decode` raise a `ValueError` the package swallows; `strict`
///   keeps the call. The literal need not survive into the arguments (a repeated key
///   drops it), so this looks for the digits in the written payload (a digit run inside a
///   string counts too, which only widens the exception);
/// * Llama's `;`-continuations after `<|python_tag|>`: each object after a `;` is a
///   `python_tag` call that starts at the end of the one before (its span begins with
///   whitespace and the `;`);
/// * whole-content JSON that is not one JSON value (Llama's objects separated by `;` or
///   whitespace), or that follows the reasoning the reply begins with: `praisonai` cannot
///   decode it, and scans the text instead;
/// * reasoning: `strict` masks it, so a candidate written in it that shadows a later call
///   under `praisonai` does not under `strict` (any reasoning token before the call), a
///   candidate whose closer is in it no longer encloses the calls before that closer
///   (a reasoning token after the call with a closer of the six after it), and, masked
///   like fenced code, reasoning between the parts of a call is blank text to it, as a
///   fence is under both profiles (`Action Input:`, an analysis message, then the
///   object: a reasoning token inside the call's span);
/// * the probe: `strict`'s also passes on the markers of the dialects only it reads, so
///   a call of the six written with letters `re.IGNORECASE` folds (`[tool_requeſt]`),
///   which no probe folds, is found when such a marker is in the reply and none of the
///   six is;
/// * token dialects: their calls (accepted or not) reserve their spans under `strict`,
///   and the fences their syntax holds are theirs, so a later call that an overlapping
///   candidate or a fence hid under `praisonai` may run under `strict` (any token
///   opener before the call that is not quoted inside a recovered call of the six);
/// * one pass: a block `strict` decided is never reopened, so an opener quoted inside a
///   recovered call, or inside a block of the six that reads as no call, that pairs with a
///   later closer under `praisonai` hides no call after it (any dialect's opener inside an
///   earlier recovered call, or inside an earlier tag block of the six, `tag_blocks`: F46).
pub fn strict_within_praisonai(
    content: Content<'_>,
    strict: &[Call],
    praisonai: &[Call],
) -> Result<(), Violation> {
    let text = content.as_bytes();
    let fenced = fenced_ranges(content);
    let openers = token_openers(text);
    let any_openers = block_openers(text);
    let reasoning = reasoning_tokens(text);
    let blocks = tag_blocks(text);
    let quoted_before = |start: usize| {
        let holds_opener = |e: &Range<usize>| {
            e.end <= start && any_openers.iter().any(|&at| e.start < at && at < e.end)
        };
        strict.iter().any(|e| holds_opener(&e.span())) || blocks.iter().any(holds_opener)
    };
    let inside_six = |at: usize| {
        strict
            .iter()
            .any(|c| c.dialect().is_praisonai() && c.span().start < at && at < c.span().end)
    };
    let lower = String::from_utf8_lossy(text).to_lowercase();
    let holds = |m: &String| lower.contains(m.as_str());
    let probes_differ = !MARKERS_PRAISONAI.iter().any(holds) && MARKERS_NEW.iter().any(holds);
    let documented = |call: &Call| {
        let span = call.span();
        probes_differ
            || fenced
                .iter()
                .any(|f| f.start < span.end && span.start < f.end)
            || (matches!(call.dialect(), Dialect::PythonTag | Dialect::React)
                && longest_digit_run(&text[span.clone()]) > INT_MAX_STR_DIGITS)
            || (call.dialect() == Dialect::PythonTag && continues(&text[span.clone()]))
            || (call.dialect() == Dialect::WholeJson && !praisonai_reads_whole(text))
            || reasoning
                .iter()
                .any(|&at| at < span.end || closer_after(text, at))
            || openers.iter().any(|&at| at < span.start && !inside_six(at))
            || quoted_before(span.start)
    };
    let also_in_praisonai = |call: &Call| {
        praisonai.iter().any(|p| {
            p.span() == call.span() && p.dialect() == call.dialect() && p.name() == call.name()
        })
    };
    match strict
        .iter()
        .filter(|c| c.dialect().is_praisonai())
        .find(|c| !also_in_praisonai(c) && !documented(c))
    {
        Some(call) => Err(format!(
            "strict recovers {} which praisonai does not",
            describe(call)
        )),
        None => Ok(()),
    }
}

/// Whether a closing tag of the six dialects (any ASCII case) comes at or after `from`:
/// when `from` is a reasoning token, `strict` masks that closer, so a candidate it closes
/// under `praisonai` (and which encloses earlier calls there) has no end under `strict`.
fn closer_after(text: &[u8], from: usize) -> bool {
    let closers = [
        tool_call::CLOSE,
        function::CLOSE,
        bracket_stem(bracket::TOOL_CALL_CLOSE),
        bracket_stem(bracket::TOOL_REQUEST_CLOSE),
    ];
    closers.iter().any(|closer| {
        text[from..]
            .windows(closer.len())
            .any(|w| w.eq_ignore_ascii_case(closer.as_bytes()))
    })
}

/// The tag blocks of the six, loosely: from each opener of `<tool_call>`, `<function=`,
/// `[TOOL_CALL]` and `[TOOL_REQUEST]` (any ASCII case) to the end of the first closer of
/// its dialect after it, whether or not the block reads as a call: `strict` decides such
/// a block whole, so an opener quoted in it begins nothing.
fn tag_blocks(text: &[u8]) -> Vec<Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let lowered = |tag: &str| tag.to_ascii_lowercase().into_bytes();
    let stems = [
        lowered(bracket_stem(bracket::TOOL_CALL_CLOSE)),
        lowered(bracket_stem(bracket::TOOL_REQUEST_CLOSE)),
    ];
    let tags = [
        (lowered(tool_call::OPEN), vec![lowered(tool_call::CLOSE)]),
        (lowered(function::OPEN), vec![lowered(function::CLOSE)]),
        (lowered(bracket::TOOL_CALL), stems.to_vec()),
        (lowered(bracket::TOOL_REQUEST), stems.to_vec()),
    ];
    let mut blocks = Vec::new();
    for (open, closers) in tags {
        let mut from = 0;
        while let Some(i) = find(&lower[from..], &open) {
            let body = from + i + open.len();
            let end = closers
                .iter()
                .filter_map(|c| find(&lower[body..], c).map(|j| body + j + c.len()))
                .min();
            if let Some(end) = end {
                blocks.push(from + i..end);
            }
            from = body;
        }
    }
    blocks
}

/// A bracket closer up to its last `_` (`[/TOOL_`, `[END_TOOL_`): the bracket tags'
/// openers and closers may cross, so the stem closes a call of either tag.
fn bracket_stem(closer: &str) -> &str {
    closer.rfind('_').map_or(closer, |i| &closer[..=i])
}

/// Whether a `python_tag` call's text is a `;`-continuation: whitespace, then `;`.
fn continues(span_text: &[u8]) -> bool {
    String::from_utf8_lossy(span_text)
        .trim_start_matches(is_space)
        .starts_with(';')
}

/// Whether `praisonai`'s whole-content path decodes the stripped content as one JSON
/// object or list (else it scans the text, and a `strict` whole-content call is one it
/// does not make).
fn praisonai_reads_whole(text: &[u8]) -> bool {
    let limits = DecodeLimits {
        max_depth: 993,
        int_max_str_digits: Some(INT_MAX_STR_DIGITS),
    };
    let text = String::from_utf8_lossy(text);
    matches!(
        json::loads(text.trim_matches(is_space).as_bytes(), limits),
        Ok(Value::Dict(_) | Value::List(_))
    )
}

/// Where a reasoning token is (`<think>`, `</think>`, Gemma 4's thought channel,
/// Harmony's analysis channel), anywhere.
fn reasoning_tokens(text: &[u8]) -> Vec<usize> {
    let mut at = Vec::new();
    for token in [
        reasoning::THINK,
        reasoning::THINK_CLOSE,
        reasoning::GEMMA_THOUGHT,
        reasoning::HARMONY_ANALYSIS,
    ] {
        let mut from = 0;
        while let Some(i) = find(&text[from..], token.as_bytes()) {
            at.push(from + i);
            from += i + 1;
        }
    }
    at
}

/// The length of the longest run of ASCII digits in `text`.
fn longest_digit_run(text: &[u8]) -> usize {
    text.split(|b| !b.is_ascii_digit())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// The calls recovered are exactly the calls a clean reply means: same names, decoded
/// arguments, dialects and spans, in order.
pub fn recovers_intended(intended: &[Intended], calls: &[Call]) -> Result<(), Violation> {
    let recovered: Vec<Intended> = calls
        .iter()
        .map(|c| Intended {
            name: c.name().as_py_str().cloned().unwrap_or_default(),
            args: c.arguments_value().clone(),
            dialect: c.dialect(),
            span: c.span(),
        })
        .collect();
    if recovered == intended {
        Ok(())
    } else {
        Err(format!(
            "recovered {recovered:#?}\nbut the reply means {intended:#?}"
        ))
    }
}
