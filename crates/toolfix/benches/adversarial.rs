//! Salvage on hostile replies: every adversarial family of docs/behaviour.md §5(c), from
//! 16 KiB to 1 MiB. CPython is quadratic on most of them (an unclosed tag rescans to the
//! end, a failed decode counts the newlines before it); toolfix must grow linearly.
//!
//! Every reply is checked before it is timed: it gives exactly its number of calls (none,
//! except `react-ok`, one per repetition).
//!
//! The worst cases of the dialects only `strict` and `portable` recover
//! (`inputs::DIALECT_FAMILIES`) run under `strict` only, in the same groups' format, so
//! `cargo bench --bench adversarial -- mistral` times one dialect's families.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolfix::Profile;
use toolfix::salvage::{salvage, salvage_under};

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
mod inputs;
mod timing;

/// Each family at each size, under `praisonai`, and under `strict` too where a payload
/// decodes (`strict` then re-reads it from the unmasked text).
fn families(c: &mut Criterion) {
    for family in inputs::FAMILIES {
        let mut group = c.benchmark_group(family.name);
        for bytes in inputs::ADVERSARIAL_SIZES {
            let reply = inputs::adversarial_reply(family, bytes);
            let tools = reply.allowlist();
            let mut profiles = vec![(Profile::PraisonAi, "toolfix-praisonai")];
            if reply.calls > 0 {
                profiles.push((Profile::Strict, "toolfix-strict"));
            }
            for (profile, name) in profiles {
                reply.check(&tools, profile);
                let request = reply.request(&tools);
                group.throughput(Throughput::Bytes(reply.len() as u64));
                group.bench_function(BenchmarkId::new(name, &reply.param), |b| {
                    b.iter(|| salvage_under(black_box(&request), profile))
                });
            }
        }
        group.finish();
    }
}

/// The worst cases of the dialects only `strict` and `portable` recover, under `strict`
/// (`praisonai` reads none of them, so it would time its probe only).
fn dialect_families(c: &mut Criterion) {
    for family in inputs::DIALECT_FAMILIES {
        let mut group = c.benchmark_group(family.name);
        for bytes in inputs::ADVERSARIAL_SIZES {
            let reply = inputs::adversarial_reply(family, bytes);
            let tools = reply.allowlist();
            reply.check(&tools, Profile::Strict);
            let request = reply.request(&tools);
            group.throughput(Throughput::Bytes(reply.len() as u64));
            group.bench_function(BenchmarkId::new("toolfix-strict", &reply.param), |b| {
                b.iter(|| salvage(black_box(&request)))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = timing::config();
    targets = families, dialect_families
}
criterion_main!(benches);
