//! `POST …/chat/completions`: the request read and checked, sent on, and its reply
//! repaired whole (`stream: false`) or as a stream (`stream`).

use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, header};
use serde_json::{Map, Value as Json};

use crate::body::{ProxyBody, full};
use crate::choice::Choice;
use crate::error;
use crate::forward::{relay, send, upstream_request};
use crate::offer::Offer;
use crate::server::State;
use crate::shadow::Disagreement;
use crate::stream::Repaired;

/// Answers a chat-completions request.
pub(crate) async fn chat(state: &State, request: Request<Incoming>) -> Response<ProxyBody> {
    let (mut parts, body) = request.into_parts();
    let limit = state.config.limits.request_body;
    let bytes = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => {
            let message = format!("the request body exceeds the proxy's limit of {limit} bytes");
            return error::response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "invalid_request_error",
                &message,
            );
        }
        Err(e) => {
            let message = format!("the request body could not be read: {e}");
            return error::response(StatusCode::BAD_REQUEST, "invalid_request_error", &message);
        }
    };
    let parsed: Json = match serde_json::from_slice(&bytes) {
        Ok(parsed) => parsed,
        Err(e) => {
            let message = format!("the request body is not JSON: {e}");
            return error::response(StatusCode::BAD_REQUEST, "invalid_request_error", &message);
        }
    };
    let offer = Offer::of(&parsed, state.config.profile);
    if offer.is_some() {
        // The reply is read, so it must come as text, not compressed.
        parts.headers.remove(header::ACCEPT_ENCODING);
    }
    let request = match upstream_request(state, parts, full(bytes)) {
        Ok(request) => request,
        Err(answer) => return *answer,
    };
    let response = match send(state, request).await {
        Ok(response) => response,
        Err(answer) => return *answer,
    };
    let Some(offer) = offer else {
        return relay(response);
    };
    if !response.status().is_success() {
        return relay(response);
    }
    let model = parsed.get("model").cloned().unwrap_or(Json::Null);
    match is_event_stream(&response) {
        true => stream(state, response, offer, model),
        false => whole(state, response, offer, model).await,
    }
}

fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("text/event-stream"))
}

/// A streamed reply, repaired as it arrives.
fn stream(
    state: &State,
    response: Response<Incoming>,
    offer: Offer,
    model: Json,
) -> Response<ProxyBody> {
    let (mut parts, body) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::TRANSFER_ENCODING);
    let repaired = Repaired::new(
        body,
        offer,
        state.config.limits,
        state.shadow.clone(),
        model,
    );
    Response::from_parts(parts, repaired.boxed())
}

/// A whole reply: read, repaired, and sent; byte for byte when nothing was repaired or
/// it is not a chat completion.
async fn whole(
    state: &State,
    response: Response<Incoming>,
    offer: Offer,
    model: Json,
) -> Response<ProxyBody> {
    let (mut parts, body) = response.into_parts();
    let limit = state.config.limits.response_body;
    let bytes = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            let message = match e.is::<LengthLimitError>() {
                true => format!("the upstream reply exceeds the proxy's limit of {limit} bytes"),
                false => format!("the upstream reply broke off: {e}"),
            };
            return error::response(StatusCode::BAD_GATEWAY, "upstream_error", &message);
        }
    };
    let repaired = match serde_json::from_slice::<Json>(&bytes) {
        Ok(Json::Object(reply)) => repair(reply, &offer),
        _ => None,
    };
    let Some((reply, disagreements)) = repaired else {
        return Response::from_parts(parts, full(bytes));
    };
    if let Some(shadow) = &state.shadow {
        shadow.write(&offer, &model, false, &disagreements);
        return Response::from_parts(parts, full(bytes));
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::TRANSFER_ENCODING);
    Response::from_parts(parts, full(Json::Object(reply).to_string()))
}

/// The repaired reply and what was changed in it, or `None` when nothing was.
fn repair(
    mut reply: Map<String, Json>,
    offer: &Offer,
) -> Option<(Map<String, Json>, Vec<Disagreement>)> {
    let id = reply
        .get("id")
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned();
    let mut disagreements = Vec::new();
    let choices = reply.get_mut("choices")?.as_array_mut()?;
    for (position, choice) in choices.iter_mut().enumerate() {
        let Some(choice) = choice.as_object_mut() else {
            continue;
        };
        let index = choice
            .get("index")
            .and_then(Json::as_u64)
            .unwrap_or(position as u64);
        let mut repair = Choice::new(offer, &id, index);
        let Some(message) = choice.get_mut("message").and_then(Json::as_object_mut) else {
            continue;
        };
        let server_calls = message.get("tool_calls").cloned().unwrap_or(Json::Null);
        let mut calls: Vec<Json> = match server_calls.as_array() {
            Some(list) => list
                .iter()
                .filter_map(|entry| {
                    let mut entry = entry.as_object()?.clone();
                    repair
                        .admit(offer, &mut entry)
                        .then_some(Json::Object(entry))
                })
                .collect(),
            None => Vec::new(),
        };
        let content = message
            .get("content")
            .and_then(Json::as_str)
            .map(str::to_owned);
        let mut shown = content.clone();
        let mut recovered = 0;
        if let Some(content) = &content {
            let mut settled = repair.feed(content);
            let rest = repair.finish();
            settled.text.push_str(&rest.text);
            settled.calls.extend(rest.calls);
            // A whole reply's calls carry no `index`: that is for streamed deltas.
            for call in &mut settled.calls {
                if let Some(call) = call.as_object_mut() {
                    call.shift_remove("index");
                }
            }
            recovered = settled.calls.len();
            if recovered > 0 {
                calls.extend(settled.calls);
                shown = Some(settled.text);
            }
        }
        if recovered == 0 && !repair.dropped {
            continue;
        }
        disagreements.push(Disagreement {
            content: content.clone(),
            server: server_calls,
            toolfix: Json::Array(calls.clone()),
            recovered,
            dropped: repair.dropped,
        });
        let shown = shown.filter(|text| !text.trim().is_empty());
        message.insert("content".into(), shown.map_or(Json::Null, Json::String));
        match calls.is_empty() {
            true => message.shift_remove("tool_calls"),
            false => message.insert("tool_calls".into(), Json::Array(calls)),
        };
        let finish = match repair.has_calls() {
            true => Some("tool_calls"),
            false if choice.get("finish_reason").and_then(Json::as_str) == Some("tool_calls") => {
                Some("stop")
            }
            false => None,
        };
        if let Some(finish) = finish {
            choice.insert("finish_reason".into(), finish.into());
        }
    }
    (!disagreements.is_empty()).then_some((reply, disagreements))
}
