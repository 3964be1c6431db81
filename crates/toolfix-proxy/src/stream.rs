//! A streamed reply repaired as it arrives: each event of the upstream is read as it
//! completes, its content fed to the core's stream, and the event relayed raw when
//! nothing in it changed, rewritten when something did. Nothing is held but what the
//! core holds (the text from where a call may begin) and one event.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming};
use serde_json::{Map, Value as Json, json};
use tokio::time::{Instant, Sleep};

use crate::body::ProxyBody;
use crate::choice::Choice;
use crate::config::Limits;
use crate::error;
use crate::offer::Offer;
use crate::shadow::{Disagreement, Shadow};
use crate::sse::{self, Events};

/// The body of a repaired stream.
pub(crate) struct Repaired {
    upstream: Incoming,
    events: Events,
    repair: Repair,
    limits: Limits,
    received: usize,
    idle: Pin<Box<Sleep>>,
    /// Bytes ready for the client.
    out: Vec<u8>,
    /// Whether the body has ended (nothing is read after that).
    ended: bool,
}

impl Repaired {
    /// The repair of `upstream`, a stream answering a request with `offer`.
    pub fn new(
        upstream: Incoming,
        offer: Offer,
        limits: Limits,
        shadow: Option<Shadow>,
        model: Json,
    ) -> Repaired {
        Repaired {
            upstream,
            events: Events::new(limits.event),
            repair: Repair::new(offer, shadow, model),
            limits,
            received: 0,
            idle: Box::pin(tokio::time::sleep(limits.idle_timeout)),
            out: Vec::new(),
            ended: false,
        }
    }

    /// The body as the proxy's body type.
    pub fn boxed(self) -> ProxyBody {
        self.map_err(|never| match never {}).boxed_unsync()
    }

    /// Takes the next bytes of the upstream.
    fn take(&mut self, data: &[u8]) {
        self.received += data.len();
        if self.received > self.limits.stream {
            let limit = self.limits.stream;
            return self.fail(&format!(
                "the upstream stream exceeds the proxy's limit of {limit} bytes"
            ));
        }
        let mut completed = Vec::new();
        let pushed = self.events.push(data, &mut completed);
        for event in completed {
            self.repair.event(&event, &mut self.out);
        }
        if let Err(sse::TooLong(limit)) = pushed {
            self.fail(&format!(
                "an upstream event exceeds the proxy's limit of {limit} bytes"
            ));
        }
    }

    /// The upstream ended: a reply cut off before it finished ends in an error event, so
    /// the client never runs a call from a half-written reply.
    fn end(&mut self) {
        let rest = self.events.rest();
        if !rest.iter().all(u8::is_ascii_whitespace) {
            self.repair.event(&rest, &mut self.out);
        }
        match self.repair.complete() {
            true => self.repair.write_shadow(),
            false => {
                let message = "the upstream ended the stream before the reply finished";
                self.out.extend_from_slice(error::event(message).as_bytes());
            }
        }
        self.ended = true;
    }

    /// Ends the body with an error event.
    fn fail(&mut self, message: &str) {
        if !self.ended {
            self.out.extend_from_slice(error::event(message).as_bytes());
            self.ended = true;
        }
    }
}

impl Body for Repaired {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        loop {
            if !this.out.is_empty() {
                let bytes = Bytes::from(std::mem::take(&mut this.out));
                return Poll::Ready(Some(Ok(Frame::data(bytes))));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.upstream).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    let deadline = Instant::now() + this.limits.idle_timeout;
                    this.idle.as_mut().reset(deadline);
                    if let Ok(data) = frame.into_data() {
                        this.take(&data);
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    this.fail(&format!("the upstream connection broke off mid-reply: {e}"))
                }
                Poll::Ready(None) => this.end(),
                Poll::Pending => {
                    if this.idle.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    let seconds = this.limits.idle_timeout.as_secs();
                    this.fail(&format!(
                        "the upstream sent nothing for {seconds} s mid-reply"
                    ));
                }
            }
        }
    }
}

/// The repair of a stream's events, whatever carries them.
struct Repair {
    offer: Offer,
    choices: BTreeMap<u64, Choice>,
    /// The first chunk less its choices: the frame of a chunk the proxy adds.
    frame: Option<Map<String, Json>>,
    /// Whether `[DONE]` came.
    done: bool,
    /// Shadow mode: what each choice held, for the line written at the end.
    shadow: Option<(Shadow, Json, BTreeMap<u64, Record>)>,
}

