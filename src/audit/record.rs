//! One audit record, and who is acting.

use crate::report::Target;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Written and fsynced before the action.
    Intent,
    /// Written after it, naming the intent's action id.
    Outcome,
    /// `audit reseal`: the head was lost or wrong and was made anew; `evidence` holds
    /// what the old head said. Truncation before this record can no longer be ruled out.
    Reseal,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operator {
    pub user: String,
    pub host: String,
    /// The person behind `sudo`, when there is one.
    pub sudo_user: Option<String>,
}

/// Who the process is by the kernel's account, beside the names `operator` takes from the
/// environment (USER, SUDO_USER), which whoever starts the process can set to anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// The real uid (getuid).
    pub uid: u32,
    /// Its name in /etc/passwd, when it has one.
    pub uid_name: Option<String>,
    /// The login uid (/proc/self/loginuid): the user who logged in to start the session,
    /// kept through su and sudo; none when the kernel has none (4294967295: a daemon, a
    /// container without audit) or does not say.
    pub login_uid: Option<u32>,
    /// Its name in /etc/passwd, when it has one.
    pub login_name: Option<String>,
}

impl Identity {
    pub fn current() -> Identity {
        let uid = rustix::process::getuid().as_raw();
        let login_uid = std::fs::read_to_string("/proc/self/loginuid")
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
            .filter(|&id| id != u32::MAX);
        Identity {
            uid,
            uid_name: crate::pg::conninfo::user_name_of(uid),
            login_uid,
            login_name: login_uid.and_then(crate::pg::conninfo::user_name_of),
        }
    }

    /// `uid 0 (root), login uid 1000 (anna)`.
    pub fn describe(&self) -> String {
        let named = |id: u32, name: &Option<String>| match name {
            Some(name) => format!("{id} ({name})"),
            None => id.to_string(),
        };
        let mut text = format!("uid {}", named(self.uid, &self.uid_name));
        if let Some(login) = self.login_uid {
            text.push_str(&format!(", login uid {}", named(login, &self.login_name)));
        }
        text
    }
}

impl Operator {
    pub fn current() -> Operator {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Operator {
            user: env("USER")
                .or_else(|| env("LOGNAME"))
                .or_else(crate::pg::conninfo::os_user_name)
                .unwrap_or_else(|| "unknown".into()),
            host: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_string())
                .ok()
                .or_else(|| env("HOSTNAME"))
                .unwrap_or_else(|| "unknown".into()),
            sudo_user: env("SUDO_USER"),
        }
    }
}

/// What a decision source answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceAnswer {
    pub source: String,
    pub answer: Answer,
    /// True for the coordinator's own log: its "no record" can mean presumed abort.
    pub authoritative: bool,
    pub detail: String,
    /// The source's `in_doubt_after`: "no record" means presumed abort only for a
    /// transaction prepared longer ago than this. Absent in records before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_doubt_after_seconds: Option<f64>,
}

/// What a resolution does to an in-doubt transaction: asked for with the settings,
/// proposed from the decision sources' answers, carried out and recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Commit,
    Rollback,
}

impl Decision {
    /// PostgreSQL's statement for it.
    pub fn statement(self) -> &'static str {
        match self {
            Decision::Commit => "COMMIT PREPARED",
            Decision::Rollback => "ROLLBACK PREPARED",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Decision::Commit => "commit",
            Decision::Rollback => "rollback",
        }
    }

    pub fn opposite(self) -> Decision {
        match self {
            Decision::Commit => Decision::Rollback,
            Decision::Rollback => Decision::Commit,
        }
    }

    /// The source answer that records this decision.
    pub fn answer(self) -> Answer {
        match self {
            Decision::Commit => Answer::Commit,
            Decision::Rollback => Answer::Rollback,
        }
    }
}

/// A decision source's answer, as the JSON output and the audit log spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The coordinator decided commit (COMMITTING, COMMITTED, …).
    Commit,
    /// The coordinator decided rollback (ROLLING_BACK, ABORTED, …).
    Rollback,
    /// The coordinator knows the transaction and has not decided yet.
    InProgress,
    /// The source was asked and has no record of the transaction.
    NoRecord,
    /// The source is not for this transaction (another coordinator, another GID form).
    NotApplicable,
    /// The source could not be asked, or its answer is not understood.
    Unreachable,
}

impl Answer {
    /// The JSON spelling, for text output.
    pub fn name(self) -> &'static str {
        match self {
            Answer::Commit => "commit",
            Answer::Rollback => "rollback",
            Answer::InProgress => "in_progress",
            Answer::NoRecord => "no_record",
            Answer::NotApplicable => "not_applicable",
            Answer::Unreachable => "unreachable",
        }
    }
}

