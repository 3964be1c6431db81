//! The worked example of docs/dialects/README.md ("Your own format"), run from the page:
//! the template and the reply as the page shows them give the output it shows, and the
//! template with the page's mistake gets the error it shows, naming the line.

use std::path::Path;
use std::process::{Command, Output};

const PAGE: &str = "../../docs/dialects/README.md";

/// The fenced block right after `<!-- example: NAME -->` on the page.
fn example(page: &str, name: &str) -> String {
    let marker = format!("<!-- example: {name} -->\n");
    let after = &page[page.find(&marker).expect("the example's marker") + marker.len()..];
    let body = &after[after.find('\n').expect("a fence line") + 1..];
    body[..body.find("```").expect("the fence's close")].to_owned()
}

fn salvage(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolfix"))
        .args([
            "salvage",
            "--tools",
            "get_weather",
            "--dialect",
            "jamba.json",
            "reply.txt",
        ])
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_worked_example_gives_what_the_page_shows() {
    let page = std::fs::read_to_string(PAGE).expect("the dialect page");
    let dir = std::env::temp_dir().join(format!("toolfix-dialect-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let template = example(&page, "jamba.json");
    std::fs::write(dir.join("jamba.json"), &template).unwrap();
    std::fs::write(dir.join("reply.txt"), example(&page, "reply.txt")).unwrap();
    let output = salvage(&dir);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        example(&page, "output")
    );

    std::fs::write(
        dir.join("jamba.json"),
        template.replace("\"close\"", "\"clse\""),
    )
    .unwrap();
    let output = salvage(&dir);
    let error = String::from_utf8_lossy(&output.stderr);
    let shown = page
        .lines()
        .find_map(|l| {
            l.strip_prefix("gives `")
                .and_then(|l| l.split(", expected").next())
        })
        .expect("the page shows the error");
    assert!(!output.status.success());
    assert!(error.contains(shown), "{error} does not hold {shown}");
    let _ = std::fs::remove_dir_all(&dir);
}
