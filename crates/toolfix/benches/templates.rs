//! The shipped response templates (`salvage::template`) on replies of 256 KiB and 1 MiB
//! (`template_replies`: each template's example calls back to back, `-calls`, and cut,
//! `-cut`). Timed under `strict`, in the dialect families' format (BENCHMARKS.md, "The
//! dialects only `strict` recovers"): `cargo bench -p toolfix --features template --bench
//! templates`.

mod template_replies;
mod timing;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Request};

const SIZES: [(&str, usize); 2] = [("256KiB", 256 << 10), ("1MiB", 1 << 20)];

fn templates(c: &mut Criterion) {
    let tools = Allowlist::new(["get_weather"]);
    for name in Template::SHIPPED {
        let shipped = Template::shipped(name).expect("a shipped template");
        for family in template_replies::FAMILIES {
            let mut group = c.benchmark_group(format!("template-{name}-{family}"));
            for (param, bytes) in SIZES {
                let reply = template_replies::reply(name, family, bytes).expect("a reply");
                let request = Request::new(reply.as_str(), &tools);
                let calls = template::salvage(&request, shipped).len();
                // A flood holds a call at least every KiB (plamo3's, the longest, is 330 bytes).
                let flood = calls >= bytes >> 10;
                assert!(
                    family == "cut" || flood,
                    "{name}: {calls} calls in {bytes} bytes"
                );
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
