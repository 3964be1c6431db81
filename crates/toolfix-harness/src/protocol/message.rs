//! Protocol messages: the requests a runner sends and the answers an implementation gives.

use super::PROTOCOL_VERSION;
use super::fields::Fields;
use toolfix::py::Value;

/// A request line, as an implementation reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `{"cmd": "hello", "protocol": N}`
    Hello { protocol: Value },
    /// `{"cmd": "run", "seq": N, "op": OP, "input": {...}}`
    Run {
        seq: Value,
        op: String,
        input: Value,
    },
    /// `{"cmd": "stop"}`
    Stop,
}

/// A request line that could not be read: the message, and the `seq` when one was found.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRequest {
    pub seq: Option<Value>,
    pub message: String,
}

impl Request {
    /// Reads a decoded request line.
    pub fn parse(line: &Value) -> Result<Request, BadRequest> {
        let seq = line.get("seq").cloned();
        let bad = |message: String| BadRequest {
            seq: seq.clone(),
            message,
        };
        let fields = Fields::of(line, "request").map_err(bad)?;
        match fields.str("cmd").map_err(bad)? {
            "hello" => Ok(Request::Hello {
                protocol: fields.value("protocol").map_err(bad)?.clone(),
            }),
            "run" => Ok(Request::Run {
                seq: fields.value("seq").map_err(bad)?.clone(),
                op: fields.str("op").map_err(bad)?.to_owned(),
                input: fields.value("input").map_err(bad)?.clone(),
            }),
            "stop" => Ok(Request::Stop),
            other => Err(bad(format!("unknown cmd {other:?}"))),
        }
    }

    /// The request as a line value, as a runner sends it.
    pub fn to_value(&self) -> Value {
        match self {
            Request::Hello { protocol } => {
                Value::dict([("cmd", Value::str("hello")), ("protocol", protocol.clone())])
            }
            Request::Run { seq, op, input } => Value::dict([
                ("cmd", Value::str("run")),
                ("seq", seq.clone()),
                ("op", Value::str(op)),
                ("input", input.clone()),
            ]),
            Request::Stop => Value::dict([("cmd", Value::str("stop"))]),
        }
    }

    /// The handshake a runner opens with.
    pub fn hello() -> Request {
        Request::Hello {
            protocol: Value::int(PROTOCOL_VERSION),
        }
    }
}

/// The answer to one `run`.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The op's result.
    Output(Value),
    /// The implementation knowingly does not support the input.
    Skipped(String),
    /// The implementation failed on the input.
    Errored(String),
}

impl Answer {
    /// The answer as a line value, for `seq` (absent when the request had none).
    pub fn to_value(&self, seq: Option<&Value>) -> Value {
        let (key, value) = match self {
            Answer::Output(output) => ("output", output.clone()),
            Answer::Skipped(why) => ("skipped", Value::str(why)),
            Answer::Errored(message) => ("errored", Value::str(message)),
        };
        Value::dict(
            seq.map(|s| ("seq", s.clone()))
                .into_iter()
                .chain([(key, value)]),
        )
    }

    /// Reads an answer line: its `seq` and the answer.
    pub fn parse(line: &Value) -> Result<(Option<Value>, Answer), String> {
        let fields = Fields::of(line, "answer")?;
        let seq = fields.get("seq").cloned();
        let keys = ["output", "skipped", "errored"];
        let present: Vec<&str> = keys
            .into_iter()
            .filter(|k| fields.get(k).is_some())
            .collect();
        let answer = match present.as_slice() {
            ["output"] => Answer::Output(fields.value("output")?.clone()),
            ["skipped"] => Answer::Skipped(text_of(fields.value("skipped")?)),
            ["errored"] => Answer::Errored(text_of(fields.value("errored")?)),
            [] => return Err("the answer has none of output, skipped, errored".to_owned()),
            _ => return Err("the answer has more than one of output, skipped, errored".to_owned()),
        };
        Ok((seq, answer))
    }
}

/// A reason or message as text, whatever JSON the implementation put there.
fn text_of(value: &Value) -> String {
    match value {
        Value::Str(s) => s.to_string(),
        other => super::wire::encode_line(other),
    }
}
