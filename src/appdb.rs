//! A session on an application's own database — PostgreSQL, or MySQL or MariaDB — for the
//! readers of the tables frameworks keep there (Seata's client tables, Spring Modulith's
//! event publication registry), which speak each one's SQL; whether such a table can be
//! read at all; and what values look like in MySQL's statements.

use crate::mysql::tables::{access, TableAccess};
use crate::pg::privileges;
use anyhow::Result;
use serde::Serialize;

/// A session on an application's database.
// One per client read or resolution: its size is of no consequence.
#[allow(clippy::large_enum_variant)]
pub enum Session {
    Pg(crate::pg::session::Session),
    Mysql(crate::mysql::session::Session),
}

/// Which SQL a statement for it is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Mysql,
}

impl Session {
    pub fn dialect(&self) -> Dialect {
        match self {
            Session::Pg(_) => Dialect::Postgres,
            Session::Mysql(_) => Dialect::Mysql,
        }
    }

    /// What keeps each of these tables (and the columns read of it) from being read.
    pub async fn table_problems(&mut self, tables: &[(&str, &[&str])]) -> Result<Vec<Problem>> {
        let session = match self {
            Session::Pg(s) => return pg_table_problems(s, tables).await,
            Session::Mysql(s) => s,
        };
        let mut problems = Vec::new();
        for (table, columns) in tables {
            let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
            let table = table.to_string();
            // The server answers a SELECT … LIMIT 0 as it would the read: the table,
            // each column and the privileges on each are checked, no row is read.
            problems.extend(match access(session, &table, &columns).await? {
                TableAccess::Readable => None,
                TableAccess::Missing => Some(Problem::Missing { table }),
                TableAccess::MissingColumns(columns, _) if !columns.is_empty() => {
                    Some(Problem::MissingColumns { table, columns })
                }
                TableAccess::MissingColumns(..)
                | TableAccess::Denied(_)
                | TableAccess::DeniedOrMissing(_) => Some(Problem::NotReadable { table }),
            });
        }
        Ok(problems)
    }

    /// Every row of a read-only query, each value as the server's text of it (None for
    /// NULL): one decoding for either server, for readers whose columns are the
    /// application's own types.
    pub async fn text_rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>> {
        match self {
            Session::Pg(s) => s.simple_rows(sql).await?.map_err(crate::pg::wire::pg_error),
            Session::Mysql(s) => Ok(s
                .rows(sql)
                .await?
                .iter()
                .map(|row| {
                    (0..row.len())
                        .map(|i| crate::mysql::session::text(row, i))
                        .collect()
                })
                .collect()),
        }
    }

    /// Ends the session; a failure to end it politely is of no consequence.
    pub async fn close(self) {
        match self {
            Session::Pg(_) => {}
            Session::Mysql(s) => s.close().await,
        }
    }
}

/// What keeps a table from being read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Problem {
    /// No such table (or its schema is hidden from the role).
    Missing { table: String },
    /// The role may not SELECT from it.
    NotReadable { table: String },
    /// The role may not use its schema (no USAGE), so it cannot even be looked up.
    SchemaUnusable { table: String, schema: String },
    /// It lacks columns the framework's layout has: another product's table, or another
    /// version's.
    MissingColumns { table: String, columns: Vec<String> },
}

/// What keeps each of these PostgreSQL tables (each with the columns it must have) from
/// being read: every problem, checked side by side on the one connection.
async fn pg_table_problems(
    session: &crate::pg::session::Session,
    tables: &[(&str, &[&str])],
) -> Result<Vec<Problem>> {
    let checks = tables
        .iter()
        .map(|(table, columns)| privileges::table(session, table, columns));
    let access = futures_util::future::try_join_all(checks).await?;
    Ok(tables
        .iter()
        .zip(access)
        .filter_map(|((table, _), access)| problem(table, access, &[]))
        .collect())
}

/// What keeps a PostgreSQL `table` from being read, if anything (the `optional` columns
/// aside).
pub fn problem(table: &str, access: privileges::TableAccess, optional: &[&str]) -> Option<Problem> {
    let table = table.to_string();
    let required = |c: &&String| !optional.contains(&c.as_str());
    let missing: Vec<String> = access
        .missing_columns
        .iter()
        .filter(required)
        .cloned()
        .collect();
    if let Some(schema) = access.unusable_schema {
        Some(Problem::SchemaUnusable { table, schema })
    } else if !access.exists {
        Some(Problem::Missing { table })
    } else if !missing.is_empty() {
        Some(Problem::MissingColumns {
            table,
            columns: missing,
        })
    } else if access.unreadable_columns.iter().any(|c| required(&c)) {
        Some(Problem::NotReadable { table })
    } else {
        None
    }
}

/// A MySQL DATETIME column as the text protocol gives it.
pub fn local_time(row: &mysql_async::Row, i: usize) -> Option<chrono::NaiveDateTime> {
    let t = crate::mysql::session::text(row, i)?;
    chrono::NaiveDateTime::parse_from_str(t.trim(), "%Y-%m-%d %H:%M:%S%.f").ok()
}

/// A list of xids for MySQL's `IN (…)`, each a hex literal (compared as the bytes).
pub fn mysql_xids(xids: &[String]) -> String {
    let each: Vec<String> = xids.iter().map(|x| crate::mysql::tables::hex(x)).collect();
    each.join(", ")
}

/// A string as a MySQL expression of that text: `'…'` when it holds only characters that
/// show and no quote or backslash, else `_utf8mb4 X'…'` — never a bare `X'…'`, which
/// MySQL reads as a number where a number is expected.
pub fn mysql_char(value: &str) -> String {
    crate::quote::Sql::new("")
        .mysql_text(value)
        .as_str()
        .to_string()
}

/// A number as written in an undo log (JSON's grammar: digits, a sign, a point, an
/// exponent), bare; None for anything else, which is never placed in a statement.
pub fn mysql_number(value: &str) -> Option<String> {
    let fine = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
        && value
            .chars()
            .next()
            .is_some_and(|c| c == '-' || c.is_ascii_digit());
    fine.then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mysql_value_is_never_a_bare_hex_literal() {
        assert_eq!(mysql_char("seata"), "'seata'");
        assert_eq!(mysql_char("it's"), "_utf8mb4 X'69742773'");
        assert_eq!(mysql_char(""), "''");
        assert_eq!(mysql_number("90.50"), Some("90.50".into()));
        assert_eq!(mysql_number("1E+2"), Some("1E+2".into()));
        assert_eq!(mysql_number("1; DROP"), None);
        assert_eq!(mysql_number("e1"), None);
    }
}