/// What shadow mode keeps of one streamed choice.
#[derive(Default)]
struct Record {
    content: String,
    server: Vec<Json>,
    toolfix: Vec<Json>,
    recovered: usize,
}

impl Repair {
    fn new(offer: Offer, shadow: Option<Shadow>, model: Json) -> Repair {
        Repair {
            offer,
            choices: BTreeMap::new(),
            frame: None,
            done: false,
            shadow: shadow.map(|shadow| (shadow, model, BTreeMap::new())),
        }
    }

    /// Whether the reply finished: `[DONE]` came, or every choice gave its
    /// `finish_reason`.
    fn complete(&self) -> bool {
        self.done || self.choices.values().all(|choice| choice.finished)
    }

    /// Repairs one raw event into `out`.
    fn event(&mut self, raw: &[u8], out: &mut Vec<u8>) {
        let data = sse::data_of(raw);
        if data.as_deref().map(str::trim) == Some("[DONE]") {
            self.finish_all(out);
            self.done = true;
            self.write_shadow();
            return out.extend_from_slice(raw);
        }
        let parsed = data.and_then(|data| serde_json::from_str::<Json>(&data).ok());
        let Some(Json::Object(mut chunk)) = parsed else {
            return out.extend_from_slice(raw);
        };
        if !self.chunk(&mut chunk) || self.shadow.is_some() {
            return out.extend_from_slice(raw);
        }
        write_chunk(out, &chunk);
    }

    /// Repairs one chunk in place: whether it changed.
    fn chunk(&mut self, chunk: &mut Map<String, Json>) -> bool {
        if self.frame.is_none() {
            let mut frame = chunk.clone();
            frame.remove("choices");
            frame.remove("usage");
            self.frame = Some(frame);
        }
        let id = chunk
            .get("id")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned();
        let Some(choices) = chunk.get_mut("choices").and_then(Json::as_array_mut) else {
            return false;
        };
        let mut changed = false;
        for (position, choice) in choices.iter_mut().enumerate() {
            if let Some(choice) = choice.as_object_mut() {
                changed |= self.choice(&id, position, choice);
            }
        }
        changed
    }

    /// Repairs one choice of a chunk in place: whether it changed.
    fn choice(&mut self, id: &str, position: usize, choice: &mut Map<String, Json>) -> bool {
        let index = choice
            .get("index")
            .and_then(Json::as_u64)
            .unwrap_or(position as u64);
        let offer = &self.offer;
        let state = self
            .choices
            .entry(index)
            .or_insert_with(|| Choice::new(offer, id, index));
        if state.finished {
            return false;
        }
        let mut record = self
            .shadow
            .as_mut()
            .map(|(_, _, records)| records.entry(index).or_default());
        let before = choice.clone();
        // Values are taken out of their slots and put back, so keys keep their order.
        let had_delta = choice.contains_key("delta");
        let mut delta = match choice.get_mut("delta").map(Json::take) {
            Some(Json::Object(delta)) => delta,
            _ => Map::new(),
        };
        let mut calls: Vec<Json> = Vec::new();
        let server_calls = delta.get_mut("tool_calls").map(Json::take);
        if let Some(Json::Array(entries)) = &server_calls {
            for entry in entries {
                let Some(mut entry) = entry.as_object().cloned() else {
                    continue;
                };
                if let Some(record) = record.as_mut() {
                    accumulate(&mut record.server, &Json::Object(entry.clone()));
                }
                if state.admit(offer, &mut entry) {
                    calls.push(Json::Object(entry));
                }
            }
        }
        if let Some(Json::String(content)) = delta.get("content") {
            let content = content.clone();
            if let Some(record) = record.as_mut() {
                record.content.push_str(&content);
            }
            let settled = state.feed(&content);
            delta.insert("content".into(), settled.text.into());
            if let Some(record) = record.as_mut() {
                record.recovered += settled.calls.len();
            }
            calls.extend(settled.calls);
        }
        let reason = choice
            .get("finish_reason")
            .and_then(Json::as_str)
            .map(str::to_owned);
        if let Some(reason) = reason {
            let rest = state.finish();
            if !rest.text.is_empty() {
                let shown = delta.get("content").and_then(Json::as_str).unwrap_or("");
                let text = format!("{shown}{}", rest.text);
                delta.insert("content".into(), text.into());
            }
            if let Some(record) = record.as_mut() {
                record.recovered += rest.calls.len();
            }
            calls.extend(rest.calls);
            let reason = match state.has_calls() {
                true => "tool_calls".to_owned(),
                false if reason == "tool_calls" => "stop".to_owned(),
                false => reason,
            };
            choice.insert("finish_reason".into(), reason.into());
        }
        if let Some(record) = record.as_mut() {
            calls
                .iter()
                .for_each(|call| accumulate(&mut record.toolfix, call));
        }
        // A delta whose server calls were all dropped loses the key; any other keeps
        // what it had.
        match (calls.is_empty(), server_calls) {
            (false, _) => {
                delta.insert("tool_calls".into(), Json::Array(calls));
            }
            (true, Some(Json::Array(list))) if !list.is_empty() => {
                delta.shift_remove("tool_calls");
            }
            (true, Some(original)) => {
                delta.insert("tool_calls".into(), original);
            }
            (true, None) => {}
        }
        if had_delta || !delta.is_empty() {
            choice.insert("delta".into(), Json::Object(delta));
        }
        *choice != before
    }

