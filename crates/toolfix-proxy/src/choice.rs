//! One choice of a reply being repaired: its content fed to the core's stream, the calls
//! the server parsed checked against the offer, and the indexes of the `tool_calls` the
//! client receives. A non-streamed reply is the same thing fed once.

use std::collections::HashMap;

use serde_json::{Map, Value as Json, json};
use toolfix::Adapter;
use toolfix::salvage::{Call, Event, StreamUnder};

use crate::offer::Offer;

/// What a piece of the reply settled: text to show, and calls in the OpenAI shape.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    pub text: String,
    pub calls: Vec<Json>,
}

/// The repair of one choice.
pub(crate) struct Choice {
    stream: Option<StreamUnder<'static>>,
    /// The id prefix of the calls recovered here: the reply's id and the choice's index.
    id_prefix: String,
    /// `tool_calls` indexes given to the client so far.
    sent: u64,
    /// Which client index each of the server's streamed call indexes became (`None`:
    /// dropped, it named an unoffered tool).
    server: HashMap<u64, Option<u64>>,
    /// Whether a call the server parsed was dropped.
    pub dropped: bool,
    /// Whether the reply ended (a `finish_reason` or the end of a whole reply).
    pub finished: bool,
    /// Shown bytes that end inside a code point, kept for the next piece: the core cuts
    /// text only at ASCII markers, but the client must never see a broken character.
    partial: Vec<u8>,
}

impl Choice {
    /// A choice of the reply `reply_id` to a request with `offer`.
    pub fn new(offer: &Offer, reply_id: &str, index: u64) -> Choice {
        let stream = StreamUnder::owning(offer.tools.clone(), Adapter::Local, offer.profile);
        let reply: String = reply_id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(40)
            .collect();
        Choice {
            stream: Some(stream),
            id_prefix: format!("call_tf{reply}_{index}"),
            sent: 0,
            server: HashMap::new(),
            dropped: false,
            finished: false,
            partial: Vec::new(),
        }
    }

    /// Whether any call went to the client: the reply's `finish_reason` is `tool_calls`.
    pub fn has_calls(&self) -> bool {
        self.sent > 0
    }

    /// Feeds the next piece of content.
    pub fn feed(&mut self, content: &str) -> Settled {
        let mut shown = std::mem::take(&mut self.partial);
        let mut found = Vec::new();
        if let Some(stream) = self.stream.as_mut() {
            stream.feed(content, &mut |event| collect(event, &mut shown, &mut found));
        }
        let text = match std::str::from_utf8(&shown) {
            Ok(text) => text.to_owned(),
            Err(e) if e.error_len().is_none() => {
                self.partial = shown.split_off(e.valid_up_to());
                String::from_utf8_lossy(&shown).into_owned()
            }
            Err(_) => String::from_utf8_lossy(&shown).into_owned(),
        };
        let calls = found.iter().map(|call| self.shape(call)).collect();
        Settled { text, calls }
    }

    /// Ends the content: what the core held back. Salvage under `strict` and `portable`
    /// does not raise; should it, the held text is shown and no call is made from it.
    pub fn finish(&mut self) -> Settled {
        self.finished = true;
        let mut shown = std::mem::take(&mut self.partial);
        let mut found = Vec::new();
        if let Some(stream) = self.stream.take() {
            let outcome = stream.finish(&mut |event| collect(event, &mut shown, &mut found));
            if let Err(error) = outcome {
                eprintln!("toolfix proxy: salvage failed, calls left as text: {error}");
                found.clear();
            }
        }
        let text = String::from_utf8_lossy(&shown).into_owned();
        let calls = found.iter().map(|call| self.shape(call)).collect();
        Settled { text, calls }
    }

