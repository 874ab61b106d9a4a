//! Reads of the coordinator's store on PostgreSQL: which of its three tables are there
//! and readable, the global transactions that should have ended, their branches and
//! row locks, and the locks whose global transaction is gone. Every statement is bounded
//! by what it lists (`limit`, `sample`); the overdue globals are found by the status
//! they are in, so a store that keeps its ended rows is not read through.

use super::status::{self, Stage};
use crate::pg::privileges;
use crate::pg::session::Session;
use crate::quote;
use anyhow::{anyhow, Result};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The coordinator's tables, as `store.db.global-table`, `branch-table` and `lock-table`
/// name them (optionally schema-qualified).
#[derive(Debug, Clone, Copy)]
pub struct Tables<'a> {
    pub global: &'a str,
    pub branch: &'a str,
    pub lock: &'a str,
}

/// The columns each table must have (Seata 1.x and 2.x); `lock_table.status` (1.5+) is
/// read when there. (`config show --check` checks the role may read them.)
pub const GLOBAL_COLUMNS: [&str; 10] = [
    "xid",
    "transaction_id",
    "status",
    "application_id",
    "transaction_service_group",
    "transaction_name",
    "timeout",
    "begin_time",
    "gmt_create",
    "gmt_modified",
];
pub const BRANCH_COLUMNS: [&str; 7] = [
    "branch_id",
    "xid",
    "branch_type",
    "resource_id",
    "status",
    "client_id",
    "gmt_modified",
];
pub const LOCK_COLUMNS: [&str; 7] = [
    "row_key",
    "xid",
    "branch_id",
    "resource_id",
    "table_name",
    "pk",
    "gmt_create",
];

pub use crate::appdb::Problem;

/// What the store holds now.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub server_time: DateTime<Utc>,
    /// Rows of the global table by status, in status order.
    pub by_status: Vec<StatusCount>,
    /// The global transactions that should have ended: not ended and past their timeout
    /// plus the grace, or given up, or in a status no release defines. Oldest first.
    pub overdue: Vec<Global>,
    /// How many such globals there are in all (more than listed when past `limit`).
    pub overdue_total: i64,
    /// Row locks whose global transaction is not in the global table.
    pub orphan_locks: OrphanLocks,
    /// Whether the lock table has `status` (1.5+: 1 = being rolled back).
    pub lock_status_column: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusCount {
    pub status: i16,
    pub name: &'static str,
    pub stage: Stage,
    pub globals: i64,
}

/// One global transaction (a row of the global table), with its branches and locks.
#[derive(Debug, Clone, Serialize)]
pub struct Global {
    pub xid: String,
    pub transaction_id: Option<i64>,
    pub status: i16,
    pub status_name: &'static str,
    pub stage: Stage,
    pub application_id: Option<String>,
    pub transaction_service_group: Option<String>,
    pub transaction_name: Option<String>,
    /// Its own timeout, as the client asked for it.
    pub timeout_ms: Option<i64>,
    pub begun_at: Option<DateTime<Utc>>,
    /// Seconds since its timeout ran out (negative: before); None without a begin time.
    pub past_timeout_seconds: Option<f64>,
    /// The store's local time of its last change (`gmt_modified`, written by the
    /// coordinator's `now()` in its session's time zone).
    pub modified_local: Option<NaiveDateTime>,
    /// The coordinator's time zone as its rows show it: `gmt_create` (its local time)
    /// minus `begin_time` (UTC), to the quarter hour. What the lock times are read with.
    #[serde(skip)]
    pub store_offset: Option<chrono::Duration>,
    pub branches: Vec<Branch>,
    /// Branches beyond the ones listed.
    pub branches_unlisted: i64,
    pub locks: Locks,
}

#[derive(Debug, Clone, Serialize)]
pub struct Branch {
    pub branch_id: i64,
    pub branch_type: Option<String>,
    pub resource_id: Option<String>,
    pub status: Option<i16>,
    /// Seata's name for the status; None for a number it does not define.
    pub status_name: Option<&'static str>,
    pub client_id: Option<String>,
}

