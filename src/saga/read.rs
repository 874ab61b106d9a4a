//! A saga's tables read: whether each table and column is there and of a type the reads
//! can judge, the unfinished instances by state, those stuck (failed, compensating past
//! their attempts, an outcome unknown too long, stalled, overdue) with their manual-queue
//! items, the most-retried ones, the queue's open items, the entities held for a saga that
//! no longer runs — and which of these questions a large table answers by reading itself
//! whole, with the index that would answer it instead.
//!
//! Every read goes through the unfinished rows only (`state NOT IN (done)`), so that a
//! partial index over them (PostgreSQL) or an index led by the state (MySQL) keeps it
//! proportional to what is in flight, not to the table's history.

use super::spell::Spell;
use super::{Lock, Saga, TimeKind};
use crate::appdb::{Dialect, Problem, Session};
use crate::quote::Sql;
use anyhow::{anyhow, Result};
use serde::Serialize;

/// Stuck sagas listed, the oldest update first (one more read: more than this).
pub const STUCK_CAP: usize = 1000;
/// Orphaned entities listed per lock table.
pub const LOCK_CAP: usize = 1000;
/// The most-retried unfinished sagas whose attempts are kept for the next run.
pub const ATTEMPTS_CAP: usize = 1000;
/// Open queue items whose saga has finished, listed.
pub const FINISHED_LISTED: usize = 20;
/// A table with more rows than this (the server's estimate) is large: reading it whole
/// for a question an index would answer is said.
pub const LARGE_TABLE: i64 = 100_000;

/// A column whose type the reads cannot judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unfit {
    pub table: String,
    pub column: String,
    /// Its type, as the server names it.
    pub found: String,
    /// What the reads need: "a timestamp", "an integer".
    pub wanted: &'static str,
}

/// How the time columns compare with the server's clock.
#[derive(Debug, Clone, Copy)]
pub struct Kinds {
    pub updated_at: TimeKind,
    pub started_at: Option<TimeKind>,
    pub queue_created_at: Option<TimeKind>,
}

/// What the saga's tables hold now.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    /// Unfinished instances by state.
    pub by_state: Vec<StateCount>,
    /// Those stuck, the oldest update first (at most `STUCK_CAP`).
    pub stuck: Vec<SagaRow>,
    /// More were stuck than are listed.
    pub stuck_more: bool,
    /// The most-retried unfinished instances: (id, attempts).
    pub attempts: Vec<(String, i64)>,
    pub queue: Option<QueueState>,
    pub locks: Vec<LockState>,
    /// Large tables a question is answered from by reading them whole.
    pub scans: Vec<Scan>,
}

/// Unfinished instances in one state.
#[derive(Debug, Clone, Serialize)]
pub struct StateCount {
    pub state: String,
    pub count: i64,
    /// Seconds since the least recently updated of them was.
    pub oldest_update_seconds: Option<f64>,
}

/// One stuck instance.
#[derive(Debug, Clone, Serialize)]
pub struct SagaRow {
    pub id: String,
    pub state: String,
    pub step: Option<String>,
    pub attempts: Option<i64>,
    /// Seconds since it was last updated.
    pub idle_seconds: f64,
    /// Seconds since it started.
    pub age_seconds: Option<f64>,
    /// Its manual-queue items: open, all, and how long the oldest open one waits.
    pub queue_open: i64,
    pub queue_items: i64,
    pub queued_seconds: Option<f64>,
    /// The context columns' values, in the layout's order.
    pub context: Vec<Option<String>>,
}

/// The manual queue's open items.
#[derive(Debug, Clone, Serialize)]
pub struct QueueState {
    pub open: i64,
    pub oldest_open_seconds: Option<f64>,
    /// Open items whose saga has since finished: (saga id, its state, seconds open).
    pub finished: Vec<(String, String, Option<f64>)>,
    pub finished_count: i64,
}

/// One lock table: how many entities are held, and those whose saga no longer runs.
#[derive(Debug, Clone, Serialize)]
pub struct LockState {
    pub table: String,
    pub held: i64,
    pub orphaned: Vec<Held>,
    pub orphaned_more: bool,
}

/// An entity held for a saga.
#[derive(Debug, Clone, Serialize)]
pub struct Held {
    pub id: String,
    pub saga_id: Option<String>,
    /// Its saga's state; None when there is no such saga.
    pub saga_state: Option<String>,
    pub saga_idle_seconds: Option<f64>,
    pub saga_age_seconds: Option<f64>,
    /// The guard column's value (`version:`), as text.
    pub version: Option<String>,
}

