//! The five input classes of issue 15, built from toolfix's own benchmark inputs
//! (`crates/toolfix/benches/inputs`) where they already exist, so the peers are timed on
//! the very bytes the main benches time toolfix on.

use crate::inputs::{self, MIB};

/// One input class: its bytes, the tool names offered with it, and how many calls
/// toolfix must recover from it (checked before timing).
pub struct Class {
    /// The criterion group: what kind of reply this is.
    pub name: &'static str,
    pub text: String,
    pub tools: &'static [&'static str],
    pub calls: usize,
}

/// Every class, in the order of the table.
pub fn classes() -> Vec<Class> {
    vec![
        Class {
            name: "peers-clean-prose",
            text: inputs::clean_prose(MIB),
            tools: &inputs::REPLY_TOOLS,
            calls: 0,
        },
        Class {
            name: "peers-action-prose",
            text: action_prose(),
            tools: &inputs::REPLY_TOOLS,
            calls: 0,
        },
        call_heavy(),
        adversarial("peers-tool_call-open-brace", "tool_call-unclosed"),
        Class {
            name: "peers-tool_call-bare",
            text: "<tool_call>".repeat(MIB / "<tool_call>".len()),
            tools: &inputs::ADVERSARIAL_TOOLS,
            calls: 0,
        },
    ]
}

/// 1 MiB of prose with `action` after every 50th word, and the `-ction` words
/// (*function*, *instructions*) of the shared sentences: the main benches'
/// `action-every-50-words` at 1 MiB.
fn action_prose() -> String {
    inputs::prose_replies()
        .into_iter()
        .find(|r| r.group == "action-every-50-words" && r.len() == MIB)
        .expect("the 1 MiB action prose")
        .text
}

/// 256 KiB of Hermes/Qwen calls in the form Qwen's chat template writes
/// (`<tool_call>\n{…}\n</tool_call>`, one per line), the only form every peer reads.
fn call_heavy() -> Class {
    const CITIES: [&str; 8] = [
        "Paris", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague", "Oslo", "Dublin",
    ];
    let mut text = String::new();
    let mut calls = 0;
    loop {
        let call = format!(
            "<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{}\", \"units\": \"metric\"}}}}\n</tool_call>\n",
            CITIES[calls % CITIES.len()]
        );
        if text.len() + call.len() > 256 * 1024 {
            break;
        }
        text.push_str(&call);
        calls += 1;
    }
    Class {
        name: "peers-calls-256KiB",
        text,
        tools: &inputs::REPLY_TOOLS,
        calls,
    }
}

/// The main benches' adversarial family `family` at 1 MiB.
fn adversarial(name: &'static str, family: &str) -> Class {
    let family = inputs::FAMILIES
        .iter()
        .find(|f| f.name == family)
        .expect("a family of the main benches");
    let reply = inputs::adversarial_reply(family, MIB);
    Class {
        name,
        calls: reply.calls,
        text: reply.text,
        tools: &inputs::ADVERSARIAL_TOOLS,
    }
}
