//! `indoubt kafka lso|producers|transactions|hanging` against the lab's real brokers,
//! on both transaction protocol generations, compared with Kafka's own TransactionsCommand.

use crate::common;

use common::kafka::*;
use common::schema::{HangingReport, LsoReport, ProducersReport, TransactionsReport};
use common::*;
use rdkafka::producer::Producer;
use serde::de::DeserializeOwned;
use std::collections::BTreeSet;

fn json<T: DeserializeOwned>(args: &[&str]) -> (T, Outcome) {
    let mut all = vec!["kafka"];
    all.extend_from_slice(args);
    report(&all)
}

/// Kafka's kafka-transactions.sh find-hanging: (partition, producer id, start offset).
fn kafka_tool_hanging(bootstrap: &str, topic: &str) -> BTreeSet<(i32, i64, i64)> {
    let out = std::process::Command::new(repo_root().join("tests/lab/kafka-transactions"))
        .args([
            "--bootstrap-server",
            bootstrap,
            "find-hanging",
            "--topic",
            topic,
            "--max-transaction-timeout",
            "0",
        ])
        .output()
        .expect("run TransactionsCommand");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "TransactionsCommand: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // Topic Partition ProducerId ProducerEpoch CoordinatorEpoch StartOffset LastTimestamp Duration(min)
            if cols.first() != Some(&topic) || cols.len() < 6 {
                return None;
            }
            Some((
                cols[1].parse().ok()?,
                cols[2].parse().ok()?,
                cols[5].parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn hanging_and_long_transactions_on_both_protocol_generations_agree_with_kafkas_tool() {
    for (generation, bootstrap) in brokers() {
        let topic = create_topic(&bootstrap, "payments", 3);
        committed_writes(&bootstrap, &topic, 0, 2);
        let (long_producer, long_id) = long_transaction(&bootstrap, &topic, 0);
        committed_writes(&bootstrap, &topic, 0, 3); // writes go on after the open transaction
        let (hanging_pid, _, hanging_id) = hanging_transaction(&bootstrap, &topic, 1);

        let (report, out) = json::<HangingReport>(&[
            "hanging",
            "-b",
            &bootstrap,
            "--topic",
            &topic,
            "--max-transaction-timeout",
            "0s",
        ]);
        assert_eq!(
            out.code, 2,
            "{generation}: a hanging transaction is CRITICAL\n{}",
            out.stderr
        );
        assert_eq!(report.partitions_searched, 3);
        let verdict = |p: i32| {
            report
                .transactions
                .iter()
                .find(|t| t.partition == p)
                .unwrap_or_else(|| panic!("{generation}: partition {p} not reported: {report:?}"))
        };
        let long = verdict(0);
        assert_eq!(long.verdict, "long", "{generation}: {}", long.reason);
        assert_eq!(long.transactional_id.as_deref(), Some(long_id.as_str()));
        assert_eq!(
            long.start_offset, 4,
            "{generation}: two commits (2 records + 2 markers) came first"
        );
        let hanging = verdict(1);
        assert_eq!(
            hanging.verdict, "hanging",
            "{generation}: {}",
            hanging.reason
        );
        assert_eq!(
            (hanging.producer_id, hanging.start_offset),
            (hanging_pid, 0)
        );
        assert_eq!(verdict_count(&report, "hanging"), 1);

        // The oracle: Kafka's own find-hanging sees exactly the same hanging set.
        let ours: BTreeSet<(i32, i64, i64)> = report
            .transactions
            .iter()
            .filter(|t| t.verdict == "hanging")
            .map(|t| (t.partition, t.producer_id, t.start_offset))
            .collect();
        assert_eq!(
            ours,
            kafka_tool_hanging(&bootstrap, &topic),
            "{generation}: indoubt and TransactionsCommand disagree"
        );

        // Searching by broker covers every partition with a replica there, internal topics too.
        let (by_broker, _) = json::<HangingReport>(&[
            "hanging",
            "-b",
            &bootstrap,
            "--broker-id",
            "1",
            "--max-transaction-timeout",
            "0s",
        ]);
        assert!(
            by_broker.partitions_searched > 3,
            "{generation}: more than our topic"
        );
        assert!(by_broker
            .transactions
            .iter()
            .any(|t| t.topic == topic && t.partition == 1 && t.verdict == "hanging"));

        // Under the default 15 minutes nothing is old enough yet.
        let (fresh, out) = json::<HangingReport>(&["hanging", "-b", &bootstrap, "--topic", &topic]);
        assert_eq!(out.code, 0, "{generation}");
        assert!(fresh.transactions.is_empty());

        // LSO: partition 0 is stuck at the long transaction, with the writes after it unreadable.
        let (lso, out) = json::<LsoReport>(&[
            "lso",
            "-b",
            &bootstrap,
            "--topic",
            &topic,
            "--warning-age",
            "0s",
        ]);
        assert_eq!(out.code, 1, "{generation}: {}", out.stderr);
        let p0 = lso
            .partitions
            .iter()
            .find(|p| p.partition == 0)
            .expect("partition 0 has a gap");
        assert_eq!(p0.last_stable_offset, 4);
        assert_eq!(
            p0.high_watermark,
            4 + 1 + 3 * 2,
            "{generation}: the open record, then 3 commits"
        );
        assert_eq!(p0.gap, p0.high_watermark - 4);
        assert_eq!(p0.open_txn_start_offset, Some(4));
        assert_eq!(p0.transactional_id.as_deref(), Some(long_id.as_str()));
        let stuck = p0.stuck_seconds.expect("first unstable record time");
        assert!((0.0..600.0).contains(&stuck), "{stuck}");
        let p1 = lso
            .partitions
            .iter()
            .find(|p| p.partition == 1)
            .expect("partition 1 has a gap");
        assert_eq!(
            (p1.last_stable_offset, p1.producer_id),
            (0, Some(hanging_pid))
        );
        assert_eq!(
            p1.transactional_id.as_deref(),
            Some(hanging_id.as_str()),
            "{generation}: the coordinator knows the id, only not this partition"
        );
        assert!(
            lso.partitions.iter().all(|p| p.partition != 2),
            "partition 2 has no gap"
        );
        // kafka hanging's verdict decides the advice: only the long one ends by itself.
        assert_eq!(p0.verdict.as_deref(), Some("long"), "{generation}");
        assert_eq!(p1.verdict.as_deref(), Some("hanging"), "{generation}");
        let finding = |p: i32| {
            lso.findings
                .iter()
                .find(|f| f.subject == format!("partition {topic}-{p}"))
                .unwrap_or_else(|| panic!("{generation}: no finding for partition {p}"))
        };
        let (long, hanging) = (finding(0), finding(1));
        let (long_advice, hanging_advice) = (
            long.advice.clone().unwrap_or_default(),
            hanging.advice.clone().unwrap_or_default(),
        );
        assert!(
            long_advice.contains("is aborted at its transaction.timeout.ms") && long.next.is_none(),
            "{long_advice}"
        );
        let hanging_next = hanging.next.clone().unwrap_or_default();
        assert!(
            hanging_advice.contains("never end it")
                && hanging_advice.contains("`indoubt resolve kafka`")
                && hanging_next.contains(&format!(
                    "resolve kafka -b {bootstrap} --topic {topic} --partition 1 --start-offset 0 --dry-run"
                ))
                && !hanging_advice.contains("transaction.timeout.ms"),
            "{generation}: {hanging_advice} / {hanging_next}"
        );

        // DescribeProducers of the stuck partition.
        let (producers, out) = json::<ProducersReport>(&[
            "producers",
            "-b",
            &bootstrap,
            "--topic",
            &topic,
            "--partition",
            "0",
        ]);
        assert_eq!(out.code, 0);
        assert!(producers
            .producers
            .iter()
            .any(|p| p.current_txn_start_offset == 4));

        // The coordinator's view of the long transaction.
        let (txns, out) = json::<TransactionsReport>(&[
            "transactions",
            "-b",
            &bootstrap,
            "--transactional-id",
            &long_id,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let t = &txns.transactions[0];
        assert_eq!(t.state, "Ongoing");
        assert_eq!(t.partitions, [(topic.clone(), 0)]);
        assert!(t.duration_seconds.is_some());
        let (listed, _) =
            json::<TransactionsReport>(&["transactions", "-b", &bootstrap, "--state", "Ongoing"]);
        assert!(listed
            .transactions
            .iter()
            .any(|t| t.transactional_id == long_id));
        // ListTransactions v1's duration filter: seconds old, so not yet an hour.
        let (young, _) =
            json::<TransactionsReport>(&["transactions", "-b", &bootstrap, "--min-duration", "1h"]);
        assert!(young
            .transactions
            .iter()
            .all(|t| t.transactional_id != long_id));
        let (any_age, _) =
            json::<TransactionsReport>(&["transactions", "-b", &bootstrap, "--min-duration", "0s"]);
        assert!(any_age
            .transactions
            .iter()
            .any(|t| t.transactional_id == long_id));

        long_producer.abort_transaction(WAIT).unwrap();
    }
}

fn verdict_count(report: &HangingReport, verdict: &str) -> usize {
    report
        .transactions
        .iter()
        .filter(|t| t.verdict == verdict)
        .count()
}

#[test]
fn every_command_works_over_sasl_ssl_with_each_mechanism() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "sasl", 2);
    let hanging = hanging_transaction(&bootstrap, &topic, 1);
    let password = lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD");
    let ca = lab("INDOUBT_LAB_KAFKA_CA");
    for mechanism in ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] {
        let sasl = sasl_args(mechanism, &password, &ca);
        let with = |cmd: &[&str]| -> Vec<String> {
            cmd.iter()
                .map(|s| s.to_string())
                .chain(sasl.iter().cloned())
                .collect()
        };
        let args = with(&[
            "hanging",
            "--topic",
            &topic,
            "--max-transaction-timeout",
            "0s",
        ]);
        let (report, out) =
            json::<HangingReport>(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.code, 2, "{mechanism}: {}", out.stderr);
        assert_eq!(report.transactions[0].producer_id, hanging.0);
        assert!(!out.stdout.contains(&password) && !out.stderr.contains(&password));
        for cmd in [
            with(&["lso", "--topic", &topic]),
            with(&["producers", "--topic", &topic, "--partition", "1"]),
            with(&["transactions"]),
        ] {
            let out = run(indoubt().args(["kafka"]).args(&cmd));
            assert!(out.code < 3, "{mechanism} {cmd:?}: {}", out.stderr);
        }
    }
    let wrong = run(indoubt().args(["kafka", "lso"]).args(sasl_args(
        "SCRAM-SHA-512",
        "not-the-password",
        &ca,
    )));
    assert_eq!(wrong.code, 3);
    assert!(
        wrong.stderr.contains("SASL authentication failed")
            && wrong
                .stderr
                .contains("hint: check sasl.username and sasl.password")
            && wrong.stderr.contains("sasl.mechanism SCRAM-SHA-512"),
        "{}",
        wrong.stderr
    );
    let stranger = run(indoubt().args(["kafka", "lso"]).args(sasl_args(
        "PLAIN",
        &password,
        &lab("INDOUBT_LAB_PG_OTHER_CA"),
    )));
    assert_eq!(stranger.code, 3);
    assert!(
        stranger.stderr.contains("TLS handshake"),
        "{}",
        stranger.stderr
    );
}

#[test]
fn broken_parts_are_unknown_while_the_rest_still_reports() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "partial", 1);
    let (long_producer, _) = long_transaction(&bootstrap, &topic, 0);
    let (report, out) = json::<LsoReport>(&[
        "lso",
        "-b",
        &bootstrap,
        "--topic",
        &topic,
        "--topic",
        "no-such-topic-anywhere",
        "--warning-age",
        "0s",
    ]);
    assert_eq!(out.code, 3, "an unknown topic is UNKNOWN");
    let unknown = report
        .findings
        .iter()
        .find(|f| f.subject == "topic no-such-topic-anywhere")
        .expect("named");
    assert!(
        unknown.message.contains("UNKNOWN_TOPIC_OR_PARTITION"),
        "{}",
        unknown.message
    );
    assert!(
        report.partitions.iter().any(|p| p.topic == topic),
        "the known topic still reports its gap"
    );
    assert!(report
        .findings
        .iter()
        .any(|f| f.code == "lso_gap" && f.severity == "WARNING"));

    let unreachable = run(indoubt().args([
        "kafka",
        "lso",
        "-b",
        &format!("127.0.0.1:{}", free_port()),
        "--timeout",
        "2s",
    ]));
    assert_eq!(unreachable.code, 3);
    assert!(
        unreachable.stderr.contains("no bootstrap server answered"),
        "{}",
        unreachable.stderr
    );
    let no_cluster = run(indoubt().args(["kafka", "lso"]));
    assert_eq!(no_cluster.code, 3, "no -b and no config target");
    assert!(
        no_cluster.stderr.contains("-b HOST:PORT"),
        "{}",
        no_cluster.stderr
    );
    long_producer.abort_transaction(WAIT).unwrap();
}