/// A large table read whole for one of the questions, and the index that would answer it.
#[derive(Debug, Clone, Serialize)]
pub struct Scan {
    pub table: String,
    pub estimated_rows: i64,
    /// What the reads ask of it.
    pub question: &'static str,
    #[serde(skip)]
    pub index: Sql,
    /// The statement, as text (JSON).
    pub create_index: String,
}

/// What keeps the saga's tables from being read: a missing table or column, one the
/// role may not read.
pub async fn problems(session: &mut Session, saga: &Saga) -> Result<Vec<Problem>> {
    let l = &saga.layout;
    let mut saga_columns = vec![l.id.as_str(), l.state.as_str(), l.updated_at.as_str()];
    saga_columns.extend(
        [&l.started_at, &l.attempts, &l.step]
            .into_iter()
            .flatten()
            .map(String::as_str),
    );
    saga_columns.extend(l.context.iter().map(String::as_str));
    saga_columns.dedup();
    let mut tables: Vec<(String, Vec<&str>)> = vec![(l.table.clone(), saga_columns)];
    if let Some(q) = &saga.queue {
        let mut columns = vec![q.saga_id.as_str(), q.created_at.as_str()];
        columns.extend(
            [&q.resolved_at, &q.reason]
                .into_iter()
                .flatten()
                .map(String::as_str),
        );
        tables.push((q.table.clone(), columns));
    }
    for lock in &saga.locks {
        let mut columns = vec![lock.id.as_str(), lock.state.as_str(), lock.saga_id.as_str()];
        columns.extend(lock.version.iter().map(String::as_str));
        tables.push((lock.table.clone(), columns));
    }
    let asked: Vec<(&str, &[&str])> = tables
        .iter()
        .map(|(t, c)| (t.as_str(), c.as_slice()))
        .collect();
    session.table_problems(&asked).await
}

/// The time columns' kinds, or the columns of a type the reads cannot judge (a time kept
/// as text or epoch milliseconds, attempts kept as text).
pub async fn kinds(session: &mut Session, saga: &Saga) -> Result<Result<Kinds, Vec<Unfit>>> {
    let l = &saga.layout;
    let dialect = session.dialect();
    let saga_types = column_types(session, &l.table).await?;
    let mut unfit = Vec::new();
    let mut time = |table: &str, types: &[(String, String)], column: &str| {
        let found = type_of(types, column);
        let kind = time_kind(dialect, &found);
        if kind.is_none() {
            unfit.push(Unfit {
                table: table.to_string(),
                column: column.to_string(),
                found,
                wanted: "a timestamp",
            });
        }
        kind
    };
    let updated_at = time(&l.table, &saga_types, &l.updated_at);
    let started_at = l
        .started_at
        .as_ref()
        .map(|c| time(&l.table, &saga_types, c));
    let queue_created_at = match &saga.queue {
        Some(q) => {
            let types = column_types(session, &q.table).await?;
            Some(time(&q.table, &types, &q.created_at))
        }
        None => None,
    };
    if let Some(attempts) = &l.attempts {
        let found = type_of(&saga_types, attempts);
        if !integer(&found) {
            unfit.push(Unfit {
                table: l.table.clone(),
                column: attempts.clone(),
                found,
                wanted: "an integer",
            });
        }
    }
    Ok(match (unfit.is_empty(), updated_at) {
        (true, Some(updated_at)) => Ok(Kinds {
            updated_at,
            started_at: started_at.flatten(),
            queue_created_at: queue_created_at.flatten(),
        }),
        _ => Err(unfit),
    })
}

/// How a release moves a lock's version column on, so that whoever reads it for
/// optimistic locking sees the write: a counter is incremented, a time set to now; a
/// column of another type is left as it is (said in the confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bump {
    Counter,
    Clock(TimeKind),
    Untouched,
}

/// How a release moves `lock`'s version column on (Untouched: it names none).
pub async fn bump(session: &mut Session, lock: &Lock) -> Result<Bump> {
    let Some(version) = &lock.version else {
        return Ok(Bump::Untouched);
    };
    let dialect = session.dialect();
    let found = type_of(&column_types(session, &lock.table).await?, version);
    Ok(match (integer(&found), time_kind(dialect, &found)) {
        (true, _) => Bump::Counter,
        (false, Some(kind)) => Bump::Clock(kind),
        (false, None) => Bump::Untouched,
    })
}

