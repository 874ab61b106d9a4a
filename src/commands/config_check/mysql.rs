//! A mysql target's checks: the connection, then each read `mysql xa` makes and each
//! table a section of the config reads there (a Seata store's), as the server answers
//! them, with the GRANT that gives what is missing.

use super::checks::{Check, TargetChecks};
use crate::codes;
use crate::context::Context;
use crate::findings::Severity;
use crate::mysql::params::MysqlParams;
use crate::mysql::session::{self as my, Flavor};
use crate::mysql::tables::{self, TableAccess};
use crate::mysql::xa::{self, Snapshot};
use crate::next::{Next, Sql};
use crate::settings::config_check::{MysqlPlan, TableUse};

/// Connects as the target's user and makes the reads of `mysql xa`.
pub(super) async fn check(ctx: &Context, plan: &MysqlPlan) -> TargetChecks {
    let target = match &plan.target {
        Ok(target) => target,
        Err(e) => {
            return TargetChecks::unusable("mysql", &plan.name, &plan.used_by, e.clone());
        }
    };
    let address = Some(target.params.describe());
    let mut session = match my::connect(&target.params, ctx.timeout, my::Mode::ReadOnly).await {
        Err(e) => {
            return TargetChecks::new(
                "mysql",
                &plan.name,
                address,
                &plan.used_by,
                vec![Check::unreachable(&e)],
            )
        }
        Ok(session) => session,
    };
    let server = Server {
        flavor: session.flavor,
        version: session.version.clone(),
        tls: session.tls,
    };
    let collected = xa::collect(&mut session).await;
    let mut checks = checks(&server, &collected, &target.params.user);
    for using in &plan.uses {
        let access = tables::access(&mut session, &using.table, &using.columns).await;
        checks.push(table_check(using, &access, &target.params));
    }
    session.close().await;
    TargetChecks::new("mysql", &plan.name, address, &plan.used_by, checks)
}

/// A table a section reads, as the account may read it (`access`).
pub(super) fn table_check(
    using: &TableUse,
    access: &anyhow::Result<TableAccess>,
    params: &MysqlParams,
) -> Check {
    let (section, table) = (&using.section, &using.table);
    let failed = |why: String| {
        Check::failed(
            section,
            Severity::Critical,
            codes::MYSQL_TABLE_UNREADABLE,
            format!("{why}: the {section} check cannot run"),
        )
    };
    match access {
        Ok(TableAccess::Readable) => Check::ok(
            section,
            format!(
                "SELECT on table {table} (columns {})",
                using.columns.join(", ")
            ),
        ),
        Ok(TableAccess::Missing) => failed(format!(
            "table {table} was not found (or its database is not usable by the account)"
        )),
        Ok(TableAccess::MissingColumns(missing, said)) if missing.is_empty() => {
            failed(format!("table {table}: {said}"))
        }
        Ok(TableAccess::MissingColumns(missing, _)) => failed(format!(
            "table {table} has no column {}",
            missing.join(", ")
        )),
        Ok(TableAccess::Denied(said) | TableAccess::DeniedOrMissing(said)) => {
            // A table named without its database is in the target's.
            let qualified = match (table.contains('.'), &params.database) {
                (true, _) => Some(table.to_string()),
                (false, Some(db)) => Some(format!("{db}.{table}")),
                (false, None) => None,
            };
            let grant = qualified.and_then(|q| {
                Sql::new("GRANT SELECT ON ")
                    .mysql_qualified(&q)?
                    .push(" TO ")
                    .mysql_account(&params.user, "%")
            });
            let why = match access {
                Ok(TableAccess::DeniedOrMissing(_)) => format!(
                    "no SELECT on table {table}, or no such table (the server answers both alike to an account with no privilege on it: {said})"
                ),
                _ => format!("no SELECT on table {table} ({said})"),
            };
            failed(why).next(grant.map(|sql| Next::sql(sql.push(";"))))
        }
        Err(e) => Check::failed(
            section,
            Severity::Unknown,
            codes::MYSQL_TABLE_UNREADABLE,
            format!("{e:#}"),
        ),
    }
}

/// The server a session reached, as its connection row names it.
pub(super) struct Server {
    pub(super) flavor: Flavor,
    pub(super) version: String,
    pub(super) tls: bool,
}

/// The rows of a server that answered: what `mysql xa` could read as `user`.
pub(super) fn checks(
    server: &Server,
    collected: &anyhow::Result<Snapshot>,
    user: &str,
) -> Vec<Check> {
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "{} {}{}",
            server.flavor.name(),
            server.version,
            if server.tls { ", over TLS" } else { "" }
        ),
    )];
    checks.push(match collected {
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
                    .then(|| Sql::new("GRANT PROCESS ON *.* TO ").mysql_account(user, "%"))
                    .flatten()
                    .map(|sql| Next::sql(sql.push(";"))),
            )
        }
    });
    checks
}
