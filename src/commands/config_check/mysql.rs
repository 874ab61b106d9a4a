//! A mysql target's checks: the connection, then each read `mysql xa` makes, as the
//! server answers them, with the GRANT that gives what is missing.

use super::checks::{Check, TargetChecks};
use crate::codes;
use crate::context::Context;
use crate::findings::Severity;
use crate::mysql::session::{self as my, Flavor};
use crate::mysql::xa::{self, Snapshot};
use crate::next::{Next, Sql};
use crate::settings::config_check::MysqlPlan;

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
    session.close().await;
    let checks = checks(&server, &collected, &target.params.user);
    TargetChecks::new("mysql", &plan.name, address, &plan.used_by, checks)
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
