//! The HTML report in a real browser (headless Chromium): one page across two
//! implementations renders, shows each run's own counts, and every failing case opens to
//! the whole command that replays it.
//!
//! The check needs `chromium` on `PATH` (Debian: `apt-get install chromium`). Without it
//! the test says so and passes, unless `TOOLFIX_REQUIRE_BROWSER` is set, as `.ci/run`
//! sets it after installing Chromium, so CI never skips it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Two salvage cases the driver fails in batch and in every chunking, and one it passes.
const CASES: &str = r#"
[defaults]
op = "salvage"
tools = ["f"]
adapter = "ollama"
profiles = ["portable"]
source = "tests/report_page.rs: the driver recovers a call from `<call>`"

[[case]]
name = "a-call-nobody-wrote"
content = "<call>"
portable = { rule = "G6", calls = [] }

[[case]]
name = "a-fence-mark-in-the-reply"
content = "``` <call>"
portable = { rule = "G1", calls = [] }

[[case]]
name = "plain-text"
content = "hello"
portable = { rule = "G6", calls = [] }
"#;

/// Opens every failing case's row, and records on `<body>` how many there are and the
/// summaries of those that show no reproduce line holding a request.
const PROBE: &str = r#"<script>
const rows = [...document.querySelectorAll("details.failure")];
const bad = [];
for (const row of rows) {
  row.open = true;
  const lines = [...row.querySelectorAll("pre.reproduce")];
  const shown = lines.filter(p => p.getClientRects().length > 0 && p.textContent.includes('"cmd": "run"'));
  if (shown.length === 0) bad.push(row.querySelector("summary").textContent);
}
document.body.setAttribute("data-rows", String(rows.length));
document.body.setAttribute("data-bad", JSON.stringify(bad));
</script></body>"#;

#[test]
fn every_failure_opens_to_its_reproduce_line_in_a_browser() {
    let Some(chromium) = browser() else {
        assert!(
            std::env::var_os("TOOLFIX_REQUIRE_BROWSER").is_none(),
            "TOOLFIX_REQUIRE_BROWSER is set but no chromium is on PATH"
        );
        eprintln!("skipped: no chromium on PATH (apt-get install chromium); CI installs it");
        return;
    };
    let dir = std::env::temp_dir().join(format!("toolfix-page-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cases/page")).unwrap();
    std::fs::write(dir.join("cases/page/cases.toml"), CASES).unwrap();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../toolfix-harness/tests/templates/python_driver.py");
    let run = |command: &str, jsonl: &Path| {
        let cases = dir.join("cases");
        let out = toolfix(&[
            "conform",
            "--impl",
            command,
            "--cases",
            cases.to_str().unwrap(),
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--quiet",
        ]);
        out.lines().last().unwrap_or_default().to_owned()
    };
    let (failing, clean) = (dir.join("failing.jsonl"), dir.join("reference.jsonl"));
    let failing_summary = run(&format!("python3 {}", driver.display()), &failing);
    assert!(
        failing_summary.starts_with("conformance: 1 passed, 2 failed"),
        "{failing_summary}"
    );
    let reference = format!("{} serve --profile portable", env!("CARGO_BIN_EXE_toolfix"));
    let clean_summary = run(&reference, &clean);
    assert!(
        clean_summary.starts_with("conformance: 3 passed, 0 failed"),
        "{clean_summary}"
    );
    // One page across both implementations, as a matrix of peers combines runs.
    let page = dir.join("page.html");
    toolfix(&[
        "report",
        failing.to_str().unwrap(),
        clean.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    for summary in [&failing_summary, &clean_summary] {
        assert!(
            html.contains(summary.as_str()),
            "the page's counts are the runs'"
        );
    }
    let probed = dir.join("probed.html");
    std::fs::write(&probed, html.replace("</body>", PROBE)).unwrap();
    let dom = rendered(&chromium, &probed);
    assert!(
        dom.contains(r#"data-rows="2""#),
        "two failing cases, one row each: {dom}"
    );
    assert!(
        dom.contains(r#"data-bad="[]""#),
        "rows without a reproduce line: {dom}"
    );
}

/// The page's DOM once Chromium has loaded it and run its scripts.
fn rendered(chromium: &Path, page: &Path) -> String {
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Chromium on `PATH`, under the names Debian and others give it.
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// The binary's stdout for `args`.
fn toolfix(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_toolfix"))
        .args(args)
        .output()
        .expect("the binary runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
