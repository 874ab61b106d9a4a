//! The registry's table on PostgreSQL or MySQL/MariaDB: its layout (1.x, or 2.x with
//! `status` and `completion_attempts`), the incomplete publications by listener (through
//! the index on `completion_date`, which holds its NULLs), each listener's last completion
//! among the newest completed rows (a bounded read back along that index), and the
//! completed rows kept (estimated count and size, the oldest, those past a retention,
//! counted up to a cap).

use crate::appdb::{Dialect, Problem, Session};
use crate::mysql::session::{int, text};
use crate::quote;
use anyhow::{anyhow, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The columns every layout has (Spring Modulith 1.x; 2.x with
/// `spring.modulith.events.jdbc.use-legacy-structure`).
pub const V1_COLUMNS: [&str; 6] = [
    "id",
    "listener_id",
    "event_type",
    "serialized_event",
    "publication_date",
    "completion_date",
];

/// What 2.x adds.
pub const V2_COLUMNS: [&str; 3] = ["status", "completion_attempts", "last_resubmission_date"];

/// How many of the newest completed rows are read for each listener's last completion.
pub const RECENT: i64 = 100_000;

/// Completed rows past the retention are counted up to this many.
pub const COUNT_CAP: i64 = 100_000;

/// The oldest incomplete ids listed per listener.
pub const IDS_LISTED: i64 = 10;

/// The registry's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// 1.x (or 2.x's legacy structure): completion_date only.
    V1,
    /// 2.x: also status, completion_attempts, last_resubmission_date.
    V2,
}

/// The layout, or what keeps the table from being read (a table with some of 2.x's
/// columns but not all is of a layout indoubt does not know: its missing columns).
pub async fn layout(session: &mut Session, table: &str) -> Result<Result<Layout, Vec<Problem>>> {
    let problems = session.table_problems(&[(table, &V1_COLUMNS)]).await?;
    if !problems.is_empty() {
        return Ok(Err(problems));
    }
    let v2 = session.table_problems(&[(table, &V2_COLUMNS)]).await?;
    Ok(match v2.first() {
        None => Ok(Layout::V2),
        Some(Problem::MissingColumns { columns, .. }) if columns.len() == V2_COLUMNS.len() => {
            Ok(Layout::V1)
        }
        Some(_) => Err(v2),
    })
}

/// What the registry holds now.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub layout: Layout,
    /// The database's time when read.
    pub now: DateTime<Utc>,
    /// Incomplete publications, by listener, the oldest listener first.
    pub listeners: Vec<Listener>,
    pub incomplete_total: i64,
    pub recent: Recent,
    pub completed: Completed,
}

/// One listener's incomplete publications.
#[derive(Debug, Clone, Serialize)]
pub struct Listener {
    pub listener_id: String,
    /// The event types of its incomplete publications (at most two named: the least and
    /// the greatest).
    pub event_types: Vec<String>,
    pub incomplete: i64,
    pub oldest: Option<DateTime<Utc>>,
    /// The newest incomplete one's publication.
    pub newest: Option<DateTime<Utc>>,
    /// Those published longer ago than the age asked about.
    pub past_age: i64,
    /// 2.x: by status (FAILED, PROCESSING, RESUBMITTED, PUBLISHED, and none: a row 2.0's
    /// resubmission never picks up).
    pub by_status: Option<BTreeMap<String, i64>>,
    /// 2.x: the most completion attempts among them (1 + resubmissions).
    pub max_attempts: Option<i64>,
    /// Its last completion among the newest completed rows (`recent`); None: none there.
    pub last_completion: Option<DateTime<Utc>>,
    /// The oldest incomplete ones' ids (at most `IDS_LISTED`).
    pub oldest_ids: Vec<String>,
}

/// The newest completed rows, read back along the completion date's index.
#[derive(Debug, Clone, Serialize)]
pub struct Recent {
    /// How many were read (fewer than `RECENT`: every completed row).
    pub rows: i64,
    /// The oldest completion among them.
    pub since: Option<DateTime<Utc>>,
    /// Each listener's among them.
    pub by_listener: BTreeMap<String, RecentListener>,
}

/// One listener's rows among the newest completed ones.
#[derive(Debug, Clone, Serialize)]
pub struct RecentListener {
    pub last_completion: DateTime<Utc>,
    pub event_type: String,
    /// The earliest and the latest publication among them.
    pub first_published: DateTime<Utc>,
    pub last_published: DateTime<Utc>,
}

