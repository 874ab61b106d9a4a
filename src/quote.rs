//! Quoting values for the languages an operator pastes into: a POSIX shell and SQL. Each
//! function builds text that holds only characters a terminal shows as themselves, so
//! what is printed is exactly what is pasted (no display escaping may touch it).

/// A character a terminal shows as itself: not a control character, not one that hides
/// or reorders text (the display grammar's list, `text::shows_as_itself`).
fn showable(c: char) -> bool {
    crate::text::shows_as_itself(c)
}

/// The one quoting of a value for a POSIX shell: as it is when it holds only characters
/// no shell treats specially; else in single quotes (a quote as `\'` between quoted
/// runs); bytes a terminal would not show (control characters, invisible ones, bytes that
/// are not UTF-8) as `"$(printf '\ooo')"`, which gives exactly those bytes in any POSIX
/// shell. Only trailing newlines, which a command substitution drops, are kept literally
/// inside quotes.
pub fn shell_quote(value: &[u8]) -> String {
    let plain = !value.is_empty()
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@,+%".contains(b));
    if plain {
        return String::from_utf8_lossy(value).into_owned();
    }
    let trailing_newlines = value.iter().rev().take_while(|b| **b == b'\n').count();
    let (body, newlines) = value.split_at(value.len() - trailing_newlines);
    // The value as units: a character that shows (or a quote), or bytes that do not.
    enum Unit {
        Shows(char),
        Bytes(Vec<u8>),
    }
    let mut units = Vec::new();
    for chunk in body.utf8_chunks() {
        for c in chunk.valid().chars() {
            units.push(match showable(c) {
                true => Unit::Shows(c),
                false => Unit::Bytes(c.to_string().into_bytes()),
            });
        }
        if !chunk.invalid().is_empty() {
            units.push(Unit::Bytes(chunk.invalid().to_vec()));
        }
    }
    let mut out = String::new();
    let mut units = units.into_iter().peekable();
    while let Some(unit) = units.next() {
        match unit {
            Unit::Shows('\'') => out.push_str("\\'"),
            Unit::Shows(c) => {
                out.push('\'');
                out.push(c);
                while let Some(Unit::Shows(c)) = units.peek() {
                    if *c == '\'' {
                        break;
                    }
                    out.push(*c);
                    units.next();
                }
                out.push('\'');
            }
            Unit::Bytes(mut bytes) => {
                // A command substitution drops the newlines it ends with: a run that
                // would end in one takes the next unit too (only the value's own
                // trailing newlines are left, written below).
                loop {
                    let ends_in_newline = bytes.last() == Some(&b'\n');
                    match units.peek() {
                        Some(Unit::Bytes(more)) => bytes.extend_from_slice(more),
                        Some(Unit::Shows(c)) if ends_in_newline => {
                            bytes.extend_from_slice(c.to_string().as_bytes())
                        }
                        _ => break,
                    }
                    units.next();
                }
                out.push_str("\"$(printf '");
                for b in &bytes {
                    out.push_str(&format!("\\{b:03o}"));
                }
                out.push_str("')\"");
            }
        }
    }
    if !newlines.is_empty() {
        out.push('\'');
        out.push_str(&"\n".repeat(newlines.len()));
        out.push('\'');
    }
    if out.is_empty() {
        out.push_str("''");
    }
    out
}

/// A value as a POSIX shell word (UTF-8 text; see [`shell_quote`]).
pub fn quote(value: &str) -> String {
    shell_quote(value.as_bytes())
}

/// A SQL statement to paste, built only from program text and values quoted here, so
/// whatever a name holds it stays one literal or identifier and shows as itself.
#[derive(Debug, Clone, Default)]
pub struct Sql(pub(crate) String);

impl Sql {
    /// Program text (a keyword, a function name, punctuation).
    pub fn new(program: &'static str) -> Sql {
        Sql(program.to_string())
    }

    pub fn push(mut self, program: &'static str) -> Sql {
        self.0.push_str(program);
        self
    }

    /// A number.
    pub fn number(mut self, n: i64) -> Sql {
        self.0.push_str(&n.to_string());
        self
    }

    /// A PostgreSQL identifier, always quoted (a role named `Ops` or `x"y` is then named
    /// exactly); one with characters a terminal would not show as `U&"…"` escapes.
    pub fn ident(mut self, name: &str) -> Sql {
        self.0.push_str(&sql_identifier(name));
        self
    }

    /// `schema.table` or `table`, each part a quoted identifier.
    pub fn qualified(mut self, name: &str) -> Sql {
        self.0.push_str(&qualified(name));
        self
    }

    /// Identifiers separated by `, `.
    pub fn idents<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Sql {
        let parts: Vec<String> = names.into_iter().map(sql_identifier).collect();
        self.0.push_str(&parts.join(", "));
        self
    }

    /// Names from indoubt's own lists (`pg_stat_activity`, `pg_ls_waldir()`), separated
    /// by `, `: each as it is when it holds only letters, digits, `_`, `.` and `()`, else
    /// as a quoted identifier.
    pub fn names<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Sql {
        let parts: Vec<String> = names
            .into_iter()
            .map(|n| {
                match n
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.()".contains(c))
                {
                    true => n.to_string(),
                    false => sql_identifier(n),
                }
            })
            .collect();
        self.0.push_str(&parts.join(", "));
        self
    }

    /// A PostgreSQL string literal of these bytes: `'…'` (quotes doubled), or `E'…'` with
    /// `\xHH` escapes when it holds a backslash or bytes a terminal would not show.
    pub fn literal(mut self, value: &[u8]) -> Sql {
        self.0.push_str(&sql_literal_bytes(value));
        self
    }

