//! `Shown`: text that may go to an operator's terminal. Every way to make one escapes
//! what came from a server, a file or a user; only program text (a `&'static str`, the
//! literal of [`shown!`](crate::shown!)) goes in as it is. Renderers take `Shown`, so a
//! value that was never escaped does not type-check, and clippy.toml keeps the raw
//! table and terminal writers out of reach elsewhere.

use crate::text::{escape, escape_bytes, escape_regex, RawText, Text};
use std::borrow::Cow;
use std::fmt;

/// Escaped text, safe to write to a terminal (see crate::text for the grammar).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Shown(String);

impl Shown {
    /// Untrusted text, escaped.
    pub fn text(text: &str) -> Shown {
        Shown(escape(text))
    }

    /// A regular expression from the config, as written (crate::text::escape_regex): its
    /// backslashes are its own, so it is shown single.
    pub fn regex(text: &str) -> Shown {
        Shown(escape_regex(text))
    }

    /// Untrusted bytes, escaped (`\xHH` for what is not UTF-8).
    pub fn bytes(bytes: &[u8]) -> Shown {
        Shown(escape_bytes(bytes))
    }

    /// Program text: a literal in the binary, not data.
    pub fn lit(text: &'static str) -> Shown {
        Shown(text.to_string())
    }

    /// The parts joined by `separator` (program text).
    pub fn join(parts: impl IntoIterator<Item = Shown>, separator: &'static str) -> Shown {
        let parts: Vec<String> = parts.into_iter().map(|s| s.0).collect();
        Shown(parts.join(separator))
    }

    pub fn push(&mut self, other: &Shown) {
        self.0.push_str(&other.0);
    }

    pub fn push_lit(&mut self, text: &'static str) {
        self.0.push_str(text);
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// At most `limit` characters of it, whole escapes kept whole, then a marker saying
    /// how many were left out (a cell of megabytes is unreadable and slow to lay out).
    pub fn truncated(self, limit: usize, marker: impl Fn(usize) -> String) -> Shown {
        let total = self.0.chars().count();
        if total <= limit {
            return self;
        }
        let mut kept = 0;
        let mut end = 0;
        let mut rest = self.0.as_str();
        while let Some(len) = next_unit(rest) {
            let chars = rest[..len].chars().count();
            if kept + chars > limit {
                break;
            }
            kept += chars;
            end += len;
            rest = &rest[len..];
        }
        let mut out = self.0[..end].to_string();
        // The marker is program text with a count: nothing in it needs escaping.
        out.push_str(&marker(total - kept));
        Shown(out)
    }

    /// For [`shown!`](crate::shown!) only: its literal is program text and its arguments
    /// arrive escaped. Anywhere else clippy refuses it (clippy.toml).
    #[doc(hidden)]
    pub fn __from_format(args: fmt::Arguments<'_>) -> Shown {
        Shown(fmt::format(args))
    }
}

/// The length in bytes of the next character or whole escape sequence of escaped text.
fn next_unit(s: &str) -> Option<usize> {
    let mut chars = s.chars();
    let first = chars.next()?;
    if first != '\\' {
        return Some(first.len_utf8());
    }
    let len = match s.as_bytes().get(1) {
        Some(b'x') => 4,
        Some(b'u') => s.find('}').map_or(2, |i| i + 1),
        Some(_) => 2,
        None => 1,
    };
    Some(len.min(s.len()))
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl From<&str> for Shown {
    fn from(text: &str) -> Shown {
        Shown::text(text)
    }
}

impl From<String> for Shown {
    fn from(text: String) -> Shown {
        Shown::text(&text)
    }
}

impl From<&String> for Shown {
    fn from(text: &String) -> Shown {
        Shown::text(text)
    }
}

impl From<&RawText> for Shown {
    fn from(text: &RawText) -> Shown {
        Shown::bytes(text.as_bytes())
    }
}

impl From<&Text> for Shown {
    fn from(text: &Text) -> Shown {
        Shown(text.escaped())
    }
}

macro_rules! shown_from_numbers {
    ($($t:ty),*) => {$(
        impl From<$t> for Shown {
            fn from(n: $t) -> Shown {
                Shown(n.to_string())
            }
        }
    )*};
}
shown_from_numbers!(i16, i32, i64, u16, u32, u64, usize);

/// Values that know their escaped form: `Shown` itself, and server text.
pub trait Showable {
    fn shown(&self) -> Shown;
}

impl Showable for Shown {
    fn shown(&self) -> Shown {
        self.clone()
    }
}

impl<T: Showable + ?Sized> Showable for &T {
    fn shown(&self) -> Shown {
        (**self).shown()
    }
}

impl Showable for RawText {
    fn shown(&self) -> Shown {
        Shown::from(self)
    }
}

impl Showable for Text {
    fn shown(&self) -> Shown {
        Shown::from(self)
    }
}

/// One argument of [`shown!`](crate::shown!): already escaped, or to escape.
#[doc(hidden)]
pub enum ArgOut<'a> {
    Safe(Shown),
    Raw(&'a dyn fmt::Display),
}

impl fmt::Display for ArgOut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: Cow<'_, str> = match self {
            ArgOut::Safe(s) => Cow::Borrowed(s.as_str()),
            ArgOut::Raw(v) => {
                // The value formatted with the options of its placeholder, then escaped.
                let raw = match (f.alternate(), f.precision()) {
                    (false, None) => v.to_string(),
                    (true, None) => format!("{v:#}"),
                    (false, Some(p)) => format!("{v:.p$}"),
                    (true, Some(p)) => format!("{v:#.p$}"),
                };
                Cow::Owned(escape(&raw))
            }
        };
        let Some(width) = f.width() else {
            return f.write_str(&text);
        };
        let pad = width.saturating_sub(text.chars().count());
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (pad, 0),
            Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
            _ => (0, pad),
        };
        let fill = f.fill().to_string();
        f.write_str(&fill.repeat(before))?;
        f.write_str(&text)?;
        f.write_str(&fill.repeat(after))
    }
}