/// What came of an action, as the audit log and the JSON output spell it. Logs written
/// before this type existed hold the same words, so they still read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Done as asked.
    Ok,
    /// Gone before the action ran, resolved the way it was asked (or, with nothing read
    /// about it, simply gone).
    AlreadyResolved,
    /// Another session was finishing it at that moment: nothing done.
    Busy,
    /// Nothing sent: it changed between the confirmation and the action.
    Refused,
    /// The server refused the statement or request: nothing done.
    Error,
    /// No answer (a lost connection, a timeout): it may or may not have been done.
    Unknown,
    /// Done for part of it; the rest left as it was (the detail names it and why).
    Partial,
    /// Another session resolved it first, the other way, or a way that cannot be told:
    /// nothing done, and not what was asked.
    LostRace,
    /// The statement ran, but the transaction reviewed did not get the decision: the GID
    /// named another transaction prepared under it since the review.
    Mismatch,
}

impl Status {
    /// The JSON spelling, for text output.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::AlreadyResolved => "already_resolved",
            Status::Busy => "busy",
            Status::Refused => "refused",
            Status::Error => "error",
            Status::Unknown => "unknown",
            Status::LostRace => "lost_race",
            Status::Partial => "partial",
            Status::Mismatch => "mismatch",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    pub status: Status,
    pub detail: String,
    /// SQLSTATE or Kafka error name, when the server gave one.
    pub code: Option<String>,
    /// What the action reported of each item it acted on (a republished row's partition
    /// and offset, or why it was not delivered). Absent for single-object actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<serde_json::value::RawValue>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// 1, 2, 3, … in file order; a gap means a record was removed.
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub kind: Kind,
    /// Shared by an intent and its outcome.
    pub action_id: String,
    pub operator: Operator,
    /// The real and the login uid: what the kernel says, beside the names `operator`
    /// was told. Absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// The command line, each secret masked by the grammar that reads it (see redact.rs).
    pub command_line: Vec<String>,
    pub reason: Option<String>,
    pub ticket: Option<String>,
    pub target: Target,
    /// What is acted on, e.g. `prepared transaction '131077_orders_4711' in shop`.
    pub object: String,
    /// The server's own identity, whatever address reached it (`postgres 7312…` for a
    /// system_identifier, `mysql …`, `kafka CLUSTER-ID`). Absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The object's own id there (a GID or XID in the escaped form, `topic-p@offset`).
    /// Absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The exact statement or request.
    pub action: String,
    pub evidence: serde_json::Value,
    pub decision_sources: Vec<SourceAnswer>,
    /// commit, rollback or abort.
    pub decision: String,
    /// Taken by a person without the coordinator's decision.
    pub heuristic: bool,
    pub outcome: Option<Outcome>,
    /// SHA-256 (hex) of the previous line; 64 zeros for the first.
    pub prev_hash: String,
}

/// What a resolution is about to do: everything of an intent record that the command knows.
pub struct Action {
    pub target: Target,
    pub object: String,
    pub server: Option<String>,
    pub key: String,
    pub action: String,
    pub evidence: serde_json::Value,
    pub decision_sources: Vec<SourceAnswer>,
    pub decision: String,
    pub heuristic: bool,
    pub reason: Option<String>,
    pub ticket: Option<String>,
    /// The run's command line, secrets masked (`Context::command_line`).
    pub command_line: Vec<String>,
}

impl Record {
    /// The intent record of an action: who, when, from which command line.
    pub fn intent(a: Action) -> Record {
        let now = chrono::Utc::now();
        Record {
            seq: 0,
            time: now,
            kind: Kind::Intent,
            action_id: format!(
                "{}-{}",
                now.format("%Y%m%dT%H%M%S%.6fZ"),
                std::process::id()
            ),
            operator: Operator::current(),
            identity: Some(Identity::current()),
            command_line: a.command_line,
            reason: a.reason,
            ticket: a.ticket,
            target: a.target,
            object: a.object,
            server: a.server,
            key: Some(a.key),
            action: a.action,
            evidence: a.evidence,
            decision_sources: a.decision_sources,
            decision: a.decision,
            heuristic: a.heuristic,
            outcome: None,
            prev_hash: String::new(),
        }
    }

