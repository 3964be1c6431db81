//! Talking to the upstream: the request re-addressed, hop-by-hop headers dropped, and
//! failures mapped to the proxy's own 502 and 504.

use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName};
use hyper::http::request::Parts;
use hyper::{Request, Response, StatusCode};

use crate::body::{ProxyBody, relayed};
use crate::error;
use crate::server::State;

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1).
const HOP_BY_HOP: [HeaderName; 7] = [
    header::CONNECTION,
    HeaderName::from_static("keep-alive"),
    HeaderName::from_static("proxy-connection"),
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
    header::UPGRADE,
];

fn drop_hop_by_hop(headers: &mut HeaderMap) {
    for name in &HOP_BY_HOP {
        headers.remove(name);
    }
}

/// The client's request as the upstream should receive it: its URI moved to the
/// upstream, its `Host` left for the HTTP client to set, `body` as its body.
pub(crate) fn upstream_request(
    state: &State,
    mut parts: Parts,
    body: ProxyBody,
) -> Result<Request<ProxyBody>, Box<Response<ProxyBody>>> {
    parts.uri = state
        .config
        .upstream
        .uri_for(parts.uri.path_and_query())
        .map_err(|message| {
            Box::new(error::response(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                &message,
            ))
        })?;
    parts.headers.remove(header::HOST);
    // The proxy answered `100-continue` to the client itself; the upstream is sent the
    // body without waiting.
    parts.headers.remove(header::EXPECT);
    drop_hop_by_hop(&mut parts.headers);
    parts.version = hyper::Version::HTTP_11;
    Ok(Request::from_parts(parts, body))
}

/// Sends `request` upstream: the response head, or the proxy's error answer (504 when no
/// head came in time, 502 when the upstream could not be reached or broke off).
pub(crate) async fn send(
    state: &State,
    request: Request<ProxyBody>,
) -> Result<Response<Incoming>, Box<Response<ProxyBody>>> {
    let limit = state.config.limits.response_timeout;
    match tokio::time::timeout(limit, state.client.request(request)).await {
        Ok(Ok(response)) => Ok(response),
        Ok(Err(e)) => {
            let message = match e.is_connect() {
                true => format!(
                    "cannot connect to the upstream {}: {e}",
                    state.config.upstream
                ),
                false => format!("the upstream {} failed: {e}", state.config.upstream),
            };
            Err(Box::new(error::response(
                StatusCode::BAD_GATEWAY,
                "upstream_error",
                &message,
            )))
        }
        Err(_) => {
            let message = format!(
                "the upstream {} sent no response within {} s",
                state.config.upstream,
                limit.as_secs()
            );
            Err(Box::new(error::response(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                &message,
            )))
        }
    }
}

/// The upstream's response for the client, its body relayed as it arrives.
pub(crate) fn relay(response: Response<Incoming>) -> Response<ProxyBody> {
    let (mut parts, body) = response.into_parts();
    drop_hop_by_hop(&mut parts.headers);
    Response::from_parts(parts, relayed(body))
}

/// A request the proxy does not repair: relayed both ways untouched.
pub(crate) async fn passthrough(state: &State, request: Request<Incoming>) -> Response<ProxyBody> {
    let (parts, body) = request.into_parts();
    let request = match upstream_request(state, parts, relayed(body)) {
        Ok(request) => request,
        Err(answer) => return *answer,
    };
    match send(state, request).await {
        Ok(response) => relay(response),
        Err(answer) => *answer,
    }
}
