//! The protocol side of a toolfix driver for a Rust implementation (docs/protocol.md).
//!
//! A driver implements [`Driver`] (who it is, what it declares, how it salvages) and hands
//! it to [`serve`]; `src/main.rs` is an example. The adapters under `adapters/` depend on
//! this crate by path.
//!
//! It survives what real implementations do:
//! * a request line that is not JSON, or not a request, gets an `errored` answer and the
//!   driver keeps serving;
//! * a runner that asks for another protocol version still gets this driver's version in
//!   the handshake, so it can stop with a clear message;
//! * a panic in the implementation becomes `errored` for that case (the panic message goes
//!   to stderr, which the runner attaches to the failure) and the driver keeps serving;
//! * a streaming parser ([`Driver::stream`]) is fed a `salvage_stream` request's chunks
//!   one by one, and this crate works out each call's `after_chunk` and the text shown;
//! * every answer is one flushed line on stdout; the driver exits on `stop` or at the end
//!   of input. The implementation must not print to stdout: use stderr for logs.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use serde_json::{Value, json};

/// The calls salvage recovers: `(name, arguments as JSON text)`, in order.
pub type Calls = Vec<(String, String)>;

/// Why salvage gives no calls for a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The implementation returned an error on this reply: the output `{"error": S}`
    /// (docs/protocol.md, op `salvage`).
    Error(String),
    /// You knowingly do not support this input: the answer `skipped`, with this reason.
    /// A declined case counts against you: declare what you support instead.
    Declined(String),
}

/// What a streaming parser gives out on one chunk, or at the end of the reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fed {
    /// The text the user is shown now.
    pub shown: String,
    /// The calls this chunk completed, whole (a parser that streams argument deltas joins
    /// them and gives the call out from the chunk that completes it).
    pub calls: Calls,
}

/// Your streaming parser on one reply ([`Driver::stream`]).
pub trait ReplyStream {
    /// Feeds the next chunk.
    fn feed(&mut self, chunk: &str) -> Result<Fed, Refusal>;
    /// The reply ended: what is given out only now.
    fn finish(&mut self) -> Result<Fed, Refusal>;
}

/// A driver: who it is, what it declares, its `salvage` and, optionally, its stream.
pub trait Driver {
    /// The protocol's `tools` as the implementation takes them.
    type Tools;

    /// The handshake's `implementation` object: `name`, `version` and `language` are
    /// required, other keys are free.
    fn implementation(&self) -> Value;

    /// The rest of the handshake (docs/protocol.md, docs/guarantees.md): the `profile` you
    /// claim, your `ops`, the `dialects` your salvage recovers, and your `policies` (a
    /// policy you leave out is false).
    fn declarations(&self) -> Value;

    /// A request's `tools` as the implementation takes them ([`tool_entries`],
    /// [`tool_names`]).
    fn tools(&self, tools: &Value) -> Self::Tools;

    /// The calls written as text in `content`; none is `{"calls": null}`.
    fn salvage(&self, content: &str, tools: &Self::Tools) -> Result<Calls, Refusal>;

    /// Your streaming parser on a new reply, for op `salvage_stream` (declare the op
    /// when you give one); `None`, the default, answers that op `errored`.
    fn stream<'a>(&'a self, _tools: &'a Self::Tools) -> Option<Box<dyn ReplyStream + 'a>> {
        None
    }
}

/// Answers the requests on stdin until `stop` or the end of input.
pub fn serve(driver: &impl Driver) -> io::Result<()> {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Some(answer) = respond(driver, &line?) else {
            return Ok(());
        };
        writeln!(stdout, "{answer}")?;
        stdout.flush()?;
    }
    Ok(())
}

/// The answer to one request, or `None` for `stop`.
pub fn respond(driver: &impl Driver, line: &str) -> Option<Value> {
    let request: Value = match serde_json::from_str(line) {
        Ok(Value::Object(request)) => Value::Object(request),
        Ok(_) => return Some(json!({"errored": "the request is not a JSON object"})),
        Err(error) => return Some(json!({"errored": format!("the request is not JSON: {error}")})),
    };
    match request["cmd"].as_str() {
        Some("hello") => {
            let mut hello = json!({"protocol": 1, "implementation": driver.implementation()});
            if let (Value::Object(hello), Value::Object(declared)) =
                (&mut hello, driver.declarations())
            {
                hello.extend(declared);
            }
            Some(hello)
        }
        Some("run") => Some(run(driver, &request)),
        Some("stop") => None,
        other => Some(json!({"seq": request["seq"], "errored": format!("unknown cmd {other:?}")})),
    }
}

