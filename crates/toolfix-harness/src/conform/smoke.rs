//! `toolfix smoke`: one trivial case per op and one well-formed call per dialect, to check a
//! driver speaks the protocol and recovers what it declares before a full run (Bowtie's
//! `smoke`). Each expectation is what the embedded reference answers, so the checks cannot
//! drift from the suite; a driver is sent the checks of the ops and dialects it declares.

use crate::protocol::message::Answer;
use crate::protocol::ops;
use crate::protocol::wire::decode_line;
use crate::suite::{Case, Expectation, Expected, Level};
use toolfix::Dialect;
use toolfix::Profile;
use toolfix::py::Value;

/// One built-in check of an op.
struct Check {
    id: &'static str,
    description: &'static str,
    op: &'static str,
    input: &'static str,
}

/// The op checks, in order.
const CHECKS: [Check; 4] = [
    Check {
        id: "salvage/smoke/clean-reply",
        description: "a reply without a call salvages to null",
        op: "salvage",
        input: r#"{"content": "It is sunny in Paris today.", "tools": ["get_weather"], "adapter": "ollama"}"#,
    },
    Check {
        id: "execute/smoke/exact-name",
        description: "a call by the exact name runs the tool",
        op: "execute",
        input: r#"{"tools": [{"name": "web_search", "params": [{"name": "query"}], "returns_template": "results for {query}"}], "call": {"name": "web_search", "arguments": {"query": "hello"}}}"#,
    },
    Check {
        id: "format_result/smoke/none-result",
        description: "a None result formats as a tool message",
        op: "format_result",
        input: r#"{"adapter": "ollama", "function_name": "get_weather", "tool_result": null, "tool_call_id": "call_1"}"#,
    },
    Check {
        id: "turn/smoke/native-call",
        description: "a native call by the exact name runs the tool, and the next answer ends the turn",
        op: "turn",
        input: r#"{"tools": [{"name": "get_weather", "params": [{"name": "city"}], "returns_template": "{city}: 21C"}], "adapter": "default", "loop": "sync", "replies": [{"content": null, "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}, {"content": "It is 21C in Paris."}]}"#,
    },
];

/// A reply holding one well-formed `get_weather(city="Paris")` call in `dialect` (none for
/// a dialect added to the core after this list).
fn sample(dialect: Dialect) -> Option<&'static str> {
    Some(match dialect {
        Dialect::WholeJson => r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
        Dialect::ToolCall => {
            "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"
        }
        Dialect::Function => "I'll check.\n<function=get_weather>{\"city\": \"Paris\"}</function>",
        Dialect::Bracket => {
            "I'll check.\n[TOOL_CALL]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}[/TOOL_CALL]"
        }
        Dialect::PythonTag => {
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}"
        }
        Dialect::React => {
            "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}"
        }
        Dialect::LlamaJson => r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#,
        Dialect::Pythonic => r#"[get_weather(city="Paris")]"#,
        Dialect::Mistral => r#"[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}"#,
        Dialect::QwenXml => {
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
        }
        Dialect::DeepSeek => {
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        }
        Dialect::Glm => {
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
        }
        Dialect::Kimi => {
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>"
        }
        Dialect::Harmony => {
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>"
        }
        Dialect::Gemma => {
            "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>"
        }
        Dialect::MiniMax => {
            "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</minimax:tool_call>"
        }
        Dialect::Granite => {
            r#"<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#
        }
        Dialect::Phi4 => r#"functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
        _ => return None,
    })
}

/// The checks as cases: one per op, then one per dialect, each expecting under every
/// profile what the reference answers.
pub fn cases() -> Vec<Case> {
    let ops = CHECKS.iter().filter_map(|check| {
        let input = decode_line(check.input.as_bytes()).ok()?;
        case(check.id.to_owned(), check.op, input, &[], check.description)
    });
    let dialects = Dialect::ALL.into_iter().filter_map(|dialect| {
        let input = Value::dict([
            ("content", Value::str(sample(dialect)?)),
            ("tools", Value::List(vec![Value::str("get_weather")])),
            ("adapter", Value::str("ollama")),
        ]);
        let id = format!("salvage/smoke/dialect-{}", dialect.name());
        let description = "one well-formed call of the dialect salvages to that call";
        case(id, "salvage", input, &[dialect.name()], description)
    });
    ops.chain(dialects).collect()
}

/// What a check is about, by case id.
pub fn description(id: &str) -> &'static str {
    match CHECKS.iter().find(|c| c.id == id) {
        Some(check) => check.description,
        None if id.starts_with("salvage/smoke/dialect-") => {
            "one well-formed call of the dialect salvages to that call"
        }
        None => "",
    }
}

fn case(id: String, op: &str, input: Value, dialects: &[&str], description: &str) -> Option<Case> {
    let expectations = Profile::ALL
        .into_iter()
        .map(|profile| match ops::run(op, &input, profile) {
            Answer::Output(output) => Some(Expectation {
                profile,
                expected: Expected::Output(output),
                level: Level::Must,
                deviation: None,
                rule: None,
                accepted: Vec::new(),
            }),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Case {
        id,
        op: op.to_owned(),
        input,
        tags: vec!["smoke".to_owned()],
        dialects: dialects.iter().map(|d| (*d).to_owned()).collect(),
        source: format!("toolfix smoke: {description}"),
        policies: Vec::new(),
        documented: None,
        expectations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_and_dialect_has_a_check_under_every_profile() {
        let cases = cases();
        assert_eq!(cases.len(), CHECKS.len() + Dialect::ALL.len());
        assert!(
            cases
                .iter()
                .all(|c| c.expectations.len() == Profile::ALL.len())
        );
        // `salvage_stream` is checked by the streaming variants of these cases
        // (`conform::streaming`), not by a check of its own.
        for op in ops::OPS.into_iter().filter(|op| *op != "salvage_stream") {
            assert!(cases.iter().any(|c| c.op == op), "{op}");
        }
    }

    #[test]
    fn each_dialect_sample_is_one_call_in_the_reference() {
        for dialect in Dialect::ALL {
            let case = cases()
                .into_iter()
                .find(|c| c.dialects == [dialect.name()])
                .expect("a check per dialect");
            let strict = case
                .expectation(Profile::Strict)
                .expect("a strict expectation");
            let output = &strict.expected;
            let Expected::Output(output) = output else {
                panic!("{dialect:?}: an error");
            };
            let calls = crate::suite::semantic::calls(output).expect("calls");
            assert_eq!(calls.len(), 1, "{dialect:?}");
        }
    }
}
