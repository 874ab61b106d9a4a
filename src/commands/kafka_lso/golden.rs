//! Golden output of `kafka lso` (report::golden): gaps on long topic names held by a
//! HANGING transaction (its resolve is the next command), a LONG one its coordinator
//! owns, one whose holder could not be judged and one whose producers could not be read;
//! a partition without a leader, a topic the principal may not describe, and a holder
//! whose transactional id carries control characters.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::verdict::Judged;

pub(crate) const ENRICHED: &str =
    "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";
pub(crate) const CONNECT_ID: &str =
    "connect-cluster-prod-eu-west-1-orders-sink-postgres-connector-task-7-txn-0000042";
/// A transactional id is any string: this one would clear the screen and colour it red.
pub(crate) const HOSTILE_ID: &str = "payments-\x1b[2J\x1b[31mtx\u{7}-3";
/// Shown as the tables escape it.
pub(crate) const HOSTILE_SHOWN: &str = "payments-\\u{1b}[2J\\u{1b}[31mtx\\u{7}-3";

fn settings() -> LsoSettings {
    golden::probe_settings(golden::CONFIG, &["kafka", "lso", "--kafka", "prod-events"])
}

pub(crate) fn target() -> Target {
    Target {
        name: Some("prod-events".into()),
        kind: "kafka".into(),
        address: "kafka-1.prod.example:9093 (SASL_SSL)".into(),
    }
}

pub(crate) fn ms_ago(seconds: i64) -> i64 {
    fixed_now().timestamp_millis() - seconds * 1000
}

pub(crate) fn producer(id: i64, epoch: i32, start: i64, last_write_ago: i64) -> ProducerState {
    ProducerState {
        producer_id: id,
        producer_epoch: epoch,
        coordinator_epoch: -1,
        last_sequence: 41,
        last_timestamp_ms: ms_ago(last_write_ago),
        current_txn_start_offset: start,
    }
}

fn tp(topic: &str, partition: i32) -> TopicPartition {
    (topic.to_string(), partition)
}

fn snapshot() -> LsoSnapshot {
    let hanging = tp(ENRICHED, 11);
    let long = tp("payments", 3);
    let unjudged = tp("invoices.eu-west-1.v2", 0);
    let unread = tp("audit-trail", 5);
    let leaderless = tp(ENRICHED, 4);
    let hanging_holder = producer(1_004_211, 17, 88_120, 3 * 3600 + 120);
    let long_holder = producer(2_000_117, 3, 5_400, 25 * 60);
    let unjudged_holder = producer(3_100_002, 0, 77, 50 * 60);
    let mut topic_errors = BTreeMap::new();
    topic_errors.extend(
        BrokerError::from_code(29, "Metadata of payroll.salaries")
            .map(|e| ("payroll.salaries".to_string(), e)),
    );
    let watermarks = [
        (hanging.clone(), Ok((89_324, 88_120))),
        (tp(ENRICHED, 0), Ok((1_000, 1_000))),
        (
            leaderless.clone(),
            Err(anyhow::anyhow!(
                "partition {ENRICHED}-4 has no leader (LEADER_NOT_AVAILABLE)"
            )),
        ),
        (long.clone(), Ok((5_412, 5_400))),
        (unjudged.clone(), Ok((90, 77))),
        (unread.clone(), Ok((20_000, 19_000))),
    ]
    .into_iter()
    .collect();
    let producers = [
        (
            hanging.clone(),
            Ok(vec![hanging_holder.clone(), producer(1_004_300, 2, -1, 5)]),
        ),
        (long.clone(), Ok(vec![long_holder.clone()])),
        (unjudged.clone(), Ok(vec![unjudged_holder.clone()])),
        (
            unread.clone(),
            Err(anyhow::anyhow!(
                "DescribeProducers of audit-trail-5 from broker 2: TOPIC_AUTHORIZATION_FAILED (29)"
            )),
        ),
    ]
    .into_iter()
    .collect();
    let first_unstable_at_ms = [
        (hanging.clone(), Ok(Some(ms_ago(3 * 3600 + 120)))),
        (long.clone(), Ok(Some(ms_ago(25 * 60)))),
        (unjudged.clone(), Ok(Some(ms_ago(50 * 60)))),
        (
            unread.clone(),
            Err(anyhow::anyhow!(
                "Fetch of audit-trail-5 from broker 2: TOPIC_AUTHORIZATION_FAILED (29)"
            )),
        ),
    ]
    .into_iter()
    .collect();
    let judgement = Judgement {
        judged: vec![
            Judged {
                tp: hanging,
                producer: hanging_holder,
                transactional_id: Some(CONNECT_ID.into()),
                coordinator: Some(2),
                verdict: Verdict::Hanging,
                reason: format!("the coordinator's transaction of {CONNECT_ID} (Ongoing) does not include this partition: it will never write a marker here"),
            },
            Judged {
                tp: long,
                producer: long_holder,
                transactional_id: Some(HOSTILE_ID.into()),
                coordinator: Some(1),
                verdict: Verdict::Long,
                reason: "the coordinator still owns it (Ongoing, timeout 15m)".into(),
            },
        ],
        unreadable: vec![
            (
                "producer 3100002 on invoices.eu-west-1.v2-0".into(),
                "not judged: a broker could not be asked for its transactions".into(),
            ),
            (
                "broker 3".into(),
                "ListTransactions failed, so a transaction it coordinates could look hanging: timed out after 10s".into(),
            ),
        ],
        unjudgeable: Vec::new(),
    };
    LsoSnapshot {
        target: target(),
        topic_errors,
        partitions: vec![
            tp(ENRICHED, 0),
            leaderless,
            tp(ENRICHED, 11),
            tp("payments", 3),
            tp("invoices.eu-west-1.v2", 0),
            tp("audit-trail", 5),
        ],
        watermarks,
        producers,
        first_unstable_at_ms,
        judgement,
        read_at_ms: fixed_now().timestamp_millis(),
    }
}

