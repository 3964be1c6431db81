//! Which cases a run covers, and which of them are sent.
//!
//! A case is in the run when it applies to the profile and passes the filters; filtered
//! cases are left out of the report altogether (as toml-test's `-run`). A case in the run
//! whose op, dialects or policies the implementation's declarations leave out is a `skip`
//! with the reason, and is never sent.

use crate::protocol::handshake::Handshake;
use crate::suite::{Case, Expectation, Level};
use toolfix::{Adapter, Profile};

/// The `--id`, `--tag` and `--level` filters and their `--exclude-*` opposites; an empty
/// list lets everything through.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Case id globs; a case matching any is in.
    pub ids: Vec<glob::Pattern>,
    /// Tags; a case with any is in.
    pub tags: Vec<String>,
    /// Levels; a case whose expectation has any is in.
    pub levels: Vec<Level>,
    /// Case id globs; a case matching any is out.
    pub exclude_ids: Vec<glob::Pattern>,
    /// Tags; a case with any is out.
    pub exclude_tags: Vec<String>,
}

impl Filter {
    /// Whether the case, under this expectation, is in the run.
    pub fn selects(&self, case: &Case, expectation: &Expectation) -> bool {
        (self.ids.is_empty() || self.ids.iter().any(|p| p.matches(&case.id)))
            && (self.tags.is_empty() || case.tags.iter().any(|t| self.tags.contains(t)))
            && (self.levels.is_empty() || self.levels.contains(&expectation.level))
            && !self.exclude_ids.iter().any(|p| p.matches(&case.id))
            && !case.tags.iter().any(|t| self.exclude_tags.contains(t))
    }
}

/// One case of a run.
#[derive(Clone, Debug)]
pub struct Planned<'a> {
    pub case: &'a Case,
    pub expectation: &'a Expectation,
    /// Why it is not sent, when it is not.
    pub skip: Option<String>,
}

/// The cases of a run under `profile`, in suite order.
pub fn plan<'a>(
    cases: &'a [Case],
    profile: Profile,
    filter: &Filter,
    declared: &Handshake,
) -> Vec<Planned<'a>> {
    cases
        .iter()
        .filter_map(|case| {
            let expectation = case.expectation(profile)?;
            filter.selects(case, expectation).then(|| Planned {
                case,
                expectation,
                skip: undeclared(case, declared),
            })
        })
        .collect()
}

/// What the case needs that the implementation did not declare.
fn undeclared(case: &Case, declared: &Handshake) -> Option<String> {
    if !declared.ops.contains(&case.op) {
        return Some(format!(
            "the implementation does not declare op {:?}",
            case.op
        ));
    }
    if let Some(dialect) = case
        .dialects
        .iter()
        .find(|d| !declared.dialects.contains(d))
    {
        return Some(format!(
            "the implementation does not declare dialect {dialect:?}"
        ));
    }
    let (policy, needed) = required_policies(case).find(|(p, v)| declared.policy(p) != *v)?;
    Some(format!(
        "the case is about policy {policy} = {needed}; the implementation declares {}",
        !needed
    ))
}

/// The policies a case needs declared as it says: its own `policies`, and `adapters`
/// for a salvage through a hosted adapter (whose answer is "no salvage" only for an
/// implementation that tells adapters apart).
fn required_policies(case: &Case) -> impl Iterator<Item = (&str, bool)> {
    let hosted = case.op == "salvage"
        && case
            .input
            .get("adapter")
            .and_then(|a| a.as_py_str()?.as_str()?.parse::<Adapter>().ok())
            .is_some_and(|a| !a.policy().salvages_text);
    let explicit = case.policies.iter().map(|(p, v)| (p.as_str(), *v));
    explicit.chain(hosted.then_some(("adapters", true)))
}
