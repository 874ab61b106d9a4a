//! Golden output of `resolve kafka` (report::golden), nothing sent: the dry run of the
//! abort of a HANGING transaction on a long topic name; the prompt a forced abort of a
//! LONG one shows before its confirmation (HEURISTIC marked, the reason asked, an
//! earlier intent without an outcome warned of); and the refusals of a transaction its
//! coordinator owns and of one that could not be judged.

use super::*;
use crate::audit::record::Operator;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::resolve::confirm;
use crate::resolve::flow::{EarlierIntent, Proposal as _};
use crate::verdict::Judged;

const ENRICHED: &str = "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";
const CONNECT_ID: &str =
    "connect-cluster-prod-eu-west-1-orders-sink-postgres-connector-task-7-txn-0000042";
const HOSTILE_ID: &str = "payments-\x1b[2J\x1b[31mtx\u{7}-3";
const HOSTILE_SHOWN: &str = "payments-\\u{1b}[2J\\u{1b}[31mtx\\u{7}-3";

fn settings(extra: &[&str]) -> ResolveKafkaSettings {
    let mut args = vec!["resolve", "kafka", "--kafka", "prod-events"];
    args.extend_from_slice(extra);
    match golden::settings(golden::CONFIG, &args) {
        crate::settings::CommandSettings::ResolveKafka(s) => *s,
        _ => unreachable!("resolved as resolve kafka"),
    }
}

fn target() -> Target {
    Target {
        name: Some("prod-events".into()),
        kind: "kafka".into(),
        address: "kafka-1.prod.example:9093 (SASL_SSL)".into(),
    }
}

fn producer(id: i64, epoch: i32, start: i64, last_write_ago: i64) -> ProducerState {
    ProducerState {
        producer_id: id,
        producer_epoch: epoch,
        coordinator_epoch: -1,
        last_sequence: 41,
        last_timestamp_ms: fixed_now().timestamp_millis() - last_write_ago * 1000,
        current_txn_start_offset: start,
    }
}

fn snapshot(
    tp: (&str, i32),
    holder: ProducerState,
    watermarks: (i64, i64),
    judgement: Judgement,
) -> ResolveKafkaSnapshot {
    ResolveKafkaSnapshot {
        target: target(),
        server: None,
        topic_errors: BTreeMap::new(),
        watermarks: Some(watermarks),
        producers: vec![holder, producer(1_004_300, 2, -1, 5)],
        judgement: Judgement {
            judged: judgement
                .judged
                .into_iter()
                .map(|j| Judged {
                    tp: (tp.0.to_string(), tp.1),
                    ..j
                })
                .collect(),
            ..judgement
        },
    }
}

fn judged(producer: ProducerState, id: &str, verdict: Verdict, reason: String) -> Judgement {
    Judgement {
        judged: vec![Judged {
            tp: (String::new(), 0),
            producer,
            transactional_id: Some(id.into()),
            coordinator: Some(2),
            verdict,
            reason,
        }],
        ..Judgement::default()
    }
}

fn hanging() -> ResolveKafkaSnapshot {
    // A coordinator has written markers for it here before: its epoch is the one sent,
    // and the card says which it is.
    let holder = ProducerState {
        coordinator_epoch: 5,
        ..producer(1_004_211, 17, 88_120, 3 * 3600 + 120)
    };
    let reason = format!("the coordinator's transaction of {CONNECT_ID} (Ongoing) does not include this partition: it will never write a marker here");
    snapshot(
        (ENRICHED, 11),
        holder.clone(),
        (89_324, 88_120),
        judged(holder, CONNECT_ID, Verdict::Hanging, reason),
    )
}

fn long() -> ResolveKafkaSnapshot {
    let holder = producer(2_000_117, 3, 5_400, 25 * 60);
    let reason = "the coordinator still owns it (Ongoing, timeout 15m)".to_string();
    snapshot(
        ("payments", 3),
        holder.clone(),
        (5_412, 5_400),
        judged(holder, HOSTILE_ID, Verdict::Long, reason),
    )
}

fn fixed(mut report: Report<ResolveKafkaReport>) -> Report<ResolveKafkaReport> {
    report.generated_at = fixed_now();
    report
}

