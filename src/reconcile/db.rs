//! The database side: the job's query streamed row by row, never loaded whole; its
//! columns checked before it runs, and a row that cannot be read named with what to do.

use super::ids::{within_limit, IdList, IdPlace};
use super::spill::Budget;
use crate::pg::session::Session;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use futures_util::{pin_mut, TryStreamExt};
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::Row;

pub struct DbSide {
    pub ids: IdList,
    /// Ids whose row is younger than the settle window.
    pub young: BTreeSet<String>,
    pub rows: u64,
}

enum Id {
    Integer(i64),
    Text(String),
}

/// How the id column is read.
#[derive(Clone, Copy)]
enum IdKind {
    Int8,
    Int4,
    Int2,
    Text,
}

/// What the query's columns are, checked once from the prepared statement.
struct Shape {
    id: IdKind,
    id_name: String,
    id_type: String,
    /// The row's time, when the query returns a second column.
    time_name: Option<String>,
}

/// Runs `query` with `$1` = since and `$2` = until (timestamptz). Column 1 is the id
/// (text or an integer); column 2, when present, the row's time for the settle window.
pub async fn read(
    session: &Session,
    query: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    settle_from: DateTime<Utc>,
    budget: &Arc<Budget>,
    progress: &dyn Fn(u64),
) -> Result<DbSide> {
    const ABOUT: &str =
        "running the reconcile query (it takes $1 = since and $2 = until, both timestamptz)";
    let statement = session.prepare(query).await.context(ABOUT)?;
    parameters(statement.params())?;
    let shape = shape(statement.columns())?;
    let stream = session
        .query_stream(&statement, &[&since, &until])
        .await
        .context(ABOUT)?;
    pin_mut!(stream);
    let young_from = PgTime::of(settle_from);
    let mut side = DbSide {
        ids: IdList::new(budget),
        young: BTreeSet::new(),
        rows: 0,
    };
    while let Some(row) = stream
        .try_next()
        .await
        .map_err(|e| unread_row(e, side.rows))?
    {
        let at = match &shape.time_name {
            Some(name) => cell::<Option<PgTime>>(&row, 1, name, "timestamptz", side.rows)?,
            None => None,
        };
        let id = match shape.id {
            IdKind::Int8 => id_cell::<i64>(&row, &shape, at, side.rows)?.map(Id::Integer),
            IdKind::Int4 => {
                id_cell::<i32>(&row, &shape, at, side.rows)?.map(|n| Id::Integer(n.into()))
            }
            IdKind::Int2 => {
                id_cell::<i16>(&row, &shape, at, side.rows)?.map(|n| Id::Integer(n.into()))
            }
            IdKind::Text => match id_cell::<&str>(&row, &shape, at, side.rows)? {
                Some(id) => {
                    within_limit(id, || IdPlace::Row {
                        which: format!("{} of the reconcile query", which_row(side.rows, at)),
                        column: shape.id_name.clone(),
                    })?;
                    Some(Id::Text(id.to_string()))
                }
                None => None,
            },
        };
        let Some(id) = id else {
            return Err(null_id(&shape, at, side.rows));
        };
        if at.is_some_and(|t| t >= young_from) {
            side.young.insert(match &id {
                Id::Integer(n) => n.to_string(),
                Id::Text(t) => t.clone(),
            });
        }
        match id {
            Id::Integer(n) => side.ids.push_integer(n)?,
            Id::Text(t) => side.ids.push(&t)?,
        }
        side.rows += 1;
        if side.rows.is_multiple_of(65_536) {
            progress(side.rows);
        }
    }
    progress(side.rows);
    Ok(side)
}

