//! Outbox and inbox tables: what waits to be published, for how long, and which rows a
//! relay polling by `id > last_seen` has passed over for good.

use super::session::Session;
use crate::quote::Sql;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// `schema.table` or `table` as a quoted identifier (config-controlled, quoted anyway),
/// spelled so it shows as itself: the statements below are also shown to be pasted.
pub fn quote_name(name: &str) -> String {
    crate::quote::qualified(name)
}

#[derive(Debug, Clone, Serialize)]
pub struct OutboxState {
    pub rows: i64,
    pub unpublished: i64,
    pub oldest_unpublished_at: Option<DateTime<Utc>>,
    pub oldest_unpublished_seconds: Option<f64>,
    /// The highest id the relay has published: its cursor, if it polls by id.
    pub max_published_id: Option<String>,
    /// Unpublished, older than the settle window, and below the cursor: ids assigned at
    /// INSERT whose rows became visible after the cursor passed them.
    pub skipped: i64,
    pub skipped_ids: Vec<String>,
    /// Published longer ago than the retention asked about: kept although nobody needs them.
    pub published_past_retention: i64,
    pub oldest_published_seconds: Option<f64>,
    /// The table's size with its indexes.
    pub bytes: Option<i64>,
}

pub async fn outbox(
    session: &Session,
    table: &str,
    id: &str,
    created_at: &str,
    published_at: &str,
    (settle_seconds, retention_seconds): (f64, f64),
    show: i64,
) -> Result<OutboxState> {
    let (t, id, c, p) = (
        quote_name(table),
        quote_name(id),
        quote_name(created_at),
        quote_name(published_at),
    );
    let skipped_rows = skipped_predicate(&t, &id, &c, &p, "make_interval(secs => $1)");
    let summary = format!(
        "WITH cursor AS (SELECT max({id}) AS max_id FROM {t} WHERE {p} IS NOT NULL)
SELECT count(*), count(*) FILTER (WHERE {p} IS NULL),
       min({c}) FILTER (WHERE {p} IS NULL),
       extract(epoch FROM statement_timestamp() - min({c}) FILTER (WHERE {p} IS NULL))::float8,
       (SELECT max_id::text FROM cursor),
       count(*) FILTER (WHERE {skipped_rows}),
       count(*) FILTER (WHERE {p} < statement_timestamp() - make_interval(secs => $2)),
       extract(epoch FROM statement_timestamp() - min({p}))::float8,
       pg_total_relation_size($3::text::regclass)
FROM {t}"
    );
    let skipped = format!(
        "SELECT {id}::text AS skipped_id FROM {t}\nWHERE {skipped_rows}\nORDER BY {id} LIMIT $2"
    );
    let summary_params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&settle_seconds, &retention_seconds, &t];
    let skipped_params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&settle_seconds, &show];
    let (rows, ids) = tokio::try_join!(
        session.query(&summary, &summary_params),
        session.query(&skipped, &skipped_params)
    )?;
    let row = rows
        .first()
        .ok_or_else(|| anyhow::anyhow!("the outbox query returned no row"))?;
    Ok(OutboxState {
        rows: row.try_get(0)?,
        unpublished: row.try_get(1)?,
        oldest_unpublished_at: row.try_get(2)?,
        oldest_unpublished_seconds: row.try_get(3)?,
        max_published_id: row.try_get(4)?,
        skipped: row.try_get(5)?,
        skipped_ids: ids.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?,
        published_past_retention: row.try_get(6)?,
        oldest_published_seconds: row.try_get(7)?,
        bytes: row.try_get(8)?,
    })
}

/// Which rows a relay polling by `id > last_seen` passed over: unpublished, below the
/// highest published id, and older than the settle time (`settle`, an interval).
fn skipped_predicate(t: &str, id: &str, c: &str, p: &str, settle: &str) -> String {
    format!(
        "{p} IS NULL AND {id} < (SELECT max({id}) FROM {t} WHERE {p} IS NOT NULL) AND {c} < statement_timestamp() - {settle}"
    )
}

