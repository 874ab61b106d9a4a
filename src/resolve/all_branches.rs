//! `--all-branches`: the decision taken for one branch applied to every other branch of
//! its global transaction still prepared. Each is checked against its own decision
//! sources first; one confirmation covers them all; each gets its own intent and outcome
//! in the audit log, and its own outcome in the report, whatever happened to the others.

use super::confirm::Confirmed;
use super::decision::{self, Decision};
use super::pg_apply;
use super::siblings::{BranchState, Sibling, Siblings};
use super::sources;
use crate::audit::log;
use crate::audit::record::{Action, Record};
use crate::context::Context;
use crate::gid;
use crate::text::RawText;
use futures_util::future::join_all;
use std::path::Path;

/// Decides, for each sibling, what `--all-branches` will do: run `decision`'s statement
/// (its sources asked, and whether that is a heuristic for it), or leave it alone and
/// why: not established to be of this global transaction, on a standby, in a database
/// indoubt cannot connect to, or a source that contradicts the decision or says the
/// coordinator is still deciding (unless `--force`, as for the branch named).
pub async fn plan(ctx: &Context, found: &mut Siblings, decision: Decision, force: bool) {
    let answers = join_all(found.siblings.iter().map(|s| async move {
        match why_not(s) {
            Some(_) => None,
            None => Some(sources::ask_sources(ctx, &s.gid, &gid::decode_raw(&s.gid)).await),
        }
    }))
    .await;
    for (s, answers) in found.siblings.iter_mut().zip(answers) {
        if let Some(why) = why_not(s) {
            s.left_alone = Some(why);
            continue;
        }
        let Some(answers) = answers else { continue };
        let proposal = decision::propose(&answers, s.age_seconds);
        let contradicted = answers
            .iter()
            .any(|a| a.answer == decision.opposite().answer());
        s.left_alone = match (contradicted, proposal.wait, force) {
            (true, _, false) => Some(format!(
                "{} — --{} would contradict it; --force makes it a recorded heuristic",
                proposal.why,
                decision.name()
            )),
            (_, true, false) => Some(proposal.why.clone()),
            _ => None,
        };
        if s.left_alone.is_none() {
            s.statement = Some(pg_apply::statement(decision, &s.gid));
            s.heuristic = Some(proposal.decision != Some(decision));
        }
        s.decision_sources = answers;
        s.proposal = Some(proposal);
    }
}

/// Why a sibling cannot be resolved from here at all, if so.
fn why_not(s: &Sibling) -> Option<String> {
    if !s.recognised_by.established() {
        return Some("only its GID text is the same, and its format does not say it is the same global transaction: resolve it on its own".into());
    }
    if s.on_standby {
        return Some("it was read on a standby: resolve it on its primary".into());
    }
    if s.state != BranchState::Prepared {
        return Some(format!("it is {}", s.state.name()));
    }
    if s.database.as_str().is_none() {
        return Some("its database has a name that is not UTF-8, so indoubt cannot connect to it; run the statement there with psql".into());
    }
    None
}

/// What every branch's audit records share.
pub struct Audit<'a> {
    pub path: &'a Path,
    pub decision: Decision,
    /// The branch the command named.
    pub origin: &'a RawText,
    pub reason: Option<String>,
    pub ticket: Option<String>,
}

/// Resolves every planned sibling in turn: the intent made durable, the statement run
/// alone in the branch's own database, the outcome recorded. A branch that fails does
/// not stop the next; an audit log that cannot be written does (nothing may run without
/// its intent), and the branches after it are reported as not attempted.
pub async fn apply(ctx: &Context, found: &mut Siblings, audit: &Audit<'_>, confirmed: &Confirmed) {
    let global = found.global_transaction.as_ref().map(|g| g.key.clone());
    let mut stopped: Option<String> = None;
    for s in found.siblings.iter_mut() {
        let (Some(sql), None) = (s.statement.clone(), &s.left_alone) else {
            continue;
        };
        if let Some(why) = &stopped {
            s.left_alone = Some(format!("not attempted: {why}"));
            continue;
        }
        let Some(database) = s.database.as_str() else {
            continue;
        };
        let params = s.params.with_dbname(database);
        let object = crate::text!["prepared transaction '", s.gid, "' in ", s.database].plain();
        let intent = log::record_intent(
            audit.path,
            Record::intent(Action {
                target: s.target.clone(),
                object,
                action: sql.clone(),
                evidence: serde_json::json!({
                    "database": s.database,
                    "owner": s.owner,
                    "prepared_at": s.prepared_at,
                    "age_seconds": s.age_seconds,
                    "decoded_gid": gid::decode_raw(&s.gid),
                    "global_transaction": global,
                    "all_branches_of": audit.origin,
                    "found_on": s.found_on,
                    "proposal": s.proposal.as_ref().map(|p| p.why.clone()),
                }),
                decision_sources: s.decision_sources.clone(),
                decision: audit.decision.name().to_string(),
                heuristic: s.heuristic.unwrap_or(true),
                reason: audit.reason.clone(),
                ticket: audit.ticket.clone(),
            }),
        );
        let intent = match intent {
            Ok(intent) => intent,
            Err(e) => {
                let why = format!("{e:#}");
                s.left_alone = Some(format!("not attempted: {why}"));
                stopped = Some(why);
                continue;
            }
        };
        s.action_id = Some(intent.action_id.clone());
        let applied = pg_apply::apply(&params, &sql, ctx.timeout, confirmed).await;
        let judged = pg_apply::judge(&applied, &sql);
        s.state = match (judged.outcome.status.as_str(), audit.decision) {
            ("ok", Decision::Commit) => BranchState::Committed,
            ("ok", Decision::Rollback) => BranchState::RolledBack,
            ("already_resolved", _) => BranchState::Gone,
            ("unknown", _) => BranchState::Unknown,
            _ => BranchState::Prepared,
        };
        s.outcome = Some(judged.outcome.clone());
        if let Err(e) = log::record_outcome(audit.path, &intent, judged.outcome) {
            let why = format!("{e:#}");
            s.audit_error = Some(why.clone());
            stopped = Some(format!("the audit log could not be written: {why}"));
        }
    }
}