fn type_of(types: &[(String, String)], column: &str) -> String {
    types
        .iter()
        .find(|(c, _)| c == column)
        .map(|(_, t)| t.clone())
        .unwrap_or_else(|| "unknown".into())
}

/// Each column of a table with its type, as the server names it.
async fn column_types(session: &mut Session, table: &str) -> Result<Vec<(String, String)>> {
    let sql = match session.dialect() {
        Dialect::Postgres => format!(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = {}::regclass AND attnum > 0 AND NOT attisdropped",
            crate::quote::sql_literal(&crate::quote::qualified(table))
        ),
        Dialect::Mysql => {
            let (schema, name) = mysql_schema_and_name(table);
            format!("SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name}")
        }
    };
    Ok(session
        .text_rows(&sql)
        .await?
        .into_iter()
        .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
        .collect())
}

/// A MySQL table's schema and name as expressions for information_schema.
fn mysql_schema_and_name(table: &str) -> (String, String) {
    match table.split_once('.') {
        Some((s, n)) => (crate::appdb::mysql_char(s), crate::appdb::mysql_char(n)),
        None => ("DATABASE()".to_string(), crate::appdb::mysql_char(table)),
    }
}

/// How a column of this type compares with the clock; None: it is not a time.
fn time_kind(dialect: Dialect, found: &str) -> Option<TimeKind> {
    let t = found.to_ascii_lowercase();
    match dialect {
        Dialect::Postgres if t.starts_with("timestamp") && t.ends_with(" with time zone") => {
            Some(TimeKind::Zoned)
        }
        Dialect::Postgres if t.starts_with("timestamp") || t == "date" => Some(TimeKind::Local),
        Dialect::Mysql if ["datetime", "timestamp", "date"].contains(&t.as_str()) => {
            Some(TimeKind::Local)
        }
        _ => None,
    }
}

/// Whether a column of this type holds whole numbers.
fn integer(found: &str) -> bool {
    let t = found.to_ascii_lowercase();
    [
        "smallint",
        "integer",
        "bigint",
        "int",
        "tinyint",
        "mediumint",
        "numeric",
        "decimal",
    ]
    .iter()
    .any(|i| t == *i || t.starts_with(&format!("{i}(")))
}

/// The statements of one saga's reads, in its server's SQL.
struct Statements<'a> {
    s: Spell,
    saga: &'a Saga,
    kinds: Kinds,
}