#[test]
fn a_refused_topic_names_the_operation_and_resource() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let secret = create_topic(&bootstrap, "secret", 1);
    let open = create_topic(&bootstrap, "open", 1);
    let user = lab("INDOUBT_LAB_KAFKA_SASL_USER");
    let acl = std::process::Command::new(repo_root().join("tests/lab/kafka-acls"))
        .args([
            "--bootstrap-server",
            &bootstrap,
            "--add",
            "--deny-principal",
            &format!("User:{user}"),
            "--operation",
            "Describe",
            "--operation",
            "Read",
            "--topic",
            &secret,
        ])
        .output()
        .expect("kafka-acls");
    assert!(
        acl.status.success(),
        "{}",
        String::from_utf8_lossy(&acl.stderr)
    );
    let mut args: Vec<String> = ["lso", "--topic", &secret, "--topic", &open]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(sasl_args(
        "SCRAM-SHA-256",
        &lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD"),
        &lab("INDOUBT_LAB_KAFKA_CA"),
    ));
    let (report, out) = json::<LsoReport>(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.code, 3, "{}", out.stderr);
    let refused = report
        .findings
        .iter()
        .find(|f| f.subject == format!("topic {secret}"))
        .expect("refused topic named");
    assert!(
        refused.message.contains("TOPIC_AUTHORIZATION_FAILED"),
        "{}",
        refused.message
    );
    assert!(refused.advice.as_deref().unwrap_or("").contains(&format!(
        "DESCRIBE (and READ for offsets) on TOPIC {secret}"
    )));
    assert_eq!(
        report.partitions_checked, 1,
        "the permitted topic is still checked"
    );
}

