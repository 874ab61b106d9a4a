//! The one resolution flow: every write to a server starts and finishes in [`run`].
//!
//! In order: the checks that refuse before anything is recorded (privileges); the intents
//! of earlier runs that have no outcome; a dry run stops there. Then one confirmation for
//! every object (the reason a heuristic decision needs, then the token), and per object:
//! the intent, fsynced; the object read again, right before acting; the action, which
//! needs the confirmation's token; its outcome. A command gathers the evidence and hands
//! each object over as a [`Subject`]; it never writes by itself.

use crate::audit::log;
use crate::audit::record::{Action, Operator, Outcome, Record, SourceAnswer, Status};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::evidence::{self, Block};
use crate::report::table::Style;
use crate::report::Target;
use crate::resolve::confirm::{self, Answer, Confirmed, Expected, Request};
use crate::settings::resolution::Confirm as ConfirmArgs;
use crate::shown;
use crate::term::Shown;
use crate::text::Text;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// What will be done to one object.
#[derive(Debug, Clone)]
pub struct Plan {
    /// commit, rollback or abort (the audit record's `decision`).
    pub decision: &'static str,
    /// Taken without the coordinator's decision: recorded as such, and only with a reason.
    pub heuristic: bool,
    /// The exact statement or request.
    pub action: String,
}

/// What came of one object: acted on, or found changed right before.
#[derive(Debug, Clone)]
pub struct Applied {
    pub status: Status,
    /// The finding's code (resolved, already_resolved, lost_race, busy, changed_meanwhile, failed).
    pub code: crate::codes::Code,
    pub detail: String,
    /// The server's error: a SQLSTATE or a Kafka error name.
    pub server_code: Option<String>,
    pub advice: Option<Text>,
    /// Per item acted on, for the outcome record (see `Outcome::result`).
    pub result: Option<Box<serde_json::value::RawValue>>,
}

impl Applied {
    pub fn new(status: Status, code: crate::codes::Code, detail: impl Into<String>) -> Applied {
        Applied {
            status,
            code,
            detail: detail.into(),
            server_code: None,
            advice: None,
            result: None,
        }
    }

    pub fn server_code(mut self, code: Option<String>) -> Applied {
        self.server_code = code;
        self
    }

    pub fn advice(mut self, advice: impl Into<Text>) -> Applied {
        self.advice = Some(advice.into());
        self
    }

    pub fn result(mut self, result: Box<serde_json::value::RawValue>) -> Applied {
        self.result = Some(result);
        self
    }

    /// Done, or already done the same way: OK. Nothing done and not what was asked, or
    /// done in part: a WARNING. Failed, or unknown whether it was done: CRITICAL.
    pub fn severity(&self) -> Severity {
        match self.status {
            Status::Ok | Status::AlreadyResolved => Severity::Ok,
            Status::Busy | Status::Refused | Status::LostRace | Status::Partial => {
                Severity::Warning
            }
            Status::Error | Status::Unknown | Status::Mismatch => Severity::Critical,
        }
    }
}

/// What a resolution shows, confirms and records of one object: known before anything
/// is sent, so a dry run, the confirmation and the golden tests read the same.
pub trait Proposal {
    /// The object, as findings name it.
    fn name(&self) -> Text;
    /// Where it is (no secrets), for the audit record.
    fn target(&self) -> Target;
    /// The audit record's object: what `audit list --object` finds.
    fn object(&self) -> String;
    /// Its own id, which may be typed instead of the token (a GID, `topic-partition@offset`).
    fn id(&self) -> Expected<'_>;
    /// The server's own identity (`postgres SYSTEM-IDENTIFIER`, …), when it was read: the
    /// audit trail finds the object by it, whatever address reached the server.
    fn server(&self) -> Option<String> {
        None
    }
    /// The audit record's key: the object's id in the escaped form.
    fn key(&self) -> String {
        crate::text::escape_bytes(self.id().exact)
    }
    fn plan(&self) -> &Plan;
    /// The evidence the intent records.
    fn evidence(&self) -> serde_json::Value;
    fn decision_sources(&self) -> Vec<SourceAnswer> {
        Vec::new()
    }
    /// The evidence and the plan, as the operator confirms them.
    fn summary(&self) -> Vec<Block>;
    /// What a dry run says it would do.
    fn dry_run(&self) -> Text;
    /// Adds the subject's own evidence to the finding of its outcome.
    fn annotate(&self, finding: Finding) -> Finding {
        finding
    }
}