impl Recent {
    /// Whether they hold every completion since `t`.
    pub fn covers(&self, t: DateTime<Utc>) -> bool {
        self.rows < RECENT || self.since.is_some_and(|s| s <= t)
    }
}

/// The completed rows kept.
#[derive(Debug, Clone, Serialize)]
pub struct Completed {
    /// The server's estimate of the table's rows (statistics, not a count).
    pub estimated_rows: Option<i64>,
    /// The table's size with its indexes, in bytes.
    pub bytes: Option<i64>,
    pub oldest: Option<DateTime<Utc>>,
    /// Completed longer ago than the retention, counted up to `COUNT_CAP` (one more:
    /// more than the cap).
    pub past_retention: i64,
}

/// The registry's state, as `layout` found it.
pub async fn read(
    session: &mut Session,
    table: &str,
    layout: Layout,
    (age, retention): (Duration, Duration),
) -> Result<Snapshot> {
    match session {
        Session::Pg(s) => pg::read(s, table, layout, (age, retention)).await,
        Session::Mysql(s) => mysql::read(s, table, layout, (age, retention)).await,
    }
}

/// The per-status columns of the incomplete rows' read (2.x), in `Listener::by_status`'s
/// order: each `sum` of one condition.
const STATUSES: [(&str, &str); 5] = [
    ("FAILED", "status = 'FAILED'"),
    ("PROCESSING", "status = 'PROCESSING'"),
    ("RESUBMITTED", "status = 'RESUBMITTED'"),
    ("PUBLISHED", "status = 'PUBLISHED'"),
    ("none", "status IS NULL"),
];

/// How a dialect spells an expression of another (a count of rows meeting a condition,
/// a time as the reader decodes it).
type Spelling = fn(&str) -> String;

/// The incomplete rows' read, in either SQL: `older_than` is how a dialect says "that
/// long ago", `count_if(…)` how it counts the rows meeting a condition, `epoch(…)` how it
/// gives a time the reader decodes.
fn incomplete_sql(
    t: &str,
    layout: Layout,
    (count_if, epoch): (Spelling, Spelling),
    older_than: String,
) -> String {
    let mut columns = vec![
        "listener_id".to_string(),
        "min(event_type)".into(),
        "max(event_type)".into(),
        "count(*)".into(),
        epoch("min(publication_date)"),
        count_if(&format!("publication_date < {older_than}")),
        epoch("max(publication_date)"),
    ];
    if layout == Layout::V2 {
        columns.extend(STATUSES.iter().map(|(_, cond)| count_if(cond)));
        columns.push("max(completion_attempts)".into());
    }
    format!(
        "SELECT {} FROM {t} WHERE completion_date IS NULL GROUP BY listener_id ORDER BY min(publication_date), listener_id",
        columns.join(", ")
    )
}

/// The oldest incomplete ids of each listener (a window over the incomplete rows only).
fn ids_sql(t: &str, id: &str) -> String {
    format!(
        "SELECT listener_id, id FROM (SELECT listener_id, {id} AS id, row_number() OVER (PARTITION BY listener_id ORDER BY publication_date, id) AS n
FROM {t} WHERE completion_date IS NULL) AS s WHERE n <= {IDS_LISTED} ORDER BY listener_id, n"
    )
}

/// Each listener's last completion among the newest `RECENT` completed rows (a read
/// back along the completion date's index), its event type, how many rows it has there,
/// the oldest completion there, its first and last publication there.
fn recent_sql(t: &str, epoch: Spelling) -> String {
    format!(
        "SELECT listener_id, {}, max(event_type), count(*), {}, {}, {} FROM (SELECT listener_id, event_type, completion_date, publication_date FROM {t}
WHERE completion_date IS NOT NULL ORDER BY completion_date DESC LIMIT {RECENT}) AS r GROUP BY listener_id",
        epoch("max(completion_date)"),
        epoch("min(completion_date)"),
        epoch("min(publication_date)"),
        epoch("max(publication_date)")
    )
}

/// The status counts in `STATUSES` order and the most attempts, from the columns at
/// `at` of a row; None for a 1.x registry.
fn statuses(
    layout: Layout,
    at: usize,
    int_at: impl Fn(usize) -> Option<i64>,
) -> (Option<BTreeMap<String, i64>>, Option<i64>) {
    if layout == Layout::V1 {
        return (None, None);
    }
    let by_status = STATUSES
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.to_string(), int_at(at + i).unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect();
    (Some(by_status), int_at(at + STATUSES.len()))
}

