//! What a postgres role may do on its server, as the catalog says: the monitoring role,
//! the catalog views, functions and settings indoubt reads, CONNECT on the databases, and
//! which prepared transactions resolve pg could finish; each one missing with the GRANT
//! that gives it. Read once per server and role (`read`), judged without I/O (`checks`).

use super::checks::Check;
use crate::codes;
use crate::findings::Severity;
use crate::next::{Next, Sql};
use crate::pg::privileges::{self, DatabaseAccess, PreparedOwnership, RolePrivileges};
use crate::pg::session::Session;
use crate::text::Text;

/// What the server says of the role: its privileges, the databases it may connect to,
/// and whose the prepared transactions are.
pub(super) struct RoleRead {
    pub(super) role: RolePrivileges,
    pub(super) databases: anyhow::Result<Vec<DatabaseAccess>>,
    /// None for a superuser: not read, it may finish any prepared transaction.
    pub(super) ownership: Option<anyhow::Result<PreparedOwnership>>,
}

/// Reads what `checks` judges; an error when the role's privileges cannot be read.
pub(super) async fn read(session: &Session) -> anyhow::Result<RoleRead> {
    let role = privileges::role(session).await?;
    let databases = privileges::databases(session).await;
    let ownership = match role.superuser {
        true => None,
        false => Some(privileges::prepared_ownership(session).await),
    };
    Ok(RoleRead {
        role,
        databases,
        ownership,
    })
}

/// The rows of a server where the role's privileges could not be read.
pub(super) fn unreadable(e: &anyhow::Error) -> Vec<Check> {
    vec![
        Check::ok("connection", "connected"),
        Check::failed(
            "privileges",
            Severity::Unknown,
            codes::PG_CATALOG_UNREADABLE,
            format!("the role's privileges could not be read: {e:#}"),
        ),
    ]
}

/// The rows of the role and the server: the connection, the monitoring role, the
/// catalog views, functions and settings, the databases, resolve pg.
pub(super) fn checks(read: &RoleRead) -> Vec<Check> {
    let role = &read.role;
    let grantee = role.role.as_str();
    let mut checks = vec![Check::ok(
        "connection",
        format!(
            "connected as {}; PostgreSQL {}",
            role.role, role.server_version
        ),
    )];
    checks.push(monitoring(role, grantee));
    checks.push(catalog_views(role, grantee));
    checks.push(functions(role, grantee));
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
    checks.push(match &read.databases {
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
    checks.push(resolve(role, read.ownership.as_ref()));
    checks
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
/// what can be said per role, and of the transactions prepared now (`ownership`, None for
/// a superuser: not read, it may finish any).
fn resolve(role: &RolePrivileges, ownership: Option<&anyhow::Result<PreparedOwnership>>) -> Check {
    const WHAT: &str = "resolve pg";
    let Some(ownership) = ownership else {
        return Check::ok(
            WHAT,
            "superuser: may COMMIT PREPARED or ROLLBACK PREPARED any prepared transaction",
        );
    };
    let own_only = format!(
        "{} is not a superuser: it may finish only the prepared transactions it prepared itself (PostgreSQL allows their owner or a superuser)",
        role.role
    );
    match ownership {
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
