//! The `pyjson` target: CPython's `json.loads`, `raw_decode` and `json.dumps`.

use arbitrary::Unstructured;

use crate::choice::{Gen, Mode};
use crate::json::{Json, JsonStyle};
use crate::surrogates::joined;
use crate::text::py_str_from_bytes;
use toolfix::Value;
use toolfix::internals::json::{
    GaveUp, Transcoded, raw_check, read_back, transcode, transcode_flat_first,
    transcode_object_text,
};
use toolfix::py::json::{DecodeLimits, dumps, loads, raw_decode};

/// The limits salvage decodes with (CPython's under `praisonai`, the documented bound
/// under `strict`), and tiny ones that make the limit paths common.
const LIMITS: [DecodeLimits; 3] = [
    DecodeLimits {
        max_depth: 993,
        int_max_str_digits: Some(4300),
    },
    DecodeLimits {
        max_depth: 512,
        int_max_str_digits: None,
    },
    DecodeLimits {
        max_depth: 3,
        int_max_str_digits: Some(5),
    },
];

/// Limits that read back anything the encoder can write.
const READ_BACK: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    int_max_str_digits: None,
};

/// The bytes as a Python `str` (lone surrogates kept) through the decoder under one of
/// the limits, or as the choices of a JSON value from the grammar: which, by the length
/// (one byte more or less changes it), so each execution decodes a few times rather than
/// a dozen, and a mutation that keeps the length keeps what the input exercises.
pub fn pyjson(data: &[u8]) {
    pyjson_as(data, data.len() % PICKS);
}

/// How many ways `pyjson` reads an input: one per limit, and the grammar value.
const PICKS: usize = LIMITS.len() + 1;

/// `pyjson` every way, for replaying a committed input: whatever its length, it keeps
/// being checked the way it was when it was found.
pub fn pyjson_every_pick(data: &[u8]) {
    for pick in 0..PICKS {
        pyjson_as(data, pick);
    }
}

fn pyjson_as(data: &[u8], pick: usize) {
    let Some(&limits) = LIMITS.get(pick) else {
        written_value(data);
        return;
    };
    let text = py_str_from_bytes(data);
    stable(text.as_bytes(), limits);
    if let Some(pos) = code_point_start(text.as_bytes(), data.first().copied()) {
        raw_decode_in_bounds(text.as_bytes(), pos, limits);
    }
}

/// A code point boundary of `text` chosen by `seed` (none for an empty text).
fn code_point_start(text: &[u8], seed: Option<u8>) -> Option<usize> {
    let count = text.iter().filter(|&&b| b & 0xC0 != 0x80).count();
    let nth = usize::from(seed?) % count.max(1);
    (0..text.len()).filter(|&i| text[i] & 0xC0 != 0x80).nth(nth)
}

/// When `loads` succeeds, `dumps` of the value decodes to the same value (lone surrogate
/// pairs joined, as in CPython: see `surrogates`) and encodes to the same text: decode,
/// encode, decode is stable.
fn stable(text: &[u8], limits: DecodeLimits) {
    let Ok(value) = loads(text, limits) else {
        return;
    };
    let encoded = dumps(&value).expect("decoded values are serializable");
    let again = loads(encoded.as_bytes(), READ_BACK)
        .unwrap_or_else(|e| panic!("dumps wrote {encoded:?}, which does not decode: {e}"));
    assert_eq!(again, joined(&value), "dumps wrote {encoded:?}");
    assert_eq!(dumps(&again).ok(), Some(encoded));
}

/// `raw_decode` at the code-point boundary `pos` ends within the text, after its start,
/// and the span it read decodes to the same value on its own; `raw_check` there ends
/// where it ends, or raises what it raises.
fn raw_decode_in_bounds(text: &[u8], pos: usize, limits: DecodeLimits) {
    let decoded = raw_decode(text, pos, limits);
    assert_eq!(
        raw_check(text, pos, limits),
        decoded.as_ref().map(|(_, end)| *end).map_err(Clone::clone),
        "raw_check and raw_decode disagree at {pos}"
    );
    transcoded_as_decoded(text, pos, limits, &decoded);
    let Ok((value, end)) = decoded else {
        return;
    };
    assert!(
        pos < end && end <= text.len(),
        "raw_decode at {pos} ended at {end}"
    );
    assert_eq!(loads(&text[pos..end], limits).ok(), Some(value));
}

/// What `transcode_object_text` gives for what `transcode` wrote: its text when it is an
/// object, and its end.
fn object_text(transcoded: Transcoded<'_>) -> (Option<toolfix::PyStr>, usize) {
    let (object, end) = (transcoded.is_object(), transcoded.end);
    (object.then(|| transcoded.into_text()), end)
}

