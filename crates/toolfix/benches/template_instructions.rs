//! Instruction counts of the shipped templates' replies (`template_replies`) under
//! `strict`: the noise-free measure of the templates' bench (`templates`), for a machine
//! shared with other work (BENCHMARKS.md).
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*template_instructions::measured*' \
//!     <this bench's executable> template-minicpm5-calls 1048576
//! ```
//!
//! counts the instructions of one reading of that reply; `scripts/benchmarks_table.py
//! dialects --callgrind` on the `templates` bench's results does this at 256 KiB and
//! 1 MiB for every group. Without arguments (as under `cargo test --benches`) it reads
//! each group once at 16 KiB.

mod template_replies;

use std::hint::black_box;

use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Request};

/// The code whose instructions are counted: one reading of `reply` by `shipped`.
#[inline(never)]
fn measured(reply: &str, shipped: &Template) -> usize {
    let tools = Allowlist::new(["get_weather"]);
    template::salvage(black_box(&Request::new(reply, &tools)), shipped).len()
}

/// The template and family a group (`template-NAME-FAMILY`) names.
fn group(name: &str) -> Option<(&'static str, &'static str)> {
    let rest = name.strip_prefix("template-")?;
    let (template, family) = rest.rsplit_once('-')?;
    let template = Template::SHIPPED.iter().find(|t| **t == template)?;
    let family = template_replies::FAMILIES.iter().find(|f| **f == family)?;
    Some((template, family))
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let runs: Vec<((&str, &str), usize)> = match args.as_slice() {
        [name, size] => {
            let found = group(name).unwrap_or_else(|| panic!("no template group is {name:?}"));
            vec![(found, size.parse().expect("a size in bytes"))]
        }
        [] => Template::SHIPPED
            .iter()
            .flat_map(|t| template_replies::FAMILIES.map(|f| ((*t, f), 16 << 10)))
            .collect(),
        _ => panic!("usage: template_instructions [template-NAME-FAMILY SIZE]"),
    };
    for ((name, family), size) in runs {
        let reply = template_replies::reply(name, family, size).expect("a reply");
        let shipped = Template::shipped(name).expect("a shipped template");
        measured(&reply, shipped);
    }
}
