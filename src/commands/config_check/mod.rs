//! `indoubt config show --check`: connects to every target the config names (and to the
//! postgres and kafka references of its reconcile jobs, outboxes, inboxes and resolve
//! section) and reports, per target, what the role or principal lacks for indoubt's
//! commands, as the server or broker itself says it, with the GRANT or kafka-acls.sh
//! line that gives it. Targets that reach one server as one role (one cluster with one
//! set of client settings) are checked once, together.

use crate::codes::{self, Code};
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::access::{
    self, Access, Operation, Operations, TopicAccess, TransactionalIdProbe,
};
use crate::kafka::security::Security;
use crate::next::{Next, Sql, Word};
use crate::pg::privileges::{self, RolePrivileges};
use crate::pg::session::{self, Session};
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView, Target};
use crate::settings::config_check::{ConfigCheckSettings, KafkaPlan, MysqlPlan, PgPlan, PgUse};
use crate::settings::targets::PgTarget;
use crate::term::Shown;
use crate::text::Text;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
struct CheckReport {
    config_file: Option<String>,
    /// Every target checked, in config order: postgres first, then kafka, then mysql.
    targets: Vec<TargetChecks>,
}

#[derive(Debug, Serialize)]
struct TargetChecks {
    /// `postgres`, `kafka` or `mysql`.
    kind: &'static str,
    name: String,
    /// `user@host:port/db`, or the bootstrap servers; never a password.
    address: Option<String>,
    /// The other targets (and sections' connection strings) that reach the same server as
    /// the same role, or the same cluster with the same client settings: their checks are
    /// these, made once.
    also: Vec<Also>,
    /// The sections of the config that use it besides the commands that take the target
    /// itself: `reconcile job NAME`, `outbox NAME`, `resolve.participants`, …
    used_by: Vec<String>,
    /// The worst of its checks.
    status: Severity,
    checks: Vec<Check>,
}

/// A target checked with another of the same server (or cluster) and identity.
#[derive(Debug, Serialize)]
struct Also {
    name: String,
    address: Option<String>,
}

/// One check of one target: a row of its table.
#[derive(Debug, Clone, Serialize)]
struct Check {
    what: String,
    status: Severity,
    /// The finding code of a check that did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<Code>,
    detail: Text,
    /// The GRANT statement or kafka-acls.sh line that gives what is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<Next>,
}

impl Check {
    fn ok(what: impl Into<String>, detail: impl Into<Text>) -> Check {
        Check {
            what: what.into(),
            status: Severity::Ok,
            code: None,
            detail: detail.into(),
            next: None,
        }
    }

    fn failed(
        what: impl Into<String>,
        status: Severity,
        code: Code,
        detail: impl Into<Text>,
    ) -> Check {
        Check {
            what: what.into(),
            status,
            code: Some(code),
            detail: detail.into(),
            next: None,
        }
    }

    fn next(mut self, next: Option<Next>) -> Check {
        self.next = next;
        self
    }
}

