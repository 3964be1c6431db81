//! `toolfix report`: combine the JSON-lines reports of several runs (several
//! implementations, or one under several profiles) into a self-contained HTML page with
//! the matrix of runs against features, and/or a Markdown summary. A file written by
//! `toolfix proxy --shadow` is read as a run too (`shadow`).

use crate::Exit;
use std::path::{Path, PathBuf};

use toolfix_harness::conform::Report;

use toolfix_harness::conform::report::{html, markdown, read};

use super::conform::write;
use super::shadow;

#[derive(clap::Args)]
pub struct Args {
    /// JSON-lines reports written by `toolfix conform --jsonl`.
    #[arg(required = true, value_name = "REPORT")]
    reports: Vec<PathBuf>,
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the combined Markdown summary here.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
}

/// A conformance report, or a shadow file read as one.
fn load(path: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    match shadow::is_shadow(&text) {
        true => shadow::report(path, &text),
        false => read::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
    }
}

pub fn run(args: Args) -> Result<Exit, String> {
    let (reports, errors): (Vec<_>, Vec<_>) = args
        .reports
        .iter()
        .map(|p| load(p))
        .partition(Result::is_ok);
    if !errors.is_empty() {
        errors
            .into_iter()
            .filter_map(Result::err)
            .for_each(|e| eprintln!("toolfix: {e}"));
        return Ok(Exit::from(2));
    }
    let reports: Vec<_> = reports.into_iter().filter_map(Result::ok).collect();
    if let Some(path) = &args.html {
        write(path, &html::render(&reports))?;
    }
    if let Some(path) = &args.markdown {
        write(path, &markdown::render_combined(&reports))?;
    }
    for report in &reports {
        let partial = if report.partial { " (partial)" } else { "" };
        println!("{}: {}{partial}", report.title(), report.summary().line());
    }
    Ok(Exit::SUCCESS)
}
