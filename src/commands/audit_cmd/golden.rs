//! Golden output of `audit list` and `audit verify` (report::golden): a log of two
//! resolutions (a rollback of the Narayana transaction, a forced abort on a long topic
//! name whose reason was typed with control characters), intact and tampered (a record
//! edited, one removed, an intent left without its outcome); and no log yet.

use super::*;
use crate::audit::log::Break;
use crate::audit::record::{Kind, Operator, Outcome, Status};
use crate::report::golden::{self, ago, Expect, Layouts};
use crate::report::table;
use crate::settings::CommandSettings;

const LOG: &str = "/var/lib/indoubt/audit.jsonl";
const ENRICHED: &str = "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";
/// Free text the operator typed at the prompt: a pasted escape sequence included.
const REASON: &str = "producer host decommissioned\x1b[2J, see INC-4711";
const REASON_SHOWN: &str = "producer host decommissioned\\u{1b}[2J, see INC-4711";

fn list_settings() -> AuditListSettings {
    match golden::settings(golden::CONFIG, &["audit", "list", "--audit-log", LOG]) {
        CommandSettings::AuditList(s) => s,
        _ => unreachable!("resolved as audit list"),
    }
}

fn target(name: &str, kind: &str, address: &str) -> crate::report::Target {
    crate::report::Target {
        name: Some(name.into()),
        kind: kind.into(),
        address: address.into(),
    }
}

struct Action {
    action_id: &'static str,
    target: crate::report::Target,
    object: String,
    action: String,
    decision: &'static str,
    heuristic: bool,
    reason: Option<&'static str>,
    ticket: Option<&'static str>,
}

fn record(seq: u64, at_ago: i64, kind: Kind, a: &Action, outcome: Option<Outcome>) -> Record {
    Record {
        seq,
        time: ago(at_ago),
        kind,
        action_id: a.action_id.into(),
        operator: Operator {
            user: "oncall".into(),
            host: "bastion-eu-west-1a".into(),
            sudo_user: Some("anna".into()),
        },
        identity: None,
        command_line: vec!["indoubt".into(), "resolve".into()],
        reason: a.reason.map(str::to_string),
        ticket: a.ticket.map(str::to_string),
        target: a.target.clone(),
        object: a.object.clone(),
        server: None,
        key: None,
        action: a.action.clone(),
        evidence: serde_json::Value::Null,
        decision_sources: Vec::new(),
        decision: a.decision.into(),
        heuristic: a.heuristic,
        outcome,
        prev_hash: format!("{seq:064x}"),
    }
}

/// Two resolutions, each an intent and its outcome, and a third intent (the last
/// `open` of them) whose outcome is missing when `open`.
fn records(open: bool) -> Vec<Record> {
    let gid = golden::narayana_gid();
    let pg = Action {
        action_id: "01JDZ1W3N4P5Q6R7S8T9V0W1X2",
        target: target(
            "prod-orders",
            "postgres",
            "monitor@db-orders-1.prod.example:5432/postgres",
        ),
        object: format!("prepared transaction '{gid}' in orders"),
        action: format!("ROLLBACK PREPARED '{gid}'"),
        decision: "rollback",
        heuristic: false,
        reason: None,
        ticket: None,
    };
    let kafka = Action {
        action_id: "01JDZ3K8Q5T2W9X4M7N6B1C0VA",
        target: target("prod-events", "kafka", "kafka-1.prod.example:9093 (SASL_SSL)"),
        object: format!("partition {ENRICHED}-11 producer 1004211 from offset 88120"),
        action: format!("WriteTxnMarkers(abort) to the leader of {ENRICHED}-11: producer 1004211 epoch 17 coordinator epoch 0"),
        decision: "abort",
        heuristic: true,
        reason: Some(REASON),
        ticket: Some("INC-4711"),
    };
    let done = |detail: String| Outcome {
        result: None,
        status: Status::Ok,
        detail,
        code: None,
    };
    let mut out = vec![
        record(1, 3 * 3600, Kind::Intent, &pg, None),
        record(
            2,
            3 * 3600 - 2,
            Kind::Outcome,
            &pg,
            Some(done(format!("ROLLBACK PREPARED '{gid}' done"))),
        ),
        record(3, 40 * 60, Kind::Intent, &kafka, None),
    ];
    if !open {
        out.push(record(
            4,
            40 * 60 - 1,
            Kind::Outcome,
            &kafka,
            Some(done(
                "aborted; LSO moved from 88120 to 89324 (gap now 0)".into(),
            )),
        ));
    }
    out
}

