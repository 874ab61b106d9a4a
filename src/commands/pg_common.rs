//! What the PostgreSQL commands share: a read of the whole server, once per server in a
//! check run; and for their next commands, the words that address this run's server
//! again, the `resolve pg … --dry-run` of a prepared transaction, and the SQL that drops
//! a replication slot or ends a session.

use crate::cli::PgTargetArgs;
use crate::context::Context;
use crate::next::{Invocation, Next, Sql, Word};
use crate::pg::conninfo::redact_if_it_holds_a_password;
use crate::pg::session::{self, Session};
use crate::pg::{Gap, Grant};
use crate::settings::targets::PgTarget;
use crate::text::{RawText, Text};
use anyhow::Result;

/// A gap of a PostgreSQL read as the operator reads it: what was not seen, and the grant
/// to the monitoring role that shows it.
pub(crate) fn gap_text(gap: &Gap) -> Text {
    match gap {
        Gap::MissingPrivilege { what, grant } => {
            let grant = match grant {
                Grant::ReadAllStats => Text::from("pg_monitor (or pg_read_all_stats)"),
                Grant::Monitor => Text::from("pg_monitor"),
                Grant::Connect(database) => {
                    crate::text!["CONNECT ON DATABASE \"", database, "\""]
                }
            };
            crate::text![what, ": GRANT ", grant, " TO the monitoring role"]
        }
        Gap::Unread(text) => text.clone(),
    }
}

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

/// `SELECT pg_drop_replication_slot('NAME')`.
pub fn drop_slot(name: &str) -> Next {
    Next::sql(
        Sql::new("SELECT pg_drop_replication_slot(")
            .literal(name.as_bytes())
            .push(")"),
    )
}

/// `SELECT pg_terminate_backend(PID)`.
pub fn terminate(pid: i32) -> Next {
    Next::sql(
        Sql::new("SELECT pg_terminate_backend(")
            .number(pid.into())
            .push(")"),
    )
}

/// A read of the whole server (every database's prepared transactions, its slots, its
/// horizon), once per server, user and `question` in a check run: targets that are
/// databases of one server share it and one connection (see `shared`). Alone, a read of
/// its own over a session of its own.
pub async fn server_read<T, F>(
    ctx: &Context,
    check: &'static str,
    target: &PgTarget,
    question: String,
    read: impl FnOnce(std::sync::Arc<Session>) -> F,
) -> Result<T>
where
    T: std::any::Any + Send + Sync + Clone,
    F: std::future::Future<Output = Result<T>>,
{
    // The server, the user and the TLS settings, whatever the database.
    let server = target.params.server_key();
    let key = format!("{check}|{server}|{question}");
    super::shared::once(ctx, key, || async {
        let session = super::shared::once_shared(ctx, format!("session|{server}"), || async {
            ctx.note(format!("connecting to {}", target.params.describe()));
            session::connect(&target.params, ctx.timeout).await
        })
        .await?;
        read(session).await
    })
    .await
}
