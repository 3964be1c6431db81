//! The driver protocol, version 1 (`docs/protocol.md`): JSON lines between a runner and an
//! implementation under test.
//!
//! Both ends live here: `server` is the reference implementation speaking the protocol
//! (`toolfix serve`), and `message` is what the runner uses to build requests and read
//! answers. Values cross the wire as JSON read and written the way CPython's `json` does
//! (exact big integers, lone surrogates), with `$float`/`$opaque` wrappers for what JSON
//! cannot hold (`wire`).

pub mod fields;
pub mod handshake;
pub mod message;
pub mod ops;
pub mod server;
pub mod wire;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: i64 = 1;