    /// A recovered call as an entry of `tool_calls`, with the next client index.
    fn shape(&mut self, call: &Call) -> Json {
        let index = self.sent;
        self.sent += 1;
        let name = call
            .name()
            .as_py_str()
            .map(|name| name.to_string_lossy())
            .unwrap_or_default();
        json!({
            "index": index,
            "id": format!("{}_{index}", self.id_prefix),
            "type": "function",
            "function": {"name": name, "arguments": call.arguments_text().to_string_lossy()},
        })
    }

    /// Checks a call the server parsed (one `tool_calls` entry, or one streamed delta of
    /// it): `false` when it is to be dropped, else its index is set to the client's.
    pub fn admit(&mut self, offer: &Offer, entry: &mut Map<String, Json>) -> bool {
        let server_index = entry.get("index").and_then(Json::as_u64);
        let known = server_index.and_then(|index| self.server.get(&index).copied());
        let client_index = match known {
            Some(client_index) => client_index,
            None => {
                let name = entry
                    .get("function")
                    .and_then(|function| function.get("name"))
                    .and_then(Json::as_str);
                let admitted = match name {
                    Some(name) if offer.offers(name) => Some(self.sent),
                    // A delta with no name continues a call whose first delta was not
                    // seen: nothing offered can be checked, so it is dropped too.
                    other => {
                        let name = other.unwrap_or("(no name)");
                        eprintln!(
                            "toolfix proxy: dropped a server call to unoffered tool {name:?}"
                        );
                        self.dropped = true;
                        None
                    }
                };
                if admitted.is_some() {
                    self.sent += 1;
                }
                if let Some(index) = server_index {
                    self.server.insert(index, admitted);
                }
                admitted
            }
        };
        match client_index {
            Some(client_index) => {
                if server_index.is_some() {
                    entry.insert("index".into(), client_index.into());
                }
                true
            }
            None => false,
        }
    }
}

/// Sorts one event of the core's stream.
fn collect(event: Event<'_>, text: &mut Vec<u8>, calls: &mut Vec<Call>) {
    match event {
        Event::Text(content) => text.extend_from_slice(content.as_bytes()),
        Event::Call(call) => calls.push(call),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolfix::Profile;

    fn offer() -> Offer {
        let request = json!({"tools": [{"type": "function", "function": {"name": "get_weather"}}]});
        Offer::of(&request, Profile::Strict).unwrap()
    }

    #[test]
    fn text_and_calls_come_out_whole_in_order() {
        let offer = offer();
        let mut choice = Choice::new(&offer, "chatcmpl-9", 0);
        let mut text = String::new();
        let mut calls = Vec::new();
        for piece in [
            "Héllo <tool_",
            "call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call> ✓",
        ] {
            let settled = choice.feed(piece);
            text.push_str(&settled.text);
            calls.extend(settled.calls);
        }
        let rest = choice.finish();
        text.push_str(&rest.text);
        calls.extend(rest.calls);
        assert_eq!(text, "Héllo  ✓");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0]["id"], "call_tfchatcmpl9_0_0");
        assert_eq!(calls[0]["function"]["arguments"], "{}");
        assert!(choice.has_calls() && choice.finished);
    }

    #[test]
    fn server_calls_to_unoffered_tools_are_dropped_and_indexes_stay_dense() {
        let offer = offer();
        let mut choice = Choice::new(&offer, "x", 0);
        let mut delta = |value: serde_json::Value| {
            let mut entry = value.as_object().unwrap().clone();
            choice
                .admit(&offer, &mut entry)
                .then(|| entry["index"].clone())
        };
        assert_eq!(
            delta(json!({"index": 0, "function": {"name": "wire_transfer"}})),
            None
        );
        assert_eq!(
            delta(json!({"index": 0, "function": {"arguments": "{}"}})),
            None
        );
        assert_eq!(
            delta(json!({"index": 1, "function": {"name": "get_weather"}})),
            Some(json!(0))
        );
        assert_eq!(
            delta(json!({"index": 1, "function": {"arguments": "{}"}})),
            Some(json!(0))
        );
        assert!(choice.dropped);
    }
}
