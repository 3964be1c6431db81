//! A toolfix driver for a Rust implementation (docs/protocol.md): fill in
//! `IMPLEMENTATION`, `declarations` and `salvage`, and build it.
//!
//! It survives what real implementations do:
//! * a request line that is not JSON, or not a request, gets an `errored` answer and the
//!   driver keeps serving;
//! * a runner that asks for another protocol version still gets this driver's version in
//!   the handshake, so it can stop with a clear message;
//! * a panic in your code becomes `errored` for that case (the panic message goes to
//!   stderr, which the runner attaches to the failure) and the driver keeps serving;
//! * every answer is one flushed line on stdout; the driver exits on `stop` or at the end
//!   of input. Your implementation must not print to stdout: use stderr for logs.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use serde_json::{Value, json};

/// Who you are.
const IMPLEMENTATION: (&str, &str) = ("my-implementation", "0.0.0");

/// What you declare (docs/protocol.md, docs/guarantees.md): the profile you claim, your
/// ops, the dialects your salvage recovers, and your conventions (a policy you leave out
/// is false).
fn declarations() -> Value {
    json!({
        "profile": "portable",
        "ops": ["salvage"],
        "dialects": [],
        "policies": {"adapters": false, "unclosed_calls": false, "lenient_json": false,
                     "case_insensitive_names": false, "masks_reasoning": false},
    })
}

/// The calls written as text in `content`: `(name, arguments as JSON text)`, in order.
/// `tools` are the offered tool names. `Err(reason)` declines an input you knowingly do
/// not support (a declined case counts against you).
fn salvage(content: &str, tools: &[String]) -> Result<Vec<(String, String)>, String> {
    let _ = (content, tools);
    Ok(Vec::new())
}

// ---------------------------------------------------------------------------------------
// The protocol. Nothing below needs changing for a salvage-only implementation.
// ---------------------------------------------------------------------------------------

/// The answer to one request, or `None` for `stop`.
fn respond(line: &str) -> Option<Value> {
    let request: Value = match serde_json::from_str(line) {
        Ok(Value::Object(request)) => Value::Object(request),
        Ok(_) => return Some(json!({"errored": "the request is not a JSON object"})),
        Err(error) => return Some(json!({"errored": format!("the request is not JSON: {error}")})),
    };
    match request["cmd"].as_str() {
        Some("hello") => {
            let mut hello = json!({
                "protocol": 1,
                "implementation": {"name": IMPLEMENTATION.0, "version": IMPLEMENTATION.1,
                                   "language": "rust"},
            });
            if let (Value::Object(hello), Value::Object(declared)) = (&mut hello, declarations()) {
                hello.extend(declared);
            }
            Some(hello)
        }
        Some("run") => Some(run(&request)),
        Some("stop") => None,
        other => Some(json!({"seq": request["seq"], "errored": format!("unknown cmd {other:?}")})),
    }
}

/// One case: the op's output, `skipped` with a reason, or `errored` (a panic included).
fn run(request: &Value) -> Value {
    let seq = request["seq"].clone();
    let input = &request["input"];
    if request["op"] != "salvage" || !input.is_object() {
        return json!({"seq": seq, "errored": format!("unknown op or malformed input: {}", request["op"])});
    }
    let content = input["content"].as_str().unwrap_or_default();
    let tools = tool_names(&input["tools"]);
    match panic::catch_unwind(AssertUnwindSafe(|| salvage(content, &tools))) {
        Ok(Ok(calls)) if calls.is_empty() => json!({"seq": seq, "output": {"calls": null}}),
        Ok(Ok(calls)) => {
            let calls: Vec<Value> = calls
                .into_iter()
                .map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
                .collect();
            json!({"seq": seq, "output": {"calls": calls}})
        }
        Ok(Err(reason)) => json!({"seq": seq, "skipped": reason}),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            json!({"seq": seq, "errored": format!("panicked: {message}")})
        }
    }
}

/// The tool names of a protocol `tools` input: a string is a name; an OpenAI entry gives
/// `function.name`, else `name`; `{"$raw": V}` is read as `V`.
fn tool_names(tools: &Value) -> Vec<String> {
    let Some(tools) = tools.as_array() else {
        return Vec::new();
    };
    tools
        .iter()
        .map(|tool| tool.get("$raw").unwrap_or(tool))
        .filter_map(|tool| match tool {
            Value::String(name) => Some(name.clone()),
            entry => entry["function"]["name"]
                .as_str()
                .or_else(|| entry["name"].as_str())
                .map(str::to_owned),
        })
        .collect()
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Some(answer) = respond(&line?) else {
            return Ok(());
        };
        writeln!(stdout, "{answer}")?;
        stdout.flush()?;
    }
    Ok(())
}