/// When `transcode` writes the value at `pos`, `raw_decode` reads it to the same end,
/// `json.dumps` of what it reads is what `transcode` wrote, and that reads back as it;
/// when `transcode` finds no JSON there, `raw_decode` raises. `transcode_flat_first`, whose
/// loop for flat objects skips the writer, gives exactly what `transcode` gives, and
/// `transcode_object_text` its text when it is an object, and its end.
fn transcoded_as_decoded(
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
    decoded: &Result<(toolfix::Value, usize), toolfix::py::json::DecodeError>,
) {
    let transcoded = transcode(text, pos, limits);
    assert_eq!(
        transcode_flat_first(text, pos, limits),
        transcoded,
        "transcode_flat_first and transcode disagree at {pos}"
    );
    assert_eq!(
        transcode_object_text(text, pos, limits),
        transcoded.clone().map(object_text),
        "transcode_object_text and transcode disagree at {pos}"
    );
    let transcoded = match transcoded {
        Ok(transcoded) => transcoded,
        Err(GaveUp::NotJson) => {
            assert!(
                decoded.is_err(),
                "transcode found no JSON where raw_decode read {decoded:?}"
            );
            return;
        }
        Err(GaveUp::Unplain) => return,
    };
    let Ok((value, end)) = decoded else {
        panic!("transcode wrote {transcoded:?} where raw_decode raised {decoded:?}");
    };
    assert_eq!(transcoded.end, *end, "transcode and raw_decode end apart");
    let written = transcoded.text();
    assert_eq!(
        dumps(value).ok().as_deref().map(str::as_bytes),
        Some(written)
    );
    assert_eq!(read_back(written).as_ref(), Ok(value));
    // What a call keeps: the whole text, or one member's, wherever it was written.
    assert_eq!(transcoded.clone().into_text().as_bytes(), written);
    for member in &transcoded.members {
        let kept = transcoded.clone().into_value_text(member);
        assert_eq!(kept.as_bytes(), &written[member.value.clone()]);
    }
    members_as_decoded(text, &transcoded, value);
}

/// A transcoded object lists every member of the decoded dict, in order, each key's
/// value written where its range says.
fn members_as_decoded(text: &[u8], transcoded: &Transcoded<'_>, value: &Value) {
    let Value::Dict(dict) = value else {
        assert!(transcoded.members.is_empty(), "members of a non-object");
        return;
    };
    assert_eq!(transcoded.members.len(), dict.len(), "members of {dict:?}");
    for (member, (key, item)) in transcoded.members.iter().zip(dict.iter()) {
        assert_eq!(&text[member.key.clone()], key.as_bytes());
        let written = &transcoded.text()[member.value.clone()];
        assert_eq!(read_back(written).as_ref(), Ok(item), "member {key:?}");
    }
}

/// A value from the grammar, written in any layout, decodes to the value it means, and
/// where `transcode` writes it, it writes what `json.dumps` of that value writes.
fn written_value(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let g = &mut Gen::new(&mut u, Mode::Hostile);
    let (Ok(json), Ok(style)) = (Json::generate(g), JsonStyle::generate(g)) else {
        return;
    };
    let Some(value) = json.to_value() else {
        return;
    };
    let mut text = String::new();
    json.render(&style, &mut text);
    let decoded = loads(text.as_bytes(), READ_BACK);
    assert_eq!(
        decoded.as_ref().ok(),
        Some(&value),
        "{text:?} decodes to {decoded:?}"
    );
    transcoded_as_decoded(
        text.as_bytes(),
        0,
        READ_BACK,
        &raw_decode(text.as_bytes(), 0, READ_BACK),
    );
    let encoded = dumps(&value).expect("grammar values are serializable");
    let mut canonical = String::new();
    json.render(&JsonStyle::DUMPS, &mut canonical);
    if style_free(&json) {
        assert_eq!(encoded, canonical, "json.dumps layout");
    }
}

/// Whether `json.dumps` writes the value exactly as the grammar's `DUMPS` layout does:
/// true unless it holds a float (Rust's shortest form and CPython's `repr` differ in
/// exponents) or a repeated key (the dict keeps one).
fn style_free(json: &Json) -> bool {
    match json {
        Json::Float(_) => false,
        Json::List(items) => items.iter().all(style_free),
        Json::Object(members) => {
            let unique = members
                .iter()
                .enumerate()
                .all(|(i, (k, _))| members[..i].iter().all(|(other, _)| other != k));
            unique && members.iter().all(|(_, v)| style_free(v))
        }
        _ => true,
    }
}
