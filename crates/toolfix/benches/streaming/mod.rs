//! The streaming benches' inputs and driver, shared by `stream` (criterion times) and
//! `stream_instructions` (instruction counts under callgrind).

use toolfix::salvage::{Allowlist, Event, StreamUnder};
use toolfix::{Adapter, Profile};

use crate::inputs as generated;

/// The size of each input.
pub const SIZE: usize = 1 << 20;

/// The chunk sizes streamed, in bytes (cut at character boundaries).
pub const CHUNKS: [usize; 3] = [1, 16, 4096];

/// `text` cut into chunks of `size` bytes.
pub fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}

/// Streams `chunks` and returns how many calls came out.
pub fn stream(chunks: &[&str], tools: &Allowlist, profile: Profile) -> usize {
    let mut stream = StreamUnder::new(tools, Adapter::Ollama, profile);
    let mut calls = 0;
    let mut on = |event: Event<'_>| {
        if let Event::Call(_) = event {
            calls += 1;
        }
    };
    for chunk in chunks {
        stream.feed(*chunk, &mut on);
    }
    stream
        .finish(&mut on)
        .expect("no error under these profiles");
    calls
}

/// The inputs: `size` bytes of clean prose, and the 1000-call mixed reply repeated and cut
/// to `size` bytes (at a character boundary; a call the cut splits is not recovered, in
/// the stream as in batch salvage).
pub fn inputs(size: usize) -> Vec<(&'static str, String, Vec<&'static str>)> {
    let prose = generated::clean_prose(size);
    let calls = generated::call_replies()
        .into_iter()
        .find(|r| r.group == "calls-mixed" && r.calls == 1000)
        .expect("the 1000-call reply");
    let mut heavy = calls.text.repeat(size / calls.text.len() + 1);
    let mut end = size.min(heavy.len());
    while !heavy.is_char_boundary(end) {
        end -= 1;
    }
    heavy.truncate(end);
    vec![
        ("stream-prose", prose, calls.tools.clone()),
        ("stream-calls", heavy, calls.tools.clone()),
    ]
}
