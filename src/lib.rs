//! toolfix: making LLM tool calls that go wrong safe and repairable, and proving it.
//!
//! Models, small local ones most of all, call `WebSearch` when the tool is `web_search`,
//! send the wrong argument names, or write the call as text in their answer. toolfix is
//! the reference implementation of what an agent runtime should do about it, with two
//! behaviours ([`Profile`]): `praisonai`, byte-faithful to praisonaiagents 1.7.17, and
//! `strict`, which keeps the documented guarantees on every path.
//!
//! * [`salvage`]: recover calls written as text, in six dialects, with fence masking,
//!   the advertised-name allowlist and text order, in linear time.
//! * [`dispatch`]: name self-repair, corrective errors, bind hints, runtime-error
//!   pass-through and result formatting over a tool registry.
//! * [`adapter`]: the provider adapter policy table.
//! * [`py`]: the CPython 3.11 semantics the behaviour is made of.
//! * [`conform`]: the conformance runner that checks any implementation against the suite.

pub mod adapter;
pub mod conform;
pub mod dispatch;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod profile;
pub mod protocol;
pub mod py;
pub mod salvage;
pub mod suite;

pub use adapter::Adapter;
pub use profile::Profile;
