//! The one body type every response of the proxy has: the upstream's body relayed, a
//! repaired body in full, or a repaired stream, behind one boxed type.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::UnsyncBoxBody};

/// Why a body stopped: only a relayed upstream body can fail (its connection dropped).
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A response or forwarded request body.
pub(crate) type ProxyBody = UnsyncBoxBody<Bytes, BoxError>;

/// A body holding `bytes`, complete.
pub(crate) fn full(bytes: impl Into<Bytes>) -> ProxyBody {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// An incoming body (from the client or the upstream) relayed as it arrives.
pub(crate) fn relayed(body: hyper::body::Incoming) -> ProxyBody {
    body.map_err(BoxError::from).boxed_unsync()
}