pub async fn run(ctx: &Context, settings: &ConfigCheckSettings) -> Result<Severity> {
    let plans = &settings.plans;
    let pg_groups = groups(&plans.pg, |p| {
        p.target.as_ref().ok().map(|t| t.params.server_key())
    });
    let kafka_groups = groups(&plans.kafka, |k| k.identity.clone());
    let pg = futures_util::future::join_all(pg_groups.iter().map(|g| check_pg(ctx, g)));
    let kafka = futures_util::future::join_all(kafka_groups.iter().map(|g| check_kafka(ctx, g)));
    let mysql = futures_util::future::join_all(plans.mysql.iter().map(|m| check_mysql(ctx, m)));
    let (pg, kafka, mysql) = tokio::join!(pg, kafka, mysql);
    let targets: Vec<TargetChecks> = pg.into_iter().chain(kafka).chain(mysql).collect();
    let mut findings = plans.unusable.clone();
    for t in &targets {
        let subject = format!("{} target {}", t.kind, t.name);
        let failed: Vec<&Check> = t
            .checks
            .iter()
            .filter(|c| c.status != Severity::Ok)
            .collect();
        if failed.is_empty() {
            findings.push(
                Finding::new(
                    Severity::Ok,
                    codes::TARGET_CHECKED,
                    subject.clone(),
                    format!("every check passed ({} checks)", t.checks.len()),
                )
                .evidence("target", t.name.clone()),
            );
        }
        for c in failed {
            let mut finding = Finding::new(
                c.status,
                c.code.unwrap_or(codes::TARGET_UNREACHABLE),
                subject.clone(),
                crate::text![c.what.as_str(), ": ", c.detail],
            )
            .evidence("target", t.name.clone())
            .evidence("check", c.what.clone());
            if let Some(next) = &c.next {
                finding = finding.next(next.clone());
            }
            findings.push(finding);
        }
    }
    let config_file = settings
        .config_file
        .as_ref()
        .map(|p| p.display().to_string());
    let report = Report::new(
        "config show --check",
        Target {
            name: None,
            kind: "config".into(),
            address: config_file
                .clone()
                .unwrap_or_else(|| "(no config file)".to_string()),
        },
        findings,
        CheckReport {
            config_file,
            targets,
        },
    );
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The plans in order, those with the same key (the same server and role, the same
/// cluster and client settings) together, in the order their first one comes: each group
/// is connected to and checked once. A plan without a key (unusable settings) is alone.
fn groups<P, K: PartialEq>(plans: &[P], key: impl Fn(&P) -> Option<K>) -> Vec<Vec<&P>> {
    let mut groups: Vec<(Option<K>, Vec<&P>)> = Vec::new();
    for plan in plans {
        let k = key(plan);
        match groups.iter_mut().find(|(g, _)| g.is_some() && *g == k) {
            Some((_, members)) => members.push(plan),
            None => groups.push((k, vec![plan])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Every section that uses any of `used_by`'s lists, each once, in order.
fn union<'a>(lists: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for item in lists.into_iter().flatten() {
        if !all.contains(item) {
            all.push(item.clone());
        }
    }
    all
}

fn finish(
    kind: &'static str,
    name: &str,
    address: Option<String>,
    used_by: &[String],
    checks: Vec<Check>,
) -> TargetChecks {
    TargetChecks {
        kind,
        name: name.to_string(),
        address,
        also: Vec::new(),
        used_by: used_by.to_vec(),
        status: checks
            .iter()
            .map(|c| c.status)
            .max()
            .unwrap_or(Severity::Ok),
        checks,
    }
}

/// A connection that could not be made: UNKNOWN, with the error and its hint.
fn unreachable(err: &anyhow::Error) -> Check {
    let mut detail = format!("{err:#}");
    if let Some(hint) = crate::hints::hint_for(err) {
        detail.push_str(&format!(" (hint: {hint})"));
    }
    Check::failed(
        "connection",
        Severity::Unknown,
        codes::TARGET_UNREACHABLE,
        detail,
    )
}

/// A target whose settings do not make a connection: UNKNOWN, nothing tried.
fn unusable_settings(
    kind: &'static str,
    name: &str,
    used_by: &[String],
    why: String,
) -> TargetChecks {
    let check = Check::failed(
        "connection settings",
        Severity::Unknown,
        codes::CONFIG_TARGET_UNUSABLE,
        format!("cannot be used: {why}"),
    );
    finish(kind, name, None, used_by, vec![check])
}

/// A mysql target: the connection, then each read `mysql xa` makes, as the server answers.
async fn check_mysql(ctx: &Context, plan: &MysqlPlan) -> TargetChecks {
    use crate::mysql::{session as my, xa};
    let target = match &plan.target {
        Ok(target) => target,
        Err(e) => {
            return unusable_settings("mysql", &plan.name, &plan.used_by, e.clone());
        }
    };
    let address = Some(target.params.describe());
    let mut session = match my::connect(&target.params, ctx.timeout, my::Mode::ReadOnly).await {
        Err(e) => {
            return finish(
                "mysql",
                &plan.name,
                address,
                &plan.used_by,
                vec![unreachable(&e)],
            )
        }
        Ok(session) => session,
    };
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "{} {}{}",
            session.flavor.name(),
            session.version,
            if session.tls { ", over TLS" } else { "" }
        ),
    )];
    checks.push(match xa::collect(&mut session).await {
        Err(e) => Check::failed(
            "XA RECOVER",
            Severity::Warning,
            codes::MYSQL_UNPRIVILEGED,
            format!("mysql xa cannot read the prepared branches: {e:#}"),
        ),
        Ok(snapshot) if snapshot.unreadable.is_empty() => Check::ok(
            "XA RECOVER, innodb_trx, performance_schema",
            "every read mysql xa makes answered",
        ),
        Ok(snapshot) => {
            let process = !snapshot.innodb_trx_read;
            Check::failed(
                "innodb_trx, performance_schema",
                Severity::Warning,
                codes::MYSQL_UNPRIVILEGED,
                snapshot.unreadable.join("; "),
            )
            .next(
                process
                    .then(|| {
                        Sql::new("GRANT PROCESS ON *.* TO ").mysql_account(&target.params.user, "%")
                    })
                    .flatten()
                    .map(|sql| Next::sql(sql.push(";"))),
            )
        }
    });
    session.close().await;
    finish("mysql", &plan.name, address, &plan.used_by, checks)
}

/// A group of postgres plans that reach one server as one role: each database once, the
/// role's and the server's checks once (from the first session that opens), then what
/// each plan's sections use in its own database.
async fn check_pg(ctx: &Context, group: &[&PgPlan]) -> TargetChecks {
    let first = group[0];
    let targets: Vec<&PgTarget> = match group
        .iter()
        .map(|p| p.target.as_ref())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(targets) => targets,
        Err(e) => {
            // Unusable settings have no key: such a plan is alone in its group.
            return unusable_settings("postgres", &first.name, &first.used_by, format!("{e:#}"));
        }
    };
    let mut databases: Vec<&str> = Vec::new();
    for target in &targets {
        if !databases.contains(&target.params.dbname.as_str()) {
            databases.push(&target.params.dbname);
        }
    }
    let opened = futures_util::future::join_all(databases.iter().map(|db| {
        let params = targets
            .iter()
            .find(|t| t.params.dbname == *db)
            .map(|t| &t.params);
        async move {
            match params {
                Some(params) => session::connect(params, ctx.timeout).await,
                None => Err(anyhow::anyhow!("no settings for database {db}")),
            }
        }
    }))
    .await;
    let label = |db: &str| match databases.len() {
        1 => "connection".to_string(),
        _ => format!("connection to {db}"),
    };
    let mut checks = Vec::new();
    let mut grantee = None;
    for (db, session) in databases.iter().zip(&opened) {
        match session {
            Err(e) => checks.push(Check {
                what: label(db),
                ..unreachable(e)
            }),
            Ok(session) if grantee.is_none() => {
                let (mut server, role) = server_checks(session).await;
                if let Some(connection) = server.first_mut() {
                    connection.what = label(db);
                }
                checks.extend(server);
                grantee = Some(role);
            }
            Ok(session) => checks.push(Check::ok(
                label(db),
                format!("connected as {}", session.params.user),
            )),
        }
    }
    // What the sections use, in the database their connection string names; the role's
    // name as the server reported it (the GRANTs name it).
    if let Some(Some(grantee)) = &grantee {
        for (plan, target) in group.iter().zip(&targets) {
            let at = databases.iter().position(|db| *db == target.params.dbname);
            let Some(Ok(session)) = at.map(|i| &opened[i]) else {
                continue;
            };
            for using in &plan.uses {
                checks.push(use_check(session, using, grantee).await);
            }
        }
    }
    let mut checked = finish(
        "postgres",
        &first.name,
        Some(targets[0].params.describe()),
        &union(group.iter().map(|p| &p.used_by)),
        checks,
    );
    checked.also = group
        .iter()
        .zip(&targets)
        .skip(1)
        .map(|(p, t)| Also {
            name: p.name.clone(),
            address: Some(t.params.describe()),
        })
        .collect();
    checked
}

