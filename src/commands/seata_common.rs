//! What the `seata` probes share: each coordinator of the config (or the one named), its
//! store and tables, its clients' business databases and the tables each holds, its
//! thresholds, resolved before anything is read; and where a statement for one runs.

pub(crate) mod codes;

use crate::codes::Code;
use crate::config::{SeataClientConfig, SeataConfig};
use crate::context::Context;
use crate::error::hinted;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::next::Next;
use crate::pg::session::{self, Session};
use crate::report::Target;
use crate::seata::mysql_store;
use crate::seata::store::{self, Known, Problem};
use crate::settings::defaults;
use crate::settings::targets::{MysqlTarget, Referenced, Targets};
use crate::settings::{pair, Setting};
use crate::text;
use crate::text::Text;
use crate::units::format_duration;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the coordinators it reads.
pub struct SeataSettings {
    pub coordinators: Vec<Coordinator>,
    /// Branches, locked rows, states listed per item.
    pub show: usize,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One coordinator of the config.
pub struct Coordinator {
    pub name: String,
    /// The config's `postgres:` or `mysql:` as written.
    pub written: String,
    /// Its store's server; one that cannot be used is this coordinator's UNKNOWN.
    pub store: Store,
    pub global_table: String,
    pub branch_table: String,
    pub lock_table: String,
    pub grace: Setting<Duration>,
    pub critical_age: Setting<Duration>,
    pub reservation_age: Setting<Duration>,
    pub saga_stall: Setting<Duration>,
    pub fence_retention: Setting<Duration>,
    pub clients: Vec<Client>,
}

/// Where a coordinator's store is.
// One per coordinator of the config: its size is of no consequence.
#[allow(clippy::large_enum_variant)]
pub enum Store {
    Postgres(Referenced),
    Mysql(Result<MysqlTarget, String>),
}

/// A business database of the coordinator's clients, and the Seata tables it holds.
pub struct Client {
    pub name: String,
    /// The config's `postgres:` as written.
    pub postgres: String,
    pub target: Referenced,
    pub undo_log: Option<String>,
    pub tcc_fence_log: Option<String>,
    pub saga_table_prefix: Option<String>,
}

impl Client {
    fn of(t: &Targets, name: &str, c: &SeataClientConfig) -> Client {
        Client {
            name: name.to_string(),
            postgres: c.postgres.clone(),
            target: t.referenced(&c.postgres),
            undo_log: c.undo_log.clone(),
            tcc_fence_log: c.tcc_fence_log.clone(),
            saga_table_prefix: c.saga_table_prefix.clone(),
        }
    }

    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        super::pg_common::place(&self.target, &self.postgres)
    }
}

/// A coordinator's grace and critical age: the config's, else the defaults (`config
/// show` shows the same).
pub fn ages(name: &str, c: &SeataConfig) -> (Setting<Duration>, Setting<Duration>) {
    (
        Setting::duration_in(&defaults::SEATA_GRACE, name, c.grace),
        Setting::duration_in(&defaults::SEATA_CRITICAL_AGE, name, c.critical_age),
    )
}

/// A coordinator's thresholds for its clients' tables: (reservation age, saga stall,
/// fence retention).
pub fn client_ages(
    name: &str,
    c: &SeataConfig,
) -> (Setting<Duration>, Setting<Duration>, Setting<Duration>) {
    (
        Setting::duration_in(&defaults::SEATA_RESERVATION_AGE, name, c.reservation_age),
        Setting::duration_in(&defaults::SEATA_SAGA_STALL, name, c.saga_stall),
        Setting::duration_in(&defaults::SEATA_FENCE_RETENTION, name, c.fence_retention),
    )
}

pub fn coordinator(t: &Targets, name: &str, c: &SeataConfig) -> Result<Coordinator> {
    let (grace, critical_age) = ages(name, c);
    let (reservation_age, saga_stall, fence_retention) = client_ages(name, c);
    let (written, store) = match (&c.postgres, &c.mysql) {
        (Some(pg), None) => (pg.clone(), Store::Postgres(t.referenced(pg))),
        (None, Some(my)) => (my.clone(), Store::Mysql(t.mysql_referenced(my))),
        _ => {
            return Err(hinted(
                format!("seata coordinator {name} names its store by neither or both of postgres: and mysql:"),
                "name the store's database with exactly one of them (see `man 5 indoubt-config`)",
            ))
        }
    };
    Ok(Coordinator {
        name: name.to_string(),
        written,
        store,
        global_table: c.global_table.clone(),
        branch_table: c.branch_table.clone(),
        lock_table: c.lock_table.clone(),
        grace,
        critical_age,
        reservation_age,
        saga_stall,
        fence_retention,
        clients: c
            .clients
            .iter()
            .map(|(n, client)| Client::of(t, n, client))
            .collect(),
    })
}

impl Coordinator {
    /// The store as the report names it: the config's target name, or the connection
    /// without its password.
    pub fn store_shown(&self) -> String {
        match &self.store {
            Store::Postgres(Ok(t)) => t.name.clone().unwrap_or_else(|| t.params.describe()),
            Store::Mysql(Ok(_)) => format!("mysql target {}", self.written),
            _ => "(unusable: see the finding)".into(),
        }
    }

