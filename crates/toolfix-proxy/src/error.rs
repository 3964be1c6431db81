//! The proxy's own answers: JSON errors in the OpenAI shape, so a client's SDK reports
//! them as it reports the server's.

use hyper::{Response, StatusCode, header};
use serde_json::json;

use crate::body::{ProxyBody, full};

/// `{"error": {"message", "type", "code"}}` with `status`.
pub(crate) fn response(status: StatusCode, kind: &str, message: &str) -> Response<ProxyBody> {
    let body = json!({"error": {"message": message, "type": kind, "code": status.as_u16()}});
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(full(body.to_string()))
        .unwrap_or_else(|_| Response::new(full(Vec::new())))
}

/// The server-sent event that ends a repaired stream that could not finish: the `openai`
/// SDK raises `APIError` on a data line holding `error`.
pub(crate) fn event(message: &str) -> String {
    let body = json!({"error": {"message": message, "type": "upstream_error", "code": 502}});
    format!("data: {body}\n\n")
}
