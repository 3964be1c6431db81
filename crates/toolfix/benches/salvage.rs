//! Salvage on the replies models send: clean prose beside the physical floor (a
//! `memchr::memmem` scan of the same bytes for a needle that is not there), prose with the
//! marker word `action`, and replies full of calls.
//!
//! Every input is checked before it is timed: the clean prose really has no marker and no
//! `<tool_call>`, and every reply gives exactly its number of calls.

use std::hint::black_box;

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use criterion::{BenchmarkId, measurement::WallTime};
use memchr::memmem;
use toolfix::Profile;
use toolfix::salvage::salvage_under;

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
mod inputs;
mod timing;

use inputs::Reply;

/// Times `salvage` on `reply` under `profile`, after checking its result.
fn bench_salvage(group: &mut BenchmarkGroup<'_, WallTime>, reply: &Reply, profile: Profile) {
    let tools = reply.allowlist();
    reply.check(&tools, profile);
    let request = reply.request(&tools);
    let name = format!("toolfix-{profile}");
    group.throughput(Throughput::Bytes(reply.len() as u64));
    group.bench_function(BenchmarkId::new(name, &reply.param), |b| {
        b.iter(|| salvage_under(black_box(&request), profile))
    });
}

/// Prose: the clean replies beside the memmem floor, then the
/// replies with the marker word.
fn prose(c: &mut Criterion) {
    let finder = memmem::Finder::new(b"<tool_call>");
    let replies = inputs::prose_replies();
    for group_name in [
        "clean",
        "action-once",
        "action-every-50-words",
        "react-every-50-words",
    ] {
        let mut group = c.benchmark_group(group_name);
        for reply in replies.iter().filter(|r| r.group == group_name) {
            inputs::check_prose(reply);
            bench_salvage(&mut group, reply, Profile::PraisonAi);
            if group_name != "clean" {
                continue;
            }
            let text = reply.text.as_bytes();
            assert_eq!(finder.find(text), None);
            group.bench_function(BenchmarkId::new("memmem", &reply.param), |b| {
                b.iter(|| finder.find(black_box(text)))
            });
        }
        group.finish();
    }
}

/// Replies with 10, 100 and 1000 calls, under both profiles (`strict` re-reads every
/// payload from the unmasked text).
fn calls(c: &mut Criterion) {
    let replies = inputs::call_replies();
    for group_name in ["calls-mixed", "calls-whole-json"] {
        let mut group = c.benchmark_group(group_name);
        for reply in replies.iter().filter(|r| r.group == group_name) {
            for profile in [Profile::PraisonAi, Profile::Strict] {
                bench_salvage(&mut group, reply, profile);
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = timing::config();
    targets = prose, calls
}
criterion_main!(benches);
