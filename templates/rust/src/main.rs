//! A toolfix driver for a Rust implementation (docs/protocol.md): fill in `implementation`,
//! `declarations` and `salvage`, and build it. The protocol (reading requests, the
//! handshake, the answers, panics) is this package's library, `src/lib.rs`: nothing in it
//! needs changing.

use serde_json::{Value, json};
use toolfix_driver::{Calls, Driver, Fed, Refusal, ReplyStream};

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
    /// ops (add `salvage_stream` for `stream` below), the dialects your salvage recovers
    /// (and, for a dialect of several forms, the `forms` you read), your conventions (a
    /// policy you leave out is false), and `"token_chunks": true` when your stream is fed
    /// token by token.
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

    /// Your streaming parser on one reply. This one is the baseline a parser that is not
    /// incremental gives: nothing until the end, then the whole reply through `salvage`.
    fn stream<'a>(&'a self, tools: &'a Vec<String>) -> Option<Box<dyn ReplyStream + 'a>> {
        Some(Box::new(WholeReply {
            driver: self,
            tools,
            text: String::new(),
        }))
    }
}

/// A stream that keeps the reply and salvages it at the end.
struct WholeReply<'a> {
    driver: &'a MyImplementation,
    tools: &'a Vec<String>,
    text: String,
}

impl ReplyStream for WholeReply<'_> {
    fn feed(&mut self, chunk: &str) -> Result<Fed, Refusal> {
        self.text.push_str(chunk);
        Ok(Fed::default())
    }

    fn finish(&mut self) -> Result<Fed, Refusal> {
        let calls = self.driver.salvage(&self.text, self.tools)?;
        let shown = if calls.is_empty() {
            std::mem::take(&mut self.text)
        } else {
            String::new()
        };
        Ok(Fed { shown, calls })
    }
}

fn main() -> std::io::Result<()> {
    toolfix_driver::serve(&MyImplementation)
}