/// The checks of the role and the server: the connection, the monitoring role, the
/// catalog views, functions and settings, the databases, resolve pg; and the role's name
/// (None when its privileges could not be read).
async fn server_checks(session: &Session) -> (Vec<Check>, Option<String>) {
    let role = match privileges::role(session).await {
        Ok(role) => role,
        Err(e) => {
            return (
                vec![
                    Check::ok("connection", "connected"),
                    Check::failed(
                        "privileges",
                        Severity::Unknown,
                        codes::PG_CATALOG_UNREADABLE,
                        format!("the role's privileges could not be read: {e:#}"),
                    ),
                ],
                None,
            )
        }
    };
    let grantee = role.role.as_str();
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "connected as {}; PostgreSQL {}",
            role.role, role.server_version
        ),
    )];
    checks.push(monitoring(&role, grantee));
    checks.push(catalog_views(&role, grantee));
    checks.push(functions(&role, grantee));
    checks.push(match role.hidden_settings.is_empty() {
        true => Check::ok(
            "settings",
            format!("pg_settings shows every setting indoubt reads ({})", privileges::SETTINGS.join(", ")),
        ),
        false => Check::failed(
            "settings",
            Severity::Warning,
            codes::PG_CATALOG_UNREADABLE,
            format!(
                "pg_settings hides {} from this role: the statements of pg slots and pg horizon that read them fail",
                role.hidden_settings.join(", ")
            ),
        )
        .next(Some(Next::sql(Sql::new("GRANT pg_read_all_settings TO ").ident(grantee).push(";")))),
    });
    checks.push(match privileges::databases(session).await {
        Ok(databases) => {
            let connectable: Vec<_> = databases.iter().filter(|d| d.allows_connections).collect();
            let blind: Vec<_> = connectable.iter().filter(|d| !d.connect).collect();
            if blind.is_empty() {
                Check::ok(
                    "databases",
                    format!(
                        "CONNECT on every database that accepts connections ({})",
                        connectable.len()
                    ),
                )
            } else {
                let mut names = Text::new();
                for (i, d) in blind.iter().enumerate() {
                    if i > 0 {
                        names.push_str(", ");
                    }
                    names.push_raw(&d.name);
                }
                let grant: Vec<_> = blind.iter().map(|d| d.name.to_text()).collect();
                Check::failed(
                    "databases",
                    Severity::Warning,
                    codes::PG_DATABASE_BLIND_SPOT,
                    crate::text![
                        format!("no CONNECT on {} of {} databases: ", blind.len(), connectable.len()),
                        names,
                        ". Blind spots: there pg prepared cannot name the relations a prepared transaction locks (it shows their oids), pg horizon cannot read dead tuples, and resolve pg cannot finish a prepared transaction"
                    ],
                )
                .next(Some(Next::sql(
                    Sql::new("GRANT CONNECT ON DATABASE ")
                        .idents(grant.iter().map(|g| g.as_ref()))
                        .push(" TO ")
                        .ident(grantee)
                        .push(";"),
                )))
            }
        }
        Err(e) => Check::failed(
            "databases",
            Severity::Unknown,
            codes::PG_CATALOG_UNREADABLE,
            format!("{e:#}"),
        ),
    });
    checks.push(resolve(session, &role).await);
    (checks, Some(role.role.clone()))
}

