//! The toolfix driver (docs/protocol.md) around smg's tool-call parsers, the crates.io
//! crate `tool-parser` 1.10.0 (formerly SGLang's router tool parser), called through its
//! public API: `ParserFactory::new().registry().create_parser(name)` gives a
//! `Box<dyn ToolParser>`, and `ToolParser::parse_complete_with_tools(content, &tools)` (the
//! complete, non-streaming parse, with the request's tools as `openai_protocol::common::Tool`)
//! gives `(normal_text, Vec<ToolCall>)`. The parser is the registry name given as the
//! first argument (default `json`); the dialects declared are the toolfix dialects that
//! parser's format is (see `PARSERS`).
//!
//! The protocol (a request line that is not JSON gets `errored`, a panic in the crate
//! becomes `errored` for that case, every answer is one flushed line) is the template's
//! library, `toolfix-driver` (templates/rust/src/lib.rs).

use std::io;
use std::sync::OnceLock;

use openai_protocol::common::Tool;
use serde_json::{Value, json};
use tool_parser::{ParserFactory, ToolParser};
use toolfix_driver::{Calls, Driver, Parser, Refusal};

/// The registry names this driver accepts, the toolfix dialects each one's format is
/// (docs/protocol.md), and whether `parse_complete` recovers a call whose closing marker is
/// missing (docs/guarantees.md), measured (README.md has the evidence).
#[rustfmt::skip]
const PARSERS: &[Parser] = &[
    // `JsonParser`: the reply is a JSON call object or array of them, `arguments` or
    // `parameters` (the factory's parser for gpt-*, claude-*, gemini-*, llama-* other than
    // 3.2, glm-* and gemma-* models)
    Parser { name: "json", dialects: &["whole_json", "llama_json"], unclosed_calls: false },
    // `QwenParser`: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` (Qwen 2/2.5/3)
    Parser { name: "qwen", dialects: &["tool_call"], unclosed_calls: false },
    // `LlamaParser`: `<|python_tag|>{"name": …, "parameters": …}` or the bare object
    // (Llama 3.2). It reads Llama's `parameters` key only, not whole_json's `arguments`.
    Parser { name: "llama", dialects: &["python_tag", "llama_json"], unclosed_calls: false },
    // `PythonicParser`: `[get_weather(city="Paris")]` (Llama 4)
    Parser { name: "pythonic", dialects: &["pythonic"], unclosed_calls: false },
    // `DeepSeek31Parser`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}…`
    Parser { name: "deepseek31", dialects: &["deepseek"], unclosed_calls: false },
    // `DeepSeekParser`: `…function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…` (V3)
    Parser { name: "deepseek", dialects: &["deepseek"], unclosed_calls: false },
    // `DeepSeekDsmlParser::v32()`: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME">…`
    Parser { name: "deepseek32", dialects: &["deepseek"], unclosed_calls: false },
    // `QwenXmlParser`: `<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>…`
    Parser { name: "qwen_xml", dialects: &["qwen_xml"], unclosed_calls: false },
    // `Glm4MoeParser::glm47()`: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…`
    Parser { name: "glm47_moe", dialects: &["glm"], unclosed_calls: false },
    // `KimiK2Parser`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0…`
    Parser { name: "kimik2", dialects: &["kimi"], unclosed_calls: false },
    // `MinimaxM2Parser`: `<minimax:tool_call>\n<invoke name="NAME">…`
    Parser { name: "minimax_m2", dialects: &["minimax"], unclosed_calls: false },
    // `MistralParser`: `[TOOL_CALLS] [{"name": …, "arguments": …}]`, Mistral's array form
    // (not v11's `[TOOL_CALLS]NAME[ARGS]{…}`, which this parser does not read)
    Parser { name: "mistral", dialects: &["mistral"], unclosed_calls: false },
    // `Gemma4Parser`: `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>` (Gemma 4; not
    // FunctionGemma's `<start_function_call>` form, which this parser does not read)
    Parser { name: "gemma4", dialects: &["gemma"], unclosed_calls: true },
];

/// One current-thread tokio runtime drives the crate's async API.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread tokio runtime")
    })
}

/// The driver around the parser chosen on the command line.
struct Smg {
    parser: &'static Parser,
    /// The parser instance, made once by the crate's factory from its registry name, on
    /// the first reply.
    instance: OnceLock<Box<dyn ToolParser>>,
}

impl Smg {
    fn tool_parser(&self) -> &dyn ToolParser {
        self.instance
            .get_or_init(|| {
                ParserFactory::new()
                    .registry()
                    .create_parser(self.parser.name)
                    .expect("a parser the crate registers")
            })
            .as_ref()
    }
}

impl Driver for Smg {
    type Tools = Vec<Tool>;

    /// Who we wrap.
    fn implementation(&self) -> Value {
        json!({"name": "tool-parser", "version": "1.10.0", "language": "rust",
               "parser": self.parser.name,
               "homepage": "https://github.com/smg-project/smg"})
    }

    /// What we declare: profile portable, salvage only, the chosen parser's dialects and
    /// policies (README.md has the evidence).
    fn declarations(&self) -> Value {
        self.parser.declarations()
    }

    /// The protocol's `tools` as the crate's `Tool`s: a string `S` is the OpenAI entry
    /// `{"type": "function", "function": {"name": S, "description": "", "parameters":
    /// {"type": "object", "properties": {}}}}`; any other entry (`{"$raw": V}` read as `V`)
    /// is deserialised as a `Tool` as given, and left out when it is not one (the crate's
    /// type cannot hold it).
    fn tools(&self, tools: &Value) -> Vec<Tool> {
        toolfix_driver::tool_entries(tools)
            .map(|tool| match tool {
                Value::String(name) => json!({
                    "type": "function",
                    "function": {"name": name, "description": "",
                                 "parameters": {"type": "object", "properties": {}}},
                }),
                entry => entry.clone(),
            })
            .filter_map(|entry| serde_json::from_value::<Tool>(entry).ok())
            .collect()
    }

    /// The calls `tool-parser` recovers from `content`: `(name, arguments as JSON text)`,
    /// in its order, the arguments exactly as the crate hands them out.
    fn salvage(&self, content: &str, tools: &Vec<Tool>) -> Result<Calls, Refusal> {
        let parsed =
            runtime().block_on(self.tool_parser().parse_complete_with_tools(content, tools));
        match parsed {
            Ok((_normal_text, calls)) => Ok(calls
                .into_iter()
                .map(|call| (call.function.name, call.function.arguments))
                .collect()),
            // The crate returned an error on this reply: an error answer
            // (docs/protocol.md), which no portable expectation accepts.
            Err(error) => Err(Refusal::Error(format!("ParserError: {error}"))),
        }
    }
}

fn main() -> io::Result<()> {
    toolfix_driver::serve(&Smg {
        parser: Parser::from_args(PARSERS),
        instance: OnceLock::new(),
    })
}
