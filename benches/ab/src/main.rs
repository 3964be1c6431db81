//! One dialect family's 1 MiB reply (`inputs::DIALECT_FAMILIES`) salvaged under `strict` by
//! this checkout and by a base commit, alternately, so that whatever else the machine is
//! doing hits both alike; prints each one's minimum, tenth percentile and median.
//!
//! On a shared VM, criterion's means of one build move by 15 % between runs; run by run in
//! one process, a change of a few percent shows. Usage: `toolfix-ab FAMILY RUNS` (through
//! `run.sh`, which builds the base).

use std::hint::black_box;
use std::time::Instant;

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
#[path = "../../../crates/toolfix/benches/inputs/mod.rs"]
mod inputs;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [family, runs] = args.as_slice() else {
        panic!("usage: toolfix-ab FAMILY RUNS");
    };
    let runs: usize = runs.parse().expect("a number of runs");
    let family = inputs::DIALECT_FAMILIES
        .iter()
        .find(|f| f.name == family)
        .unwrap_or_else(|| panic!("no dialect family is called {family:?}"));
    let reply = inputs::adversarial_reply(family, inputs::MIB);
    let tools = reply.allowlist();
    let request = reply.request(&tools);
    let base_tools = base::salvage::Allowlist::new(reply.tools.iter().copied());
    let base_request = base::salvage::Request::new(reply.text.as_str(), &base_tools)
        .adapter(base::Adapter::Ollama)
        .profile(base::Profile::Strict);
    let (mut this, mut base) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        base.push(timed(reply.calls, || {
            base::salvage::salvage(black_box(&base_request))
                .expect("base salvage succeeds")
                .len()
        }));
        this.push(timed(reply.calls, || {
            toolfix::salvage::salvage(black_box(&request)).len()
        }));
    }
    println!(
        "{}: base {} | this {}",
        family.name,
        summary(&mut base),
        summary(&mut this)
    );
}

/// Milliseconds one salvage takes, checked to give the reply's `calls`.
fn timed(calls: usize, salvage: impl Fn() -> usize) -> f64 {
    let start = Instant::now();
    let given = salvage();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(given, calls, "calls recovered");
    ms
}

/// The minimum, tenth percentile and median of `times`.
fn summary(times: &mut [f64]) -> String {
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times[(times.len() - 1) * q / 100];
    format!("min {:.2} p10 {:.2} median {:.2} ms", at(0), at(10), at(50))
}
