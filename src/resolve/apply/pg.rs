//! COMMIT/ROLLBACK PREPARED of one prepared transaction: the GID quoted as a literal (no
//! bind parameter exists for it), run alone in the transaction's own database by a role
//! PostgreSQL lets finish it, and what each refusal and each lost race means.

use super::branch::{Branch, Engine};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::{Finding, Severity};
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, Session};
use crate::pg::wire::pg_error;
use crate::pg::xact::{self, Presence};
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::decision::Decision;
use crate::resolve::flow::{Applied, Proposal, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::{RawText, Text};
use anyhow::Result;

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

/// A prepared transaction, as read with the evidence.
pub struct Xact {
    /// The transaction's own database: COMMIT/ROLLBACK PREPARED runs only there.
    pub params: ConnParams,
    pub gid: RawText,
    /// Read with the evidence: the same xid is the same transaction, and its status
    /// afterwards says how it ended.
    pub xid: i64,
    pub database: RawText,
    /// None when the role that prepared it has been dropped since.
    pub owner: Option<RawText>,
}

impl Engine for Xact {
    type Session = Session;
    const SOURCE: &'static str = "pg_prepared_xacts, decision sources";

    fn name(&self) -> Text {
        text!["prepared transaction '", self.gid, "' in ", self.database]
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::from(&self.gid),
            exact: self.gid.as_bytes(),
            called: Some("the whole GID"),
        }
    }

    fn statement(&self, decision: Decision) -> String {
        statement(decision, &self.gid)
    }

    fn runs_where(&self, _target: &Target) -> Text {
        text!["in database ", self.database]
    }
}

impl Branch<Xact> {
    fn owner(&self) -> Text {
        crate::pg::prepared::owner_text(&self.engine.owner)
    }

    /// What became of it when it was found gone (at the re-read, or by the statement's
    /// 42704): the winner of the race, from its xid's status.
    async fn gone(
        &self,
        session: &Session,
        reprepared: Option<i64>,
        code: Option<&str>,
    ) -> Applied {
        let xid = self.engine.xid;
        let ended = match xact::status(session, xid).await {
            Ok(Some(status)) if status == "committed" => Ok(Decision::Commit),
            Ok(Some(status)) if status == "aborted" => Ok(Decision::Rollback),
            Ok(Some(status)) => Err(format!("pg_xact_status says '{status}'")),
            Ok(None) => Err("the server no longer keeps its status".to_string()),
            Err(e) => Err(format!("its status could not be read: {e:#}")),
        };
        race(
            self.decided.decision,
            &self.plan.action,
            xid,
            ended,
            reprepared,
        )
        .server_code(code.map(str::to_string))
    }
}

impl Branch<Xact> {
    /// After the statement succeeded: did the transaction reviewed get the decision? The
    /// statement names the GID, so a transaction prepared under the same GID between the
    /// re-read and the statement would have got it instead; the reviewed xid's status
    /// tells.
    async fn reached(&self, session: &Session) -> Applied {
        let sql = &self.plan.action;
        let xid = self.engine.xid;
        let expected = match self.decided.decision {
            Decision::Commit => "committed",
            Decision::Rollback => "aborted",
        };
        match xact::status(session, xid).await {
            Ok(Some(status)) if status == expected => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!("{sql} done (the transaction reviewed, xid {xid}, is {status})"),
            ),
            Ok(status) => Applied::new(
                Status::Mismatch,
                codes::RESOLVED_ANOTHER,
                format!(
                    "{sql} ran, but the transaction reviewed (xid {xid}) is {}, not {expected}: the statement reached another transaction prepared under the same GID since the review",
                    status.as_deref().unwrap_or("of a status the server no longer keeps")
                ),
            )
            .advice("find what that transaction was (its application's log, the audit trail) and check its effects; the reviewed one ended another way"),
            Err(e) => Applied::new(
                Status::Unknown,
                codes::RESOLVED_ANOTHER,
                format!("{sql} ran, but whether it reached the transaction reviewed (xid {xid}) cannot be confirmed: {e:#}"),
            ),
        }
    }
}

/// What the loser of a race is told: the same decision won (already resolved, as asked),
/// the other one won (NOT done: a WARNING), or it cannot be told which.
fn race(
    asked: Decision,
    action: &str,
    xid: i64,
    ended: Result<Decision, String>,
    reprepared: Option<i64>,
) -> Applied {
    let did = |d: Decision| match d {
        Decision::Commit => "committed it",
        Decision::Rollback => "rolled it back",
    };
    let status = |d: Decision| match d {
        Decision::Commit => "committed",
        Decision::Rollback => "aborted",
    };
    let mut applied = match ended {
        Ok(winner) if winner == asked => Applied::new(
            Status::AlreadyResolved,
            codes::ALREADY_RESOLVED,
            format!(
                "already resolved as asked: another session {} first (its transaction, xid {xid}, is {}), so {action} was not needed",
                did(winner),
                status(winner)
            ),
        ),
        Ok(winner) => Applied::new(
            Status::LostRace,
            codes::LOST_RACE,
            format!(
                "NOT {}: another session {} first (its transaction, xid {xid}, is {}); {action} was not run",
                match asked {
                    Decision::Commit => "committed",
                    Decision::Rollback => "rolled back",
                },
                did(winner),
                status(winner)
            ),
        )
        .advice("the other branches of its global transaction must end the same way: check each with `indoubt pg prepared`"),
        Err(why) => Applied::new(
            Status::LostRace,
            codes::LOST_RACE,
            format!(
                "nothing done: another session resolved it first, and which way cannot be told (xid {xid}: {why}); {action} was not run"
            ),
        )
        .advice("check its effects in its database, and the other branches of its global transaction"),
    };
    if let Some(other) = reprepared {
        applied.detail.push_str(&format!(
            "; a new prepared transaction (xid {other}) has the same GID now: run resolve again to see its evidence"
        ));
    }
    applied
}

