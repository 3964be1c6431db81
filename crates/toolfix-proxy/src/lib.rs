//! `toolfix proxy`: toolfix's salvage in front of any OpenAI-compatible server.
//!
//! Agents reach Ollama, llama.cpp's server, vLLM or SGLang through the OpenAI API. When a
//! model writes its call as text the server's parser does not read, the agent receives
//! prose and stops; when the parser is too eager, a fenced example or an unoffered name
//! arrives as a real `tool_calls` entry. The proxy sits between the two and repairs the
//! one route where that happens, `POST …/chat/completions`, streamed and not:
//!
//! * a request that offers tools has its reply's content salvaged with the offered names
//!   (and schemas) as the allowlist; calls found in text move into `tool_calls`, the
//!   content keeps the displayable text, `finish_reason` becomes `tool_calls`;
//! * a call the server parsed that names a tool the request did not offer is dropped;
//! * everything else (other paths, requests without tools, replies without text calls,
//!   error statuses) is relayed untouched.
//!
//! The core (`toolfix`) stays free of HTTP: this crate is hyper 1 on tokio, HTTP/1.1 over
//! plain TCP, so it builds no TLS stack (the upstream is a server on the same host or
//! network). `docs/proxy.md` is the user's page.

mod body;
mod choice;
mod complete;
mod config;
mod error;
mod forward;
mod offer;
mod route;
mod server;
mod shadow;
mod sse;
mod stream;

pub use config::{Config, Limits, Upstream};
pub use server::{run, serve};