/// One object a resolution acts on: its proposal, and the server it is acted on at.
#[allow(async_fn_in_trait)] // awaited on indoubt's one runtime thread, never sent
pub trait Subject {
    type Proposal: Proposal;
    fn proposal(&self) -> &Self::Proposal;
    /// Refusals known before anything is recorded (the role may not do it): a finding,
    /// and nothing is confirmed, recorded or done. An error: the server could not be asked.
    async fn preflight(&mut self) -> Result<Option<Finding>>;
    /// Read again right before acting: None when it is still the object confirmed,
    /// else what became of it (nothing is sent then).
    async fn still_valid(&mut self) -> Option<Applied>;
    /// The action itself; only a confirmation can give the token.
    async fn apply(&mut self, confirmed: &Confirmed) -> Applied;
}

/// An intent of an earlier run on the same object that has no outcome: that process may
/// have died before its action, during it, or before recording what came of it.
#[derive(Debug, Clone, Serialize)]
pub struct EarlierIntent {
    pub action_id: String,
    pub time: DateTime<Utc>,
    pub operator: Operator,
    pub object: String,
    pub decision: String,
    pub heuristic: bool,
    pub action: String,
}

/// What the flow came to for a report of one object, in its JSON (flattened): the
/// outcome recorded, where, and earlier intents without one.
#[derive(Debug, Default, Serialize)]
pub struct Recorded {
    pub outcome: Option<Outcome>,
    pub audit_log: Option<String>,
    /// Earlier resolves of this object whose intent has no outcome in the audit log.
    pub earlier_intents: Vec<EarlierIntent>,
    /// The confirmation prompt showed the evidence already (the table does not repeat it).
    #[serde(skip)]
    pub evidence_shown: bool,
}

impl Recorded {
    /// The flow's result for its one subject: its findings, and what it recorded.
    pub fn of(done: Done) -> (Vec<Finding>, Recorded) {
        let recorded = Recorded {
            outcome: done.outcomes.into_iter().next().flatten(),
            audit_log: done.audit_log,
            earlier_intents: done.earlier_intents,
            evidence_shown: done.evidence_shown,
        };
        (done.findings, recorded)
    }

    /// The evidence, unless the prompt showed it, with the earlier intents' warnings.
    pub fn evidence(&self, blocks: &[Block], style: &Style) -> Vec<Shown> {
        let mut lines = Vec::new();
        if !self.evidence_shown {
            lines.push(evidence::render(blocks, style));
            lines.extend(warnings(&self.earlier_intents, style));
        }
        lines
    }

    /// A resolve report's lines: the evidence of `blocks` (none read: nothing), then where
    /// it was recorded.
    pub fn lines(&self, blocks: &[Block], style: &Style) -> Vec<Shown> {
        let mut lines = match blocks.is_empty() {
            true => Vec::new(),
            false => self.evidence(blocks, style),
        };
        lines.extend(self.recorded_in());
        lines
    }

    /// Where the resolution was recorded.
    pub fn recorded_in(&self) -> Option<Shown> {
        self.audit_log
            .as_ref()
            .map(|path| shown!("recorded in {}", path))
    }
}

/// What the flow did, for the command's report.
#[derive(Debug, Default)]
pub struct Done {
    pub findings: Vec<Finding>,
    /// Per subject, in order: its recorded outcome, when it was acted on.
    pub outcomes: Vec<Option<Outcome>>,
    pub audit_log: Option<String>,
    pub earlier_intents: Vec<EarlierIntent>,
    /// The prompt showed the evidence (the report need not print it again).
    pub evidence_shown: bool,
}

