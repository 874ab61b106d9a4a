//! Text as servers hold it (bytes, usually but not always UTF-8), messages built from it,
//! and the one escape grammar that shows either on a terminal and reads it back.
//!
//! The grammar (indoubt(1), "Untrusted text"): a backslash is `\\`; line feed, carriage return
//! and tab are `\n`, `\r`, `\t`; every other control character (C0, DEL, C1) and the
//! invisible characters that reorder or hide text (bidi controls, zero-width characters,
//! line and paragraph separators) are `\u{hex}`; a byte that is not part of valid UTF-8
//! is `\xHH`. Everything else stands for itself. [`unescape`] reads it back exactly, so
//! what a table shows can be typed back on the command line.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Characters that are not control characters but still hide or reorder what a person
/// reads: bidi embeddings, overrides, isolates and marks, zero-width characters, the
/// line and paragraph separators, and the byte order mark.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}')
}

/// A character a terminal shows as itself: no control character, nothing that hides or
/// reorders text. (The escape grammar still writes a backslash as `\\\\`, to read back.)
pub fn shows_as_itself(c: char) -> bool {
    !c.is_control() && !invisible(c)
}

fn escape_char(c: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() || invisible(c) => {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
        c => out.push(c),
    }
}

/// `text` in the escape grammar: safe to put on a terminal, unambiguous to read back.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        escape_char(c, &mut out);
    }
    out
}

/// A regular expression as written, safe to put on a terminal, and still the same
/// expression: its backslashes are its own (doubled, as [`escape`] writes them, they would
/// show another expression: `\\d+` matches a backslash and d's), and a character a terminal
/// would not show as itself is written as the regex escape that stands for it (`\n`, `\r`,
/// `\t`, `\u{hex}`, all read by the regex syntax as that character).
pub fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push('\\'),
            c => escape_char(c, &mut out),
        }
    }
    out
}

/// `bytes` in the escape grammar: valid UTF-8 as [`escape`], every other byte as `\xHH`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            escape_char(c, &mut out);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Reads the escape grammar back into the exact bytes it stands for. Also accepts
/// `\xHH` for any byte and `\u{…}` for any character, written or not by [`escape`].
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let bad = || {
            format!(
                "invalid escape at character {}: write a backslash as \\\\",
                at + 1
            )
        };
        match chars.next().map(|(_, c)| c) {
            Some('\\') => out.push(b'\\'),
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).map(|(_, c)| c).collect();
                let byte = (hex.len() == 2)
                    .then(|| u8::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(bad)?;
                out.push(byte);
            }
            Some('u') => {
                if chars.next().map(|(_, c)| c) != Some('{') {
                    return Err(bad());
                }
                let mut hex = String::new();
                loop {
                    match chars.next().map(|(_, c)| c) {
                        Some('}') => break,
                        Some(h) if h.is_ascii_hexdigit() && hex.len() < 6 => hex.push(h),
                        _ => return Err(bad()),
                    }
                }
                let c = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(bad)?;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// Text exactly as a server sent it. A SQL_ASCII database accepts any bytes in a GID, a
/// database or role name or a query, so this holds bytes; nearly always they are UTF-8.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RawText(Vec<u8>);

impl RawText {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// As JSON and messages carry it: the text itself when it is UTF-8, otherwise (it
    /// cannot be a JSON string) its escaped form, which [`unescape`] reads back exactly.
    pub fn to_text(&self) -> Cow<'_, str> {
        match self.as_str() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(escape_bytes(&self.0)),
        }
    }
}

impl From<Vec<u8>> for RawText {
    fn from(bytes: Vec<u8>) -> Self {
        RawText(bytes)
    }
}

impl From<String> for RawText {
    fn from(text: String) -> Self {
        RawText(text.into_bytes())
    }
}

impl From<&str> for RawText {
    fn from(text: &str) -> Self {
        RawText(text.as_bytes().to_vec())
    }
}

impl PartialEq<str> for RawText {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for RawText {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl fmt::Debug for RawText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&escape_bytes(&self.0), f)
    }
}

impl Serialize for RawText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_text())
    }
}

