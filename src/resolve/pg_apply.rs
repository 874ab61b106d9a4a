//! COMMIT/ROLLBACK PREPARED: quoting the GID as a literal (no bind parameter exists for
//! it), run alone in the transaction's database, and what each refusal means.

use super::confirm::Confirmed;
use super::decision::Decision;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, pg_error};
use anyhow::Result;
use std::time::Duration;

/// A string literal PostgreSQL reads back as exactly `text` whatever
/// standard_conforming_strings says (it can differ per database or role): quotes doubled,
/// and a text with a backslash written as an E'' literal with the backslashes doubled.
pub fn literal(text: &str) -> String {
    let quoted = text.replace('\'', "''");
    if quoted.contains('\\') {
        format!("E'{}'", quoted.replace('\\', "\\\\"))
    } else {
        format!("'{quoted}'")
    }
}

pub fn statement(decision: Decision, gid: &str) -> String {
    format!("{} {}", decision.statement(), literal(gid))
}

/// What the server made of the statement.
pub enum Applied {
    Done,
    /// 42704: no such prepared transaction (any more).
    AlreadyResolved(String),
    /// 55000: another session is finishing it right now.
    Busy(String),
    Failed {
        code: Option<String>,
        message: String,
    },
}

/// Runs the statement alone (autocommit) in the transaction's own database.
pub async fn apply(
    params: &ConnParams,
    sql: &str,
    timeout: Duration,
    _confirmed: Confirmed,
) -> Result<Applied> {
    let session = session::connect(params, timeout).await?;
    Ok(match session.simple(sql).await? {
        Ok(()) => Applied::Done,
        Err(e) => {
            let code = e.as_db_error().map(|d| d.code().code().to_string());
            let message = format!("{:#}", pg_error(e));
            match code.as_deref() {
                Some("42704") => Applied::AlreadyResolved(message),
                Some("55000") => Applied::Busy(message),
                _ => Applied::Failed { code, message },
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gids_are_quoted_for_both_string_modes() {
        let nasty = "it's \\ '; DROP TABLE orders; -- заказ";
        assert_eq!(
            literal(nasty),
            "E'it''s \\\\ ''; DROP TABLE orders; -- заказ'"
        );
        assert_eq!(statement(Decision::Commit, "g'1"), "COMMIT PREPARED 'g''1'");
    }
}
