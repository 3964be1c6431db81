//! Which requests are repaired: `POST …/chat/completions`. Everything else is relayed.

use hyper::body::Incoming;
use hyper::{Method, Request, Response};

use crate::body::ProxyBody;
use crate::server::State;
use crate::{complete, forward};

/// Answers one request.
pub(crate) async fn handle(state: &State, request: Request<Incoming>) -> Response<ProxyBody> {
    let repaired =
        request.method() == Method::POST && request.uri().path().ends_with("/chat/completions");
    match repaired {
        true => complete::chat(state, request).await,
        false => forward::passthrough(state, request).await,
    }
}
