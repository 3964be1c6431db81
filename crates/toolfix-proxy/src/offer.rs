//! What a chat-completions request offers: its tools as salvage's allowlist.

use serde_json::Value as Json;
use toolfix::Profile;
use toolfix::py::json::{DecodeLimits, loads};
use toolfix::py::{PyStr, Value};
use toolfix::salvage::Allowlist;

/// The tools one request offers, and the profile its reply is salvaged under.
#[derive(Debug)]
pub(crate) struct Offer {
    pub tools: Allowlist,
    pub profile: Profile,
    /// The request's `tools` as sent, for shadow lines.
    pub entries: Json,
}

/// Nesting the tool list may have: schemas are shallow, and salvage reads nothing deeper.
const LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 512,
    int_max_str_digits: None,
};

impl Offer {
    /// The offer of `request` (a parsed body), or `None` when it offers no tool a call
    /// could name: no `tools`, an empty list, or `tool_choice: "none"`. Such a request
    /// and its reply are relayed byte for byte.
    pub fn of(request: &Json, profile: Profile) -> Option<Offer> {
        let entries = request.get("tools")?;
        if entries.as_array().is_none_or(Vec::is_empty) {
            return None;
        }
        if request.get("tool_choice").and_then(Json::as_str) == Some("none") {
            return None;
        }
        // The core reads tool entries as Python values; JSON text is the one bridge.
        let Ok(Value::List(values)) = loads(entries.to_string().as_bytes(), LIMITS) else {
            return None;
        };
        let tools = Allowlist::from_tool_entries_under(&values, profile).ok()?;
        (!tools.is_empty()).then(|| Offer {
            tools,
            profile,
            entries: entries.clone(),
        })
    }

    /// Whether a call the server parsed names an offered tool.
    pub fn offers(&self, name: &str) -> bool {
        self.tools.contains(&PyStr::from(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_are_offered_unless_none_or_refused() {
        let tool = json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}});
        let offer = Offer::of(&json!({"tools": [tool]}), Profile::Strict).unwrap();
        assert!(offer.offers("get_weather"));
        assert!(!offer.offers("wire_transfer"));
        assert!(Offer::of(&json!({"messages": []}), Profile::Strict).is_none());
        assert!(Offer::of(&json!({"tools": []}), Profile::Strict).is_none());
        assert!(
            Offer::of(
                &json!({"tools": [tool], "tool_choice": "none"}),
                Profile::Strict
            )
            .is_none()
        );
    }
}
