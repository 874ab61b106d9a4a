//! `--all-branches`: the decision taken for the branch named, for every other branch of
//! its global transaction still prepared. Each sibling is checked against its own
//! decision sources, then handed to the resolution flow beside the branch named: one
//! confirmation for all, and for each its own intent, re-read, statement in its own
//! database on its own server, and outcome, whatever happened to the others.

use super::apply::{mysql, pg, AnyBranch, Branch, Decided};
use super::decision::{self, Choice, Decision, Proposal};
use super::siblings::{BranchState, Handling, MysqlSibling, Sibling, Siblings, THIS_SERVER};
use super::sources;
use crate::audit::record::{Outcome, SourceAnswer, Status};
use crate::context::Context;
use crate::gid;
use crate::report::evidence::Block;
use crate::settings::resolution::Sources;
use crate::shown;
use crate::term::Shown;
use futures_util::future::join_all;
use std::time::Duration;

/// Decides, for each sibling, whether `decision` may be applied to it: its own sources
/// asked, then the same rules as for the branch named (a source that recorded the
/// opposite, or a coordinator that may still be deciding, refuses it unless `--force`).
/// One that is not established to be of this global transaction, was read on a
/// standby, or is in a database indoubt cannot connect to is left alone too. Each one
/// left alone says why; each other one gets its statement.
pub async fn plan(
    ctx: &Context,
    configured: &Sources,
    found: &mut Siblings,
    decision: Decision,
    force: bool,
) {
    let answers = join_all(found.siblings.iter().map(|s| async move {
        match why_not(s) {
            Some(_) => None,
            None => {
                Some(sources::ask_sources(ctx, configured, &s.gid, &gid::decode_raw(&s.gid)).await)
            }
        }
    }))
    .await;
    for (s, answers) in found.siblings.iter_mut().zip(answers) {
        if let Some(why) = why_not(s) {
            s.handling.left_alone = Some(why);
            continue;
        }
        let Some(answers) = answers else { continue };
        let proposal = decision::propose(&answers, s.age_seconds);
        let statement = pg::statement(decision, &s.gid);
        decide(
            &mut s.handling,
            answers,
            proposal,
            decision,
            force,
            statement,
        );
    }
    for s in found.mysql_siblings.iter_mut() {
        s.handling.left_alone = mysql_why_not(s);
    }
    let answers = join_all(found.mysql_siblings.iter().map(|s| async move {
        if s.handling.left_alone.is_some() {
            return None;
        }
        let xid_text = crate::text::RawText::from(s.xid.sql());
        let decoded = crate::mysql::xa::decoded(&s.xid);
        Some(sources::ask_sources(ctx, configured, &xid_text, &decoded).await)
    }))
    .await;
    for (s, answers) in found.mysql_siblings.iter_mut().zip(answers) {
        let Some(answers) = answers else { continue };
        let proposal = decision::propose_aged(&answers, s.age.lower_bound(), s.age.at_least());
        let statement = mysql::statement(decision, &s.xid);
        decide(
            &mut s.handling,
            answers,
            proposal,
            decision,
            force,
            statement,
        );
    }
}

/// Whether `decision` may be applied to one sibling, by the same rules as for the branch
/// named and by its own sources' `answers`: its `statement`, or why it is left alone.
fn decide(
    h: &mut Handling,
    answers: Vec<SourceAnswer>,
    proposal: Proposal,
    decision: Decision,
    force: bool,
    statement: String,
) {
    match decision::choose(&proposal, &answers, Some(decision), force, true) {
        Choice::Act { heuristic, .. } => {
            h.statement = Some(statement);
            h.heuristic = Some(heuristic);
        }
        Choice::Refuse { message, .. } => h.left_alone = Some(message),
    }
    h.decision_sources = answers;
    h.proposal = Some(proposal);
}

/// Why a MySQL sibling cannot be resolved from here at all, if so.
fn mysql_why_not(s: &MysqlSibling) -> Option<String> {
    if s.handling.state != BranchState::Prepared {
        return Some(format!("it is {}", s.handling.state.name()));
    }
    if let Some(id) = s.attached_session {
        return Some(format!(
            "session {id} still holds it (its transaction manager may be finishing it)"
        ));
    }
    s.not_resolvable_there()
}

/// Why a sibling cannot be resolved from here at all, if so.
fn why_not(s: &Sibling) -> Option<String> {
    if !s.recognised_by.established() {
        return Some("only its GID text is the same, and its format does not say it is the same global transaction: resolve it on its own".into());
    }
    if s.on_standby {
        return Some("it was read on a standby: resolve it on its primary".into());
    }
    if s.handling.state != BranchState::Prepared {
        return Some(format!("it is {}", s.handling.state.name()));
    }
    if s.database.as_str().is_none() {
        return Some("its database has a name that is not UTF-8, so indoubt cannot connect to it; run the statement there with psql".into());
    }
    None
}

/// The siblings planned (in order: PostgreSQL's, then MySQL's), as the flow's subjects.
pub fn branches(found: &Siblings, timeout: Duration, decision: Decision) -> Vec<AnyBranch> {
    let global = found.global_transaction.as_ref().map(|g| g.key.clone());
    let mut out: Vec<AnyBranch> = pg_branches(found, timeout, decision, &global)
        .into_iter()
        .map(AnyBranch::Pg)
        .collect();
    for s in found.mysql_siblings.iter().filter(|s| mysql_to_run(s)) {
        let heuristic = s.handling.heuristic.unwrap_or(true);
        let xa = mysql::XaBranch::new(s.params.clone(), s.xid.clone());
        out.push(AnyBranch::Mysql(Branch::new(
            xa,
            Decided {
                target: s.target.clone(),
                timeout,
                decision,
                heuristic,
                evidence: serde_json::json!({
                    "xid": s.xid,
                    "age": s.age,
                    "decoded_xid": crate::mysql::xa::decoded(&s.xid),
                    "global_transaction": global,
                    "found_on": s.found_on,
                    "all_branches": true,
                    "proposal": s.handling.proposal.as_ref().map(|p| p.why.clone()),
                }),
                decision_sources: s.handling.decision_sources.clone(),
                summary: mysql_summary(s, decision, heuristic),
                server: Some(s.server_key()),
                place: Some(s.found_on.clone()),
            },
        )));
    }
    out
}