fn snapshot(verification: Verification) -> AuditSnapshot {
    AuditSnapshot {
        path: LOG.into(),
        verification,
        read_at: golden::fixed_now(),
    }
}

fn intact() -> Verification {
    Verification {
        records: records(false),
        ..Verification::default()
    }
}

/// Record 2 edited (record 3 no longer chains to it), the outcome of record 3 removed and
/// record 5 written after: two breaks, and an intent without its outcome.
fn tampered() -> Verification {
    let mut records = records(true);
    let mut later = records[2].clone();
    later.seq = 5;
    later.time = ago(10 * 60);
    later.kind = Kind::Outcome;
    later.action_id = "01JDZ5A0B1C2D3E4F5G6H7J8K9".into();
    records.push(later);
    let open_intents = vec![records[2].clone()];
    Verification {
        records,
        breaks: vec![
            Break {
                message: "line 3 (record 3): its previous-hash does not match line 2: a record before it was edited, removed or moved".into(),
                advice: None,
            },
            Break {
                message: "line 4: record 5 where 4 was expected: records were removed or reordered".into(),
                advice: None,
            },
        ],
        open_intents,
        ..Verification::default()
    }
}

fn pin(name: &str, report: Report<AuditReport>, expect: &Expect) {
    let mut report = report;
    report.generated_at = golden::fixed_now();
    golden::pin(name, Layouts::Both, expect, |style| {
        table::render(&report, style).into_string()
    });
}

fn expect_records<'a>(gid: &'a str, tp: &'a str) -> Expect<'a> {
    Expect {
        whole: vec![
            gid.into(),
            tp.into(),
            REASON_SHOWN.replace(", see INC-4711", ""),
        ],
        may_overflow: vec![gid, tp],
    }
}

#[test]
fn audit_list() {
    let ctx = golden::context();
    let report = list_report(&ctx, &list_settings(), snapshot(intact()));
    assert_eq!(report.status, Severity::Ok);
    let (gid, tp) = (golden::narayana_gid(), format!("{ENRICHED}-11"));
    pin("audit_list", report, &expect_records(&gid, &tp));
}

#[test]
fn audit_list_tampered() {
    let ctx = golden::context();
    let report = list_report(&ctx, &list_settings(), snapshot(tampered()));
    assert_eq!(report.status, Severity::Critical);
    let nexts = golden::nexts(&report.findings);
    assert_eq!(
        nexts,
        vec![format!(
            "indoubt --config /etc/indoubt/prod.yaml audit verify --audit-log {LOG}"
        )]
    );
    let (gid, tp) = (golden::narayana_gid(), format!("{ENRICHED}-11"));
    let mut expect = expect_records(&gid, &tp);
    let next_words = golden::words(&nexts);
    expect.whole.extend(next_words.iter().cloned());
    expect
        .may_overflow
        .extend(next_words.iter().map(String::as_str));
    pin("audit_list_tampered", report, &expect);
}

#[test]
fn audit_list_no_log_yet() {
    let ctx = golden::context();
    let absent = Verification {
        absent: true,
        ..Verification::default()
    };
    let report = list_report(&ctx, &list_settings(), snapshot(absent));
    assert_eq!(
        report.status,
        Severity::Ok,
        "nothing resolved yet is not a fault"
    );
    pin(
        "audit_list_no_log_yet",
        report,
        &Expect {
            whole: vec![LOG.into()],
            may_overflow: Vec::new(),
        },
    );
}

#[test]
fn audit_verify() {
    let report = verify_report(snapshot(intact()));
    assert_eq!(report.status, Severity::Ok);
    let (gid, tp) = (golden::narayana_gid(), format!("{ENRICHED}-11"));
    pin("audit_verify", report, &expect_records(&gid, &tp));
}

#[test]
fn audit_verify_tampered() {
    let report = verify_report(snapshot(tampered()));
    assert_eq!(report.status, Severity::Critical);
    let (gid, tp) = (golden::narayana_gid(), format!("{ENRICHED}-11"));
    pin("audit_verify_tampered", report, &expect_records(&gid, &tp));
}
