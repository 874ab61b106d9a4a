//! XA COMMIT or XA ROLLBACK of one prepared XA branch of MySQL or MariaDB: the re-read
//! that it is still prepared and no live session holds it, the statement (its XID in hex
//! only, and only with a confirmation), and what each answer means: XAER_NOTA with the
//! branch gone is another session's finish; XAER_NOTA with the branch still listed is a
//! session still holding it (MariaDB answers so), which is busy.

use crate::audit::record::{SourceAnswer, Status};
use crate::codes;
use crate::findings::Finding;
use crate::mysql::params::MysqlParams;
use crate::mysql::session::{self, Mode, Session};
use crate::mysql::xa::{self, Xid};
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::decision::Decision;
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// The statement for a decision.
pub fn statement(decision: Decision, xid: &Xid) -> String {
    xa::statement(decision == Decision::Commit, xid)
}

/// One prepared branch as read with the evidence, and what was decided for it.
pub struct Prepared {
    pub target: Target,
    pub params: MysqlParams,
    pub timeout: Duration,
    pub xid: Xid,
    pub decision: Decision,
    pub heuristic: bool,
    pub evidence: serde_json::Value,
    pub decision_sources: Vec<SourceAnswer>,
    pub summary: Vec<Block>,
    /// The server's own identity, when read (the audit trail's `server`).
    pub server: Option<String>,
    /// The server it is on, when it is not the one named with --mysql.
    pub place: Option<String>,
}

/// A prepared XA branch handed to the flow.
pub struct Branch {
    pub prepared: Prepared,
    plan: Plan,
    /// The XID as text, for the confirmation to compare what is typed with.
    sql_form: String,
    session: Option<Session>,
}

impl Branch {
    pub fn new(prepared: Prepared) -> Branch {
        let plan = Plan {
            decision: prepared.decision.name(),
            heuristic: prepared.heuristic,
            action: statement(prepared.decision, &prepared.xid),
        };
        Branch {
            sql_form: prepared.xid.sql(),
            prepared,
            plan,
            session: None,
        }
    }

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

impl Proposal for Branch {
    fn name(&self) -> Text {
        let mut name = text!["XA branch ", self.sql_form.as_str()];
        if let Some(place) = &self.prepared.place {
            name.push_str(" on ");
            name.push_str(place);
        }
        name
    }

    fn target(&self) -> Target {
        self.prepared.target.clone()
    }

    fn object(&self) -> String {
        self.name().plain()
    }

    fn server(&self) -> Option<String> {
        self.prepared.server.clone()
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.sql_form),
            exact: self.sql_form.as_bytes(),
            called: Some("the whole XID"),
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

    fn summary(&self) -> Vec<Block> {
        self.prepared.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would run `",
            self.plan.action,
            "` on ",
            self.prepared.target.address.as_str()
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding
            .evidence("source", "XA RECOVER, decision sources")
            .evidence("statement", self.plan.action.clone())
            .evidence("xid", self.sql_form.clone())
    }
}

impl Subject for Branch {
    type Proposal = Branch;

    fn proposal(&self) -> &Branch {
        self
    }

    /// Neither server limits XA COMMIT to the user that prepared the branch; a server
    /// that refuses the statement says why when it runs. The connection is checked here,
    /// before anything is recorded.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        let p = &self.prepared;
        let session = session::connect(&p.params, p.timeout, Mode::Resolve).await?;
        session.close().await;
        Ok(None)
    }

    async fn still_valid(&mut self) -> Option<Applied> {
        let p = &self.prepared;
        let read = async {
            let mut session = session::connect(&p.params, p.timeout, Mode::Resolve).await?;
            let prepared = xa::is_prepared(&mut session, &p.xid).await?;
            let holder = match prepared {
                true => xa::held_by_session(&mut session, &p.xid).await,
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
        let p = &self.prepared;
        let mut session = match self.session.take() {
            Some(session) => session,
            None => match session::connect(&p.params, p.timeout, Mode::Resolve).await {
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
                    match xa::is_prepared(&mut session, &p.xid).await {
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
                    match p.decision {
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
