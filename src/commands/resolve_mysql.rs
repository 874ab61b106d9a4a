//! `indoubt resolve mysql XID`: the evidence of one prepared XA branch of MySQL or
//! MariaDB (its age as far as it is known, locks, sessions behind it, decoded XID), what
//! every decision source says, its siblings on PostgreSQL and MySQL participants, and the
//! XA COMMIT or XA ROLLBACK the flow confirms, records and runs (`--all-branches`: for
//! every branch of its global transaction).

use super::mysql_xa::{branch_rows, holder_advice, holder_text, subject};
use super::pg_common::Addressing;
use crate::audit::record::{Outcome, SourceAnswer};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::gid::DecodedGid;
use crate::mysql::session::{self, Mode};
use crate::mysql::xa::{self, decoded, Branch, Xid};
use crate::report::evidence::{self, Block};
use crate::report::table::Style;
use crate::report::{self, Report, TableView};
use crate::resolve::all_branches;
use crate::resolve::apply::{mysql as apply, AnyBranch};
use crate::resolve::decision::{self, Choice, Decision, Proposal};
use crate::resolve::flow::{self, EarlierIntent};
use crate::resolve::siblings::{self, Siblings, Via};
use crate::resolve::sources;
use crate::settings::resolution::ResolveMysqlSettings;
use crate::shown;
use crate::term::Shown;
use crate::text::{self, RawText};
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
struct ResolveMysqlReport {
    xid: Xid,
    /// The branch as read; null when XA RECOVER does not list it (any more).
    branch: Option<Branch>,
    decoded_xid: DecodedGid,
    decision_sources: Vec<SourceAnswer>,
    #[serde(flatten)]
    siblings: Siblings,
    proposal: Option<Proposal>,
    decision: Option<Decision>,
    heuristic: bool,
    /// The exact statement run (or, with --dry-run, that would be run).
    statement: Option<String>,
    dry_run: bool,
    all_branches: bool,
    outcome: Option<Outcome>,
    audit_log: Option<String>,
    earlier_intents: Vec<EarlierIntent>,
    #[serde(skip)]
    evidence_shown: bool,
}

pub async fn run(ctx: &Context, s: &ResolveMysqlSettings) -> Result<Severity> {
    let target = &s.target;
    let mut session = session::connect(&target.params, ctx.timeout, Mode::ReadOnly).await?;
    let snapshot = xa::collect(&mut session).await;
    session.close().await;
    let snapshot = snapshot?;
    let xid = s.xid.clone();
    let mut data = ResolveMysqlReport {
        decoded_xid: decoded(&xid),
        xid: xid.clone(),
        branch: None,
        decision_sources: Vec::new(),
        siblings: Siblings::default(),
        proposal: None,
        decision: None,
        heuristic: false,
        statement: None,
        dry_run: s.confirm.dry_run,
        all_branches: s.all_branches,
        outcome: None,
        audit_log: None,
        earlier_intents: Vec::new(),
        evidence_shown: false,
    };
    data.siblings = siblings::search_from_mysql(ctx, &s.sources, target, &snapshot, &xid).await;
    let Some(branch) = snapshot.branches.iter().find(|b| b.xid == xid).cloned() else {
        let finding = crate::resolve::absent::finding(
            s.confirm.audit_log.path().ok(),
            crate::resolve::absent::Absent {
                subject: subject(&xid),
                missing: "XA RECOVER lists no prepared branch with this XID",
                source: "XA RECOVER",
                server: Some(snapshot.server.key()),
                key: text::escape_bytes(xid.sql().as_bytes()),
                named: crate::resolve::absent::Named::Key,
                target: &target.report_target(),
                present: snapshot
                    .branches
                    .iter()
                    .map(|b| text::escape_bytes(b.xid.sql().as_bytes()))
                    .collect(),
                lister: crate::resolve::absent::lister(&s.addressing, &["mysql", "xa"]),
            },
        );
        return finish(ctx, s, vec![finding], data);
    };
    data.branch = Some(branch.clone());
    let xid_text = RawText::from(xid.sql());
    data.decision_sources =
        sources::ask_sources(ctx, &s.sources, &xid_text, &data.decoded_xid).await;
    let proposal = decision::propose_aged(
        &data.decision_sources,
        branch.age.lower_bound(),
        branch.age.at_least(),
    );
    data.proposal = Some(proposal.clone());
    if let Some(why) = snapshot.server.not_resolvable_here() {
        let finding = Finding::new(
            Severity::Warning,
            codes::BRANCH_LEFT_ALONE,
            subject(&xid),
            format!("nothing done: {why}"),
        )
        .evidence("source", "SHOW REPLICA STATUS, @@read_only");
        return finish(ctx, s, vec![finding], data);
    }
    if let Some(id) = branch.attached_session {
        let holder = match &branch.holder {
            Some(h) => h.text(),
            None => format!("session {id}"),
        };
        let finding = Finding::new(
            Severity::Warning,
            codes::BUSY,
            subject(&xid),
            format!("nothing done: {holder} still holds it (its transaction manager may be finishing it); a branch is resolved once no session holds it"),
        )
        .evidence("source", "performance_schema.events_transactions_current, performance_schema.threads")
        .evidence("attached_session", id)
        .evidence("holder", serde_json::to_value(&branch.holder).unwrap_or_default())
        .advice(holder_advice(&branch).unwrap_or_default());
        return finish(ctx, s, vec![finding], data);
    }
    let choice = decision::choose(
        &proposal,
        &data.decision_sources,
        s.requested,
        s.force,
        s.confirm.yes,
    );
    let (chosen, heuristic) = match choice {
        Choice::Act {
            decision,
            heuristic,
        } => (decision, heuristic),
        Choice::Refuse { code, message } => {
            let finding = Finding::new(Severity::Warning, code, subject(&xid), message);
            return finish(ctx, s, vec![finding], data);
        }
    };
    data.decision = Some(chosen);
    data.heuristic = heuristic;
    data.statement = Some(apply::statement(chosen, &xid));
    if s.all_branches {
        all_branches::plan(ctx, &s.sources, &mut data.siblings, chosen, s.force).await;
    }
    let evidence = serde_json::json!({
        "xid": xid,
        "age": branch.age,
        "rows_locked": branch.rows_locked,
        "rows_modified": branch.rows_modified,
        "rows_modified_between": branch.rows_modified_between,
        "blocked_sessions": branch.blocked_sessions.iter().map(|w| w.session).collect::<Vec<_>>(),
        "decoded_xid": data.decoded_xid,
        "global_transaction": data.siblings.global_transaction,
        "siblings": data.siblings.siblings,
        "mysql_siblings": data.siblings.mysql_siblings,
        "all_branches": s.all_branches,
        "proposal": proposal.why,
    });
    let mut branches = vec![AnyBranch::Mysql(apply::Branch::new(apply::Prepared {
        target: target.report_target(),
        params: target.params.clone(),
        timeout: ctx.timeout,
        xid: xid.clone(),
        decision: chosen,
        heuristic,
        evidence,
        decision_sources: data.decision_sources.clone(),
        summary: evidence_blocks(&data),
        server: Some(snapshot.server.key()),
        place: None,
    }))];
    branches.extend(all_branches::branches(&data.siblings, ctx.timeout, chosen));
    let done = flow::run(ctx, &s.confirm, &mut branches).await?;
    let mut outcomes = done.outcomes.into_iter();
    data.outcome = outcomes.next().flatten();
    all_branches::record(&mut data.siblings, outcomes, chosen);
    data.audit_log = done.audit_log;
    data.earlier_intents = done.earlier_intents;
    data.evidence_shown = done.evidence_shown;
    finish(ctx, s, done.findings, data)
}

