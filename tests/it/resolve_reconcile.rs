//! `resolve reconcile`: the ids a job finds missing in its topic are published with the
//! messages its republish query builds, each carrying its id where the job reads it;
//! a read_committed consumer sees each once, the next comparison finds nothing missing,
//! and ids that appear in the topic meanwhile (before the confirmation, or between it
//! and the send) are left out.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use crate::resolve_outbox::consumed;
use common::kafka::{create_topic, publish};
use common::*;
use serde_json::Value;

/// Orders 1..=30 written two hours ago, each with its event in a topic of its own (3
/// partitions) but 7, 12, 19, 23 and 28, whose publish was lost; a job comparing them by
/// json:/order_id, whose republish query builds the event from the orders table.
struct Job {
    db: TestDb,
    topic: String,
    bootstrap: String,
    config: std::path::PathBuf,
    audit: std::path::PathBuf,
    dir: tempfile::TempDir,
}

const LOST: [u32; 5] = [7, 12, 19, 23, 28];

impl Job {
    fn new(query: &str) -> Job {
        let db = TestDb::create("rerepublish");
        db.admin()
            .batch_execute(
                "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, status text NOT NULL);
                 INSERT INTO orders SELECT g, now() - interval '2 hours', 'created' FROM generate_series(1, 30) g",
            )
            .unwrap();
        let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
        let topic = create_topic(&bootstrap, "rerepublish", 3);
        publish(
            &bootstrap,
            &topic,
            (1..=30).filter(|id| !LOST.contains(id)).map(|id| {
                (
                    id.to_string(),
                    format!("{{\"order_id\": {id}, \"status\": \"created\"}}"),
                )
            }),
        );
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.yaml");
        std::fs::write(
            &config,
            format!(
                "kafka:\n  lab:\n    bootstrap_servers: {bootstrap}\nreconcile:\n  orders:\n    postgres: {}\n    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n    kafka: lab\n    topic: {topic}\n    id_from: json:/order_id\n    since: 3h\n    settle: 5m\n    republish:\n      query: \"{query}\"\n",
                db.url()
            ),
        )
        .unwrap();
        let audit = dir.path().join("audit.log");
        Job {
            db,
            topic,
            bootstrap,
            config,
            audit,
            dir,
        }
    }

    fn resolve(&self, args: &[&str]) -> (Value, Outcome) {
        let audit = self.audit.to_string_lossy().into_owned();
        let mut all = vec!["resolve", "reconcile", "--audit-log", &audit];
        all.extend(args);
        all.push("orders");
        json_with(&self.config, &all)
    }

    /// Every one of the 30 orders is in the topic exactly once, read_committed.
    fn assert_each_order_once(&self) {
        let counts = self.counts();
        assert_eq!(counts.len(), 30, "{counts:?}");
        assert!(
            counts.values().all(|n| *n == 1),
            "each order once: {counts:?}"
        );
    }

    /// How many messages name each order, read_committed.
    fn counts(&self) -> std::collections::BTreeMap<u64, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for m in consumed(&self.bootstrap, &self.topic, 3, "read_committed") {
            let v: Value = serde_json::from_str(&m.value).unwrap();
            *counts.entry(v["order_id"].as_u64().unwrap()).or_default() += 1;
        }
        counts
    }

    fn audit_records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

const EVENT: &str = "SELECT id::text AS id, id::text AS key, json_build_object('order_id', id, 'status', status)::text AS value, 'OrderCreated' AS \\\"eventType\\\" FROM orders WHERE id = ANY($1::text[]::bigint[])";

