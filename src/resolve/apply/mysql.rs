//! XA COMMIT or XA ROLLBACK of one prepared XA branch of MySQL or MariaDB: the re-read
//! that it is still prepared and no live session holds it, the statement (its XID in hex
//! only, and only with a confirmation), and what each answer means: XAER_NOTA with the
//! branch gone is another session's finish; XAER_NOTA with the branch still listed is a
//! session still holding it (MariaDB answers so), which is busy.

use super::branch::{Branch, Engine};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::mysql::params::MysqlParams;
use crate::mysql::session::{self, Mode, Session};
use crate::mysql::xa::{self, Xid};
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::decision::Decision;
use crate::resolve::flow::{Applied, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;

/// The statement for a decision.
pub fn statement(decision: Decision, xid: &Xid) -> String {
    xa::statement(decision == Decision::Commit, xid)
}

/// A prepared XA branch, as read with the evidence.
pub struct XaBranch {
    pub params: MysqlParams,
    pub xid: Xid,
    /// The XID as text, for the confirmation to compare what is typed with.
    sql_form: String,
}

impl XaBranch {
    pub fn new(params: MysqlParams, xid: Xid) -> XaBranch {
        XaBranch {
            sql_form: xid.sql(),
            params,
            xid,
        }
    }
}

impl Engine for XaBranch {
    type Session = Session;
    const SOURCE: &'static str = "XA RECOVER, decision sources";

    fn name(&self) -> Text {
        text!["XA branch ", self.sql_form.as_str()]
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.sql_form),
            exact: self.sql_form.as_bytes(),
            called: Some("the whole XID"),
        }
    }

    fn statement(&self, decision: Decision) -> String {
        statement(decision, &self.xid)
    }

    fn runs_where(&self, target: &Target) -> Text {
        text!["on ", target.address.as_str()]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding.evidence("xid", self.sql_form.clone())
    }
}

impl Branch<XaBranch> {
    /// Gone before the statement ran: another session finished it, which way MySQL does
    /// not record.
    fn gone(&self, code: Option<&str>) -> Applied {
        Applied::new(
            Status::LostRace,
            codes::LOST_RACE,
            format!(
                "nothing done: another session finished it first (XA RECOVER no longer lists it), and which way cannot be read from the server; {} was not run",
                self.plan.action
            ),
        )
        .server_code(code.map(str::to_string))
        .advice("check its effects, and that every other branch of its global transaction ended the same way (indoubt mysql xa, indoubt pg prepared)")
    }

    fn busy(&self, holder: Option<u64>, code: Option<&str>) -> Applied {
        Applied::new(
            Status::Busy,
            codes::BUSY,
            match holder {
                Some(id) => format!("nothing done: session {id} still holds it (its transaction manager may be finishing it); {} was not run", self.plan.action),
                None => format!("nothing done: the server answers XAER_NOTA while XA RECOVER still lists it, which is how MariaDB answers for a branch another session still holds; {} did nothing", self.plan.action),
            },
        )
        .server_code(code.map(str::to_string))
        .advice("wait for that session to end (or end it), then run resolve again")
    }
}

impl Subject for Branch<XaBranch> {
    type Proposal = Branch<XaBranch>;

    fn proposal(&self) -> &Branch<XaBranch> {
        self
    }

    /// Neither server limits XA COMMIT to the user that prepared the branch; a server
    /// that refuses the statement says why when it runs. The connection is checked here,
    /// before anything is recorded.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        let session =
            session::connect(&self.engine.params, self.decided.timeout, Mode::Resolve).await?;
        session.close().await;
        Ok(None)
    }

    async fn still_valid(&mut self) -> Option<Applied> {
        let (x, timeout) = (&self.engine, self.decided.timeout);
        let read = async {
            let mut session = session::connect(&x.params, timeout, Mode::Resolve).await?;
            let prepared = xa::is_prepared(&mut session, &x.xid).await?;
            let holder = match prepared {
                true => xa::held_by_session(&mut session, &x.xid).await,
                false => None,
            };
            anyhow::Ok((session, prepared, holder))
        }
        .await;
        match read {
            Ok((session, true, None)) => {
                self.session = Some(session);
                None
            }
            Ok((_, true, Some(holder))) => Some(self.busy(Some(holder), None)),
            Ok((_, false, _)) => Some(self.gone(None)),
            Err(e) => Some(Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing done: it could not be read again before acting: {e:#}"),
            )),
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let (x, timeout) = (&self.engine, self.decided.timeout);
        let mut session = match self.session.take() {
            Some(session) => session,
            None => match session::connect(&x.params, timeout, Mode::Resolve).await {
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
        let sql = self.plan.action.clone();
        #[allow(clippy::disallowed_methods)] // the one place an XA statement that writes runs
        let ran = session.write(&sql).await;
        let applied = match ran {
            Ok(()) => Applied::new(Status::Ok, codes::RESOLVED, format!("{sql} done")),
            Err(e) => match session::server_error(&e).cloned() {
                Some(s) if s.code == xa::XAER_NOTA => {
                    let code = Some(s.code.to_string());
                    match xa::is_prepared(&mut session, &x.xid).await {
                        Ok(false) => self.gone(code.as_deref()),
                        Ok(true) => self.busy(None, code.as_deref()),
                        Err(e) => Applied::new(
                            Status::Unknown,
                            codes::FAILED,
                            format!("{s}; whether it is still prepared could not be read: {e:#}"),
                        )
                        .server_code(code),
                    }
                }
                // The server rolled the branch back (XA_RBROLLBACK and kin): what a
                // rollback asked for; against a commit, the race is lost the other way.
                Some(s) if xa::XA_ROLLED_BACK.contains(&s.code) => {
                    let code = Some(s.code.to_string());
                    match self.decided.decision {
                        Decision::Rollback => Applied::new(
                            Status::Ok,
                            codes::RESOLVED,
                            format!("rolled back: the server answered {s}"),
                        )
                        .server_code(code),
                        Decision::Commit => Applied::new(
                            Status::LostRace,
                            codes::LOST_RACE,
                            format!("NOT committed: the server rolled the branch back ({s})"),
                        )
                        .server_code(code)
                        .advice("every other branch of its global transaction must be rolled back too, or it ends mixed: check each with indoubt mysql xa and indoubt pg prepared"),
                    }
                }
                Some(s) => Applied::new(Status::Error, codes::FAILED, s.to_string())
                    .server_code(Some(s.code.to_string())),
                // No server answer (a lost connection, a timeout): it may or may not have run.
                None => Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}")),
            },
        };
        session.close().await;
        applied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_names_the_xid_in_hex() {
        let xid = Xid::parse("'o''1','b',7").unwrap();
        assert_eq!(
            statement(Decision::Commit, &xid),
            "XA COMMIT X'6f2731',X'62',7"
        );
        assert_eq!(
            statement(Decision::Rollback, &xid),
            "XA ROLLBACK X'6f2731',X'62',7"
        );
    }
}