/// What one section uses, checked as the role in the section's database.
async fn use_check(session: &Session, using: &PgUse, grantee: &str) -> Check {
    match using {
        PgUse::Reconcile { job, query } => reconcile_query(session, job, query, grantee).await,
        PgUse::Table {
            section,
            table,
            columns,
        } => table_check(session, section, table, columns, grantee).await,
    }
}

fn monitoring(role: &RolePrivileges, grantee: &str) -> Check {
    const WHAT: &str = "monitoring role";
    if role.superuser {
        return Check::ok(
            WHAT,
            "superuser: sees every session's query, state and client",
        );
    }
    if role.is_member("pg_monitor") {
        return Check::ok(
            WHAT,
            "member of pg_monitor (pg_read_all_stats and pg_read_all_settings with it)",
        );
    }
    if role.is_member("pg_read_all_stats") {
        return Check::ok(
            WHAT,
            "member of pg_read_all_stats (not of pg_monitor: its functions are checked below)",
        );
    }
    Check::failed(
        WHAT,
        Severity::Warning,
        codes::PG_ROLE_UNPRIVILEGED,
        format!(
            "{} is neither a superuser nor a member of pg_monitor or pg_read_all_stats: other roles' sessions show no query text, state, transaction start or client address (UNKNOWN in pg horizon, which then shows idle-in-transaction holders as plain sessions without an age; pg prepared shows blocked sessions without their query)",
            role.role
        ),
    )
    .next(Some(Next::sql(Sql::new("GRANT pg_monitor TO ").ident(grantee).push(";"))))
}

/// The commands whose statements read a catalog view.
fn view_users(view: &str) -> &'static str {
    match view {
        "pg_catalog.pg_prepared_xacts" => "pg prepared, pg horizon, resolve pg",
        "pg_catalog.pg_locks" => "pg prepared (locks, blocked sessions)",
        "pg_catalog.pg_stat_activity" => "pg horizon, pg prepared (blocked sessions)",
        "pg_catalog.pg_replication_slots" => "pg slots, pg horizon",
        "pg_catalog.pg_stat_replication" => "pg horizon (standby feedback)",
        "pg_catalog.pg_database" => "pg prepared, pg horizon (wraparound)",
        "pg_catalog.pg_settings" => "pg slots",
        "pg_catalog.pg_roles" => "every command (session setup), resolve pg",
        "pg_catalog.pg_stat_user_tables" => "pg horizon (dead tuples)",
        _ => "indoubt",
    }
}

fn catalog_views(role: &RolePrivileges, grantee: &str) -> Check {
    // Without pg_prepared_xacts, pg prepared cannot do its job at all.
    let severity = match role
        .unreadable_views
        .iter()
        .any(|v| v == "pg_catalog.pg_prepared_xacts")
    {
        true => Severity::Critical,
        false => Severity::Warning,
    };
    Grants {
        what: "catalog views",
        privilege: "SELECT",
        on: "",
        all: format!(
            "SELECT on every view indoubt reads ({})",
            privileges::CATALOG_VIEWS.len()
        ),
        used: "read by",
        users: view_users,
    }
    .check(&role.unreadable_views, severity, grantee)
}

/// A privilege the role lacks on some of the objects indoubt uses (views, functions):
/// which commands each one breaks, and the one GRANT that gives them all.
struct Grants {
    what: &'static str,
    privilege: &'static str,
    /// The object kind as GRANT names it (`FUNCTION `), empty for a table or view.
    on: &'static str,
    /// The detail when none is missing.
    all: String,
    used: &'static str,
    users: fn(&str) -> &'static str,
}

impl Grants {
    fn check(self, missing: &[String], severity: Severity, grantee: &str) -> Check {
        if missing.is_empty() {
            return Check::ok(self.what, self.all);
        }
        let each: Vec<String> = missing
            .iter()
            .map(|m| format!("{m} ({} {})", self.used, (self.users)(m)))
            .collect();
        Check::failed(
            self.what,
            severity,
            codes::PG_CATALOG_UNREADABLE,
            format!(
                "no {} on {}: those statements fail",
                self.privilege,
                each.join(", ")
            ),
        )
        .next(Some(Next::sql(
            Sql::new("GRANT ")
                .push(self.privilege)
                .push(" ON ")
                .push(self.on)
                .names(missing.iter().map(String::as_str))
                .push(" TO ")
                .ident(grantee)
                .push(";"),
        )))
    }
}

/// The commands whose statements call a function.
fn function_users(function: &str) -> &'static str {
    match function {
        "pg_catalog.pg_ls_waldir()" => "pg slots (the size of pg_wal)",
        "pg_catalog.pg_control_system()" | "pg_catalog.pg_postmaster_start_time()" => {
            "resolve pg (which cluster a participant is, for sibling branches)"
        }
        "pg_catalog.pg_is_in_recovery()" => "pg slots, pg horizon, resolve pg",
        "pg_catalog.pg_current_wal_lsn()"
        | "pg_catalog.pg_last_wal_receive_lsn()"
        | "pg_catalog.pg_last_wal_replay_lsn()" => "pg slots (retained WAL)",
        "pg_catalog.pg_blocking_pids(integer)" => "pg prepared (blocked sessions)",
        "pg_catalog.pg_current_snapshot()" | "pg_catalog.pg_xact_status(xid8)" => {
            "resolve pg (how a transaction that vanished ended)"
        }
        _ => "indoubt",
    }
}

