//! `indoubt config show`: which config file is in force, its targets (without secrets) and thresholds.

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::security::Security;
use crate::kafka::target::KafkaTarget;
use crate::pg::conninfo::ConnParams;
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView, Target};
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, format_size};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Serialize)]
struct ConfigReport {
    config_file: Option<String>,
    postgres_targets: Vec<PgTargetView>,
    kafka_targets: Vec<KafkaTargetView>,
    thresholds: ThresholdsView,
}

#[derive(Debug, Serialize)]
struct PgTargetView {
    name: String,
    /// `user@host:port/db` once PG* variables filled the gaps; None when it does not parse.
    address: Option<String>,
    sslmode: Option<String>,
}

#[derive(Debug, Serialize)]
struct KafkaTargetView {
    name: String,
    bootstrap_servers: Vec<String>,
    /// Secret-bearing values shown as `<redacted>`.
    properties: BTreeMap<String, String>,
    /// The topics `indoubt check` inspects; null for every topic.
    check_topic_regex: Option<String>,
}

/// Every threshold in force (flags aside): config value or default.
#[derive(Debug, Serialize)]
struct ThresholdsView {
    prepared_warning_age_seconds: u64,
    prepared_critical_age_seconds: u64,
    slots_warning_retained_bytes: u64,
    slots_critical_retained_bytes: u64,
    horizon_warning_age_seconds: u64,
    horizon_critical_age_seconds: u64,
    horizon_warning_xids: u64,
    horizon_critical_xids: u64,
    wraparound_warning_xids: u64,
    wraparound_critical_xids: u64,
    lso_warning_age_seconds: u64,
    lso_critical_age_seconds: u64,
    lso_warning_gap: u64,
    lso_critical_gap: u64,
    hanging_max_transaction_timeout_seconds: u64,
}