    /// Where a statement for its store runs: a statement names no server.
    pub fn place(&self) -> String {
        match &self.store {
            Store::Postgres(target) => super::pg_common::place(target, &self.written),
            Store::Mysql(_) => format!("in the store's database (mysql target {})", self.written),
        }
    }

    /// Whether its store is PostgreSQL: the statements indoubt prints to paste are
    /// PostgreSQL's.
    pub fn on_postgres(&self) -> bool {
        matches!(self.store, Store::Postgres(_))
    }

    pub fn subject(&self) -> String {
        format!("seata coordinator {}", self.name)
    }
}

/// The coordinators a `seata` probe reads: the one named, else every one of the config.
pub fn settings(t: &Targets, name: Option<&str>, show: usize) -> Result<SeataSettings> {
    let config = &t.config.config;
    if config.seata.is_empty() {
        return Err(hinted(
            "no seata coordinator in the config",
            "name each under seata: with the postgres target of its store (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = name {
        if !config.seata.contains_key(n) {
            let names: Vec<&str> = config.seata.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no seata coordinator named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let name_asked = name;
    let mut coordinators = Vec::new();
    for (name, c) in &config.seata {
        if name_asked.is_some_and(|n| n != name) {
            continue;
        }
        let c = coordinator(t, name, c)?;
        // The grace is when an unended global becomes a WARNING: past the critical
        // age it would never be one.
        pair(
            &format!("seata {name} grace and critical_age"),
            (None, None),
            (&c.grace, &c.critical_age),
            format_duration,
        )?;
        coordinators.push(c);
    }
    Ok(SeataSettings {
        coordinators,
        show,
        config_file: t.config.path.clone(),
    })
}

/// What one client table came to: what was read, the problems that kept it from being
/// read, or why nothing could be.
pub(crate) enum ClientRead<T> {
    Read(T),
    Problems(Vec<Problem>),
    Failed(anyhow::Error),
}

/// A session on a client's (or the store's) database.
pub(crate) async fn connect(ctx: &Context, target: &Referenced) -> Result<Session> {
    let target = target.clone().map_err(anyhow::Error::msg)?;
    let session = session::connect(&target.params, ctx.timeout).await?;
    ctx.note(format!("connected: PostgreSQL {}", session.info.version));
    Ok(session)
}

/// A read-only session on a MySQL or MariaDB store.
pub(crate) async fn connect_mysql(
    ctx: &Context,
    target: &Result<MysqlTarget, String>,
) -> Result<crate::mysql::session::Session> {
    let target = target.clone().map_err(anyhow::Error::msg)?;
    let session = crate::mysql::session::connect(
        &target.params,
        ctx.timeout,
        crate::mysql::session::Mode::ReadOnly,
    )
    .await?;
    ctx.note(format!("connected: {}", session.version));
    Ok(session)
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
        Store::Postgres(target) => {
            let session = connect(ctx, target).await?;
            store::globals_of(&session, &c.global_table, xids).await
        }
        Store::Mysql(target) => {
            let mut session = connect_mysql(ctx, target).await?;
            let known = mysql_store::globals_of(&mut session, &c.global_table, xids).await;
            session.close().await;
            known
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
    let finding =
        |message: Text| Finding::new(Severity::Unknown, code, client_subject(c, client), message);
    match problem {
        Problem::Missing { table } => finding(text![
            "no table ",
            table,
            " (",
            what,
            ") ",
            client.place(),
            ": is it named as the client's settings name it?"
        ])
        .advice("name the client's tables under seata: NAME: clients: in the config as its settings name them"),
        Problem::MissingColumns { table, columns } => finding(text![
            "table ",
            table,
            " (",
            what,
            ") lacks the column(s) ",
            columns.join(", "),
            " of Seata's layout: another product's table, or a Seata version indoubt does not read"
        ]),
        Problem::NotReadable { table } => {
            let finding = finding(text![
                "the role may not read table ",
                table,
                " (",
                what,
                "): what it holds is not known"
            ])
            .advice("grant the monitoring role SELECT on it");
            match &client.target {
                Ok(t) => finding.next(Next::sql(
                    crate::quote::Sql::new("GRANT SELECT ON TABLE ")
                        .qualified(table)
                        .push(" TO ")
                        .ident(&t.params.user)
                        .push(";")
                        .placed(&format!("{}, as the table's owner", client.place())),
                )),
                Err(_) => finding,
            }
        }
    }
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

/// Findings about a coordinator's clients, grouped under the coordinator in `check`
/// (the ones about a global keep their own object).
pub(crate) fn owned(c: &Coordinator, mut findings: Vec<Finding>) -> Vec<Finding> {
    for f in &mut findings {
        if f.object.is_none() {
            f.object = Some(Object::new(ObjectKind::SeataCoordinator, c.name.as_str()));
        }
    }
    findings
}

/// Where a `seata` report looked: the config file that names the coordinators.
pub(crate) fn report_target(settings: &SeataSettings) -> Target {
    Target {
        name: None,
        kind: "seata".into(),
        address: settings
            .config_file
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    }
}
