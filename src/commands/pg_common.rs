//! What the PostgreSQL commands share: a read of the whole server, once per server in a
//! check run; the wording of what a read could not see; and for their next commands, the
//! SQL that drops a replication slot or ends a session (the words that address this
//! run's server again are the settings', src/settings/addressing.rs).

use crate::context::Context;
use crate::next::{Next, Sql};
use crate::pg::session::{self, Session};
use crate::pg::{Gap, Grant};
use crate::settings::probe::planned;
use crate::settings::targets::PgTarget;
use crate::text::Text;
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

// Made with the settings (src/settings/addressing.rs); the commands build next commands with it.
pub use crate::settings::addressing::Addressing;

/// `SELECT pg_drop_replication_slot('NAME');`, after a comment naming the server it
/// runs on ([`server`]); any database of it will do, a logical slot's too.
pub fn drop_slot(name: &str, server: &str) -> Next {
    Next::sql(
        Sql::new("SELECT pg_drop_replication_slot(")
            .literal(name.as_bytes())
            .push(");")
            .placed(&place_in(server, None)),
    )
}

/// `SELECT pg_terminate_backend(PID);`, after a comment naming the server it runs on.
pub fn terminate(pid: i32, server: &str) -> Next {
    Next::sql(
        Sql::new("SELECT pg_terminate_backend(")
            .number(pid.into())
            .push(");")
            .placed(&place_in(server, None)),
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

/// A probe's runs in `check`: one on every `postgres` target of the config, addressed
/// as `--pg=NAME` (a name starting with `-` stays a name).
pub fn on_every_server(
    config: &crate::config::Config,
    command: &[&str],
) -> Vec<(String, Vec<String>)> {
    config
        .postgres
        .keys()
        .map(|name| planned(name, &[command, &[&format!("--pg={name}")]].concat()))
        .collect()
}

pub(crate) use crate::settings::targets::{place, place_in, server};