pub fn run(ctx: &Context) -> Result<Severity> {
    let config = &ctx.config.config;
    let env = |key: &str| std::env::var(key).ok();
    let mut findings = Vec::new();
    let mut postgres_targets = Vec::new();
    for (name, target) in &config.postgres {
        let view = match ConnParams::resolve(&target.conninfo, &env) {
            Ok(params) => PgTargetView {
                name: name.clone(),
                address: Some(params.describe()),
                sslmode: Some(params.sslmode.as_str().to_string()),
            },
            Err(e) => {
                findings.push(unusable("postgres", name, format!("{e:#}")));
                PgTargetView {
                    name: name.clone(),
                    address: None,
                    sslmode: None,
                }
            }
        };
        postgres_targets.push(view);
    }
    let mut kafka_targets = Vec::new();
    for (name, configured) in &config.kafka {
        // Usable means its properties make a connection: names known, values valid,
        // config provider references readable.
        let usable = KafkaTarget::from_config(name, configured).and_then(|target| {
            Security::from_properties(&target.properties)?;
            Ok(target)
        });
        match usable {
            Ok(target) => kafka_targets.push(KafkaTargetView {
                name: name.clone(),
                bootstrap_servers: target.bootstrap.clone(),
                properties: target.redacted_properties(),
                check_topic_regex: configured.check_topic_regex.clone(),
            }),
            Err(e) => findings.push(unusable("kafka", name, format!("{e:#}"))),
        }
    }
    let (warning, critical) = ctx.prepared_thresholds((None, None))?;
    let (retained_warning, retained_critical) = ctx.slot_thresholds((None, None))?;
    let ((age_warning, age_critical), (xids_warning, xids_critical)) =
        ctx.horizon_thresholds((None, None), (None, None))?;
    let (wrap_warning, wrap_critical) = ctx.wraparound_thresholds((None, None))?;
    let ((lso_age_warning, lso_age_critical), (lso_gap_warning, lso_gap_critical)) =
        ctx.lso_thresholds((None, None), (None, None))?;
    let config_file = ctx.config.path.as_ref().map(|p| p.display().to_string());
    if findings.is_empty() {
        let message = match &config_file {
            Some(_) => format!(
                "{} postgres and {} kafka target(s) usable",
                postgres_targets.len(),
                kafka_targets.len()
            ),
            None => "no config file: targets come from flags and PG* variables, thresholds are the defaults".to_string(),
        };
        findings.push(Finding::new(Severity::Ok, codes::CONFIG, "config", message));
    }
    let report = Report::new(
        "config show",
        Target {
            name: None,
            kind: "config".into(),
            address: config_file
                .clone()
                .unwrap_or_else(|| "(no config file)".to_string()),
        },
        findings,
        ConfigReport {
            config_file,
            postgres_targets,
            kafka_targets,
            thresholds: ThresholdsView {
                prepared_warning_age_seconds: warning.as_secs(),
                prepared_critical_age_seconds: critical.as_secs(),
                slots_warning_retained_bytes: retained_warning,
                slots_critical_retained_bytes: retained_critical,
                horizon_warning_age_seconds: age_warning.as_secs(),
                horizon_critical_age_seconds: age_critical.as_secs(),
                horizon_warning_xids: xids_warning,
                horizon_critical_xids: xids_critical,
                wraparound_warning_xids: wrap_warning,
                wraparound_critical_xids: wrap_critical,
                lso_warning_age_seconds: lso_age_warning.as_secs(),
                lso_critical_age_seconds: lso_age_critical.as_secs(),
                lso_warning_gap: lso_gap_warning,
                lso_critical_gap: lso_gap_critical,
                hanging_max_transaction_timeout_seconds: ctx.hanging_timeout(None).as_secs(),
            },
        },
    );
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

fn unusable(kind: &str, name: &str, why: String) -> Finding {
    Finding::new(
        Severity::Unknown,
        codes::CONFIG_TARGET_UNUSABLE,
        format!("{kind} target \"{name}\""),
        format!("cannot be used: {why}"),
    )
}

impl TableView for ConfigReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&["KIND", "NAME", "WHERE", "SETTINGS"]);
        for t in &self.postgres_targets {
            table.add_row(vec![
                Cell::new("postgres"),
                Cell::new(&t.name),
                Cell::new(t.address.as_deref().unwrap_or("(unusable)")),
                Cell::new(
                    t.sslmode
                        .as_deref()
                        .map(|m| format!("sslmode {m}"))
                        .unwrap_or_default(),
                ),
            ]);
        }
        for t in &self.kafka_targets {
            let settings = t
                .properties
                .iter()
                .map(|(k, v)| shown!("{}={}", k, v))
                .chain(
                    t.check_topic_regex
                        .iter()
                        .map(|r| shown!("check topics ~ {}", r)),
                );
            table.add_row(vec![
                Cell::new("kafka"),
                Cell::new(&t.name),
                Cell::new(t.bootstrap_servers.join(",")),
                Cell::new(Shown::join(settings, "\n")),
            ]);
        }
        let t = &self.thresholds;
        let secs = |s: u64| format_duration(Duration::from_secs(s));
        for (what, warning, critical) in [
            (
                "prepared age",
                secs(t.prepared_warning_age_seconds),
                secs(t.prepared_critical_age_seconds),
            ),
            (
                "slot retained WAL",
                format_size(t.slots_warning_retained_bytes),
                format_size(t.slots_critical_retained_bytes),
            ),
            (
                "horizon age",
                secs(t.horizon_warning_age_seconds),
                secs(t.horizon_critical_age_seconds),
            ),
            (
                "horizon xids",
                t.horizon_warning_xids.to_string(),
                t.horizon_critical_xids.to_string(),
            ),
            (
                "wraparound xids",
                t.wraparound_warning_xids.to_string(),
                t.wraparound_critical_xids.to_string(),
            ),
            (
                "LSO age",
                secs(t.lso_warning_age_seconds),
                secs(t.lso_critical_age_seconds),
            ),
            (
                "LSO gap",
                t.lso_warning_gap.to_string(),
                t.lso_critical_gap.to_string(),
            ),
        ] {
            table.add_row(vec![
                Cell::new("threshold"),
                Cell::new(what),
                Cell::new(""),
                Cell::new(format!("warning {warning}, critical {critical}")),
            ]);
        }
        table.add_row(vec![
            Cell::new("threshold"),
            Cell::new("hanging search"),
            Cell::new(""),
            Cell::new(format!(
                "transactions idle over {}",
                secs(t.hanging_max_transaction_timeout_seconds)
            )),
        ]);
        vec![table.render()]
    }
}
