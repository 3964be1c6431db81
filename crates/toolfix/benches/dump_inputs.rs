//! Writes every benchmark input to a folder, with a manifest, so that
//! `scripts/bench_praisonai.py` times the real package on the same bytes:
//!
//! ```text
//! cargo bench --bench dump_inputs -- target/bench-inputs
//! ```
//!
//! Every input is checked first, as the benches check it. Without a folder (as under
//! `cargo test --benches`) it checks the inputs up to 64 KiB and writes nothing. The
//! families of the dialects only `strict` recovers are checked under `strict` and never
//! written.

use std::fs;
use std::path::Path;

use toolfix::Profile;
use toolfix::py::json::dumps;
use toolfix::py::{PyStr, Value};

mod inputs;

use inputs::{DispatchCase, Reply};

fn strings<S: AsRef<str>>(items: &[S]) -> Value {
    Value::List(items.iter().map(|s| Value::str(s.as_ref())).collect())
}

fn optional(s: &Option<String>) -> Value {
    s.as_deref().map_or(Value::None, Value::str)
}

/// A file name for a reply: `group__param.txt`, spaces as `_`.
fn file_name(reply: &Reply) -> String {
    format!("{}__{}.txt", reply.group, reply.param.replace(' ', "_"))
}

fn reply_entry(reply: &Reply) -> Value {
    Value::dict([
        ("group", Value::str(reply.group)),
        ("param", Value::str(&reply.param)),
        ("file", Value::str(&format!("salvage/{}", file_name(reply)))),
        ("bytes", Value::int(reply.len() as i64)),
        ("tools", strings(&reply.tools)),
        ("calls", Value::int(reply.calls as i64)),
        (
            "quadratic_in_cpython",
            Value::Bool(reply.quadratic_in_cpython),
        ),
    ])
}

fn dispatch_entry(case: &DispatchCase) -> Value {
    Value::dict([
        ("group", Value::str(&case.group())),
        ("param", Value::str(&case.param())),
        ("kind", Value::str(case.kind)),
        ("tools", strings(&case.tools)),
        ("requested", Value::str(&case.requested)),
        ("runs", optional(&case.runs)),
        ("error", optional(&case.error)),
    ])
}

fn main() {
    let folder = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let limit = if folder.is_some() {
        usize::MAX
    } else {
        64 * inputs::KIB
    };
    let mut replies = inputs::prose_replies();
    replies.iter().for_each(inputs::check_prose);
    replies.extend(inputs::call_replies());
    replies.extend(inputs::adversarial_replies());
    replies.retain(|reply| reply.len() <= limit);
    for reply in &replies {
        let tools = reply.allowlist();
        reply.check(&tools, Profile::PraisonAi);
    }
    // The dialect families are checked under `strict` but not written: the real package
    // reads none of their formats, so there is nothing to time it on.
    let mut dialect_replies = 0;
    for family in inputs::DIALECT_FAMILIES {
        for &bytes in inputs::ADVERSARIAL_SIZES.iter().filter(|&&b| b <= limit) {
            let reply = inputs::adversarial_reply(family, bytes);
            reply.check(&reply.allowlist(), Profile::Strict);
            dialect_replies += 1;
        }
    }
    let cases: Vec<DispatchCase> = inputs::REGISTRY_SIZES
        .into_iter()
        .flat_map(inputs::dispatch_cases)
        .collect();
    for case in &cases {
        case.check(&case.registry(), Profile::PraisonAi);
    }
    let Some(folder) = folder else {
        println!(
            "checked {} replies, {dialect_replies} dialect replies and {} dispatch cases",
            replies.len(),
            cases.len()
        );
        return;
    };
    let folder = Path::new(&folder);
    fs::create_dir_all(folder.join("salvage")).expect("create the folder");
    for reply in &replies {
        fs::write(folder.join("salvage").join(file_name(reply)), &reply.text)
            .expect("write a reply");
    }
    let manifest = Value::dict([
        (
            "salvage",
            Value::List(replies.iter().map(reply_entry).collect()),
        ),
        (
            "dispatch",
            Value::List(cases.iter().map(dispatch_entry).collect()),
        ),
        ("argument_query", Value::Str(PyStr::from("Paris"))),
    ]);
    let json = dumps(&manifest).expect("the manifest encodes");
    fs::write(folder.join("manifest.json"), json).expect("write the manifest");
    println!(
        "wrote {} replies and {} dispatch cases to {}",
        replies.len(),
        cases.len(),
        folder.display()
    );
}
