//! The `protocol` target: one request line into `toolfix serve`.

use toolfix_harness::protocol::message::Request;
use toolfix_harness::protocol::server::serve;
use toolfix_harness::protocol::wire::decode_line;

/// Serves the bytes up to their first newline as one request line, under both profiles:
/// never a panic, never an I/O error, and exactly one answer line, which is JSON, unless
/// the line is blank or a `stop` (then none).
pub fn protocol(data: &[u8]) {
    let line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut input = line.to_vec();
    input.push(b'\n');
    let silent = line.iter().all(u8::is_ascii_whitespace) || is_stop(line);
    for profile in crate::PROFILES {
        let mut output = Vec::new();
        serve((profile, None), input.as_slice(), &mut output)
            .expect("serving from memory cannot fail");
        let answers: Vec<&[u8]> = output.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(answers.len(), usize::from(!silent), "answers to {line:?}");
        for answer in answers {
            assert!(answer.ends_with(b"\n"), "an answer is one whole line");
            assert!(decode_line(answer).is_ok(), "an answer is JSON: {answer:?}");
        }
    }
}

/// Whether the line is a `stop` request.
fn is_stop(line: &[u8]) -> bool {
    decode_line(line)
        .ok()
        .and_then(|value| Request::parse(&value).ok())
        .is_some_and(|request| matches!(request, Request::Stop))
}