/// A broker the metadata names but indoubt cannot reach (crashed, its session not yet
/// expired; a listener advertised wrongly): coordinators are found through another.
#[test]
fn a_broker_out_of_reach_is_passed_over_when_finding_coordinators() {
    use indoubt::kafka::cluster::Cluster;
    use indoubt::kafka::config::ClientConfig as Client;
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "reach", 1);
    let (producer, id) = long_transaction(&bootstrap, &topic, 0);
    let unreachable = format!("127.0.0.1:{}", free_port());
    let described = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let target = Client::plaintext(vec![bootstrap.clone()]);
            let mut cluster = Cluster::connect(&target, Some(std::slice::from_ref(&topic)), WAIT)
                .await
                .unwrap();
            assert!(!cluster.brokers.contains_key(&0));
            // The lowest id, so it is asked first.
            cluster.brokers.insert(0, unreachable);
            cluster
                .describe_transactions(std::slice::from_ref(&id))
                .await
        });
    let description = described[&id].as_ref().unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(description.state, "Ongoing");
    assert_eq!(description.partitions, [(topic.clone(), 0)]);
    producer.abort_transaction(WAIT).unwrap();
}

/// The command a finding names as next, run as printed: it must succeed.
fn run_next(next: &str) -> serde_json::Value {
    let (report, code) = run_printed(next);
    assert_eq!(code, Some(0), "{next}: {report}");
    report
}

