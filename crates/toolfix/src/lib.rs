//! Making LLM tool calls that go wrong safe and repairable.
//!
//! Models, small local ones most of all, call `WebSearch` when the tool is `web_search`,
//! send the wrong argument names, or write the call as text in their answer instead of
//! using the native tool-call field. This crate is what an agent runtime does about it:
//!
//! * [`salvage()`] recovers the calls a reply wrote as text, in text order, never from a
//!   fenced example and never to a tool that was not offered, in time linear in the reply;
//! * [`execute()`] dispatches one call against a [`Registry`]: exact name, else a unique
//!   case-and-separator repair (`WebSearch` → `web_search`), else a corrective error that
//!   lists the tools and suggests the nearest; arguments that do not bind get the
//!   parameter hint, errors the tool raises pass through unchanged;
//! * [`format_result()`] writes the message the model reads next.
//!
//! Each runs under a [`Profile`]: `strict` (the default) keeps the documented guarantees
//! on every path; `praisonai` is byte-faithful to praisonaiagents 1.7.17, the package
//! that documents this behaviour as "Tool Call Self-Repair", including where it departs
//! from its own documentation. [`salvage()`] is `strict`'s, so it has no error to
//! return; [`salvage_under`](salvage::salvage_under) takes the profile as a value and can
//! fail, under `praisonai` only, where the real package raises. The [`Adapter`] says
//! which provider a reply came through; only local ones (`ollama`, `local`) salvage text.
//!
//! Values are Python's, exactly ([`py`]): arguments decode and encode the way CPython's
//! `json` does (big integers kept, lone surrogates kept, `NaN` accepted), and error texts
//! are the ones CPython prints.
//!
//! # Salvage
//!
//! ```
//! use toolfix::salvage::{salvage, Allowlist, Request};
//!
//! let reply = "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n\
//!              Example only:\n```\n<tool_call>{\"name\": \"delete_user\", \"arguments\": {\"id\": 7}}</tool_call>\n```";
//! let tools = Allowlist::new(["get_weather", "delete_user"]);
//! let calls = salvage(&Request::new(reply, &tools));
//! assert_eq!(calls.len(), 1, "the fenced example never runs");
//! assert_eq!(calls[0].name_str(), Some("get_weather"));
//! assert_eq!(calls[0].arguments_text().as_str(), Some(r#"{"city": "Paris"}"#));
//! ```
//!
//! # Dispatch
//!
//! ```
//! use toolfix::{execute, Dict, Param, Profile, PyStr, Registry, Tool, Value};
//!
//! let web_search = Tool::new("web_search", vec![Param::required("query")], |args| {
//!     Ok(Value::str(&format!("results for {}", args[0].1.as_py_str().unwrap())))
//! })?;
//! let mut registry = Registry::new();
//! registry.add(web_search);
//!
//! let mut arguments = Dict::default();
//! arguments.insert(PyStr::from("query"), Value::str("hello"));
//! let repaired = execute(&registry, &Value::str("WebSearch"), &arguments, Profile::Strict)?;
//! assert_eq!(repaired.returned(), &Value::str("results for hello"));
//!
//! let unknown = execute(&registry, &Value::str("web_serch"), &arguments, Profile::Strict)?;
//! assert_eq!(
//!     unknown.returned().get("error"),
//!     Some(&Value::str("Tool 'web_serch' not found. Did you mean 'web_search'? Available tools: ['web_search']"))
//! );
//! # Ok::<(), toolfix::PyException>(())
//! ```
//!
//! # Features
//!
//! * `serde`: `serde::Serialize` for [`Value`], [`Call`], [`Dispatch`] and
//!   [`ResultMessage`], and `Value::to_json`, to a `serde_json::Value`, which says where
//!   a value holds what JSON cannot (a lone surrogate, an integer beyond 64 bits, `NaN`).

#![deny(missing_docs)]

mod adapter;
pub mod dispatch;
#[doc(hidden)]
pub mod internals;
mod profile;
pub mod py;
pub mod salvage;
#[cfg(feature = "serde")]
mod serde_support;
pub mod turn;

pub use adapter::{Adapter, AdapterPolicy, ForceToolUsage, ResultRole};
pub use dispatch::{
    Dispatch, Outcome, Param, ParamKind, Registry, ResultMessage, Tool, execute, format_result,
};
pub use profile::Profile;
pub use py::{Dict, PyException, PyInt, PyStr, Value};
pub use salvage::{Allowlist, Call, Content, Dialect, Request, SalvageError, salvage};
#[cfg(feature = "serde")]
pub use serde_support::NotJson;
pub use turn::{Ending, Loop, Options, Reply, Step, Turn};
