//! Deleting a Spring Modulith registry's completed publications older than a cutoff, in
//! batches that each commit (the oldest first), until a batch takes fewer than its size:
//! what the application's `CompletedEventPublications.deletePublicationsOlderThan` does,
//! for one that never runs it. The cutoff is an instant fixed when the plan is made, so
//! the rows a batch may take never move; a row not completed is never taken.

use super::appdb::{write_counted, AppTarget};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::interrupt;
use crate::quote::Sql;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// What is proposed for the registry: known before anything is sent.
pub struct Prune {
    pub target: AppTarget,
    pub report_target: Target,
    /// The registry's name in the config: what may be typed instead of the token.
    pub name: String,
    pub table: String,
    /// One batch's DELETE, run again until it takes fewer than `batch_size` rows.
    pub statement: Sql,
    pub batch_size: u64,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
    /// Rows deleted so far (the outcome says it even when a batch fails).
    pub deleted: u64,
}

impl Prune {
    #[allow(clippy::too_many_arguments)] // one registry's whole description, once
    pub fn new(
        target: AppTarget,
        (name, table): (String, String),
        (statement, batch_size): (Sql, u64),
        evidence: serde_json::Value,
        summary: Vec<Block>,
        timeout: Duration,
    ) -> Prune {
        let plan = Plan {
            decision: "delete",
            heuristic: false,
            action: format!(
                "{} (again until a batch deletes fewer than {batch_size} rows)",
                statement.as_str()
            ),
        };
        Prune {
            report_target: target.report_target(),
            target,
            name,
            table,
            statement,
            batch_size,
            plan,
            evidence,
            summary,
            timeout,
            deleted: 0,
        }
    }
}

impl Proposal for Prune {
    fn name(&self) -> Text {
        text!["modulith registry ", self.name]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!("modulith registry {} table {}", self.name, self.table)
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.name),
            exact: self.name.as_bytes(),
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
        text!["dry run: would delete them in batches: ", self.plan.action]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding.evidence("source", self.table.clone())
    }
}

impl Subject for Prune {
    type Proposal = Prune;

    fn proposal(&self) -> &Prune {
        self
    }

    /// Whether the role may DELETE shows in the server's answer to the first batch,
    /// which then deletes nothing.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// Nothing read can go stale: the statement itself picks only completed rows older
    /// than the fixed cutoff.
    async fn still_valid(&mut self) -> Option<Applied> {
        None
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let mut session = match self.target.connect(self.timeout).await {
            Ok(session) => session,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing done: {e:#}"))
            }
        };
        let mut batches = 0u64;
        let applied = loop {
            if interrupt::stop_asked() {
                break Applied::new(
                    Status::Unknown,
                    codes::FAILED,
                    format!(
                        "interrupted after {batches} batch(es): {} row(s) deleted, the rest are still there",
                        self.deleted
                    ),
                );
            }
            match write_counted(&mut session, self.statement.as_str()).await {
                Ok(Ok(n)) => {
                    batches += 1;
                    self.deleted += n;
                    if n < self.batch_size {
                        break Applied::new(
                            Status::Ok,
                            codes::RESOLVED,
                            format!(
                                "deleted {} completed publication(s) in {batches} batch(es)",
                                self.deleted
                            ),
                        );
                    }
                }
                Ok(Err(refused)) => {
                    let done = format!(
                        "stopped after {} row(s) in {batches} batch(es)",
                        self.deleted
                    );
                    break refused.applied(
                        &done,
                        text![
                            "grant the role DELETE on ",
                            self.table,
                            " (or run as its owner)"
                        ],
                    );
                }
                Err(e) => {
                    break Applied::new(
                        Status::Unknown,
                        codes::FAILED,
                        format!(
                            "{} row(s) deleted in {batches} batch(es), then: {e:#}",
                            self.deleted
                        ),
                    )
                }
            }
        };
        session.close().await;
        applied
    }
}
