//! COMMIT/ROLLBACK PREPARED of one prepared transaction: the GID quoted as a literal (no
//! bind parameter exists for it), run alone in the transaction's own database by a role
//! PostgreSQL lets finish it, and what each refusal and each lost race means.

use crate::audit::record::{SourceAnswer, Status};
use crate::findings::Finding;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, pg_error, Session};
use crate::pg::xact::{self, Presence};
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::decision::Decision;
use crate::resolve::flow::{Applied, Plan, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::{RawText, Text};
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

/// One prepared transaction as read with the evidence, and what was decided for it.
pub struct Prepared {
    pub target: Target,
    /// The transaction's own database: COMMIT/ROLLBACK PREPARED runs only there.
    pub params: ConnParams,
    pub timeout: Duration,
    pub gid: RawText,
    /// Read with the evidence: the same xid is the same transaction, and its status
    /// afterwards says how it ended.
    pub xid: i64,
    pub database: RawText,
    /// None when the role that prepared it has been dropped since.
    pub owner: Option<RawText>,
    pub decision: Decision,
    pub heuristic: bool,
    pub evidence: serde_json::Value,
    pub decision_sources: Vec<SourceAnswer>,
    /// The evidence as the operator confirms it.
    pub summary: Shown,
}

/// A prepared transaction handed to the flow.
pub struct Branch {
    pub prepared: Prepared,
    plan: Plan,
    /// Opened by the re-read, used by the statement right after it.
    session: Option<Session>,
}

impl Branch {
    pub fn new(prepared: Prepared) -> Branch {
        let plan = Plan {
            decision: prepared.decision.name(),
            heuristic: prepared.heuristic,
            action: statement(prepared.decision, &prepared.gid),
        };
        Branch {
            prepared,
            plan,
            session: None,
        }
    }

    fn owner(&self) -> Text {
        match &self.prepared.owner {
            Some(owner) => owner.into(),
            None => "(a role since dropped)".into(),
        }
    }

    /// What became of it when it was found gone (at the re-read, or by the statement's
    /// 42704).
    fn gone(&self, code: Option<&str>) -> Applied {
        Applied::new(
            Status::AlreadyResolved,
            "already_resolved",
            format!(
                "no such prepared transaction any more: already resolved ({} was not run)",
                self.plan.action
            ),
        )
        .server_code(code.map(str::to_string))
    }
}

impl Subject for Branch {
    fn name(&self) -> Text {
        text![
            "prepared transaction '",
            self.prepared.gid,
            "' in ",
            self.prepared.database
        ]
    }

    fn target(&self) -> Target {
        self.prepared.target.clone()
    }

    fn object(&self) -> String {
        self.name().plain()
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::from(&self.prepared.gid),
            exact: self.prepared.gid.as_bytes(),
            called: Some("the whole GID"),
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    fn evidence(&self) -> serde_json::Value {
        self.prepared.evidence.clone()
    }

    fn decision_sources(&self) -> Vec<SourceAnswer> {
        self.prepared.decision_sources.clone()
    }

    fn summary(&self) -> Shown {
        self.prepared.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would run ",
            self.plan.action,
            " in database ",
            self.prepared.database
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding
            .evidence("source", "pg_prepared_xacts, decision sources")
            .evidence("statement", self.plan.action.clone())
    }

    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    async fn still_valid(&mut self) -> Option<Applied> {
        let p = &self.prepared;
        let read = async {
            let session = session::connect(&p.params, p.timeout).await?;
            let presence = xact::presence(&session, &p.gid, p.xid).await?;
            anyhow::Ok((session, presence))
        }
        .await;
        match read {
            Ok((session, Presence::Prepared)) => {
                self.session = Some(session);
                None
            }
            Ok((_, Presence::Gone { .. })) => Some(self.gone(None)),
            Err(e) => Some(Applied::new(
                Status::Error,
                "failed",
                format!("nothing done: it could not be read again before acting: {e:#}"),
            )),
        }
    }

    /// Runs the statement alone (autocommit) in the transaction's own database, on the
    /// session that just found it still prepared.
    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let session = match self.session.take() {
            Some(session) => session,
            None => match session::connect(&self.prepared.params, self.prepared.timeout).await {
                Ok(session) => session,
                Err(e) => {
                    return Applied::new(Status::Error, "failed", format!("nothing done: {e:#}"))
                }
            },
        };
        let sql = &self.plan.action;
        #[allow(clippy::disallowed_methods)] // the one place a statement that writes runs
        let ran = session.simple(sql).await;
        match ran {
            Ok(Ok(())) => Applied::new(Status::Ok, "resolved", format!("{sql} done")),
            Ok(Err(e)) => {
                let code = e.as_db_error().map(|d| d.code().code().to_string());
                let message = format!("{:#}", pg_error(e));
                match code.as_deref() {
                    Some("42704") => self.gone(Some("42704")),
                    Some("55000") => Applied::new(
                        Status::Busy,
                        "busy",
                        format!("another session is finishing it: {message}"),
                    )
                    .server_code(code),
                    Some("42501") => Applied::new(Status::Error, "failed", message)
                        .server_code(code)
                        .advice(text![
                            "connect as its owner (",
                            self.owner(),
                            ") or a superuser"
                        ]),
                    Some(_) => Applied::new(Status::Error, "failed", message).server_code(code),
                    // Without a SQLSTATE (a lost connection) the statement may or may not have run.
                    None => Applied::new(Status::Unknown, "failed", message),
                }
            }
            Err(e) => Applied::new(Status::Unknown, "failed", format!("{e:#}")),
        }
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
