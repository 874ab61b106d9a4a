//! `indoubt resolve pg <gid>`: evidence, the coordinator's decision, a confirmation that
//! cannot be given by reflex, then COMMIT/ROLLBACK PREPARED between two audit records.

use crate::audit::log;
use crate::audit::record::{Action, Outcome, Record, SourceAnswer};
use crate::cli::ResolvePgArgs;
use crate::context::Context;
use crate::error::hinted;
use crate::findings::{Finding, Severity};
use crate::gid::{self, DecodedGid};
use crate::pg::{prepared, session};
use crate::report::table::Style;
use crate::report::{self, Report, TableView};
use crate::resolve::confirm::{self, Answer};
use crate::resolve::decision::{self, Decision, Proposal};
use crate::resolve::pg_apply::{self, Applied};
use crate::resolve::sources;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::{RawText, Text};
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
    /// Other configured participants where the same global transaction is still prepared.
    participants_still_prepared: Vec<Text>,
    proposal: Option<Proposal>,
    decision: Option<Decision>,
    heuristic: bool,
    /// The exact statement run (or, with --dry-run, that would be run).
    statement: Option<String>,
    dry_run: bool,
    outcome: Option<Outcome>,
    audit_log: Option<String>,
}

pub async fn run(ctx: &Context, args: &ResolvePgArgs) -> Result<Severity> {
    let requested = match (args.commit, args.rollback) {
        (true, _) => Some(Decision::Commit),
        (_, true) => Some(Decision::Rollback),
        _ => None,
    };
    let target = ctx.pg_target_for(&args.target)?;
    let session = session::connect(&target.params, ctx.timeout).await?;
    let snapshot = prepared::collect(&session, &[], ctx.timeout).await?;
    let gid = which_gid(&args.gid, &snapshot.prepared_transactions)?;
    let decoded = gid::decode_raw(&gid);
    let mut data = ResolveReport {
        gid: gid.clone(),
        database: None,
        owner: None,
        age_seconds: None,
        age_xids: None,
        locks_by_mode: BTreeMap::new(),
        blocked_pids: Vec::new(),
        decoded_gid: decoded.clone(),
        decision_sources: Vec::new(),
        participants_still_prepared: Vec::new(),
        proposal: None,
        decision: None,
        heuristic: false,
        statement: None,
        dry_run: args.confirm.dry_run,
        outcome: None,
        audit_log: None,
    };
    let subject = text!["prepared transaction '", gid, "'"];
    let Some(xact) = snapshot
        .prepared_transactions
        .into_iter()
        .find(|x| x.gid == gid)
    else {
        let finding = Finding::new(
            Severity::Ok,
            "already_resolved",
            subject,
            "no prepared transaction has this GID: already resolved (or never prepared on this server)",
        )
        .evidence("source", "pg_prepared_xacts");
        return finish(ctx, &target, vec![finding], data);
    };
    data.database = Some(xact.database.clone());
    data.owner = xact.owner.clone();
    data.age_seconds = Some(xact.age_seconds);
    data.age_xids = Some(xact.age_xids);
    data.locks_by_mode = xact.locks_by_mode.clone();
    data.blocked_pids = xact.blocked_sessions.iter().map(|s| s.pid).collect();
    let subject = text![subject, " in ", xact.database];

    data.decision_sources = sources::ask_sources(ctx, &gid, &decoded).await;
    data.participants_still_prepared = participants(ctx, &gid, &decoded).await;
    let proposal = decision::propose(&data.decision_sources, xact.age_seconds);
    data.proposal = Some(proposal.clone());
    // Asking for what any source explicitly contradicts needs --force, agreement or not.
    let contradicted = requested.is_some_and(|r| {
        data.decision_sources
            .iter()
            .any(|a| a.answer == r.opposite().answer())
    });
    let chosen = match (requested, proposal.decision) {
        (Some(r), _) if contradicted && !args.force => {
            let finding = Finding::new(
                Severity::Warning,
                "decision_conflict",
                subject,
                format!(
                    "refused: {} — --{} would contradict it and break atomicity; --force makes it a recorded heuristic",
                    proposal.why,
                    r.name()
                ),
            );
            return finish(ctx, &target, vec![finding], data);
        }
        (Some(r), _) if proposal.wait && !args.force => {
            let finding = Finding::new(
                Severity::Warning,
                "coordinator_deciding",
                subject,
                format!(
                    "refused: {} — --{} now could contradict the coordinator's decision; --force makes it a recorded heuristic",
                    proposal.why,
                    r.name()
                ),
            );
            return finish(ctx, &target, vec![finding], data);
        }
        (Some(r), _) => r,
        // A runbook acts only on a decision it names: a proposal can change under it.
        (None, Some(p)) if args.confirm.yes => {
            let finding = Finding::new(
                Severity::Warning,
                "proposal_only",
                subject,
                format!(
                    "nothing done: the proposal is to {} ({}). --yes acts only on an explicit --{}",
                    p.name(),
                    proposal.why,
                    p.name()
                ),
            );
            return finish(ctx, &target, vec![finding], data);
        }
        (None, Some(p)) => p,
        (None, None) => {
            let finding = Finding::new(
                Severity::Warning,
                "no_decision",
                subject,
                format!("nothing done: {}. Choose --commit or --rollback to take that decision yourself", proposal.why),
            );
            return finish(ctx, &target, vec![finding], data);
        }
    };
    data.decision = Some(chosen);
    data.heuristic = proposal.decision != Some(chosen);
    // The statement runs in the transaction's own database, which a connection can only
    // name in UTF-8.
    let Some(xact_database) = xact.database.as_str() else {
        let finding = Finding::new(
            Severity::Warning,
            "database_not_utf8",
            subject,
            "nothing done: the transaction's database has a name that is not UTF-8, so indoubt cannot connect to it; run the statement there with psql",
        );
        return finish(ctx, &target, vec![finding], data);
    };
    let xact_params = target.params.with_dbname(xact_database);
    let sql = pg_apply::statement(chosen, &gid);
    data.statement = Some(sql.clone());

    if args.confirm.dry_run {
        let finding = Finding::new(
            Severity::Ok,
            "dry_run",
            subject,
            text!["dry run: would run ", sql, " in database ", xact.database],
        );
        return finish(ctx, &target, vec![finding], data);
    }
    let summary = summary_for_prompt(&data, &xact.database, xact.age_seconds);
    let token = match confirm::confirm(
        args.confirm.yes,
        args.confirm.reason.as_deref(),
        &confirm::Expected {
            shown: Shown::from(&gid),
            exact: gid.as_bytes(),
        },
        &summary,
    )
    .await?
    {
        Answer::Yes(token) => token,
        Answer::No(why) => {
            let finding = Finding::new(
                Severity::Warning,
                "not_confirmed",
                subject,
                format!("nothing done: {why}"),
            );
            return finish(ctx, &target, vec![finding], data);
        }
    };

    // The intent is durable before the statement runs; if it cannot be written, nothing runs.
    let audit_path = ctx.audit_log(args.confirm.audit_log.as_deref())?;
    data.audit_log = Some(audit_path.display().to_string());
    // From the intent on, a signal waits for the outcome to be recorded.
    let _shield = crate::interrupt::shield();
    let intent = log::record_intent(
        &audit_path,
        Record::intent(Action {
            target: target.report_target(),
            object: subject.plain(),
            action: sql.clone(),
            evidence: serde_json::json!({
                "database": xact.database,
                "owner": xact.owner,
                "prepared_at": xact.prepared_at,
                "age_seconds": xact.age_seconds,
                "age_xids": xact.age_xids,
                "locks_by_mode": xact.locks_by_mode,
                "blocked_pids": data.blocked_pids,
                "decoded_gid": decoded,
                "participants_still_prepared": data.participants_still_prepared,
                "proposal": proposal.why,
            }),
            decision_sources: data.decision_sources.clone(),
            decision: chosen.name().to_string(),
            heuristic: data.heuristic,
            reason: args.confirm.reason.clone(),
            ticket: args.confirm.ticket.clone(),
        }),
    )?;
    failpoint("after-intent");

    let applied = pg_apply::apply(&xact_params, &sql, ctx.timeout, token).await;
    let (severity, code, outcome) = match &applied {
        Ok(Applied::Done) => (
            Severity::Ok,
            "resolved",
            outcome("ok", format!("{sql} done"), None),
        ),
        Ok(Applied::AlreadyResolved(m)) => (
            Severity::Ok,
            "already_resolved",
            outcome("already_resolved", m.clone(), Some("42704")),
        ),
        Ok(Applied::Busy(m)) => (
            Severity::Warning,
            "busy",
            outcome(
                "busy",
                format!("another session is finishing it: {m}"),
                Some("55000"),
            ),
        ),
        // Without a SQLSTATE (a lost connection) the statement may or may not have run.
        Ok(Applied::Failed {
            code: None,
            message,
        }) => (
            Severity::Critical,
            "failed",
            outcome("unknown", message.clone(), None),
        ),
        Ok(Applied::Failed { code, message }) => (
            Severity::Critical,
            "failed",
            outcome("error", message.clone(), code.as_deref()),
        ),
        Err(e) => (
            Severity::Critical,
            "failed",
            outcome("unknown", format!("{e:#}"), None),
        ),
    };
    log::record_outcome(&audit_path, &intent, outcome.clone())?;
    data.outcome = Some(outcome.clone());
    let mut finding = Finding::new(
        severity,
        code,
        subject,
        format!(
            "{}{}",
            outcome.detail,
            if data.heuristic {
                " (HEURISTIC decision, recorded)"
            } else {
                ""
            }
        ),
    )
    .evidence("source", "pg_prepared_xacts, decision sources")
    .evidence("statement", sql)
    .evidence("action_id", intent.action_id.clone());
    if outcome.code.as_deref() == Some("42501") {
        finding = finding.advice(text![
            "connect as its owner (",
            super::pg_prepared::owner_text(&xact.owner),
            ") or a superuser"
        ]);
    }
    finish(ctx, &target, vec![finding], data)
}

