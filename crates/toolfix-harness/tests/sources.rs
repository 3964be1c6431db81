//! Every spec case's `source` resolves inside the repository.
//!
//! A source is read with the reference grammar of `docs/spec-cases.md` ("source";
//! `sources/grammar.rs`): `behaviour §…` and `seed: …` point into `docs/behaviour.md`,
//! a path into the repository, `guarantees §…` into `docs/guarantees.md`. A source
//! resolves when it has at least one reference and every reference in it resolves. This
//! is a check of the repository, not part of the harness API.

#[path = "sources/grammar.rs"]
mod grammar;
#[path = "sources/repo.rs"]
mod repo;

use std::path::Path;

use repo::{Repo, anchor_for};
use toolfix_harness::suite::{Case, load_dir};

/// The repository root, from the crate directory the test runs in.
const ROOT: &str = "../..";

fn load_repo() -> Repo {
    Repo::load(Path::new(ROOT)).unwrap_or_else(|e| panic!("{e}"))
}

/// `Ok` if `source` has a reference and all of its references resolve, else the reasons.
fn check(repo: &Repo, source: &str) -> Result<(), String> {
    let references = grammar::parse(source);
    if references.is_empty() {
        return Err(
            "no reference (behaviour §…, seed: …, a repository path, guarantees §…)".to_owned(),
        );
    }
    let reasons: Vec<String> = references
        .iter()
        .filter_map(|r| r.clone().and_then(|r| repo.resolve(&r)).err())
        .collect();
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(reasons.join("; "))
    }
}

/// Every case of `spec-cases/`. Deep-nesting cases recurse about a thousand levels while
/// loading, so this runs on a thread with a large stack, as `tests/spec.rs` does.
fn load_cases() -> Vec<Case> {
    let load = || load_dir(&Path::new(ROOT).join("spec-cases"));
    let loaded = std::thread::Builder::new().stack_size(64 << 20).spawn(load);
    loaded
        .expect("a thread")
        .join()
        .expect("loading does not panic")
        .unwrap_or_else(|errors| {
            let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
            panic!("the spec cases do not load:\n{}", errors.join("\n"))
        })
}

#[test]
fn every_case_source_resolves() {
    let repo = load_repo();
    let cases = load_cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(&repo, &case.source)
                .err()
                .map(|why| format!("{}: {why}", case.id))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} case sources do not resolve:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn behaviour_headings_carry_their_labels_and_anchors() {
    let repo = load_repo();
    let doc = repo.behaviour();
    assert!(
        doc.malformed.is_empty(),
        "headings of docs/behaviour.md not of the form `<a id=\"ANCHOR\"></a>§LABEL — title`, \
         ANCHOR being `s` and the label's letters and digits (§2(e).4: {}):\n{}",
        anchor_for("2(e).4"),
        doc.malformed.join("\n")
    );
    let mut labels: Vec<&str> = doc.sections.iter().map(|s| s.label.as_str()).collect();
    labels.sort_unstable();
    let before = labels.len();
    labels.dedup();
    assert_eq!(
        labels.len(),
        before,
        "a label of docs/behaviour.md is used twice"
    );
}

#[test]
fn claim_titles_are_unique() {
    let repo = load_repo();
    let mut claims = repo.behaviour().claims.clone();
    assert!(!claims.is_empty(), "docs/behaviour.md §0 lists no claim");
    claims.sort_unstable();
    let duplicates: Vec<&String> = claims
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| &w[0])
        .collect();
    assert!(
        duplicates.is_empty(),
        "claim titles used twice: {duplicates:?}"
    );
}
