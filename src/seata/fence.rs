//! A TCC client's fence table (`tcc_fence_log`, in the business database), on
//! PostgreSQL or MySQL/MariaDB: the Try records no Confirm or Cancel has ended (each a reservation held), and how
//! many records of each status the fence's clean task has left, the oldest and those
//! older than its retention. Times are the client's local time, as it wrote them.

use super::store::Problem;
use crate::appdb::{local_time, mysql_xids, Dialect, Session};
use crate::mysql::session::{int, text};
use crate::mysql::tables::{hex, qualified};
use crate::quote;
use anyhow::{anyhow, Result};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Duration;

/// The columns Seata's `tcc_fence_log` has (1.5 through 2.x).
pub const COLUMNS: [&str; 6] = [
    "xid",
    "branch_id",
    "action_name",
    "status",
    "gmt_create",
    "gmt_modified",
];

/// A fence record's status, as `TCCFenceConstant` names it.
pub fn status_name(status: i16) -> Option<&'static str> {
    Some(match status {
        1 => "tried",
        2 => "committed",
        3 => "rollbacked",
        4 => "suspended",
        _ => return None,
    })
}

/// The fence's state.
#[derive(Debug, Clone, Serialize)]
pub struct Fence {
    /// The database's local time when read (`localtimestamp`): what the ages of records
    /// whose global is gone are measured against.
    pub local_now: NaiveDateTime,
    /// The same moment in UTC: what a global's begin time is measured against.
    pub now: DateTime<Utc>,
    pub by_status: Vec<FenceCount>,
    /// The Try records no Confirm or Cancel has ended, oldest first (at most `limit`).
    pub tried: Vec<Record>,
    /// How many there are in all.
    pub tried_total: i64,
}

/// The records of one status.
#[derive(Debug, Clone, Serialize)]
pub struct FenceCount {
    pub status: i16,
    pub name: Option<&'static str>,
    pub records: i64,
    /// The oldest one's `gmt_modified`, local time.
    pub oldest_local: Option<NaiveDateTime>,
    /// Those last changed longer ago than the retention, by the database's clock.
    pub past_retention: i64,
}

/// One fence record.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub xid: String,
    pub branch_id: i64,
    pub action_name: Option<String>,
    pub created_local: Option<NaiveDateTime>,
}

/// Whether the fence table can be read: the problems otherwise.
pub async fn inspect(session: &mut Session, table: &str) -> Result<Vec<Problem>> {
    session.table_problems(&[(table, &COLUMNS)]).await
}