/// The row locks of one global transaction.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Locks {
    pub rows: i64,
    /// The oldest lock's `gmt_create`, UTC (through the global's `store_offset`).
    pub held_since: Option<DateTime<Utc>>,
    /// Locks marked as being rolled back (`status` 1); None without the column.
    pub rollbacking: Option<i64>,
    pub sample: Vec<LockedRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LockedRow {
    /// The branch that holds it (read for a listed global's locks, not for orphans).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_id: Option<i64>,
    pub resource_id: Option<String>,
    pub table_name: Option<String>,
    pub pk: Option<String>,
}

/// What the store says one global holds: its AT branches, and rows they lock (branch,
/// table and `pk`, exactly as the lock table writes them).
#[derive(Debug, Clone, Default)]
pub struct Held {
    pub at_branches: BTreeSet<i64>,
    pub rows: BTreeSet<(i64, String, String)>,
}

impl Held {
    /// A listed global's (its branches and locks as sampled, with its xid); None for one
    /// with no AT branch.
    pub fn of_global(g: &Global) -> Option<(String, Held)> {
        let at_branches: BTreeSet<i64> = g
            .branches
            .iter()
            .filter(|b| b.branch_type.as_deref() == Some("AT"))
            .map(|b| b.branch_id)
            .collect();
        let rows = g
            .locks
            .sample
            .iter()
            .filter_map(|l| Some((l.branch_id?, l.table_name.clone()?, l.pk.clone()?)))
            .collect();
        (!at_branches.is_empty()).then(|| (g.xid.clone(), Held { at_branches, rows }))
    }

    /// The rows (table, pk) this branch locks.
    pub fn locked_by(&self, branch_id: i64) -> BTreeSet<(String, String)> {
        self.rows
            .iter()
            .filter(|(b, _, _)| *b == branch_id)
            .map(|(_, table, pk)| (table.clone(), pk.clone()))
            .collect()
    }
}

/// One global's AT branches, and which of `rows` (table, pk) it locks: by the indexes
/// Seata creates on `xid`.
pub async fn held(
    session: &Session,
    tables: Tables<'_>,
    xid: &str,
    rows: &[(String, String)],
) -> Result<Held> {
    let branches = format!(
        "SELECT branch_id FROM {} WHERE xid = $1 AND branch_type = 'AT'",
        quote::qualified(tables.branch)
    );
    let locks = format!(
        "SELECT branch_id, table_name, pk FROM {} WHERE xid = $1 AND pk = ANY($2::text[])",
        quote::qualified(tables.lock)
    );
    let pks: Vec<String> = rows.iter().map(|(_, pk)| pk.clone()).collect();
    type Params<'p> = &'p (dyn tokio_postgres::types::ToSql + Sync);
    let params: [Params; 2] = [&xid, &pks];
    let (b, l) = tokio::try_join!(
        session.query(&branches, &params[..1]),
        session.query(&locks, &params),
    )?;
    let mut held = Held::default();
    for r in &b {
        held.at_branches.insert(r.try_get(0)?);
    }
    for r in &l {
        let row: (Option<i64>, Option<String>, Option<String>) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        if let (Some(branch), Some(table), Some(pk)) = row {
            if rows.contains(&(table.clone(), pk.clone())) {
                held.rows.insert((branch, table, pk));
            }
        }
    }
    Ok(held)
}

/// Locks whose global transaction is gone.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OrphanLocks {
    pub rows: i64,
    pub xids: i64,
    /// The oldest one's `gmt_create` in the store's local time (no global row to tell
    /// its time zone by).
    pub oldest_local: Option<NaiveDateTime>,
    pub sample: Vec<OrphanLock>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OrphanLock {
    pub xid: Option<String>,
    #[serde(flatten)]
    pub row: LockedRow,
}

