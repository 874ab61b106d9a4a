//! `indoubt audit list` and `indoubt audit verify`.

use crate::audit::log;
use crate::audit::record::{Kind, Record};
use crate::cli::{AuditListArgs, AuditVerifyArgs};
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView, Target};
use crate::shown;
use crate::term::Shown;
use anyhow::Result;
use serde::Serialize;

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

pub fn list(ctx: &Context, args: &AuditListArgs) -> Result<Severity> {
    let path = ctx.audit_log(args.audit_log.as_deref())?;
    let verification = log::read_and_verify(&path)?;
    let since = args
        .since
        .map(|d| crate::units::time_before(chrono::Utc::now(), d));
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
    let mut findings = vec![Finding::new(
        Severity::Ok,
        "audit_records",
        "audit log",
        format!("{} record(s)", records.len()),
    )];
    if !verification.breaks.is_empty() {
        findings.push(Finding::new(
            Severity::Critical,
            "audit_chain_broken",
            "audit log",
            format!(
                "the chain is broken ({} place(s)): run `indoubt audit verify`",
                verification.breaks.len()
            ),
        ));
    }
    let report = Report::new(
        "audit list",
        target(&path),
        findings,
        AuditReport {
            audit_log: path.display().to_string(),
            records,
        },
    );
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

pub fn verify(ctx: &Context, args: &AuditVerifyArgs) -> Result<Severity> {
    let path = ctx.audit_log(args.audit_log.as_deref())?;
    let v = log::read_and_verify(&path)?;
    let mut findings = Vec::new();
    for b in &v.breaks {
        findings.push(
            Finding::new(
                Severity::Critical,
                "audit_chain_broken",
                "audit log",
                b.clone(),
            )
            .evidence("source", "hash chain"),
        );
    }
    for intent in &v.open_intents {
        findings.push(
            Finding::new(
                Severity::Warning,
                "outcome_unknown",
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
    if findings.is_empty() {
        findings.push(Finding::new(
            Severity::Ok,
            "audit_chain",
            "audit log",
            format!(
                "{} record(s), chain intact, every intent has its outcome",
                v.records.len()
            ),
        ));
    }
    let report = Report::new(
        "audit verify",
        target(&path),
        findings,
        AuditReport {
            audit_log: path.display().to_string(),
            records: v.records,
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
            let operator = match &r.operator.sudo_user {
                Some(sudo) => format!("{} (sudo by {sudo})@{}", r.operator.user, r.operator.host),
                None => format!("{}@{}", r.operator.user, r.operator.host),
            };
            table.add_row(vec![
                Cell::new(r.seq),
                Cell::new(shown!("{}", r.time.format("%Y-%m-%d %H:%M:%S"))),
                Cell::new(match r.kind {
                    Kind::Intent => "intent",
                    Kind::Outcome => "outcome",
                }),
                Cell::new(operator),
                Cell::new(&r.object),
                Cell::new(format!(
                    "{}{}",
                    r.decision,
                    if r.heuristic { " (heuristic)" } else { "" }
                )),
                Cell::new(
                    r.outcome
                        .as_ref()
                        .map(|o| o.status.clone())
                        .unwrap_or_else(|| "-".into()),
                ),
                Cell::new(
                    [r.reason.clone(), r.ticket.clone()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" / "),
                ),
            ]);
        }
        vec![table.render()]
    }
}