/// The fence's state: counts by status (one pass, through the status index when the
/// table is large), and the `limit` oldest Try records still open.
pub async fn read(
    session: &mut Session,
    table: &str,
    retention: Duration,
    limit: i64,
) -> Result<Fence> {
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => return read_mysql(s, table, retention, limit).await,
    };
    let t = quote::qualified(table);
    let retention_s = retention.as_secs_f64();
    let counts = format!(
        "SELECT status, count(*), min(gmt_modified),
       count(*) FILTER (WHERE gmt_modified < localtimestamp - make_interval(secs => $1))
FROM {t} GROUP BY status ORDER BY status"
    );
    let tried = format!(
        "SELECT xid, branch_id, action_name, gmt_create, count(*) OVER ()
FROM {t} WHERE status = 1 ORDER BY gmt_create, xid, branch_id LIMIT $1"
    );
    type Params<'p> = &'p (dyn tokio_postgres::types::ToSql + Sync);
    let (by_retention, by_limit): ([Params; 1], [Params; 1]) = ([&retention_s], [&limit]);
    let (count_rows, tried_rows, now_rows) = tokio::try_join!(
        session.query(&counts, &by_retention),
        session.query(&tried, &by_limit),
        session.query("SELECT localtimestamp, statement_timestamp()", &[]),
    )?;
    let now_row = now_rows
        .first()
        .ok_or_else(|| anyhow!("SELECT localtimestamp returned no row"))?;
    let (local_now, now) = (now_row.try_get(0)?, now_row.try_get(1)?);
    let by_status = count_rows
        .iter()
        .map(|r| {
            let status: i16 = r.try_get(0)?;
            Ok(FenceCount {
                status,
                name: status_name(status),
                records: r.try_get(1)?,
                oldest_local: r.try_get(2)?,
                past_retention: r.try_get(3)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut tried_total = 0;
    let tried = tried_rows
        .iter()
        .map(|r| {
            tried_total = r.try_get(4)?;
            Ok(Record {
                xid: r.try_get(0)?,
                branch_id: r.try_get(1)?,
                action_name: r.try_get(2)?,
                created_local: r.try_get(3)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Fence {
        local_now,
        now,
        by_status,
        tried,
        tried_total,
    })
}

/// `read` in MySQL's SQL (times as the client wrote them, against `NOW()` in the
/// server's own zone, as PostgreSQL's `localtimestamp`).
async fn read_mysql(
    session: &mut crate::mysql::session::Session,
    table: &str,
    retention: Duration,
    limit: i64,
) -> Result<Fence> {
    let t = qualified(table);
    let retention_us = retention.as_micros();
    let by_status = session
        .rows(&format!(
            "SELECT status, count(*), min(gmt_modified),
       sum(gmt_modified < NOW(6) - INTERVAL {retention_us} MICROSECOND)
FROM {t} GROUP BY status ORDER BY status"
        ))
        .await?
        .iter()
        .map(|r| {
            let status = int(r, 0).ok_or_else(|| anyhow!("a status that is not a number"))? as i16;
            Ok(FenceCount {
                status,
                name: status_name(status),
                records: int(r, 1).unwrap_or(0),
                oldest_local: local_time(r, 2),
                past_retention: int(r, 3).unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut tried_total = 0;
    let tried = session
        .rows(&format!(
            "SELECT xid, branch_id, action_name, gmt_create, count(*) OVER ()
FROM {t} WHERE status = 1 ORDER BY gmt_create, xid, branch_id LIMIT {limit}"
        ))
        .await?
        .iter()
        .map(|r| {
            tried_total = int(r, 4).unwrap_or(0);
            Record {
                xid: text(r, 0).unwrap_or_default(),
                branch_id: int(r, 1).unwrap_or_default(),
                action_name: text(r, 2),
                created_local: local_time(r, 3),
            }
        })
        .collect();
    let now = session.rows("SELECT NOW(6), UTC_TIMESTAMP(6)").await?;
    let now = now
        .first()
        .ok_or_else(|| anyhow!("SELECT NOW(6) returned no row"))?;
    let (Some(local_now), Some(utc)) = (local_time(now, 0), local_time(now, 1)) else {
        return Err(anyhow!("SELECT NOW(6) gave no time"));
    };
    Ok(Fence {
        local_now,
        now: utc.and_utc(),
        by_status,
        tried,
        tried_total,
    })
}

/// Which of these records are still tried now: read again after the store was asked,
/// so a Confirm or Cancel that ran in between (and ended its global) is not taken for a
/// reservation nobody releases.
pub async fn still_tried(
    session: &mut Session,
    table: &str,
    xids: &[String],
) -> Result<BTreeSet<(String, i64)>> {
    if xids.is_empty() {
        return Ok(BTreeSet::new());
    }
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => {
            let sql = format!(
                "SELECT xid, branch_id FROM {} WHERE xid IN ({}) AND status = 1",
                qualified(table),
                mysql_xids(xids)
            );
            return Ok(s
                .rows(&sql)
                .await?
                .iter()
                .filter_map(|r| Some((text(r, 0)?, int(r, 1)?)))
                .collect());
        }
    };
    let sql = format!(
        "SELECT xid, branch_id FROM {} WHERE xid = ANY($1::text[]) AND status = 1",
        quote::qualified(table)
    );
    session
        .query(&sql, &[&xids])
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// One fence record now: (status, action name, gmt_create), or None when there is none.
pub async fn record(
    session: &mut Session,
    table: &str,
    xid: &str,
    branch_id: i64,
) -> Result<Option<(i16, Option<String>, Option<NaiveDateTime>)>> {
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => {
            let sql = format!(
                "SELECT status, action_name, gmt_create FROM {} WHERE xid = {} AND branch_id = {branch_id}",
                qualified(table),
                hex(xid)
            );
            return Ok(s.rows(&sql).await?.first().map(|r| {
                (
                    int(r, 0).unwrap_or_default() as i16,
                    text(r, 1),
                    local_time(r, 2),
                )
            }));
        }
    };
    let sql = format!(
        "SELECT status, action_name, gmt_create FROM {} WHERE xid = $1 AND branch_id = $2",
        quote::qualified(table)
    );
    session
        .query(&sql, &[&xid, &branch_id])
        .await?
        .first()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .transpose()
}

/// The transaction that marks one Try record as the phase that ran (2 committed, 3 rolled
/// back), only while it is still tried: the `status = 1` guard makes a record that changed
/// since it was read a no-op (0 rows). A PostgreSQL session is read-only by default: hence
/// `BEGIN READ WRITE`; on MySQL one UPDATE commits itself.
pub fn mark_statement(
    dialect: Dialect,
    table: &str,
    xid: &str,
    branch_id: i64,
    status: i16,
) -> Option<quote::Sql> {
    if dialect == Dialect::Mysql {
        return Some(
            quote::Sql::new("UPDATE ")
                .mysql_qualified(table)?
                .push(" SET status = ")
                .number(status.into())
                .push(", gmt_modified = NOW(3) WHERE xid = ")
                .mysql_text(xid)
                .push(" AND branch_id = ")
                .number(branch_id)
                .push(" AND status = 1;"),
        );
    }
    Some(
        quote::Sql::new("BEGIN READ WRITE; UPDATE ")
            .qualified(table)
            .push(" SET status = ")
            .number(status.into())
            .push(", gmt_modified = localtimestamp WHERE xid = ")
            .literal(xid.as_bytes())
            .push(" AND branch_id = ")
            .number(branch_id)
            .push(" AND status = 1; COMMIT;"),
    )
}

/// The statement that shows one Try's fence record: read-only, to paste where the fence
/// is.
pub fn tried_statement(
    dialect: Dialect,
    table: &str,
    xid: &str,
    branch_id: i64,
) -> Option<quote::Sql> {
    let select = quote::Sql::new(
        "SELECT xid, branch_id, action_name, status, gmt_create, gmt_modified FROM ",
    );
    let sql = match dialect {
        Dialect::Postgres => select
            .qualified(table)
            .push(" WHERE xid = ")
            .literal(xid.as_bytes()),
        Dialect::Mysql => select
            .mysql_qualified(table)?
            .push(" WHERE xid = ")
            .mysql_text(xid),
    };
    Some(sql.push(" AND branch_id = ").number(branch_id).push(";"))
}
