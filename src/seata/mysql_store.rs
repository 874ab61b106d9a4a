//! The coordinator's store on MySQL or MariaDB (`store.db.db-type: mysql`): the same
//! reads as `store` on PostgreSQL, in their SQL. The session speaks the text protocol
//! with no parameters, so every value placed in a statement is a hex literal (`X'…'`:
//! exact bytes, no escaping rules that depend on sql_mode) or a number; window functions
//! (MariaDB 10.2+, MySQL 8) take LATERAL's place.

use super::status::{self, Stage};
use super::store::{
    Branch, Global, Held, Known, LockedRow, Locks, OrphanLock, OrphanLocks, Problem, Snapshot,
    StatusCount, Tables, BRANCH_COLUMNS, GLOBAL_COLUMNS, LOCK_COLUMNS,
};
use crate::appdb::{local_time, mysql_xids};
use crate::mysql::session::{int, text, Session};
use crate::mysql::tables::{hex, qualified};
use crate::quote;
use anyhow::{anyhow, Result};
use chrono::{DateTime, NaiveDateTime, Utc};
use std::collections::BTreeMap;
use std::time::Duration;

/// A list of numbers for `IN (…)`.
fn numbers(values: &[i16]) -> String {
    values
        .iter()
        .map(i16::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which of the three tables can be read, by `information_schema.COLUMNS` (which shows a
/// role only the columns it has some privilege on: a table the role may not read looks
/// missing, and the problem says both).
pub async fn inspect(
    session: &mut Session,
    tables: Tables<'_>,
) -> Result<Result<bool, Vec<Problem>>> {
    let mut problems = Vec::new();
    let mut status_readable = false;
    for (table, required) in [
        (tables.global, &GLOBAL_COLUMNS[..]),
        (tables.branch, &BRANCH_COLUMNS[..]),
        (tables.lock, &LOCK_COLUMNS[..]),
    ] {
        let (schema, name) = match table.split_once('.') {
            Some((s, n)) => (hex(s), hex(n)),
            None => ("DATABASE()".to_string(), hex(table)),
        };
        let sql = format!(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name}"
        );
        let columns: Vec<String> = session
            .rows(&sql)
            .await?
            .iter()
            .filter_map(|r| text(r, 0))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if columns.is_empty() {
            problems.push(Problem::Missing {
                table: table.to_string(),
            });
            continue;
        }
        let missing: Vec<String> = required
            .iter()
            .filter(|c| !columns.iter().any(|have| have == *c))
            .map(|c| c.to_string())
            .collect();
        if !missing.is_empty() {
            problems.push(Problem::MissingColumns {
                table: table.to_string(),
                columns: missing,
            });
        }
        if table == tables.lock {
            status_readable = columns.iter().any(|c| c == "status");
        }
    }
    Ok(match problems.is_empty() {
        true => Ok(status_readable),
        false => Err(problems),
    })
}

/// The store's state, as `store::read` reads it on PostgreSQL.
pub async fn read(
    session: &mut Session,
    tables: Tables<'_>,
    lock_status_column: bool,
    grace: Duration,
    limit: i64,
    sample: i64,
) -> Result<Snapshot> {
    let (g, b, l) = (
        qualified(tables.global),
        qualified(tables.branch),
        qualified(tables.lock),
    );
    let ended = numbers(&status::in_stage(Stage::Ended));
    let gave_up = numbers(&status::in_stage(Stage::GaveUp));
    let grace_ms = grace.as_millis() as i64;
    let by_status = session
        .rows(&format!(
            "SELECT status, count(*) FROM {g} GROUP BY status ORDER BY status"
        ))
        .await?
        .iter()
        .map(|r| {
            let status = int(r, 0).ok_or_else(|| anyhow!("a status that is not a number"))? as i16;
            let (name, stage) = status::global(status);
            Ok(StatusCount {
                status,
                name,
                stage,
                globals: int(r, 1).unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let now_ms = "UNIX_TIMESTAMP(NOW(3)) * 1000";
    let overdue_where = format!(
        "status NOT IN ({ended})
  AND (status IN ({gave_up}) OR status NOT BETWEEN 0 AND 20 OR begin_time IS NULL
       OR begin_time + COALESCE(timeout, 0) + {grace_ms} < {now_ms})"
    );
    let rows = session
        .rows(&format!(
            "SELECT xid, transaction_id, status, application_id, transaction_service_group,
       transaction_name, timeout, begin_time,
       ({now_ms} - (begin_time + COALESCE(timeout, 0))) / 1000,
       gmt_create, gmt_modified, count(*) OVER ()
FROM {g} WHERE {overdue_where}
ORDER BY begin_time IS NOT NULL, begin_time, xid
LIMIT {limit}"
        ))
        .await?;
    let server_time: DateTime<Utc> = session
        .one_text("SELECT UTC_TIMESTAMP(6)")
        .await?
        .and_then(|t| NaiveDateTime::parse_from_str(&t, "%Y-%m-%d %H:%M:%S%.f").ok())
        .ok_or_else(|| anyhow!("SELECT UTC_TIMESTAMP(6) gave no time"))?
        .and_utc();
    let mut overdue_total = 0;
    let mut globals = Vec::new();
    for r in &rows {
        let status = int(r, 2).ok_or_else(|| anyhow!("a status that is not a number"))? as i16;
        let (status_name, stage) = status::global(status);
        let begun_at = int(r, 7).and_then(DateTime::from_timestamp_millis);
        overdue_total = int(r, 11).unwrap_or(0);
        globals.push(Global {
            xid: text(r, 0).unwrap_or_default(),
            transaction_id: int(r, 1),
            status,
            status_name,
            stage,
            application_id: text(r, 3),
            transaction_service_group: text(r, 4),
            transaction_name: text(r, 5),
            timeout_ms: int(r, 6),
            begun_at,
            past_timeout_seconds: begun_at.and(crate::mysql::session::float(r, 8)),
            modified_local: local_time(r, 10),
            store_offset: super::store::store_offset(local_time(r, 9), begun_at),
            branches: Vec::new(),
            branches_unlisted: 0,
            locks: Locks::default(),
        });
    }
    if !globals.is_empty() {
        attach_branches_and_locks(session, (&b, &l), lock_status_column, sample, &mut globals)
            .await?;
    }
    let orphan_where = format!("NOT EXISTS (SELECT 1 FROM {g} AS g WHERE g.xid = l.xid)");
    let counts = session
        .rows(&format!(
            "SELECT count(*), count(DISTINCT xid), min(gmt_create) FROM {l} AS l WHERE {orphan_where}"
        ))
        .await?;
    let counts = counts
        .first()
        .ok_or_else(|| anyhow!("the orphaned locks' count returned no row"))?;
    let rows = int(counts, 0).unwrap_or(0);
    let orphan_sample = match rows {
        0 => Vec::new(),
        _ => session
            .rows(&format!(
                "SELECT xid, resource_id, table_name, pk FROM {l} AS l WHERE {orphan_where}
ORDER BY gmt_create, row_key LIMIT {sample}"
            ))
            .await?
            .iter()
            .map(|r| OrphanLock {
                xid: text(r, 0),
                row: LockedRow {
                    branch_id: None,
                    resource_id: text(r, 1),
                    table_name: text(r, 2),
                    pk: text(r, 3),
                },
            })
            .collect(),
    };
    Ok(Snapshot {
        server_time,
        by_status,
        overdue: globals,
        overdue_total,
        orphan_locks: OrphanLocks {
            rows,
            xids: int(counts, 1).unwrap_or(0),
            oldest_local: local_time(counts, 2),
            sample: orphan_sample,
        },
        lock_status_column,
    })
}

/// Each listed global's branches and locks, by xid through the indexes on `xid`.
async fn attach_branches_and_locks(
    session: &mut Session,
    (b, l): (&str, &str),
    lock_status_column: bool,
    sample: i64,
    globals: &mut [Global],
) -> Result<()> {
    let xids = globals
        .iter()
        .map(|g| hex(&g.xid))
        .collect::<Vec<_>>()
        .join(", ");
    let at: BTreeMap<String, usize> = globals
        .iter()
        .enumerate()
        .map(|(i, g)| (g.xid.clone(), i))
        .collect();
    let branches = session
        .rows(&format!(
            "SELECT xid, branch_id, branch_type, resource_id, status, client_id, total FROM (
  SELECT xid, branch_id, branch_type, resource_id, status, client_id,
         row_number() OVER (PARTITION BY xid ORDER BY branch_id) AS n,
         count(*) OVER (PARTITION BY xid) AS total
  FROM {b} WHERE xid IN ({xids})) AS s
WHERE n <= {sample} ORDER BY xid, branch_id"
        ))
        .await?;
    for r in &branches {
        let Some(&i) = text(r, 0).and_then(|x| at.get(&x)) else {
            continue;
        };
        let status = int(r, 4).map(|s| s as i16);
        let g = &mut globals[i];
        g.branches.push(Branch {
            branch_id: int(r, 1).unwrap_or_default(),
            branch_type: text(r, 2),
            resource_id: text(r, 3),
            status,
            status_name: status.and_then(status::branch),
            client_id: text(r, 5),
        });
        g.branches_unlisted = int(r, 6).unwrap_or(0) - g.branches.len() as i64;
    }
    let rollbacking = match lock_status_column {
        true => "sum(status = 1)",
        false => "NULL",
    };
    let counts = session
        .rows(&format!(
            "SELECT xid, count(*), min(gmt_create), {rollbacking} FROM {l}
WHERE xid IN ({xids}) GROUP BY xid"
        ))
        .await?;
    for r in &counts {
        let Some(&i) = text(r, 0).and_then(|x| at.get(&x)) else {
            continue;
        };
        let g = &mut globals[i];
        g.locks.rows = int(r, 1).unwrap_or(0);
        g.locks.rollbacking = int(r, 3);
        g.locks.held_since = match (local_time(r, 2), g.store_offset) {
            (Some(local), Some(offset)) => Some((local - offset).and_utc()),
            _ => None,
        };
    }
    let locked = session
        .rows(&format!(
            "SELECT xid, resource_id, table_name, pk, branch_id FROM (
  SELECT xid, resource_id, table_name, pk, branch_id, row_key,
         row_number() OVER (PARTITION BY xid ORDER BY row_key) AS n
  FROM {l} WHERE xid IN ({xids})) AS s
WHERE n <= {sample} ORDER BY xid, row_key"
        ))
        .await?;
    for r in &locked {
        let Some(&i) = text(r, 0).and_then(|x| at.get(&x)) else {
            continue;
        };
        globals[i].locks.sample.push(LockedRow {
            branch_id: int(r, 4),
            resource_id: text(r, 1),
            table_name: text(r, 2),
            pk: text(r, 3),
        });
    }
    Ok(())
}

/// What the store says now of these global transactions, by xid.
pub async fn globals_of(
    session: &mut Session,
    global_table: &str,
    xids: &[String],
) -> Result<BTreeMap<String, Known>> {
    if xids.is_empty() {
        return Ok(BTreeMap::new());
    }
    let list = mysql_xids(xids);
    let rows = session
        .rows(&format!(
            "SELECT xid, status, begin_time, timeout FROM {} WHERE xid IN ({list})",
            qualified(global_table)
        ))
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let status = int(r, 1)? as i16;
            let (status_name, stage) = status::global(status);
            Some((
                text(r, 0)?,
                Known {
                    status,
                    status_name,
                    stage,
                    begun_at: int(r, 2).and_then(DateTime::from_timestamp_millis),
                    timeout_ms: int(r, 3),
                },
            ))
        })
        .collect())
}

/// One global's AT branches, and which of `rows` (table, pk) it locks, as `store::held`.
pub async fn held(
    session: &mut Session,
    tables: Tables<'_>,
    xid: &str,
    rows: &[(String, String)],
) -> Result<Held> {
    let mut held = Held::default();
    let branches = format!(
        "SELECT branch_id FROM {} WHERE xid = {} AND branch_type = 'AT'",
        qualified(tables.branch),
        hex(xid)
    );
    for r in session.rows(&branches).await? {
        if let Some(id) = int(&r, 0) {
            held.at_branches.insert(id);
        }
    }
    if rows.is_empty() {
        return Ok(held);
    }
    let pks: Vec<String> = rows.iter().map(|(_, pk)| hex(pk)).collect();
    let locks = format!(
        "SELECT branch_id, table_name, pk FROM {} WHERE xid = {} AND pk IN ({})",
        qualified(tables.lock),
        hex(xid),
        pks.join(", ")
    );
    for r in session.rows(&locks).await? {
        if let (Some(branch), Some(table), Some(pk)) = (int(&r, 0), text(&r, 1), text(&r, 2)) {
            if rows.contains(&(table.clone(), pk.clone())) {
                held.rows.insert((branch, table, pk));
            }
        }
    }
    Ok(held)
}

/// `store::global_statement` in MySQL's SQL: a global's branches and the rows each locks,
/// read-only; None when a table's name holds a character that would not show.
pub fn global_statement(tables: Tables<'_>, xid: &str) -> Option<quote::Sql> {
    Some(
        quote::Sql::new(
            "SELECT b.branch_id, b.branch_type, b.resource_id, b.status, l.table_name, l.pk FROM ",
        )
        .mysql_qualified(tables.branch)?
        .push(" AS b LEFT JOIN ")
        .mysql_qualified(tables.lock)?
        .push(" AS l ON l.branch_id = b.branch_id WHERE b.xid = ")
        .mysql_text(xid)
        .push(" ORDER BY b.branch_id, l.table_name, l.pk;"),
    )
}

/// `store::orphan_locks_statement` in MySQL's SQL.
pub fn orphan_locks_statement(tables: Tables<'_>) -> Option<quote::Sql> {
    Some(
        quote::Sql::new(
            "SELECT l.row_key, l.xid, l.resource_id, l.table_name, l.pk, l.gmt_create FROM ",
        )
        .mysql_qualified(tables.lock)?
        .push(" AS l WHERE NOT EXISTS (SELECT 1 FROM ")
        .mysql_qualified(tables.global)?
        .push(" AS g WHERE g.xid = l.xid) ORDER BY l.gmt_create, l.row_key;"),
    )
}
