//! The outbox rows a relay skipped, read to be published again: their ids and each row's
//! version (its xmin: what "unchanged since it was read" is checked against), the rows
//! themselves in batches as message parts, and the guarded UPDATE that marks the
//! delivered ones published the way the relay does.
//!
//! Why xmin is a sound guard, matched against the set of the batch's versions rather
//! than per id: every new version of a row (an UPDATE, a DELETE and INSERT of the same
//! id) carries the id of the transaction that wrote it, and that transaction was not
//! visible to the read that recorded the versions (else that read would have seen the
//! new version). So a changed row's xmin is none of the recorded ones — within one
//! epoch of 2^32 xids: an xid is reused after that many, so a frozen row keeping an old
//! xmin could in principle share it with a transaction that changes a row of the same
//! batch in the minutes between the read and the claim (a chance of about the xids used
//! meanwhile times the batch's distinct old xmins in 2^32). Freezing keeps the xmin
//! (PostgreSQL 9.4 on); a tool that rewrites rows by inserting them (pg_repack) gives
//! them new ones, and they are left out as changed. Only a table's heap has row
//! versions: [`check_columns`] refuses a view, a foreign table or another access
//! method. It costs nothing to read, where an md5 of the row's text cost a third of each
//! batch's UPDATE.

use super::outbox::quote_name;
use super::session::Session;
use anyhow::{bail, Context, Result};
use futures_util::{pin_mut, TryStreamExt};
use std::collections::HashMap;
use std::time::Duration;

/// Which columns make a message, by their names in the config.
#[derive(Debug, Clone)]
pub struct Layout {
    pub table: String,
    pub id: String,
    pub created_at: String,
    pub published_at: String,
    /// The column whose value follows a fixed prefix to make the topic (Debezium's
    /// aggregatetype), when the topic is not one for every row.
    pub topic: Option<String>,
    pub key: Option<String>,
    pub value: String,
    /// Header name and its column.
    pub headers: Vec<(String, String)>,
}

/// A skipped row as first read: its id and its version (xmin, as text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub id: String,
    pub version: String,
}

/// What was found of the skipped rows before anything is sent.
#[derive(Debug, Default)]
pub struct Skipped {
    pub rows: Vec<Pending>,
    /// Ids whose value (or key, when one is configured) is NULL: nothing a relay sends.
    pub null_value: Vec<String>,
    pub null_key: Vec<String>,
    /// Ids two skipped rows share: one message would stand for both.
    pub duplicate_ids: Vec<String>,
    /// The topic column's values among them (Debezium layout).
    pub topic_values: std::collections::BTreeSet<String>,
}

/// A row to publish: the parts of its message, as bytes.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub topic_value: Option<String>,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// Header name and value; a NULL column is no header.
    pub headers: Vec<(String, Vec<u8>)>,
}

/// The types a message part may be read from, as bytes: bytea as it is, the others as
/// their text in UTF-8 (JSON as PostgreSQL prints it).
const PART_TYPES: [&str; 8] = [
    "bytea",
    "text",
    "character varying",
    "json",
    "jsonb",
    "uuid",
    "bigint",
    "integer",
];

/// Each configured column's type, checked: an error names a column that is missing or
/// of a type no message part can be read from.
pub async fn check_columns(session: &Session, layout: &Layout) -> Result<ColumnTypes> {
    // The guard is the row's version (xmin): a plain or partitioned table on the heap.
    let kind = session
        .query(
            "SELECT c.relkind::text, coalesce(am.amname::text, '')
             FROM pg_class c LEFT JOIN pg_am am ON am.oid = c.relam
             WHERE c.oid = $1::text::regclass",
            &[&quote_name(&layout.table)],
        )
        .await
        .with_context(|| format!("reading what {} is", layout.table))?;
    if let Some(r) = kind.first() {
        let (relkind, am): (String, String) = (r.try_get(0)?, r.try_get(1)?);
        let heap = relkind == "p" || (relkind == "r" && am == "heap");
        if !heap {
            bail!(
                "{} is not a table on PostgreSQL's heap (relkind {relkind}{}): its rows have no version to guard them by",
                layout.table,
                if am.is_empty() { String::new() } else { format!(", access method {am}") }
            );
        }
    }
    let rows = session
        .query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod)
             FROM pg_attribute a
             WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped",
            &[&quote_name(&layout.table)],
        )
        .await
        .with_context(|| format!("reading the columns of {}", layout.table))?;
    let types: std::collections::BTreeMap<String, String> = rows
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<Result<_>>()?;
    let type_of = |column: &str| -> Result<String> {
        types.get(column).cloned().with_context(|| {
            format!(
                "{} has no column {column:?} (its columns: {})",
                layout.table,
                types.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })
    };
    let id = type_of(&layout.id)?;
    type_of(&layout.created_at)?;
    type_of(&layout.published_at)?;
    let mut parts = Vec::new();
    let named = layout
        .topic
        .iter()
        .chain(&layout.key)
        .chain(std::iter::once(&layout.value))
        .chain(layout.headers.iter().map(|(_, c)| c));
    for column in named {
        let t = type_of(column)?;
        if !PART_TYPES.contains(&t.as_str()) && !t.starts_with("character varying") {
            bail!(
                "column {column} of {} is {t}: a message part is read from {}",
                layout.table,
                PART_TYPES.join(", ")
            );
        }
        parts.push((column.clone(), t));
    }
    Ok(ColumnTypes { id, parts })
}

