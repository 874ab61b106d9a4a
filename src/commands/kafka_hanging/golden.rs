//! Golden output of `kafka hanging` (report::golden): a HANGING transaction of a long
//! transactional id on a long topic name (its resolve is the next command), a LONG one
//! its coordinator owns whose id carries control characters, a producer whose
//! transaction could not be judged (UNKNOWN, with why), and a partition without a leader.

use super::*;
use crate::kafka::cluster::PartitionMeta;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::verdict::Judged;

const ENRICHED: &str = "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";
const CONNECT_ID: &str =
    "connect-cluster-prod-eu-west-1-orders-sink-postgres-connector-task-7-txn-0000042";
const HOSTILE_ID: &str = "payments-\x1b[2J\x1b[31mtx\u{7}-3";
const HOSTILE_SHOWN: &str = "payments-\\u{1b}[2J\\u{1b}[31mtx\\u{7}-3";

fn settings() -> HangingSettings {
    golden::probe_settings(
        golden::CONFIG,
        &["kafka", "hanging", "--kafka", "prod-events"],
    )
}

fn ms_ago(seconds: i64) -> i64 {
    fixed_now().timestamp_millis() - seconds * 1000
}

fn producer(id: i64, epoch: i32, start: i64, last_write_ago: i64) -> ProducerState {
    ProducerState {
        producer_id: id,
        producer_epoch: epoch,
        coordinator_epoch: 4,
        last_sequence: 41,
        last_timestamp_ms: ms_ago(last_write_ago),
        current_txn_start_offset: start,
    }
}

fn tp(topic: &str, partition: i32) -> TopicPartition {
    (topic.to_string(), partition)
}

fn topic(partitions: &[(i32, i32)]) -> TopicMeta {
    TopicMeta {
        partitions: partitions
            .iter()
            .map(|&(p, leader)| {
                let meta = PartitionMeta {
                    leader,
                    replicas: vec![1, 2, 3],
                    error: (leader < 0).then(|| "LEADER_NOT_AVAILABLE (5)".to_string()),
                };
                (p, meta)
            })
            .collect(),
    }
}

fn snapshot() -> HangingSnapshot {
    let hanging = producer(1_004_211, 17, 88_120, 3 * 3600 + 120);
    let long = producer(2_000_117, 3, 5_400, 25 * 60);
    let unjudged = producer(3_100_002, 0, 77, 50 * 60);
    let topics = [
        (ENRICHED.to_string(), topic(&[(0, 1), (4, -1), (11, 2)])),
        ("payments".to_string(), topic(&[(3, 3)])),
        ("invoices.eu-west-1.v2".to_string(), topic(&[(0, 1)])),
    ]
    .into_iter()
    .collect();
    let producers = [
        (tp(ENRICHED, 0), Ok(vec![producer(1_004_300, 2, -1, 5)])),
        (
            tp(ENRICHED, 4),
            Err(anyhow::anyhow!(
                "partition {ENRICHED}-4 has no leader (LEADER_NOT_AVAILABLE (5))"
            )),
        ),
        (tp(ENRICHED, 11), Ok(vec![hanging.clone()])),
        (tp("payments", 3), Ok(vec![long.clone()])),
        (tp("invoices.eu-west-1.v2", 0), Ok(vec![unjudged])),
    ]
    .into_iter()
    .collect();
    let judgement = Judgement {
        judged: vec![
            Judged {
                tp: tp(ENRICHED, 11),
                producer: hanging,
                transactional_id: Some(CONNECT_ID.into()),
                coordinator: Some(2),
                verdict: Verdict::Hanging,
                reason: format!("the coordinator's transaction of {CONNECT_ID} (Ongoing) does not include this partition: it will never write a marker here"),
            },
            Judged {
                tp: tp("payments", 3),
                producer: long,
                transactional_id: Some(HOSTILE_ID.into()),
                coordinator: Some(1),
                verdict: Verdict::Long,
                reason: "the coordinator still owns it (Ongoing, timeout 15m)".into(),
            },
        ],
        unreadable: vec![(
            "transactional id invoices-exporter-0".into(),
            "DescribeTransactions failed: COORDINATOR_LOAD_IN_PROGRESS (14) from broker 1 (kafka-1.prod.example:9093)".into(),
        )],
        unjudgeable: Vec::new(),
    };
    HangingSnapshot {
        target: Target {
            name: Some("prod-events".into()),
            kind: "kafka".into(),
            address: "kafka-1.prod.example:9093 (SASL_SSL)".into(),
        },
        topic_errors: BTreeMap::new(),
        brokers: [1, 2, 3]
            .into_iter()
            .map(|b| (b, format!("kafka-{b}.prod.example:9093")))
            .collect(),
        topics,
        producers,
        judgement,
        read_at_ms: fixed_now().timestamp_millis(),
    }
}

#[test]
fn kafka_hanging() {
    let ctx = golden::context();
    let s = settings();
    let snapshot = snapshot();
    // Judged: the open transactions whose last write is older than the timeout (not the
    // producer that wrote 5 s ago, nor one without a transaction), in partition order.
    let asked = candidates(&snapshot.producers, &s, snapshot.read_at_ms);
    assert_eq!(
        asked.iter().map(|(_, p)| p.producer_id).collect::<Vec<_>>(),
        vec![3_100_002, 2_000_117, 1_004_211]
    );
    let mut report = report_of(&ctx, &s, snapshot);
    report.generated_at = fixed_now();
    let nexts = golden::nexts(&report.findings);
    assert_eq!(nexts.len(), 1, "only the hanging transaction has a resolve");
    let partition = format!("{ENRICHED}-11");
    let leaderless = format!("{ENRICHED}-4");
    let mut whole = vec![
        partition.clone(),
        leaderless.clone(),
        CONNECT_ID.to_string(),
        HOSTILE_SHOWN.to_string(),
        "payments-3".into(),
        "invoices-exporter-0".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.extend([partition.as_str(), leaderless.as_str(), CONNECT_ID]);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("kafka_hanging", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// A cluster mid-upgrade: a broker before Kafka 3.0 cannot list transactions, so an
/// unlisted producer's transaction cannot be judged: a WARNING, and only a forced
/// resolve acts on it (its next command says --force).
#[test]
fn kafka_hanging_old_brokers() {
    let ctx = golden::context();
    let mut snapshot = snapshot();
    let unjudged = producer(3_100_002, 0, 77, 50 * 60);
    snapshot.judgement.unreadable.clear();
    snapshot.judgement.judged.truncate(1);
    snapshot.judgement.unjudgeable = vec![(
        tp("invoices.eu-west-1.v2", 0),
        unjudged,
        "cannot tell whether it hangs: broker(s) 3 have no ListTransactions (Kafka before 3.0), so its transactional id and its coordinator's view are unknown".into(),
    )];
    snapshot.producers.remove(&tp(ENRICHED, 4));
    let mut report = report_of(&ctx, &settings(), snapshot);
    report.generated_at = fixed_now();
    let nexts = golden::nexts(&report.findings);
    assert_eq!(nexts.len(), 2, "{nexts:?}");
    assert!(
        nexts[0].ends_with(
            " --topic invoices.eu-west-1.v2 --partition 0 --start-offset 77 --force --dry-run"
        ),
        "{nexts:?}"
    );
    let partition = format!("{ENRICHED}-11");
    let mut whole = vec![partition.clone(), "invoices.eu-west-1.v2-0".into()];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.extend([partition.as_str(), CONNECT_ID]);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin(
        "kafka_hanging_old_brokers",
        Layouts::Both,
        &expect,
        |style| table::render(&report, style).into_string(),
    );
}
