//! `indoubt audit list`, `indoubt audit verify` and `indoubt audit reseal`.

use crate::audit::log::{self, Verification};
use crate::audit::record::{Kind, Record};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::next::{Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView, Target};
use crate::settings::command::AuditListSettings;
use crate::settings::targets::AuditLog;
use crate::shown;
use crate::term::Shown;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Serialize)]
struct AuditReport {
    audit_log: String,
    records: Vec<Record>,
}

fn target(path: &std::path::Path) -> Target {
    Target {
        name: None,
        kind: "audit log".into(),
        address: path.display().to_string(),
    }
}

/// The log as read and checked: the I/O half of `audit list` and `audit verify`, which
/// [`list_report`] and [`verify_report`] report.
pub(crate) struct AuditSnapshot {
    pub path: PathBuf,
    pub verification: Verification,
    /// When it was read: `--since` counts back from it.
    pub read_at: DateTime<Utc>,
}

fn read(audit_log: &AuditLog) -> Result<AuditSnapshot> {
    let path = audit_log.path()?;
    Ok(AuditSnapshot {
        path: path.to_path_buf(),
        verification: log::read_and_verify(path)?,
        read_at: Utc::now(),
    })
}

pub fn list(ctx: &Context, args: &AuditListSettings) -> Result<Severity> {
    let report = list_report(ctx, args, read(&args.log)?);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The records asked for, and whether the chain holds: pure, so the golden tests build
/// it as a run does.
fn list_report(
    ctx: &Context,
    args: &AuditListSettings,
    snapshot: AuditSnapshot,
) -> Report<AuditReport> {
    let (path, verification) = (snapshot.path.as_path(), snapshot.verification);
    let since = args
        .since
        .map(|d| crate::units::time_before(snapshot.read_at, d));
    let records: Vec<Record> = verification
        .records
        .into_iter()
        .filter(|r| since.is_none_or(|s| r.time >= s))
        .filter(|r| {
            args.object
                .as_ref()
                .is_none_or(|o| r.object.contains(o.as_str()))
        })
        .collect();
    let mut findings = vec![if verification.absent && verification.breaks.is_empty() {
        no_records_yet(path)
    } else {
        Finding::new(
            Severity::Ok,
            codes::AUDIT_RECORDS,
            "audit log",
            format!("{} record(s)", records.len()),
        )
    }];
    if !verification.breaks.is_empty() {
        let finding = Finding::new(
            Severity::Critical,
            codes::AUDIT_CHAIN_BROKEN,
            "audit log",
            format!(
                "the chain is broken ({} place(s)): `indoubt audit verify` (next) says where",
                verification.breaks.len()
            ),
        );
        findings.push(match verify_next(ctx, &args.log, path) {
            Some(next) => finding.next(next),
            None => finding,
        });
    }
    Report::new(
        "audit list",
        target(path),
        findings,
        AuditReport {
            audit_log: path.display().to_string(),
            records,
        },
    )
}

/// `indoubt audit verify`, of the log this run read (`--audit-log` repeated when it was
/// given; none for a path that is not UTF-8, which a shell word could not carry).
fn verify_next(ctx: &Context, log: &AuditLog, path: &std::path::Path) -> Option<Next> {
    let mut words = vec![Word::Lit("audit"), Word::Lit("verify")];
    if matches!(log.source, crate::settings::Source::Flag(_)) {
        words.extend([Word::Lit("--audit-log"), Word::Value(path.to_str()?)]);
    }
    Some(Next::indoubt(&ctx.invocation, &words))
}

/// No log at the path (and no head that says one was there): nothing resolved yet, OK.
fn no_records_yet(path: &std::path::Path) -> Finding {
    Finding::new(
        Severity::Ok,
        codes::AUDIT_NO_RECORDS,
        "audit log",
        format!(
            "no records yet: no audit log at {} (a resolution writes its first record there)",
            path.display()
        ),
    )
}

pub fn verify(ctx: &Context, audit_log: &AuditLog) -> Result<Severity> {
    let report = verify_report(read(audit_log)?);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// Every break of the chain, a head behind, intents without an outcome and reseals:
/// pure, so the golden tests build it as a run does.
fn verify_report(snapshot: AuditSnapshot) -> Report<AuditReport> {
    let (path, v) = (snapshot.path.as_path(), snapshot.verification);
    let mut findings = Vec::new();
    for b in &v.breaks {
        let mut finding = Finding::new(
            Severity::Critical,
            codes::AUDIT_CHAIN_BROKEN,
            "audit log",
            b.message.clone(),
        )
        .evidence("source", "hash chain");
        if let Some(advice) = b.advice {
            finding = finding.advice(advice);
        }
        findings.push(finding);
    }
    if let Some(behind) = &v.head_behind {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::AUDIT_HEAD_BEHIND,
                "audit log",
                behind.clone(),
            )
            .evidence("source", "hash chain and head file")
            .advice("free space if the disk is full; the next resolution brings the head up to date, or `indoubt audit reseal --reason TEXT` does now"),
        );
    }
    for intent in &v.open_intents {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::OUTCOME_UNKNOWN,
                intent.object.clone(),
                format!(
                    "intent {} ({}, {} at {}) has no outcome record: outcome unknown — check the object",
                    intent.seq,
                    intent.action,
                    intent.operator.user,
                    intent.time.format("%Y-%m-%d %H:%M:%S UTC")
                ),
            )
            .evidence("action_id", intent.action_id.clone()),
        );
    }
    if findings.is_empty() && v.absent {
        // Nothing to verify is not a verified trail: a log removed with its head looks
        // the same as one never written.
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::AUDIT_NO_TRAIL,
                "audit log",
                format!(
                    "no trail at {}: never written here, or removed",
                    path.display()
                ),
            )
            .advice("if resolutions were recorded here, the log and its head are gone: look for them (backups, `--audit-log`, `audit.path` in the config); if none ever were, this is the path the first one will write"),
        );
    } else if findings.is_empty() {
        findings.push(Finding::new(
            Severity::Ok,
            codes::AUDIT_CHAIN,
            "audit log",
            format!(
                "{} record(s), chain intact, every intent has its outcome",
                v.records.len()
            ),
        ));
    }
    // A reseal is not a fault, but what it costs is said every time.
    for r in v.records.iter().filter(|r| r.kind == Kind::Reseal) {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::AUDIT_RESEALED,
                "audit log",
                format!(
                    "record {}: the head was re-made by {} at {} (why: {}), when {}; records cut off before record {} can no longer be ruled out",
                    r.seq,
                    r.operator.user,
                    r.time.format("%Y-%m-%d %H:%M:%S UTC"),
                    r.reason.as_deref().unwrap_or("no reason given"),
                    r.evidence
                        .get("old_head_problem")
                        .and_then(|p| p.as_str())
                        .unwrap_or("the old head is not recorded"),
                    r.seq
                ),
            )
            .evidence("action_id", r.action_id.clone()),
        );
    }
    Report::new(
        "audit verify",
        target(path),
        findings,
        AuditReport {
            audit_log: path.display().to_string(),
            records: v.records,
        },
    )
}

