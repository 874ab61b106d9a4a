//! The two writes in a hand-written saga's database: an instance raised in its manual
//! queue, an orphaned entity released. Each is one statement whose own WHERE is its guard
//! (no open item yet; still held by the same saga at the same version), read again right
//! before it runs, and its row count read: 0 rows is the race lost, said so.

use super::appdb::{write_counted, AppTarget};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::quote::Sql;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::saga::read::{self, Held, Kinds};
use crate::saga::Saga;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// What is written, and what must still hold for it.
pub enum Write {
    /// Into the manual queue: the saga has no open item there.
    Escalate,
    /// The entity of lock table `lock` (its index) is still held by the saga (and at the
    /// version) read.
    Release { lock: usize, held: Held },
}

/// What is proposed for one instance or entity: known before anything is sent.
pub struct SagaWrite {
    pub target: AppTarget,
    pub report_target: Target,
    /// The saga's config name.
    pub name: String,
    pub saga: Saga,
    pub kinds: Kinds,
    /// The saga's or the entity's id: what may be typed instead of the token.
    pub id: String,
    pub write: Write,
    pub statement: Sql,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
}

impl SagaWrite {
    #[allow(clippy::too_many_arguments)] // one write's whole description, once
    pub fn new(
        target: AppTarget,
        (name, saga, kinds): (String, Saga, Kinds),
        id: String,
        write: Write,
        statement: Sql,
        evidence: serde_json::Value,
        summary: Vec<Block>,
        timeout: Duration,
    ) -> SagaWrite {
        let plan = Plan {
            decision: match write {
                Write::Escalate => "escalate",
                Write::Release { .. } => "release",
            },
            heuristic: false,
            action: statement.as_str().to_string(),
        };
        SagaWrite {
            report_target: target.report_target(),
            target,
            name,
            saga,
            kinds,
            id,
            write,
            statement,
            plan,
            evidence,
            summary,
            timeout,
        }
    }

    /// What the guard needs, read again: None when it still holds, else what became of it.
    async fn recheck(&self, when: &str) -> Result<Option<Applied>> {
        let mut session = self.target.connect(self.timeout).await?;
        let now = match &self.write {
            Write::Escalate => read::instance(&mut session, &self.saga, self.kinds, &self.id)
                .await
                .map(|row| match row {
                    None => Some(Applied::new(
                        Status::Refused,
                        codes::CHANGED_MEANWHILE,
                        format!("REFUSED: saga {} is gone ({when}): nothing done", self.id),
                    )),
                    Some(r) if r.id != self.id => Some(Applied::new(
                        Status::Refused,
                        codes::CHANGED_MEANWHILE,
                        format!("REFUSED: saga {} is gone ({when}): nothing done", self.id),
                    )),
                    Some(r) if r.queue_open > 0 => Some(Applied::new(
                        Status::AlreadyResolved,
                        codes::ALREADY_RESOLVED,
                        format!(
                            "nothing done: it has an open item in the manual queue now ({when})"
                        ),
                    )),
                    Some(_) => None,
                }),
            Write::Release { lock, held } => {
                let lock = &self.saga.locks[*lock];
                read::entity(&mut session, &self.saga, self.kinds, lock, &self.id)
                    .await
                    .map(|found| match found {
                        None => Some(Applied::new(
                            Status::Refused,
                            codes::CHANGED_MEANWHILE,
                            format!("REFUSED: entity {} is gone ({when}): nothing done", self.id),
                        )),
                        Some((state, _)) if !lock.held.contains(&state) => Some(Applied::new(
                            Status::AlreadyResolved,
                            codes::ALREADY_RESOLVED,
                            format!("nothing done: it is {state} now, no longer held ({when})"),
                        )),
                        Some((_, now)) if now.saga_id != held.saga_id || now.version != held.version => {
                            Some(Applied::new(
                                Status::Refused,
                                codes::CHANGED_MEANWHILE,
                                format!(
                                    "REFUSED: it is held again, by saga {} at version {} ({when}): nothing done",
                                    now.saga_id.as_deref().unwrap_or("(none)"),
                                    now.version.as_deref().unwrap_or("(none)")
                                ),
                            ))
                        }
                        Some(_) => None,
                    })
            }
        };
        session.close().await;
        now
    }
}

impl Proposal for SagaWrite {
    fn name(&self) -> Text {
        match &self.write {
            Write::Escalate => text!["saga ", self.name, " ", self.id],
            Write::Release { lock, .. } => {
                text![
                    self.saga.locks[*lock].table,
                    " ",
                    self.id,
                    " (saga ",
                    self.name,
                    ")"
                ]
            }
        }
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        match &self.write {
            Write::Escalate => format!("saga {} instance {}", self.name, self.id),
            Write::Release { lock, .. } => format!(
                "saga {} lock {} entity {}",
                self.name, self.saga.locks[*lock].table, self.id
            ),
        }
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
        match self.write {
            Write::Escalate => text![
                "dry run: would raise it in the manual queue: ",
                self.plan.action
            ],
            Write::Release { .. } => text!["dry run: would release it: ", self.plan.action],
        }
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding.evidence("source", self.saga.layout.table.clone())
    }
}

impl Subject for SagaWrite {
    type Proposal = SagaWrite;

    fn proposal(&self) -> &SagaWrite {
        self
    }

    /// Whether the role may write shows in the server's answer to the statement, which
    /// then changes nothing.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// The prompt may have taken minutes: the guard's facts, read again.
    async fn still_valid(&mut self) -> Option<Applied> {
        match self.recheck("read again before acting").await {
            Ok(changed) => changed,
            Err(e) => Some(Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing done: it could not be read again before acting: {e:#}"),
            )),
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let mut session = match self.target.connect(self.timeout).await {
            Ok(session) => session,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing done: {e:#}"))
            }
        };
        let written = write_counted(&mut session, self.statement.as_str()).await;
        session.close().await;
        let table = match &self.write {
            Write::Escalate => self
                .saga
                .queue
                .as_ref()
                .map(|q| q.table.clone())
                .unwrap_or_default(),
            Write::Release { lock, .. } => self.saga.locks[*lock].table.clone(),
        };
        match written {
            Ok(Ok(1)) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                match &self.write {
                    Write::Escalate => format!("raised in the manual queue {table}"),
                    Write::Release { lock, .. } => format!(
                        "released: set to {}",
                        self.saga.locks[*lock].released.as_deref().unwrap_or("?")
                    ),
                },
            ),
            // The statement's own guard held it off: what it is now, said.
            Ok(Ok(_)) => {
                let mut applied = match self.recheck("when written").await {
                    Ok(Some(applied)) => applied,
                    Ok(None) | Err(_) => Applied::new(
                        Status::Refused,
                        codes::CHANGED_MEANWHILE,
                        "nothing written: it changed between the check and the write".to_string(),
                    ),
                };
                if applied.status == Status::Refused {
                    applied.status = Status::LostRace;
                    applied.code = codes::LOST_RACE;
                }
                applied
            }
            Ok(Err(refused)) => refused.applied(
                "nothing done",
                text![
                    "grant the role the write on ",
                    table,
                    " (or run as its owner)"
                ],
            ),
            Err(e) => Applied::new(Status::Unknown, codes::FAILED, format!("{e:#}")),
        }
    }
}
