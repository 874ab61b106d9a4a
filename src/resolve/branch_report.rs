//! The resolution of the one prepared branch a command names, PostgreSQL's (`resolve pg`)
//! or MySQL's (`resolve mysql`): the report both make, the decision taken from what its
//! sources say, and the flow on it and, with --all-branches, on its siblings. What the
//! branch is and how it was read is the command's (`NamedBranch`).

use super::all_branches;
use super::apply::{AnyBranch, Decided};
use super::decision::{self, Choice, Decision, Proposal};
use super::flow::{self, EarlierIntent};
use super::siblings::{self, Siblings, Via, THIS_SERVER};
use crate::audit::record::{Outcome, SourceAnswer};
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::evidence::{self, Block};
use crate::report::table::Style;
use crate::report::{self, Report, TableView, Target};
use crate::settings::resolution::ResolveBranchSettings;
use crate::shown;
use crate::term::Shown;
use crate::text::Text;
use anyhow::Result;
use serde::Serialize;

/// The branch a command names, as its engine read it.
pub trait NamedBranch: Serialize {
    /// The command that resolves it, as its report names it: `resolve pg`.
    const COMMAND: &'static str;
    /// Its block of the evidence, up to its decoded id (what the sources say, the
    /// proposal and the statement follow); None when it is not prepared (any more).
    fn block(&self) -> Option<Block>;
    /// Through it the siblings' findings resolve every branch; None when it is not
    /// prepared (any more).
    fn via(&self) -> Option<Via<'_>>;
    /// A session holds it, so resolve through it refuses (busy): no next command names it.
    fn held(&self) -> bool {
        false
    }
    /// The line of its outcome in the table: as one line here (resolve mysql's, as its
    /// golden snapshots pin it); resolve pg's wraps it to the width.
    fn outcome_line(outcome: &Outcome, _statement: Option<&str>, _style: &Style) -> Shown {
        shown!("outcome: {} — {}", outcome.status.name(), outcome.detail)
    }
}

/// What `resolve pg` and `resolve mysql` report: the branch named (`B`, its fields first),
/// what its sources say, its siblings, the decision, and what the flow did.
#[derive(Debug, Serialize)]
pub struct BranchReport<B> {
    #[serde(flatten)]
    pub named: B,
    pub decision_sources: Vec<SourceAnswer>,
    /// Its global transaction, the other branches of it and where they were sought.
    #[serde(flatten)]
    pub siblings: Siblings,
    pub proposal: Option<Proposal>,
    pub decision: Option<Decision>,
    pub heuristic: bool,
    /// The exact statement run (or, with --dry-run, that would be run).
    pub statement: Option<String>,
    pub dry_run: bool,
    /// The same decision for every other branch still prepared (`siblings[]`).
    pub all_branches: bool,
    pub outcome: Option<Outcome>,
    pub audit_log: Option<String>,
    /// Earlier resolves of this transaction whose intent has no outcome in the audit log.
    pub earlier_intents: Vec<EarlierIntent>,
    /// The confirmation prompt showed the evidence already (the table does not repeat it).
    #[serde(skip)]
    pub evidence_shown: bool,
}

impl<B: NamedBranch> BranchReport<B> {
    /// Nothing known yet but the branch named and how it is to be resolved.
    pub fn new(named: B, how: &ResolveBranchSettings) -> BranchReport<B> {
        BranchReport {
            named,
            decision_sources: Vec::new(),
            siblings: Siblings::default(),
            proposal: None,
            decision: None,
            heuristic: false,
            statement: None,
            dry_run: how.confirm.dry_run,
            all_branches: how.all_branches,
            outcome: None,
            audit_log: None,
            earlier_intents: Vec::new(),
            evidence_shown: false,
        }
    }

    /// The decision taken from `proposal` (with --commit, --rollback, --force and --yes
    /// as given): kept with whether it is heuristic; a refusal is the finding about
    /// `subject` that says why (nothing is done then).
    pub fn decide(
        &mut self,
        proposal: &Proposal,
        how: &ResolveBranchSettings,
        subject: Text,
    ) -> Result<Decision, Box<Finding>> {
        let choice = decision::choose(
            proposal,
            &self.decision_sources,
            how.requested,
            how.force,
            how.confirm.yes,
        );
        match choice {
            Choice::Act {
                decision,
                heuristic,
            } => {
                self.decision = Some(decision);
                self.heuristic = heuristic;
                Ok(decision)
            }
            Choice::Refuse { code, message } => Err(Box::new(Finding::new(
                Severity::Warning,
                code,
                subject,
                message,
            ))),
        }
    }

