//! The criterion settings every timed bench shares.

use std::time::Duration;

use criterion::Criterion;

/// Short runs: the report times about 200 benchmarks, and a 1 s warm-up and 3 s of samples
/// give each a stable point estimate on a quiet machine.
pub fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}
