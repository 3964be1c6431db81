//! Dispatch against registries of 10, 100 and 1,000 tools: an exact name, a drifted name
//! that self-repair resolves (`GetWeather` → `get_weather`), and an unknown name that gets
//! the corrective error with its difflib suggestion and the sorted inventory.
//!
//! Every case is checked before it is timed: the right tool runs, or the corrective error
//! is exactly the expected text, suggestion included.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolfix::Profile;
use toolfix::dispatch::execute;
use toolfix::py::Value;

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
mod inputs;
mod timing;

fn dispatch(c: &mut Criterion) {
    let cases: Vec<_> = inputs::REGISTRY_SIZES
        .into_iter()
        .flat_map(inputs::dispatch_cases)
        .collect();
    for kind in ["exact", "repair", "not-found"] {
        let mut group = c.benchmark_group(format!("dispatch-{kind}"));
        for case in cases.iter().filter(|case| case.kind == kind) {
            let registry = case.registry();
            let name = Value::str(&case.requested);
            let arguments = case.arguments();
            for (profile, id) in [
                (Profile::PraisonAi, "toolfix-praisonai"),
                (Profile::Strict, "toolfix-strict"),
            ] {
                case.check(&registry, profile);
                group.bench_function(BenchmarkId::new(id, case.param()), |b| {
                    b.iter(|| execute(&registry, black_box(&name), &arguments, profile))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = timing::config();
    targets = dispatch
}
criterion_main!(benches);
