//! Letting a Seata AT rollback that a dirty write holds up go on, in the branch's
//! business database: its changed rows set back to the branch's after image (each
//! UPDATE guarded by every column as read, all in one transaction that is rolled back
//! unless each changes its one row), or its undo log deleted (guarded by the md5 of what
//! was read). The undo log is read again right before.

use super::appdb::{begin, write_counted, AppTarget};
use crate::appdb::Session;
use crate::audit::record::Status;
use crate::cli::AtFix;
use crate::codes;
use crate::findings::Finding;
use crate::quote::Sql;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::seata::undo;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use futures_util::future::LocalBoxFuture;
use std::time::Duration;

/// One branch's undo log, as read, and the statements that fix it.
pub struct UndoLogRead {
    pub table: String,
    pub xid: String,
    pub branch_id: i64,
    /// md5 of its rollback_info when read.
    pub digest: String,
}

/// Whether the coordinator's store still says what the fix rests on — the global a
/// rollback it retries, the branch an AT branch of it, each row to write locked by that
/// branch: None, else what changed. Asked again right before the write (the prompt may
/// have taken minutes).
pub trait StoreCheck {
    fn recheck(&self) -> LocalBoxFuture<'_, Result<Option<String>>>;
}

/// What is proposed for the branch: known before anything is sent.
pub struct AtFixing<'a> {
    pub target: AppTarget,
    pub report_target: Target,
    pub undo: UndoLogRead,
    pub fix: AtFix,
    /// The writes, in order: the UPDATEs of the rows, or the DELETE of the undo log.
    pub statements: Vec<Sql>,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
    store: Box<dyn StoreCheck + 'a>,
    /// `XID#BRANCH`, what may be typed instead of the token.
    id: String,
}

impl<'a> AtFixing<'a> {
    #[allow(clippy::too_many_arguments)] // one branch's whole description, once
    pub fn new(
        target: AppTarget,
        report_target: Target,
        undo: UndoLogRead,
        fix: AtFix,
        statements: Vec<Sql>,
        evidence: serde_json::Value,
        summary: Vec<Block>,
        (timeout, store): (Duration, Box<dyn StoreCheck + 'a>),
    ) -> AtFixing<'a> {
        let plan = Plan {
            decision: "rollback",
            // Deleting the undo log keeps what the branch wrote, which the rollback the
            // coordinator decided would have undone: a person's decision.
            heuristic: fix == AtFix::UndoLog,
            action: action(fix, &statements, begin(target.dialect())),
        };
        let id = format!("{}#{}", undo.xid, undo.branch_id);
        AtFixing {
            target,
            report_target,
            undo,
            fix,
            statements,
            plan,
            evidence,
            summary,
            timeout,
            store,
            id,
        }
    }

    async fn session(&self) -> Result<Session> {
        self.target.connect(self.timeout).await
    }

    /// The undo log's md5 now: None when it is gone.
    async fn digest_now(&self, session: &mut Session) -> Result<Option<String>> {
        let u = &self.undo;
        Ok(undo::of_branch(session, &u.table, &u.xid, u.branch_id)
            .await?
            .map(|log| log.digest))
    }

