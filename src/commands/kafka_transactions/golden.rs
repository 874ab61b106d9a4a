//! Golden output of `kafka transactions` (report::golden): a Kafka Connect style
//! transactional id of 80 characters open past its timeout on long topic names, a
//! completed one, and one whose coordinator could not describe it.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;

const STUCK: &str =
    "connect-cluster-prod-eu-west-1-orders-sink-postgres-connector-task-7-txn-0000042";
const TOPIC: &str = "prod.eu-west-1.orders.order-events.v1.enriched-with-customer-data";

fn settings() -> TransactionsSettings {
    golden::probe_settings(
        golden::CONFIG,
        &["kafka", "transactions", "--kafka", "prod-events"],
    )
}

fn described(
    id: &str,
    state: &str,
    started_ago_ms: i64,
    partitions: Vec<(String, i32)>,
) -> TransactionDescription {
    TransactionDescription {
        transactional_id: id.into(),
        coordinator: 2,
        state: state.into(),
        producer_id: 1_004_211,
        producer_epoch: 17,
        timeout_ms: 60_000,
        start_time_ms: match started_ago_ms {
            -1 => -1,
            ago => fixed_now().timestamp_millis() - ago,
        },
        partitions,
    }
}

#[test]
fn kafka_transactions() {
    let s = settings();
    let target = crate::report::Target {
        name: Some("prod-events".into()),
        kind: "kafka".into(),
        address: "kafka-1.prod.example:9093".into(),
    };
    let mut all = std::collections::BTreeMap::new();
    all.insert(
        STUCK.to_string(),
        Ok(described(
            STUCK,
            "Ongoing",
            3 * 3_600_000 + 120_000,
            vec![(TOPIC.into(), 11), ("payments".into(), 0)],
        )),
    );
    all.insert(
        "billing-exporter-1".to_string(),
        Ok(described(
            "billing-exporter-1",
            "CompleteCommit",
            -1,
            Vec::new(),
        )),
    );
    all.insert(
        "inventory-sync-3".to_string(),
        Err(anyhow::anyhow!(
            "COORDINATOR_NOT_AVAILABLE from broker 3 (kafka-3.prod.example:9093)"
        )),
    );
    let mut report = report_of(
        target,
        Vec::new(),
        all,
        &Default::default(),
        &s,
        fixed_now().timestamp_millis(),
    );
    report.generated_at = fixed_now();
    let whole: Vec<String> = [
        STUCK.to_string(),
        format!("{TOPIC}-11"),
        "payments-0".into(),
        "inventory-sync-3".into(),
    ]
    .to_vec();
    let partition = format!("{TOPIC}-11");
    let expect = Expect {
        whole,
        may_overflow: vec![STUCK, &partition],
    };
    golden::pin("kafka_transactions", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