impl From<RawText> for serde_json::Value {
    fn from(text: RawText) -> Self {
        serde_json::Value::String(text.to_text().into_owned())
    }
}

impl From<&RawText> for serde_json::Value {
    fn from(text: &RawText) -> Self {
        serde_json::Value::String(text.to_text().into_owned())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Str(String),
    Raw(RawText),
    /// A regular expression, shown as written ([`escape_regex`]).
    Regex(String),
}

/// A message (a finding's subject or text, a note) made of program text and values, some
/// of them server text that may not be UTF-8. Kept in pieces so the terminal shows each
/// value escaped exactly once, while JSON gets the values as they are ([`RawText::to_text`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Text(Vec<Piece>);

impl Text {
    pub fn new() -> Text {
        Text(Vec::new())
    }

    pub fn push_str(&mut self, s: &str) {
        match self.0.last_mut() {
            Some(Piece::Str(last)) => last.push_str(s),
            _ => self.0.push(Piece::Str(s.to_string())),
        }
    }

    pub fn push_raw(&mut self, raw: &RawText) {
        match raw.as_str() {
            Some(s) => self.push_str(s),
            None => self.0.push(Piece::Raw(raw.clone())),
        }
    }

    /// A regular expression of the config: shown as written, its backslashes single.
    pub fn push_regex(&mut self, regex: &str) {
        self.0.push(Piece::Regex(regex.to_string()));
    }

    pub fn push_text(&mut self, other: &Text) {
        for piece in &other.0 {
            match piece {
                Piece::Str(s) => self.push_str(s),
                other => self.0.push(other.clone()),
            }
        }
    }

    /// `other` then this text.
    pub fn prepended(&self, other: &Text) -> Text {
        let mut out = other.clone();
        out.push_text(self);
        out
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|p| match p {
            Piece::Str(s) | Piece::Regex(s) => s.is_empty(),
            Piece::Raw(r) => r.is_empty(),
        })
    }

    /// The message as JSON carries it (values that are not UTF-8 in their escaped form).
    pub fn plain(&self) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Str(s) | Piece::Regex(s) => out.push_str(s),
                Piece::Raw(r) => out.push_str(&r.to_text()),
            }
        }
        out
    }

    /// The message in the escape grammar, each piece escaped once.
    pub fn escaped(&self) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Str(s) => out.push_str(&escape(s)),
                Piece::Raw(r) => out.push_str(&escape_bytes(r.as_bytes())),
                Piece::Regex(r) => out.push_str(&escape_regex(r)),
            }
        }
        out
    }

    pub fn contains(&self, needle: &str) -> bool {
        self.plain().contains(needle)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(vec![Piece::Str(s)])
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(vec![Piece::Str(s.to_string())])
    }
}

impl From<&RawText> for Text {
    fn from(raw: &RawText) -> Self {
        let mut t = Text::new();
        t.push_raw(raw);
        t
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.plain())
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.plain())
    }
}

/// How a value joins a [`Text`]: server text as itself, anything else through Display.
/// (Picked by autoref in [`text!`](crate::text!): `RawText` and `Text` first.)
pub struct Part<'a, T: ?Sized>(pub &'a T);

pub trait PartRaw {
    fn append_to(&self, text: &mut Text);
}

impl PartRaw for Part<'_, RawText> {
    fn append_to(&self, text: &mut Text) {
        text.push_raw(self.0);
    }
}

impl PartRaw for Part<'_, Text> {
    fn append_to(&self, text: &mut Text) {
        text.push_text(self.0);
    }
}

impl PartRaw for Part<'_, &RawText> {
    fn append_to(&self, text: &mut Text) {
        text.push_raw(self.0);
    }
}

impl PartRaw for Part<'_, &Text> {
    fn append_to(&self, text: &mut Text) {
        text.push_text(self.0);
    }
}

pub trait PartDisplay {
    fn append_to(&self, text: &mut Text);
}

impl<T: fmt::Display + ?Sized> PartDisplay for &Part<'_, T> {
    fn append_to(&self, text: &mut Text) {
        text.push_str(&self.0.to_string());
    }
}