fn functions(role: &RolePrivileges, grantee: &str) -> Check {
    Grants {
        what: "functions",
        privilege: "EXECUTE",
        on: "FUNCTION ",
        all: format!(
            "EXECUTE on every function indoubt calls ({})",
            privileges::FUNCTIONS.len()
        ),
        used: "called by",
        users: function_users,
    }
    .check(&role.unexecutable_functions, Severity::Warning, grantee)
}

/// What resolve pg could finish as this role: it says so per transaction itself; here
/// what can be said per role, and of the transactions prepared now.
async fn resolve(session: &Session, role: &RolePrivileges) -> Check {
    const WHAT: &str = "resolve pg";
    if role.superuser {
        return Check::ok(
            WHAT,
            "superuser: may COMMIT PREPARED or ROLLBACK PREPARED any prepared transaction",
        );
    }
    let own_only = format!(
        "{} is not a superuser: it may finish only the prepared transactions it prepared itself (PostgreSQL allows their owner or a superuser)",
        role.role
    );
    match privileges::prepared_ownership(session).await {
        Ok(p) if p.own == p.total && p.in_databases_without_connect.is_empty() => Check::ok(
            WHAT,
            format!("{own_only}; {} prepared now, all its own", p.total),
        ),
        Ok(p) => {
            let mut detail = format!(
                "{own_only}; {} of {} prepared now are another role's",
                p.total - p.own,
                p.total
            );
            if !p.in_databases_without_connect.is_empty() {
                detail.push_str(&format!(
                    ", and some are in databases it may not CONNECT to ({})",
                    p.in_databases_without_connect.join(", ")
                ));
            }
            Check::failed(WHAT, Severity::Warning, codes::PG_CANNOT_RESOLVE, detail)
        }
        Err(e) => Check::failed(
            WHAT,
            Severity::Unknown,
            codes::PG_CATALOG_UNREADABLE,
            format!("{own_only}; the prepared transactions could not be read: {e:#}"),
        ),
    }
}

async fn reconcile_query(session: &Session, job: &str, query: &str, grantee: &str) -> Check {
    let what = format!("reconcile job {job}");
    match privileges::query_runs(session, query).await {
        Ok(Ok(())) => Check::ok(
            what,
            "its query may run: the server planned it (EXPLAIN checks SELECT on every table and column it reads)",
        ),
        Ok(Err(refused)) => {
            // The server's message names the table when it is English (lc_messages).
            let table = refused
                .split_once("permission denied for table ")
                .map(|(_, rest)| rest.split_whitespace().next().unwrap_or("").to_string())
                .filter(|t| !t.is_empty());
            Check::failed(
                what,
                Severity::Critical,
                codes::PG_TABLE_UNREADABLE,
                format!("its query cannot run as this role: {refused}"),
            )
            .next(table.map(|t| {
                Next::sql(
                    Sql::new("GRANT SELECT ON TABLE ")
                        .ident(&t)
                        .push(" TO ")
                        .ident(grantee)
                        .push(";"),
                )
            }))
        }
        Err(e) => Check::failed(
            what,
            Severity::Unknown,
            codes::PG_TABLE_UNREADABLE,
            format!("{e:#}"),
        ),
    }
}

async fn table_check(
    session: &Session,
    section: &str,
    table: &str,
    columns: &[String],
    grantee: &str,
) -> Check {
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    match privileges::table(session, table, &cols).await {
        Ok(a) if !a.exists => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!("table {table} was not found (or its schema is not usable by the role): the {section} check cannot run"),
        ),
        Ok(a) if !a.missing_columns.is_empty() => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!(
                "table {table} has no column {}: the {section} check cannot run",
                a.missing_columns.join(", ")
            ),
        ),
        Ok(a) if !a.unreadable_columns.is_empty() => Check::failed(
            section,
            Severity::Critical,
            codes::PG_TABLE_UNREADABLE,
            format!(
                "no SELECT on table {table} (columns {}): the {section} check cannot run",
                a.unreadable_columns.join(", ")
            ),
        )
        .next(Some(Next::sql(
            Sql::new("GRANT SELECT ON TABLE ")
                .qualified(table)
                .push(" TO ")
                .ident(grantee)
                .push(";"),
        ))),
        Ok(a) => Check::ok(
            section,
            format!(
                "SELECT on table {table}{} (columns {})",
                if a.select { "" } else { " by column grants" },
                columns.join(", ")
            ),
        ),
        Err(e) => Check::failed(
            section,
            Severity::Unknown,
            codes::PG_TABLE_UNREADABLE,
            format!("{e:#}"),
        ),
    }
}

/// The principal the broker sees, as kafka-acls.sh names it: `User:NAME` for SASL
/// PLAIN/SCRAM, `User:ANONYMOUS` for PLAINTEXT; None for a TLS client certificate (its
/// principal depends on the broker's ssl.principal.mapping.rules).
fn principal(security: &Security) -> Option<String> {
    match (&security.sasl, &security.tls) {
        (Some(sasl), _) => Some(format!("User:{}", sasl.username)),
        (None, None) => Some("User:ANONYMOUS".to_string()),
        (None, Some(_)) => None,
    }
}