    /// The statement that carries out `decision` here, and with --all-branches the same
    /// decision planned for every sibling (each against its own sources).
    pub async fn plan(
        &mut self,
        ctx: &Context,
        how: &ResolveBranchSettings,
        decision: Decision,
        statement: String,
    ) {
        self.statement = Some(statement);
        if how.all_branches {
            all_branches::plan(ctx, &how.sources, &mut self.siblings, decision, how.force).await;
        }
    }

    /// What is decided of the branch named on `target`, as the flow shows, confirms and
    /// records it: `evidence` for its intent, its `server`'s identity when it was read.
    pub fn decided(
        &self,
        ctx: &Context,
        target: Target,
        decision: Decision,
        evidence: serde_json::Value,
        server: Option<String>,
    ) -> Decided {
        Decided {
            target,
            timeout: ctx.timeout,
            decision,
            heuristic: self.heuristic,
            evidence,
            decision_sources: self.decision_sources.clone(),
            summary: self.evidence(),
            server,
            place: None,
        }
    }

    /// The flow on `named` and every sibling planned, under one confirmation; what came
    /// of each is kept, and the flow's findings returned.
    pub async fn resolve(
        &mut self,
        ctx: &Context,
        how: &ResolveBranchSettings,
        named: AnyBranch,
        decision: Decision,
    ) -> Result<Vec<Finding>> {
        let mut branches = vec![named];
        branches.extend(all_branches::branches(
            &self.siblings,
            ctx.timeout,
            decision,
        ));
        let done = flow::run(ctx, &how.confirm, &mut branches).await?;
        let mut outcomes = done.outcomes.into_iter();
        self.outcome = outcomes.next().flatten();
        all_branches::record(&mut self.siblings, outcomes, decision);
        self.audit_log = done.audit_log;
        self.earlier_intents = done.earlier_intents;
        self.evidence_shown = done.evidence_shown;
        Ok(done.findings)
    }

    /// The evidence the operator confirms, as blocks: the branch, what each source says,
    /// the proposal, the statement (whole) and the risk; then its siblings.
    pub fn evidence(&self) -> Vec<Block> {
        let mut blocks = Vec::new();
        if let Some(mut block) = self.named.block() {
            for s in &self.decision_sources {
                block.field(
                    "source",
                    shown!("{}: {} ({})", s.source, s.answer.name(), s.detail),
                );
            }
            if let Some(p) = &self.proposal {
                block.field("proposal", shown!("{}", p.why));
            }
            if let Some(sql) = &self.statement {
                block.whole("will run", Shown::text(sql));
                if self.heuristic {
                    block.alarm("HEURISTIC", Shown::lit(decision::HEURISTIC_RISK));
                }
            }
            blocks.push(block);
        }
        blocks.extend(siblings::summary(&self.siblings, self.all_branches));
        blocks
    }

    /// The report of it on `target`: the flow's `findings` and those about the
    /// transaction's other branches.
    pub fn report(
        self,
        target: Target,
        how: &ResolveBranchSettings,
        mut findings: Vec<Finding>,
    ) -> Report<BranchReport<B>> {
        // The dry run of --all-branches: on this server addressed as this run addressed
        // it (a password never repeated), or on a participants target by its config name.
        let held = self.named.held();
        let next = |via: &Via<'_>| match via {
            Via::Pg(_, THIS_SERVER) | Via::Mysql(_, THIS_SERVER) if held => None,
            via => siblings::next_through(&how.addressing, via),
        };
        findings.extend(siblings::findings(
            &self.siblings,
            &siblings::Resolution {
                named: self.named.via(),
                all_branches: self.all_branches,
                acted: self.outcome.is_some(),
                next: &next,
            },
        ));
        Report::new(B::COMMAND, target, findings, self)
    }

    /// Shows its report, and gives the run's status.
    pub fn finish(
        self,
        ctx: &Context,
        target: Target,
        how: &ResolveBranchSettings,
        findings: Vec<Finding>,
    ) -> Result<Severity> {
        let report = self.report(target, how, findings);
        report::emit(&report, ctx.output, &ctx.style)?;
        Ok(report.status)
    }
}

impl<B: NamedBranch> TableView for BranchReport<B> {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = Vec::new();
        // Shown once: not again after the prompt showed it.
        if !self.evidence_shown {
            let blocks = self.evidence();
            if !blocks.is_empty() {
                lines.push(evidence::render(&blocks, style));
            }
            lines.extend(flow::warnings(&self.earlier_intents, style));
        }
        if let Some(o) = &self.outcome {
            lines.push(B::outcome_line(o, self.statement.as_deref(), style));
        }
        if let Some(path) = &self.audit_log {
            lines.push(shown!("recorded in {}", path));
        }
        lines
    }
}