/// The status counts with the rows of any other status (`COMPLETED` with no completion
/// date, or a value no release writes) counted as `other`, so that they add up.
fn with_other(
    by_status: Option<BTreeMap<String, i64>>,
    incomplete: i64,
) -> Option<BTreeMap<String, i64>> {
    by_status.map(|mut by| {
        let known: i64 = by.values().sum();
        if incomplete > known {
            by.insert("other".into(), incomplete - known);
        }
        by
    })
}

/// Listeners from the incomplete rows' read, with their ids and last completions.
fn listeners(
    mut listed: Vec<Listener>,
    ids: Vec<(String, String)>,
    recent: &Recent,
) -> Vec<Listener> {
    for l in &mut listed {
        l.oldest_ids = ids
            .iter()
            .filter(|(listener, _)| *listener == l.listener_id)
            .map(|(_, id)| id.clone())
            .collect();
        l.last_completion = recent
            .by_listener
            .get(&l.listener_id)
            .map(|r| r.last_completion);
    }
    listed
}

mod pg {
    //! The reads in PostgreSQL's SQL.
    use super::*;
    use crate::pg::session::Session;

    pub(super) async fn read(
        session: &Session,
        table: &str,
        layout: Layout,
        (age, retention): (Duration, Duration),
    ) -> Result<Snapshot> {
        let t = quote::qualified(table);
        let older = |d: Duration| format!("now() - make_interval(secs => {})", d.as_secs_f64());
        let incomplete = incomplete_sql(
            &t,
            layout,
            (
                |cond| format!("count(*) FILTER (WHERE {cond})"),
                |c| c.to_string(),
            ),
            older(age),
        );
        let rows = session.query(&incomplete, &[]).await?;
        let mut listed = Vec::new();
        let mut total = 0;
        for r in &rows {
            let count: i64 = r.try_get(3)?;
            total += count;
            let (min_type, max_type): (String, String) = (r.try_get(1)?, r.try_get(2)?);
            let int_at = |i: usize| -> Option<i64> {
                r.try_get::<_, Option<i64>>(i)
                    .ok()
                    .flatten()
                    .or_else(|| r.try_get::<_, Option<i32>>(i).ok().flatten().map(i64::from))
            };
            let (by_status, max_attempts) = statuses(layout, 7, int_at);
            listed.push(Listener {
                listener_id: r.try_get(0)?,
                event_types: event_types(min_type, max_type),
                incomplete: count,
                oldest: r.try_get(4)?,
                newest: r.try_get(6)?,
                past_age: r.try_get(5)?,
                by_status: with_other(by_status, count),
                max_attempts,
                last_completion: None,
                oldest_ids: Vec::new(),
            });
        }
        let ids = match listed.is_empty() {
            true => Vec::new(),
            false => session
                .query(&ids_sql(&t, "id::text"), &[])
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<Vec<_>>>()?,
        };
        let recent_rows = session
            .query(&recent_sql(&t, |c| c.to_string()), &[])
            .await?;
        let mut recent = Recent {
            rows: 0,
            since: None,
            by_listener: BTreeMap::new(),
        };
        for r in &recent_rows {
            let oldest: DateTime<Utc> = r.try_get(4)?;
            recent.rows += r.try_get::<_, i64>(3)?;
            recent.since = Some(recent.since.map_or(oldest, |s| s.min(oldest)));
            recent.by_listener.insert(
                r.try_get(0)?,
                RecentListener {
                    last_completion: r.try_get(1)?,
                    event_type: r.try_get(2)?,
                    first_published: r.try_get(5)?,
                    last_published: r.try_get(6)?,
                },
            );
        }
        let stats = session
            .query(
                &format!(
                    "SELECT now(), (SELECT min(completion_date) FROM {t} WHERE completion_date IS NOT NULL),
       (SELECT count(*) FROM (SELECT 1 FROM {t} WHERE completion_date < {} LIMIT {}) AS c),
       (SELECT reltuples::int8 FROM pg_class WHERE oid = $1::text::regclass), pg_total_relation_size($1::text::regclass)",
                    older(retention),
                    COUNT_CAP + 1
                ),
                &[&t],
            )
            .await?;
        let s = stats
            .first()
            .ok_or_else(|| anyhow!("the registry's statistics returned no row"))?;
        let estimated: Option<i64> = s.try_get(3)?;
        Ok(Snapshot {
            layout,
            now: s.try_get(0)?,
            listeners: listeners(listed, ids, &recent),
            incomplete_total: total,
            recent,
            completed: Completed {
                // -1: never analyzed.
                estimated_rows: estimated.filter(|n| *n >= 0),
                bytes: s.try_get(4)?,
                oldest: s.try_get(1)?,
                past_retention: s.try_get(2)?,
            },
        })
    }
}

