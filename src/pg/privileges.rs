//! What the connected role may read and do, asked of the server's own catalog
//! (pg_has_role, has_table_privilege, has_function_privilege, has_database_privilege,
//! has_column_privilege): the memberships, catalog views, functions and databases
//! indoubt's reads depend on, a table's columns, and whether a query may run.

use super::outbox::quote_name;
use super::session::Session;
use crate::text::RawText;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The predefined roles whose membership changes what indoubt sees.
pub const MONITORING_ROLES: &[&str] = &["pg_monitor", "pg_read_all_stats", "pg_read_all_settings"];

/// The catalog views indoubt reads.
pub const CATALOG_VIEWS: &[&str] = &[
    "pg_catalog.pg_prepared_xacts",
    "pg_catalog.pg_locks",
    "pg_catalog.pg_stat_activity",
    "pg_catalog.pg_replication_slots",
    "pg_catalog.pg_stat_replication",
    "pg_catalog.pg_database",
    "pg_catalog.pg_settings",
    "pg_catalog.pg_roles",
    "pg_catalog.pg_stat_user_tables",
];

/// The functions indoubt calls (their signatures, as has_function_privilege takes them).
pub const FUNCTIONS: &[&str] = &[
    "pg_catalog.pg_control_system()",
    "pg_catalog.pg_postmaster_start_time()",
    "pg_catalog.pg_is_in_recovery()",
    "pg_catalog.pg_current_wal_lsn()",
    "pg_catalog.pg_last_wal_receive_lsn()",
    "pg_catalog.pg_last_wal_replay_lsn()",
    "pg_catalog.pg_ls_waldir()",
    "pg_catalog.pg_blocking_pids(integer)",
    "pg_catalog.pg_current_snapshot()",
    "pg_catalog.pg_xact_status(xid8)",
];

/// The settings indoubt reads; pg_settings shows a role only those it may read.
pub const SETTINGS: &[&str] = &[
    "max_prepared_transactions",
    "max_slot_wal_keep_size",
    "autovacuum_freeze_max_age",
    "autovacuum_multixact_freeze_max_age",
    "server_encoding",
];

const ROLE_SQL: &str = "\
SELECT current_user::text, r.rolsuper, current_setting('server_version'),
       current_setting('server_version_num')::int,
       (SELECT array_agg(m ORDER BY m) FROM unnest($1::text[]) m
        WHERE EXISTS (SELECT 1 FROM pg_roles WHERE rolname = m) AND pg_has_role(current_user, m, 'USAGE')),
       (SELECT array_agg(v ORDER BY v) FROM unnest($2::text[]) v
        WHERE to_regclass(v) IS NOT NULL AND NOT has_table_privilege(v, 'SELECT')),
       (SELECT array_agg(f ORDER BY f) FROM unnest($3::text[]) f
        WHERE to_regprocedure(f) IS NOT NULL AND NOT has_function_privilege(f, 'EXECUTE')),
       (SELECT array_agg(s ORDER BY s) FROM unnest($4::text[]) s
        WHERE NOT EXISTS (SELECT 1 FROM pg_settings WHERE name = s))
FROM pg_roles r WHERE r.rolname = current_user";

const DATABASES_SQL: &str = "\
SELECT datname, datallowconn, coalesce(has_database_privilege(oid, 'CONNECT'), false)
FROM pg_database ORDER BY datname";

/// Prepared transactions now, and how many the session's role prepared itself (only
/// those it may finish, unless it is a superuser).
const PREPARED_SQL: &str = "\
SELECT count(*), count(*) FILTER (WHERE owner = current_user),
       coalesce(array_agg(DISTINCT database::text) FILTER (WHERE NOT has_database_privilege(database, 'CONNECT')), '{}')
FROM pg_prepared_xacts";

/// The role's standing on the server.
#[derive(Debug, Clone, Serialize)]
pub struct RolePrivileges {
    pub role: String,
    pub superuser: bool,
    pub server_version: String,
    pub server_version_num: i32,
    /// The [`MONITORING_ROLES`] it is a member of (directly or through another role).
    pub member_of: Vec<String>,
    /// The [`CATALOG_VIEWS`] it may not SELECT from.
    pub unreadable_views: Vec<String>,
    /// The [`FUNCTIONS`] it may not EXECUTE.
    pub unexecutable_functions: Vec<String>,
    /// The [`SETTINGS`] pg_settings does not show it.
    pub hidden_settings: Vec<String>,
}

impl RolePrivileges {
    pub fn is_member(&self, role: &str) -> bool {
        self.superuser || self.member_of.iter().any(|m| m == role)
    }
}

/// One database of the cluster and whether the role may connect to it.
#[derive(Debug, Clone, Serialize)]
pub struct DatabaseAccess {
    pub name: RawText,
    /// False for a database nobody may connect to (template0).
    pub allows_connections: bool,
    pub connect: bool,
}

/// The prepared transactions there are now, as far as resolving them goes.
#[derive(Debug, Clone, Serialize)]
pub struct PreparedOwnership {
    pub total: i64,
    /// Those the session's role prepared.
    pub own: i64,
    /// Databases holding prepared transactions the role may not connect to.
    pub in_databases_without_connect: Vec<String>,
}

