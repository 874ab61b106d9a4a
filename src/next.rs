//! The command to run next for a finding, as it can be typed: an indoubt command line
//! (its --dry-run form where it writes) built from words, every value quoted for a POSIX
//! shell, with the `--config` of this run so it addresses the same targets; or a SQL
//! statement built from program text and quoted values.
//!
//! A next command is pasted into a shell or a psql prompt, so it is built once from the
//! raw values (bytes) and quoted by the one function for its language; the result holds
//! only characters a terminal shows as themselves, so no display escaping ever touches
//! it (that escaping doubled the backslash of `'\''` and turned a quoted GID into code).

pub use crate::quote::{quote, shell_quote, Sql};
use crate::text::RawText;
use serde::{Serialize, Serializer};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// How this run was invoked, as far as a next command must repeat it.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// `--config FILE` when given as a flag ($INDOUBT_CONFIG is still set for the
    /// next command; the default path needs nothing).
    pub config: Option<PathBuf>,
}

/// One word of a command line.
#[derive(Clone, Copy)]
pub enum Word<'a> {
    /// Program text: a subcommand or a flag.
    Lit(&'static str),
    /// A value (a topic, a target name, a number): quoted when a shell would read it otherwise.
    Value(&'a str),
    /// A value that is server text, maybe not UTF-8: given to the command byte for byte.
    Raw(&'a RawText),
}

/// One argument of a command line: its exact bytes, and whether it is a value (a flag
/// before a value that starts with `-` takes it as `--flag=VALUE`).
struct Arg {
    bytes: Vec<u8>,
    value: bool,
}

impl Arg {
    fn program(text: &str) -> Arg {
        Arg {
            bytes: text.as_bytes().to_vec(),
            value: false,
        }
    }

    fn value(bytes: &[u8]) -> Arg {
        Arg {
            bytes: bytes.to_vec(),
            value: true,
        }
    }
}

impl From<&Word<'_>> for Arg {
    fn from(word: &Word) -> Arg {
        match word {
            Word::Lit(lit) => Arg::program(lit),
            Word::Value(value) => Arg::value(value.as_bytes()),
            Word::Raw(raw) => Arg::value(raw.as_bytes()),
        }
    }
}

impl<'a> Word<'a> {
    /// The same word, borrowed again (a list of words is assembled from others).
    pub fn copy(&self) -> Word<'a> {
        match self {
            Word::Lit(lit) => Word::Lit(lit),
            Word::Value(value) => Word::Value(value),
            Word::Raw(raw) => Word::Raw(raw),
        }
    }
}

/// The next command of a finding: JSON gets it as one string, the table on lines of its
/// own, broken between words where it must (a shell command with ` \` continuations).
#[derive(Debug, Clone, PartialEq)]
pub struct Next {
    /// Each word as it is typed (quoted), showable as it is.
    words: Vec<String>,
    /// A POSIX shell command line (else a SQL statement): how a break is written.
    shell: bool,
}

impl Serialize for Next {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.line())
    }
}

impl Next {
    /// `indoubt [--config FILE] WORDS…`.
    pub fn indoubt(invocation: &Invocation, words: &[Word]) -> Next {
        let mut args: Vec<Arg> = vec![Arg::program("indoubt")];
        if let Some(config) = &invocation.config {
            args.push(Arg::program("--config"));
            args.push(Arg::value(config.as_os_str().as_bytes()));
        }
        args.extend(words.iter().map(Arg::from));
        Next::shell(args)
    }

    /// Another tool's command line (`kafka-acls.sh …`), its values quoted for a POSIX shell.
    pub fn tool(program: &'static str, words: &[Word]) -> Next {
        let mut args: Vec<Arg> = vec![Arg::program(program)];
        args.extend(words.iter().map(Arg::from));
        Next::shell(args)
    }

    /// A configured program's command line (`[/srv/app/.venv/bin/dbos, …]`) and its
    /// values: every word quoted for a POSIX shell.
    pub fn argv(argv: &[String]) -> Next {
        let mut args: Vec<Arg> = Vec::with_capacity(argv.len());
        args.extend(argv.first().map(|p| Arg::value(p.as_bytes())));
        args.extend(argv.iter().skip(1).map(|a| Arg {
            bytes: a.as_bytes().to_vec(),
            value: !a.starts_with('-'),
        }));
        Next::shell(args)
    }