/// `kafka-acls.sh --bootstrap-server B --add --allow-principal P --operation OP… RESOURCE`.
fn allow(
    bootstrap: &str,
    principal: &Option<String>,
    ops: &[Operation],
    resource: &[Word],
) -> Option<Next> {
    let principal = principal.as_deref()?;
    let mut words = vec![
        Word::Lit("--bootstrap-server"),
        Word::Value(bootstrap),
        Word::Lit("--add"),
        Word::Lit("--allow-principal"),
        Word::Value(principal),
    ];
    for op in ops {
        words.push(Word::Lit("--operation"));
        words.push(Word::Lit(op.name()));
    }
    for w in resource {
        words.push(match w {
            Word::Lit(l) => Word::Lit(l),
            Word::Value(v) => Word::Value(v),
            Word::Raw(r) => Word::Raw(r),
        });
    }
    Some(Next::tool("kafka-acls.sh", &words))
}

fn names(ops: &[Operation]) -> String {
    match ops.is_empty() {
        true => "none".to_string(),
        false => ops.iter().map(|o| o.name()).collect::<Vec<_>>().join(", "),
    }
}

/// A group of kafka targets with the same bootstrap servers and client settings (one
/// cluster, one principal): one connection, the cluster's checks once, every reconcile
/// topic of any of them, and the topics row of each check_topic_regex among them.
async fn check_kafka(ctx: &Context, group: &[&KafkaPlan]) -> TargetChecks {
    let first = group[0];
    let target = match &first.target {
        Ok(t) => t,
        Err(e) => {
            return unusable_settings("kafka", &first.name, &first.used_by, format!("{e:#}"));
        }
    };
    let address = Some(target.bootstrap.join(","));
    let mut topics: Vec<(String, Vec<String>)> = Vec::new();
    for (topic, jobs) in group.iter().flat_map(|k| &k.topics) {
        match topics.iter_mut().find(|(t, _)| t == topic) {
            Some((_, all)) => all.extend(
                jobs.iter()
                    .filter(|j| !all.contains(j))
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
            None => topics.push((topic.clone(), jobs.clone())),
        }
    }
    // Each expression once, with the targets that give it (the first's row is "topics").
    let mut regexes: Vec<(Option<String>, Vec<&str>)> = Vec::new();
    for k in group {
        match regexes.iter_mut().find(|(r, _)| *r == k.check_topic_regex) {
            Some((_, names)) => names.push(&k.name),
            None => regexes.push((k.check_topic_regex.clone(), vec![&k.name])),
        }
    }
    let names: Vec<String> = topics.iter().map(|(t, _)| t.clone()).collect();
    let probe_id = format!("indoubt-config-check-{}", std::process::id());
    let checks = match access::read(target, &names, &probe_id, ctx.timeout).await {
        Err(e) => vec![unreachable(&e)],
        Ok(access) => {
            let principal = principal(&target.security);
            let protocol = target.security.protocol();
            kafka_checks(&access, &topics, &principal, protocol, &probe_id, &regexes)
        }
    };
    let mut checked = finish(
        "kafka",
        &first.name,
        address.clone(),
        &union(group.iter().map(|k| &k.used_by)),
        checks,
    );
    checked.also = group
        .iter()
        .skip(1)
        .map(|k| Also {
            name: k.name.clone(),
            address: address.clone(),
        })
        .collect();
    checked
}

fn kafka_checks(
    access: &Access,
    topics: &[(String, Vec<String>)],
    principal: &Option<String>,
    protocol: &str,
    probe_id: &str,
    regexes: &[(Option<String>, Vec<&str>)],
) -> Vec<Check> {
    let bootstrap = access.address.as_str();
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "connected to {bootstrap} over {protocol} as {}; {} broker(s){}",
            principal
                .as_deref()
                .unwrap_or("the principal of the TLS client certificate"),
            access.brokers,
            access
                .cluster_id
                .as_deref()
                .map(|c| format!(", cluster {c}"))
                .unwrap_or_default()
        ),
    )];
    checks.push(apis(access));
    let cluster = match &access.cluster {
        Ok(ops) => *ops,
        Err(_) => Operations::NOT_REPORTED,
    };
    checks.push(match &access.cluster {
        Err(e) => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("DescribeCluster failed, so the cluster operations are not known: {e}"),
        ),
        Ok(ops) if !ops.reported() => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "DescribeCluster carried no cluster authorized operations",
        ),
        Ok(ops) if ops.list().is_empty() => Check::failed(
            "cluster",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker reports no operation on the cluster, as it does when DESCRIBE on the cluster is denied: whether resolve kafka may write abort markers is not known",
        )
        .next(allow(bootstrap, principal, &[Operation::Describe], &[Word::Lit("--cluster")])),
        Ok(ops) => Check::ok(
            "cluster",
            format!("the broker reports these cluster operations: {}", names(&ops.list())),
        ),
    });
    if cluster.reported() && !cluster.list().is_empty() {
        let may = cluster.allows(Operation::Alter) || cluster.allows(Operation::ClusterAction);
        checks.push(match may {
            true => Check::ok(
                "resolve kafka",
                "may write abort markers: WriteTxnMarkers needs ALTER or CLUSTER_ACTION on the cluster, and the broker reports one",
            ),
            false => Check::failed(
                "resolve kafka",
                Severity::Warning,
                codes::KAFKA_ACL_MISSING,
                "cannot abort a hanging transaction: WriteTxnMarkers needs ALTER or CLUSTER_ACTION on the cluster, and the broker reports neither",
            )
            .next(allow(bootstrap, principal, &[Operation::ClusterAction], &[Word::Lit("--cluster")])),
        });
    }
    checks.push(match &access.transactional_id {
        TransactionalIdProbe::Allowed { answer } => Check::ok(
            "transactional ids",
            format!(
                "DESCRIBE allowed: a DescribeTransactions of {probe_id} (an id no producer uses) passed the broker's DESCRIBE check (it answered {answer}); the broker lists only transactional ids this principal may DESCRIBE, so one an ACL of its own denies stays unseen"
            ),
        ),
        TransactionalIdProbe::Denied => Check::failed(
            "transactional ids",
            Severity::Warning,
            codes::KAFKA_ACL_MISSING,
            format!(
                "DESCRIBE denied: a DescribeTransactions of {probe_id} was refused (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); the broker lists only transactional ids this principal may DESCRIBE, so kafka transactions lists none of those, and kafka hanging (and resolve kafka) take an open transaction whose id it cannot see for a hanging one"
            ),
        )
        .next(allow(
            bootstrap,
            principal,
            &[Operation::Describe],
            &[Word::Lit("--transactional-id"), Word::Value("*")],
        )),
        TransactionalIdProbe::Unsupported(e) => Check::failed(
            "transactional ids",
            Severity::Warning,
            codes::KAFKA_API_MISSING,
            format!("{e}: kafka transactions and kafka hanging cannot name transactional ids on this cluster"),
        ),
        TransactionalIdProbe::Failed(e) => Check::failed(
            "transactional ids",
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("whether DESCRIBE on transactional ids is allowed is not known: {e}"),
        ),
    });
    for (i, (regex, targets)) in regexes.iter().enumerate() {
        let mut check = listed_topics(access, principal, regex);
        if i > 0 {
            check.what = format!("topics of {}", targets.join(", "));
        }
        checks.push(check);
    }
    for (topic, jobs) in topics {
        checks.push(reconcile_topic(access, principal, topic, jobs));
    }
    checks
}