mod mysql {
    //! The reads in MySQL's SQL. Times are read as epoch seconds (`UNIX_TIMESTAMP` of a
    //! TIMESTAMP column is exact whatever the session's time zone).
    use super::*;
    use crate::mysql::session::Session;
    use crate::mysql::tables::qualified;

    fn epoch(column: &str) -> String {
        format!("UNIX_TIMESTAMP({column})")
    }

    fn time(row: &mysql_async::Row, i: usize) -> Option<DateTime<Utc>> {
        let secs: f64 = text(row, i)?.trim().parse().ok()?;
        DateTime::from_timestamp_micros((secs * 1e6).round() as i64)
    }

    pub(super) async fn read(
        session: &mut Session,
        table: &str,
        layout: Layout,
        (age, retention): (Duration, Duration),
    ) -> Result<Snapshot> {
        let t = qualified(table);
        let older = |d: Duration| format!("NOW(6) - INTERVAL {} MICROSECOND", d.as_micros());
        let incomplete = incomplete_sql(
            &t,
            layout,
            (
                |cond| format!("sum(CASE WHEN {cond} THEN 1 ELSE 0 END)"),
                epoch,
            ),
            older(age),
        );
        let rows = session.rows(&incomplete).await?;
        let mut listed = Vec::new();
        let mut total = 0;
        for r in &rows {
            let count = int(r, 3).unwrap_or(0);
            total += count;
            let (by_status, max_attempts) = statuses(layout, 7, |i| int(r, i));
            listed.push(Listener {
                listener_id: text(r, 0).unwrap_or_default(),
                event_types: event_types(
                    text(r, 1).unwrap_or_default(),
                    text(r, 2).unwrap_or_default(),
                ),
                incomplete: count,
                oldest: time(r, 4),
                newest: time(r, 6),
                past_age: int(r, 5).unwrap_or(0),
                by_status: with_other(by_status, count),
                max_attempts,
                last_completion: None,
                oldest_ids: Vec::new(),
            });
        }
        let ids = match listed.is_empty() {
            true => Vec::new(),
            false => session
                .rows(&ids_sql(&t, "id"))
                .await?
                .iter()
                .filter_map(|r| Some((text(r, 0)?, text(r, 1)?)))
                .collect(),
        };
        let mut recent = Recent {
            rows: 0,
            since: None,
            by_listener: BTreeMap::new(),
        };
        for r in session.rows(&recent_sql(&t, epoch)).await? {
            recent.rows += int(&r, 3).unwrap_or(0);
            if let Some(oldest) = time(&r, 4) {
                recent.since = Some(recent.since.map_or(oldest, |s| s.min(oldest)));
            }
            if let (Some(listener), Some(last), Some(first_pub), Some(last_pub)) =
                (text(&r, 0), time(&r, 1), time(&r, 5), time(&r, 6))
            {
                recent.by_listener.insert(
                    listener,
                    RecentListener {
                        last_completion: last,
                        event_type: text(&r, 2).unwrap_or_default(),
                        first_published: first_pub,
                        last_published: last_pub,
                    },
                );
            }
        }
        let (schema, name) = match table.split_once('.') {
            Some((s, n)) => (crate::mysql::tables::hex(s), crate::mysql::tables::hex(n)),
            None => ("DATABASE()".to_string(), crate::mysql::tables::hex(table)),
        };
        let stats = session
            .rows(&format!(
                "SELECT {}, (SELECT {} FROM {t} WHERE completion_date IS NOT NULL),
       (SELECT count(*) FROM (SELECT 1 FROM {t} WHERE completion_date < {} LIMIT {}) AS c),
       (SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name}),
       (SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name})",
                epoch("NOW(6)"),
                epoch("min(completion_date)"),
                older(retention),
                COUNT_CAP + 1
            ))
            .await?;
        let s = stats
            .first()
            .ok_or_else(|| anyhow!("the registry's statistics returned no row"))?;
        Ok(Snapshot {
            layout,
            now: time(s, 0).ok_or_else(|| anyhow!("the server gave no time"))?,
            listeners: listeners(listed, ids, &recent),
            incomplete_total: total,
            recent,
            completed: Completed {
                estimated_rows: int(s, 3),
                bytes: int(s, 4),
                oldest: time(s, 1),
                past_retention: int(s, 2).unwrap_or(0),
            },
        })
    }
}

/// The event types named: the least and the greatest, once when they are one.
fn event_types(min: String, max: String) -> Vec<String> {
    match min == max {
        true => vec![min],
        false => vec![min, max],
    }
}

