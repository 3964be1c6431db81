//! The replies the shipped-template benches read: each template's example call written
//! back to back on lines of its own (`calls`), and the same with each example's last tag
//! cut off (`cut`), so that no region that needs it closes until the reply ends.

use toolfix::salvage::template::Template;

/// The reply families, by the name their groups end with.
pub const FAMILIES: [&str; 2] = ["calls", "cut"];

/// The reply of `family` for the shipped template `name`, `bytes` long; `None` for a name
/// or a family there is not.
pub fn reply(name: &str, family: &str, bytes: usize) -> Option<String> {
    let example = Template::example(name)?;
    let unit = match family {
        "calls" => example,
        "cut" => &example[..example.rfind('<').unwrap_or(example.len())],
        _ => return None,
    };
    let line = format!("{unit}\n");
    Some(line.repeat(bytes / line.len() + 1)[..bytes].to_owned())
}
