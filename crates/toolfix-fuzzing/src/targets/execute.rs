//! The `execute` target: dispatch against generated registries.

use arbitrary::{Arbitrary, Unstructured};

use crate::registry::DispatchInput;
use toolfix::Profile;
use toolfix::dispatch::{Dispatch, Outcome, execute as dispatch, normalise};
use toolfix::py::str_of;
use toolfix::py::{PyStr, Value};

/// Dispatches a generated call under both profiles: `strict` never fails, a repair
/// targets a tool whose normalised name equals the requested one's, the corrective
/// error's inventory is sorted and unique, and what ran is a registered tool.
pub fn execute(data: &[u8]) {
    let Ok(input) = DispatchInput::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    for profile in crate::PROFILES {
        match dispatch(&input.registry, &input.name, &input.arguments, profile) {
            Ok(outcome) => {
                if let Err(violation) = check(&input, &outcome) {
                    panic!("{violation}\nunder {profile} for {input:#?}\ngot {outcome:#?}");
                }
            }
            Err(raised) => assert_eq!(profile, Profile::PraisonAi, "strict never fails: {raised}"),
        }
    }
}

/// The invariants of one dispatch.
fn check(input: &DispatchInput, outcome: &Dispatch) -> Result<(), String> {
    if let Some((requested, tool)) = outcome.repaired() {
        if normalise(&str_of(requested)) != normalise(tool) {
            return Err(format!("repaired {requested:?} to {tool:?}"));
        }
    }
    if outcome.outcome() == Outcome::NotFound {
        inventory_sorted(outcome.returned())?;
    }
    let ran = matches!(outcome.outcome(), Outcome::Ran | Outcome::Raised);
    match outcome.dispatched() {
        Some(name) if !input.tool_names.contains(name) => {
            Err(format!("dispatched {name:?}, which is no tool"))
        }
        Some(_) if !ran => Err("a body ran but the outcome says it did not".to_owned()),
        None if ran => Err("the outcome says a body ran but none did".to_owned()),
        _ => Ok(()),
    }
}

/// `available_tools` is a list of strings, strictly increasing (sorted and unique).
fn inventory_sorted(returned: &Value) -> Result<(), String> {
    let Some(Value::List(names)) = returned.get("available_tools") else {
        return Err(format!("no available_tools list in {returned:?}"));
    };
    let names: Option<Vec<&PyStr>> = names.iter().map(Value::as_py_str).collect();
    match names {
        Some(names) if names.windows(2).all(|w| w[0] < w[1]) => Ok(()),
        _ => Err(format!(
            "available_tools is not sorted and unique: {returned:?}"
        )),
    }
}