#[test]
fn a_hanging_transaction_names_the_resolve_dry_run_that_works_as_printed() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    // A topic name may start with a dash: the next command must still pass it as the
    // value of --topic, not as a flag.
    let topic = create_topic(&bootstrap, "-nextcmd", 2);
    committed_writes(&bootstrap, &topic, 1, 1);
    let (pid, _, _) = hanging_transaction(&bootstrap, &topic, 1);
    for command in ["hanging", "lso"] {
        let topic_flag = format!("--topic={topic}");
        let mut args = vec![command, "-b", &bootstrap, &topic_flag];
        args.extend(match command {
            "hanging" => ["--max-transaction-timeout", "0s"],
            _ => ["--warning-age", "0s"],
        });
        let (report, _) = json::<serde_json::Value>(&args);
        let finding = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["subject"] == format!("partition {topic}-1"))
            .unwrap_or_else(|| panic!("no finding for {topic}-1: {report}"));
        let next = finding["next"]
            .as_str()
            .unwrap_or_else(|| panic!("{finding}"));
        assert!(next.ends_with("--dry-run"), "{next}");
        let dry = run_next(next);
        assert_eq!(dry["findings"][0]["code"], "dry_run", "{command}: {dry}");
        assert_eq!(dry["producer_id"], pid, "{command}: {dry}");
        assert_eq!(dry["start_offset"], 2, "{command}: {dry}");
    }
    // A long transaction its coordinator owns names no abort.
    let (_producer, _) = long_transaction(&bootstrap, &topic, 0);
    let topic_flag = format!("--topic={topic}");
    let (report, _) = json::<serde_json::Value>(&[
        "hanging",
        "-b",
        &bootstrap,
        &topic_flag,
        "--max-transaction-timeout",
        "0s",
    ]);
    let long = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"] == format!("partition {topic}-0"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(long["next"].is_null(), "{long}");
}

