//! Marking one Seata TCC Try record as the phase a person ran by hand (2 committed, 3
//! rolled back), in its client's fence table: read again right before, written only
//! while it is still tried (the statement's own `status = 1` guard), its row count read.

use super::appdb::{write_counted, AppTarget};
use crate::appdb::Session;
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::seata::fence;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// What is proposed for the Try record: known before anything is sent.
pub struct FenceMark {
    pub target: AppTarget,
    pub report_target: Target,
    pub table: String,
    pub xid: String,
    pub branch_id: i64,
    /// 2 (committed) or 3 (rolled back).
    pub status: i16,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
    /// `XID#BRANCH`, what may be typed instead of the token.
    id: String,
}

impl FenceMark {
    #[allow(clippy::too_many_arguments)] // one record's whole description, once
    pub fn new(
        target: AppTarget,
        report_target: Target,
        table: String,
        (xid, branch_id): (String, i64),
        (status, statement): (i16, crate::quote::Sql),
        heuristic: bool,
        evidence: serde_json::Value,
        summary: Vec<Block>,
        timeout: Duration,
    ) -> FenceMark {
        let plan = Plan {
            decision: match status {
                2 => "commit",
                _ => "rollback",
            },
            heuristic,
            action: statement.as_str().to_string(),
        };
        let id = format!("{xid}#{branch_id}");
        FenceMark {
            target,
            report_target,
            table,
            xid,
            branch_id,
            status,
            plan,
            evidence,
            summary,
            timeout,
            id,
        }
    }

    fn phase(&self) -> &'static str {
        match self.status {
            2 => "committed",
            _ => "rolled back",
        }
    }

    async fn session(&self) -> Result<Session> {
        self.target.connect(self.timeout).await
    }

    /// The record's status now: None when it is gone.
    async fn status_now(&self, session: &mut Session) -> Result<Option<i16>> {
        Ok(
            fence::record(session, &self.table, &self.xid, self.branch_id)
                .await?
                .map(|(status, _, _)| status),
        )
    }

    /// What a record no longer tried came to.
    fn not_tried(&self, now: Option<i16>, when: &str) -> Applied {
        match now {
            Some(s) if s == self.status => Applied::new(
                Status::AlreadyResolved,
                codes::ALREADY_RESOLVED,
                format!(
                    "nothing done: its fence already says {} ({when})",
                    self.phase()
                ),
            ),
            Some(s) => Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!(
                    "REFUSED: its fence now says {} ({when}), not tried: nothing done",
                    fence::status_name(s).unwrap_or("an unknown status")
                ),
            ),
            None => Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!("REFUSED: its fence record is gone ({when}): nothing done"),
            ),
        }
    }
}

impl Proposal for FenceMark {
    fn name(&self) -> Text {
        text!["tcc try ", self.xid, " branch ", self.branch_id]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!(
            "tcc fence {} xid {} branch {}",
            self.table, self.xid, self.branch_id
        )
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.id),
            exact: self.id.as_bytes(),
            called: None,
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    fn evidence(&self) -> serde_json::Value {
        self.evidence.clone()
    }

    fn summary(&self) -> Vec<Block> {
        self.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would mark it ",
            self.phase(),
            ": ",
            self.plan.action
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding.evidence("fence_table", self.table.clone())
    }
}

impl Subject for FenceMark {
    type Proposal = FenceMark;

    fn proposal(&self) -> &FenceMark {
        self
    }

    /// Whether the role may UPDATE the fence shows in the answer to the statement, which
    /// then changes nothing.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// The prompt may have taken minutes: still tried, or what became of it.
    async fn still_valid(&mut self) -> Option<Applied> {
        let now = async {
            let mut session = self.session().await?;
            let now = self.status_now(&mut session).await;
            session.close().await;
            now
        };
        match now.await {
            Ok(Some(1)) => None,
            Ok(now) => Some(self.not_tried(now, "read again before acting")),
            Err(e) => Some(Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing done: it could not be read again before acting: {e:#}"),
            )),
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let mut session = match self.session().await {
            Ok(session) => session,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing done: {e:#}"))
            }
        };
        let applied = match write_counted(&mut session, &self.plan.action).await {
            Ok(Ok(1)) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!("marked {} (status {})", self.phase(), self.status),
            ),
            // The guard held it off: it changed between the read and the write.
            Ok(Ok(_)) => {
                let now = self.status_now(&mut session).await.ok().flatten();
                let mut applied = self.not_tried(now, "when written");
                if applied.status == Status::Refused {
                    applied.status = Status::LostRace;
                    applied.code = codes::LOST_RACE;
                }
                applied
            }
            Ok(Err(refused)) => refused.applied(
                "nothing done",
                text![
                    "grant the role UPDATE on ",
                    self.table,
                    " (or run as the fence's owner)"
                ],
            ),
            Err(e) => Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}")),
        };
        session.close().await;
        applied
    }
}