/// How long ago (seconds, by the server's clock) the oldest of `missing` was written,
/// from the query's time column: the same query, `$1`/`$2` as the run had them, narrowed
/// to those ids (an index on the id serves it). None when the query has no time column.
pub async fn oldest_age_seconds(
    session: &Session,
    query: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    missing: &[String],
) -> Result<Option<f64>> {
    const ABOUT: &str = "reading when the oldest missing id was written";
    let columns = session.prepare(query).await.context(ABOUT)?;
    let shape = shape(columns.columns())?;
    if shape.time_name.is_none() || missing.is_empty() {
        return Ok(None);
    }
    // Positional names: the query's own may repeat or need quoting.
    let sql = format!(
        "SELECT extract(epoch FROM statement_timestamp() - min(q.indoubt_at))::float8 \
         FROM ({query}) AS q(indoubt_id, indoubt_at) \
         WHERE q.indoubt_id = ANY($3) AND isfinite(q.indoubt_at)"
    );
    let integers = || -> Result<Vec<i64>> {
        missing
            .iter()
            .map(|id| id.parse::<i64>().context("an integer id read back"))
            .collect()
    };
    let rows = match shape.id {
        IdKind::Text => session.query(&sql, &[&since, &until, &missing]).await,
        IdKind::Int8 => {
            let ids = integers()?;
            session.query(&sql, &[&since, &until, &ids]).await
        }
        IdKind::Int4 => {
            let ids: Vec<i32> = integers()?
                .into_iter()
                .filter_map(|n| n.try_into().ok())
                .collect();
            session.query(&sql, &[&since, &until, &ids]).await
        }
        IdKind::Int2 => {
            let ids: Vec<i16> = integers()?
                .into_iter()
                .filter_map(|n| n.try_into().ok())
                .collect();
            session.query(&sql, &[&since, &until, &ids]).await
        }
    }
    .context(ABOUT)?;
    match rows.first() {
        Some(row) => Ok(row.try_get::<_, Option<f64>>(0).context(ABOUT)?),
        None => Ok(None),
    }
}

/// A row that could not be read, named; one too large to be read (past the 16 MiB a
/// message may take) typed, for the application to say where to look, as it does for an
/// id past its limit.
fn unread_row(err: anyhow::Error, before: u64) -> anyhow::Error {
    let row = before + 1;
    if err.downcast_ref::<crate::pg::wire::Oversized>().is_none() {
        return err.context(format!("reading row {row} of the reconcile query"));
    }
    err.context(RowTooLarge { row })
}

/// The rows of the reconcile query are ids and times: one too large to read holds more.
#[derive(Debug)]
pub struct RowTooLarge {
    /// Its place in the order the server sent the rows, from 1.
    pub row: u64,
}

impl std::fmt::Display for RowTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reading row {} of the reconcile query", self.row)
    }
}

impl std::error::Error for RowTooLarge {}

/// Why the reconcile query cannot be compared: its shape (parameters and columns), checked
/// before it runs, or a row without an id. The application says how to fix each.
#[derive(Debug)]
pub enum QueryError {
    /// It takes `count` parameters, not the window's two.
    Parameters {
        count: usize,
    },
    /// Parameter `n` (1 or 2) is used as the type `found`, not timestamptz.
    ParameterType {
        n: usize,
        found: String,
    },
    NoColumns,
    /// The first column, the id, is of the type `found`: neither text nor an integer.
    IdType {
        column: String,
        found: String,
    },
    /// The second column, the row's time, is of the type `found`, not timestamptz.
    TimeType {
        column: String,
        found: String,
        kind: TimeKind,
    },
    /// `which` row has a NULL id (in `column`, of the type `found`).
    NullId {
        which: String,
        column: String,
        found: String,
    },
}

