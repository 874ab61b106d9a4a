//! indoubt on Kafka releases older than the lab's, each a broker of the test's own
//! (tests/lab/kafka-legacy): 2.8, which has no ListTransactions (transactional ids cannot
//! be named), and 3.7, whose ListTransactions has no duration filter (before 3.8).

#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::schema::{LsoReport, TransactionsReport};
use common::*;
use rdkafka::producer::Producer;
use serde_json::Value;

fn json<T: serde::de::DeserializeOwned>(bootstrap: &str, args: &[&str]) -> (T, Outcome) {
    let mut all = vec!["kafka", args[0], "-b", bootstrap];
    all.extend_from_slice(&args[1..]);
    report(&all)
}

#[test]
fn on_kafka_2_8_an_lso_gap_is_graded_and_only_the_transactional_id_is_unknown() {
    let broker = LegacyBroker::start("2.8.2");
    let bootstrap = broker.bootstrap.clone();
    let topic = create_topic(&bootstrap, "payments", 1);
    committed_writes(&bootstrap, &topic, 0, 1);
    let (open, _) = long_transaction(&bootstrap, &topic, 0);
    committed_writes(&bootstrap, &topic, 0, 2);

    let (lso, out) = json::<LsoReport>(
        &bootstrap,
        &["lso", "--topic", &topic, "--warning-age", "0s"],
    );
    assert_eq!(
        out.code, 1,
        "complete values: WARNING by the thresholds, not UNKNOWN\n{}",
        out.stdout
    );
    assert!(
        lso.findings.iter().all(|f| f.severity != "UNKNOWN"),
        "{:?}",
        lso.findings
    );
    let p0 = &lso.partitions[0];
    assert_eq!(
        (p0.last_stable_offset, p0.open_txn_start_offset),
        (2, Some(2))
    );
    assert!(p0.producer_id.is_some());
    assert_eq!(
        (p0.transactional_id.as_deref(), p0.verdict.as_deref()),
        (None, None)
    );
    let why = p0.verdict_reason.as_deref().unwrap_or("");
    assert!(
        why.contains("Kafka before 3.0") && why.contains("cannot tell whether it hangs"),
        "{why}"
    );
    let gap = &lso.findings[0];
    assert!(
        gap.message
            .contains("no transactional id known (cannot tell"),
        "{}",
        gap.message
    );

    // check grades it too, rather than staying UNKNOWN for as long as the cluster runs 2.8.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  old:\n    bootstrap_servers: {bootstrap}\n    check_topic_regex: '^{}$'\nthresholds:\n  lso:\n    warning_age: 0s\n  hanging:\n    max_transaction_timeout: 0s\n",
            topic.replace('.', "\\\\.")
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["--config"])
        .arg(&config)
        .args(["-o", "json", "check", "--only", "kafka"]));
    let checked: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out.code, 1, "{}", out.stdout);
    let codes: Vec<&str> = checked["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"lso_gap") && codes.contains(&"transaction_unjudgeable"),
        "{codes:?}"
    );

    // resolve kafka: refused without --force, done with it, saying it could not judge.
    let audit = dir.path().join("audit.jsonl");
    let resolve = |extra: &[&str]| {
        let out = run(indoubt()
            .args([
                "-o",
                "json",
                "resolve",
                "kafka",
                "-b",
                &bootstrap,
                "--audit-log",
            ])
            .arg(&audit)
            .args([
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                "2",
                "--yes",
            ])
            .args(extra));
        let value: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (value, out)
    };
    let (refused, out) = resolve(&["--reason", "INC-9"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(refused["findings"][0]["code"], "not_judged");
    let message = refused["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot tell whether it hangs") && message.contains("--force"),
        "{message}"
    );
    assert_eq!(
        read_all(&bootstrap, &topic, 0, "read_committed"),
        ["committed-0"]
    );

    let (done, out) = resolve(&["--force", "--reason", "INC-9: the producer host is gone"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["code"], "resolved");
    assert_eq!(done["verdict"], Value::Null);
    assert!(done["reason"]
        .as_str()
        .unwrap()
        .contains("cannot tell whether it hangs"));
    assert_eq!(
        read_all(&bootstrap, &topic, 0, "read_committed"),
        ["committed-0", "committed-0", "committed-1"],
        "read_committed consumers read past it"
    );
    let record: Value = serde_json::from_str(
        std::fs::read_to_string(&audit)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(record["heuristic"], true, "{record}");
    drop(open);
}

/// The transactional ids of ours that `kafka transactions --min-duration` lists.
fn listed(bootstrap: &str, min: &str, ours: &[&String]) -> Vec<String> {
    let (report, out) =
        json::<TransactionsReport>(bootstrap, &["transactions", "--min-duration", min]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut ids: Vec<String> = report
        .transactions
        .into_iter()
        .map(|t| t.transactional_id)
        .filter(|id| ours.contains(&id))
        .collect();
    ids.sort();
    ids
}

#[test]
fn before_kafka_3_8_min_duration_filters_on_the_client_as_the_broker_would() {
    let old = LegacyBroker::start("3.7.2");
    let lab = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    // The same on both: one open transaction, one committed; the lab's broker (3.9+)
    // filters by itself and is the oracle.
    let mut keep = Vec::new();
    let mut ids = Vec::new();
    for bootstrap in [&old.bootstrap, &lab] {
        let topic = create_topic(bootstrap, "ledger", 1);
        let (open, open_id) = long_transaction(bootstrap, &topic, 0);
        let done_id = unique("done-txn");
        let done = transactional_producer(bootstrap, &done_id);
        done.begin_transaction().unwrap();
        send(&done, &topic, 0, "x");
        done.commit_transaction(WAIT).unwrap();
        keep.push((open, done));
        ids.push((open_id, done_id));
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    for (bootstrap, (open_id, done_id)) in [&old.bootstrap, &lab].into_iter().zip(&ids) {
        let ours = [open_id, done_id];
        assert!(
            listed(bootstrap, "1h", &ours).is_empty(),
            "{bootstrap}: none runs an hour"
        );
        let mut both = vec![open_id.clone(), done_id.clone()];
        both.sort();
        assert_eq!(
            listed(bootstrap, "1ms", &ours),
            both,
            "{bootstrap}: both started more than 1ms ago (the broker keeps a completed one's start time)"
        );
    }
    drop(keep);
}