impl Statements<'_> {
    fn t(&self) -> String {
        self.s.table(&self.saga.layout.table)
    }

    fn c(&self, column: &str) -> String {
        self.s.col("s", column)
    }

    /// Unfinished: not in a done state.
    fn open(&self) -> String {
        let l = &self.saga.layout;
        format!(
            "{} NOT IN ({})",
            self.c(&l.state),
            self.s.list(&l.states.done)
        )
    }

    fn by_state(&self) -> String {
        let l = &self.saga.layout;
        format!(
            "SELECT {}, count(*), {} FROM {} s WHERE {} GROUP BY {}",
            self.s.text(&self.c(&l.state)),
            self.s.age(
                &format!("min({})", self.c(&l.updated_at)),
                self.kinds.updated_at
            ),
            self.t(),
            self.open(),
            self.c(&l.state)
        )
    }

    /// A correlated read of the saga's queue items (`what` of those matching `cond`).
    fn queue_items(&self, what: &str, open_only: bool) -> Option<String> {
        let q = self.saga.queue.as_ref()?;
        let open = match (&q.resolved_at, open_only) {
            (Some(r), true) => format!(" AND {} IS NULL", self.s.col("q", r)),
            _ => String::new(),
        };
        Some(format!(
            "(SELECT {what} FROM {} q WHERE {} = {}{open})",
            self.s.table(&q.table),
            self.s.col("q", &q.saga_id),
            self.c(&self.saga.layout.id)
        ))
    }

    /// One instance's columns, as `SagaRow` reads them.
    fn columns(&self) -> Vec<String> {
        let (l, s) = (&self.saga.layout, &self.s);
        let state = self.c(&l.state);
        let updated = self.c(&l.updated_at);
        let mut columns = vec![
            s.text(&self.c(&l.id)),
            s.text(&state),
            l.step
                .as_ref()
                .map_or("NULL".into(), |c| s.text(&self.c(c))),
            l.attempts
                .as_ref()
                .map_or("NULL".into(), |c| s.text(&self.c(c))),
            s.age(&updated, self.kinds.updated_at),
            match (&l.started_at, self.kinds.started_at) {
                (Some(c), Some(kind)) => s.age(&self.c(c), kind),
                _ => "NULL".into(),
            },
            self.queue_items("count(*)", true)
                .unwrap_or_else(|| "0".into()),
            self.queue_items("count(*)", false)
                .unwrap_or_else(|| "0".into()),
            match (&self.saga.queue, self.kinds.queue_created_at) {
                (Some(q), Some(kind)) => self
                    .queue_items(
                        &s.age(&format!("min({})", s.col("q", &q.created_at)), kind),
                        true,
                    )
                    .unwrap_or_else(|| "NULL".into()),
                _ => "NULL".into(),
            },
        ];
        columns.extend(l.context.iter().map(|c| s.text(&self.c(c))));
        columns
    }

    /// One instance by its id.
    fn instance(&self, id: &str) -> String {
        format!(
            "SELECT {} FROM {} s WHERE {} = {}",
            self.columns().join(", "),
            self.t(),
            self.c(&self.saga.layout.id),
            self.s.lit(id)
        )
    }

    /// One entity of a lock table with its saga.
    fn entity(&self, lock: &Lock, id: &str) -> String {
        let (l, s) = (&self.saga.layout, &self.s);
        format!(
            "SELECT {}, {}, {}, {}, {}, {}, {} FROM {} l LEFT JOIN {} s ON {} = {} WHERE {} = {}",
            s.text(&s.col("l", &lock.id)),
            s.text(&s.col("l", &lock.saga_id)),
            s.text(&self.c(&l.state)),
            s.age(&self.c(&l.updated_at), self.kinds.updated_at),
            match (&l.started_at, self.kinds.started_at) {
                (Some(c), Some(kind)) => s.age(&self.c(c), kind),
                _ => "NULL".into(),
            },
            lock.version
                .as_ref()
                .map_or("NULL".into(), |v| s.text(&s.col("l", v))),
            s.text(&s.col("l", &lock.state)),
            s.table(&lock.table),
            self.t(),
            self.c(&l.id),
            s.col("l", &lock.saga_id),
            s.col("l", &lock.id),
            s.lit(id)
        )
    }

    fn stuck(&self) -> String {
        let (l, lim, s) = (&self.saga.layout, &self.saga.limits, &self.s);
        let state = self.c(&l.state);
        let updated = self.c(&l.updated_at);
        let mut stuck = vec![
            s.is_in(&state, &l.states.failed),
            format!(
                "({} AND {})",
                s.is_in(&state, &l.states.unknown),
                s.older(&updated, self.kinds.updated_at, lim.unknown_after)
            ),
            s.older(&updated, self.kinds.updated_at, lim.stalled_after),
        ];
        if let (Some(a), Some(max)) = (&l.attempts, lim.max_attempts) {
            stuck.push(format!("{} >= {max}", self.c(a)));
        }
        if let (Some(c), Some(kind), Some(deadline)) =
            (&l.started_at, self.kinds.started_at, lim.deadline)
        {
            stuck.push(s.older(&self.c(c), kind, deadline));
        }
        let columns = self.columns();
        // A failed saga a person has dealt with (every item of it resolved) is history.
        let handled = match &self.saga.queue {
            Some(q) if q.resolved_at.is_some() && !l.states.failed.is_empty() => format!(
                " AND NOT ({} AND {} > 0 AND {} = 0)",
                s.is_in(&state, &l.states.failed),
                self.queue_items("count(*)", false).unwrap_or_default(),
                self.queue_items("count(*)", true).unwrap_or_default()
            ),
            _ => String::new(),
        };
        format!(
            "SELECT {} FROM {} s WHERE {} AND ({}){handled} ORDER BY {updated} LIMIT {}",
            columns.join(", "),
            self.t(),
            self.open(),
            stuck.join(" OR "),
            STUCK_CAP + 1
        )
    }

    fn attempts(&self) -> Option<String> {
        let a = self.c(self.saga.layout.attempts.as_ref()?);
        Some(format!(
            "SELECT {}, {} FROM {} s WHERE {} AND {a} >= 1 ORDER BY {a} DESC LIMIT {ATTEMPTS_CAP}",
            self.s.text(&self.c(&self.saga.layout.id)),
            self.s.text(&a),
            self.t(),
            self.open()
        ))
    }

    fn queue_open(&self) -> Option<String> {
        let q = self.saga.queue.as_ref()?;
        let kind = self.kinds.queue_created_at?;
        let open = match &q.resolved_at {
            Some(r) => format!(" WHERE {} IS NULL", self.s.col("q", r)),
            None => String::new(),
        };
        Some(format!(
            "SELECT count(*), {} FROM {} q{open}",
            self.s
                .age(&format!("min({})", self.s.col("q", &q.created_at)), kind),
            self.s.table(&q.table)
        ))
    }

    /// Open items whose saga is done (only when items are closed: `resolved_at`).
    fn queue_finished(&self) -> Option<String> {
        let q = self.saga.queue.as_ref()?;
        let resolved = q.resolved_at.as_ref()?;
        let kind = self.kinds.queue_created_at?;
        let l = &self.saga.layout;
        Some(format!(
            "SELECT {}, {}, {} FROM {} q JOIN {} s ON {} = {} WHERE {} IS NULL AND {} ORDER BY {} LIMIT {}",
            self.s.text(&self.s.col("q", &q.saga_id)),
            self.s.text(&self.c(&l.state)),
            self.s.age(&self.s.col("q", &q.created_at), kind),
            self.s.table(&q.table),
            self.t(),
            self.c(&l.id),
            self.s.col("q", &q.saga_id),
            self.s.col("q", resolved),
            self.s.is_in(&self.c(&l.state), &l.states.done),
            self.s.col("q", &q.created_at),
            FINISHED_LISTED + 1
        ))
    }

    fn held(&self, lock: &Lock) -> String {
        format!(
            "SELECT count(*) FROM {} l WHERE {}",
            self.s.table(&lock.table),
            self.s.is_in(&self.s.col("l", &lock.state), &lock.held)
        )
    }

    /// Entities held for a saga that is missing, done, failed, or overdue and stalled
    /// (stalled, when no deadline is known).
    fn orphaned(&self, lock: &Lock) -> String {
        let (l, s) = (&self.saga.layout, &self.s);
        // Overdue and no longer moving: a saga past its deadline that still makes progress
        // still uses what it holds.
        let stalled = s.older(
            &self.c(&l.updated_at),
            self.kinds.updated_at,
            self.saga.limits.stalled_after,
        );
        let overdue = match (
            &l.started_at,
            self.kinds.started_at,
            self.saga.limits.deadline,
        ) {
            (Some(c), Some(kind), Some(deadline)) => {
                format!("({} AND {stalled})", s.older(&self.c(c), kind, deadline))
            }
            _ => stalled,
        };
        let state = self.c(&l.state);
        format!(
            "SELECT {}, {}, {}, {}, {}, {} FROM {} l LEFT JOIN {} s ON {} = {} WHERE {} AND ({} IS NULL OR {} OR {} OR {overdue}) ORDER BY {} LIMIT {}",
            s.text(&s.col("l", &lock.id)),
            s.text(&s.col("l", &lock.saga_id)),
            s.text(&state),
            s.age(&self.c(&l.updated_at), self.kinds.updated_at),
            match (&l.started_at, self.kinds.started_at) {
                (Some(c), Some(kind)) => s.age(&self.c(c), kind),
                _ => "NULL".into(),
            },
            lock.version
                .as_ref()
                .map_or("NULL".into(), |v| s.text(&s.col("l", v))),
            s.table(&lock.table),
            self.t(),
            self.c(&l.id),
            s.col("l", &lock.saga_id),
            s.is_in(&s.col("l", &lock.state), &lock.held),
            self.c(&l.id),
            s.is_in(&state, &l.states.done),
            s.is_in(&state, &l.states.failed),
            s.col("l", &lock.id),
            LOCK_CAP + 1
        )
    }
}

