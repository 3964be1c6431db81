//! The known-failures file an implementation keeps in its own repository: the cases it is
//! known to fail, each with a reason, so CI stays green and honest (toml-test's `-skip`
//! with `-skip-must-err`, test262 expectation files).
//!
//! ```toml
//! [[failure]]
//! id = "salvage-fence/*"            # a glob over case ids; `*` crosses `/`
//! reason = "masks fences inside JSON strings"
//! link = "https://example.org/issues/12"   # optional, may be empty
//! profile = "strict"                # optional: only under this profile
//! partial = true                    # optional: only some of the cases it matches fail
//! ```
//!
//! A failing case an entry matches is `xfail`; a passing one is `xpass`, unless the entry
//! is `partial` (a family whose members fail where a behaviour shows, such as the
//! streaming checks of every case with a call): its passing cases are passes. An entry
//! that matches no case of the suite under the profiles run is stale.

use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::kind::Kind;
use super::outcome::{Outcome, Verdict};
use super::report::{Family, failing_cases, failure_groups};
use super::result::{CaseResult, Known};
use crate::protocol::wire::encode_line;
use crate::suite::schema;
use toolfix::Profile;

/// One entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The id glob as written.
    pub id: String,
    pattern: glob::Pattern,
    pub reason: String,
    pub link: String,
    pub profile: Option<Profile>,
    /// Whether only some of the cases it matches are expected to fail.
    pub partial: bool,
    /// What kind of failure the case is and what it got, written above a new entry
    /// (never read back).
    pub comment: Option<String>,
}

impl Entry {
    fn covers(&self, id: &str, profile: Profile) -> bool {
        self.profile.is_none_or(|p| p == profile) && self.pattern.matches(id)
    }
}

/// A read known-failures file (empty when none was given).
#[derive(Clone, Debug, Default)]
pub struct KnownFailures {
    pub entries: Vec<Entry>,
}

/// A known-failures file's shape: the `[[failure]]` tables, nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    failure: Vec<Spanned<RawEntry>>,
}

/// One `[[failure]]` table as written: `id` and `reason` are checked in code, so every
/// entry missing one is reported with its line, not just the first.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    link: String,
    profile: Option<String>,
    #[serde(default)]
    partial: bool,
}

impl KnownFailures {
    /// Reads a file; every problem in it is reported, not just the first.
    pub fn load(path: &Path) -> Result<KnownFailures, Vec<String>> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| vec![format!("{}: cannot read: {e}", path.display())])?;
        KnownFailures::parse(&text).map_err(|errors| {
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", path.display()))
                .collect()
        })
    }

    /// Reads the text of a file: a key the format does not know, or a value of the wrong
    /// type, is the one error; otherwise every bad entry is reported. Each error starts
    /// with its line.
    pub fn parse(text: &str) -> Result<KnownFailures, Vec<String>> {
        let file: File = schema::parse(text).map_err(|e| {
            let at = e
                .line
                .map_or(String::new(), |line| format!("line {line}: "));
            vec![format!("{at}{}", e.message)]
        })?;
        let (entries, errors): (Vec<_>, Vec<_>) = file
            .failure
            .into_iter()
            .map(|item| {
                let line = schema::line_of(text, item.span().start);
                entry(item.into_inner()).map_err(|e| format!("line {line}: failure: {e}"))
            })
            .partition(Result::is_ok);
        if errors.is_empty() {
            Ok(KnownFailures {
                entries: entries.into_iter().filter_map(Result::ok).collect(),
            })
        } else {
            Err(errors.into_iter().filter_map(Result::err).collect())
        }
    }

    /// The first entry covering a case.
    fn covering(&self, id: &str, profile: Profile) -> Option<&Entry> {
        self.entries.iter().find(|e| e.covers(id, profile))
    }

    /// Turns covered failures into `xfail` and covered passes into `xpass`. `suite` is
    /// every case id of the suite under each profile run (filters aside); the result is
    /// the stale entries, described.
    pub fn apply(&self, results: &mut [CaseResult], suite: &[(&str, Profile)]) -> Vec<String> {
        for result in results.iter_mut() {
            let Some(entry) = self.covering(&result.id, result.profile) else {
                continue;
            };
            let was = result.outcome;
            result.outcome = match was {
                outcome if outcome.is_failure() => Outcome::Xfail,
                Outcome::Pass if !entry.partial => Outcome::Xpass,
                _ => continue,
            };
            result.known = Some(Known {
                id: entry.id.clone(),
                reason: entry.reason.clone(),
                link: entry.link.clone(),
                was,
            });
        }
        self.entries
            .iter()
            .filter(|e| !suite.iter().any(|(id, profile)| e.covers(id, *profile)))
            .map(|e| format!("known-failures entry {:?} matches no case", e.id))
            .collect()
    }
}

