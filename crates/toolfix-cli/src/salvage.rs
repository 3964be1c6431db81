//! `toolfix salvage`: recover the calls in a model reply, for a person.

use crate::Exit;
use std::io::Read;
use std::path::PathBuf;

use toolfix::py::Value;
use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Call, Request, salvage_under};
use toolfix::{Adapter, Profile};
use toolfix_harness::protocol::wire::{decode_line, encode_line};

#[derive(clap::Args)]
pub struct Args {
    /// The tool names offered to the model, comma-separated.
    #[arg(long, value_delimiter = ',', required_unless_present = "tools_file")]
    tools: Vec<String>,
    /// The tools offered, as a JSON list of OpenAI tool entries: their names, and the
    /// parameter schemas by which formats that write values as text type them.
    #[arg(long, value_name = "FILE", conflicts_with = "tools")]
    tools_file: Option<PathBuf>,
    /// The adapter the reply came through.
    #[arg(long, default_value = "ollama")]
    adapter: Adapter,
    /// The behaviour to reproduce.
    #[arg(long, default_value = "strict")]
    profile: Profile,
    /// The model's format as a response template: the name of one toolfix ships, or a
    /// JSON file (a template, or a tokenizer config holding one). The reply is read as it
    /// declares, with every guarantee kept, instead of by the built-in dialects
    /// (docs/dialects/README.md, "Your own format").
    #[arg(long, value_name = "NAME|FILE")]
    dialect: Option<PathBuf>,
    /// The reply to read (`-` or nothing: stdin).
    file: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let content = read_input(args.file.as_ref())?;
    let tools = match &args.tools_file {
        Some(path) => tools_from_file(path)?,
        None => Allowlist::new(args.tools.iter().map(String::as_str)),
    };
    let request = Request::new(content.as_str(), &tools).adapter(args.adapter);
    let outcome = match &args.dialect {
        Some(path) => {
            read_template(path, args.profile).map(|t| Ok(template::salvage(&request, &t)))?
        }
        None => salvage_under(&request, args.profile),
    };
    match outcome {
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

/// The template `--dialect` names: a shipped one, or the one in a file. `profile` must be
/// able to read it: `praisonai` reproduces the real package, which reads no template.
pub fn read_template(path: &PathBuf, profile: Profile) -> Result<Template, String> {
    if profile == Profile::PraisonAi {
        return Err(
            "--dialect: profile praisonai reads only what praisonaiagents 1.7.17 reads".into(),
        );
    }
    let shipped = path
        .to_str()
        .filter(|_| !path.exists())
        .and_then(Template::shipped);
    if let Some(template) = shipped {
        return Ok(template.clone());
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        let names = Template::SHIPPED.join(", ");
        format!(
            "{}: {e} (and no shipped template has that name: {names})",
            path.display()
        )
    })?;
    Template::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The allowlist of the OpenAI tool entries in `path`, with their schemas.
fn tools_from_file(path: &PathBuf) -> Result<Allowlist, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match decode_line(&text) {
        Ok(Value::List(entries)) => Ok(Allowlist::from_tool_entries(&entries)),
        Ok(_) => Err(format!(
            "{}: not a JSON list of tool entries",
            path.display()
        )),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
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
