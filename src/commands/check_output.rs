//! The monitoring formats of `indoubt check`: the Nagios plugin line and the Prometheus text exposition.

use super::check::outcome::{CheckOutcome, CheckReport};
use crate::findings::{Finding, Severity};
use crate::report::Report;
use crate::text::Text;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Evidence keys that become Prometheus labels of a finding: each names a stable object
/// (a database, a slot, a partition). A transaction's id (a GID, an XID, a producer id)
/// never does: one series per transaction is unbounded, so those are in the probes'
/// measured families, for the oldest few only.
const LABEL_KEYS: [&str; 4] = ["database", "slot", "topic", "partition"];

/// A string the evidence holds under `key`, or "".
fn evidence_text<'a>(f: &'a Finding, key: &str) -> &'a str {
    f.evidence.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `target check: subject`, as the table shows a finding of `check`.
pub(crate) fn located_subject(f: &Finding) -> Text {
    let place = format!(
        "{} {}",
        evidence_text(f, "target"),
        evidence_text(f, "check")
    );
    if f.subject.is_empty() {
        place.into()
    } else {
        f.subject.prepended(&format!("{place}: ").into())
    }
}

/// One status line with perfdata, then one line per finding that is not OK (the plugin
/// "long output"), as Nagios and Icinga read a plugin's stdout.
pub(crate) fn nagios(report: &Report<CheckReport>) -> String {
    let count = |s: Severity| report.data.checks.iter().filter(|c| c.status == s).count();
    let (critical, warning, unknown) = (
        count(Severity::Critical),
        count(Severity::Warning),
        count(Severity::Unknown),
    );
    let total = report.data.checks_run;
    let summary = if critical + warning + unknown == 0 {
        format!("all {total} checks OK")
    } else {
        // The worst finding, the first of its kind (max_by_key keeps the last maximum).
        let first = report
            .findings
            .iter()
            .rev()
            .filter(|f| f.severity != Severity::Ok)
            .max_by_key(|f| f.severity)
            .map(|f| format!(": {}", plugin_text(&located_subject(f))))
            .unwrap_or_default();
        format!(
            "{critical} critical, {warning} warning, {unknown} unknown of {total} checks{first}"
        )
    };
    let mut out = format!(
        "INDOUBT {} - {summary} | checks={total};;;0 critical={critical};;;0 warning={warning};;;0 unknown={unknown};;;0 time={:.3}s;;;0\n",
        report.status.label(),
        report.data.elapsed_seconds
    );
    for f in report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Ok)
    {
        let _ = writeln!(
            out,
            "{}: {} - {}",
            f.severity.label(),
            plugin_text(&located_subject(f)),
            plugin_text(&f.message)
        );
    }
    out
}

/// A plugin's text may hold neither `|` (it starts the perfdata) nor line breaks; and
/// like a table it shows control and bidi characters escaped (`\u{202e}`), never obeys them.
fn plugin_text(text: &Text) -> String {
    text.escaped().replace('|', "/")
}

/// The text exposition format (version 0.0.4) for node_exporter's textfile collector.
pub(crate) fn prometheus(report: &Report<CheckReport>) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "indoubt_check_status",
        "Nagios state of one check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.",
    );
    for c in &report.data.checks {
        sample(
            &mut out,
            "indoubt_check_status",
            &[
                ("target", &shown(&c.target)),
                ("check", &check_label(c.check)),
            ],
            f64::from(c.status.exit_code()),
        );
    }
    family(
        &mut out,
        "indoubt_check_duration_seconds",
        "Wall time of one check.",
    );
    for c in &report.data.checks {
        sample(
            &mut out,
            "indoubt_check_duration_seconds",
            &[
                ("target", &shown(&c.target)),
                ("check", &check_label(c.check)),
            ],
            c.elapsed_seconds,
        );
    }
    findings(&mut out, report);
    measured(&mut out, report);
    family(
        &mut out,
        "indoubt_build_info",
        "The indoubt that exposed these series: 1, its version in a label.",
    );
    sample(
        &mut out,
        "indoubt_build_info",
        &[("version", env!("CARGO_PKG_VERSION"))],
        1.0,
    );
    family(
        &mut out,
        "indoubt_target_up",
        "1 when the check could read its target (its report came back), 0 when it could not (no answer, a refused connection, past the deadline).",
    );
    for c in &report.data.checks {
        sample(
            &mut out,
            "indoubt_target_up",
            &[
                ("target", &shown(&c.target)),
                ("check", &check_label(c.check)),
            ],
            f64::from(u8::from(c.error.is_none())),
        );
    }
    family(
        &mut out,
        "indoubt_check_run_timestamp_seconds",
        "When indoubt check ran (Unix time): a stale file means the cron job stopped.",
    );
    sample(
        &mut out,
        "indoubt_check_run_timestamp_seconds",
        &[],
        report.generated_at.timestamp_millis() as f64 / 1000.0,
    );
    out
}