fn apis(access: &Access) -> Check {
    let offered: Vec<String> = access
        .apis
        .iter()
        .map(|a| match (a.min, a.max) {
            (Some(min), Some(max)) => format!("{} v{min}-{max}", a.api),
            _ => format!("{} none", a.api),
        })
        .collect();
    let needed = [
        (
            "DescribeProducers",
            "kafka producers, kafka hanging, kafka lso (naming a gap's transaction)",
        ),
        ("ListTransactions", "kafka transactions, kafka hanging"),
        ("DescribeTransactions", "kafka transactions, kafka hanging"),
        ("WriteTxnMarkers", "resolve kafka"),
    ];
    let missing: Vec<String> = needed
        .iter()
        .filter(|(api, _)| access.apis.iter().any(|a| a.api == *api && a.max.is_none()))
        .map(|(api, users)| format!("{api} (used by {users})"))
        .collect();
    match missing.is_empty() {
        true => Check::ok(
            "broker APIs",
            format!("ApiVersions: {}", offered.join(", ")),
        ),
        false => Check::failed(
            "broker APIs",
            Severity::Warning,
            codes::KAFKA_API_MISSING,
            format!(
                "the broker does not offer {}; it offers {}",
                missing.join(", "),
                offered.join(", ")
            ),
        ),
    }
}

/// Every topic the broker lists (matching check_topic_regex, when the target has one, as
/// `check` matches it: a search, anchored only by the expression's own ^ and $):
/// those without READ are where kafka lso cannot name a gap's transaction.
fn listed_topics(access: &Access, principal: &Option<String>, regex: &Option<String>) -> Check {
    const WHAT: &str = "topics";
    let matcher = regex.as_deref().and_then(|r| regex::Regex::new(r).ok());
    let listed: Vec<(&String, &(Operations, bool))> = access
        .listed
        .iter()
        .filter(|(name, _)| matcher.as_ref().is_none_or(|m| m.is_match(name)))
        .collect();
    // The expression as written: its backslashes are its own (Text::push_regex).
    let mut scope = Text::from(format!("{} listed", listed.len()));
    if let Some(r) = regex {
        scope.push_str(" matching check_topic_regex ");
        scope.push_regex(r);
    }
    if !access.topic_operations_reported {
        return Check::failed(
            WHAT,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            crate::text![scope, "; the broker's Metadata version carries no topic authorized operations (before v8)"],
        );
    }
    let unreadable: Vec<&str> = listed
        .iter()
        .filter(|(_, (ops, _))| !ops.allows(Operation::Read))
        .map(|(name, _)| name.as_str())
        .collect();
    let head = crate::text![
        "the broker lists only topics this principal may DESCRIBE: ",
        scope
    ];
    match unreadable.is_empty() {
        true => Check::ok(WHAT, crate::text![head, "; READ on all of them"]),
        false => {
            let first = unreadable[0].to_string();
            Check::failed(
                WHAT,
                Severity::Warning,
                codes::KAFKA_ACL_MISSING,
                crate::text![
                    head,
                    format!(
                        "; no READ on {}: there kafka lso cannot name the transaction behind a gap, kafka producers and kafka hanging cannot read producers (DescribeProducers needs READ)",
                        unreadable.join(", ")
                    )
                ],
            )
            .next(allow(
                &access.address,
                principal,
                &[Operation::Read],
                &[Word::Lit("--topic"), Word::Value(&first)],
            ))
        }
    }
}