/// What a time column that is not timestamptz is, for the cast that makes it one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeKind {
    /// timestamp without time zone: it has no instant until a zone is named.
    Timestamp,
    Date,
    Other,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::Parameters { count } => write!(
                f,
                "the reconcile query takes {count} parameter(s): it must take the window, $1 (since) and $2 (until)"
            ),
            QueryError::ParameterType { n, found } => write!(
                f,
                "the reconcile query uses ${n} as {found}: it is the window's {}, a timestamptz",
                if *n == 1 {
                    "start (since)"
                } else {
                    "end (until)"
                }
            ),
            QueryError::NoColumns => f.write_str("the reconcile query returns no columns"),
            QueryError::IdType { column, found } => write!(
                f,
                "the reconcile query's first column {column:?} is of type {found}: the id must be text or an integer (smallint, integer, bigint)"
            ),
            QueryError::TimeType { column, found, .. } => write!(
                f,
                "the reconcile query's second column {column:?} is of type {found}: it must be the row's time, timestamptz"
            ),
            QueryError::NullId {
                which,
                column,
                found,
            } => write!(
                f,
                "{which} of the reconcile query has a NULL id (column {column:?}, {found}): a row without an id cannot be compared"
            ),
        }
    }
}

impl std::error::Error for QueryError {}

/// `$1` and `$2` must be timestamptz: PostgreSQL infers a parameter's type from its use
/// (`$1 < $2` alone makes them text), and the driver would then refuse in Rust's words.
fn parameters(types: &[Type]) -> Result<()> {
    if types.len() != 2 {
        return Err(QueryError::Parameters { count: types.len() }.into());
    }
    for (i, t) in types.iter().enumerate() {
        if *t != Type::TIMESTAMPTZ {
            return Err(QueryError::ParameterType {
                n: i + 1,
                found: sql_type(t),
            }
            .into());
        }
    }
    Ok(())
}

/// The id and time columns' types, refused before the query runs when they cannot be
/// read, with the cast that makes them readable.
fn shape(columns: &[tokio_postgres::Column]) -> Result<Shape> {
    let Some(first) = columns.first() else {
        return Err(QueryError::NoColumns.into());
    };
    let id_name = first.name().to_string();
    let id_type = sql_type(first.type_());
    let id = match *first.type_() {
        Type::INT8 => IdKind::Int8,
        Type::INT4 => IdKind::Int4,
        Type::INT2 => IdKind::Int2,
        ref t if <String as FromSql>::accepts(t) => IdKind::Text,
        _ => {
            return Err(QueryError::IdType {
                column: id_name,
                found: id_type,
            }
            .into())
        }
    };
    let time_name = match columns.get(1) {
        None => None,
        Some(c) if *c.type_() == Type::TIMESTAMPTZ => Some(c.name().to_string()),
        Some(c) => {
            return Err(QueryError::TimeType {
                column: c.name().to_string(),
                found: sql_type(c.type_()),
                kind: match *c.type_() {
                    Type::TIMESTAMP => TimeKind::Timestamp,
                    Type::DATE => TimeKind::Date,
                    _ => TimeKind::Other,
                },
            }
            .into());
        }
    };
    Ok(Shape {
        id,
        id_name,
        id_type,
        time_name,
    })
}

/// The id of a row, None when NULL; a value that cannot be read (text not in UTF-8)
/// names the row.
fn id_cell<'a, T: FromSql<'a>>(
    row: &'a Row,
    shape: &Shape,
    at: Option<PgTime>,
    before: u64,
) -> Result<Option<T>> {
    row.try_get::<_, Option<T>>(0).map_err(|e| {
        anyhow::anyhow!(
            "{} of the reconcile query: its id (column {:?}, {}) cannot be read: {}",
            which_row(before, at),
            shape.id_name,
            shape.id_type,
            reason(&e)
        )
    })
}

fn cell<'a, T: FromSql<'a>>(
    row: &'a Row,
    index: usize,
    name: &str,
    sql: &str,
    before: u64,
) -> Result<T> {
    row.try_get::<_, T>(index).map_err(|e| {
        anyhow::anyhow!(
            "{} of the reconcile query: column {name:?} ({sql}) cannot be read: {}",
            which_row(before, None),
            reason(&e)
        )
    })
}