    /// A MySQL account `'user'@'host'`, or None when the name holds a backslash, a quote
    /// or a character that would not show (MySQL reads a backslash by sql_mode, so such a
    /// name has no spelling that holds everywhere).
    pub fn mysql_account(mut self, user: &str, host: &str) -> Option<Sql> {
        let fine = |s: &str| s.chars().all(|c| showable(c) && c != '\\' && c != '\'');
        if !fine(user) || !fine(host) {
            return None;
        }
        self.0.push_str(&format!("'{user}'@'{host}'"));
        Some(self)
    }

    /// A MySQL `db`.`table` (or `table`), each part in backticks with backticks doubled,
    /// or None when a name holds a character that would not show.
    pub fn mysql_qualified(mut self, name: &str) -> Option<Sql> {
        if !name.chars().all(showable) {
            return None;
        }
        for (i, part) in name.split('.').enumerate() {
            if i > 0 {
                self.0.push('.');
            }
            self.0.push_str(&format!("`{}`", part.replace('`', "``")));
        }
        Some(self)
    }

    /// A MySQL character string: `'…'` when it holds only characters that show and no
    /// quote or backslash (whose reading depends on sql_mode), else `_utf8mb4 X'…'` of its
    /// bytes, which reads the same in every mode — and is text in every context, where a
    /// bare `X'…'` is a number where one is expected (`SET amount = X'3930'` sets 14640).
    /// The introducer keeps it coercible, as a quoted literal is: `CONVERT(… USING
    /// utf8mb4)` would clash with a column of another collation (ERROR 1267).
    pub fn mysql_text(mut self, value: &str) -> Sql {
        let plain = value.chars().all(|c| showable(c) && c != '\\' && c != '\'');
        match (plain, value.is_empty()) {
            (true, _) | (_, true) => self.0.push_str(&format!("'{value}'")),
            (false, false) => {
                let digits: String = value.bytes().map(|b| format!("{b:02X}")).collect();
                self.0.push_str(&format!("_utf8mb4 X'{digits}'"));
            }
        }
        self
    }

    /// A statement assembled by a library from program text and names quoted by
    /// [`qualified`] or [`sql_identifier`] and literals by [`sql_literal`] (all of which
    /// show as themselves), as the outbox relay's statements are.
    pub fn assembled(statement: String) -> Sql {
        Sql(statement)
    }

    /// The statement after a comment saying where it is to run (`/* in database shop of
    /// target lab */`): a comment that cannot end early (`*/` and `/*` in the text are
    /// broken up), holding only characters that show, and no `'` (a reader, or a layout
    /// breaking the line between words, would take it to open a string): it is written
    /// `’`, which reads the same.
    pub fn placed(self, place: &str) -> Sql {
        let said: String = place
            .chars()
            .map(|c| match c {
                '\'' => '’',
                c if showable(c) => c,
                _ => '?',
            })
            .collect::<String>()
            .replace("*/", "* /")
            .replace("/*", "/ *");
        Sql(format!("/* {said} */ {}", self.0))
    }

    /// The statement as one line.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `schema.table` or `table` as SQL: each part a quoted identifier ([`sql_identifier`]).
pub fn qualified(name: &str) -> String {
    name.split('.')
        .map(sql_identifier)
        .collect::<Vec<_>>()
        .join(".")
}

/// A PostgreSQL identifier: `"…"` with quotes doubled; `U&"…"` with `\XXXX` (or
/// `\+XXXXXX`) for the characters a terminal would not show and `\\` for a backslash.
pub fn sql_identifier(value: &str) -> String {
    if value.chars().all(showable) {
        return format!("\"{}\"", value.replace('"', "\"\""));
    }
    let mut out = String::from("U&\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\\' => out.push_str("\\\\"),
            c if showable(c) => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\{:04X}", c as u32)),
            c => out.push_str(&format!("\\+{:06X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A PostgreSQL string literal: `'…'` with quotes doubled (standard_conforming_strings).
pub fn sql_literal(value: &str) -> String {
    sql_literal_bytes(value.as_bytes())
}

fn sql_literal_bytes(value: &[u8]) -> String {
    let simple = std::str::from_utf8(value)
        .ok()
        .filter(|s| s.chars().all(|c| showable(c) && c != '\\'));
    if let Some(s) = simple {
        return format!("'{}'", s.replace('\'', "''"));
    }
    let mut out = String::from("E'");
    for chunk in value.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\'' => out.push_str("''"),
                '\\' => out.push_str("\\\\"),
                c if showable(c) => out.push(c),
                c => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).as_bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_mysql_string_is_quoted_when_plain_and_hex_otherwise() {
        let lit = |v: &str| Sql::new("").mysql_text(v).as_str().to_string();
        assert_eq!(lit("10.0.0.1:8091:42"), "'10.0.0.1:8091:42'");
        assert_eq!(lit("a'b"), "_utf8mb4 X'612762'");
        assert_eq!(lit("a\\b"), "_utf8mb4 X'615C62'");
        assert_eq!(lit("a\nb"), "_utf8mb4 X'610A62'");
        assert_eq!(lit(""), "''");
    }

    use super::*;

    #[test]
    fn a_place_comment_cannot_end_early_or_hide_text() {
        let sql = Sql::new("SELECT 1;").placed("in database x */ DROP TABLE t; /* \u{1b}[2J");
        assert_eq!(
            sql.as_str(),
            "/* in database x * / DROP TABLE t; / * ?[2J */ SELECT 1;"
        );
        let sql = Sql::new("SELECT 1;").placed("in \u{1b}\u{202e}");
        assert_eq!(sql.as_str(), "/* in ?? */ SELECT 1;");
        let sql = Sql::new("SELECT 1;").placed("of target it's");
        assert_eq!(sql.as_str(), "/* of target it’s */ SELECT 1;");
    }
}