/// A [`Text`] from pieces in order: `text!["prepared transaction '", xact.gid, "' in ", db]`.
/// `RawText` and `Text` values keep their bytes; anything else goes in through Display.
#[macro_export]
macro_rules! text {
    ($($part:expr),* $(,)?) => {{
        #[allow(unused_imports)]
        use $crate::text::{PartDisplay as _, PartRaw as _};
        let mut text = $crate::text::Text::new();
        $( (&$crate::text::Part(&$part)).append_to(&mut text); )*
        text
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_control_sequences() {
        assert_eq!(escape("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape("x\ny\\"), "x\\ny\\\\");
        assert_eq!(escape("заказ 4711"), "заказ 4711");
        assert_eq!(escape("\u{202e}evil"), "\\u{202e}evil");
        assert_eq!(escape("\u{9b}31m\u{7}"), "\\u{9b}31m\\u{7}");
        assert_eq!(escape("a\u{200b}b\u{2028}"), "a\\u{200b}b\\u{2028}");
    }

    #[test]
    fn a_regex_is_shown_as_written_and_still_matches_the_same() {
        assert_eq!(
            escape_regex(r"^(payments|orders\.created)$"),
            r"^(payments|orders\.created)$"
        );
        assert_eq!(escape_regex(r"\d+"), r"\d+");
        let hostile = "a\u{1b}\u{202e}\n\\d";
        let shown = escape_regex(hostile);
        assert_eq!(shown, r"a\u{1b}\u{202e}\n\d");
        assert!(shown.chars().all(shows_as_itself));
        assert!(regex::Regex::new(&shown)
            .unwrap()
            .is_match("a\u{1b}\u{202e}\n7"));
        for subject in ["a\u{1b}\u{202e}\n7", "a\n7", "a\u{1b}\u{202e}\nd"] {
            assert_eq!(
                regex::Regex::new(hostile).unwrap().is_match(subject),
                regex::Regex::new(&shown).unwrap().is_match(subject),
                "{subject:?}"
            );
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex() {
        assert_eq!(escape_bytes(b"odd\xff\x1b[31m"), "odd\\xff\\u{1b}[31m");
        assert_eq!(escape_bytes("é\\".as_bytes()), "é\\\\");
        assert_eq!(escape_bytes(b"\xc3"), "\\xc3");
    }

    #[test]
    fn unescape_reads_back_exactly_what_escape_wrote() {
        let samples: [&[u8]; 6] = [
            b"odd\xff\x1b[31m",
            b"a\\xff",
            b"\\",
            "заказ\u{202e}\n\t\r".as_bytes(),
            b"\xc3\x28\xa0\xa1",
            b"",
        ];
        for bytes in samples {
            assert_eq!(unescape(&escape_bytes(bytes)).unwrap(), bytes, "{bytes:?}");
        }
        assert_eq!(unescape("\\x41\\u{1F600}").unwrap(), "A😀".as_bytes());
    }

    #[test]
    fn unescape_refuses_what_the_grammar_does_not_have() {
        for bad in [
            "a\\b",
            "\\",
            "\\x4",
            "\\xzz",
            "\\u{}",
            "\\u{110000}",
            "\\u{d800}",
            "\\u1b",
        ] {
            assert!(unescape(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn messages_keep_server_bytes_apart_from_program_text() {
        let gid = RawText::from(b"g\xff\\".to_vec());
        let t = text![
            "prepared transaction '",
            gid,
            "' in ",
            "shop\u{1b}",
            " age ",
            5
        ];
        assert_eq!(
            t.plain(),
            "prepared transaction 'g\\xff\\\\' in shop\u{1b} age 5"
        );
        assert_eq!(
            t.escaped(),
            "prepared transaction 'g\\xff\\\\' in shop\\u{1b} age 5"
        );
        let utf8 = RawText::from("ok\\");
        assert_eq!(text!["x ", utf8].escaped(), "x ok\\\\");
        assert_eq!(serde_json::to_string(&gid).unwrap(), "\"g\\\\xff\\\\\\\\\"");
    }
}
