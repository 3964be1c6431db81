//! toolfix beside the Rust parsers a user would pick instead (issue 15): each input class
//! is one criterion group holding the floor (`memchr::memmem` counting `<tool_call>`),
//! toolfix under `strict` and `praisonai`, and each peer, on the same bytes, in one run.
//!
//! Checked before timed: toolfix must give exactly the class's number of calls (a broken
//! input must not produce a fast, meaningless number). A peer that gives a different
//! number is still timed, and a note says what it gave, so the table can say that a
//! fast peer read fewer calls.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use memchr::memmem;

// This bench uses a part of the main benches' inputs.
#[allow(dead_code)]
#[path = "../../../crates/toolfix/benches/inputs/mod.rs"]
mod inputs;

mod classes;
mod contenders;

fn peers(c: &mut Criterion) {
    let floor = memmem::Finder::new(b"<tool_call>");
    for class in classes::classes() {
        let text = class.text.as_str();
        let mut group = c.benchmark_group(class.name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        let size = format!("{} bytes", text.len());
        group.bench_function(BenchmarkId::new("floor-memmem", &size), |b| {
            b.iter(|| floor.find_iter(black_box(text.as_bytes())).count())
        });
        for contender in contenders::contenders(class.tools) {
            let calls = contender.calls(text);
            if contender.ours {
                assert_eq!(calls, class.calls, "{} on {}", contender.name, class.name);
            } else if calls != class.calls {
                eprintln!(
                    "note: {} gives {calls} calls on {} (expected {})",
                    contender.name, class.name, class.calls
                );
            }
            group.bench_function(BenchmarkId::new(contender.name, &size), |b| {
                b.iter(|| contender.calls(black_box(text)))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Short runs, as the main benches: a few milliseconds per call at worst.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = peers
}
criterion_main!(benches);
