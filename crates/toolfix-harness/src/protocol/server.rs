//! `toolfix serve`: the reference implementation speaking the protocol on a byte stream.

use std::io::{self, BufRead, Write};

use super::handshake::Handshake;
use super::message::{Answer, Request};
use super::ops;
use super::wire::{decode_line, encode_line};
use toolfix::Profile;
use toolfix::py::Value;
use toolfix::salvage::template::Template;

/// Serves requests from `input` until `stop` or the end of input, answering on `output`
/// one flushed line per request, every salvage request's reply read as `template`
/// declares when one is given (and the request names none). Only I/O errors end it early.
pub fn serve(
    (profile, template): (Profile, Option<&Template>),
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Some(answer) = answer((profile, template), &line) else {
            return Ok(());
        };
        output.write_all(encode_line(&answer).as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// The answer to one request line, or `None` for `stop`.
fn answer((profile, template): (Profile, Option<&Template>), line: &[u8]) -> Option<Value> {
    let decoded = match decode_line(line) {
        Ok(value) => value,
        Err(message) => return Some(Answer::Errored(message).to_value(None)),
    };
    match Request::parse(&decoded) {
        Ok(Request::Stop) => None,
        Ok(Request::Hello { .. }) => Some(hello(profile)),
        Ok(Request::Run { seq, op, input }) => {
            let answer = ops::run_with_template(&op, &input, profile, template);
            Some(answer.to_value(Some(&seq)))
        }
        Err(bad) => Some(Answer::Errored(bad.message).to_value(bad.seq.as_ref())),
    }
}

/// The handshake answer: what the reference declares under `profile`.
fn hello(profile: Profile) -> Value {
    Handshake::reference(profile).to_value()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(profile: Profile, input: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve((profile, None), input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn handshake_run_and_stop() {
        let lines = session(
            Profile::PraisonAi,
            concat!(
                r#"{"cmd": "hello", "protocol": 1}"#,
                "\n",
                r#"{"cmd": "run", "seq": 1, "op": "salvage", "input": {"content": "<tool_call>{\"name\": \"a\"}</tool_call>", "tools": ["a"], "adapter": "ollama"}}"#,
                "\n",
                r#"{"cmd": "stop"}"#,
                "\n",
                r#"{"cmd": "hello", "protocol": 1}"#,
                "\n",
            ),
        );
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with(r#"{"protocol": 1, "implementation": {"name": "toolfix""#));
        assert_eq!(
            lines[1],
            r#"{"seq": 1, "output": {"calls": [{"name": "a", "arguments": "{}"}]}}"#
        );
    }

    #[test]
    fn bad_lines_get_errored_answers_and_serving_goes_on() {
        let lines = session(
            Profile::Strict,
            "not json\n{\"cmd\": \"run\", \"seq\": 7}\n{\"cmd\": \"dance\"}\n{\"cmd\": \"run\", \"seq\": 8, \"op\": \"x\", \"input\": {}}\n",
        );
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with(r#"{"errored": "the line is not JSON"#));
        assert!(lines[1].starts_with(r#"{"seq": 7, "errored": "request.op is missing"#));
        assert!(lines[2].starts_with(r#"{"errored": "unknown cmd"#));
        assert!(lines[3].starts_with(r#"{"seq": 8, "errored": "unknown op"#));
    }
}