/// The statement that lists one listener's incomplete publications, oldest first:
/// read-only, to paste where the registry is. None when the table's name would not show.
pub fn incomplete_statement(
    dialect: Dialect,
    table: &str,
    layout: Layout,
    listener_id: &str,
) -> Option<quote::Sql> {
    let columns = match layout {
        Layout::V1 => "SELECT id, event_type, publication_date FROM ",
        Layout::V2 => "SELECT id, event_type, publication_date, status, completion_attempts, last_resubmission_date FROM ",
    };
    let sql = quote::Sql::new(columns);
    let sql = match dialect {
        Dialect::Postgres => sql
            .qualified(table)
            .push(" WHERE completion_date IS NULL AND listener_id = ")
            .literal(listener_id.as_bytes()),
        Dialect::Mysql => sql
            .mysql_qualified(table)?
            .push(" WHERE completion_date IS NULL AND listener_id = ")
            .mysql_text(listener_id),
    };
    Some(sql.push(" ORDER BY publication_date;"))
}

/// What 2.x adds to "completed": marked so (as Spring Modulith's own delete requires).
fn completed_only(layout: Layout) -> &'static str {
    match layout {
        Layout::V1 => "",
        Layout::V2 => " AND (status = 'COMPLETED' OR status IS NULL)",
    }
}

/// The statement that deletes one batch of completed publications older than `before`
/// (the oldest first), as Spring Modulith's own `deleteCompletedPublicationsBefore`
/// picks them: completed before that time, and in 2.x also marked COMPLETED (or of no
/// status). One batch commits by itself; run again until it deletes fewer than `batch`.
/// None when the table's name would not show.
pub fn prune_statement(
    dialect: Dialect,
    table: &str,
    layout: Layout,
    before: DateTime<Utc>,
    batch: u64,
) -> Option<quote::Sql> {
    let completed = completed_only(layout);
    let micros = before.timestamp_micros();
    Some(match dialect {
        Dialect::Postgres => {
            let t = quote::qualified(table);
            // Through the completion date's index; the same WHERE again in the outer
            // DELETE, because a row changed between the subquery's read and its lock is
            // checked again against the outer WHERE only.
            let cond =
                format!("completion_date < to_timestamp({micros}::numeric / 1000000){completed}");
            quote::Sql::assembled(format!(
                "BEGIN READ WRITE; DELETE FROM {t} WHERE id IN (SELECT id FROM {t} WHERE {cond} ORDER BY completion_date LIMIT {batch}) AND {cond}; COMMIT;"
            ))
        }
        Dialect::Mysql => quote::Sql::new("DELETE FROM ")
            .mysql_qualified(table)?
            .push(" WHERE completion_date < FROM_UNIXTIME(")
            .number(micros.div_euclid(1_000_000))
            .push(") + INTERVAL ")
            .number(micros.rem_euclid(1_000_000))
            .push(" MICROSECOND")
            .push(completed)
            .push(" ORDER BY completion_date LIMIT ")
            .number(batch as i64)
            .push(";"),
    })
}

/// How many completed publications are older than `before` (as `prune_statement` picks
/// them), counted up to `COUNT_CAP` (one more: more than the cap).
pub async fn prunable(
    session: &mut Session,
    table: &str,
    layout: Layout,
    before: DateTime<Utc>,
) -> Result<i64> {
    let completed = completed_only(layout);
    let micros = before.timestamp_micros();
    let cap = COUNT_CAP + 1;
    match session {
        Session::Pg(s) => {
            let t = quote::qualified(table);
            let sql = format!(
                "SELECT count(*) FROM (SELECT 1 FROM {t} WHERE completion_date < to_timestamp({micros}::numeric / 1000000){completed} LIMIT {cap}) AS c"
            );
            let rows = s.query(&sql, &[]).await?;
            Ok(rows.first().map(|r| r.try_get(0)).transpose()?.unwrap_or(0))
        }
        Session::Mysql(s) => {
            let sql = format!(
                "SELECT count(*) FROM (SELECT 1 FROM {} WHERE completion_date < FROM_UNIXTIME({}) + INTERVAL {} MICROSECOND{completed} LIMIT {cap}) AS c",
                crate::mysql::tables::qualified(table),
                micros.div_euclid(1_000_000),
                micros.rem_euclid(1_000_000)
            );
            Ok(s.rows(&sql)
                .await?
                .first()
                .and_then(|r| int(r, 0))
                .unwrap_or(0))
        }
    }
}
