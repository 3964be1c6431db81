//! What is timed: toolfix and each peer, called the way a runtime would call it on a
//! complete reply, each returning how many calls it recovered. Every contender builds
//! and drops its own result inside the timed call, so each pays for its output.
//!
//! The peers are called as the conformance drivers in `adapters/` call them (the same
//! entry points, the same tool lists): dynamo-parsers through
//! `try_tool_call_parse_aggregate_finalize` with its `hermes` parser, smg's tool-parser
//! through its `qwen` parser's `parse_complete_with_tools`, agent-tool-parser-core
//! through `ToolParser::parse_calls` with the offered names as its allowlist.

use std::sync::OnceLock;

use agent_tool_parser_core::{ToolParser as AgentParser, ToolParserConfig};
use dynamo_parsers::tool_calling::ToolDefinition;
use dynamo_parsers::tool_calling::tools::try_tool_call_parse_aggregate_finalize;
use openai_protocol::common::Tool as SmgTool;
use serde_json::json;
use tool_parser::{ParserFactory, ToolParser as SmgParser};
use toolfix::salvage::{Allowlist, Request, salvage_under};
use toolfix::{Adapter, Profile};

/// One parser, ready for the tools of one input.
pub struct Contender {
    /// The criterion function name.
    pub name: &'static str,
    /// Whether it is toolfix, which must give exactly the class's number of calls.
    pub ours: bool,
    run: Box<dyn Fn(&str) -> usize>,
}

impl Contender {
    /// The number of calls it recovers from `text` (an error counts as none).
    pub fn calls(&self, text: &str) -> usize {
        (self.run)(text)
    }
}

/// toolfix under `strict` and `praisonai`, then each peer, for the offered `tools`.
pub fn contenders(tools: &'static [&'static str]) -> Vec<Contender> {
    vec![
        toolfix(tools, Profile::Strict, "toolfix-strict"),
        toolfix(tools, Profile::PraisonAi, "toolfix-praisonai"),
        dynamo_hermes(tools),
        smg_qwen(tools),
        agent_tool_parser(tools),
    ]
}

fn toolfix(tools: &'static [&'static str], profile: Profile, name: &'static str) -> Contender {
    let allowlist = Allowlist::new(tools.iter().copied());
    Contender {
        name,
        ours: true,
        run: Box::new(move |text| {
            let request = Request::new(text, &allowlist).adapter(Adapter::Ollama);
            salvage_under(&request, profile).map_or(0, |calls| calls.len())
        }),
    }
}

/// One current-thread tokio runtime drives the async APIs of dynamo-parsers and
/// tool-parser; `block_on` of a future that never waits costs well under a microsecond.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread tokio runtime")
    })
}

fn dynamo_hermes(tools: &[&str]) -> Contender {
    let tools: Vec<ToolDefinition> = tools
        .iter()
        .map(|name| ToolDefinition {
            name: (*name).to_owned(),
            parameters: Some(json!({"type": "object", "properties": {}})),
            strict: None,
        })
        .collect();
    Contender {
        name: "dynamo-parsers-hermes",
        ours: false,
        run: Box::new(move |text| {
            runtime()
                .block_on(try_tool_call_parse_aggregate_finalize(
                    text,
                    Some("hermes"),
                    Some(&tools),
                ))
                .map_or(0, |(calls, _)| calls.len())
        }),
    }
}

fn smg_qwen(tools: &[&str]) -> Contender {
    let tools: Vec<SmgTool> = tools
        .iter()
        .map(|name| {
            serde_json::from_value(json!({
                "type": "function",
                "function": {"name": name, "description": "",
                             "parameters": {"type": "object", "properties": {}}},
            }))
            .expect("an OpenAI tool entry")
        })
        .collect();
    let parser: Box<dyn SmgParser> = ParserFactory::new()
        .registry()
        .create_parser("qwen")
        .expect("tool-parser registers `qwen`");
    Contender {
        name: "smg-tool-parser-qwen",
        ours: false,
        run: Box::new(move |text| {
            runtime()
                .block_on(parser.parse_complete_with_tools(text, &tools))
                .map_or(0, |(_, calls)| calls.len())
        }),
    }
}

fn agent_tool_parser(tools: &[&str]) -> Contender {
    let config = ToolParserConfig {
        allowed_tools: Some(tools.iter().map(|name| (*name).to_owned()).collect()),
        ..ToolParserConfig::default()
    };
    let parser = AgentParser::with_config(config);
    Contender {
        name: "agent-tool-parser-core",
        ours: false,
        run: Box::new(move |text| parser.parse_calls(text).map_or(0, |calls| calls.len())),
    }
}