    /// What an undo log no longer as read came to.
    fn changed(&self, now: Option<String>, when: &str) -> Applied {
        match now {
            None => Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!("REFUSED: the branch's undo log is gone ({when}: the coordinator's retry may have rolled it back, or someone deleted it): nothing done"),
            ),
            Some(_) => Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!("REFUSED: the branch's undo log changed ({when}): nothing done"),
            ),
        }
    }

    /// The UPDATEs, in one transaction kept only when each changed its one row.
    async fn set_rows_back(&self, session: &mut Session) -> Applied {
        let failed = |e: String| Applied::new(Status::Error, codes::FAILED, e);
        let unknown =
            |e: anyhow::Error| Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}"));
        match write_counted(session, begin(session.dialect())).await {
            Ok(Ok(_)) => {}
            Ok(Err(refused)) => return failed(format!("nothing done: {}", refused.said)),
            Err(e) => return unknown(e),
        }
        for (i, sql) in self.statements.iter().enumerate() {
            match write_counted(session, sql.as_str()).await {
                Ok(Ok(1)) => {}
                Ok(Ok(_)) => {
                    let rolled_back = write_counted(session, "ROLLBACK").await;
                    let mut applied = Applied::new(
                        Status::LostRace,
                        codes::LOST_RACE,
                        format!(
                            "row {} of {} changed between the read and the write: nothing done (rolled back)",
                            i + 1,
                            self.statements.len()
                        ),
                    );
                    if !matches!(rolled_back, Ok(Ok(_))) {
                        applied.status = Status::Unknown;
                        applied.detail.push_str(
                            "; the ROLLBACK was not answered: the session's end rolls it back",
                        );
                    }
                    return applied;
                }
                Ok(Err(refused)) => {
                    let _ = write_counted(session, "ROLLBACK").await;
                    return refused.applied(
                        "nothing done (rolled back)",
                        text!["grant the role UPDATE on the table (or run as its owner)"],
                    );
                }
                Err(e) => return unknown(e),
            }
        }
        match write_counted(session, "COMMIT").await {
            Ok(Ok(_)) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!(
                    "set {} row(s) back to what the branch wrote: the coordinator's next retry of the rollback restores the before image",
                    self.statements.len()
                ),
            ),
            Ok(Err(refused)) => failed(format!("nothing done: the COMMIT failed: {}", refused.said)),
            Err(e) => unknown(e),
        }
    }

    async fn delete_undo_log(&self, session: &mut Session) -> Applied {
        let Some(statement) = self.statements.first() else {
            return Applied::new(Status::Error, codes::FAILED, "nothing to run");
        };
        match write_counted(session, statement.as_str()).await {
            Ok(Ok(1)) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                "deleted the branch's undo log: the coordinator's next retry finds nothing to undo and ends the branch",
            ),
            Ok(Ok(_)) => {
                let now = self.digest_now(session).await.ok().flatten();
                let mut applied = self.changed(now, "when written");
                applied.status = Status::LostRace;
                applied.code = codes::LOST_RACE;
                applied
            }
            Ok(Err(refused)) => refused.applied(
                "nothing done",
                text!["grant the role DELETE on ", self.undo.table, " (or run as its owner)"],
            ),
            Err(e) => Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}")),
        }
    }
}

/// The statements as one text to confirm and record.
fn action(fix: AtFix, statements: &[Sql], begin: &str) -> String {
    let each: Vec<&str> = statements.iter().map(Sql::as_str).collect();
    match fix {
        AtFix::AfterImage => format!(
            "{begin}; {} COMMIT; (each UPDATE must change its one row, else ROLLBACK)",
            each.join(" ")
        ),
        AtFix::UndoLog => each.join(" "),
    }
}

impl Proposal for AtFixing<'_> {
    fn name(&self) -> Text {
        text!["at branch ", self.undo.xid, " branch ", self.undo.branch_id]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!(
            "seata at undo log {} xid {} branch {}",
            self.undo.table, self.undo.xid, self.undo.branch_id
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
        match self.fix {
            AtFix::AfterImage => text![
                "dry run: would set ",
                self.statements.len(),
                " row(s) back to what the branch wrote: ",
                self.plan.action
            ],
            AtFix::UndoLog => text!["dry run: would delete its undo log: ", self.plan.action],
        }
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding.evidence("undo_table", self.undo.table.clone())
    }
}

impl<'a> Subject for AtFixing<'a> {
    type Proposal = AtFixing<'a>;

    fn proposal(&self) -> &AtFixing<'a> {
        self
    }

    /// Whether the role may write shows in the server's answer, which then changes
    /// nothing.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// The prompt may have taken minutes: the store still says what the fix rests on, and
    /// the undo log is still as read, or what became of them. (The rows are guarded by
    /// their UPDATEs.)
    async fn still_valid(&mut self) -> Option<Applied> {
        let unreadable = |e: anyhow::Error| {
            Some(Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing done: it could not be read again before acting: {e:#}"),
            ))
        };
        match self.store.recheck().await {
            Ok(None) => {}
            Ok(Some(changed)) => {
                return Some(Applied::new(
                    Status::Refused,
                    codes::AT_NOT_RETRIED,
                    format!("REFUSED: read again before acting, {changed}: nothing done"),
                ))
            }
            Err(e) => return unreadable(e),
        }
        let now = async {
            let mut session = self.session().await?;
            let now = self.digest_now(&mut session).await;
            session.close().await;
            now
        };
        match now.await {
            Ok(Some(d)) if d == self.undo.digest => None,
            Ok(now) => Some(self.changed(now, "read again before acting")),
            Err(e) => unreadable(e),
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let mut session = match self.session().await {
            Ok(session) => session,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing done: {e:#}"))
            }
        };
        let applied = match self.fix {
            AtFix::AfterImage => self.set_rows_back(&mut session).await,
            AtFix::UndoLog => self.delete_undo_log(&mut session).await,
        };
        session.close().await;
        applied
    }
}