/// An entry from its table: an id that is a glob, a reason a person wrote, a known
/// profile.
fn entry(raw: RawEntry) -> Result<Entry, String> {
    let id = raw.id.ok_or("needs an id (a case id glob)")?;
    let pattern = glob::Pattern::new(&id).map_err(|e| format!("id {id:?} is not a glob: {e}"))?;
    let reason = raw
        .reason
        .filter(|r| !r.trim().is_empty())
        .ok_or("needs a reason")?;
    if reason.starts_with("TODO") {
        return Err(format!(
            "{id}: the reason is still the TODO that --write-known-failures wrote; say in one sentence what the implementation does here"
        ));
    }
    Ok(Entry {
        id,
        pattern,
        reason,
        link: raw.link,
        profile: raw.profile.map(|p| p.parse()).transpose()?,
        partial: raw.partial,
        comment: None,
    })
}

/// The reason `--write-known-failures` writes where it knows none: loading a file that
/// still holds it fails, so every entry ends up with a reason a person wrote.
pub const PLACEHOLDER: &str = "TODO: say in one sentence what the implementation does here";

/// A known-failures file for the current failures: the entries still covering a failure
/// as they were, then the new failures, grouped under a comment per rule
/// (`docs/guarantees.md`, safety first) and per case, with what the case got as a
/// comment. A case gets an entry for its batch result when that fails, and one
/// `CASE@*` entry for its streaming checks when some fail (`partial` unless every
/// check sent fails), so the ids are the same from run to run. Its reason is
/// `explain(result)` when that knows one (the case's own note on why implementations
/// differ there), else [`PLACEHOLDER`], which must be replaced.
pub fn write(
    known: &KnownFailures,
    results: &[CaseResult],
    strict: bool,
    explain: &dyn Fn(&CaseResult) -> Option<String>,
) -> String {
    let mut text = String::from(
        "# Known failures: cases this implementation is known to fail, each with why.\n",
    );
    text.push_str("# Written by `toolfix conform --write-known-failures`; see docs/conform.md.\n");
    text.push_str(
        "# Replace every TODO reason with one sentence: the file does not load until then.\n",
    );
    for entry in &known.entries {
        if results.iter().any(|r| {
            r.outcome == Outcome::Xfail && r.known.as_ref().is_some_and(|k| k.id == entry.id)
        }) {
            push_entry(&mut text, entry);
        }
    }
    for group in failure_groups(failing_cases(results, strict), strict) {
        let _ = write!(
            text,
            "\n# ---- {}: {} cases\n",
            group.heading(),
            group.cases.len()
        );
        for family in &group.cases {
            for entry in entries(family, strict, explain) {
                push_entry(&mut text, &entry);
            }
        }
    }
    text
}

