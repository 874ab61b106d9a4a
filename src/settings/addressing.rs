//! How a next command reaches the server this run inspected: the flags that address it
//! again (`--pg NAME`, the connection string, psql's -h/-p/-U/-d), decided with the
//! settings, and the `indoubt …` command line they go into.

use crate::cli::PgTargetArgs;
use crate::next::{Invocation, Next, Word};
use crate::pg::conninfo::redact_if_it_holds_a_password;
use crate::settings::targets::PgTarget;
use crate::text::RawText;

/// How a next command reaches the server this run inspected.
pub struct Addressing {
    invocation: Invocation,
    /// Flags and their values, e.g. `--pg lab`, `-h db1 -p 5433`.
    flags: Vec<(&'static str, String)>,
}

impl Addressing {
    /// The config's target by its name; else the --pg or -d connection string as given
    /// when it holds no password, or its host, port, user and database as psql's flags
    /// when it does (a password is never printed: the next command takes it from
    /// PGPASSWORD or the password file, as libpq does); then the -h, -p, -U, -d given.
    /// PG* variables need nothing: the next command runs with the same environment.
    pub fn new(invocation: &Invocation, args: &PgTargetArgs, target: &PgTarget) -> Addressing {
        let mut flags: Vec<(&'static str, String)> = Vec::new();
        let conninfo_in_d = args
            .dbname
            .as_deref()
            .filter(|d| crate::pg::conninfo::looks_like_conninfo(d));
        let conninfo = match (&target.name, conninfo_in_d, args.pg.as_deref()) {
            (Some(name), _, _) => {
                flags.push(("--pg", name.clone()));
                None
            }
            (None, Some(d), _) => Some(("-d", d)),
            (None, None, Some(pg)) => Some(("--pg", pg)),
            (None, None, None) => None,
        };
        let mut psql = [
            ("-h", args.host.clone()),
            ("-p", args.port.clone()),
            ("-U", args.username.clone()),
            (
                "-d",
                args.dbname
                    .as_ref()
                    .map(|d| d.0.clone())
                    .filter(|_| conninfo_in_d.is_none()),
            ),
        ];
        match conninfo {
            Some((flag, text)) if redact_if_it_holds_a_password(text).is_none() => {
                flags.push((flag, text.to_string()))
            }
            Some(_) => {
                // Its settings, from what was resolved; the flags given still win.
                let p = &target.params;
                let ports = p.ports.iter().map(u16::to_string).collect::<Vec<_>>();
                let resolved = [
                    Some(p.hosts.join(",")).filter(|h| !h.is_empty()),
                    Some(ports.join(",")).filter(|p| !p.is_empty()),
                    Some(p.user.clone()),
                    Some(p.dbname.clone()),
                ];
                for ((_, given), resolved) in psql.iter_mut().zip(resolved) {
                    if given.is_none() {
                        *given = resolved;
                    }
                }
            }
            None => {}
        }
        flags.extend(psql.into_iter().filter_map(|(flag, v)| Some((flag, v?))));
        Addressing {
            invocation: invocation.clone(),
            flags,
        }
    }

    /// A server addressed by these flags (another engine's target flags: `--mysql NAME`).
    pub fn with_flags(invocation: &Invocation, flags: Vec<(&'static str, String)>) -> Addressing {
        Addressing {
            invocation: invocation.clone(),
            flags,
        }
    }

    /// Another target of the config, by its name (`--pg NAME`), in the same invocation.
    pub fn of_config_target(&self, name: &str) -> Addressing {
        Addressing {
            invocation: self.invocation.clone(),
            flags: vec![("--pg", name.to_string())],
        }
    }

    /// A MySQL target of the config, by its name (`--mysql NAME`), in the same invocation.
    pub fn of_mysql_target(&self, name: &str) -> Addressing {
        Addressing {
            invocation: self.invocation.clone(),
            flags: vec![("--mysql", name.to_string())],
        }
    }

    /// `indoubt [--config F] WORDS… TARGET-FLAGS… [TAIL…]`.
    pub fn indoubt(&self, words: &[Word], tail: &[Word]) -> Next {
        let mut all: Vec<Word> = Vec::with_capacity(words.len() + 2 * self.flags.len());
        for word in words {
            all.push(word.copy());
        }
        for (flag, value) in &self.flags {
            all.push(Word::Lit(flag));
            all.push(Word::Value(value));
        }
        for word in tail {
            all.push(word.copy());
        }
        Next::indoubt(&self.invocation, &all)
    }

    /// `indoubt resolve pg GID … --dry-run`: the evidence and the statement a decision
    /// would run, changing nothing. A GID starting with `-` comes after `--`.
    pub fn resolve(&self, gid: &RawText) -> Next {
        match gid.as_bytes().starts_with(b"-") {
            true => self.indoubt(
                &[Word::Lit("resolve"), Word::Lit("pg")],
                &[Word::Lit("--dry-run"), Word::Lit("--"), Word::Raw(gid)],
            ),
            false => self.indoubt(
                &[Word::Lit("resolve"), Word::Lit("pg"), Word::Raw(gid)],
                &[Word::Lit("--dry-run")],
            ),
        }
    }
}
