//! Counts of outcomes per op and per generator family, and the report's summary lines.

use std::collections::BTreeMap;

use super::judge::Outcome;

/// Counts per op, and per op and family.
#[derive(Default)]
pub struct Tally {
    by_op: BTreeMap<String, Counts>,
    by_family: BTreeMap<(String, String), Counts>,
}

/// How many cases came to each outcome.
#[derive(Clone, Default)]
struct Counts(BTreeMap<Outcome, usize>);

impl Counts {
    fn add(&mut self, outcome: Outcome) {
        *self.0.entry(outcome).or_default() += 1;
    }

    fn get(&self, outcome: Outcome) -> usize {
        self.0.get(&outcome).copied().unwrap_or(0)
    }

    /// `N cases, N same, N different, …`: `different` always, the others when not 0.
    fn line(&self) -> String {
        let cases: usize = self.0.values().sum();
        let mut parts = vec![format!("{cases} cases")];
        for outcome in Outcome::ALL {
            let n = self.get(outcome);
            if n > 0 || outcome == Outcome::Different {
                parts.push(format!("{n} {}", outcome.name()));
            }
        }
        parts.join(", ")
    }
}

impl Tally {
    /// Counts one case.
    pub fn add(&mut self, op: &str, family: &str, outcome: Outcome) {
        self.by_op.entry(op.to_owned()).or_default().add(outcome);
        let key = (op.to_owned(), family.to_owned());
        self.by_family.entry(key).or_default().add(outcome);
    }

    /// The cases of every op that came to `outcome`.
    pub fn total(&self, outcome: Outcome) -> usize {
        self.by_op.values().map(|c| c.get(outcome)).sum()
    }

    /// The cases both implementations answered with an output or a refusal compared:
    /// what `--min-compared` counts.
    pub fn compared(&self) -> usize {
        self.total(Outcome::Same) + self.total(Outcome::Different)
    }

    /// One line per op in `ops` order, each followed by a line per family.
    pub fn lines(&self, ops: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for op in ops {
            let Some(counts) = self.by_op.get(*op) else {
                continue;
            };
            out.push(format!("{op}: {}", counts.line()));
            for ((_, family), counts) in self.by_family.iter().filter(|((o, _), _)| o == op) {
                out.push(format!("    {family:<22} {}", counts.line()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_op_and_family() {
        let mut tally = Tally::default();
        tally.add("salvage", "react", Outcome::Same);
        tally.add("salvage", "react", Outcome::Different);
        tally.add("salvage", "prose", Outcome::NotSent);
        assert_eq!(tally.compared(), 2);
        assert_eq!(
            tally.lines(&["salvage", "execute"]),
            [
                "salvage: 3 cases, 1 same, 1 different, 1 not sent",
                "    prose                  1 cases, 0 different, 1 not sent",
                "    react                  2 cases, 1 same, 1 different",
            ]
        );
    }
}