/// Resolves `subjects` under one confirmation (see the module's comment for the steps).
pub async fn run<S: Subject>(
    ctx: &Context,
    args: &ConfirmArgs,
    subjects: &mut [S],
) -> Result<Done> {
    let mut done = Done {
        outcomes: vec![None; subjects.len()],
        ..Done::default()
    };
    for subject in subjects.iter_mut() {
        if let Some(refusal) = subject.preflight().await? {
            done.findings.push(refusal);
        }
    }
    if !done.findings.is_empty() {
        return Ok(done);
    }
    let audit_path = args.audit_log.path();
    if let Ok(path) = &audit_path {
        // Unreadable here means unwritable below, which stops the resolution with the reason.
        for subject in subjects.iter() {
            let proposal = subject.proposal();
            if let Ok(open) = log::open_intents_for(
                path,
                proposal.server().as_deref(),
                &proposal.key(),
                &proposal.object(),
                &proposal.target(),
            ) {
                done.earlier_intents.extend(open.into_iter().map(earlier));
            }
        }
    }
    let warned = warnings(&done.earlier_intents, &ctx.style);
    if args.dry_run {
        for subject in subjects.iter() {
            done.findings.push(dry_run_finding(subject.proposal()));
        }
        return Ok(done);
    }

    done.evidence_shown = confirm::shows_evidence(args.yes);
    let confirmation = match confirm(ctx, args, subjects, &warned).await? {
        Answer::Yes(confirmation) => confirmation,
        Answer::No(why) => {
            for subject in subjects.iter() {
                done.findings.push(Finding::new(
                    Severity::Warning,
                    codes::NOT_CONFIRMED,
                    subject.proposal().name(),
                    format!("nothing done: {why}"),
                ));
            }
            return Ok(done);
        }
    };
    if args.yes {
        // At a terminal they were shown with the evidence, before the confirmation.
        for line in &warned {
            crate::term::status(line);
        }
    }

    // The intent is durable before the action; if it cannot be written, nothing runs.
    let path = audit_path?;
    done.audit_log = Some(path.display().to_string());
    // From the first intent on, a signal waits for the outcome to be recorded.
    let _shield = crate::interrupt::shield();
    for (i, subject) in subjects.iter_mut().enumerate() {
        let proposal = subject.proposal();
        let plan = proposal.plan().clone();
        let name = proposal.name();
        let mut evidence = proposal.evidence();
        if let (Some(map), false) = (evidence.as_object_mut(), done.earlier_intents.is_empty()) {
            map.insert(
                "earlier_intents_without_outcome".into(),
                done.earlier_intents
                    .iter()
                    .map(|e| e.action_id.clone())
                    .collect(),
            );
        }
        let recorded = log::record_intent(
            path,
            Record::intent(Action {
                target: proposal.target(),
                object: proposal.object(),
                server: proposal.server(),
                key: proposal.key(),
                action: plan.action.clone(),
                evidence,
                decision_sources: proposal.decision_sources(),
                decision: plan.decision.to_string(),
                heuristic: plan.heuristic,
                reason: confirmation.reason.clone(),
                ticket: confirmation.ticket.clone(),
                command_line: ctx.command_line.clone(),
            }),
        );
        let intent = match recorded {
            Ok(intent) => intent,
            Err(e) if i == 0 => return Err(e),
            // Those before it were done and are reported; this one and the rest are not.
            Err(e) => {
                done.findings.push(Finding::new(
                    Severity::Unknown,
                    codes::NOT_RECORDED,
                    name,
                    format!("nothing done: {e:#}"),
                ));
                break;
            }
        };
        failpoint("after-intent");
        failpoint("before-check");
        let mut applied = match subject.still_valid().await {
            Some(changed) => changed,
            None => {
                failpoint("before-apply");
                subject.apply(&confirmation.confirmed).await
            }
        };
        let outcome = Outcome {
            status: applied.status,
            detail: applied.detail.clone(),
            code: applied.server_code.clone(),
            result: applied.result.take(),
        };
        let not_recorded = match log::record_outcome(path, &intent, outcome.clone()) {
            Ok(()) => None,
            // In the log after all, the head one behind: said, and recorded as it is.
            Err(e) if e.in_log => {
                crate::term::status(&shown!("indoubt: warning: {:#}", e.error));
                None
            }
            Err(e) => Some(e.error),
        };
        if let Some(error) = not_recorded {
            // The action ran: what came of it is reported, and that the trail lacks it.
            done.findings.push(
                subject
                    .proposal()
                    .annotate(outcome_not_recorded(name, &applied, &intent, path, &error))
                    .evidence("action_id", intent.action_id.clone()),
            );
            done.outcomes[i] = Some(outcome);
            // Nothing more is done without a trail that can take it.
            for rest in subjects.iter().skip(i + 1) {
                done.findings.push(Finding::new(
                    Severity::Unknown,
                    codes::NOT_RECORDED,
                    rest.proposal().name(),
                    "nothing done: the audit log could not take the outcome before it",
                ));
            }
            break;
        }
        let mut finding = Finding::new(
            applied.severity(),
            applied.code,
            name,
            format!(
                "{}{}",
                applied.detail,
                if plan.heuristic {
                    " (HEURISTIC decision, recorded)"
                } else {
                    ""
                }
            ),
        );
        finding = subject
            .proposal()
            .annotate(finding)
            .evidence("action_id", intent.action_id.clone());
        if let Some(advice) = applied.advice {
            finding = finding.advice(advice);
        }
        done.findings.push(finding);
        done.outcomes[i] = Some(outcome);
    }
    Ok(done)
}

/// The action ran, but its outcome record could not be written (a full disk): what it
/// did, that the trail lacks it (the intent stays without an outcome), and what to do.
fn outcome_not_recorded(
    name: Text,
    applied: &Applied,
    intent: &Record,
    path: &std::path::Path,
    error: &anyhow::Error,
) -> Finding {
    Finding::new(
        Severity::Critical,
        codes::OUTCOME_NOT_RECORDED,
        name,
        format!(
            "the action ran ({}: {}), but its outcome was not recorded in the audit log {}: {error:#}. The intent (record {}, action id {}) is recorded, so `indoubt audit verify` lists it as outcome unknown",
            applied.status.name(),
            applied.detail,
            path.display(),
            intent.seq,
            intent.action_id
        ),
    )
    .evidence("outcome", applied.status.name())
    .advice(format!(
        "do not run it again: it ran. Copy this outcome into the ticket (action id {}); free space on the audit log's disk (or make it writable) so the next resolution can be recorded",
        intent.action_id
    ))
}

