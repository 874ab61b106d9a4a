//! The database side: the job's query streamed row by row, never loaded whole.

use super::ids::IdList;
use crate::pg::session::{pg_error, Session};
use anyhow::{anyhow, Context, Result};
use chrono::{DateTime, Utc};
use futures_util::{pin_mut, TryStreamExt};
use std::collections::BTreeSet;
use tokio_postgres::types::Type;

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

/// Runs `query` with `$1` = since and `$2` = until (timestamptz). Column 1 is the id
/// (text or an integer); column 2, when present, the row's time for the settle window.
pub async fn read(
    session: &Session,
    query: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    settle_from: DateTime<Utc>,
    progress: &dyn Fn(u64),
) -> Result<DbSide> {
    let stream = session
        .query_stream(query, &[&since, &until])
        .await
        .context(
            "running the reconcile query (it takes $1 = since and $2 = until, both timestamptz)",
        )?;
    pin_mut!(stream);
    let mut side = DbSide {
        ids: IdList::default(),
        young: BTreeSet::new(),
        rows: 0,
    };
    while let Some(row) = stream.try_next().await.map_err(pg_error)? {
        let id = match row.columns().first().map(|c| c.type_().clone()) {
            Some(Type::INT8) => Id::Integer(row.try_get::<_, i64>(0)?),
            Some(Type::INT4) => Id::Integer(row.try_get::<_, i32>(0)?.into()),
            Some(Type::INT2) => Id::Integer(row.try_get::<_, i16>(0)?.into()),
            Some(Type::TEXT) | Some(Type::VARCHAR) | Some(Type::BPCHAR) | Some(Type::NAME) => Id::Text(row.try_get::<_, String>(0)?),
            Some(other) => return Err(anyhow!("the query's first column is {other}: select the id as text or an integer (id::text)")),
            None => return Err(anyhow!("the query returns no columns")),
        };
        if row.len() > 1 {
            let at: Option<DateTime<Utc>> = row
                .try_get(1)
                .context("the query's second column must be the row's time (timestamptz)")?;
            if at.is_some_and(|t| t >= settle_from) {
                side.young.insert(match &id {
                    Id::Integer(n) => n.to_string(),
                    Id::Text(t) => t.clone(),
                });
            }
        }
        match id {
            Id::Integer(n) => side.ids.push_integer(n),
            Id::Text(t) => side.ids.push(&t),
        }
        side.rows += 1;
        if side.rows.is_multiple_of(65_536) {
            progress(side.rows);
        }
    }
    progress(side.rows);
    Ok(side)
}