#[test]
fn kafka_lso() {
    let ctx = golden::context();
    let mut report = report_of(&ctx, &settings(), snapshot());
    report.generated_at = fixed_now();
    let nexts = golden::nexts(&report.findings);
    // The hanging one: its resolve. Not judged: `kafka hanging` again (resolve refuses
    // it, forced or not). No holder named: its producers. The long one ends by itself.
    let tail = |i: usize| {
        nexts[i]
            .split(" prod-events ")
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        (0..nexts.len()).map(tail).collect::<Vec<_>>(),
        vec![
            format!("--topic {ENRICHED} --partition 11 --start-offset 88120 --dry-run"),
            "--topic invoices.eu-west-1.v2 --partition 0".into(),
            "--topic audit-trail --partition 5".into(),
        ],
        "{nexts:?}"
    );
    assert!(
        nexts[1].contains(" kafka hanging --kafka prod-events ")
            && nexts[2].contains(" kafka producers --kafka prod-events "),
        "{nexts:?}"
    );
    // Its age could not be read: not OK under the thresholds, UNKNOWN.
    let unread = report
        .data
        .partitions
        .iter()
        .find(|p| p.topic == "audit-trail");
    assert_eq!(unread.map(|p| p.severity), Some(Severity::Unknown));
    let partition = format!("{ENRICHED}-11");
    let mut whole = vec![
        partition.clone(),
        format!("{ENRICHED}-4"),
        CONNECT_ID.to_string(),
        HOSTILE_SHOWN.to_string(),
        "payments-3".into(),
        "invoices.eu-west-1.v2-0".into(),
        "audit-trail-5".into(),
        "payroll.salaries".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.extend([partition.as_str(), CONNECT_ID]);
    let leaderless = format!("{ENRICHED}-4");
    may_overflow.push(&leaderless);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("kafka_lso", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// Nothing behind: the answer and how much was read, no table.
#[test]
fn kafka_lso_clean() {
    let ctx = golden::context();
    let mut snapshot = snapshot();
    snapshot.topic_errors.clear();
    snapshot.watermarks = snapshot
        .partitions
        .iter()
        .map(|tp| (tp.clone(), Ok((1_000, 1_000))))
        .collect();
    snapshot.producers.clear();
    snapshot.first_unstable_at_ms.clear();
    snapshot.judgement = Judgement::default();
    let mut report = report_of(&ctx, &settings(), snapshot);
    report.generated_at = fixed_now();
    assert_eq!(report.status, Severity::Ok);
    golden::pin(
        "kafka_lso_clean",
        Layouts::Both,
        &Expect::default(),
        |style| table::render(&report, style).into_string(),
    );
}
