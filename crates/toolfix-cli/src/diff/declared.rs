//! Whether a case is sent: both implementations must declare its op, agree on every
//! dialect it writes calls in (both declare it, or neither does: then the call is text
//! to both), and, for a salvage reply through a hosted adapter, both declare the
//! `adapters` policy (`docs/protocol.md`: only such drivers are told about them).

use toolfix_fuzzing::differential::Case;
use toolfix_harness::protocol::handshake::Handshake;

/// The adapters that never salvage, named only to drivers declaring `adapters`.
const HOSTED: [&str; 3] = ["default", "anthropic", "gemini"];

/// Whether `case` is sent to implementations that declared `a` and `b`.
pub fn sent(case: &Case, a: &Handshake, b: &Handshake) -> bool {
    let has_op = |h: &Handshake| h.ops.contains(&case.op);
    let reads = |h: &Handshake, d: &String| h.dialects.contains(d);
    let hosted = case.op == "salvage"
        && case
            .input
            .get("adapter")
            .and_then(|v| v.as_py_str())
            .and_then(|s| s.as_str())
            .is_some_and(|adapter| HOSTED.contains(&adapter));
    has_op(a)
        && has_op(b)
        && case.dialects.iter().all(|d| reads(a, d) == reads(b, d))
        && (!hosted || (a.policy("adapters") && b.policy("adapters")))
}