/// The saga's state, as `problems` and `kinds` found its tables readable.
pub async fn read(session: &mut Session, saga: &Saga, kinds: Kinds) -> Result<Snapshot> {
    let st = Statements {
        s: Spell(session.dialect()),
        saga,
        kinds,
    };
    let by_state = session
        .text_rows(&st.by_state())
        .await?
        .into_iter()
        .map(|r| StateCount {
            state: cell(&r, 0).unwrap_or_default(),
            count: number(&r, 1).unwrap_or(0),
            oldest_update_seconds: float(&r, 2),
        })
        .collect();
    let stuck_sql = st.stuck();
    let mut stuck: Vec<SagaRow> = session
        .text_rows(&stuck_sql)
        .await?
        .iter()
        .map(|r| saga_row(saga, r))
        .collect();
    let stuck_more = stuck.len() > STUCK_CAP;
    stuck.truncate(STUCK_CAP);
    let attempts = match st.attempts() {
        Some(sql) => session
            .text_rows(&sql)
            .await?
            .into_iter()
            .filter_map(|r| Some((cell(&r, 0)?, number(&r, 1)?)))
            .collect(),
        None => Vec::new(),
    };
    let queue = match st.queue_open() {
        Some(sql) => {
            let rows = session.text_rows(&sql).await?;
            let row = rows
                .first()
                .ok_or_else(|| anyhow!("the manual queue's count returned no row"))?;
            let finished: Vec<(String, String, Option<f64>)> = match st.queue_finished() {
                Some(sql) => session
                    .text_rows(&sql)
                    .await?
                    .into_iter()
                    .filter_map(|r| Some((cell(&r, 0)?, cell(&r, 1)?, float(&r, 2))))
                    .collect(),
                None => Vec::new(),
            };
            Some(QueueState {
                open: number(row, 0).unwrap_or(0),
                oldest_open_seconds: float(row, 1),
                finished_count: finished.len() as i64,
                finished: finished.into_iter().take(FINISHED_LISTED).collect(),
            })
        }
        None => None,
    };
    let mut locks = Vec::new();
    for lock in &saga.locks {
        let held = session.text_rows(&st.held(lock)).await?;
        let mut orphaned: Vec<Held> = session
            .text_rows(&st.orphaned(lock))
            .await?
            .into_iter()
            .map(|r| Held {
                id: cell(&r, 0).unwrap_or_default(),
                saga_id: cell(&r, 1),
                saga_state: cell(&r, 2),
                saga_idle_seconds: float(&r, 3),
                saga_age_seconds: float(&r, 4),
                version: cell(&r, 5),
            })
            .collect();
        let orphaned_more = orphaned.len() > LOCK_CAP;
        orphaned.truncate(LOCK_CAP);
        locks.push(LockState {
            table: lock.table.clone(),
            held: held.first().and_then(|r| number(r, 0)).unwrap_or(0),
            orphaned,
            orphaned_more,
        });
    }
    let mut scans = Vec::new();
    let dialect = session.dialect();
    if let Some(scan) = scanned(
        session,
        &saga.layout.table,
        &stuck_sql,
        "its unfinished instances",
        || saga_index(dialect, saga),
    )
    .await?
    {
        scans.push(scan);
    }
    for lock in &saga.locks {
        if let Some(scan) = scanned(
            session,
            &lock.table,
            &st.orphaned(lock),
            "the entities held",
            || lock_index(dialect, lock),
        )
        .await?
        {
            scans.push(scan);
        }
    }
    Ok(Snapshot {
        by_state,
        stuck,
        stuck_more,
        attempts,
        queue,
        locks,
        scans,
    })
}