/// One case: the op's output, `skipped` with a reason, or `errored` (a panic included).
fn run(driver: &impl Driver, request: &Value) -> Value {
    let seq = request["seq"].clone();
    let input = &request["input"];
    let op = request["op"].as_str().unwrap_or_default();
    if !matches!(op, "salvage" | "salvage_stream") || !input.is_object() {
        return json!({"seq": seq, "errored": format!("unknown op or malformed input: {}", request["op"])});
    }
    let tools = driver.tools(&input["tools"]);
    let answered = panic::catch_unwind(AssertUnwindSafe(|| match op {
        "salvage" => salvage(driver, input, &tools),
        _ => stream(driver, input, &tools),
    }));
    match answered {
        Ok(Ok(output)) => json!({"seq": seq, "output": output}),
        Ok(Err(Refusal::Error(error))) => json!({"seq": seq, "output": {"error": error}}),
        Ok(Err(Refusal::Declined(reason))) => json!({"seq": seq, "skipped": reason}),
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

/// The calls as the protocol writes them: `null` for none.
fn calls_value(calls: impl IntoIterator<Item = Value>) -> Value {
    let calls: Vec<Value> = calls.into_iter().collect();
    if calls.is_empty() {
        Value::Null
    } else {
        Value::Array(calls)
    }
}

/// Op `salvage`: `{"calls": …}`.
fn salvage<D: Driver>(driver: &D, input: &Value, tools: &D::Tools) -> Result<Value, Refusal> {
    let content = input["content"].as_str().unwrap_or_default();
    let calls = driver.salvage(content, tools)?;
    let calls = calls
        .into_iter()
        .map(|(name, arguments)| json!({"name": name, "arguments": arguments}));
    Ok(json!({"calls": calls_value(calls)}))
}

/// Op `salvage_stream`: the chunks fed one by one; a call given out while chunk `i` is
/// fed has `after_chunk` `i`, one given out at the end the number of chunks.
fn stream<D: Driver>(driver: &D, input: &Value, tools: &D::Tools) -> Result<Value, Refusal> {
    let Some(mut stream) = driver.stream(tools) else {
        return Err(Refusal::Error(
            "this driver has no streaming parser (Driver::stream)".to_owned(),
        ));
    };
    let chunks: Vec<&str> = input["chunks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|chunk| chunk.as_str().unwrap_or_default())
        .collect();
    let (mut calls, mut shown) = (Vec::new(), String::new());
    for index in 0..=chunks.len() {
        let fed = match chunks.get(index) {
            Some(chunk) => stream.feed(chunk)?,
            None => stream.finish()?,
        };
        shown.push_str(&fed.shown);
        calls.extend(fed.calls.into_iter().map(
            |(name, arguments)| json!({"name": name, "arguments": arguments, "after_chunk": index}),
        ));
    }
    Ok(json!({"calls": calls_value(calls), "content": shown}))
}

/// The entries of a protocol `tools` input, in order: a string is a tool name, any other
/// value an entry passed through verbatim, and `{"$raw": V}` is read as `V`. Not an array:
/// no entries.
pub fn tool_entries(tools: &Value) -> impl Iterator<Item = &Value> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| tool.get("$raw").unwrap_or(tool))
}

/// The tool names of a protocol `tools` input: a string is a name; an OpenAI entry gives
/// `function.name`, else `name`; `{"$raw": V}` is read as `V`.
pub fn tool_names(tools: &Value) -> Vec<String> {
    tool_entries(tools)
        .filter_map(|tool| match tool {
            Value::String(name) => Some(name.clone()),
            entry => entry["function"]["name"]
                .as_str()
                .or_else(|| entry["name"].as_str())
                .map(str::to_owned),
        })
        .collect()
}

/// One of the parsers a driver for a multi-parser engine serves, picked on its command
/// line ([`Parser::from_args`]): an engine picks one parser per served model, so the
/// driver does the same.
#[derive(Debug)]
pub struct Parser {
    /// The engine's registry name for it, the driver's first argument.
    pub name: &'static str,
    /// The toolfix dialects its format is (docs/protocol.md).
    pub dialects: &'static [&'static str],
    /// It recovers a call whose closing marker is missing (docs/guarantees.md, policy
    /// `unclosed_calls`).
    pub unclosed_calls: bool,
}

impl Parser {
    /// The parser the first command-line argument names, else the first of `parsers`. An
    /// unknown name is reported on stderr and exits with status 2.
    pub fn from_args(parsers: &'static [Parser]) -> &'static Parser {
        let Some(name) = std::env::args().nth(1) else {
            return &parsers[0];
        };
        let Some(known) = parsers.iter().find(|known| known.name == name) else {
            let names: Vec<&str> = parsers.iter().map(|known| known.name).collect();
            eprintln!("unknown parser {name:?}; this driver knows {names:?}");
            std::process::exit(2);
        };
        known
    }

    /// What a driver serving this parser declares: profile portable, salvage only, the
    /// parser's dialects and its `unclosed_calls` policy (every other policy false).
    pub fn declarations(&self) -> Value {
        json!({
            "profile": "portable",
            "ops": ["salvage"],
            "dialects": self.dialects,
            "policies": {"adapters": false, "unclosed_calls": self.unclosed_calls,
                         "lenient_json": false, "case_insensitive_names": false,
                         "masks_reasoning": false},
        })
    }
}