    /// The record of `audit reseal` on the log at `log`: who, when, from which command
    /// line (secrets masked), why, and (in `evidence`) what the old head said.
    pub fn reseal(
        log: &std::path::Path,
        reason: &str,
        command_line: Vec<String>,
        evidence: serde_json::Value,
    ) -> Record {
        let now = chrono::Utc::now();
        Record {
            seq: 0,
            time: now,
            kind: Kind::Reseal,
            action_id: format!(
                "{}-{}",
                now.format("%Y%m%dT%H%M%S%.6fZ"),
                std::process::id()
            ),
            operator: Operator::current(),
            identity: Some(Identity::current()),
            command_line,
            reason: Some(reason.to_string()),
            ticket: None,
            target: Target {
                name: None,
                kind: "audit log".into(),
                address: log.display().to_string(),
            },
            object: format!("audit head {}", super::head_path(log).display()),
            server: None,
            key: None,
            action: "reseal: a new head naming this record".into(),
            evidence,
            decision_sources: vec![],
            decision: "reseal".into(),
            heuristic: false,
            outcome: None,
            prev_hash: String::new(),
        }
    }

    /// Whether this record is about `key` on the server `server` reached at `target`:
    /// by the server's identity when both sides know it (any address, any pooler), else
    /// by the address, as records before the identity was kept.
    pub fn is_about(&self, server: Option<&str>, key: &str, target: &Target) -> bool {
        self.on_server(server, target) && self.key.as_deref() == Some(key)
    }

    /// Whether this record is about an open transaction of the producer `producer_id`
    /// (`producer_epoch`, when given) on the partition `partition` (`topic-p`) of the server
    /// `server`: what `resolve kafka --producer-id` asks for. A record keeps the
    /// transaction by its start offset (`topic-p@offset`, which the command does not know
    /// then) and the producer in its evidence, as DescribeProducers reported it.
    pub fn is_about_producer(
        &self,
        server: Option<&str>,
        target: &Target,
        partition: &str,
        producer_id: i64,
        producer_epoch: Option<i32>,
    ) -> bool {
        // A topic's name has no '@' (Kafka allows [a-zA-Z0-9._-]).
        let on_partition = self
            .key
            .as_deref()
            .and_then(|key| key.rsplit_once('@'))
            .is_some_and(|(of, _)| of == partition);
        let producer = &self.evidence["producer"];
        self.on_server(server, target)
            && on_partition
            && producer["producer_id"].as_i64() == Some(producer_id)
            && producer_epoch
                .is_none_or(|epoch| producer["producer_epoch"].as_i64() == Some(epoch.into()))
    }

    /// Whether this record is of the server `server` reached at `target`: by the server's
    /// identity when both sides know it (any address, any pooler), else by the address, as
    /// records before the identity was kept.
    fn on_server(&self, server: Option<&str>, target: &Target) -> bool {
        match (self.server.as_deref(), server) {
            (Some(a), Some(b)) => a == b,
            _ => self.target.kind == target.kind && self.target.address == target.address,
        }
    }

    /// The outcome record that answers this intent.
    pub fn outcome_of(&self, outcome: Outcome) -> Record {
        Record {
            kind: Kind::Outcome,
            time: chrono::Utc::now(),
            outcome: Some(outcome),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as indoubt wrote them before the identity was kept reads as before.
    #[test]
    fn a_record_of_before_the_identity_reads() {
        let line = r#"{"seq":1,"time":"2026-12-01T19:33:50.123456Z","kind":"intent","action_id":"20261201T193350.123456Z-4711","operator":{"user":"root","host":"vm","sudo_user":"anna"},"command_line":["indoubt","resolve"],"reason":"r","ticket":null,"target":{"name":null,"kind":"postgres","address":"postgres@db:5432/shop"},"object":"prepared transaction 'g' in shop","action":"COMMIT PREPARED 'g'","evidence":null,"decision_sources":[],"decision":"commit","heuristic":false,"outcome":null,"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000"}"#;
        let record: Record = serde_json::from_str(line).unwrap();
        assert!(record.identity.is_none());
        assert_eq!(record.operator.sudo_user.as_deref(), Some("anna"));
    }

    #[test]
    fn the_identity_is_the_kernels_not_the_environments() {
        let identity = Identity::current();
        assert_eq!(identity.uid, rustix::process::getuid().as_raw());
        assert_ne!(identity.login_uid, Some(u32::MAX), "unset is none");
        let text = serde_json::to_value(Record::intent(Action {
            target: Target {
                name: None,
                kind: "postgres".into(),
                address: "x".into(),
            },
            object: "o".into(),
            server: None,
            key: "o".into(),
            action: "a".into(),
            evidence: serde_json::Value::Null,
            decision_sources: vec![],
            decision: "commit".into(),
            heuristic: false,
            reason: None,
            ticket: None,
            command_line: vec![],
        }))
        .unwrap();
        assert_eq!(text["identity"]["uid"], identity.uid);
        assert!(text["operator"]["user"].is_string(), "the claim is kept");
    }
}