fn reconcile_topic(
    access: &Access,
    principal: &Option<String>,
    topic: &str,
    jobs: &[String],
) -> Check {
    let what = format!("topic {topic}");
    let by = format!("reconcile job {}", jobs.join(", "));
    let grant = |ops: &[Operation]| {
        allow(
            &access.address,
            principal,
            ops,
            &[Word::Lit("--topic"), Word::Value(topic)],
        )
    };
    match access.topics.get(topic) {
        None => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker's Metadata did not answer for it",
        ),
        Some(TopicAccess::Refused(e))
            if e.error == kafka_protocol::error::ResponseError::TopicAuthorizationFailed =>
        {
            Check::failed(
                what,
                Severity::Critical,
                codes::KAFKA_ACL_MISSING,
                format!("{by} cannot read it: DESCRIBE denied ({})", e.name()),
            )
            .next(grant(&[
                Operation::Describe,
                Operation::Read,
                Operation::DescribeConfigs,
            ]))
        }
        Some(TopicAccess::Refused(e))
            if e.error == kafka_protocol::error::ResponseError::UnknownTopicOrPartition =>
        {
            Check::failed(
                what,
                Severity::Critical,
                codes::KAFKA_ACL_MISSING,
                format!("{by} cannot read it: it does not exist ({})", e.name()),
            )
        }
        Some(TopicAccess::Refused(e)) => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            format!("Metadata answered {} for it", e.name()),
        ),
        Some(TopicAccess::Described { operations, .. }) if !operations.reported() => Check::failed(
            what,
            Severity::Unknown,
            codes::KAFKA_ACCESS_UNKNOWN,
            "the broker's Metadata version carries no topic authorized operations (before v8)",
        ),
        Some(TopicAccess::Described { operations, .. }) => {
            let ops = operations.list();
            if !operations.allows(Operation::Read) {
                Check::failed(
                    what,
                    Severity::Critical,
                    codes::KAFKA_ACL_MISSING,
                    format!(
                        "{by} cannot read it: no READ (Fetch needs it; the broker reports {}); kafka lso cannot name the transaction behind a gap there",
                        names(&ops)
                    ),
                )
                .next(grant(&[Operation::Read]))
            } else if !operations.allows(Operation::DescribeConfigs) {
                Check::failed(
                    what,
                    Severity::Warning,
                    codes::KAFKA_ACL_MISSING,
                    format!(
                        "{by} cannot read its cleanup.policy and retention (DescribeConfigs needs DESCRIBE_CONFIGS; the broker reports {})",
                        names(&ops)
                    ),
                )
                .next(grant(&[Operation::DescribeConfigs]))
            } else {
                Check::ok(
                    what,
                    format!("{by} may read it: the broker reports {}", names(&ops)),
                )
            }
        }
    }
}

impl TableView for CheckReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.targets
            .iter()
            .map(|t| {
                let mut table = style.table(&["WHAT", "STATUS", "DETAIL"]);
                for c in &t.checks {
                    table.add_row(vec![
                        Cell::new(&c.what),
                        style.severity_cell(c.status),
                        Cell::new(Shown::from(&c.detail)),
                    ]);
                }
                let mut place = crate::shown!(
                    "{} target {} ({})",
                    t.kind,
                    t.name,
                    t.address.as_deref().unwrap_or("unusable")
                );
                if !t.also.is_empty() {
                    // Each target named once, its address only where it differs.
                    let others: Vec<Shown> = t
                        .also
                        .iter()
                        .map(|other| match &other.address {
                            Some(address) if Some(address) != t.address.as_ref() => {
                                crate::shown!("{} ({})", other.name, address)
                            }
                            _ => crate::shown!("{}", other.name),
                        })
                        .collect();
                    place = crate::shown!(
                        "{} and {} (the same {}, checked once)",
                        place,
                        Shown::join(others, ", "),
                        match t.kind {
                            "kafka" => "cluster and client settings",
                            _ => "server and role",
                        }
                    );
                }
                let title = match t.used_by.is_empty() {
                    true => crate::shown!("{}:", place),
                    false => crate::shown!("{}, used by {}:", place, t.used_by.join(", ")),
                };
                let lines = crate::report::layout::wrap(title.as_str(), usize::from(style.width))
                    .join("\n");
                // Escaped text re-broken at its spaces: still escaped.
                #[allow(clippy::disallowed_methods)]
                let mut out = Shown::__from_format(format_args!("{lines}\n"));
                out.push(&table.render());
                out
            })
            .collect()
    }
}
