//! What a check run found, as `check` builds it and its views (the table here, Nagios and
//! Prometheus in check_output.rs) read it.

use crate::findings::{ObjectKind, Severity};
use crate::next::Next;
use crate::text::Text;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct CheckReport {
    pub(crate) deadline_seconds: f64,
    pub(crate) elapsed_seconds: f64,
    /// How many checks ran (`checks` omits the OK ones under --quiet).
    pub(crate) checks_run: usize,
    /// One entry per check run, in target then check order.
    pub(crate) checks: Vec<CheckOutcome>,
    /// The findings that are not OK, grouped by the object they are about, worst first.
    pub(crate) incidents: Vec<Incident>,
}

/// Findings about one object on one target: a prepared transaction with its horizon hold
/// and the sessions it blocks, a slot with its WAL and catalog_xmin, a partition with its
/// LSO and its open transaction. A finding about no one object is an incident alone.
#[derive(Debug, Serialize)]
pub(crate) struct Incident {
    pub(crate) severity: Severity,
    /// What it is about (null for a finding about no one object).
    pub(crate) object: Option<IncidentObject>,
    /// Its worst finding's subject, where it was found: `lab pg prepared: prepared transaction '…' in shop`.
    pub(crate) title: Text,
    /// Its findings, as indexes into `findings`, the worst first.
    pub(crate) findings: Vec<usize>,
    /// The command to run for it: that of its worst finding that has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next: Option<Next>,
}

#[derive(Debug, Serialize)]
pub(crate) struct IncidentObject {
    pub(crate) kind: ObjectKind,
    /// The config's name of the target it is on.
    pub(crate) target: String,
    pub(crate) name: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct CheckOutcome {
    /// `pg prepared`, `kafka lso`, `reconcile`, `outbox`, …
    pub(crate) check: &'static str,
    /// The config's name for the target, job or outbox.
    pub(crate) target: String,
    pub(crate) status: Severity,
    pub(crate) elapsed_seconds: f64,
    /// Why the check could not answer (then its status is UNKNOWN).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// Its findings by severity, e.g. {"CRITICAL": 1}.
    pub(crate) findings: std::collections::BTreeMap<Severity, usize>,
    /// The address it inspected, when it got that far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) address: Option<String>,
    /// What it measured (the Prometheus exposition's measured families).
    #[serde(skip)]
    pub(crate) measures: Vec<crate::metrics::Measure>,
}