/// The new entries of one failing case: its batch result, then its streaming checks.
fn entries(
    family: &Family<'_>,
    strict: bool,
    explain: &dyn Fn(&CaseResult) -> Option<String>,
) -> Vec<Entry> {
    let new = |r: &&CaseResult| r.outcome.is_failure() && r.verdict(strict) == Verdict::Failed;
    let failing: Vec<&CaseResult> = family.results.iter().copied().filter(new).collect();
    let (batch, streamed): (Vec<&CaseResult>, Vec<&CaseResult>) =
        failing.into_iter().partition(|r| r.chunking().is_none());
    let sent = family
        .results
        .iter()
        .filter(|r| r.chunking().is_some() && r.outcome != Outcome::Skip)
        .count();
    let id = glob::Pattern::escape(family.id);
    let batch = batch.first().map(|r| (id.clone(), *r, false));
    let streamed = streamed
        .first()
        .map(|r| (format!("{id}@*"), *r, streamed.len() < sent));
    batch
        .into_iter()
        .chain(streamed)
        .map(|(id, result, partial)| Entry {
            pattern: glob::Pattern::new(&id).expect("an escaped id is a glob"),
            reason: explain(result).unwrap_or_else(|| PLACEHOLDER.to_owned()),
            comment: Some(format!(
                "{}, got: {}",
                result.kind().map_or("failure", Kind::name),
                observed(result)
            )),
            id,
            link: String::new(),
            profile: Some(result.profile),
            partial,
        })
        .collect()
}

fn push_entry(text: &mut String, entry: &Entry) {
    let quoted = |s: &str| toml::Value::String(s.to_owned()).to_string();
    if let Some(comment) = &entry.comment {
        let _ = writeln!(text, "# {comment}");
    }
    let _ = writeln!(text, "[[failure]]\nid = {}", quoted(&entry.id));
    if let Some(profile) = entry.profile {
        let _ = writeln!(text, "profile = {}", quoted(profile.name()));
    }
    if entry.partial {
        let _ = writeln!(text, "partial = true");
    }
    let _ = writeln!(
        text,
        "reason = {}\nlink = {}\n",
        quoted(&entry.reason),
        quoted(&entry.link)
    );
}

/// What the case got, short and on one line: the chunking, then the output or the
/// message.
fn observed(result: &CaseResult) -> String {
    const SHOWN: usize = 160;
    let what = match (&result.actual, &result.message) {
        (Some(actual), _) => encode_line(actual),
        (None, Some(message)) => message.lines().next().unwrap_or_default().to_owned(),
        (None, None) => String::new(),
    };
    let short: String = what.chars().take(SHOWN).collect();
    let more = if what.chars().count() > SHOWN {
        "…"
    } else {
        ""
    };
    let chunking = result
        .chunking()
        .map_or(String::new(), |c| format!(" (first in {c})"));
    format!("{}{chunking} {short}{more}", result.outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_entry_is_reported_with_its_line() {
        let errors = KnownFailures::parse(
            "[[failure]]\nid = \"a/*\"\n\n[[failure]]\nreason = \"r\"\n\n[[failure]]\nid = \"[\"\nreason = \"r\"\n",
        )
        .unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].starts_with("line 1: ") && errors[0].contains("reason"));
        assert!(errors[1].starts_with("line 4: ") && errors[1].contains("id"));
        assert!(errors[2].starts_with("line 7: ") && errors[2].contains("glob"));
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let errors =
            KnownFailures::parse("[[failure]]\nid = \"x\"\nreason = \"r\"\nissue = \"\"\n")
                .unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("line 4: unknown field `issue`"),
            "{errors:?}"
        );
        let errors = KnownFailures::parse("[[failures]]\nid = \"x\"\n").unwrap_err();
        assert!(
            errors[0].starts_with("line 1: unknown field `failures`"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_written_placeholder_reason_does_not_load() {
        let text = format!("[[failure]]\nid = \"a/b\"\nreason = \"{PLACEHOLDER}\"\n");
        let errors = KnownFailures::parse(&text).unwrap_err();
        assert!(errors[0].contains("one sentence"), "{errors:?}");
    }

    #[test]
    fn an_entry_may_name_a_profile() {
        let known = KnownFailures::parse(
            "[[failure]]\nid = \"a/*\"\nreason = \"r\"\nprofile = \"strict\"\n",
        )
        .unwrap();
        assert!(known.covering("a/b/c", Profile::Strict).is_some());
        assert!(known.covering("a/b/c", Profile::PraisonAi).is_none());
        let stale = known.apply(&mut [], &[("a/b/c", Profile::PraisonAi)]);
        assert_eq!(stale.len(), 1);
    }
}