/// What a dry run reports of one object: what it would do.
pub fn dry_run_finding(proposal: &impl Proposal) -> Finding {
    Finding::new(
        Severity::Ok,
        codes::DRY_RUN,
        proposal.name(),
        proposal.dry_run(),
    )
}

async fn confirm<S: Subject>(
    ctx: &Context,
    args: &ConfirmArgs,
    subjects: &[S],
    warnings: &[Shown],
) -> Result<Answer> {
    let proposals: Vec<&S::Proposal> = subjects.iter().map(Subject::proposal).collect();
    confirm::confirm(&request(&proposals, args, warnings, &ctx.style)).await
}

/// One confirmation for all the proposals: their evidence, the warnings, the reason a
/// heuristic needs, and a token derived from every object and its decision. Pure, so the
/// golden tests show the prompt a run shows.
pub fn request<'a, P: Proposal>(
    proposals: &[&'a P],
    args: &'a ConfirmArgs,
    warnings: &[Shown],
    style: &Style,
) -> Request<'a> {
    let blocks: Vec<Block> = proposals.iter().flat_map(|p| p.summary()).collect();
    let mut what = vec![evidence::render(&blocks, style)];
    what.extend(warnings.iter().cloned());
    let objects: Vec<Vec<u8>> = proposals
        .iter()
        .map(|p| {
            let mut identity = p.plan().decision.as_bytes().to_vec();
            identity.push(0);
            identity.extend_from_slice(p.id().exact);
            identity
        })
        .collect();
    let first = proposals.first().map(|p| p.plan().decision);
    let decision = match first {
        Some(d) if proposals.iter().all(|p| p.plan().decision == d) => d,
        _ => "resolve",
    };
    Request {
        yes: args.yes,
        reason: args.reason.as_deref(),
        ticket: args.ticket.as_deref(),
        heuristic: proposals.iter().any(|p| p.plan().heuristic),
        decision,
        objects,
        id: match proposals {
            [one] => Some(one.id()),
            _ => None,
        },
        what: Shown::join(what, "\n"),
    }
}

fn earlier(record: Record) -> EarlierIntent {
    EarlierIntent {
        action_id: record.action_id,
        time: record.time,
        operator: record.operator,
        object: record.object,
        decision: record.decision,
        heuristic: record.heuristic,
        action: record.action,
    }
}

/// What the operator is told about earlier intents without an outcome, before going on
/// (and what the report's table shows of them), wrapped to the layout width.
pub fn warnings(intents: &[EarlierIntent], style: &Style) -> Vec<Shown> {
    intents
        .iter()
        .map(|e| {
            let sudo = e
                .operator
                .sudo_user
                .as_ref()
                .map(|s| shown!(" (sudo from {})", s))
                .unwrap_or_default();
            shown!(
                "WARNING: an earlier resolve of {} has no outcome in the audit log: {} by {}@{}{}, decision {}{}, action {} (action id {}). That process may have died before its action, during it, or before recording what came of it; the state shown here was read now.",
                e.object,
                e.time.format("%Y-%m-%d %H:%M:%S UTC"),
                e.operator.user,
                e.operator.host,
                sudo,
                e.decision,
                if e.heuristic { " (heuristic)" } else { "" },
                e.action,
                e.action_id
            )
        })
        .map(|w| evidence::paragraph(&w, "WARNING: ".len(), style))
        .collect()
}

/// Test-only points (debug builds), named by `INDOUBT_FAILPOINT`: `NAME` ends the process
/// there, as a kill would (exit 86); `pause:NAME` waits there for a line on stdin, so a
/// test can resolve the object from another session first. The points: `after-intent`,
/// `before-check` (the re-read) and `before-apply` (after it, before the action).
pub(crate) fn failpoint(name: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Ok(set) = std::env::var("INDOUBT_FAILPOINT") else {
        return;
    };
    if set == name {
        crate::term::status(&shown!("indoubt: failpoint {}: exiting", name));
        std::process::exit(86);
    }
    if set.strip_prefix("pause:") == Some(name) {
        crate::term::status(&shown!(
            "indoubt: failpoint {}: waiting for a line on stdin",
            name
        ));
        let _ = std::io::stdin().read_line(&mut String::new());
    }
}