fn mysql_to_run(s: &MysqlSibling) -> bool {
    s.handling.statement.is_some() && s.handling.left_alone.is_none()
}

/// A MySQL sibling as the operator confirms it.
fn mysql_summary(s: &MysqlSibling, decision: Decision, heuristic: bool) -> Vec<Block> {
    let b = s.block(shown!(
        "and, with --all-branches, sibling XA branch on {}",
        s.found_on
    ));
    let statement = shown!("{} on {}", mysql::statement(decision, &s.xid), s.address);
    vec![decided(
        b,
        &s.handling.decision_sources,
        statement,
        heuristic,
    )]
}

/// A sibling's block, finished: what its sources say, the statement (whole) and the risk.
fn decided(
    mut b: Block,
    answers: &[crate::audit::record::SourceAnswer],
    statement: Shown,
    heuristic: bool,
) -> Block {
    for a in answers {
        b.field(
            "source",
            shown!("{}: {} ({})", a.source, a.answer.name(), a.detail),
        );
    }
    b.whole("will run", statement);
    if heuristic {
        b.alarm("HEURISTIC", Shown::lit(decision::HEURISTIC_RISK));
    }
    b
}

fn pg_branches(
    found: &Siblings,
    timeout: Duration,
    decision: Decision,
    global: &Option<String>,
) -> Vec<Branch<pg::Xact>> {
    planned(found)
        .filter_map(|s| {
            let database = s.database.as_str()?;
            let heuristic = s.handling.heuristic.unwrap_or(true);
            let global = global.clone();
            let xact = pg::Xact {
                params: s.params.with_dbname(database),
                gid: s.gid.clone(),
                xid: s.xid,
                database: s.database.clone(),
                owner: s.owner.clone(),
            };
            Some(Branch::new(
                xact,
                Decided {
                    target: s.target.clone(),
                    timeout,
                    decision,
                    heuristic,
                    evidence: serde_json::json!({
                        "database": s.database,
                        "owner": s.owner,
                        "prepared_at": s.prepared_at,
                        "age_seconds": s.age_seconds,
                        "decoded_gid": gid::decode_raw(&s.gid),
                        "global_transaction": global,
                        "found_on": s.found_on,
                        "all_branches": true,
                        "proposal": s.handling.proposal.as_ref().map(|p| p.why.clone()),
                    }),
                    decision_sources: s.handling.decision_sources.clone(),
                    summary: summary(s, decision, heuristic),
                    server: s.server_key(),
                    place: (s.found_on != THIS_SERVER).then(|| s.found_on.clone()),
                },
            ))
        })
        .collect()
}

/// The siblings to resolve, in the order [`branches`] hands them to the flow.
fn planned(found: &Siblings) -> impl Iterator<Item = &Sibling> {
    found.siblings.iter().filter(|s| to_run(s))
}

/// Planned by [`plan`] and not left alone.
fn to_run(s: &Sibling) -> bool {
    s.handling.statement.is_some()
        && s.handling.left_alone.is_none()
        && s.database.as_str().is_some()
}

/// A sibling as the operator confirms it: where it is, what its sources say, the statement.
fn summary(s: &Sibling, decision: Decision, heuristic: bool) -> Vec<Block> {
    let b = s.block(shown!(
        "and, with --all-branches, sibling in {} on {}",
        s.database,
        s.found_on
    ));
    let statement = shown!("{} in {}", pg::statement(decision, &s.gid), s.database);
    vec![decided(
        b,
        &s.handling.decision_sources,
        statement,
        heuristic,
    )]
}

/// The flow's outcomes for the siblings (in the order of [`branches`]), and what they
/// say of each one's state now.
pub fn record(
    found: &mut Siblings,
    outcomes: impl Iterator<Item = Option<Outcome>>,
    decision: Decision,
) {
    let pg = found
        .siblings
        .iter_mut()
        .filter(|s| to_run(s))
        .map(|s| &mut s.handling);
    let mysql = found
        .mysql_siblings
        .iter_mut()
        .filter(|s| mysql_to_run(s))
        .map(|s| &mut s.handling);
    for (h, outcome) in pg.chain(mysql).zip(outcomes) {
        if let Some(outcome) = outcome {
            h.state = state_after(&outcome, decision);
            h.outcome = Some(outcome);
        }
    }
}

fn state_after(outcome: &Outcome, decision: Decision) -> BranchState {
    match (outcome.status, decision) {
        (Status::Ok | Status::AlreadyResolved, Decision::Commit) => BranchState::Committed,
        (Status::Ok | Status::AlreadyResolved, Decision::Rollback) => BranchState::RolledBack,
        (Status::LostRace, _) => BranchState::Gone,
        // A branch's resolution is never partial (republishing is): not known.
        (Status::Unknown | Status::Mismatch | Status::Partial, _) => BranchState::Unknown,
        (Status::Busy | Status::Refused | Status::Error, _) => BranchState::Prepared,
    }
}