/// ListTransactions leaves out the transactional ids the principal may not DESCRIBE: to
/// such a principal a live transaction's producer looks unclaimed. It is not judged
/// (UNKNOWN, naming the ACL), never called hanging, which `resolve kafka` would abort.
#[test]
fn a_principal_that_may_not_describe_transactional_ids_never_calls_a_live_one_hanging() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "hidden-txn", 1);
    let (_live, live_id) = long_transaction(&bootstrap, &topic, 0);
    committed_writes(&bootstrap, &topic, 0, 2);
    let (user, password) = scram_user("nodescribe");
    let principal = format!("User:{user}");
    let _no_describe = deny_describing_transactional_ids(&principal);
    let mut args = vec![
        "hanging".to_string(),
        "--topic".into(),
        topic.clone(),
        "--max-transaction-timeout".into(),
        "0s".into(),
    ];
    args.extend(sasl_args_as(
        &user,
        "SCRAM-SHA-256",
        &password,
        &lab("INDOUBT_LAB_KAFKA_CA"),
    ));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The ACLs reach the authorizer through the metadata log: until the listing hides it.
    let mut last = None;
    wait_for(
        "the broker to hide the transactional id from the user",
        || {
            let (report, out) = json::<HangingReport>(&args);
            let hidden = !report
                .transactions
                .iter()
                .any(|t| t.transactional_id.as_deref() == Some(live_id.as_str()));
            last = Some((report, out));
            hidden
        },
    );
    let (report, out) = last.unwrap();
    assert!(
        report.transactions.iter().all(|t| t.verdict != "hanging"),
        "a live transaction called hanging: {report:?}"
    );
    let unknown = report
        .findings
        .iter()
        .find(|f| f.severity == "UNKNOWN")
        .unwrap_or_else(|| {
            panic!(
                "not judged is UNKNOWN: {:?}\n{}",
                report.findings, out.stderr
            )
        });
    assert!(
        unknown
            .message
            .contains("may not DESCRIBE transactional ids")
            && unknown
                .message
                .contains("--operation Describe --transactional-id"),
        "{unknown:?}"
    );
    assert_eq!(out.code, 3, "UNKNOWN: {}", out.stdout);
}

/// `kafka transactions`, where the LSO advice points, lists the open transactions first
/// and its answer names them: completed ones (many, on a busy cluster) come after.
#[test]
fn kafka_transactions_lists_the_open_ones_first_and_names_them() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "openfirst", 1);
    // A completed transaction whose id sorts before the open one's.
    let done_id = unique("aaa-done");
    let done = transactional_producer(&bootstrap, &done_id);
    done.begin_transaction().unwrap();
    send(&done, &topic, 0, "committed");
    done.commit_transaction(std::time::Duration::from_secs(30))
        .unwrap();
    let (_open, open_id) = long_transaction(&bootstrap, &topic, 0);
    let (report, out) = json::<serde_json::Value>(&["transactions", "-b", &bootstrap]);
    let listed: Vec<&str> = report["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transactional_id"].as_str().unwrap())
        .collect();
    let (open_at, done_at) = (
        listed.iter().position(|id| *id == open_id).unwrap(),
        listed.iter().position(|id| *id == done_id).unwrap(),
    );
    assert!(open_at < done_at, "{listed:?}");
    assert_eq!(
        report["transactions"][0]["state"], "Ongoing",
        "an open one first: {}",
        out.stdout
    );
    // Other tests' transactions share the lab: the answer names the longest open ones,
    // which lead the list.
    let answer = report["findings"][0]["message"].as_str().unwrap();
    assert!(answer.contains(listed[0]), "{answer}");
    assert!(answer.contains(" open"), "{answer}");
}
