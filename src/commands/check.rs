//! `indoubt check`: every check the config enables, on every configured target, concurrently, under one deadline.

use super::check_output;
use crate::cli::OutputFormat;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::table::{Cell, Style};
use crate::report::{self, IncidentView, Report, TableView, Target};
use crate::settings::command::CheckSettings;
use crate::settings::probe::Run;
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::{anyhow, Result};
use futures_util::StreamExt;
pub(crate) use outcome::{CheckOutcome, CheckReport, Incident, IncidentObject};
use std::time::Instant;

/// Where a finding of `check` was found: the config name of its target.
fn target_of(f: &Finding) -> String {
    f.evidence
        .get("target")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The findings that are not OK as incidents (findings::group, by target and object).
fn incidents(findings: &[Finding]) -> Vec<Incident> {
    crate::findings::group(findings, target_of)
        .into_iter()
        .map(|group| {
            let members = || group.findings.iter().map(|&i| &findings[i]);
            let worst = &findings[group.findings[0]];
            Incident {
                severity: group.severity,
                object: members().find_map(|f| {
                    f.object.as_ref().map(|o| IncidentObject {
                        kind: o.kind,
                        target: target_of(f),
                        name: o.name.clone(),
                    })
                }),
                title: check_output::located_subject(worst),
                next: members().find_map(|f| f.next.clone()),
                findings: group.findings,
            }
        })
        .collect()
}

/// What one check hands back to be merged: where it looked and what it found.
struct Gathered {
    address: String,
    findings: Vec<Finding>,
    measures: Vec<crate::metrics::Measure>,
}

pub async fn run(ctx: &Context, args: &CheckSettings) -> Result<Severity> {
    let mut report = build(ctx, args).await?;
    if let Some(path) = &args.prometheus_file {
        // Whole or not at all (the collector never reads half a file), never through a
        // link another user of a shared textfile directory planted.
        let text = check_output::prometheus(&report);
        crate::fsafe::replace(path, crate::fsafe::Kind::Shared, "Prometheus file", |w| {
            w.write_all(text.as_bytes())
        })?;
    }
    // The monitoring formats always carry every check (a scrape must see the OK ones too);
    // --quiet trims what a person or a script reads.
    match ctx.output {
        OutputFormat::Nagios => return write(&check_output::nagios(&report), report.status),
        OutputFormat::Prometheus => {
            return write(&check_output::prometheus(&report), report.status)
        }
        _ => {}
    }
    if args.quiet {
        if report.status == Severity::Ok && ctx.output.is_table() {
            // Nothing at all, so cron sends no mail.
            return Ok(report.status);
        }
        report.findings.retain(|f| f.severity != Severity::Ok);
        report.data.checks.retain(|c| c.status != Severity::Ok);
    }
    present(&mut report, ctx.output.is_table());
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The findings grouped into incidents; for a table, each subject says where it was found.
fn present(report: &mut Report<CheckReport>, table: bool) {
    report.data.incidents = incidents(&report.findings);
    if table {
        // The table names where each finding was found (the incidents were grouped above).
        for f in &mut report.findings {
            f.subject = check_output::located_subject(f);
        }
    }
}

fn write(text: &str, status: Severity) -> Result<Severity> {
    report::write_stdout(text)?;
    Ok(status)
}

/// Every planned check, at most `concurrency` at once, all under one deadline counted
/// from the start of the run (a check that could not start before it is UNKNOWN too).
pub(crate) async fn build(ctx: &Context, args: &CheckSettings) -> Result<Report<CheckReport>> {
    let started = Instant::now();
    let _shared = ctx.share_reads();
    let deadline = args.deadline;
    let deadline_at = tokio::time::Instant::now() + deadline;
    let runs = args.plan.iter().map(|planned| async move {
        let began = Instant::now();
        let outcome = if tokio::time::Instant::now() >= deadline_at {
            Err(crate::error::hinted(
                format!(
                    "did not start within the {} deadline: the checks before it took all of it",
                    format_duration(deadline)
                ),
                "raise --concurrency (checks at once) or --deadline",
            ))
        } else {
            match tokio::time::timeout_at(deadline_at, gather(ctx, &planned.settings)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(anyhow!(
                    "did not finish within the {} deadline",
                    format_duration(deadline)
                )),
            }
        };
        (
            planned.check,
            planned.target.clone(),
            began.elapsed(),
            outcome,
        )
    });
    // Unordered: a check that waits (a server that does not answer) must not keep the
    // ones after it from starting while the others finish; the plan's order is restored
    // after.
    let mut results: Vec<_> = futures_util::stream::iter(
        runs.enumerate()
            .map(|(i, run)| async move { (i, run.await) }),
    )
    .buffer_unordered(args.concurrency.max(1))
    .collect()
    .await;
    results.sort_by_key(|(i, _)| *i);
    let results = results.into_iter().map(|(_, result)| result);

    let mut findings = Vec::new();
    let mut checks = Vec::new();
    for (check, target, elapsed, outcome) in results {
        let (address, error, mut found, measures) = match outcome {
            Ok(g) => (Some(g.address), None, g.findings, g.measures),
            Err(err) => {
                let reason = format!("{err:#}");
                let finding = Finding::new(
                    Severity::Unknown,
                    codes::CHECK_FAILED,
                    "",
                    format!("no answer: {reason}"),
                );
                (None, Some(reason), vec![finding], Vec::new())
            }
        };
        for f in &mut found {
            f.evidence.insert("check".into(), check.into());
            f.evidence.insert("target".into(), target.clone().into());
        }
        let mut by_severity = std::collections::BTreeMap::new();
        for f in &found {
            *by_severity.entry(f.severity).or_insert(0) += 1;
        }
        checks.push(CheckOutcome {
            check,
            target,
            status: crate::findings::overall(&found),
            elapsed_seconds: elapsed.as_secs_f64(),
            error,
            findings: by_severity,
            address,
            measures,
        });
        findings.extend(found);
    }
    let target = Target {
        name: None,
        kind: "config".into(),
        address: args
            .config_file
            .as_ref()
            .map_or_else(|| "(no config file)".into(), |p| p.display().to_string()),
    };
    Ok(Report::new(
        "check",
        target,
        findings,
        CheckReport {
            deadline_seconds: deadline.as_secs_f64(),
            elapsed_seconds: started.elapsed().as_secs_f64(),
            checks_run: checks.len(),
            checks,
            incidents: Vec::new(),
        },
    ))
}

/// Runs one check with the settings resolved for it; one whose settings did not resolve
/// is UNKNOWN with why, as its command would have refused.
async fn gather(ctx: &Context, run: &Result<Box<dyn Run>>) -> Result<Gathered> {
    let run = run.as_ref().map_err(|e| anyhow!("{e:#}"))?;
    let (address, findings, measures) = run.report(ctx).await?.into_parts();
    Ok(Gathered {
        address,
        findings,
        measures,
    })
}

impl TableView for CheckReport {
    fn headline(&self) -> Option<Shown> {
        let mut counts = std::collections::BTreeMap::new();
        for c in &self.checks {
            *counts.entry(c.status).or_insert(0usize) += 1;
        }
        let total = self.checks_run;
        let problems: Vec<String> = counts
            .iter()
            .rev()
            .filter(|(s, _)| **s != Severity::Ok)
            .map(|(s, n)| format!("{n} {}", s.label()))
            .collect();
        Some(if problems.is_empty() {
            shown!("all {} checks OK in {:.2}s", total, self.elapsed_seconds)
        } else {
            shown!(
                "{} among {} checks, in {:.2}s",
                problems.join(", "),
                total,
                self.elapsed_seconds
            )
        })
    }

    fn incidents(&self) -> Option<Vec<IncidentView<'_>>> {
        Some(
            self.incidents
                .iter()
                .map(|i| IncidentView {
                    findings: &i.findings,
                    next: i.next.as_ref(),
                })
                .collect(),
        )
    }

    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.checks.is_empty() {
            return Vec::new();
        }
        let mut t = style.table(&["TARGET", "CHECK", "STATUS", "TIME", "RESULT"]);
        for c in &self.checks {
            let result = match &c.error {
                Some(e) => Shown::text(e),
                None if c.findings.is_empty() => Shown::lit("nothing found"),
                // One count a line: a narrow column never parts a count from its label.
                None => Shown::join(
                    c.findings
                        .iter()
                        .rev()
                        .map(|(s, n)| shown!("{} {}", n, s.label())),
                    "\n",
                ),
            };
            t.add_row(vec![
                Cell::new(&c.target),
                Cell::new(c.check),
                style.severity_cell(c.status),
                Cell::new(shown!("{:.2}s", c.elapsed_seconds)),
                Cell::new(result),
            ]);
        }
        vec![t.render()]
    }
}

pub(crate) mod outcome;

#[cfg(test)]
mod golden;
