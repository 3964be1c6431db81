//! The spec cases (`spec-cases/`) against the reference, one test per case file.
//!
//! Every expectation must be met, `may` ones included: the reference's answer is what the
//! suite records for implementation-defined cases. `TOOLFIX_CASES=<glob>` limits the run to
//! matching case ids (`TOOLFIX_CASES='salvage-fence/*' cargo test --test spec`).

use std::path::Path;

use toolfix_harness::protocol::handshake::Handshake;
use toolfix_harness::protocol::message::Answer;
use toolfix_harness::protocol::ops;
use toolfix_harness::protocol::wire::encode_line;
use toolfix_harness::suite::{Case, Expectation, load_file};

/// Deep-nesting cases (CPython's recursion limits) recurse about a thousand levels in a
/// few value operations; test threads get 2 MiB of stack by default.
const STACK: usize = 64 << 20;

fn run_file(path: &Path) -> datatest_stable::Result<()> {
    let path = path.to_owned();
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || check_file(&path).map_err(|e| e.to_string()))?
        .join()
        .map_err(|_| "the case run panicked")??;
    Ok(())
}

fn check_file(path: &Path) -> datatest_stable::Result<()> {
    let cases = load_file(Path::new("../../spec-cases"), path).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let filter = std::env::var("TOOLFIX_CASES")
        .ok()
        .map(|g| glob::Pattern::new(&g))
        .transpose()?;
    let failures: Vec<String> = cases
        .iter()
        .filter(|case| filter.as_ref().is_none_or(|f| f.matches(&case.id)))
        .flat_map(|case| {
            case.expectations
                .iter()
                .filter_map(move |e| failure(case, e))
        })
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} failing:\n\n{}", failures.len(), failures.join("\n\n")).into())
    }
}

/// The reference's answer to a case under one profile, described when it misses. A case
/// about a policy the reference does not declare as the case needs it under that profile
/// is skipped, as `toolfix conform` skips it.
fn failure(case: &Case, expectation: &Expectation) -> Option<String> {
    let declared = Handshake::reference(expectation.profile);
    if case.policies.iter().any(|(p, v)| declared.policy(p) != *v) {
        return None;
    }
    let answer = ops::run(&case.op, &case.input, expectation.profile);
    let actual = match &answer {
        Answer::Output(output) if expectation.is_met_by(&case.op, output) => return None,
        Answer::Output(output) => encode_line(output),
        other => format!("{other:?}"),
    };
    Some(format!(
        "{} [{}]\n  source:   {}\n  expected: {}\n  actual:   {}",
        case.id, expectation.profile, case.source, expectation.expected, actual
    ))
}

datatest_stable::harness! {
    { test = run_file, root = "../../spec-cases", pattern = r"\.toml$" },
}
