//! What `config show --check` reports: per target, its checks (a row each) and the worst
//! of them; and the checks every kind of target shares (the connection that could not be
//! made, the settings that make none).

use crate::codes::{self, Code};
use crate::findings::Severity;
use crate::next::Next;
use crate::text::Text;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(super) struct CheckReport {
    pub(super) config_file: Option<String>,
    /// Every target checked, in config order: postgres first, then kafka, then mysql.
    pub(super) targets: Vec<TargetChecks>,
}

#[derive(Debug, Serialize)]
pub(super) struct TargetChecks {
    /// `postgres`, `kafka` or `mysql`.
    pub(super) kind: &'static str,
    pub(super) name: String,
    /// `user@host:port/db`, or the bootstrap servers; never a password.
    pub(super) address: Option<String>,
    /// The other targets (and sections' connection strings) that reach the same server as
    /// the same role, or the same cluster with the same client settings: their checks are
    /// these, made once.
    pub(super) also: Vec<Also>,
    /// The sections of the config that use it besides the commands that take the target
    /// itself: `reconcile job NAME`, `outbox NAME`, `resolve.participants`, …
    pub(super) used_by: Vec<String>,
    /// The worst of its checks.
    pub(super) status: Severity,
    pub(super) checks: Vec<Check>,
}

/// A target checked with another of the same server (or cluster) and identity.
#[derive(Debug, Serialize)]
pub(super) struct Also {
    pub(super) name: String,
    pub(super) address: Option<String>,
}

/// One check of one target: a row of its table.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Check {
    pub(super) what: String,
    pub(super) status: Severity,
    /// The finding code of a check that did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) code: Option<Code>,
    pub(super) detail: Text,
    /// The GRANT statement or kafka-acls.sh line that gives what is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) next: Option<Next>,
}

impl Check {
    pub(super) fn ok(what: impl Into<String>, detail: impl Into<Text>) -> Check {
        Check {
            what: what.into(),
            status: Severity::Ok,
            code: None,
            detail: detail.into(),
            next: None,
        }
    }

    pub(super) fn failed(
        what: impl Into<String>,
        status: Severity,
        code: Code,
        detail: impl Into<Text>,
    ) -> Check {
        Check {
            what: what.into(),
            status,
            code: Some(code),
            detail: detail.into(),
            next: None,
        }
    }

    pub(super) fn next(mut self, next: Option<Next>) -> Check {
        self.next = next;
        self
    }

    /// A connection that could not be made: UNKNOWN, with the error and its hint.
    pub(super) fn unreachable(err: &anyhow::Error) -> Check {
        let mut detail = format!("{err:#}");
        if let Some(hint) = crate::hints::hint_for(err) {
            detail.push_str(&format!(" (hint: {hint})"));
        }
        Check::failed(
            "connection",
            Severity::Unknown,
            codes::TARGET_UNREACHABLE,
            detail,
        )
    }
}

impl TargetChecks {
    /// A target and its checks, its status the worst of them; checked alone (no `also`).
    pub(super) fn new(
        kind: &'static str,
        name: &str,
        address: Option<String>,
        used_by: &[String],
        checks: Vec<Check>,
    ) -> TargetChecks {
        TargetChecks {
            kind,
            name: name.to_string(),
            address,
            also: Vec::new(),
            used_by: used_by.to_vec(),
            status: checks
                .iter()
                .map(|c| c.status)
                .max()
                .unwrap_or(Severity::Ok),
            checks,
        }
    }

    /// A target whose settings do not make a connection: UNKNOWN, nothing tried.
    pub(super) fn unusable(
        kind: &'static str,
        name: &str,
        used_by: &[String],
        why: String,
    ) -> TargetChecks {
        let check = Check::failed(
            "connection settings",
            Severity::Unknown,
            codes::CONFIG_TARGET_UNUSABLE,
            format!("cannot be used: {why}"),
        );
        TargetChecks::new(kind, name, None, used_by, vec![check])
    }
}
