//! An implementation that writes one 100 MB line: a protocol error for its case, read in
//! bounded memory. In a test binary of its own, so the process's peak resident set size
//! is this run's alone and not that of tests running beside it.

mod support;

use support::*;
use toolfix_harness::conform::Outcome;

#[test]
fn a_100_mb_stdout_line_is_a_protocol_error_in_bounded_memory() {
    let report = run("flood-stdout");
    assert_boom(&report, Outcome::Protocol, "longer than");
    let peak = peak_rss_bytes();
    assert!(peak < 100 * 1024 * 1024, "peak RSS {peak} bytes");
}

/// The test process's peak resident set size.
fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage writes into the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}
