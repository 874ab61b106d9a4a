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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
    /// What the finding is about, as a typed key: `check` groups findings about one
    /// object (on one target) into one incident by it, never by their text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<Object>,
    /// Other objects it concerns (the sessions a prepared transaction blocks): a finding
    /// about one of them joins this finding's incident.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Object>,
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
            object: None,
            related: Vec::new(),
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

    /// The command to run next. An OK finding has none: nothing needs doing, and a
    /// command there (a slot's drop) would invite a change nothing called for.
    pub fn next(mut self, next: Next) -> Self {
        if self.severity > Severity::Ok {
            self.next = Some(next);
        }
        self
    }

    /// The same, when there is one.
    pub fn next_if(self, next: Option<Next>) -> Self {
        match next {
            Some(next) => self.next(next),
            None => self,
        }
    }

    pub fn object(mut self, object: Object) -> Self {
        self.object = Some(object);
        self
    }

    pub fn related(mut self, related: impl IntoIterator<Item = Object>) -> Self {
        self.related.extend(related);
        self
    }
}

/// The kinds of object a finding can be about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    PreparedTransaction,
    ReplicationSlot,
    /// A backend, by pid.
    Session,
    Database,
    /// A server setting, by name.
    Setting,
    /// A Kafka topic-partition, `topic-partition`.
    Partition,
    Outbox,
    ReconcileJob,
    /// A Seata global transaction, by its xid.
    SeataGlobal,
    /// An event listener, by the id its registry names it with.
    Listener,
    /// A workflow engine's job or external task, by its id (Camunda, Operaton).
    Job,
    /// A durable workflow, by its id (DBOS), or a queue of them (`queue NAME`).
    Workflow,
    /// An instance of a hand-written saga, by `NAME ID` (its config name and its id).
    Saga,
}

/// One object on one server: its kind and its name as indoubt shows and reads it (server
/// text in its escaped form, so two spellings of one GID are one key).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Object {
    pub kind: ObjectKind,
    pub name: String,
}

impl Object {
    pub fn new(kind: ObjectKind, name: impl Into<String>) -> Object {
        Object {
            kind,
            name: name.into(),
        }
    }

    /// An object named by server text (a GID, a slot name).
    pub fn raw(kind: ObjectKind, name: &RawText) -> Object {
        Object::new(kind, crate::text::escape_bytes(name.as_bytes()))
    }
}

/// Findings about one object, as `check` shows them: indexes into its findings, the
/// worst first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub severity: Severity,
    pub findings: Vec<usize>,
}

/// The findings that are not OK, grouped: two findings are in one group when `place`
/// (where each was found, e.g. the check's target) is the same and they share an object
/// (the one they are about or a related one). Groups come worst first, then in the order
/// of their first finding; inside a group, worst first, then in report order.
pub fn group(findings: &[Finding], place: impl Fn(&Finding) -> String) -> Vec<Group> {
    let problems: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].severity != Severity::Ok)
        .collect();
    // Union-find over the findings: each key joins the first finding that named it.
    let mut parent: Vec<usize> = (0..findings.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_with = std::collections::HashMap::<(String, &Object), usize>::new();
    for &i in &problems {
        let f = &findings[i];
        for key in f.object.iter().chain(&f.related) {
            match first_with.get(&(place(f), key)) {
                Some(&j) => {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    // The earlier finding stays the root, so a group keeps report order.
                    parent[a.max(b)] = a.min(b);
                }
                None => {
                    first_with.insert((place(f), key), i);
                }
            }
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of = std::collections::HashMap::<usize, usize>::new();
    for &i in &problems {
        let r = root(&mut parent, i);
        let g = *group_of.entry(r).or_insert_with(|| {
            groups.push(Group {
                severity: Severity::Ok,
                findings: Vec::new(),
            });
            groups.len() - 1
        });
        groups[g].findings.push(i);
        groups[g].severity = groups[g].severity.max(findings[i].severity);
    }
    for g in &mut groups {
        g.findings
            .sort_by_key(|&i| (std::cmp::Reverse(findings[i].severity), i));
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.severity));
    groups
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
    fn findings_about_one_object_on_one_place_are_one_group_worst_first() {
        let gid = || Object::new(ObjectKind::PreparedTransaction, "g1");
        use crate::codes;
        let at = |s, code: codes::Code, place: &str| {
            Finding::new(s, code, "x", "y").evidence("target", place)
        };
        let findings = vec![
            at(Severity::Warning, codes::HORIZON_HOLDER, "a").object(gid()),
            at(Severity::Ok, codes::WRAPAROUND, "a"),
            at(Severity::Warning, codes::BLOCKED_BY_PREPARED, "a")
                .object(Object::new(ObjectKind::Session, "42")),
            at(Severity::Critical, codes::PREPARED_XACT_AGE, "a")
                .object(gid())
                .related([Object::new(ObjectKind::Session, "42")]),
            // The same GID on another server is another incident.
            at(Severity::Critical, codes::PREPARED_XACT_AGE, "b").object(gid()),
            at(Severity::Unknown, codes::CHECK_FAILED, "a"),
        ];
        let place = |f: &Finding| f.evidence["target"].as_str().unwrap_or("").to_string();
        let groups = group(&findings, place);
        let members: Vec<(Severity, Vec<usize>)> = groups
            .iter()
            .map(|g| (g.severity, g.findings.clone()))
            .collect();
        assert_eq!(
            members,
            [
                (Severity::Critical, vec![3, 0, 2]),
                (Severity::Critical, vec![4]),
                (Severity::Unknown, vec![5]),
            ]
        );
    }

    #[test]
    fn grading_is_inclusive_at_thresholds() {
        assert_eq!(Severity::grade(5, 5, 10), Severity::Warning);
        assert_eq!(Severity::grade(10, 5, 10), Severity::Critical);
        assert_eq!(Severity::grade(4, 5, 10), Severity::Ok);
        assert_eq!(Severity::grade(0, 0, 0), Severity::Critical);
    }
}