    /// `[DONE]` came: the choices that gave no `finish_reason` are ended, and what their
    /// streams held is sent in a chunk of its own.
    fn finish_all(&mut self, out: &mut Vec<u8>) {
        let shadow = self.shadow.is_some();
        for (&index, state) in self.choices.iter_mut().filter(|(_, c)| !c.finished) {
            let rest = state.finish();
            if shadow || (rest.text.is_empty() && rest.calls.is_empty()) {
                continue;
            }
            let mut delta = Map::new();
            if !rest.text.is_empty() {
                delta.insert("content".into(), rest.text.into());
            }
            let reason = match rest.calls.is_empty() {
                true => Json::Null,
                false => {
                    delta.insert("tool_calls".into(), Json::Array(rest.calls));
                    "tool_calls".into()
                }
            };
            let mut chunk = self.frame.clone().unwrap_or_default();
            chunk.insert(
                "choices".into(),
                json!([{"index": index, "delta": delta, "finish_reason": reason}]),
            );
            write_chunk(out, &chunk);
        }
    }

    /// Shadow mode, at the end of the reply: one line per choice that disagreed.
    fn write_shadow(&mut self) {
        let Some((shadow, model, records)) = self.shadow.take() else {
            return;
        };
        let disagreements: Vec<Disagreement> = records
            .into_iter()
            .filter_map(|(index, record)| {
                let dropped = self.choices.get(&index).is_some_and(|c| c.dropped);
                (record.recovered > 0 || dropped).then(|| Disagreement {
                    content: Some(record.content),
                    server: Json::Array(record.server),
                    toolfix: Json::Array(record.toolfix),
                    recovered: record.recovered,
                    dropped,
                })
            })
            .collect();
        if !disagreements.is_empty() {
            shadow.write(&self.offer, &model, true, &disagreements);
        }
    }
}

/// Writes `chunk` as one event.
fn write_chunk(out: &mut Vec<u8>, chunk: &Map<String, Json>) {
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(Json::Object(chunk.clone()).to_string().as_bytes());
    out.extend_from_slice(b"\n\n");
}

/// Adds a streamed `tool_calls` delta to the calls it builds up.
fn accumulate(calls: &mut Vec<Json>, delta: &Json) {
    let index = delta.get("index").and_then(Json::as_u64);
    let function = delta.get("function");
    let name = function.and_then(|f| f.get("name")).and_then(Json::as_str);
    let arguments = function
        .and_then(|f| f.get("arguments"))
        .and_then(Json::as_str)
        .unwrap_or("");
    let existing = calls
        .iter_mut()
        .find(|call| index.is_some() && call.get("index").and_then(Json::as_u64) == index);
    match existing {
        Some(call) => {
            if let Some(Json::String(text)) = call.pointer_mut("/function/arguments") {
                text.push_str(arguments);
            }
        }
        None => calls.push(json!({
            "index": index,
            "id": delta.get("id"),
            "function": {"name": name, "arguments": arguments},
        })),
    }
}
