//! Findings and severities: what a check concluded, with its evidence, and how that becomes an exit code.

use crate::codes::Code;
use crate::next::Next;
use crate::text::{RawText, Text};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Nagios plugin states. The derive order is the aggregation order: a CRITICAL found
/// somewhere must never be hidden behind an UNKNOWN found elsewhere, so UNKNOWN ranks
/// below CRITICAL even though its exit code (3) is higher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    Ok,
    Warning,
    Unknown,
    Critical,
}

impl Severity {
    pub fn exit_code(self) -> u8 {
        match self {
            Severity::Ok => 0,
            Severity::Warning => 1,
            Severity::Critical => 2,
            Severity::Unknown => 3,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "OK",
            Severity::Warning => "WARNING",
            Severity::Critical => "CRITICAL",
            Severity::Unknown => "UNKNOWN",
        }
    }

    /// Severity of a measured value against a warning and a critical threshold.
    pub fn grade<T: PartialOrd>(value: T, warning: T, critical: T) -> Severity {
        if value >= critical {
            Severity::Critical
        } else if value >= warning {
            Severity::Warning
        } else {
            Severity::Ok
        }
    }
}

/// One conclusion about one object, with the values it rests on.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// Stable machine name of the rule, e.g. `prepared_xact_age`.
    pub code: Code,
    /// The object the finding is about, e.g. `prepared transaction 131077_orders_4711 in shop`.
    /// Server text in it stays as sent (JSON) and is escaped where it is shown (tables).
    pub subject: Text,
    pub message: Text,
    /// The values read (and where from) that the message rests on.
    pub evidence: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Text>,
    /// The command (or SQL) to run next, exactly as it can be typed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Next>,
    /// Evidence that is server text, kept as bytes for where it is shown (Prometheus
    /// labels): a value that is not UTF-8 is in `evidence` only in its escaped form.
    #[serde(skip)]
    pub raw_evidence: BTreeMap<&'static str, RawText>,
}

impl Finding {
    pub fn new(
        severity: Severity,
        code: Code,
        subject: impl Into<Text>,
        message: impl Into<Text>,
    ) -> Self {
        Finding {
            severity,
            code,
            subject: subject.into(),
            message: message.into(),
            evidence: Map::new(),
            advice: None,
            next: None,
            raw_evidence: BTreeMap::new(),
        }
    }

    pub fn evidence(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.evidence.insert(key.to_string(), value.into());
        self
    }

    /// Evidence that is server text (a GID, a database name).
    pub fn evidence_raw(mut self, key: &'static str, value: &RawText) -> Self {
        self.evidence.insert(key.to_string(), value.into());
        self.raw_evidence.insert(key, value.clone());
        self
    }

    pub fn advice(mut self, advice: impl Into<Text>) -> Self {
        self.advice = Some(advice.into());
        self
    }

    pub fn next(mut self, next: Next) -> Self {
        self.next = Some(next);
        self
    }
}

/// The status of a report: the worst of its findings, OK when there are none.
pub fn overall(findings: &[Finding]) -> Severity {
    findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Severity::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_outranks_unknown_but_exits_2() {
        let f = |s| Finding::new(s, crate::codes::CONFIG, "x", "y");
        let all = [
            f(Severity::Unknown),
            f(Severity::Critical),
            f(Severity::Warning),
        ];
        assert_eq!(overall(&all), Severity::Critical);
        assert_eq!(overall(&all).exit_code(), 2);
        assert_eq!(overall(&all[..1]).exit_code(), 3);
        assert_eq!(overall(&[]), Severity::Ok);
    }

    #[test]
    fn grading_is_inclusive_at_thresholds() {
        assert_eq!(Severity::grade(5, 5, 10), Severity::Warning);
        assert_eq!(Severity::grade(10, 5, 10), Severity::Critical);
        assert_eq!(Severity::grade(4, 5, 10), Severity::Ok);
        assert_eq!(Severity::grade(0, 0, 0), Severity::Critical);
    }
}
