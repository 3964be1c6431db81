//! Streaming salvage beside batch salvage, on 1 MiB of prose and of call-heavy text, fed
//! in 1-byte, 16-byte and 4 KiB chunks (issue 13's goals: at most 1.5× batch at 16-byte
//! chunks, linear at 1-byte chunks).
//!
//! Every input is checked before it is timed: the stream gives exactly batch salvage's
//! calls at every chunk size.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolfix::salvage::{Allowlist, Request, salvage_under};
use toolfix::{Adapter, Profile};

#[allow(dead_code)]
mod inputs;
mod streaming;
mod timing;

use streaming::{CHUNKS, SIZE, chunks, inputs, stream};

fn streaming(c: &mut Criterion) {
    for (group_name, text, tools) in inputs(SIZE) {
        let tools = Allowlist::new(tools);
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        for profile in [Profile::PraisonAi, Profile::Strict] {
            let request = Request::new(text.as_str(), &tools).adapter(Adapter::Ollama);
            let batch = salvage_under(&request, profile).expect("no error").len();
            group.bench_function(BenchmarkId::new(format!("batch-{profile}"), "1 MiB"), |b| {
                b.iter(|| salvage_under(black_box(&request), profile))
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