pub async fn role(session: &Session) -> Result<RolePrivileges> {
    let owned = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (roles, views, functions, settings) = (
        owned(MONITORING_ROLES),
        owned(CATALOG_VIEWS),
        owned(FUNCTIONS),
        owned(SETTINGS),
    );
    let rows = session
        .query(ROLE_SQL, &[&roles, &views, &functions, &settings])
        .await
        .context("reading the role's privileges")?;
    let row = rows
        .first()
        .context("pg_roles has no row for the session's role")?;
    let list = |i: usize| -> Result<Vec<String>> {
        Ok(row
            .try_get::<_, Option<Vec<String>>>(i)?
            .unwrap_or_default())
    };
    Ok(RolePrivileges {
        role: row.try_get(0)?,
        superuser: row.try_get(1)?,
        server_version: row.try_get(2)?,
        server_version_num: row.try_get(3)?,
        member_of: list(4)?,
        unreadable_views: list(5)?,
        unexecutable_functions: list(6)?,
        hidden_settings: list(7)?,
    })
}

pub async fn databases(session: &Session) -> Result<Vec<DatabaseAccess>> {
    let rows = session
        .query(DATABASES_SQL, &[])
        .await
        .context("reading pg_database")?;
    rows.iter()
        .map(|r| {
            Ok(DatabaseAccess {
                name: r.try_get(0)?,
                allows_connections: r.try_get(1)?,
                connect: r.try_get(2)?,
            })
        })
        .collect()
}

pub async fn prepared_ownership(session: &Session) -> Result<PreparedOwnership> {
    let rows = session
        .query(PREPARED_SQL, &[])
        .await
        .context("reading pg_prepared_xacts")?;
    let row = rows.first().context("no row for pg_prepared_xacts")?;
    Ok(PreparedOwnership {
        total: row.try_get(0)?,
        own: row.try_get(1)?,
        in_databases_without_connect: row.try_get(2)?,
    })
}

/// A table of the config (`schema.table` or `table`, each part as written) and the role's
/// SELECT on it and on the columns named.
#[derive(Debug, Clone, Serialize)]
pub struct TableAccess {
    /// The table's schema, when the role may not use it (no USAGE): the table cannot be
    /// looked up, and `exists` is false.
    pub unusable_schema: Option<String>,
    pub exists: bool,
    /// SELECT on the whole table.
    pub select: bool,
    /// The columns named that the table does not have.
    pub missing_columns: Vec<String>,
    /// The columns named that the role may not SELECT (neither by a table grant nor by
    /// a column grant).
    pub unreadable_columns: Vec<String>,
}

/// Each step guarded by CASE, which PostgreSQL evaluates in order (AND and WHERE it
/// need not): `to_regclass` raises for a schema the role may not use, and
/// `has_column_privilege` for a column the table does not have.
const TABLE_SQL: &str = "\
WITH s AS (SELECT NOT EXISTS (SELECT 1 FROM pg_namespace n
             WHERE n.nspname = $3 AND NOT has_schema_privilege(n.oid, 'USAGE')) AS usable),
t AS (SELECT s.usable, CASE WHEN s.usable THEN to_regclass($1) END AS oid FROM s),
c AS (SELECT c, EXISTS (SELECT 1 FROM pg_attribute a, t
        WHERE a.attrelid = t.oid AND a.attname = c AND a.attnum > 0 AND NOT a.attisdropped)
        AS present
      FROM unnest($2::text[]) c)
SELECT t.usable, t.oid IS NOT NULL,
       CASE WHEN t.oid IS NOT NULL THEN has_table_privilege(t.oid, 'SELECT') ELSE false END,
       (SELECT array_agg(c ORDER BY c) FROM c WHERE t.oid IS NOT NULL AND NOT c.present),
       (SELECT array_agg(c ORDER BY c) FROM c
        WHERE CASE WHEN c.present THEN NOT has_column_privilege(t.oid, c.c, 'SELECT') ELSE false END)
FROM t";

pub async fn table(session: &Session, table: &str, columns: &[&str]) -> Result<TableAccess> {
    let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
    let schema: Option<String> = table.split_once('.').map(|(s, _)| s.to_string());
    let rows = session
        .query(TABLE_SQL, &[&quote_name(table), &columns, &schema])
        .await
        .with_context(|| format!("reading the privileges on table {table}"))?;
    let row = rows.first().context("no row for the table's privileges")?;
    let usable: bool = row.try_get(0)?;
    Ok(TableAccess {
        unusable_schema: (!usable).then(|| schema.unwrap_or_default()),
        exists: row.try_get(1)?,
        select: row.try_get(2)?,
        missing_columns: row
            .try_get::<_, Option<Vec<String>>>(3)?
            .unwrap_or_default(),
        unreadable_columns: row
            .try_get::<_, Option<Vec<String>>>(4)?
            .unwrap_or_default(),
    })
}

/// Whether `query` (a reconcile job's, taking $1 and $2 as timestamptz) may run: the
/// server plans it under EXPLAIN, which checks the privileges on every table and column
/// it reads without running it. Ok(Err(message)) is the server's refusal (SQLSTATE
/// 42501 and its message naming the table), Ok(Ok) that it would run.
pub async fn query_runs(session: &Session, query: &str) -> Result<Result<(), String>> {
    let explain = format!("EXPLAIN {query}");
    let now: DateTime<Utc> = Utc::now();
    let statement = match session.prepare(&explain).await {
        Ok(statement) => statement,
        Err(e) => return Ok(Err(format!("{e:#}"))),
    };
    match statement.params().len() {
        2 => {}
        n => {
            return Ok(Err(format!(
                "the query takes {n} parameters; a reconcile query takes $1 (since) and $2 (until)"
            )))
        }
    }
    match session.query_prepared(&statement, &[&now, &now]).await {
        Ok(_) => Ok(Ok(())),
        Err(e) => Ok(Err(format!("{e:#}"))),
    }
}
