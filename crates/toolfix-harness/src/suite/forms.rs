//! The documented forms of each dialect (`docs/dialects/`): what `toolfix smoke` sends one
//! call of each, what a case's `form` key names, and what a driver's `forms` declaration
//! picks from (`docs/protocol.md`).

use std::sync::OnceLock;

use toolfix::Dialect;
use toolfix::salvage::template::Template;

/// The forms of dialect `template`: one per template toolfix ships, named as the template
/// is, its reply the template's own example (`Template::example`).
fn template_forms() -> &'static [Form] {
    static FORMS: OnceLock<Vec<Form>> = OnceLock::new();
    FORMS.get_or_init(|| {
        Template::SHIPPED
            .iter()
            .filter_map(|name| Some((*name, Template::example(name)?)))
            .collect()
    })
}

/// One documented form of a dialect: its name in check ids and a reply holding one
/// well-formed `get_weather(city="Paris")` call written that way.
pub type Form = (&'static str, &'static str);

/// The documented well-formed forms of `dialect` (`docs/dialects/`), the one the first
/// smoke releases checked first; empty for a dialect added to the core after this list.
///
/// A dialect is one name for what model families write in several ways (DeepSeek V3, V3.1
/// and V3.2; Mistral's array and v11; FunctionGemma and Gemma 4; Qwen's template puts
/// `<tool_call>` on a line of its own; a Harmony call is the reply's first message, a later
/// one after `<|start|>assistant`, or names its recipient in the role header), and an engine's parser is written for one family:
/// a parser that reads any one form of the dialect it declares speaks that dialect. The
/// full run then shows which forms it misses.
pub fn forms(dialect: Dialect) -> &'static [Form] {
    match dialect {
        Dialect::WholeJson => &[
            (
                "object",
                r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
            ),
            (
                "array",
                r#"[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
            ),
        ],
        Dialect::ToolCall => &[
            (
                "inline",
                "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",
            ),
            (
                "qwen-layout",
                "I'll check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            ),
        ],
        Dialect::Function => &[(
            "inline",
            "I'll check.\n<function=get_weather>{\"city\": \"Paris\"}</function>",
        )],
        Dialect::Bracket => &[
            (
                "tool-call",
                "I'll check.\n[TOOL_CALL]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}[/TOOL_CALL]",
            ),
            (
                "tool-request",
                "I'll check.\n[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}[END_TOOL_REQUEST]",
            ),
        ],
        Dialect::PythonTag => &[(
            "parameters",
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
        )],
        Dialect::React => &[(
            "thought-action-input",
            "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}",
        )],
        Dialect::LlamaJson => &[(
            "object",
            r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#,
        )],
        Dialect::Pythonic => &[
            ("list", r#"[get_weather(city="Paris")]"#),
            (
                "llama-4-tokens",
                r#"<|python_start|>[get_weather(city="Paris")]<|python_end|>"#,
            ),
            (
                "lfm2-tokens",
                r#"<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>Checking the weather in Paris."#,
            ),
            (
                "olmo-3",
                "<function_calls>\nget_weather(city=\"Paris\")\n</function_calls>",
            ),
        ],
        Dialect::Mistral => &[
            ("v11", r#"[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}"#),
            (
                "array",
                r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
            ),
            // SentencePiece tokenizers (v2 to v7) write a space after the token.
            (
                "array-after-a-space",
                r#"[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
            ),
        ],
        Dialect::QwenXml => &[(
            "qwen3-coder",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        )],
        Dialect::DeepSeek => &[
            (
                "v3-1",
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ),
            (
                "v3",
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ),
            (
                "v3-2-dsml",
                "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            ),
            (
                "v4",
                "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
            ),
            (
                "v4-1",
                "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"get_weather\">\n<｜DSML｜ parameter name=\"city\" string=\"true\">Paris</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>",
            ),
        ],
        Dialect::Glm => &[
            (
                "glm-4-5",
                "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            ),
            (
                "glm-4-7",
                "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
            ),
        ],
        Dialect::Kimi => &[(
            "k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
        )],
        Dialect::Harmony => &[
            (
                "commentary",
                "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            ),
            (
                "start-assistant",
                "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            ),
            (
                "role-header",
                "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|call|>",
            ),
        ],
        Dialect::Gemma => &[
            (
                "functiongemma",
                "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
            ),
            (
                "gemma-4",
                "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>",
            ),
        ],
        Dialect::MiniMax => &[(
            "m2",
            "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</minimax:tool_call>",
        )],
        Dialect::Granite => &[(
            "tool-call-token",
            r#"<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
        )],
        Dialect::Phi4 => &[
            (
                "functools",
                r#"functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
            ),
            (
                "tool-call-tokens",
                r#"<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|/tool_call|>"#,
            ),
        ],
        Dialect::Template => template_forms(),
        _ => &[],
    }
}

/// Whether `form` is a documented form of the dialect called `dialect`.
pub fn is_form_of(dialect: &str, form: &str) -> bool {
    dialect
        .parse::<Dialect>()
        .is_ok_and(|d| forms(d).iter().any(|(name, _)| *name == form))
}

/// The form names of the dialect called `dialect`, for messages.
pub fn names_of(dialect: &str) -> Vec<&'static str> {
    dialect
        .parse::<Dialect>()
        .map(|d| forms(d).iter().map(|(name, _)| *name).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shipped template is a form of dialect `template`, and nothing else is.
    #[test]
    fn the_template_forms_are_the_shipped_templates() {
        let names: Vec<&str> = template_forms().iter().map(|(name, _)| *name).collect();
        assert_eq!(names, Template::SHIPPED);
    }

    /// `docs/protocol.md`'s dialect table has a row for every dialect, naming its forms.
    #[test]
    fn the_protocol_page_lists_every_dialect_with_its_forms() {
        let page = include_str!("../../../../docs/protocol.md");
        for dialect in Dialect::ALL {
            let row = page
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", dialect.name())))
                .unwrap_or_else(|| panic!("no row for {}", dialect.name()));
            let listed = row.rsplit('|').nth(1).unwrap_or_default();
            let names: Vec<String> = forms(dialect)
                .iter()
                .map(|(name, _)| format!("`{name}`"))
                .collect();
            assert_eq!(listed.trim(), names.join(", "), "{}", dialect.name());
        }
    }
}