/// The id's type (for the guards) and each part column's.
#[derive(Debug, Clone)]
pub struct ColumnTypes {
    pub id: String,
    parts: Vec<(String, String)>,
}

impl ColumnTypes {
    /// A part column as bytes in SQL.
    fn bytes(&self, column: &str) -> String {
        let quoted = quote_name(column);
        match self.parts.iter().find(|(c, _)| c == column) {
            Some((_, t)) if t == "bytea" => format!("t.{quoted}"),
            _ => format!("convert_to(t.{quoted}::text, 'UTF8')"),
        }
    }
}

/// The rows a relay polling by `id > last_seen` passed over (unpublished, below the
/// highest published id, older than `settle_seconds`), in id order.
pub async fn skipped(session: &Session, layout: &Layout, settle_seconds: f64) -> Result<Skipped> {
    let (t, id, c, p) = (
        quote_name(&layout.table),
        quote_name(&layout.id),
        quote_name(&layout.created_at),
        quote_name(&layout.published_at),
    );
    let value = quote_name(&layout.value);
    let key = layout.key.as_deref().map_or("false".to_string(), |k| {
        format!("t.{} IS NULL", quote_name(k))
    });
    let topic = layout
        .topic
        .as_deref()
        .map_or("NULL".to_string(), |k| format!("t.{}::text", quote_name(k)));
    let sql = format!(
        "SELECT t.{id}::text, t.xmin::text, t.{value} IS NULL, {key}, {topic}
FROM {t} AS t
WHERE t.{p} IS NULL AND t.{id} < (SELECT max({id}) FROM {t} WHERE {p} IS NOT NULL)
  AND t.{c} < statement_timestamp() - make_interval(secs => $1)
ORDER BY t.{id}"
    );
    let statement = session.prepare(&sql).await?;
    let stream = session.query_stream(&statement, &[&settle_seconds]).await?;
    pin_mut!(stream);
    let mut out = Skipped::default();
    while let Some(row) = stream.try_next().await? {
        let id: String = row.try_get(0)?;
        // In id order: a shared id is on adjacent rows.
        if out.rows.last().is_some_and(|p| p.id == id) && out.duplicate_ids.last() != Some(&id) {
            out.duplicate_ids.push(id.clone());
        }
        if row.try_get::<_, bool>(2)? {
            out.null_value.push(id.clone());
        }
        if row.try_get::<_, bool>(3)? {
            out.null_key.push(id.clone());
        }
        if let Some(topic) = row.try_get::<_, Option<String>>(4)? {
            out.topic_values.insert(topic);
        }
        out.rows.push(Pending {
            id,
            version: row.try_get(1)?,
        });
    }
    Ok(out)
}

/// The message parts of a row, as a select list (after its id): topic, key, value, then
/// each header.
fn message_columns(layout: &Layout, types: &ColumnTypes) -> Vec<String> {
    let topic = layout
        .topic
        .as_deref()
        .map_or("NULL".to_string(), |k| format!("t.{}::text", quote_name(k)));
    let key = layout
        .key
        .as_deref()
        .map_or("NULL::bytea".to_string(), |k| types.bytes(k));
    let mut columns = vec![topic, key, types.bytes(&layout.value)];
    columns.extend(layout.headers.iter().map(|(_, c)| types.bytes(c)));
    columns
}