/// The findings, bounded: one series per check, code and object (its worst finding there),
/// and how many findings of each code and severity.
fn findings(out: &mut String, report: &Report<CheckReport>) {
    family(
        out,
        "indoubt_finding_severity",
        "The worst finding of one code on one object (a database, slot or partition, or the target): its Nagios state (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).",
    );
    // A scrape with two samples of one series is refused whole: findings the labels do
    // not tell apart (two prepared transactions in one database) are one series, their worst.
    // In first-seen order, each found again through its labels (a fleet has thousands).
    let mut series: Vec<(Vec<(&str, String)>, Severity)> = Vec::new();
    let mut series_at = HashMap::<Vec<(&str, String)>, usize>::new();
    let mut counts: Vec<((String, String, String, Severity), usize)> = Vec::new();
    let mut counts_at = HashMap::<(String, String, String, Severity), usize>::new();
    for f in &report.findings {
        let (target, check) = (
            shown(evidence_text(f, "target")),
            check_label(evidence_text(f, "check")),
        );
        let mut labels: Vec<(&str, String)> = vec![
            ("target", target.clone()),
            ("check", check.clone()),
            ("code", f.code.to_string()),
        ];
        for key in LABEL_KEYS {
            if let Some(raw) = f.raw_evidence.get(key) {
                labels.push((key, crate::text::escape_bytes(raw.as_bytes())));
                continue;
            }
            match f.evidence.get(key) {
                Some(Value::String(s)) => labels.push((key, shown(s))),
                Some(Value::Number(n)) => labels.push((key, n.to_string())),
                _ => {}
            }
        }
        match series_at.get(&labels) {
            Some(&i) => series[i].1 = series[i].1.max(f.severity),
            None => {
                series_at.insert(labels.clone(), series.len());
                series.push((labels, f.severity));
            }
        }
        let key = (target, check, f.code.to_string(), f.severity);
        match counts_at.get(&key) {
            Some(&i) => counts[i].1 += 1,
            None => {
                counts_at.insert(key.clone(), counts.len());
                counts.push((key, 1));
            }
        }
    }
    for (labels, worst) in &series {
        let borrowed: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
        sample(
            out,
            "indoubt_finding_severity",
            &borrowed,
            f64::from(worst.exit_code()),
        );
    }
    family(
        out,
        "indoubt_findings",
        "How many findings one check made of one code and severity (ok, warning, critical, unknown).",
    );
    for ((target, check, code, severity), n) in &counts {
        let severity = severity.label().to_ascii_lowercase();
        sample(
            out,
            "indoubt_findings",
            &[
                ("target", target),
                ("check", check),
                ("code", code),
                ("severity", &severity),
            ],
            *n as f64,
        );
    }
}

/// The probes' measured families: each family's help once, then its samples of every
/// check, each with the check's target; a family no check measured is left out.
fn measured(out: &mut String, report: &Report<CheckReport>) {
    let mut done: Vec<&str> = Vec::new();
    for probe in crate::commands::probes::ALL {
        for f in probe.measures() {
            if done.contains(&f.name) {
                continue;
            }
            done.push(f.name);
            let samples: Vec<(&CheckOutcome, &crate::metrics::Measure)> = report
                .data
                .checks
                .iter()
                .flat_map(|c| c.measures.iter().map(move |m| (c, m)))
                .filter(|(_, m)| m.family == f.name)
                .collect();
            if samples.is_empty() {
                continue;
            }
            family(out, f.name, f.help);
            for (c, m) in samples {
                let target = shown(&c.target);
                let mut labels: Vec<(&str, &str)> = vec![("target", &target)];
                labels.extend(m.labels.iter().map(|(k, v)| (*k, v.as_str())));
                sample(out, f.name, &labels, m.value);
            }
        }
    }
}

