//! Go's `strconv.Quote`, because Kubernetes formats names and bad values with `%q`.
//!
//! Messages such as `pods "x" not found` or `Invalid value: "Bad_Name"` must come out byte for
//! byte as the real API server writes them, and Rust's `{:?}` escapes differently (`\u{1}`
//! instead of `\x01`, ...), so the Go rules are spelled out here once.

/// Quotes `s` like Go's `strconv.Quote`: `"` and `\` escaped, printable characters kept,
/// control characters as `\n`, `\t`, `\x01`, other non-printables as `\u00a0`/`\U0001f000`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols
/// and the ASCII space; not controls, other spaces or invisible format characters.
fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e000}'..='\u{f8ff}'
            | '\u{f0000}'..='\u{10ffff}'
    )
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("x"), "\"x\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("tab\there\n"), "\"tab\\there\\n\"");
        assert_eq!(quote("\u{1}\u{7f}"), "\"\\x01\\x7f\"");
        assert_eq!(quote("\u{a0}"), "\"\\u00a0\"");
        assert_eq!(quote("héllo 世界"), "\"héllo 世界\"");
        assert_eq!(quote(""), "\"\"");
    }
}