/// A row of `id, message_columns…`.
fn message_row(r: &tokio_postgres::Row, layout: &Layout) -> Result<Row> {
    let mut headers = Vec::new();
    for (i, (name, _)) in layout.headers.iter().enumerate() {
        if let Some(v) = r.try_get::<_, Option<Vec<u8>>>(4 + i)? {
            headers.push((name.clone(), v));
        }
    }
    Ok(Row {
        id: r.try_get(0)?,
        topic_value: r.try_get(1)?,
        key: r.try_get(2)?,
        value: r.try_get(3)?,
        headers,
    })
}

/// Runs [`claim_statement`] for `pending` (their ids and versions as read) in a
/// transaction left open (`Session::write_held`): the rows it marked, with their message
/// parts. The caller ends it with `Session::end_held`; `hold` bounds how long the server
/// keeps it open if the caller never does.
pub async fn claim(
    session: &Session,
    layout: &Layout,
    types: &ColumnTypes,
    pending: &[Pending],
    hold: Duration,
) -> Result<Vec<Row>> {
    let (ids, versions): (Vec<&str>, Vec<&str>) = pending
        .iter()
        .map(|p| (p.id.as_str(), p.version.as_str()))
        .unzip();
    #[allow(clippy::disallowed_methods)] // claim itself is allowed only in resolve::apply
    let rows = session
        .write_held(&claim_statement(layout, types), &[&ids, &versions], hold)
        .await??;
    rows.iter().map(|r| message_row(r, layout)).collect()
}

/// Why rows of `ids` that [`claim`] did not return were not: (id, published meanwhile)
/// for those still there (not published: changed since read); an id absent is gone.
pub async fn unclaimed(
    session: &Session,
    layout: &Layout,
    types: &ColumnTypes,
    ids: &[&str],
) -> Result<HashMap<String, bool>> {
    let (t, id, p) = (
        quote_name(&layout.table),
        quote_name(&layout.id),
        quote_name(&layout.published_at),
    );
    let sql = format!(
        "SELECT t.{id}::text, t.{p} IS NOT NULL FROM {t} AS t WHERE t.{id} = ANY($1::text[]::{}[])",
        types.id
    );
    let found = session.query(&sql, &[&ids]).await?;
    found
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// Marks `delivered` (id, version as read) published as the relay does (the published
/// column set to now), each only while still unpublished and unchanged; the ids marked.
pub async fn mark(
    session: &Session,
    layout: &Layout,
    types: &ColumnTypes,
    delivered: &[(String, String)],
) -> Result<Vec<String>> {
    let sql = mark_statement(layout, types);
    let (ids, versions): (Vec<&str>, Vec<&str>) = delivered
        .iter()
        .map(|(i, v)| (i.as_str(), v.as_str()))
        .unzip();
    #[allow(clippy::disallowed_methods)] // mark itself is allowed only in resolve::apply
    let rows = session.write_returning(&sql, &[&ids, &versions]).await??;
    rows.iter()
        .map(|r| Ok(r.try_get::<_, String>(0)?))
        .collect()
}

/// The guarded UPDATE of [`mark`], returning the ids it marked.
pub fn mark_statement(layout: &Layout, types: &ColumnTypes) -> String {
    guarded_update(layout, types, &[])
}

/// The guarded UPDATE of [`claim`]: [`mark_statement`]'s, returning each marked row's
/// message parts too.
pub fn claim_statement(layout: &Layout, types: &ColumnTypes) -> String {
    guarded_update(layout, types, &message_columns(layout, types))
}

/// `UPDATE … SET published = now()` of the rows of $1 (ids) still unpublished and at a
/// version among $2, returning each one's id and `returning`. The `= ANY` on the table's
/// id lets its index find the rows (a join to unnest alone was planned as a scan of the
/// whole table per batch: 10 s a batch on 100,000 rows of 1 KiB; and a join to the pairs
/// of id and version, as a nested loop of 150 ms a batch once the table was vacuumed). A
/// row's version is matched against the batch's versions, not its own id's: a changed
/// row's version is none of them (see the module's head).
fn guarded_update(layout: &Layout, types: &ColumnTypes, returning: &[String]) -> String {
    let (t, id, p) = (
        quote_name(&layout.table),
        quote_name(&layout.id),
        quote_name(&layout.published_at),
    );
    let mut columns = vec![format!("t.{id}::text")];
    columns.extend(returning.iter().cloned());
    format!(
        "UPDATE {t} AS t SET {p} = statement_timestamp() WHERE t.{id} = ANY($1::text[]::{ty}[]) AND t.{p} IS NULL AND t.xmin::text = ANY($2::text[]) RETURNING {}",
        columns.join(", "),
        ty = types.id
    )
}
