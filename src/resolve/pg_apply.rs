//! COMMIT/ROLLBACK PREPARED: quoting the GID as a literal (no bind parameter exists for
//! it), run alone in the transaction's database, and what each refusal means.

use super::confirm::Confirmed;
use super::decision::Decision;
use crate::audit::record::Outcome;
use crate::findings::Severity;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, pg_error};
use crate::text::RawText;
use anyhow::Result;
use std::time::Duration;

/// A string literal PostgreSQL reads back as exactly the bytes `gid`, whatever
/// standard_conforming_strings says (it can differ per database or role): quotes
/// doubled; a GID with a backslash, a control character or bytes that are not UTF-8 (a
/// SQL_ASCII database) is an E'' literal, backslashes doubled and those bytes `\xHH`, so
/// the statement itself is printable UTF-8 (it is shown, and recorded in the audit log).
pub fn literal(gid: &[u8]) -> String {
    let mut body = String::with_capacity(gid.len());
    let mut escaped = false;
    for chunk in gid.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\'' => body.push_str("''"),
                '\\' => {
                    body.push_str("\\\\");
                    escaped = true;
                }
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        body.push_str(&format!("\\x{b:02x}"));
                    }
                    escaped = true;
                }
                c => body.push(c),
            }
        }
        for b in chunk.invalid() {
            body.push_str(&format!("\\x{b:02x}"));
            escaped = true;
        }
    }
    if escaped {
        format!("E'{body}'")
    } else {
        format!("'{body}'")
    }
}

pub fn statement(decision: Decision, gid: &RawText) -> String {
    format!("{} {}", decision.statement(), literal(gid.as_bytes()))
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

/// Runs the statement alone (autocommit) in the transaction's own database. One
/// confirmation may cover several branches (`--all-branches`), so the token is lent.
pub async fn apply(
    params: &ConnParams,
    sql: &str,
    timeout: Duration,
    _confirmed: &Confirmed,
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

/// What an applied statement means for the report and the audit log.
pub struct Judged {
    pub severity: Severity,
    /// The finding's code: resolved, already_resolved, busy or failed.
    pub code: &'static str,
    pub outcome: Outcome,
}

/// Reads what the server made of `sql`.
pub fn judge(applied: &Result<Applied>, sql: &str) -> Judged {
    let (severity, code, status, detail, sqlstate) = match applied {
        Ok(Applied::Done) => (Severity::Ok, "resolved", "ok", format!("{sql} done"), None),
        Ok(Applied::AlreadyResolved(m)) => (
            Severity::Ok,
            "already_resolved",
            "already_resolved",
            m.clone(),
            Some("42704"),
        ),
        Ok(Applied::Busy(m)) => (
            Severity::Warning,
            "busy",
            "busy",
            format!("another session is finishing it: {m}"),
            Some("55000"),
        ),
        // Without a SQLSTATE (a lost connection) the statement may or may not have run.
        Ok(Applied::Failed {
            code: None,
            message,
        }) => (
            Severity::Critical,
            "failed",
            "unknown",
            message.clone(),
            None,
        ),
        Ok(Applied::Failed { code, message }) => (
            Severity::Critical,
            "failed",
            "error",
            message.clone(),
            code.as_deref(),
        ),
        Err(e) => (
            Severity::Critical,
            "failed",
            "unknown",
            format!("{e:#}"),
            None,
        ),
    };
    Judged {
        severity,
        code,
        outcome: Outcome {
            status: status.to_string(),
            detail,
            code: sqlstate.map(str::to_string),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gids_are_quoted_for_both_string_modes() {
        let nasty = "it's \\ '; DROP TABLE orders; -- заказ";
        assert_eq!(
            literal(nasty.as_bytes()),
            "E'it''s \\\\ ''; DROP TABLE orders; -- заказ'"
        );
        assert_eq!(
            statement(Decision::Commit, &"g'1".into()),
            "COMMIT PREPARED 'g''1'"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_written_as_hex_escapes() {
        assert_eq!(literal(b"odd\xff\x1b[31m'"), "E'odd\\xff\\x1b[31m'''");
        assert_eq!(literal("a\u{9b}b".as_bytes()), "E'a\\xc2\\x9bb'");
    }
}
