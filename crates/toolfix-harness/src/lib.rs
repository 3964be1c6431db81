//! The toolfix conformance harness: everything `toolfix conform` is made of.
//!
//! * [`protocol`]: the JSON-lines driver protocol (`docs/protocol.md`), its messages and
//!   wire values, and the reference implementation speaking it ([`protocol::server`]);
//! * [`suite`]: the spec cases as data, loaded from TOML files or from the copy embedded
//!   in this crate ([`suite::embedded`]), and the rule that decides whether an output meets
//!   a case;
//! * [`conform`]: the runner that drives any implementation through the suite and
//!   survives it, with known failures and the reports.
//!
//! The core library (`toolfix`) knows nothing of this crate: a runtime that only salvages
//! and dispatches never links the harness.

pub mod conform;
pub mod protocol;
pub mod suite;
