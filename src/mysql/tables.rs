//! Whether this session's account may read a table and the columns a probe reads of it,
//! as the server answers a `SELECT … LIMIT 0` (which checks the table, every column and
//! the privileges on each, and reads no row).

use super::session::{server_error, text, Session};
use anyhow::Result;

/// `db.table` or `table` as MySQL names it: each part in backticks, backticks doubled.
pub fn qualified(name: &str) -> String {
    name.split('.')
        .map(identifier)
        .collect::<Vec<_>>()
        .join(".")
}

/// A MySQL identifier in backticks, backticks doubled.
pub fn identifier(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A string as a hex literal: the same bytes whatever the session's sql_mode.
pub fn hex(value: &str) -> String {
    let digits: String = value.bytes().map(|b| format!("{b:02X}")).collect();
    match digits.is_empty() {
        true => "''".into(),
        false => format!("X'{digits}'"),
    }
}

/// What the server said of reading a table.
#[derive(Debug, Clone, PartialEq)]
pub enum TableAccess {
    /// Every column may be read.
    Readable,
    /// No such table (or database).
    Missing,
    /// The table has none of these columns (as information_schema shows it to this
    /// account); empty when the server refused a column it does not show either.
    MissingColumns(Vec<String>, String),
    /// The account may not read a column, or the database: the server's message.
    Denied(String),
    /// The account may not read the table, or there is no such table: the server answers
    /// both alike to an account with no privilege on it (its message).
    DeniedOrMissing(String),
}

/// Reads no row: asks the server to plan reading `columns` of `table`.
pub async fn access(session: &mut Session, table: &str, columns: &[String]) -> Result<TableAccess> {
    let list: Vec<String> = columns.iter().map(|c| identifier(c)).collect();
    let sql = format!(
        "SELECT {} FROM {} LIMIT 0",
        list.join(", "),
        qualified(table)
    );
    let e = match session.rows(&sql).await {
        Ok(_) => return Ok(TableAccess::Readable),
        Err(e) => e,
    };
    let Some(server) = server_error(&e) else {
        return Err(e);
    };
    Ok(match server.code {
        // ER_NO_SUCH_TABLE, ER_BAD_DB_ERROR
        1146 | 1049 => TableAccess::Missing,
        // ER_TABLEACCESS_DENIED_ERROR
        1142 => TableAccess::DeniedOrMissing(server.message.clone()),
        // ER_COLUMNACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR
        1143 | 1044 => TableAccess::Denied(server.message.clone()),
        // ER_BAD_FIELD_ERROR: which of them, as information_schema shows the table.
        1054 => {
            let message = server.message.clone();
            let (schema, name) = match table.split_once('.') {
                Some((s, n)) => (hex(s), hex(n)),
                None => ("DATABASE()".to_string(), hex(table)),
            };
            let have: Vec<String> = session
                .rows(&format!(
                    "SELECT COLUMN_NAME FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = {schema} AND TABLE_NAME = {name}"
                ))
                .await?
                .iter()
                .filter_map(|r| text(r, 0))
                .map(|c| c.to_ascii_lowercase())
                .collect();
            let missing = columns
                .iter()
                .filter(|c| !have.contains(&c.to_ascii_lowercase()))
                .cloned()
                .collect();
            TableAccess::MissingColumns(missing, message)
        }
        _ => return Err(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_backticked_with_backticks_doubled_and_values_are_hex() {
        assert_eq!(qualified("seata.global_table"), "`seata`.`global_table`");
        assert_eq!(qualified("we`ird"), "`we``ird`");
        assert_eq!(hex("a'\\"), "X'61275C'");
        assert_eq!(hex(""), "''");
    }
}
