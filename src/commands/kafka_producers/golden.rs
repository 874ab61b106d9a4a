//! Golden output of `kafka producers` (report::golden): the producers of a partition of
//! a long topic name, one with an open transaction; and a partition whose leader is
//! unknown, so its producers could not be asked.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;

const ENRICHED: &str = "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";

fn settings(partition: &str) -> ProducersSettings {
    golden::probe_settings(
        golden::CONFIG,
        &[
            "kafka",
            "producers",
            "--kafka",
            "prod-events",
            "--topic",
            ENRICHED,
            "--partition",
            partition,
        ],
    )
}

fn ms_ago(seconds: i64) -> i64 {
    fixed_now().timestamp_millis() - seconds * 1000
}

fn target() -> Target {
    Target {
        name: Some("prod-events".into()),
        kind: "kafka".into(),
        address: "kafka-1.prod.example:9093 (SASL_SSL)".into(),
    }
}

fn pin(name: &str, report: Report<ProducersReport>) {
    let mut report = report;
    report.generated_at = fixed_now();
    let partition = format!("{ENRICHED}-{}", report.data.partition);
    let expect = Expect {
        whole: vec![partition.clone()],
        may_overflow: vec![&partition],
    };
    golden::pin(name, Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

#[test]
fn kafka_producers() {
    let producers = vec![
        ProducerState {
            producer_id: 1_004_211,
            producer_epoch: 17,
            coordinator_epoch: -1,
            last_sequence: 2_147_483_000,
            last_timestamp_ms: ms_ago(3 * 3600 + 120),
            current_txn_start_offset: 88_120,
        },
        ProducerState {
            producer_id: 1_004_300,
            producer_epoch: 2,
            coordinator_epoch: 4,
            last_sequence: 41,
            last_timestamp_ms: ms_ago(5),
            current_txn_start_offset: -1,
        },
    ];
    let snapshot = ProducersSnapshot {
        target: target(),
        topic_errors: BTreeMap::new(),
        leader: Some(2),
        producers: Some(Ok(producers)),
        read_at_ms: fixed_now().timestamp_millis(),
    };
    let report = report_of(&settings("11"), snapshot);
    assert_eq!(report.status, Severity::Ok);
    pin("kafka_producers", report);
}

#[test]
fn kafka_producers_leaderless() {
    let snapshot = ProducersSnapshot {
        target: target(),
        topic_errors: BTreeMap::new(),
        leader: None,
        producers: Some(Err(anyhow::anyhow!(
            "partition {ENRICHED}-4 has no leader (LEADER_NOT_AVAILABLE (5))"
        ))),
        read_at_ms: fixed_now().timestamp_millis(),
    };
    let report = report_of(&settings("4"), snapshot);
    assert_eq!(report.status, Severity::Unknown);
    pin("kafka_producers_leaderless", report);
}
