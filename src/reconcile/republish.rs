//! A job's republish query: the messages of missing ids, built from the source of truth.
//! It takes `$1` = the ids (text[]) and returns a row per id it finds: column `id`,
//! `value` and optionally `key`; every other column is a header of that name. Checked
//! once from the prepared statement, then run batch by batch.

use crate::pg::session::Session;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::Statement;

/// The query, prepared, and which column is which.
pub struct RepublishQuery {
    statement: Statement,
    id: usize,
    key: Option<usize>,
    value: usize,
    /// Header name (the column's) and its column.
    headers: Vec<(String, usize)>,
}

impl RepublishQuery {
    /// The headers' names, in column order.
    pub fn header_names(&self) -> Vec<&str> {
        self.headers.iter().map(|(n, _)| n.as_str()).collect()
    }

    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }
}

/// One source row's message parts, as bytes.
#[derive(Debug, Clone)]
pub struct Built {
    pub id: String,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// A NULL column is no header.
    pub headers: Vec<(String, Vec<u8>)>,
}

/// The types a part is read from: bytea as it is, the text types and JSON as their
/// UTF-8 text, integers and uuid as PostgreSQL prints them.
const PART_TYPES: [Type; 11] = [
    Type::BYTEA,
    Type::TEXT,
    Type::VARCHAR,
    Type::BPCHAR,
    Type::NAME,
    Type::JSON,
    Type::JSONB,
    Type::INT2,
    Type::INT4,
    Type::INT8,
    Type::UUID,
];

/// Prepares `sql` and checks its shape: one parameter of type text[], columns `id` and
/// `value` (and `key`, headers) of types a message part can be read from.
pub async fn prepare(session: &Session, sql: &str) -> Result<RepublishQuery> {
    let statement = session
        .prepare(sql)
        .await
        .context("preparing the republish query")?;
    match statement.params() {
        [t] if *t == Type::TEXT_ARRAY => {}
        params => bail!(
            "the republish query takes {} parameter(s) ({}): it takes one, $1, the ids as text[] (e.g. WHERE id = ANY($1::text[]::bigint[]))",
            params.len(),
            params.iter().map(|t| t.name().to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
    let mut by_name = HashMap::new();
    for (i, c) in statement.columns().iter().enumerate() {
        if !PART_TYPES.contains(c.type_()) {
            bail!(
                "column {:?} of the republish query is {}: cast it to text or bytea in the query",
                c.name(),
                c.type_().name()
            );
        }
        if by_name.insert(c.name().to_string(), i).is_some() {
            bail!(
                "the republish query returns two columns named {:?}",
                c.name()
            );
        }
    }
    let column = |name: &str| by_name.get(name).copied();
    let (Some(id), Some(value)) = (column("id"), column("value")) else {
        bail!(
            "the republish query returns no column named id or value (its columns: {}): name them with AS",
            statement
                .columns()
                .iter()
                .map(|c| c.name().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    // The id is compared with the ids asked for, as text: a text, an integer or a uuid.
    let id_type = statement.columns()[id].type_();
    if [Type::BYTEA, Type::JSON, Type::JSONB].contains(id_type) {
        bail!(
            "column \"id\" of the republish query is {}: return the id as text (id::text AS id)",
            id_type.name()
        );
    }
    let key = column("key");
    let headers = statement
        .columns()
        .iter()
        .enumerate()
        .filter(|(i, _)| ![Some(id), Some(value), key].contains(&Some(*i)))
        .map(|(i, c)| (c.name().to_string(), i))
        .collect();
    Ok(RepublishQuery {
        statement,
        id,
        key,
        value,
        headers,
    })
}

/// The source's rows for `ids`, as the query returns them (any order; an id it does not
/// return has no row).
pub async fn build(session: &Session, q: &RepublishQuery, ids: &[String]) -> Result<Vec<Built>> {
    let rows = session
        .query_prepared(&q.statement, &[&ids])
        .await
        .context("running the republish query")?;
    rows.iter()
        .map(|r| {
            let part = |i: usize| -> Result<Option<Vec<u8>>> {
                Ok(r.try_get::<_, Option<Part>>(i)?.map(|p| p.0))
            };
            let id = part(q.id)?.context("the republish query returned a NULL id")?;
            let mut headers = Vec::new();
            for (name, i) in &q.headers {
                if let Some(v) = part(*i)? {
                    headers.push((name.clone(), v));
                }
            }
            Ok(Built {
                id: String::from_utf8(id)
                    .context("the republish query returned an id that is not UTF-8")?,
                key: q.key.map(part).transpose()?.flatten(),
                value: part(q.value)?,
                headers,
            })
        })
        .collect()
}

/// A column's value as a message part.
struct Part(Vec<u8>);

impl<'a> FromSql<'a> for Part {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Part, Box<dyn std::error::Error + Sync + Send>> {
        let bytes = match *ty {
            // JSONB's binary form is a version byte, then the text.
            Type::JSONB => raw.get(1..).unwrap_or_default().to_vec(),
            Type::INT2 => i16::from_sql(ty, raw)?.to_string().into_bytes(),
            Type::INT4 => i32::from_sql(ty, raw)?.to_string().into_bytes(),
            Type::INT8 => i64::from_sql(ty, raw)?.to_string().into_bytes(),
            Type::UUID => {
                let b: [u8; 16] = raw.try_into()?;
                let h = |r: std::ops::Range<usize>| {
                    b[r].iter().map(|x| format!("{x:02x}")).collect::<String>()
                };
                format!(
                    "{}-{}-{}-{}-{}",
                    h(0..4),
                    h(4..6),
                    h(6..8),
                    h(8..10),
                    h(10..16)
                )
                .into_bytes()
            }
            _ => raw.to_vec(),
        };
        Ok(Part(bytes))
    }

    fn accepts(ty: &Type) -> bool {
        PART_TYPES.contains(ty)
    }
}