#[test]
fn resolve_kafka_dry_run() {
    let s = settings(&[
        "--topic",
        ENRICHED,
        "--partition",
        "11",
        "--start-offset",
        "88120",
        "--dry-run",
    ]);
    let Proposed::Abort(data, abort) = proposal_of(&s, hanging()) else {
        panic!("a hanging transaction is proposed for an abort");
    };
    assert!(!abort.plan().heuristic, "judged hanging: not a heuristic");
    let report = fixed(report_of(
        target(),
        vec![flow::dry_run_finding(&abort)],
        *data,
    ));
    let partition = format!("{ENRICHED}-11");
    // The request names it, a colon after it.
    let in_request = format!("{partition}:");
    let expect = Expect {
        whole: vec![
            partition.clone(),
            CONNECT_ID.into(),
            "WriteTxnMarkers(abort)".into(),
        ],
        may_overflow: vec![&partition, &in_request, CONNECT_ID],
    };
    golden::pin("resolve_kafka_dry_run", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// What the terminal shows, in order, up to the confirmation: `--force` over a coordinator
/// that owns it, without `--reason`, after a run that recorded no outcome.
#[test]
fn resolve_kafka_prompt() {
    let s = settings(&[
        "--topic",
        "payments",
        "--partition",
        "3",
        "--start-offset",
        "5400",
        "--force",
    ]);
    let Proposed::Abort(_, abort) = proposal_of(&s, long()) else {
        panic!("--force proposes an abort of a transaction its coordinator owns");
    };
    assert!(abort.plan().heuristic, "forced: a heuristic");
    let earlier = EarlierIntent {
        action_id: "01JDZ3K8Q5T2W9X4M7N6B1C0VA".into(),
        time: ago(40 * 60),
        operator: Operator {
            user: "oncall".into(),
            host: "bastion-eu-west-1a".into(),
            sudo_user: Some("anna".into()),
        },
        object: abort.object(),
        decision: "abort".into(),
        heuristic: true,
        action: abort.plan().action.clone(),
    };
    let render = |style: &Style| {
        let warnings = flow::warnings(std::slice::from_ref(&earlier), style);
        let request = flow::request(&[&abort], &s.confirm, &warnings, style);
        let steps = confirm::steps(&request);
        assert!(
            matches!(steps.last(), Some(confirm::Step::Confirm { .. })),
            "the token is asked last"
        );
        // As the session reads: each question, then what the operator types and Enter.
        let typed = |step: &confirm::Step| match step {
            confirm::Step::AskReason(_) => "producer host decommissioned, INC-4711\n",
            confirm::Step::AskTicket(_) => "INC-4711\n",
            _ => "",
        };
        steps
            .iter()
            .map(|step| step.printed() + typed(step))
            .collect::<String>()
    };
    let expect = Expect {
        whole: vec![
            "payments-3".into(),
            "payments-3@5400".into(),
            HOSTILE_SHOWN.into(),
            "HEURISTIC".into(),
            "01JDZ3K8Q5T2W9X4M7N6B1C0VA".into(),
        ],
        may_overflow: Vec::new(),
    };
    golden::pin("resolve_kafka_prompt", Layouts::Both, &expect, render);
}

#[test]
fn resolve_kafka_refused() {
    let s = settings(&[
        "--topic",
        "payments",
        "--partition",
        "3",
        "--start-offset",
        "5400",
    ]);
    let Proposed::Finished(findings, data) = proposal_of(&s, long()) else {
        panic!("a transaction its coordinator owns is not aborted without --force");
    };
    let report = fixed(report_of(target(), findings, data));
    assert_eq!(report.status, Severity::Warning);
    let expect = Expect {
        whole: vec!["payments-3".into(), HOSTILE_SHOWN.into()],
        may_overflow: Vec::new(),
    };
    golden::pin("resolve_kafka_refused", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// A broker could not be asked for its transactions: not judged, nothing done even forced.
#[test]
fn resolve_kafka_not_judged() {
    let s = settings(&[
        "--topic",
        ENRICHED,
        "--partition",
        "11",
        "--start-offset",
        "88120",
        "--force",
    ]);
    let mut snapshot = hanging();
    snapshot.judgement = Judgement {
        unreadable: vec![
            (
                "broker 3".into(),
                "ListTransactions failed, so a transaction it coordinates could look hanging: timed out after 10s".into(),
            ),
            (
                "producer 1004211 on ".to_string() + ENRICHED + "-11",
                "not judged: a broker could not be asked for its transactions".into(),
            ),
        ],
        ..Judgement::default()
    };
    let Proposed::Finished(findings, data) = proposal_of(&s, snapshot) else {
        panic!("an unjudged transaction is not aborted, even forced");
    };
    let report = fixed(report_of(target(), findings, data));
    let partition = format!("{ENRICHED}-11");
    let expect = Expect {
        whole: vec![partition.clone()],
        may_overflow: vec![&partition],
    };
    golden::pin(
        "resolve_kafka_not_judged",
        Layouts::Both,
        &expect,
        |style| table::render(&report, style).into_string(),
    );
}