/// A row of `Statements::columns`.
fn saga_row(saga: &Saga, r: &[Option<String>]) -> SagaRow {
    SagaRow {
        id: cell(r, 0).unwrap_or_default(),
        state: cell(r, 1).unwrap_or_default(),
        step: cell(r, 2),
        attempts: number(r, 3),
        idle_seconds: float(r, 4).unwrap_or(0.0),
        age_seconds: float(r, 5),
        queue_open: number(r, 6).unwrap_or(0),
        queue_items: number(r, 7).unwrap_or(0),
        queued_seconds: float(r, 8),
        context: (0..saga.layout.context.len())
            .map(|i| cell(r, 9 + i))
            .collect(),
    }
}

/// One instance, as the stuck read reads it; None when there is no such id.
pub async fn instance(
    session: &mut Session,
    saga: &Saga,
    kinds: Kinds,
    id: &str,
) -> Result<Option<SagaRow>> {
    let st = Statements {
        s: Spell(session.dialect()),
        saga,
        kinds,
    };
    let rows = session.text_rows(&st.instance(id)).await?;
    Ok(rows.first().map(|r| saga_row(saga, r)))
}

/// One entity of a lock table: its state, and its saga's as `Held` says it; None when
/// there is no such entity.
pub async fn entity(
    session: &mut Session,
    saga: &Saga,
    kinds: Kinds,
    lock: &Lock,
    id: &str,
) -> Result<Option<(String, Held)>> {
    let st = Statements {
        s: Spell(session.dialect()),
        saga,
        kinds,
    };
    let rows = session.text_rows(&st.entity(lock, id)).await?;
    Ok(rows.first().map(|r| {
        (
            cell(r, 6).unwrap_or_default(),
            Held {
                id: cell(r, 0).unwrap_or_default(),
                saga_id: cell(r, 1),
                saga_state: cell(r, 2),
                saga_idle_seconds: float(r, 3),
                saga_age_seconds: float(r, 4),
                version: cell(r, 5),
            },
        )
    }))
}