fn outcome(status: &str, detail: String, code: Option<&str>) -> Outcome {
    Outcome {
        status: status.to_string(),
        detail,
        code: code.map(str::to_string),
    }
}

fn finish(
    ctx: &Context,
    target: &crate::context::PgTarget,
    findings: Vec<Finding>,
    data: ResolveReport,
) -> Result<Severity> {
    let report = Report::new("resolve pg", target.report_target(), findings, data);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// Test-only crash points (debug builds): `INDOUBT_FAILPOINT=after-intent` dies between
/// the intent record and the statement, as a killed process would.
fn failpoint(name: &str) {
    if cfg!(debug_assertions) && std::env::var("INDOUBT_FAILPOINT").as_deref() == Ok(name) {
        crate::term::status(&shown!("indoubt: failpoint {}: exiting", name));
        std::process::exit(86);
    }
}

/// Where else the same global transaction is still prepared (same GID, or same XA gtrid).
async fn participants(ctx: &Context, gid: &RawText, decoded: &DecodedGid) -> Vec<Text> {
    let gtrid = match decoded {
        DecodedGid::Xa(xa) => Some(xa.gtrid_hex.clone()),
        _ => None,
    };
    let mut found = Vec::new();
    for name in &ctx.config.config.resolve.participants {
        let outcome = async {
            let target = ctx.pg_target(Some(name))?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            let rows = session
                .query("SELECT gid, database::text FROM pg_prepared_xacts", &[])
                .await?;
            let mut here = Vec::new();
            for row in rows {
                let other: RawText = row.try_get(0)?;
                let database: RawText = row.try_get(1)?;
                let same_global = match (&gtrid, gid::decode_raw(&other)) {
                    (Some(g), DecodedGid::Xa(xa)) => &xa.gtrid_hex == g,
                    _ => other == *gid,
                };
                if same_global {
                    here.push(text![name, ": '", other, "' in ", database]);
                }
            }
            anyhow::Ok(here)
        }
        .await;
        match outcome {
            Ok(here) => found.extend(here),
            Err(e) => found.push(format!("{name}: not checked ({e:#})").into()),
        }
    }
    found
}

fn summary_for_prompt(data: &ResolveReport, database: &RawText, age_seconds: f64) -> Shown {
    let mut lines = vec![
        shown!(
            "prepared transaction '{}' in {}, owner {}",
            data.gid,
            database,
            super::pg_prepared::owner_text(&data.owner)
        ),
        shown!(
            "  age {} ({} xids held back), locks {}, blocks sessions {}",
            format_duration(seconds(age_seconds)),
            data.age_xids.unwrap_or(0),
            format!("{:?}", data.locks_by_mode),
            format!("{:?}", data.blocked_pids)
        ),
        shown!("  GID: {}", data.decoded_gid.summary()),
    ];
    for s in &data.decision_sources {
        lines.push(shown!(
            "  source {}: {} ({})",
            s.source,
            s.answer.name(),
            s.detail
        ));
    }
    for p in &data.participants_still_prepared {
        lines.push(shown!("  still prepared at {}", p));
    }
    if let Some(p) = &data.proposal {
        lines.push(shown!("  proposal: {}", p.why));
    }
    if let Some(sql) = &data.statement {
        lines.push(shown!(
            "  will run: {}{}",
            sql,
            if data.heuristic {
                "   (HEURISTIC decision)"
            } else {
                ""
            }
        ));
    }
    Shown::join(lines, "\n")
}

impl TableView for ResolveReport {
    fn tables(&self, _style: &Style) -> Vec<Shown> {
        let mut lines = Vec::new();
        if let (Some(db), Some(age)) = (&self.database, self.age_seconds) {
            lines.push(summary_for_prompt(self, db, age));
        }
        if let Some(o) = &self.outcome {
            lines.push(shown!("outcome: {} — {}", o.status, o.detail));
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
fn which_gid(arg: &str, xacts: &[prepared::PreparedXact]) -> Result<RawText> {
    let as_written = RawText::from(arg);
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
