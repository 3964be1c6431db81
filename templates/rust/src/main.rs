//! A toolfix driver for a Rust implementation (docs/protocol.md): fill in `implementation`,
//! `declarations` and `salvage`, and build it. The protocol (reading requests, the
//! handshake, the answers, panics) is this package's library, `src/lib.rs`: nothing in it
//! needs changing.

use serde_json::{Value, json};
use toolfix_driver::{Calls, Driver, Refusal};

/// Your implementation, as the driver sees it.
struct MyImplementation;

impl Driver for MyImplementation {
    /// The offered tool names (`toolfix_driver::tool_entries` gives the entries).
    type Tools = Vec<String>;

    /// Who you are.
    fn implementation(&self) -> Value {
        json!({"name": "my-implementation", "version": "0.0.0", "language": "rust"})
    }

    /// What you declare (docs/protocol.md, docs/guarantees.md): the profile you claim, your
    /// ops, the dialects your salvage recovers, and your conventions (a policy you leave
    /// out is false).
    fn declarations(&self) -> Value {
        json!({
            "profile": "portable",
            "ops": ["salvage"],
            "dialects": [],
            "policies": {"adapters": false, "unclosed_calls": false, "lenient_json": false,
                         "case_insensitive_names": false, "masks_reasoning": false},
        })
    }

    fn tools(&self, tools: &Value) -> Vec<String> {
        toolfix_driver::tool_names(tools)
    }

    /// The calls written as text in `content`: `(name, arguments as JSON text)`, in order.
    /// `Err(Refusal::Declined(reason))` declines an input you knowingly do not support (a
    /// declined case counts against you); `Err(Refusal::Error(message))` is your
    /// implementation's error on this reply.
    fn salvage(&self, content: &str, tools: &Vec<String>) -> Result<Calls, Refusal> {
        let _ = (content, tools);
        Ok(Vec::new())
    }
}

fn main() -> std::io::Result<()> {
    toolfix_driver::serve(&MyImplementation)
}