    /// A command line from its arguments, exactly: each quoted for a POSIX shell. A flag
    /// followed by a value that starts with `-` becomes `--flag=VALUE`, one word, so the
    /// value cannot be read as a flag of its own.
    fn shell(args: Vec<Arg>) -> Next {
        let mut words = Vec::with_capacity(args.len());
        let mut args = args.into_iter().peekable();
        while let Some(arg) = args.next() {
            let is_flag = !arg.value && arg.bytes.starts_with(b"--") && arg.bytes.len() > 2;
            match args.next_if(|next| is_flag && next.value && next.bytes.starts_with(b"-")) {
                Some(value) => words.push(format!(
                    "{}={}",
                    shell_quote(&arg.bytes),
                    shell_quote(&value.bytes)
                )),
                None => words.push(shell_quote(&arg.bytes)),
            }
        }
        Next { words, shell: true }
    }

    /// A SQL statement to run, built by [`Sql`] (its values quoted there).
    pub fn sql(statement: Sql) -> Next {
        let words = crate::report::layout::command_words(statement.as_str(), false)
            .into_iter()
            .map(str::to_string)
            .collect();
        Next {
            words,
            shell: false,
        }
    }

    /// The whole line as an evidence block's value ("will run"): as typed, not escaped —
    /// its words show as themselves, and escaping would change what is read or pasted.
    pub fn shown(&self) -> crate::term::Shown {
        #[allow(clippy::disallowed_methods)]
        crate::term::Shown::__from_format(format_args!("{}", self.line()))
    }

    /// The words as typed: a break between two of them changes nothing a shell or psql reads.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The whole command or statement on one line.
    pub fn line(&self) -> String {
        self.words.join(" ")
    }

    /// A shell command line (broken lines end in ` \`), else a SQL statement (broken
    /// lines need nothing: SQL reads a newline as a space).
    pub fn is_shell(&self) -> bool {
        self.shell
    }
}

#[cfg(test)]
mod tests {

    /// A configured program's line: every word quoted as a shell reads it, a planted
    /// quote staying inside its word (shown as typed, never escaped again).
    #[test]
    fn a_configured_programs_words_are_each_quoted() {
        let argv: Vec<String> = [
            "/srv/app bin/dbos",
            "workflow",
            "--sys-db-url",
            "postgresql://u@h/d?a=1&b=2",
            "--",
            "m'1$(x);y",
        ]
        .map(String::from)
        .to_vec();
        let next = Next::argv(&argv);
        assert_eq!(
            next.line(),
            r"'/srv/app bin/dbos' workflow --sys-db-url 'postgresql://u@h/d?a=1&b=2' -- 'm'\''1$(x);y'"
        );
        assert_eq!(next.shown().as_str(), next.line());
    }

    use super::*;
    use crate::quote::{sql_identifier, sql_literal};

    #[test]
    fn values_are_quoted_only_when_a_shell_would_misread_them() {
        assert_eq!(quote("payments-7"), "payments-7");
        assert_eq!(quote("131077_orders_4711"), "131077_orders_4711");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("'"), "\\'");
        assert_eq!(shell_quote(b"g\xff'"), "'g'\"$(printf '\\377')\"\\'");
        assert_eq!(quote("a\nb\n"), "'a'\"$(printf '\\012\\142')\"'\n'");
        assert_eq!(sql_literal("o'brien"), "'o''brien'");
        assert_eq!(sql_literal("a\\b\n"), "E'a\\\\b\\x0a'");
        assert_eq!(sql_identifier("x\u{202e}y"), "U&\"x\\202Ey\"");
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
            next.line(),
            "indoubt --config tests/lab/indoubt.yaml resolve kafka --topic 'my topic' --dry-run"
        );
        let raw = RawText::from(b"g\xff".to_vec());
        let next = Next::indoubt(&Invocation::default(), &[Word::Raw(&raw)]);
        assert_eq!(next.line(), "indoubt 'g'\"$(printf '\\377')\"");
    }

    #[test]
    fn a_value_that_starts_with_a_dash_is_joined_to_its_flag() {
        let next = Next::indoubt(
            &Invocation {
                config: Some("-x y".into()),
            },
            &[Word::Lit("check"), Word::Lit("--pg"), Word::Value("-lab")],
        );
        assert_eq!(
            next.words(),
            ["indoubt", "--config='-x y'", "check", "--pg=-lab"]
        );
    }
}
