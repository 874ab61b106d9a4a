//! `indoubt resolve kafka` on the lab's brokers: a hanging transaction aborted, the LSO
//! advancing and read_committed consumers reading past it; an owned one refused; a
//! principal without ClusterAction refused by the broker, with nothing written.

use crate::common;

use common::kafka::*;
use common::*;
use serde_json::Value;

fn resolve(bootstrap: &str, audit: &std::path::Path, args: &[&str]) -> (Value, Outcome) {
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "resolve",
            "kafka",
            "-b",
            bootstrap,
            "--audit-log",
        ])
        .arg(audit)
        .args(args));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

#[test]
fn a_hanging_transaction_is_aborted_and_consumers_read_past_it() {
    for (generation, bootstrap) in brokers() {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit.jsonl");
        let topic = create_topic(&bootstrap, "stuck", 1);
        committed_writes(&bootstrap, &topic, 0, 1);
        let (pid, _, _) = hanging_transaction(&bootstrap, &topic, 0);
        committed_writes(&bootstrap, &topic, 0, 2);
        assert_eq!(
            read_all(&bootstrap, &topic, 0, "read_committed"),
            ["committed-0"],
            "{generation}: stuck behind the hanging write"
        );

        let start = "2"; // one record and its commit marker came first
        let (dry, out) = resolve(
            &bootstrap,
            &audit,
            &[
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                start,
                "--dry-run",
            ],
        );
        assert_eq!(out.code, 0, "{generation}: {}", out.stderr);
        assert!(
            dry["request"]
                .as_str()
                .is_some_and(|r| r.contains(&format!("producer {pid}"))),
            "{generation}: {dry}"
        );
        assert_eq!(
            read_all(&bootstrap, &topic, 0, "read_committed").len(),
            1,
            "a dry run changes nothing"
        );
        let (refused, out) = resolve(
            &bootstrap,
            &audit,
            &[
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                start,
            ],
        );
        assert_eq!(
            (out.code, refused["findings"][0]["code"].as_str()),
            (1, Some("not_confirmed")),
            "no terminal, no --yes"
        );

        let (done, out) = resolve(
            &bootstrap,
            &audit,
            &[
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                start,
                "--yes",
                "--reason",
                "INC-4 hanging txn",
                "--ticket",
                "INC-4",
            ],
        );
        assert_eq!(out.code, 0, "{generation}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(done["findings"][0]["code"], "resolved");
        assert_eq!(done["verdict"], "hanging");
        let (before, after) = (
            done["last_stable_offset_before"].as_i64().unwrap(),
            done["last_stable_offset_after"].as_i64().unwrap(),
        );
        assert_eq!(before, 2);
        assert!(
            after > before,
            "{generation}: the LSO advanced: {before} -> {after}"
        );
        assert!(done["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("LSO moved from 2 to"));
        // Both read after the abort, as a pair: the abort marker is the one new offset.
        assert_eq!(
            done["high_watermark_after"].as_i64(),
            done["high_watermark"].as_i64().map(|hw| hw + 1),
            "{generation}: {done}"
        );
        assert!(after <= done["high_watermark_after"].as_i64().unwrap());
        // A raw transactional write has no coordinator: DescribeProducers says -1, the
        // marker carries 0, and the report says so.
        assert_eq!(
            (
                done["coordinator_epoch_reported"].as_i64(),
                done["coordinator_epoch"].as_i64()
            ),
            (Some(-1), Some(0)),
            "{generation}"
        );
        assert!(
            done["coordinator_epoch_reason"]
                .as_str()
                .unwrap()
                .contains("DescribeProducers reports -1"),
            "{done}"
        );
        // The dry run names the epoch it would send; its reason is said once, as its own
        // field (the summary's "coordinator epoch" line), not again in the message.
        let message = dry["findings"][0]["message"].as_str().unwrap();
        assert!(
            message.contains("coordinator epoch 0") && !message.contains("DescribeProducers"),
            "{message}"
        );
        assert!(
            dry["coordinator_epoch_reason"]
                .as_str()
                .is_some_and(|r| r.contains("DescribeProducers reports -1")),
            "{dry}"
        );
        assert_eq!(
            read_all(&bootstrap, &topic, 0, "read_committed"),
            ["committed-0", "committed-0", "committed-1"],
            "{generation}: read_committed consumers read past it (the aborted write stays invisible)"
        );
        let (again, out) = resolve(
            &bootstrap,
            &audit,
            &[
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                start,
                "--yes",
                "--reason",
                "r",
            ],
        );
        assert_eq!(
            (out.code, again["findings"][0]["code"].as_str()),
            (0, Some("already_resolved"))
        );
        // An offset where no transaction ever was, or a trail that never saw this one:
        // not there (exit 3), never "already resolved".
        let other_trail = audit.with_file_name("other.jsonl");
        for (trail, offset) in [(&audit, "1"), (&other_trail, start)] {
            let (absent, out) = resolve(
                &bootstrap,
                trail,
                &[
                    "--topic",
                    &topic,
                    "--partition",
                    "0",
                    "--start-offset",
                    offset,
                    "--dry-run",
                ],
            );
            assert_eq!(
                (out.code, absent["findings"][0]["code"].as_str()),
                (3, Some("not_there")),
                "{generation} at {offset}: {absent:#}"
            );
        }

        let verify = run(indoubt()
            .args(["-o", "json", "audit", "verify", "--audit-log"])
            .arg(&audit));
        assert_eq!(verify.code, 0, "{}", verify.stdout);
        let v: Value = serde_json::from_str(&verify.stdout).unwrap();
        let records = v["records"].as_array().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(
            (
                records[0]["decision"].as_str(),
                records[0]["ticket"].as_str()
            ),
            (Some("abort"), Some("INC-4"))
        );
        assert_eq!(records[1]["outcome"]["status"], "ok");
    }
}

/// Asked for by its producer (`--producer-id`, `--producer-epoch`, `--coordinator-epoch`,
/// as `kafka producers` shows them), a transaction indoubt aborted earlier is found in the
/// audit trail by the cluster's id and the producer its record names: "already resolved",
/// naming that record (exit 0), as when it is asked for by its start offset. A producer
/// the trail never saw resolved there, or a trail that never saw this one, is not there
/// (exit 3), never "already resolved".
#[test]
fn a_transaction_aborted_by_its_producer_id_is_already_resolved_when_asked_again() {
    for (generation, bootstrap) in brokers() {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit.jsonl");
        let topic = create_topic(&bootstrap, "by-producer", 1);
        let (pid, epoch, _) = hanging_transaction(&bootstrap, &topic, 0);
        let epoch = epoch.to_string();
        let by_producer = |trail: &std::path::Path, pid: i64| {
            resolve(
                &bootstrap,
                trail,
                &[
                    "--topic",
                    &topic,
                    "--partition",
                    "0",
                    "--producer-id",
                    &pid.to_string(),
                    "--producer-epoch",
                    &epoch,
                    "--coordinator-epoch",
                    "0",
                    "--yes",
                    "--reason",
                    "INC-5 hanging txn",
                ],
            )
        };
        let (done, out) = by_producer(&audit, pid);
        assert_eq!(
            (out.code, done["findings"][0]["code"].as_str()),
            (0, Some("resolved")),
            "{generation}: {}\n{}",
            out.stdout,
            out.stderr
        );

        let (again, out) = by_producer(&audit, pid);
        let finding = &again["findings"][0];
        assert_eq!(
            (out.code, finding["code"].as_str()),
            (0, Some("already_resolved")),
            "{generation}: {again:#}\n{}",
            out.stderr
        );
        let message = finding["message"].as_str().unwrap();
        assert!(
            message.contains("already resolved")
                && message.contains("ran abort at")
                && message.contains(&format!("audit record 2 in {}", audit.display())),
            "{generation}: {message}"
        );
        assert_eq!(finding["evidence"]["audit_seq"], 2, "{finding:#}");
        assert_eq!(finding["evidence"]["decision"], "abort", "{finding:#}");
        // Asked for by its start offset, the same record answers.
        let start = done["start_offset"].as_i64().unwrap().to_string();
        let (by_offset, out) = resolve(
            &bootstrap,
            &audit,
            &[
                "--topic",
                &topic,
                "--partition",
                "0",
                "--start-offset",
                &start,
                "--dry-run",
            ],
        );
        assert_eq!(
            (out.code, by_offset["findings"][0]["code"].as_str()),
            (0, Some("already_resolved")),
            "{generation}: {by_offset:#}"
        );

        // A producer id never resolved here, and a trail that never saw this one.
        let other_trail = audit.with_file_name("other.jsonl");
        for (trail, asked) in [(&audit, pid + 1_000_000), (&other_trail, pid)] {
            let (absent, out) = by_producer(trail, asked);
            assert_eq!(
                (out.code, absent["findings"][0]["code"].as_str()),
                (3, Some("not_there")),
                "{generation}: producer {asked} with {}: {absent:#}",
                trail.display()
            );
        }
    }
}

#[test]
fn a_transaction_its_coordinator_owns_is_refused_unless_forced() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let topic = create_topic(&bootstrap, "owned", 1);
    let (producer, _) = long_transaction(&bootstrap, &topic, 0);
    let (refused, out) = resolve(
        &bootstrap,
        &audit,
        &[
            "--topic",
            &topic,
            "--partition",
            "0",
            "--start-offset",
            "0",
            "--yes",
            "--reason",
            "r",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(refused["findings"][0]["code"], "owned_by_coordinator");
    assert_eq!(refused["verdict"], "long");
    let (forced, out) = resolve(
        &bootstrap,
        &audit,
        &[
            "--topic",
            &topic,
            "--partition",
            "0",
            "--start-offset",
            "0",
            "--force",
            "--yes",
            "--reason",
            "cannot wait an hour",
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(forced["findings"][0]["code"], "resolved");
    let records: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        records[0]["heuristic"], true,
        "aborting what the coordinator owns is a person's call"
    );
    drop(producer);
}

#[test]
fn a_principal_without_cluster_action_is_refused_and_nothing_is_written() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let topic = create_topic(&bootstrap, "denied", 1);
    committed_writes(&bootstrap, &topic, 0, 1);
    hanging_transaction(&bootstrap, &topic, 0);
    committed_writes(&bootstrap, &topic, 0, 1);
    let (user, password) = scram_user("no-cluster-action");
    // WriteTxnMarkers needs ClusterAction on the cluster: denied to this user only, and
    // only during this test. (While any ACL names the cluster, the lab's "allow when no
    // ACL is found" no longer covers it for the other SASL users either.)
    let _deny = ClusterAcl::deny(&bootstrap, &user, "ClusterAction");
    let mut args = vec![
        "-o".to_string(),
        "json".into(),
        "resolve".into(),
        "kafka".into(),
        "--topic".into(),
        topic.clone(),
        "--partition".into(),
        "0".into(),
        "--start-offset".into(),
        "2".into(),
        "--yes".into(),
        "--reason".into(),
        "INC-9".into(),
        "--audit-log".into(),
        audit.to_string_lossy().into_owned(),
    ];
    args.extend(sasl_args_as(
        &user,
        "SCRAM-SHA-256",
        &password,
        &lab("INDOUBT_LAB_KAFKA_CA"),
    ));
    let out = run(indoubt().args(&args));
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let finding = &report["findings"][0];
    assert_eq!(finding["code"], "failed");
    assert!(
        finding["advice"]
            .as_str()
            .unwrap_or("")
            .contains("ClusterAction on the CLUSTER"),
        "{finding}"
    );
    assert_eq!(
        (
            report["outcome"]["status"].as_str(),
            report["outcome"]["code"].as_str()
        ),
        (Some("error"), Some("CLUSTER_AUTHORIZATION_FAILED")),
        "a refusal, so nothing was written: {report}"
    );
    assert_eq!(
        read_all(&bootstrap, &topic, 0, "read_committed"),
        ["committed-0"],
        "the partition is still stuck behind the hanging write"
    );
    let records: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "the intent, then its outcome");
    assert_eq!(records[1]["outcome"]["status"], "error");
}

/// A DENY ACL on the cluster for one principal, removed when dropped (also on failure).
struct ClusterAcl {
    args: Vec<String>,
}

impl ClusterAcl {
    fn deny(bootstrap: &str, user: &str, operation: &str) -> ClusterAcl {
        let acl = ClusterAcl {
            args: [
                "--bootstrap-server",
                bootstrap,
                "--deny-principal",
                &format!("User:{user}"),
                "--operation",
                operation,
                "--cluster",
            ]
            .map(String::from)
            .to_vec(),
        };
        let out = acl.run("--add");
        assert!(
            out.status.success(),
            "kafka-acls --add: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        acl
    }

    fn run(&self, action: &str) -> std::process::Output {
        std::process::Command::new(repo_root().join("tests/lab/kafka-acls"))
            .arg(action)
            .args(&self.args)
            .arg("--force")
            .output()
            .expect("kafka-acls")
    }
}

impl Drop for ClusterAcl {
    fn drop(&mut self) {
        // No panic here: it may run while a failed test unwinds.
        let _ = self.run("--remove");
    }
}