fn cell(row: &[Option<String>], i: usize) -> Option<String> {
    row.get(i).cloned().flatten()
}

fn number(row: &[Option<String>], i: usize) -> Option<i64> {
    let text = cell(row, i)?;
    let text = text.trim();
    // MySQL's sum() is a decimal ("3"), a count an integer.
    text.parse()
        .ok()
        .or_else(|| text.parse::<f64>().ok().map(|f| f as i64))
}

fn float(row: &[Option<String>], i: usize) -> Option<f64> {
    cell(row, i)?.trim().parse().ok()
}

/// The table's name without its schema, as plans name it.
fn bare(table: &str) -> &str {
    table.rsplit('.').next().unwrap_or(table)
}

/// When `table` is large and the server answers `sql` by reading it whole: the table,
/// the question and the index that would serve it.
async fn scanned(
    session: &mut Session,
    table: &str,
    sql: &str,
    question: &'static str,
    index: impl FnOnce() -> Sql,
) -> Result<Option<Scan>> {
    let dialect = session.dialect();
    let estimate_sql = match dialect {
        Dialect::Postgres => format!(
            "SELECT reltuples::int8 FROM pg_class WHERE oid = {}::regclass",
            crate::quote::sql_literal(&crate::quote::qualified(table))
        ),
        Dialect::Mysql => {
            let (schema, name) = mysql_schema_and_name(table);
            format!("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name}")
        }
    };
    let rows = session.text_rows(&estimate_sql).await?;
    let estimated = rows.first().and_then(|r| number(r, 0)).unwrap_or(0);
    if estimated <= LARGE_TABLE {
        return Ok(None);
    }
    let explain = match dialect {
        Dialect::Postgres => format!("EXPLAIN (FORMAT JSON) {sql}"),
        Dialect::Mysql => format!("EXPLAIN FORMAT=JSON {sql}"),
    };
    let plan = session.text_rows(&explain).await?;
    let plan: serde_json::Value = plan
        .first()
        .and_then(|r| cell(r, 0))
        .and_then(|p| serde_json::from_str(&p).ok())
        .unwrap_or(serde_json::Value::Null);
    if !reads_whole(&plan, dialect, bare(table)) {
        return Ok(None);
    }
    let index = index();
    Ok(Some(Scan {
        table: table.to_string(),
        estimated_rows: estimated,
        question,
        create_index: index.as_str().to_string(),
        index,
    }))
}

/// Whether a plan (EXPLAIN's JSON) reads `table` whole: PostgreSQL's Seq Scan of it,
/// MySQL's access type ALL.
fn reads_whole(plan: &serde_json::Value, dialect: Dialect, table: &str) -> bool {
    use serde_json::Value;
    match plan {
        Value::Object(map) => {
            let here = match dialect {
                Dialect::Postgres => {
                    map.get("Node Type").and_then(Value::as_str) == Some("Seq Scan")
                        && map.get("Relation Name").and_then(Value::as_str) == Some(table)
                }
                Dialect::Mysql => {
                    map.get("access_type").and_then(Value::as_str) == Some("ALL")
                        && map.get("table_name").and_then(Value::as_str) == Some(table)
                }
            };
            here || map.values().any(|v| reads_whole(v, dialect, table))
        }
        Value::Array(items) => items.iter().any(|v| reads_whole(v, dialect, table)),
        _ => false,
    }
}

/// An index's name: the table's and what it serves, within PostgreSQL's 63 bytes.
fn index_name(table: &str, what: &str) -> String {
    let mut name = format!("{}_{what}", bare(table));
    while name.len() > 63 {
        name.remove(0);
    }
    name
}

/// The index the stuck read wants: PostgreSQL's over the unfinished rows only (the
/// read's own condition, so the planner matches it), MySQL's led by the state.
pub fn saga_index(dialect: Dialect, saga: &Saga) -> Sql {
    let l = &saga.layout;
    let s = Spell(dialect);
    let name = index_name(&l.table, "unfinished");
    Sql::assembled(match dialect {
        Dialect::Postgres => format!(
            "CREATE INDEX CONCURRENTLY {} ON {} ({}) WHERE {} NOT IN ({});",
            s.col("", &name),
            s.table(&l.table),
            s.col("", &l.updated_at),
            s.col("", &l.state),
            s.list(&l.states.done)
        ),
        Dialect::Mysql => format!(
            "ALTER TABLE {} ADD INDEX {} ({}, {}), ALGORITHM=INPLACE, LOCK=NONE;",
            s.table(&l.table),
            s.col("", &name),
            s.col("", &l.state),
            s.col("", &l.updated_at)
        ),
    })
}

