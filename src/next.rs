//! The command to run next for a finding, as it can be typed: an indoubt command line
//! (its --dry-run form where it writes) built from words, every value quoted for a POSIX
//! shell, with the `--config` of this run so it addresses the same targets.

use crate::text::{RawText, Text};
use serde::Serialize;
use std::path::PathBuf;

/// How this run was invoked, as far as a next command must repeat it.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// `--config FILE` when given as a flag ($INDOUBT_CONFIG is still set for the
    /// next command; the default path needs nothing).
    pub config: Option<PathBuf>,
}

/// One word of a command line.
pub enum Word<'a> {
    /// Program text: a subcommand or a flag.
    Lit(&'static str),
    /// A value (a topic, a GID, a path): quoted when the shell would read it otherwise.
    Value(&'a str),
    /// A value that is server text, maybe not UTF-8 (shown escaped, as indoubt reads it).
    Raw(&'a RawText),
}

/// The next command of a finding: JSON gets it as one string, the table on lines of its
/// own, broken between words where it must (a shell command with ` \` continuations).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Next {
    text: Text,
    /// A POSIX shell command line (else a SQL statement): how a break is written.
    #[serde(skip)]
    shell: bool,
}

impl Next {
    /// `indoubt [--config FILE] WORDS…`.
    pub fn indoubt(invocation: &Invocation, words: &[Word]) -> Next {
        let mut line = Text::from("indoubt");
        if let Some(config) = &invocation.config {
            line.push_str(" --config ");
            line.push_str(&quote(&config.to_string_lossy()));
        }
        for word in words {
            line.push_str(" ");
            match word {
                Word::Lit(lit) => line.push_str(lit),
                Word::Value(value) => line.push_str(&quote(value)),
                Word::Raw(raw) => match raw.as_str() {
                    Some(text) => line.push_str(&quote(text)),
                    None => {
                        // Not UTF-8: indoubt takes the escaped form (which has no quote).
                        line.push_str("'");
                        line.push_raw(raw);
                        line.push_str("'");
                    }
                },
            }
        }
        Next {
            text: line,
            shell: true,
        }
    }

    /// Another tool's command line (`kafka-acls.sh …`), its values quoted for a POSIX shell.
    pub fn tool(program: &'static str, words: &[Word]) -> Next {
        let mut line = Text::from(program);
        for word in words {
            line.push_str(" ");
            match word {
                Word::Lit(lit) => line.push_str(lit),
                Word::Value(value) => line.push_str(&quote(value)),
                Word::Raw(raw) => line.push_str(&quote(&raw.to_text())),
            }
        }
        Next {
            text: line,
            shell: true,
        }
    }

    /// A SQL statement to run, as written (its literals quoted by the caller).
    pub fn sql(statement: Text) -> Next {
        Next {
            text: statement,
            shell: false,
        }
    }

    pub fn text(&self) -> &Text {
        &self.text
    }

    /// A shell command line (broken lines end in ` \`), else a SQL statement (broken
    /// lines need nothing: SQL reads a newline as a space).
    pub fn is_shell(&self) -> bool {
        self.shell
    }
}

/// A value as a POSIX shell word: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside as `'\''`).
pub fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c));
    match plain {
        true => value.to_string(),
        false => format!("'{}'", value.replace('\'', "'\\''")),
    }
}

/// A SQL identifier: `"…"` with quotes doubled, always quoted (a role named `Ops` or
/// `x"y` is then named exactly).
pub fn sql_identifier(value: &str) -> String {
    format!("\"{}\"", value.replace('"', "\"\""))
}

/// A SQL string literal: `'…'` with quotes doubled (standard_conforming_strings).
pub fn sql_literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_only_when_a_shell_would_misread_them() {
        assert_eq!(quote("payments-7"), "payments-7");
        assert_eq!(quote("131077_orders_4711"), "131077_orders_4711");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(quote(""), "''");
        assert_eq!(sql_literal("o'brien"), "'o''brien'");
    }

    #[test]
    fn a_next_command_repeats_the_config_flag() {
        let inv = Invocation {
            config: Some("tests/lab/indoubt.yaml".into()),
        };
        let next = Next::indoubt(
            &inv,
            &[
                Word::Lit("resolve"),
                Word::Lit("kafka"),
                Word::Lit("--topic"),
                Word::Value("my topic"),
                Word::Lit("--dry-run"),
            ],
        );
        assert_eq!(
            next.text().plain(),
            "indoubt --config tests/lab/indoubt.yaml resolve kafka --topic 'my topic' --dry-run"
        );
        let raw = RawText::from(b"g\xff".to_vec());
        let next = Next::indoubt(&Invocation::default(), &[Word::Raw(&raw)]);
        assert_eq!(next.text().escaped(), "indoubt 'g\\xff'");
    }
}