/// Which of the three tables can be read, as `config show --check` judges them
/// (`pg::privileges::table`: the table, its columns, SELECT on each); whether the lock
/// table's optional `status` can be read too; the problems otherwise, every one of them.
pub async fn inspect(session: &Session, tables: Tables<'_>) -> Result<Result<bool, Vec<Problem>>> {
    let lock_columns: Vec<&str> = LOCK_COLUMNS.iter().copied().chain(["status"]).collect();
    // Pipelined on the one connection: one round trip's wait, not three.
    let (global, branch, lock) = tokio::try_join!(
        privileges::table(session, tables.global, &GLOBAL_COLUMNS),
        privileges::table(session, tables.branch, &BRANCH_COLUMNS),
        privileges::table(session, tables.lock, &lock_columns),
    )?;
    let status_readable = lock.exists
        && !lock.missing_columns.iter().any(|c| c == "status")
        && !lock.unreadable_columns.iter().any(|c| c == "status");
    let problems: Vec<Problem> = [
        (tables.global, global),
        (tables.branch, branch),
        (tables.lock, lock),
    ]
    .into_iter()
    .filter_map(|(table, access)| crate::appdb::problem(table, access, &["status"]))
    .collect();
    Ok(match problems.is_empty() {
        true => Ok(status_readable),
        false => Err(problems),
    })
}

/// A global transaction as another table names it (a fence record, a saga instance, an
/// undo log): what the store says of it now.
#[derive(Debug, Clone, Serialize)]
pub struct Known {
    pub status: i16,
    pub status_name: &'static str,
    pub stage: Stage,
    pub begun_at: Option<DateTime<Utc>>,
    pub timeout_ms: Option<i64>,
}

/// The store's rows for these xids, by xid; an xid with none is not in the map (its
/// global has ended and been deleted, or never reached this coordinator). By the index
/// on `xid` (its primary key).
pub async fn globals_of(
    session: &Session,
    global_table: &str,
    xids: &[String],
) -> Result<BTreeMap<String, Known>> {
    if xids.is_empty() {
        return Ok(BTreeMap::new());
    }
    let sql = format!(
        "SELECT xid, status, begin_time, timeout::int8 FROM {} WHERE xid = ANY($1::text[])",
        quote::qualified(global_table)
    );
    let rows = session.query(&sql, &[&xids]).await?;
    rows.iter()
        .map(|r| {
            let status: i16 = r.try_get(1)?;
            let (status_name, stage) = status::global(status);
            let begin_ms: Option<i64> = r.try_get(2)?;
            Ok((
                r.try_get(0)?,
                Known {
                    status,
                    status_name,
                    stage,
                    begun_at: begin_ms.and_then(DateTime::from_timestamp_millis),
                    timeout_ms: r.try_get(3)?,
                },
            ))
        })
        .collect()
}

