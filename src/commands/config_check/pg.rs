//! A postgres target's checks, one group per server and role: each database connected
//! to once, the role's and the server's checks once (pg_grants), then what each plan's
//! sections read in its own database (pg_tables).

use super::checks::{Also, Check, TargetChecks};
use super::{pg_grants, pg_tables, union};
use crate::context::Context;
use crate::pg::session::{self, Session};
use crate::settings::config_check::PgPlan;
use crate::settings::targets::PgTarget;

/// A group of postgres plans that reach one server as one role: each database once, the
/// role's and the server's checks once (from the first session that opens), then what
/// each plan's sections use in its own database.
pub(super) async fn check(ctx: &Context, group: &[&PgPlan]) -> TargetChecks {
    let first = group[0];
    let targets: Vec<&PgTarget> = match group
        .iter()
        .map(|p| p.target.as_ref())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(targets) => targets,
        Err(e) => {
            // Unusable settings have no key: such a plan is alone in its group.
            return TargetChecks::unusable(
                "postgres",
                &first.name,
                &first.used_by,
                format!("{e:#}"),
            );
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
                ..Check::unreachable(e)
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
                checks.push(pg_tables::check(session, using, grantee).await);
            }
        }
    }
    let mut checked = TargetChecks::new(
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

/// The checks of the role and the server (pg_grants), and the role's name (None when its
/// privileges could not be read).
async fn server_checks(session: &Session) -> (Vec<Check>, Option<String>) {
    match pg_grants::read(session).await {
        Ok(read) => (pg_grants::checks(&read), Some(read.role.role)),
        Err(e) => (pg_grants::unreadable(&e), None),
    }
}
