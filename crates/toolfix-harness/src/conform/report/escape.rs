//! Escaping for the text formats reports are written in.

/// Text for XML or HTML content and attribute values: markup characters escaped, and the
/// control characters XML 1.0 cannot hold (an implementation's stderr may have any bytes)
/// shown as `\u{..}`.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for one Markdown table cell or list item: one line, with `|` and backticks made
/// harmless.
pub fn markdown(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(
            xml("<a href=\"x\">&\u{1}</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;\\u{1}&lt;/a&gt;"
        );
        assert_eq!(markdown("a|b\nc`d`"), "a\\|b c'd'");
    }
}
