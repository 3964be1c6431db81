//! Streaming salvage beside batch salvage, on 1 MiB of prose and of call-heavy text, fed
//! in 1-byte, 16-byte and 4 KiB chunks (issue 13's goals: at most 1.5× batch at 16-byte
//! chunks, linear at 1-byte chunks).
//!
//! Every input is checked before it is timed: the stream gives exactly batch salvage's
//! calls at every chunk size.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolfix::salvage::{Allowlist, Event, Stream, salvage};
use toolfix::{Adapter, Profile};

#[allow(dead_code)]
mod inputs;
mod timing;

/// The size of each input.
const SIZE: usize = 1 << 20;

/// The chunk sizes streamed, in bytes (cut at character boundaries).
const CHUNKS: [usize; 3] = [1, 16, 4096];

/// `text` cut into chunks of `size` bytes.
fn chunks(text: &str, size: usize) -> Vec<&str> {
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
fn stream(chunks: &[&str], tools: &Allowlist, profile: Profile) -> usize {
    let mut stream = Stream::new(tools, Adapter::Ollama, profile);
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

/// The inputs: 1 MiB of clean prose, and the 1000-call mixed reply repeated to 1 MiB.
fn inputs() -> Vec<(&'static str, String, Vec<&'static str>)> {
    let prose = inputs::clean_prose(SIZE);
    let calls = inputs::call_replies()
        .into_iter()
        .find(|r| r.group == "calls-mixed" && r.calls == 1000)
        .expect("the 1000-call reply");
    let heavy = calls.text.repeat(SIZE / calls.text.len() + 1);
    vec![
        ("stream-prose", prose, calls.tools.clone()),
        ("stream-calls", heavy, calls.tools.clone()),
    ]
}

fn streaming(c: &mut Criterion) {
    for (group_name, text, tools) in inputs() {
        let tools = Allowlist::new(tools);
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        for profile in [Profile::PraisonAi, Profile::Strict] {
            let request = toolfix::salvage::Request::new(text.as_str(), &tools)
                .adapter(Adapter::Ollama)
                .profile(profile);
            let batch = salvage(&request).expect("no error").len();
            group.bench_function(BenchmarkId::new(format!("batch-{profile}"), "1 MiB"), |b| {
                b.iter(|| salvage(black_box(&request)))
            });
            for size in CHUNKS {
                let pieces = chunks(&text, size);
                assert_eq!(
                    stream(&pieces, &tools, profile),
                    batch,
                    "{group_name} {size}"
                );
                let id = BenchmarkId::new(format!("stream-{profile}"), format!("{size} B chunks"));
                group.bench_function(id, |b| {
                    b.iter(|| stream(black_box(&pieces), &tools, profile))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = timing::config();
    targets = streaming
}
criterion_main!(benches);
