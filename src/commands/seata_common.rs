//! What the `seata` probes share besides their settings (src/settings/seata.rs): the
//! sessions on a store or a client database, what the store says of globals other tables
//! name, and the findings about a client table that could not be read.

pub(crate) mod codes;

use crate::codes::Code;
pub(crate) use crate::settings::seata::{settings, Client, Coordinator, Db, SeataSettings};

use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::Target;
use crate::seata::mysql_store;
use crate::seata::store::{self, Known, Problem};
use crate::settings::probe::Uses;
use anyhow::Result;
use std::collections::BTreeMap;

/// What one client table came to: what was read, the problems that kept it from being
/// read, or why nothing could be.
pub(crate) enum ClientRead<T> {
    Read(T),
    Problems(Vec<Problem>),
    Failed(anyhow::Error),
}

/// A read-only session on a client's business database (a resolution's writes connect
/// through `client_target`).
pub(crate) async fn connect_client(
    ctx: &Context,
    client: &Client,
) -> Result<crate::appdb::Session> {
    super::appdb_common::connect(ctx, &client.db).await
}

/// A read-only session on a client's business database for reading `table`; the problem
/// instead when MySQL refuses the account the database (no privilege on anything in it):
/// the table is as unreadable as one it may not SELECT, and one GRANT mends both.
pub(crate) async fn connect_to_read(
    ctx: &Context,
    client: &Client,
    table: &str,
) -> Result<Result<crate::appdb::Session, Vec<Problem>>> {
    match connect_client(ctx, client).await {
        Ok(session) => Ok(Ok(session)),
        Err(e) if super::appdb_common::database_denied(&e) => Ok(Err(vec![Problem::NotReadable {
            table: table.to_string(),
        }])),
        Err(e) => Err(e),
    }
}

/// The business database a resolution writes in: an unusable target is the error.
pub(crate) fn client_target(client: &Client) -> Result<crate::resolve::apply::appdb::AppTarget> {
    super::appdb_common::target(&client.db)
}

/// What the coordinator's store says now of these global transactions, by xid (an xid
/// it has no row for is missing from the map); the error when it cannot be read.
pub(crate) async fn known_globals(
    ctx: &Context,
    c: &Coordinator,
    xids: &[String],
) -> Result<BTreeMap<String, Known>> {
    if xids.is_empty() {
        return Ok(BTreeMap::new());
    }
    match &c.store {
        Db::Postgres(target) => {
            let session = super::appdb_common::connect_pg(ctx, target).await?;
            store::globals_of(&session, &c.global_table, xids).await
        }
        Db::Mysql(target) => {
            let mut session = super::appdb_common::connect_mysql(ctx, target).await?;
            let known = mysql_store::globals_of(&mut session, &c.global_table, xids).await;
            session.close().await;
            known
        }
    }
}

/// What the coordinator's store says one global holds: its AT branches, and which of
/// `rows` (table, pk) it locks.
pub(crate) async fn held(
    ctx: &Context,
    c: &Coordinator,
    xid: &str,
    rows: &[(String, String)],
) -> Result<store::Held> {
    let tables = c.tables();
    match &c.store {
        Db::Postgres(target) => {
            let session = super::appdb_common::connect_pg(ctx, target).await?;
            store::held(&session, tables, xid, rows).await
        }
        Db::Mysql(target) => {
            let mut session = super::appdb_common::connect_mysql(ctx, target).await?;
            let held = mysql_store::held(&mut session, tables, xid, rows).await;
            session.close().await;
            held
        }
    }
}

/// A client table that could not be read: UNKNOWN, with what would show it. (`code` is
/// always `codes::SEATA_CLIENT_UNREADABLE`: named by each probe, which lists it.)
pub(crate) fn client_problem(
    code: Code,
    c: &Coordinator,
    client: &Client,
    what: &str,
    problem: &Problem,
) -> Finding {
    super::appdb_common::Unreadable {
        code,
        subject: client_subject(c, client),
        db: &client.db,
        place: client.place(),
        missing: (
            "is it named as the client's settings name it?",
            "name the client's tables under seata: NAME: clients: in the config as its settings name them",
        ),
        layout: "a Seata table (another product's, or a Seata version indoubt does not read)",
        grant_on: "it",
        what: Some(what),
    }
    .finding(problem)
}

/// A client's read that failed: UNKNOWN (`code` as in `client_problem`).
pub(crate) fn client_failed(
    code: Code,
    c: &Coordinator,
    client: &Client,
    e: &anyhow::Error,
) -> Finding {
    Finding::new(
        Severity::Unknown,
        code,
        client_subject(c, client),
        format!("{e:#}"),
    )
}

pub(crate) fn client_subject(c: &Coordinator, client: &Client) -> String {
    format!("seata coordinator {} client {}", c.name, client.name)
}

/// Where a `seata` report looked: the config file that names the coordinators.
pub(crate) fn report_target(settings: &SeataSettings) -> Target {
    Target::config_file("seata", settings.config_file.as_deref())
}

/// The runs `check` makes of a `seata` client probe: each coordinator with `check: true`
/// one of whose clients holds the probe's table (`holds`).
pub(crate) fn client_plan(
    config: &crate::config::Config,
    probe: &str,
    holds: fn(&crate::config::SeataClientConfig) -> bool,
) -> Vec<(String, Vec<String>)> {
    config
        .seata
        .iter()
        .filter(|(_, c)| c.check && c.clients.values().any(holds))
        .map(|(name, _)| crate::settings::probe::planned(name, &["seata", probe, "--", name]))
        .collect()
}

/// The tables a client probe reads of one client (a table's name and its columns).
pub(crate) type ClientTables = Vec<(String, &'static [&'static str])>;

/// What a `seata` client probe reads in each client's database: the tables `tables` names
/// of it (none when the client holds none of the probe's), with their columns.
pub(crate) fn client_reads(
    config: &crate::config::Config,
    tables: fn(&crate::config::SeataClientConfig) -> ClientTables,
) -> Vec<Uses> {
    let mut reads = Vec::new();
    for (name, c) in &config.seata {
        for (client, k) in &c.clients {
            let section = format!("seata coordinator {name} client {client}");
            for (table, columns) in tables(k) {
                reads.push(match (&k.postgres, &k.mysql) {
                    (Some(pg), _) => Uses::pg_table(&section, pg, &table, columns),
                    (None, my) => {
                        Uses::mysql_table(&section, my.as_deref().unwrap_or(""), &table, columns)
                    }
                });
            }
        }
    }
    reads
}

/// A row of an AT branch against the table now, as the evidence says it.
pub(crate) fn row_now(now: &crate::seata::undo::Now) -> String {
    use crate::seata::undo::Now;
    match now {
        Now::AsAfter => "as the branch left it".into(),
        Now::AsBefore => "as before the branch".into(),
        Now::Changed { columns } if columns.is_empty() => {
            "written again after the branch deleted it".into()
        }
        Now::Changed { columns } => format!(
            "changed after the branch: {}",
            columns
                .iter()
                .map(|c| format!("{} {} -> {}", c.column, c.after, c.now))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Now::Deleted => "deleted after the branch updated it".into(),
        Now::Reverted => "as before the branch while other rows of its statement are not, which the rollback refuses as a whole".into(),
        Now::NotCompared { why } => format!("not compared: {why}"),
    }
}
