//! `indoubt resolve pg <gid>`: the transaction's evidence and what the decision sources
//! say, the decision, then COMMIT/ROLLBACK PREPARED through the resolution flow.

use super::pg_common::Addressing;
use crate::audit::record::{Outcome, SourceAnswer};
use crate::codes;
use crate::context::Context;
use crate::error::hinted;
use crate::findings::{Finding, Severity};
use crate::gid::{self, DecodedGid};
use crate::pg::{prepared, session};
use crate::report::evidence::{self, Block};
use crate::report::table::Style;
use crate::report::{self, layout, Report, TableView};
use crate::resolve::absent;
use crate::resolve::all_branches;
use crate::resolve::apply::AnyBranch;
use crate::resolve::apply::{
    self,
    pg::{Branch, Prepared},
};
use crate::resolve::decision::{self, Choice, Decision, Proposal};
use crate::resolve::flow::{self, EarlierIntent};
use crate::resolve::siblings::{self, Siblings, Via};
use crate::resolve::sources;
use crate::settings::resolution::ResolvePgSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::RawText;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Serialize)]
struct ResolveReport {
    /// The GID resolved, exactly (the argument read as written, or in indoubt's escaped form).
    gid: RawText,
    /// Null when no such prepared transaction exists (any more).
    database: Option<RawText>,
    owner: Option<RawText>,
    age_seconds: Option<f64>,
    age_xids: Option<i64>,
    locks_by_mode: BTreeMap<String, usize>,
    blocked_pids: Vec<i32>,
    decoded_gid: DecodedGid,
    decision_sources: Vec<SourceAnswer>,
    /// Its global transaction, the other branches of it and where they were sought.
    #[serde(flatten)]
    siblings: Siblings,
    proposal: Option<Proposal>,
    decision: Option<Decision>,
    heuristic: bool,
    /// The exact statement run (or, with --dry-run, that would be run).
    statement: Option<String>,
    dry_run: bool,
    /// The same decision for every other branch still prepared (`siblings[]`).
    all_branches: bool,
    outcome: Option<Outcome>,
    audit_log: Option<String>,
    /// Earlier resolves of this transaction whose intent has no outcome in the audit log.
    earlier_intents: Vec<EarlierIntent>,
    /// The confirmation prompt showed the evidence already (the table does not repeat it).
    #[serde(skip)]
    evidence_shown: bool,
}

impl ResolveReport {
    fn new(gid: RawText, dry_run: bool, all_branches: bool) -> ResolveReport {
        ResolveReport {
            decoded_gid: gid::decode_raw(&gid),
            gid,
            database: None,
            owner: None,
            age_seconds: None,
            age_xids: None,
            locks_by_mode: BTreeMap::new(),
            blocked_pids: Vec::new(),
            decision_sources: Vec::new(),
            siblings: Siblings::default(),
            proposal: None,
            decision: None,
            heuristic: false,
            statement: None,
            dry_run,
            all_branches,
            outcome: None,
            audit_log: None,
            earlier_intents: Vec::new(),
            evidence_shown: false,
        }
    }
}

