//! The shipped response templates (`salvage::template`) on replies of 256 KiB and 1 MiB:
//! each template's example call written back to back (`-calls`), and the same calls with
//! each one's last tag cut off, so no region closes until the reply ends (`-cut`). Timed
//! under `strict`, in the dialect families' format (BENCHMARKS.md, "The dialects only
//! `strict` recovers"): `cargo bench -p toolfix --features template --bench templates`.

mod timing;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Request};

const SIZES: [(&str, usize); 2] = [("256KiB", 256 << 10), ("1MiB", 1 << 20)];

/// `unit` repeated on lines of its own to `bytes`.
fn filled(unit: &str, bytes: usize) -> String {
    let line = format!("{unit}\n");
    line.repeat(bytes / line.len() + 1)[..bytes].to_owned()
}

/// The example with its last tag (from its last `<`) cut off.
fn cut(example: &str) -> &str {
    &example[..example.rfind('<').unwrap_or(example.len())]
}

fn templates(c: &mut Criterion) {
    let tools = Allowlist::new(["get_weather"]);
    for name in Template::SHIPPED {
        let shipped = Template::shipped(name).expect("a shipped template");
        let example = Template::example(name).expect("its example");
        for (family, unit) in [("calls", example), ("cut", cut(example))] {
            let mut group = c.benchmark_group(format!("template-{name}-{family}"));
            for (param, bytes) in SIZES {
                let reply = filled(unit, bytes);
                let request = Request::new(reply.as_str(), &tools);
                let calls = template::salvage(&request, shipped).len();
                assert!(family == "cut" || calls > 1000, "{name}: {calls} calls");
                group.throughput(Throughput::Bytes(reply.len() as u64));
                group.bench_function(BenchmarkId::new("toolfix-strict", param), |b| {
                    b.iter(|| template::salvage(black_box(&request), shipped))
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = timing::config();
    targets = templates
}
criterion_main!(benches);
