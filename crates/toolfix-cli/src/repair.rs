//! `toolfix repair`: dispatch one call against a few tools, for a person exploring name
//! repair, corrective errors and bind hints.
//!
//! ```text
//! $ toolfix repair --tool 'web_search(query, limit=5)' --tools calculator WebSearch '{"q": "x"}'
//! ```

use crate::Exit;

use toolfix::Profile;
use toolfix::dispatch::{Registry, Tool, execute};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::{Param, ParamKind};
use toolfix_harness::protocol::wire::{decode_line, encode_line};

#[derive(clap::Args)]
pub struct Args {
    /// A tool as a Python signature, `name(a, b=5, *args, c, **kw)`; defaults are JSON;
    /// `/` and `*` mark positional-only and keyword-only parameters (repeatable).
    #[arg(long = "tool", value_name = "SIGNATURE")]
    signatures: Vec<String>,
    /// Tools without parameters, comma-separated.
    #[arg(long, value_delimiter = ',')]
    tools: Vec<String>,
    /// Names the deny-set refuses (repeatable).
    #[arg(long)]
    deny: Vec<String>,
    /// The behaviour to reproduce.
    #[arg(long, default_value = "strict")]
    profile: Profile,
    /// The name the model called.
    name: String,
    /// The arguments it sent, as a JSON object.
    #[arg(default_value = "{}")]
    arguments: String,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let mut registry = Registry::new();
    for signature in &args.signatures {
        registry.add(parse_tool(signature)?);
    }
    for name in args.tools.iter().filter(|n| !n.is_empty()) {
        registry.add(tool(name, Vec::new())?);
    }
    for name in &args.deny {
        registry.deny(name.as_str());
    }
    let Value::Dict(arguments) = decode_line(args.arguments.as_bytes())? else {
        return Err("the arguments must be a JSON object".to_owned());
    };
    let dispatch = match execute(&registry, &Value::str(&args.name), &arguments, args.profile) {
        Ok(dispatch) => dispatch,
        Err(raised) => {
            println!("raised: {raised}");
            return Ok(Exit::FAILURE);
        }
    };
    if let Some(line) = dispatch.repair_log() {
        println!("{line}");
    }
    println!("outcome: {:?}", dispatch.outcome());
    println!("returned: {}", encode_line(dispatch.returned()));
    if let Some(Value::Str(message)) = dispatch.returned().get("error") {
        println!("the model reads: {message}");
    }
    Ok(Exit::SUCCESS)
}

/// A tool whose body returns `{"tool": NAME, "kwargs": {...}}`, like the protocol's default.
fn tool(name: &str, params: Vec<Param>) -> Result<Tool, String> {
    let label = Value::str(name);
    Tool::new(name, params, move |bound| {
        let kwargs: Dict = bound.iter().cloned().collect();
        Ok(Value::dict([
            ("tool", label.clone()),
            ("kwargs", Value::Dict(kwargs)),
        ]))
    })
    .map_err(|e| format!("{name}: {e}"))
}

/// `name(a, b=5, /, c, *args, d, **kw)`.
fn parse_tool(signature: &str) -> Result<Tool, String> {
    let (name, rest) = signature
        .split_once('(')
        .ok_or("a signature looks like name(a, b=5)")?;
    let inner = rest.strip_suffix(')').ok_or("a signature ends with )")?;
    let mut params = Vec::new();
    let mut kind = ParamKind::PositionalOrKeyword;
    for item in split_top_level(inner) {
        match item.as_str() {
            "" => {}
            "/" => params
                .iter_mut()
                .for_each(|p: &mut Param| p.kind = ParamKind::PositionalOnly),
            "*" => kind = ParamKind::KeywordOnly,
            _ => {
                let param = parse_param(&item, kind)?;
                if param.kind == ParamKind::VarPositional {
                    kind = ParamKind::KeywordOnly;
                }
                params.push(param);
            }
        }
    }
    tool(name.trim(), params)
}

/// `a`, `a=JSON`, `*args` or `**kw`, in a section of the given kind.
fn parse_param(item: &str, kind: ParamKind) -> Result<Param, String> {
    let (name, kind, default) = if let Some(name) = item.strip_prefix("**") {
        (name, ParamKind::VarKeyword, None)
    } else if let Some(name) = item.strip_prefix('*') {
        (name, ParamKind::VarPositional, None)
    } else if let Some((name, json)) = item.split_once('=') {
        let default =
            decode_line(json.trim().as_bytes()).map_err(|e| format!("default of {name}: {e}"))?;
        (name, kind, Some(default))
    } else {
        (item, kind, None)
    };
    Ok(Param {
        name: PyStr::from(name.trim()),
        kind,
        default,
    })
}

/// Splits on commas outside brackets, braces and quotes, trimming each piece.
fn split_top_level(text: &str) -> Vec<String> {
    let (mut pieces, mut current, mut depth, mut quoted) = (Vec::new(), String::new(), 0i32, false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                pieces.push(current.trim().to_owned());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    pieces.push(current.trim().to_owned());
    pieces
}