pub async fn run(ctx: &Context, s: &ResolvePgSettings) -> Result<Severity> {
    let requested = s.requested;
    let target = &s.target;
    let session = session::connect(&target.params, ctx.timeout).await?;
    let snapshot = prepared::collect(&session, &[], ctx.timeout).await?;
    let gid = which_gid(&s.gid, &snapshot.prepared_transactions)?;
    // The cluster's identity: the audit trail knows it by that, whatever address.
    let server = crate::pg::siblings::identity(&session)
        .await
        .ok()
        .map(|i| i.key());
    let mut data = ResolveReport::new(gid.clone(), s.confirm.dry_run, s.all_branches);
    let subject = text!["prepared transaction '", gid, "'"];
    let present: Vec<String> = snapshot
        .prepared_transactions
        .iter()
        .map(|x| text::escape_bytes(x.gid.as_bytes()))
        .collect();
    let Some(xact) = snapshot
        .prepared_transactions
        .into_iter()
        .find(|x| x.gid == gid)
    else {
        // Gone here, but its siblings may not be.
        data.siblings = siblings::search(ctx, &s.sources, target, &session, &gid, None).await;
        let finding = absent::finding(
            s.confirm.audit_log.path().ok(),
            absent::Absent {
                subject,
                missing: "no prepared transaction has this GID",
                source: "pg_prepared_xacts",
                server,
                key: text::escape_bytes(gid.as_bytes()),
                named: absent::Named::Key,
                target: &target.report_target(),
                present,
                lister: absent::lister(&s.addressing, &["pg", "prepared"]),
            },
        );
        return finish(ctx, target, &s.addressing, vec![finding], data);
    };
    data.database = Some(xact.database.clone());
    data.owner = xact.owner.clone();
    data.age_seconds = Some(xact.age_seconds);
    data.age_xids = Some(xact.age_xids);
    data.locks_by_mode = xact.locks_by_mode.clone();
    data.blocked_pids = xact.blocked_sessions.iter().map(|s| s.pid).collect();
    let subject = text![subject, " in ", xact.database];

    data.decision_sources = sources::ask_sources(ctx, &s.sources, &gid, &data.decoded_gid).await;
    data.siblings = siblings::search(
        ctx,
        &s.sources,
        target,
        &session,
        &gid,
        Some(&xact.database),
    )
    .await;
    let proposal = decision::propose(&data.decision_sources, xact.age_seconds);
    data.proposal = Some(proposal.clone());
    let choice = decision::choose(
        &proposal,
        &data.decision_sources,
        requested,
        s.force,
        s.confirm.yes,
    );
    let (chosen, heuristic) = match choice {
        Choice::Act {
            decision,
            heuristic,
        } => (decision, heuristic),
        Choice::Refuse { code, message } => {
            let finding = Finding::new(Severity::Warning, code, subject, message);
            return finish(ctx, target, &s.addressing, vec![finding], data);
        }
    };
    data.decision = Some(chosen);
    data.heuristic = heuristic;
    // The statement runs in the transaction's own database, which a connection can only
    // name in UTF-8.
    let Some(xact_database) = xact.database.as_str() else {
        let finding = Finding::new(
            Severity::Warning,
            codes::DATABASE_NOT_UTF8,
            subject,
            "nothing done: the transaction's database has a name that is not UTF-8, so indoubt cannot connect to it; run the statement there with psql",
        );
        return finish(ctx, target, &s.addressing, vec![finding], data);
    };
    data.statement = Some(apply::pg::statement(chosen, &gid));
    if s.all_branches {
        all_branches::plan(ctx, &s.sources, &mut data.siblings, chosen, s.force).await;
    }
    let evidence = serde_json::json!({
        "database": xact.database,
        "owner": xact.owner,
        "prepared_at": xact.prepared_at,
        "age_seconds": xact.age_seconds,
        "age_xids": xact.age_xids,
        "locks_by_mode": xact.locks_by_mode,
        "blocked_pids": data.blocked_pids,
        "decoded_gid": data.decoded_gid,
        "global_transaction": data.siblings.global_transaction,
        "siblings": data.siblings.siblings,
        "all_branches": s.all_branches,
        "proposal": proposal.why,
    });
    let mut branches = vec![AnyBranch::Pg(Branch::new(Prepared {
        target: target.report_target(),
        params: target.params.with_dbname(xact_database),
        timeout: ctx.timeout,
        gid,
        xid: xact.xid,
        database: xact.database.clone(),
        owner: xact.owner.clone(),
        decision: chosen,
        heuristic,
        evidence,
        decision_sources: data.decision_sources.clone(),
        summary: evidence_blocks(&data, &xact.database, xact.age_seconds),
        server: server.clone(),
        place: None,
    }))];
    // --all-branches: every sibling planned, under the same confirmation.
    branches.extend(all_branches::branches(&data.siblings, ctx.timeout, chosen));
    let done = flow::run(ctx, &s.confirm, &mut branches).await?;
    let mut outcomes = done.outcomes.into_iter();
    data.outcome = outcomes.next().flatten();
    all_branches::record(&mut data.siblings, outcomes, chosen);
    data.audit_log = done.audit_log;
    data.earlier_intents = done.earlier_intents;
    data.evidence_shown = done.evidence_shown;
    finish(ctx, target, &s.addressing, done.findings, data)
}