fn null_id(shape: &Shape, at: Option<PgTime>, before: u64) -> anyhow::Error {
    QueryError::NullId {
        which: which_row(before, at),
        column: shape.id_name.clone(),
        found: shape.id_type.clone(),
    }
    .into()
}

/// "row 17 (time 2026-05-11 02:00:00 UTC)": its position in the order the server sent
/// the rows, and its time when the query returns one (a NULL id has nothing else to show).
fn which_row(before: u64, at: Option<PgTime>) -> String {
    let n = before + 1;
    match at {
        Some(t) => format!("row {n} (time {})", t.shown()),
        None => format!("row {n}"),
    }
}

/// A timestamptz as PostgreSQL sends it, microseconds from 2000-01-01 UTC, compared as
/// it comes: chrono's conversion of every row's time was 7% of a 100M-row run. Made a
/// time only to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PgTime(i64);

/// 2000-01-01 00:00:00 UTC, PostgreSQL's epoch, in Unix microseconds.
const PG_EPOCH_MICROS: i64 = 946_684_800_000_000;

impl PgTime {
    fn of(t: DateTime<Utc>) -> PgTime {
        PgTime(t.timestamp_micros().saturating_sub(PG_EPOCH_MICROS))
    }

    fn shown(self) -> String {
        match self.0 {
            i64::MAX => "infinity".into(),
            i64::MIN => "-infinity".into(),
            micros => DateTime::from_timestamp_micros(micros.saturating_add(PG_EPOCH_MICROS))
                .map_or_else(
                    || format!("{micros} µs from 2000-01-01"),
                    |t| t.format("%Y-%m-%d %H:%M:%S%.f UTC").to_string(),
                ),
        }
    }
}

impl<'a> FromSql<'a> for PgTime {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<PgTime, Box<dyn std::error::Error + Sync + Send>> {
        let bytes: [u8; 8] = raw
            .try_into()
            .map_err(|_| format!("a timestamptz of {} bytes, not 8", raw.len()))?;
        Ok(PgTime(i64::from_be_bytes(bytes)))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::TIMESTAMPTZ
    }
}

/// A driver error's own cause (its text names Rust types only for a type mismatch, which
/// `shape` refuses before the query runs).
fn reason(e: &tokio_postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(source) => source.to_string(),
        None => e.to_string(),
    }
}

/// A type as SQL writes it (`timestamp without time zone`, `numeric`), not its catalog name.
fn sql_type(t: &Type) -> String {
    match *t {
        Type::TIMESTAMP => "timestamp without time zone".into(),
        Type::TIMESTAMPTZ => "timestamp with time zone".into(),
        Type::INT2 => "smallint".into(),
        Type::INT4 => "integer".into(),
        Type::INT8 => "bigint".into(),
        Type::FLOAT4 => "real".into(),
        Type::FLOAT8 => "double precision".into(),
        Type::BPCHAR => "character".into(),
        Type::VARCHAR => "character varying".into(),
        Type::BOOL => "boolean".into(),
        _ => t.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_named_by_position_and_time() {
        assert_eq!(which_row(0, None), "row 1");
        let t = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        assert_eq!(
            which_row(4, Some(PgTime::of(t))),
            "row 5 (time 2023-11-14 22:13:20 UTC)"
        );
        // What PostgreSQL sends for that time: microseconds from 2000-01-01.
        let sent = (1_700_000_000i64 - 946_684_800) * 1_000_000;
        assert_eq!(
            PgTime::from_sql(&Type::TIMESTAMPTZ, &sent.to_be_bytes()).unwrap(),
            PgTime::of(t)
        );
        assert_eq!(
            which_row(0, Some(PgTime(i64::MAX))),
            "row 1 (time infinity)"
        );
        assert_eq!(sql_type(&Type::TIMESTAMP), "timestamp without time zone");
        assert_eq!(sql_type(&Type::NUMERIC), "numeric");
    }
}