/// `indoubt serve`'s own metrics, as a scrape sees them (serve.rs keeps the state they
/// are taken from).
pub(crate) struct ExporterStatus {
    /// A run completed, recently enough: within two intervals and a deadline.
    pub up: bool,
    pub last_success: Option<DateTime<Utc>>,
    pub last_duration_seconds: Option<f64>,
    /// When the last run started, whether it completed or failed.
    pub last_run: Option<DateTime<Utc>>,
    pub completed: u64,
    pub failed: u64,
    pub interval_seconds: f64,
}

/// `indoubt serve`'s own metrics, after the last run's exposition: whether a run is
/// recent enough to trust, and when the last one succeeded, so a stuck exporter alerts.
pub(crate) fn exporter(status: &ExporterStatus) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "indoubt_up",
        "1 when a run of the checks completed within two intervals and a deadline; 0 before the first, or when runs stopped completing.",
    );
    sample(&mut out, "indoubt_up", &[], f64::from(u8::from(status.up)));
    family(
        &mut out,
        "indoubt_last_success_timestamp_seconds",
        "When the last completed run of the checks started (Unix time); 0 before the first.",
    );
    sample(
        &mut out,
        "indoubt_last_success_timestamp_seconds",
        &[],
        status
            .last_success
            .map_or(0.0, |at| at.timestamp_millis() as f64 / 1000.0),
    );
    family(
        &mut out,
        "indoubt_last_run_timestamp_seconds",
        "When the last run of the checks started, completed or failed (Unix time); 0 before the first.",
    );
    sample(
        &mut out,
        "indoubt_last_run_timestamp_seconds",
        &[],
        status
            .last_run
            .map_or(0.0, |at| at.timestamp_millis() as f64 / 1000.0),
    );
    family(
        &mut out,
        "indoubt_last_run_duration_seconds",
        "Wall time of the last completed run of the checks.",
    );
    sample(
        &mut out,
        "indoubt_last_run_duration_seconds",
        &[],
        status.last_duration_seconds.unwrap_or(0.0),
    );
    let _ = writeln!(
        out,
        "# HELP indoubt_runs_total Runs of the checks since the exporter started, by outcome.\n# TYPE indoubt_runs_total counter"
    );
    sample(
        &mut out,
        "indoubt_runs_total",
        &[("outcome", "completed")],
        status.completed as f64,
    );
    sample(
        &mut out,
        "indoubt_runs_total",
        &[("outcome", "failed")],
        status.failed as f64,
    );
    family(
        &mut out,
        "indoubt_interval_seconds",
        "How often the exporter runs the checks (--interval).",
    );
    sample(
        &mut out,
        "indoubt_interval_seconds",
        &[],
        status.interval_seconds,
    );
    out
}

/// A check's name as a label value: `pg_prepared` (a label holds no space).
fn check_label(check: &str) -> String {
    check.replace(' ', "_")
}

fn family(out: &mut String, name: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: f64) {
    out.push_str(name);
    if !labels.is_empty() {
        let body: Vec<String> = labels
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", label_value(v)))
            .collect();
        let _ = write!(out, "{{{}}}", body.join(","));
    }
    let _ = writeln!(out, " {value}");
}

/// Label values escape backslash, double quote and line feed, as the format requires;
/// `sample`'s callers give them in their shown form (`shown`).
fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A label value as a table shows the text: the format has no escape for ESC, CR or
/// BEL and a raw one reaches whoever reads the file, so control and bidi characters are
/// `\u{1b}` and a backslash is doubled (then `label_value` encodes that for the format).
fn shown(v: &str) -> String {
    crate::text::escape(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        // ESC, CR and BEL become visible text; the backslash that shows them is encoded.
        assert_eq!(
            label_value(&shown("x\u{1b}[31m\r\u{7}\\")),
            "x\\\\u{1b}[31m\\\\r\\\\u{7}\\\\\\\\"
        );
    }

    #[test]
    fn plugin_text_has_no_pipe_newline_or_bidi_control() {
        assert_eq!(plugin_text(&"a|b\nc".into()), "a/b\\nc");
        assert_eq!(
            plugin_text(&"pay\u{202e}txt.exe".into()),
            "pay\\u{202e}txt.exe"
        );
    }
}