/// The rows [`outbox`] counts as skipped, as a statement an operator runs to see (and
/// republish) them: the same predicate, the settle time written out.
pub fn skipped_rows_statement(
    table: &str,
    id: &str,
    created_at: &str,
    published_at: &str,
    settle_seconds: u64,
) -> Sql {
    let (t, id) = (quote_name(table), quote_name(id));
    let predicate = skipped_predicate(
        &t,
        &id,
        &quote_name(created_at),
        &quote_name(published_at),
        &format!("interval '{settle_seconds} seconds'"),
    );
    Sql::assembled(format!(
        "SELECT * FROM {t} WHERE {predicate} ORDER BY {id};"
    ))
}

/// The oldest unpublished rows: what a stalled relay is stuck behind (a row it cannot
/// publish) or has not reached.
pub fn oldest_unpublished_statement(
    table: &str,
    id: &str,
    created_at: &str,
    published_at: &str,
    limit: usize,
) -> Sql {
    let (t, id, c, p) = (
        quote_name(table),
        quote_name(id),
        quote_name(created_at),
        quote_name(published_at),
    );
    Sql::assembled(format!(
        "SELECT * FROM {t} WHERE {p} IS NULL ORDER BY {c}, {id} LIMIT {limit};"
    ))
}

#[derive(Debug, Clone, Serialize)]
pub struct InboxState {
    pub rows: i64,
    pub oldest_at: Option<DateTime<Utc>>,
    pub oldest_seconds: Option<f64>,
    /// Received longer ago than the retention asked about (0 when none was asked about).
    pub past_retention: i64,
    /// The table's size with its indexes.
    pub bytes: Option<i64>,
}

/// An inbox's rows, its oldest, its size, and how many are older than `retention`.
pub async fn inbox(
    session: &Session,
    table: &str,
    created_at: &str,
    retention: Option<std::time::Duration>,
) -> Result<InboxState> {
    let (t, c) = (quote_name(table), quote_name(created_at));
    // Without a retention nothing is past it (NULL: the condition is never true).
    let retention_seconds: Option<f64> = retention.map(|r| r.as_secs_f64());
    let sql = format!(
        "SELECT count(*), min({c}), extract(epoch FROM statement_timestamp() - min({c}))::float8,
       count(*) FILTER (WHERE {c} < statement_timestamp() - make_interval(secs => $1::float8)),
       pg_total_relation_size($2::text::regclass)
FROM {t}"
    );
    let rows = session.query(&sql, &[&retention_seconds, &t]).await?;
    let row = rows
        .first()
        .ok_or_else(|| anyhow::anyhow!("the inbox query returned no row"))?;
    Ok(InboxState {
        rows: row.try_get(0)?,
        oldest_at: row.try_get(1)?,
        oldest_seconds: row.try_get(2)?,
        past_retention: row.try_get(3)?,
        bytes: row.try_get(4)?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_quoted_per_part() {
        assert_eq!(super::quote_name("public.outbox"), "\"public\".\"outbox\"");
        assert_eq!(super::quote_name("we\"ird"), "\"we\"\"ird\"");
    }

    #[test]
    fn the_statements_an_operator_runs_quote_every_name() {
        assert_eq!(
            super::skipped_rows_statement("app.out box", "id", "created_at", "sent\"at", 30).as_str(),
            "SELECT * FROM \"app\".\"out box\" WHERE \"sent\"\"at\" IS NULL AND \"id\" < (SELECT max(\"id\") FROM \"app\".\"out box\" WHERE \"sent\"\"at\" IS NOT NULL) AND \"created_at\" < statement_timestamp() - interval '30 seconds' ORDER BY \"id\";"
        );
        assert_eq!(
            super::oldest_unpublished_statement("outbox", "id", "created_at", "published_at", 10).as_str(),
            "SELECT * FROM \"outbox\" WHERE \"published_at\" IS NULL ORDER BY \"created_at\", \"id\" LIMIT 10;"
        );
    }
}