/// The index the held entities' read wants: over the held rows only (PostgreSQL), led
/// by the state (MySQL).
pub fn lock_index(dialect: Dialect, lock: &Lock) -> Sql {
    let s = Spell(dialect);
    let name = index_name(&lock.table, "held");
    Sql::assembled(match dialect {
        Dialect::Postgres => format!(
            "CREATE INDEX CONCURRENTLY {} ON {} ({}) WHERE {} IN ({});",
            s.col("", &name),
            s.table(&lock.table),
            s.col("", &lock.saga_id),
            s.col("", &lock.state),
            s.list(&lock.held)
        ),
        Dialect::Mysql => format!(
            "ALTER TABLE {} ADD INDEX {} ({}, {}), ALGORITHM=INPLACE, LOCK=NONE;",
            s.table(&lock.table),
            s.col("", &name),
            s.col("", &lock.state),
            s.col("", &lock.saga_id)
        ),
    })
}

/// The statement that lists a saga's stuck instances of these ids, to paste where the
/// saga table is.
pub fn list_statement(dialect: Dialect, saga: &Saga, ids: &[String]) -> Sql {
    let (l, s) = (&saga.layout, Spell(dialect));
    Sql::assembled(format!(
        "SELECT * FROM {} WHERE {} IN ({}) ORDER BY {};",
        s.table(&l.table),
        s.col("", &l.id),
        s.list(ids),
        s.col("", &l.updated_at)
    ))
}

/// The statement that lists the manual queue's open items (of these sagas, when named),
/// the oldest first, to paste where it is.
pub fn queue_statement(dialect: Dialect, queue: &super::Queue, sagas: &[&str]) -> Sql {
    let s = Spell(dialect);
    let mut cond = Vec::new();
    if let Some(r) = &queue.resolved_at {
        cond.push(format!("{} IS NULL", s.col("", r)));
    }
    if !sagas.is_empty() {
        let ids: Vec<String> = sagas.iter().map(|id| id.to_string()).collect();
        cond.push(format!(
            "{} IN ({})",
            s.col("", &queue.saga_id),
            s.list(&ids)
        ));
    }
    let filter = match cond.is_empty() {
        true => String::new(),
        false => format!(" WHERE {}", cond.join(" AND ")),
    };
    Sql::assembled(format!(
        "SELECT * FROM {}{filter} ORDER BY {};",
        s.table(&queue.table),
        s.col("", &queue.created_at)
    ))
}

/// The statement that lists these entities of a lock table, to paste where it is.
pub fn entities_statement(dialect: Dialect, lock: &Lock, ids: &[&str]) -> Sql {
    let s = Spell(dialect);
    let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    Sql::assembled(format!(
        "SELECT * FROM {} WHERE {} IN ({});",
        s.table(&lock.table),
        s.col("", &lock.id),
        s.list(&ids)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_column_is_known_by_its_type_and_anything_else_is_not() {
        let pg = Dialect::Postgres;
        assert_eq!(
            time_kind(pg, "timestamp with time zone"),
            Some(TimeKind::Zoned)
        );
        assert_eq!(
            time_kind(pg, "timestamp(3) without time zone"),
            Some(TimeKind::Local)
        );
        assert_eq!(time_kind(pg, "bigint"), None);
        assert_eq!(time_kind(pg, "text"), None);
        assert_eq!(time_kind(Dialect::Mysql, "datetime"), Some(TimeKind::Local));
        assert_eq!(time_kind(Dialect::Mysql, "varchar"), None);
        assert!(integer("bigint") && integer("int") && !integer("text"));
    }

    #[test]
    fn a_plan_that_reads_the_table_whole_is_seen_at_any_depth() {
        let pg: serde_json::Value = serde_json::from_str(
            r#"[{"Plan": {"Node Type": "Limit", "Plans": [{"Node Type": "Seq Scan", "Relation Name": "order_saga"}]}}]"#,
        )
        .unwrap();
        assert!(reads_whole(&pg, Dialect::Postgres, "order_saga"));
        assert!(!reads_whole(&pg, Dialect::Postgres, "seats"));
        let my: serde_json::Value = serde_json::from_str(
            r#"{"query_block": {"table": {"table_name": "order_saga", "access_type": "range"}}}"#,
        )
        .unwrap();
        assert!(!reads_whole(&my, Dialect::Mysql, "order_saga"));
    }
}