pub fn reseal(ctx: &Context, audit_log: &AuditLog, reason: &str) -> Result<Severity> {
    let path = audit_log.path()?;
    let (code, message, records) = match log::reseal(path, reason, ctx.command_line.clone())? {
        log::Resealed::Nothing => (
            codes::AUDIT_HEAD_MATCHES,
            "the head names the last record: nothing to reseal, nothing done".to_string(),
            Vec::new(),
        ),
        log::Resealed::Repaired { last } => (
            codes::AUDIT_HEAD_REPAIRED,
            format!(
                "the head was one record behind (a failed or interrupted head write): it now names record {last}; the chain is intact, nothing was lost, no record was needed"
            ),
            Vec::new(),
        ),
        log::Resealed::Record(record) => (
            codes::AUDIT_RESEALED,
            format!(
                "chain intact through record {}; {}: record {} records the reseal, and the new head names it. Records cut off before it can no longer be ruled out",
                record.seq - 1,
                record
                    .evidence
                    .get("old_head_problem")
                    .and_then(|p| p.as_str())
                    .unwrap_or_default(),
                record.seq
            ),
            vec![*record],
        ),
    };
    let report = Report::new(
        "audit reseal",
        target(path),
        vec![Finding::new(Severity::Ok, code, "audit log", message)],
        AuditReport {
            audit_log: path.display().to_string(),
            records,
        },
    );
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

impl TableView for AuditReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.records.is_empty() {
            return Vec::new();
        }
        let mut table = style.table(&[
            "#", "TIME", "KIND", "OPERATOR", "OBJECT", "DECISION", "OUTCOME", "REASON",
        ]);
        for r in &self.records {
            let mut operator = match &r.operator.sudo_user {
                Some(sudo) => format!("{} (sudo by {sudo})@{}", r.operator.user, r.operator.host),
                None => format!("{}@{}", r.operator.user, r.operator.host),
            };
            if let Some(identity) = &r.identity {
                operator.push_str(&format!(" [{}]", identity.describe()));
            }
            table.add_row(vec![
                Cell::new(r.seq),
                Cell::new(shown!("{}", r.time.format("%Y-%m-%d %H:%M:%S"))),
                Cell::new(match r.kind {
                    Kind::Intent => "intent",
                    Kind::Outcome => "outcome",
                    Kind::Reseal => "reseal",
                }),
                Cell::new(operator),
                Cell::new(&r.object),
                Cell::new(format!(
                    "{}{}",
                    r.decision,
                    if r.heuristic { " (heuristic)" } else { "" }
                )),
                Cell::new(r.outcome.as_ref().map_or("-", |o| o.status.name())),
                // An empty cell would read as "not known": none was given.
                Cell::new(match (&r.reason, &r.ticket) {
                    (None, None) => "-".to_string(),
                    _ => [r.reason.clone(), r.ticket.clone()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" / "),
                }),
            ]);
        }
        vec![table.render()]
    }
}

#[cfg(test)]
mod golden;