fn finish(
    ctx: &Context,
    target: &crate::settings::targets::PgTarget,
    addressing: &Addressing,
    findings: Vec<Finding>,
    data: ResolveReport,
) -> Result<Severity> {
    let report = report_of(target, addressing, findings, data);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The report: the flow's findings and those about the transaction's other branches.
fn report_of(
    target: &crate::settings::targets::PgTarget,
    addressing: &Addressing,
    mut findings: Vec<Finding>,
    data: ResolveReport,
) -> Report<ResolveReport> {
    // The dry run of --all-branches: on this server addressed as this run addressed it
    // (a password never repeated), or on a participants target by its config name.
    let next = |via: &Via<'_>| siblings::next_through(addressing, via);
    findings.extend(siblings::findings(
        &data.siblings,
        &siblings::Resolution {
            named: data
                .database
                .is_some()
                .then_some(Via::Pg(&data.gid, siblings::THIS_SERVER)),
            all_branches: data.all_branches,
            acted: data.outcome.is_some(),
            next: &next,
        },
    ));
    Report::new("resolve pg", target.report_target(), findings, data)
}

/// The evidence the operator confirms, as blocks: the transaction, its decoded GID, what
/// each source says, the proposal, the statement (whole) and the risk, then its siblings.
fn evidence_blocks(data: &ResolveReport, database: &RawText, age_seconds: f64) -> Vec<Block> {
    // The GID on a line of its own, whole, to be copied; the title stays short.
    let mut xact = Block::new(shown!("prepared transaction in {}", database));
    xact.whole("GID", shown!("'{}'", data.gid))
        .field(
            "owner",
            Shown::from(&crate::pg::prepared::owner_text(&data.owner)),
        )
        .field(
            "age",
            shown!(
                "{} ({} xids held back)",
                format_duration(seconds(age_seconds)),
                data.age_xids.unwrap_or(0)
            ),
        )
        .field("locks", locks_text(&data.locks_by_mode))
        .field("blocks", blocked_text(&data.blocked_pids))
        .field("decoded", data.decoded_gid.summary());
    for s in &data.decision_sources {
        xact.field(
            "source",
            shown!("{}: {} ({})", s.source, s.answer.name(), s.detail),
        );
    }
    if let Some(p) = &data.proposal {
        xact.field("proposal", shown!("{}", p.why));
    }
    if let Some(sql) = &data.statement {
        xact.whole("will run", shown!("{}", sql));
        if data.heuristic {
            xact.alarm("HEURISTIC", Shown::lit(decision::HEURISTIC_RISK));
        }
    }
    let mut blocks = vec![xact];
    blocks.extend(siblings::summary(&data.siblings, data.all_branches));
    blocks
}

/// Locks by mode, most held first: `2 RowExclusiveLock, 1 ExclusiveLock`.
fn locks_text(by_mode: &BTreeMap<String, usize>) -> Shown {
    let mut modes: Vec<_> = by_mode.iter().collect();
    modes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    match modes.is_empty() {
        true => Shown::lit("none"),
        false => Shown::join(
            modes.iter().map(|(m, n)| shown!("{} {}", n, m.as_str())),
            ", ",
        ),
    }
}

/// The sessions waiting on its locks: `session 471`, `sessions 471, 502`, or none.
fn blocked_text(pids: &[i32]) -> Shown {
    let list = Shown::join(pids.iter().map(|p| shown!("{}", p)), ", ");
    match pids.len() {
        0 => Shown::lit("no session"),
        1 => shown!("session {}", list),
        _ => shown!("sessions {}", list),
    }
}

impl TableView for ResolveReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = Vec::new();
        // Shown once: not again after the prompt showed it.
        if !self.evidence_shown {
            let blocks = match (&self.database, self.age_seconds) {
                (Some(db), Some(age)) => evidence_blocks(self, db, age),
                _ => siblings::summary(&self.siblings, self.all_branches),
            };
            if !blocks.is_empty() {
                lines.push(evidence::render(&blocks, style));
            }
            lines.extend(flow::warnings(&self.earlier_intents, style));
        }
        if let Some(o) = &self.outcome {
            // Wrapped to the width under its label, the statement it names kept whole.
            let label = format!("outcome: {} — ", o.status.name());
            let detail = Shown::text(&o.detail);
            let keep = self
                .statement
                .as_deref()
                .map(Shown::text)
                .unwrap_or_default();
            let room = usize::from(style.width)
                .saturating_sub(layout::width(&label))
                .max(20);
            let indent = format!("\n{}", " ".repeat(layout::width(&label)));
            let text = layout::wrap_keeping(detail.as_str(), keep.as_str(), room).join(&indent);
            // Escaped text re-broken at its spaces, after a program label: still escaped.
            #[allow(clippy::disallowed_methods)]
            lines.push(Shown::__from_format(format_args!("{label}{text}")));
        }
        if let Some(path) = &self.audit_log {
            lines.push(shown!("recorded in {}", path));
        }
        lines
    }
}

/// Which GID the argument names. It is read two ways: as written, and in the escaped
/// form tables show (`\xff` for a byte that is not UTF-8, `\\` for a backslash), so a
/// GID copied from either psql or indoubt works. When both readings name a prepared
/// transaction, and not the same one, nothing is guessed: the error says how to write each.
fn which_gid(arg: &[u8], xacts: &[prepared::PreparedXact]) -> Result<RawText> {
    let as_written = RawText::from(arg.to_vec());
    // Bytes that are not UTF-8 are the GID itself: the escaped form is text.
    let Ok(arg) = std::str::from_utf8(arg) else {
        return Ok(as_written);
    };
    let Ok(unescaped) = crate::text::unescape(arg).map(RawText::from) else {
        return Ok(as_written);
    };
    if unescaped == as_written {
        return Ok(as_written);
    }
    let exists = |g: &RawText| xacts.iter().any(|x| x.gid == *g);
    Ok(match (exists(&as_written), exists(&unescaped)) {
        (true, true) => {
            // Spelled with its first byte as \xHH, the escaped reading names nothing else.
            let bytes = unescaped.as_bytes();
            let other = format!(
                "\\x{:02x}{}",
                bytes[0],
                crate::text::escape_bytes(&bytes[1..])
            );
            return Err(hinted(
                format!(
                    "the GID argument names two prepared transactions: '{}' as written, and '{}' in indoubt's escaped form",
                    crate::text::escape(arg),
                    crate::text::escape_bytes(bytes)
                ),
                format!(
                    "for the first pass {}, for the second {}",
                    crate::text::escape_bytes(as_written.as_bytes()),
                    other
                ),
            ));
        }
        (true, false) => as_written,
        // Neither: "already resolved" holds for both readings.
        (false, _) => unescaped,
    })
}

#[cfg(test)]
mod golden;