/// The store's state: the globals that should have ended (at most `limit`, each with at
/// most `sample` branches and locked rows listed), and the orphaned locks.
pub async fn read(
    session: &Session,
    tables: Tables<'_>,
    lock_status_column: bool,
    grace: Duration,
    limit: i64,
    sample: i64,
) -> Result<Snapshot> {
    let (g, b, l) = (
        quote::qualified(tables.global),
        quote::qualified(tables.branch),
        quote::qualified(tables.lock),
    );
    let ended = status::in_stage(Stage::Ended);
    let gave_up = status::in_stage(Stage::GaveUp);
    let grace_ms = grace.as_millis() as i64;
    let counts = format!("SELECT status, count(*) FROM {g} GROUP BY status ORDER BY status");
    // Past its timeout: begin_time (epoch ms) + timeout (ms), against the server's clock.
    // An unended global with no begin_time cannot be timed: listed, not taken as fine.
    let overdue = format!(
        "SELECT xid, transaction_id, status, application_id, transaction_service_group,
       transaction_name, timeout::int8, begin_time,
       (extract(epoch FROM statement_timestamp()) * 1000 - (begin_time + COALESCE(timeout, 0)))::float8 / 1000,
       gmt_create, gmt_modified, count(*) OVER (), statement_timestamp()
FROM {g}
WHERE NOT status = ANY($1)
  AND (status = ANY($2) OR status NOT BETWEEN 0 AND 20 OR begin_time IS NULL
       OR begin_time + COALESCE(timeout, 0) + $3 < extract(epoch FROM statement_timestamp()) * 1000)
ORDER BY begin_time NULLS FIRST, xid
LIMIT $4"
    );
    // One pass over the lock table (the only statement that reads all of it): the
    // orphaned locks, few, kept; their count, globals and oldest, and a sample of them.
    let orphans = format!(
        "WITH o AS MATERIALIZED (
  SELECT l.xid, l.resource_id, l.table_name, l.pk, l.gmt_create, l.row_key FROM {l} AS l
  WHERE NOT EXISTS (SELECT 1 FROM {g} AS g WHERE g.xid = l.xid))
SELECT t.total, t.xids, t.oldest, s.xid, s.resource_id, s.table_name, s.pk, s.row_key
FROM (SELECT count(*) AS total, count(DISTINCT xid) AS xids, min(gmt_create) AS oldest FROM o) AS t
LEFT JOIN LATERAL (SELECT * FROM o ORDER BY gmt_create NULLS FIRST, row_key LIMIT $1) AS s ON true"
    );
    type Params<'p> = &'p (dyn tokio_postgres::types::ToSql + Sync);
    let overdue_params: [Params; 4] = [&ended, &gave_up, &grace_ms, &limit];
    let sample_params: [Params; 1] = [&sample];
    let (count_rows, overdue_rows, orphan_rows) = tokio::try_join!(
        session.query(&counts, &[]),
        session.query(&overdue, &overdue_params),
        session.query(&orphans, &sample_params),
    )?;
    let by_status = count_rows
        .iter()
        .map(|r| {
            let status: i16 = r.try_get(0)?;
            let (name, stage) = status::global(status);
            Ok(StatusCount {
                status,
                name,
                stage,
                globals: r.try_get(1)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut server_time = None;
    let mut overdue_total = 0;
    let mut globals = Vec::new();
    for r in &overdue_rows {
        let status: i16 = r.try_get(2)?;
        let (status_name, stage) = status::global(status);
        let begin_ms: Option<i64> = r.try_get(7)?;
        let begun_at = begin_ms.and_then(DateTime::from_timestamp_millis);
        let created_local: Option<NaiveDateTime> = r.try_get(9)?;
        overdue_total = r.try_get(11)?;
        server_time = Some(r.try_get::<_, DateTime<Utc>>(12)?);
        globals.push(Global {
            xid: r.try_get(0)?,
            transaction_id: r.try_get(1)?,
            status,
            status_name,
            stage,
            application_id: r.try_get(3)?,
            transaction_service_group: r.try_get(4)?,
            transaction_name: r.try_get(5)?,
            timeout_ms: r.try_get(6)?,
            begun_at,
            past_timeout_seconds: begun_at.and(r.try_get(8)?),
            modified_local: r.try_get(10)?,
            store_offset: store_offset(created_local, begun_at),
            branches: Vec::new(),
            branches_unlisted: 0,
            locks: Locks::default(),
        });
    }
    let server_time = match server_time {
        Some(t) => t,
        None => session
            .query("SELECT statement_timestamp()", &[])
            .await?
            .first()
            .ok_or_else(|| anyhow!("SELECT statement_timestamp() returned no row"))?
            .try_get(0)?,
    };
    if !globals.is_empty() {
        attach_branches_and_locks(session, (&b, &l), lock_status_column, sample, &mut globals)
            .await?;
    }
    let orphan = orphan_rows
        .first()
        .ok_or_else(|| anyhow!("the orphaned locks' count returned no row"))?;
    let orphan_locks = OrphanLocks {
        rows: orphan.try_get(0)?,
        xids: orphan.try_get(1)?,
        oldest_local: orphan.try_get(2)?,
        // Without orphans the one row's sample columns are NULL (the LEFT JOIN; row_key,
        // the primary key, is NULL only then).
        sample: orphan_rows
            .iter()
            .filter(|r| r.try_get::<_, Option<String>>(7).ok().flatten().is_some())
            .map(|r| {
                Ok(OrphanLock {
                    xid: r.try_get(3)?,
                    row: LockedRow {
                        branch_id: None,
                        resource_id: r.try_get(4)?,
                        table_name: r.try_get(5)?,
                        pk: r.try_get(6)?,
                    },
                })
            })
            .collect::<Result<_>>()?,
    };
    Ok(Snapshot {
        server_time,
        by_status,
        overdue: globals,
        overdue_total,
        orphan_locks,
        lock_status_column,
    })
}

/// Each listed global's branches (at most `sample`) and its locks: counted, the oldest,
/// and `sample` of them; by xid, through the indexes Seata creates on `xid`.
async fn attach_branches_and_locks(
    session: &Session,
    (b, l): (&str, &str),
    lock_status_column: bool,
    sample: i64,
    globals: &mut [Global],
) -> Result<()> {
    let xids: Vec<String> = globals.iter().map(|g| g.xid.clone()).collect();
    let branches = format!(
        "SELECT x.xid, s.branch_id, s.branch_type, s.resource_id, s.status, s.client_id, s.total
FROM unnest($1::text[]) AS x(xid)
CROSS JOIN LATERAL (
  SELECT branch_id, branch_type, resource_id, status, client_id, count(*) OVER () AS total
  FROM {b} WHERE xid = x.xid ORDER BY branch_id LIMIT $2) AS s"
    );
    let rollbacking = match lock_status_column {
        true => "count(*) FILTER (WHERE status = 1)",
        false => "NULL::int8",
    };
    let lock_counts = format!(
        "SELECT xid, count(*), min(gmt_create), {rollbacking} FROM {l}
WHERE xid = ANY($1::text[]) GROUP BY xid"
    );
    let lock_sample = format!(
        "SELECT x.xid, s.resource_id, s.table_name, s.pk, s.branch_id
FROM unnest($1::text[]) AS x(xid)
CROSS JOIN LATERAL (
  SELECT resource_id, table_name, pk, branch_id FROM {l} WHERE xid = x.xid ORDER BY row_key LIMIT $2) AS s"
    );
    type Params<'p> = &'p (dyn tokio_postgres::types::ToSql + Sync);
    let by_xid: [Params; 2] = [&xids, &sample];
    let (branch_rows, count_rows, sample_rows) = tokio::try_join!(
        session.query(&branches, &by_xid),
        session.query(&lock_counts, &by_xid[..1]),
        session.query(&lock_sample, &by_xid),
    )?;
    let at: BTreeMap<String, usize> = xids
        .iter()
        .enumerate()
        .map(|(i, x)| (x.clone(), i))
        .collect();
    let global_of = |xid: &str| at.get(xid).copied();
    for r in &branch_rows {
        let Some(i) = global_of(&r.try_get::<_, String>(0)?) else {
            continue;
        };
        let status: Option<i16> = r.try_get(4)?;
        let total: i64 = r.try_get(6)?;
        let g = &mut globals[i];
        g.branches.push(Branch {
            branch_id: r.try_get(1)?,
            branch_type: r.try_get(2)?,
            resource_id: r.try_get(3)?,
            status,
            status_name: status.and_then(status::branch),
            client_id: r.try_get(5)?,
        });
        g.branches_unlisted = total - g.branches.len() as i64;
    }
    for r in &count_rows {
        let Some(i) = global_of(&r.try_get::<_, String>(0)?) else {
            continue;
        };
        let oldest: Option<NaiveDateTime> = r.try_get(2)?;
        let g = &mut globals[i];
        g.locks.rows = r.try_get(1)?;
        g.locks.rollbacking = r.try_get(3)?;
        g.locks.held_since = match (oldest, g.store_offset) {
            (Some(local), Some(offset)) => Some((local - offset).and_utc()),
            _ => None,
        };
    }
    for r in &sample_rows {
        let Some(i) = global_of(&r.try_get::<_, String>(0)?) else {
            continue;
        };
        globals[i].locks.sample.push(LockedRow {
            branch_id: r.try_get(4)?,
            resource_id: r.try_get(1)?,
            table_name: r.try_get(2)?,
            pk: r.try_get(3)?,
        });
    }
    Ok(())
}

/// One global transaction's status in the store, or None when it has no row (Seata
/// deletes a global's row once it has ended).
pub async fn global_status(
    session: &Session,
    global_table: &str,
    xid: &str,
) -> Result<Option<i16>> {
    let sql = format!(
        "SELECT status FROM {} WHERE xid = $1",
        quote::qualified(global_table)
    );
    let rows = session.query(&sql, &[&xid]).await?;
    rows.first()
        .map(|r| r.try_get(0))
        .transpose()
        .map_err(Into::into)
}

/// The statement that lists a global transaction's branches and the rows each locks:
/// read-only, to paste where the store is.
pub fn global_statement(tables: Tables<'_>, xid: &str) -> quote::Sql {
    quote::Sql::new(
        "SELECT b.branch_id, b.branch_type, b.resource_id, b.status, l.table_name, l.pk FROM ",
    )
    .qualified(tables.branch)
    .push(" AS b LEFT JOIN ")
    .qualified(tables.lock)
    .push(" AS l ON l.branch_id = b.branch_id WHERE b.xid = ")
    .literal(xid.as_bytes())
    .push(" ORDER BY b.branch_id, l.table_name, l.pk;")
}

/// The statement that lists the locks whose global transaction is gone: read-only.
pub fn orphan_locks_statement(tables: Tables<'_>) -> quote::Sql {
    quote::Sql::new(
        "SELECT l.row_key, l.xid, l.resource_id, l.table_name, l.pk, l.gmt_create FROM ",
    )
    .qualified(tables.lock)
    .push(" AS l WHERE NOT EXISTS (SELECT 1 FROM ")
    .qualified(tables.global)
    .push(" AS g WHERE g.xid = l.xid) ORDER BY l.gmt_create, l.row_key;")
}

/// The coordinator's UTC offset as a row shows it: its local `gmt_create` minus its UTC
/// `begin_time`, both taken at the global's begin, to the nearest quarter hour (every
/// time zone's offset is a multiple of 15 minutes).
pub(crate) fn store_offset(
    created_local: Option<NaiveDateTime>,
    begun_at: Option<DateTime<Utc>>,
) -> Option<chrono::Duration> {
    let difference = created_local? - begun_at?.naive_utc();
    let quarter = 15 * 60;
    let seconds = difference.num_seconds();
    let rounded = (seconds as f64 / quarter as f64).round() as i64 * quarter;
    // A difference far from a quarter hour is not a time zone: the row was changed.
    ((seconds - rounded).abs() <= 60).then(|| chrono::Duration::seconds(rounded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_offset_is_the_time_zone_of_the_coordinator() {
        let begun = DateTime::parse_from_rfc3339("2026-12-03T10:00:00.400Z")
            .unwrap()
            .with_timezone(&Utc);
        let local = |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").ok();
        // Moscow (UTC+3), the row written one second after begin.
        assert_eq!(
            store_offset(local("2026-12-03 13:00:01"), Some(begun)),
            Some(chrono::Duration::hours(3))
        );
        // Kathmandu (UTC+5:45).
        assert_eq!(
            store_offset(local("2026-12-03 15:45:00"), Some(begun)),
            Some(chrono::Duration::minutes(345))
        );
        // UTC, and not a time zone at all.
        assert_eq!(
            store_offset(local("2026-12-03 10:00:00"), Some(begun)),
            Some(chrono::Duration::zero())
        );
        assert_eq!(
            store_offset(local("2026-12-03 10:07:30"), Some(begun)),
            None
        );
        assert_eq!(store_offset(None, Some(begun)), None);
    }
}
