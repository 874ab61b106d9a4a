//! Terminal safety and styling decisions: escaping untrusted text and whether to use colour.

use std::io::IsTerminal;

/// Escapes control characters so a hostile or binary value (a GID, a query text)
/// cannot move the cursor, change colours or hide lines on an operator's terminal.
pub fn escape_control(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            // Bidi overrides can visually reorder text; show them instead of obeying them.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org).
pub fn use_color(no_color_flag: bool) -> bool {
    !no_color_flag
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stdout().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_control_sequences() {
        assert_eq!(escape_control("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape_control("x\ny\\"), "x\\ny\\\\");
        assert_eq!(escape_control("заказ 4711"), "заказ 4711");
        assert_eq!(escape_control("\u{202e}evil"), "\\u{202e}evil");
    }
}