#[test]
fn the_missing_ids_are_published_once_and_the_next_comparison_finds_none() {
    let job = Job::new(EVENT);
    // reconcile names the dry run as its next step, and it runs as printed.
    let (found, _) = json_with(&job.config, &["reconcile", "orders"]);
    let missing = findings_of(&found, "missing_in_topic");
    let next = missing[0]["next"].as_str().unwrap();
    assert!(
        next.contains("resolve reconcile --since") && next.ends_with("--dry-run -- orders"),
        "{next}"
    );
    let (dry, code) = run_printed(next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["ids"], 5, "{dry:#}");
    assert_eq!(
        dry["first_ids"],
        serde_json::json!(["7", "12", "19", "23", "28"])
    );
    assert_eq!(job.counts().len(), 25, "a dry run sends nothing");

    let (done, out) = job.resolve(&["--yes", "--reason", "INC-51"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let resolved = findings_of(&done, "resolved");
    assert_eq!(resolved[0]["message"], "5 of 5 id(s) delivered", "{done:#}");
    // Each order once now, the lost ones with the message the query built.
    job.assert_each_order_once();
    let lost: Vec<_> = consumed(&job.bootstrap, &job.topic, 3, "read_committed")
        .into_iter()
        .filter(|m| m.headers.contains_key("eventType"))
        .collect();
    assert_eq!(lost.len(), 5);
    for m in &lost {
        let v: Value = serde_json::from_str(&m.value).unwrap();
        assert_eq!(m.key.as_deref(), Some(v["order_id"].to_string().as_str()));
        assert_eq!(v["status"], "created");
        assert_eq!(m.headers["eventType"], "OrderCreated");
    }
    // The trail: the intent names the ids, the outcome where each one went.
    let records = job.audit_records();
    assert_eq!(
        records[0]["evidence"]["ids"],
        serde_json::json!(["7", "12", "19", "23", "28"])
    );
    let delivered = records[1]["outcome"]["result"]["delivered"]
        .as_array()
        .unwrap();
    assert_eq!(delivered.len(), 5);
    for d in delivered {
        let m = lost
            .iter()
            .find(|m| {
                m.partition == d["partition"].as_i64().unwrap() as i32
                    && m.offset == d["offset"].as_i64().unwrap()
            })
            .unwrap_or_else(|| panic!("no message at {d}"));
        assert!(
            m.value
                .contains(&format!("\"order_id\" : {}", d["id"].as_str().unwrap())),
            "{} {d}",
            m.value
        );
    }
    // The comparison finds nothing missing; a second run has nothing to do.
    let (after, _) = json_with(&job.config, &["reconcile", "orders"]);
    assert!(
        findings_of(&after, "missing_in_topic").is_empty(),
        "{after:#}"
    );
    let (again, out) = job.resolve(&["--yes", "--reason", "INC-51"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        findings_of(&again, "already_resolved").len(),
        1,
        "{again:#}"
    );
    assert_eq!(
        job.audit_records().len(),
        2,
        "nothing recorded when nothing is done"
    );
}

#[test]
fn ids_from_a_file_that_meanwhile_appeared_in_the_topic_are_left_out() {
    let job = Job::new(EVENT);
    let ids = job.dir.path().join("ids.tsv");
    let (_, out) = json_with(
        &job.config,
        &["reconcile", "--ids-out", ids.to_str().unwrap(), "orders"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    let listed = std::fs::read_to_string(&ids).unwrap();
    assert_eq!(listed.matches("missing\t").count(), 5, "{listed}");
    // Before the confirmation: the service published order 7 after all.
    publish(
        &job.bootstrap,
        &job.topic,
        [(
            "7".to_string(),
            "{\"order_id\": 7, \"status\": \"created\"}".to_string(),
        )],
    );
    let (dry, out) = job.resolve(&["--ids-from", ids.to_str().unwrap(), "--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(dry["candidates"], 5);
    assert_eq!(dry["ids"], 4, "{dry:#}");
    assert_eq!(dry["left_out"]["in the topic now"], 1, "{dry:#}");
    // Between the confirmation and the send: order 12 too.
    let audit = job.audit.to_string_lossy().into_owned();
    let args = [
        "resolve",
        "reconcile",
        "--ids-from",
        ids.to_str().unwrap(),
        "--yes",
        "--reason",
        "INC-52",
        "--audit-log",
        &audit,
        "orders",
    ];
    let (done, out) = json_paused(&job.config, &args, "before-check", || {
        publish(
            &job.bootstrap,
            &job.topic,
            [(
                "12".to_string(),
                "{\"order_id\": 12, \"status\": \"created\"}".to_string(),
            )],
        )
    });
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let message = findings_of(&done, "resolved")[0]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with(
            "3 of 4 id(s) delivered; 1 not sent (appeared in the topic since it was looked for: 12)"
        ),
        "{message}"
    );
    job.assert_each_order_once();
    let records = job.audit_records();
    let not_sent = &records[1]["outcome"]["result"]["not_sent"];
    assert_eq!(not_sent[0]["id"], "12", "{not_sent}");
}

#[test]
fn what_cannot_be_sent_is_found_before_anything_is() {
    // An order whose source row is gone, one whose message would not carry its id where
    // the job reads it, one whose value is NULL (a tombstone) and one the query returns
    // twice: left out, said why; the other goes.
    let job = Job::new(
        "SELECT id::text AS id, CASE WHEN id = 12 THEN '{}' WHEN id = 23 THEN NULL ELSE json_build_object('order_id', id)::text END AS value FROM orders WHERE id = ANY($1::text[]::bigint[]) UNION ALL SELECT '28', json_build_object('order_id', 28)::text WHERE '28' = ANY($1)",
    );
    job.db
        .admin()
        .batch_execute("DELETE FROM orders WHERE id = 7")
        .unwrap();
    // 7 is no longer in the window's rows: name it in a file.
    let ids = job.dir.path().join("ids");
    std::fs::write(&ids, "7\n12\n19\nmissing\t23\nextra\t99\n28\r\n").unwrap();
    let (dry, out) = job.resolve(&["--ids-from", ids.to_str().unwrap(), "--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        dry["candidates"], 5,
        "an extra line is not a missing id: {dry:#}"
    );
    assert_eq!(dry["ids"], 1, "{dry:#}");
    assert_eq!(dry["first_ids"], serde_json::json!(["19"]));
    let left: Vec<&String> = dry["left_out"].as_object().unwrap().keys().collect();
    for why in [
        "no row in the source",
        "its message would not carry the id where the job reads it (json:/order_id",
        "its value is NULL",
        "the republish query returned more than one row for it",
    ] {
        assert!(left.iter().any(|w| w.starts_with(why)), "{why}: {left:?}");
    }
    // --ids-from reads a regular file only: not a link (planted, it could point
    // anywhere the operator can read), not a FIFO (the open would hang).
    let link = job.dir.path().join("link");
    std::os::unix::fs::symlink(&ids, &link).unwrap();
    let fifo = job.dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (path, says) in [
        (&link, "is a symbolic link"),
        (&fifo, "is not a regular file"),
    ] {
        let (_, out) = job.resolve(&["--ids-from", path.to_str().unwrap(), "--dry-run"]);
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(out.stderr.contains(says), "{}", out.stderr);
    }
    // A query of the wrong shape is refused before anything is read or sent (exit 3).
    for (query, says) in [
        ("SELECT id AS ident, id::text AS value FROM orders WHERE id = ANY($1::text[]::bigint[])", "no column named id or value"),
        ("SELECT id::text AS id, created_at AS value FROM orders WHERE id = ANY($1::text[]::bigint[])", "cast it to text or bytea"),
        ("SELECT id::text AS id, id::text AS value FROM orders WHERE id = ANY($1)", "the ids as text[]"),
        ("SELECT to_jsonb(id) AS id, id::text AS value FROM orders WHERE id = ANY($1::text[]::bigint[])", "return the id as text"),
        ("SELECT (id + 1000)::text AS id, id::text AS value FROM orders WHERE id = ANY($1::text[]::bigint[])", "which was not asked for"),
    ] {
        let bad = Job::new(query);
        let (_, out) = bad.resolve(&["--dry-run"]);
        assert_eq!(out.code, 3, "{query}: {}\n{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(says), "{query}: {}", out.stderr);
        assert_eq!(bad.counts().len(), 25);
    }
    assert!(job.audit_records().is_empty(), "nothing recorded");
}

#[test]
fn an_id_published_after_the_comparison_is_not_sent_twice() {
    // The comparison's own read of the topic is the look the send starts from: order 19,
    // published between the confirmation and the send, is found there and left out.
    let job = Job::new(EVENT);
    let audit = job.audit.to_string_lossy().into_owned();
    let args = [
        "resolve",
        "reconcile",
        "--yes",
        "--reason",
        "INC-53",
        "--audit-log",
        &audit,
        "orders",
    ];
    let (done, out) = json_paused(&job.config, &args, "before-check", || {
        publish(
            &job.bootstrap,
            &job.topic,
            [(
                "19".to_string(),
                "{\"order_id\": 19, \"status\": \"created\"}".to_string(),
            )],
        )
    });
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let message = findings_of(&done, "resolved")[0]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with(
            "4 of 5 id(s) delivered; 1 not sent (appeared in the topic since it was looked for: 19)"
        ),
        "{message}"
    );
    job.assert_each_order_once();
}