fn finish(
    ctx: &Context,
    s: &ResolveMysqlSettings,
    findings: Vec<Finding>,
    data: ResolveMysqlReport,
) -> Result<Severity> {
    let report = report_of(s, findings, data);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The report from the findings and what was read: pure, so the golden tests build it as
/// a run does.
fn report_of(
    s: &ResolveMysqlSettings,
    mut findings: Vec<Finding>,
    data: ResolveMysqlReport,
) -> Report<ResolveMysqlReport> {
    let addressing: &Addressing = &s.addressing;
    // Through this branch while a session holds it, resolve refuses (busy): no next.
    let held = data
        .branch
        .as_ref()
        .is_some_and(|b| b.attached_session.is_some());
    let next = |via: &Via<'_>| match via {
        Via::Mysql(_, siblings::THIS_SERVER) if held => None,
        via => siblings::next_through(addressing, via),
    };
    findings.extend(siblings::findings(
        &data.siblings,
        &siblings::Resolution {
            named: data
                .branch
                .is_some()
                .then_some(Via::Mysql(&data.xid, siblings::THIS_SERVER)),
            all_branches: data.all_branches,
            acted: data.outcome.is_some(),
            next: &next,
        },
    ));
    Report::new("resolve mysql", s.target.report_target(), findings, data)
}

/// The evidence the operator confirms: the branch, its decoded XID, what each source
/// says, the proposal, the statement (whole) and the risk, then its siblings.
fn evidence_blocks(data: &ResolveMysqlReport) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(b) = &data.branch {
        let mut block = Block::new(Shown::lit("prepared XA branch"));
        block
            .whole("XID", Shown::text(&data.xid.sql()))
            .field("age", shown!("{} ({})", b.age.text(), b.age.source))
            .field("session", Shown::text(&holder_text(b)))
            .field(
                "locks",
                match branch_rows(b) {
                    Some(rows) => shown!("{}, locked until it ends", rows),
                    None => Shown::lit("unknown"),
                },
            )
            .field(
                "blocks",
                match b.blocked_sessions.len() {
                    0 => Shown::lit("no session"),
                    _ => Shown::join(
                        b.blocked_sessions
                            .iter()
                            .map(|w| shown!("session {}", w.session)),
                        ", ",
                    ),
                },
            )
            .field("decoded", data.decoded_xid.summary());
        for s in &data.decision_sources {
            block.field(
                "source",
                shown!("{}: {} ({})", s.source, s.answer.name(), s.detail),
            );
        }
        if let Some(p) = &data.proposal {
            block.field("proposal", shown!("{}", p.why));
        }
        if let Some(sql) = &data.statement {
            block.whole("will run", Shown::text(sql));
            if data.heuristic {
                block.alarm("HEURISTIC", Shown::lit(decision::HEURISTIC_RISK));
            }
        }
        blocks.push(block);
    }
    blocks.extend(siblings::summary(&data.siblings, data.all_branches));
    blocks
}

impl TableView for ResolveMysqlReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = Vec::new();
        if !self.evidence_shown {
            let blocks = evidence_blocks(self);
            if !blocks.is_empty() {
                lines.push(evidence::render(&blocks, style));
            }
            lines.extend(flow::warnings(&self.earlier_intents, style));
        }
        if let Some(o) = &self.outcome {
            lines.push(shown!("outcome: {} — {}", o.status.name(), o.detail));
        }
        if let Some(path) = &self.audit_log {
            lines.push(shown!("recorded in {}", path));
        }
        lines
    }
}

#[cfg(test)]
mod golden;