#[doc(hidden)]
pub struct Arg<'a, T: ?Sized>(pub &'a T);

#[doc(hidden)]
pub trait ViaShowable {
    fn __shown_arg(&self) -> ArgOut<'_>;
}

impl<T: Showable + ?Sized> ViaShowable for Arg<'_, T> {
    fn __shown_arg(&self) -> ArgOut<'_> {
        ArgOut::Safe(self.0.shown())
    }
}

#[doc(hidden)]
pub trait ViaDisplay<'a> {
    fn __shown_arg(&self) -> ArgOut<'a>;
}

impl<'a, T: fmt::Display> ViaDisplay<'a> for &Arg<'a, T> {
    fn __shown_arg(&self) -> ArgOut<'a> {
        ArgOut::Raw(self.0)
    }
}

/// Refuses, at compile time, a `shown!` literal whose placeholders name a variable
/// (`{gid}` would capture it unescaped) or ask for Debug or another trait than Display:
/// only `{}` and `{:…}` with width, alignment, precision and `#`.
#[doc(hidden)]
pub const fn check_format(literal: &str) {
    let b = literal.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            if i + 1 < b.len() && b[i + 1] == b'{' {
                i += 2;
                continue;
            }
            i += 1;
            if i < b.len() && b[i] == b':' {
                i += 1;
                while i < b.len() && b[i] != b'}' {
                    match b[i] {
                        b'0'..=b'9' | b'.' | b'#' | b'<' | b'>' | b'^' => {}
                        _ => panic!(
                            "shown!: a placeholder may hold only width, alignment, precision and #"
                        ),
                    }
                    i += 1;
                }
            }
            if i >= b.len() || b[i] != b'}' {
                panic!("shown!: a placeholder names no variable or position; pass every value as an argument, so it is escaped");
            }
        }
        i += 1;
    }
}

/// `format!` for the terminal: the literal is program text, every argument is escaped
/// once (a `Shown`, `RawText` or `Text` argument is already in its escaped form).
/// Placeholders take no names (`{gid}` would bypass the escaping): a compile error.
#[macro_export]
macro_rules! shown {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        const _: () = $crate::term::shown::check_format($fmt);
        #[allow(unused_imports)]
        use $crate::term::shown::{ViaDisplay as _, ViaShowable as _};
        #[allow(clippy::disallowed_methods)]
        let shown = $crate::term::Shown::__from_format(format_args!(
            $fmt $(, (&$crate::term::shown::Arg(&$arg)).__shown_arg())*
        ));
        shown
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::RawText;

    #[test]
    fn arguments_are_escaped_once_and_the_literal_not_at_all() {
        let id = "tx\u{1b}]0;owned\u{7}";
        let already = Shown::text("a\u{1b}");
        let raw = RawText::from(b"g\xff".to_vec());
        let s = crate::shown!("id {}\n{} {} {}", id, already, raw, 42);
        assert_eq!(s.as_str(), "id tx\\u{1b}]0;owned\\u{7}\na\\u{1b} g\\xff 42");
    }

    #[test]
    fn placeholder_options_still_apply() {
        let err = anyhow::anyhow!("inner\u{1b}").context("outer");
        assert_eq!(crate::shown!("{:#}", err).as_str(), "outer: inner\\u{1b}");
        assert_eq!(crate::shown!("{:.2}s", 1.23456).as_str(), "1.23s");
        assert_eq!(crate::shown!("[{:>4}]", 7).as_str(), "[   7]");
        assert_eq!(crate::shown!("[{:<4}]", "ab").as_str(), "[ab  ]");
        assert_eq!(crate::shown!("{{}}").as_str(), "{}");
    }

    #[test]
    fn truncation_keeps_escapes_whole_and_says_how_much_is_left() {
        let s = Shown::text("ab\u{1b}cdef").truncated(4, |n| format!("…{n}"));
        // a, b, then \u{1b} (6 characters) does not fit: cut before it.
        assert_eq!(s.as_str(), "ab…10");
        let short = Shown::text("abc").truncated(4, |n| format!("…{n}"));
        assert_eq!(short.as_str(), "abc");
    }
}
