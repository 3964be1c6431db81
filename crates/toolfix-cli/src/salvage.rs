//! `toolfix salvage`: recover the calls in a model reply, for a person.

use crate::Exit;
use std::io::Read;
use std::path::PathBuf;

use toolfix::py::Value;
use toolfix::salvage::{Allowlist, Call, Request, salvage_under};
use toolfix::{Adapter, Profile};
use toolfix_harness::protocol::wire::encode_line;

#[derive(clap::Args)]
pub struct Args {
    /// The tool names offered to the model, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    tools: Vec<String>,
    /// The adapter the reply came through.
    #[arg(long, default_value = "ollama")]
    adapter: Adapter,
    /// The behaviour to reproduce.
    #[arg(long, default_value = "strict")]
    profile: Profile,
    /// The reply to read (`-` or nothing: stdin).
    file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let content = read_input(args.file.as_ref())?;
    let tools = Allowlist::new(args.tools.iter().map(String::as_str));
    let request = Request::new(content.as_str(), &tools).adapter(args.adapter);
    match salvage_under(&request, args.profile) {
        Ok(calls) if calls.is_empty() => println!("no calls"),
        Ok(calls) => calls
            .iter()
            .for_each(|call| println!("{}", describe(call, &content))),
        Err(e) => {
            println!("error: {e}");
            return Ok(Exit::FAILURE);
        }
    }
    Ok(Exit::SUCCESS)
}

fn read_input(file: Option<&PathBuf>) -> Result<String, String> {
    match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("stdin: {e}"))?;
            Ok(text)
        }
    }
}

/// One call as a JSON line: name, arguments, dialect, span, and the text it came from.
fn describe(call: &Call, content: &str) -> String {
    let source = content.get(call.span()).unwrap_or_default();
    encode_line(&Value::dict([
        ("name", call.name().clone()),
        ("arguments", Value::Str(call.arguments_text().clone())),
        ("dialect", Value::str(call.dialect().name())),
        (
            "span",
            Value::List(vec![
                Value::int(call.span().start as i64),
                Value::int(call.span().end as i64),
            ]),
        ),
        ("text", Value::str(source)),
    ]))
}
