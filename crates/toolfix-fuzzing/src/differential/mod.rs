//! Generated protocol cases for `toolfix diff`, which sends each to two implementations
//! and compares their answers (`docs/differential.md`).
//!
//! Each op has generator families: `salvage` replies come from the reply grammar
//! ([`salvage`], [`crate::reply`]), some then mutated ([`mutation`]), `execute` inputs are registries of Python signatures
//! and the calls made against them ([`signature`], [`execute`]), `format_result` inputs
//! are tool results of every shape ([`format_result`]). Case `i` of op `X` under seed
//! `S` is drawn from its own stream ([`rng`]), so one case is regenerated without the
//! others, and a run is the same on every machine.

pub mod execute;
pub mod format_result;
pub mod mutation;
pub mod rng;
pub mod salvage;
pub mod signature;
pub mod spelling;
pub mod tool_list;
pub mod wire_value;

use toolfix::py::Value;

use rng::Rng;

/// The ops cases are generated for.
pub const OPS: [&str; 3] = ["salvage", "execute", "format_result"];

/// The families whose inputs are malformed on purpose: there, both implementations
/// refusing the input (`errored`) is the agreement expected; anywhere else it is not.
pub const REFUSED_ON_PURPOSE: [(&str, &str); 1] = [("execute", "invalid_signature")];

/// One generated case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The protocol op.
    pub op: String,
    /// The generator family, for the report's counts.
    pub family: String,
    /// Its index among the op's cases: with the seed, all it takes to generate it again.
    pub index: u64,
    /// The op's input.
    pub input: Value,
    /// The salvage dialects it writes calls in (empty for the other ops).
    pub dialects: Vec<String>,
}

/// Case `index` of `op` under `seed`; `None` for an op with no generator.
pub fn generate(seed: &str, op: &str, index: u64) -> Option<Case> {
    let mut rng = Rng::for_case(seed, op, index);
    let (family, input, dialects) = match op {
        "salvage" => {
            let case = salvage::generate(&mut rng);
            (case.family, case.input, case.dialects)
        }
        "execute" => {
            let (family, input) = execute::generate(&mut rng);
            (family, input, Vec::new())
        }
        "format_result" => {
            let (family, input) = format_result::generate(&mut rng);
            (family, input, Vec::new())
        }
        _ => return None,
    };
    Some(Case {
        op: op.to_owned(),
        family: family.to_owned(),
        index,
        input,
        dialects: dialects.into_iter().map(str::to_owned).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolfix_harness::protocol::wire::encode_line;

    #[test]
    fn a_case_is_the_same_each_time() {
        for op in OPS {
            for index in 0..50 {
                let a = generate("7", op, index).unwrap();
                let b = generate("7", op, index).unwrap();
                assert_eq!(encode_line(&a.input), encode_line(&b.input), "{op} {index}");
                assert_eq!(a.family, b.family);
            }
        }
    }

    #[test]
    fn every_family_is_drawn() {
        let families = |op: &str, cases| {
            let mut seen: Vec<String> = (0..cases)
                .map(|i| generate("1", op, i).unwrap().family)
                .collect();
            seen.sort();
            seen.dedup();
            seen
        };
        assert_eq!(families("execute", 600).len(), execute::FAMILIES.len());
        assert_eq!(
            families("format_result", 600).len(),
            format_result::FAMILIES.len()
        );
        let salvage = families("salvage", 300);
        for family in [
            "whole_json",
            "tool_call",
            "react",
            "fenced",
            "truncated",
            "deep",
        ] {
            assert!(salvage.iter().any(|f| f == family), "{family}: {salvage:?}");
        }
    }
}
