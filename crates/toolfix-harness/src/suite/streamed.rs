//! How a `salvage_stream` output is judged against a streaming check (`conform::streaming`).
//!
//! The expected output holds the case's calls, each with the `after_chunk` the reference
//! emitted it at, and the reference's `content`. An output meets it when:
//!
//! * its calls are the case's calls: exactly under `praisonai` and `strict`, by name and
//!   decoded arguments under `portable` ([`semantic`](super::semantic));
//! * each call was emitted no later than the reference emitted it (`after_chunk` at most
//!   the reference's): a streaming parser may be faster than the reference, never slower;
//! * its `content` is the reference's under `praisonai` and `strict`; under `portable`,
//!   where implementations may draw a call's span differently (a wrapper token in or
//!   out), only a reply with no calls must come back whole.

use super::semantic::{SeenCall, same_value};
use toolfix::Profile;
use toolfix::py::Value;

/// Whether `actual` meets the streaming expectation `expected` under `profile`.
pub fn meets(profile: Profile, expected: &Value, actual: &Value) -> bool {
    let (Some(want), Some(got)) = (Streamed::of(expected), Streamed::of(actual)) else {
        return expected == actual;
    };
    let exact = profile != Profile::Portable;
    let content_ok = match exact {
        true => want.content == got.content,
        false => !want.calls.is_empty() || want.content == got.content,
    };
    content_ok
        && want.calls.len() == got.calls.len()
        && want.calls.iter().zip(&got.calls).all(|(w, g)| {
            let same = match exact {
                true => w.raw == g.raw,
                false => {
                    w.call.name == g.call.name && same_value(&w.call.arguments, &g.call.arguments)
                }
            };
            same && g.after_chunk.is_some() && g.after_chunk <= w.after_chunk
        })
}

/// A streamed output taken apart.
struct Streamed<'v> {
    calls: Vec<StreamedCall<'v>>,
    content: &'v Value,
}

struct StreamedCall<'v> {
    /// The name and arguments as given, for the exact comparison.
    raw: (Option<&'v Value>, Option<&'v Value>),
    /// The same, arguments decoded, for the portable one.
    call: SeenCall,
    after_chunk: Option<i64>,
}

impl<'v> Streamed<'v> {
    fn of(output: &'v Value) -> Option<Streamed<'v>> {
        let dict = output.as_dict().filter(|d| d.len() == 2)?;
        let content = dict.get("content".as_bytes())?;
        let items: &[Value] = match dict.get("calls".as_bytes())? {
            Value::None => &[],
            Value::List(items) => items,
            _ => return None,
        };
        let calls = items.iter().map(StreamedCall::of).collect::<Option<_>>()?;
        Some(Streamed { calls, content })
    }
}

impl<'v> StreamedCall<'v> {
    fn of(item: &'v Value) -> Option<StreamedCall<'v>> {
        let listed = Value::dict([(
            "calls",
            Value::List(vec![Value::dict([
                ("name", item.get("name")?.clone()),
                ("arguments", item.get("arguments")?.clone()),
            ])]),
        )]);
        let call = super::semantic::calls(&listed)?.pop()?;
        let after_chunk = match item.get("after_chunk") {
            Some(Value::Int(i)) => i.to_i64(),
            _ => None,
        };
        Some(StreamedCall {
            raw: (item.get("name"), item.get("arguments")),
            call,
            after_chunk,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;

    fn value(text: &str) -> Value {
        decode_line(text.as_bytes()).expect("JSON")
    }

    const WANT: &str = r#"{"calls": [{"name": "f", "arguments": "{\"a\": 1}", "after_chunk": 2}], "content": "x "}"#;

    #[test]
    fn earlier_is_fine_later_is_not() {
        let early = r#"{"calls": [{"name": "f", "arguments": "{\"a\": 1}", "after_chunk": 1}], "content": "x "}"#;
        let late = r#"{"calls": [{"name": "f", "arguments": "{\"a\": 1}", "after_chunk": 3}], "content": "x "}"#;
        assert!(meets(Profile::Strict, &value(WANT), &value(early)));
        assert!(!meets(Profile::Strict, &value(WANT), &value(late)));
    }

    #[test]
    fn content_counts_exactly_except_under_portable() {
        let other = r#"{"calls": [{"name": "f", "arguments": "{\"a\":1}", "after_chunk": 2}], "content": "x"}"#;
        assert!(!meets(Profile::Strict, &value(WANT), &value(other)));
        assert!(meets(Profile::Portable, &value(WANT), &value(other)));
        let none = r#"{"calls": null, "content": "a <b>"}"#;
        let hidden = r#"{"calls": null, "content": "a "}"#;
        assert!(!meets(Profile::Portable, &value(none), &value(hidden)));
    }
}
