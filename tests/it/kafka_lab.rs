//! The lab's Kafka broker is real: transactions commit and abort, read_committed hides the aborted,
//! an open transaction pins the LSO, and Kafka's own TransactionsCommand runs against it.

use crate::common;

use common::kafka::{consumer, create_topic, read_all, send, transactional_producer, WAIT};
use common::*;
use rdkafka::consumer::Consumer;
use rdkafka::producer::Producer;

fn bootstrap() -> String {
    lab("INDOUBT_LAB_KAFKA_BOOTSTRAP")
}

fn watermarks(topic: &str, isolation: &str) -> (i64, i64) {
    consumer(&bootstrap(), isolation)
        .fetch_watermarks(topic, 0, WAIT)
        .expect("watermarks")
}

#[test]
fn committed_and_aborted_transactions_through_rdkafka() {
    let topic = create_topic(&bootstrap(), "lab-txn", 1);
    let txn_id = unique("lab-producer");
    let producer = transactional_producer(&bootstrap(), &txn_id);

    producer.begin_transaction().unwrap();
    send(&producer, &topic, 0, "committed-1");
    send(&producer, &topic, 0, "committed-2");
    producer.commit_transaction(WAIT).unwrap();

    producer.begin_transaction().unwrap();
    send(&producer, &topic, 0, "aborted-1");
    producer.abort_transaction(WAIT).unwrap();

    assert_eq!(
        read_all(&bootstrap(), &topic, 0, "read_committed"),
        ["committed-1", "committed-2"]
    );
    assert_eq!(
        read_all(&bootstrap(), &topic, 0, "read_uncommitted"),
        ["committed-1", "committed-2", "aborted-1"]
    );

    // Offsets are not message counts: 3 records and 2 control markers.
    let (_, high) = watermarks(&topic, "read_uncommitted");
    assert_eq!(high, 5);

    // An open transaction pins the LSO: librdkafka's "high watermark" under read_committed
    // (its default) is the LSO, and only read_uncommitted shows the real end of the log.
    producer.begin_transaction().unwrap();
    send(&producer, &topic, 0, "open-1");
    let (_, lso) = watermarks(&topic, "read_committed");
    let (_, hw) = watermarks(&topic, "read_uncommitted");
    assert_eq!(lso, 5, "LSO stays at the open transaction's first offset");
    assert_eq!(hw, 6);
    assert_eq!(
        read_all(&bootstrap(), &topic, 0, "read_committed"),
        ["committed-1", "committed-2"]
    );

    // Kafka's own tool sees the same open transaction.
    let out = std::process::Command::new(repo_root().join("tests/lab/kafka-transactions"))
        .args([
            "--bootstrap-server",
            &bootstrap(),
            "describe",
            "--transactional-id",
            &txn_id,
        ])
        .output()
        .expect("run TransactionsCommand");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "TransactionsCommand failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&txn_id) && stdout.contains("Ongoing"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{topic}-0")), "{stdout}");

    producer.abort_transaction(WAIT).unwrap();
}