impl Subject for Branch<Xact> {
    type Proposal = Branch<Xact>;

    fn proposal(&self) -> &Branch<Xact> {
        self
    }

    /// PostgreSQL lets only the role that prepared a transaction, or a superuser, finish
    /// it (COMMIT PREPARED and ROLLBACK PREPARED, 14 to 18 alike), as `current_user`.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        let (x, timeout) = (&self.engine, self.decided.timeout);
        let session = session::connect(&x.params, timeout).await?;
        let (role, superuser) = xact::acting_role(&session).await?;
        if superuser || x.owner.as_ref() == Some(&role) {
            return Ok(None);
        }
        Ok(Some(
            Finding::new(
                Severity::Unknown,
                codes::NOT_OWNER,
                self.name(),
                text![
                    "refused: connected as ",
                    role,
                    ", which did not prepare this transaction (its owner is ",
                    self.owner(),
                    ") and is not a superuser: PostgreSQL lets only those finish it. Nothing done, nothing recorded"
                ],
            )
            .evidence("source", "pg_prepared_xacts, pg_roles")
            .advice(text!["connect as ", self.owner(), " or a superuser"]),
        ))
    }

    async fn still_valid(&mut self) -> Option<Applied> {
        let (x, timeout) = (&self.engine, self.decided.timeout);
        let read = async {
            let session = session::connect(&x.params, timeout).await?;
            let presence = xact::presence(&session, &x.gid, x.xid).await?;
            anyhow::Ok((session, presence))
        }
        .await;
        match read {
            Ok((session, Presence::Prepared)) => {
                self.session = Some(session);
                None
            }
            Ok((session, Presence::Gone { reprepared })) => {
                Some(self.gone(&session, reprepared, None).await)
            }
            Err(e) => Some(Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing done: it could not be read again before acting: {e:#}"),
            )),
        }
    }

    /// Runs the statement alone (autocommit) in the transaction's own database, on the
    /// session that just found it still prepared.
    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let session = match self.session.take() {
            Some(session) => session,
            None => match session::connect(&self.engine.params, self.decided.timeout).await {
                Ok(session) => session,
                Err(e) => {
                    return Applied::new(
                        Status::Error,
                        codes::FAILED,
                        format!("nothing done: {e:#}"),
                    )
                }
            },
        };
        let sql = &self.plan.action;
        #[allow(clippy::disallowed_methods)] // the one place a statement that writes runs
        let ran = session.simple(sql).await;
        match ran {
            Ok(Ok(())) => self.reached(&session).await,
            Ok(Err(e)) => {
                let code = e.as_db_error().map(|d| d.code().code().to_string());
                let message = format!("{:#}", pg_error(e));
                match code.as_deref() {
                    Some("42704") => {
                        let reprepared =
                            match xact::presence(&session, &self.engine.gid, self.engine.xid).await
                            {
                                Ok(Presence::Gone { reprepared }) => reprepared,
                                _ => None,
                            };
                        self.gone(&session, reprepared, Some("42704")).await
                    }
                    Some("55000") => Applied::new(
                        Status::Busy,
                        codes::BUSY,
                        format!("another session is finishing it: {message}"),
                    )
                    .server_code(code),
                    Some("42501") => Applied::new(Status::Error, codes::FAILED, message)
                        .server_code(code)
                        .advice(text![
                            "connect as its owner (",
                            self.owner(),
                            ") or a superuser"
                        ]),
                    Some(_) => {
                        Applied::new(Status::Error, codes::FAILED, message).server_code(code)
                    }
                    // Without a SQLSTATE (a lost connection) the statement may or may not have run.
                    None => Applied::new(Status::Unknown, codes::FAILED, message),
                }
            }
            Err(e) => Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}")),
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
    fn the_loser_of_a_race_is_told_which_outcome_won() {
        let sql = "COMMIT PREPARED 'g'";
        let same = race(Decision::Commit, sql, 7, Ok(Decision::Commit), None);
        assert_eq!(
            (same.status, same.severity()),
            (Status::AlreadyResolved, Severity::Ok)
        );
        assert!(
            same.detail.contains(
                "another session committed it first (its transaction, xid 7, is committed)"
            ),
            "{}",
            same.detail
        );
        let lost = race(Decision::Commit, sql, 7, Ok(Decision::Rollback), Some(9));
        assert_eq!(
            (lost.status, lost.severity()),
            (Status::LostRace, Severity::Warning)
        );
        assert!(lost.detail.starts_with("NOT committed: another session rolled it back first (its transaction, xid 7, is aborted)"), "{}", lost.detail);
        assert!(
            lost.detail.contains("(xid 9) has the same GID now"),
            "{}",
            lost.detail
        );
        let unknown = race(
            Decision::Rollback,
            sql,
            7,
            Err("the server no longer keeps its status".into()),
            None,
        );
        assert_eq!(unknown.status, Status::LostRace);
        assert!(
            unknown.detail.contains(
                "which way cannot be told (xid 7: the server no longer keeps its status)"
            ),
            "{}",
            unknown.detail
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_written_as_hex_escapes() {
        assert_eq!(literal(b"odd\xff\x1b[31m'"), "E'odd\\xff\\x1b[31m'''");
        assert_eq!(literal("a\u{9b}b".as_bytes()), "E'a\\xc2\\x9bb'");
    }
}
