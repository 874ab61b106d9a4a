//! `indoubt config show --check`: connects to every target the config names (and to the
//! postgres and kafka references of its reconcile jobs, outboxes, inboxes and resolve
//! section) and reports, per target, what the role or principal lacks for indoubt's
//! commands, as the server or broker itself says it, with the GRANT or kafka-acls.sh
//! line that gives it. Targets that reach one server as one role (one cluster with one
//! set of client settings) are checked once, together.
//!
//! This module runs every target's checks at once and makes the findings of them. Which
//! targets, and what each is used for, is planned with the settings
//! (src/settings/config_check.rs); each kind's checks are its own module's (pg with
//! pg_grants and pg_tables, mysql, kafka with kafka_topics and kafka_acls, the workflow
//! engines' REST API and CLI in workflow); the rows and
//! targets reported are checks', how they are shown render's.

mod checks;
mod kafka;
mod kafka_acls;
mod kafka_topics;
mod mysql;
mod pg;
mod pg_grants;
mod pg_tables;
mod render;
mod workflow;

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::{self, Report};
use crate::settings::config_check::ConfigCheckSettings;
use anyhow::Result;
use checks::{Check, CheckReport, TargetChecks};

pub async fn run(ctx: &Context, settings: &ConfigCheckSettings) -> Result<Severity> {
    let plans = &settings.plans;
    let pg_groups = groups(&plans.pg, |p| {
        p.target.as_ref().ok().map(|t| t.params.server_key())
    });
    let kafka_groups = groups(&plans.kafka, |k| k.identity.clone());
    let pg = futures_util::future::join_all(pg_groups.iter().map(|g| pg::check(ctx, g)));
    let kafka = futures_util::future::join_all(kafka_groups.iter().map(|g| kafka::check(ctx, g)));
    let mysql = futures_util::future::join_all(plans.mysql.iter().map(|m| mysql::check(ctx, m)));
    let rest = futures_util::future::join_all(
        plans
            .camunda_rest
            .iter()
            .map(|(name, api)| workflow::camunda(ctx, name, api)),
    );
    let (pg, kafka, mysql, rest) = tokio::join!(pg, kafka, mysql, rest);
    let cli = plans
        .dbos_cli
        .iter()
        .map(|(name, argv)| workflow::dbos(name, argv));
    let targets: Vec<TargetChecks> = pg
        .into_iter()
        .chain(kafka)
        .chain(mysql)
        .chain(rest)
        .chain(cli)
        .collect();
    let report = report_of(settings, targets);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// The report of the targets checked: the references that name no target, then per
/// target one OK finding when every check passed, else one for each check that did not.
fn report_of(settings: &ConfigCheckSettings, targets: Vec<TargetChecks>) -> Report<CheckReport> {
    let mut findings = settings.plans.unusable.clone();
    for t in &targets {
        let subject = format!("{} target {}", t.kind, t.name);
        let failed: Vec<&Check> = t
            .checks
            .iter()
            .filter(|c| c.status != Severity::Ok)
            .collect();
        if failed.is_empty() {
            findings.push(
                Finding::new(
                    Severity::Ok,
                    codes::TARGET_CHECKED,
                    subject.clone(),
                    format!("every check passed ({} checks)", t.checks.len()),
                )
                .evidence("target", t.name.clone()),
            );
        }
        for c in failed {
            let mut finding = Finding::new(
                c.status,
                c.code.unwrap_or(codes::TARGET_UNREACHABLE),
                subject.clone(),
                crate::text![c.what.as_str(), ": ", c.detail],
            )
            .evidence("target", t.name.clone())
            .evidence("check", c.what.clone());
            if let Some(next) = &c.next {
                finding = finding.next(next.clone());
            }
            findings.push(finding);
        }
    }
    let config_file = settings
        .config_file
        .as_ref()
        .map(|p| p.display().to_string());
    Report::new(
        "config show --check",
        super::config_show::config_target(config_file.as_deref()),
        findings,
        CheckReport {
            config_file,
            targets,
        },
    )
}

/// The plans in order, those with the same key (the same server and role, the same
/// cluster and client settings) together, in the order their first one comes: each group
/// is connected to and checked once. A plan without a key (unusable settings) is alone.
fn groups<P, K: PartialEq>(plans: &[P], key: impl Fn(&P) -> Option<K>) -> Vec<Vec<&P>> {
    let mut groups: Vec<(Option<K>, Vec<&P>)> = Vec::new();
    for plan in plans {
        let k = key(plan);
        match groups.iter_mut().find(|(g, _)| g.is_some() && *g == k) {
            Some((_, members)) => members.push(plan),
            None => groups.push((k, vec![plan])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Every section that uses any of `used_by`'s lists, each once, in order.
fn union<'a>(lists: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for item in lists.into_iter().flatten() {
        if !all.contains(item) {
            all.push(item.clone());
        }
    }
    all
}

#[cfg(test)]
mod golden;
