//! `indoubt reconcile` against the lab: exact ids in every class, id sources, window and
//! settle edges, an empty topic, a topic still being written, a failing query, codecs,
//! SASL, and a leader that crashes mid-run (on a two-broker cluster of the test's own).
#![allow(clippy::disallowed_methods, clippy::disallowed_macros)] // fixtures made directly; measurements printed

use crate::common;

use common::kafka::*;
use common::*;
use rdkafka::admin::TopicReplication;
use rdkafka::consumer::Consumer;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;

const QUERY: &str = "SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2";

struct Shop {
    db: TestDb,
    topic: String,
    bootstrap: String,
    now_ms: i64,
}

impl Shop {
    /// Orders 1..=20 created two hours ago (order 21 a minute ago, within the settle window).
    fn new(partitions: i32) -> Shop {
        let db = TestDb::create("shop");
        db.admin()
            .batch_execute(
                "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
                 INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, 20) g;
                 INSERT INTO orders VALUES (21, now() - interval '1 minute')",
            )
            .unwrap();
        let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
        let topic = create_topic(&bootstrap, "orders.created", partitions);
        Shop {
            db,
            topic,
            bootstrap,
            now_ms: chrono::Utc::now().timestamp_millis(),
        }
    }

    fn producer(&self) -> BaseProducer {
        ClientConfig::new()
            .set("bootstrap.servers", &self.bootstrap)
            .create()
            .unwrap()
    }

    /// Publishes the event of `id` (key, header and JSON value all carry it), `ago_ms` old.
    fn publish(&self, producer: &BaseProducer, id: &str, ago_ms: i64) {
        let value = format!(r#"{{"order":{{"id":{id}}},"type":"created"}}"#);
        producer
            .send(
                BaseRecord::to(&self.topic)
                    .key(id)
                    .payload(&value)
                    .timestamp(self.now_ms - ago_ms)
                    .headers(OwnedHeaders::new().insert(Header {
                        key: "order_id",
                        value: Some(id),
                    })),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }

    fn reconcile(&self, extra: &[&str]) -> (Value, Outcome) {
        reconcile(&self.db.url(), &self.bootstrap, &self.topic, extra)
    }
}

/// `indoubt -o json reconcile` of the orders query against a topic.
fn reconcile(db_url: &str, bootstrap: &str, topic: &str, extra: &[&str]) -> (Value, Outcome) {
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "reconcile",
            "--pg",
            db_url,
            "--query",
            QUERY,
            "-b",
            bootstrap,
            "--topic",
            topic,
        ])
        .args(extra));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// An RFC 3339 time of the report, in milliseconds.
fn millis(time: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(time.as_str().unwrap())
        .unwrap()
        .timestamp_millis()
}

fn codes(report: &Value) -> Vec<&str> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

fn ids(report: &Value, class: &str) -> Vec<String> {
    report[class]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The seed's incident in miniature: some events lost, some duplicated, one for an order
/// that does not exist, one unreadable, one aborted in a transaction.
fn incident() -> Shop {
    let shop = Shop::new(3);
    let producer = shop.producer();
    let hour = 3_600_000;
    for id in 1..=15 {
        shop.publish(&producer, &id.to_string(), 2 * hour - 1000);
    }
    for id in ["3", "7"] {
        shop.publish(&producer, id, hour); // at-least-once delivery
    }
    shop.publish(&producer, "99", hour); // an order that does not exist
    producer
        .send(
            BaseRecord::to(&shop.topic)
                .key("oops")
                .payload("not json at all")
                .timestamp(shop.now_ms - hour),
        )
        .map_err(|(e, _)| e)
        .unwrap();
    producer.flush(WAIT).unwrap();
    let txn = transactional_producer(&shop.bootstrap, &unique("aborting"));
    txn.begin_transaction().unwrap();
    shop.publish(&txn, "16", hour); // published, then rolled back: not a message
    txn.flush(WAIT).unwrap();
    txn.abort_transaction(WAIT).unwrap();
    shop
}

#[test]
fn every_class_holds_exactly_the_right_ids_from_each_id_source() {
    let shop = incident();
    for id_from in ["key", "header:order_id", "json:/order/id"] {
        let (r, out) = shop.reconcile(&["--id-from", id_from, "--since", "3h", "--settle", "5m"]);
        assert_eq!(
            out.code, 2,
            "{id_from}: missing events are CRITICAL\n{}\n{}",
            out.stdout, out.stderr
        );
        assert_eq!(r["database_rows"], 21);
        assert_eq!(
            ids(&r, "missing"),
            ["16", "17", "18", "19", "20"],
            "{id_from}"
        );
        assert_eq!(
            ids(&r, "pending"),
            ["21"],
            "{id_from}: too young to be missing"
        );
        assert_eq!(r["matched"], 15);
        // "oops" is a perfectly good key, of an order the database lacks; as a header or a
        // JSON pointer that message has no id at all.
        let extra: &[&str] = if id_from == "key" {
            &["99", "oops"]
        } else {
            &["99"]
        };
        assert_eq!(ids(&r, "extra"), extra, "{id_from}");
        let dups: Vec<(String, u64)> = r["duplicated"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["id"].as_str().unwrap().to_string(),
                    d["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            dups,
            [("3".to_string(), 2), ("7".to_string(), 2)],
            "{id_from}"
        );
        let unparseable = r["unparseable"].as_array().unwrap();
        if id_from == "key" {
            assert!(unparseable.is_empty());
        } else {
            assert_eq!(unparseable.len(), 1, "{id_from}: {unparseable:?}");
            assert!(unparseable[0]["offset"].as_i64().is_some());
        }
        assert_eq!(
            r["topic_messages"], 19,
            "{id_from}: the aborted event is not a message"
        );
    }
    // The ids of every class, to a file; and counts only.
    let file = tempfile::NamedTempFile::new().unwrap();
    let (r, out) = shop.reconcile(&[
        "--since",
        "3h",
        "--count-only",
        "--ids-out",
        &file.path().to_string_lossy(),
    ]);
    assert_eq!(out.code, 2);
    assert_eq!(
        (
            r["missing_count"].as_u64(),
            r["missing"].as_array().map(Vec::len)
        ),
        (Some(5), Some(0))
    );
    let written = std::fs::read_to_string(file.path()).unwrap();
    assert!(
        written.contains("missing\t17\n")
            && written.contains("duplicated\t3\t2\n")
            && written.contains("pending\t21\n"),
        "{written}"
    );
    // The table shows the first ids of each class.
    let table = run(indoubt().args([
        "reconcile",
        "--pg",
        &shop.db.url(),
        "--query",
        QUERY,
        "-b",
        &shop.bootstrap,
        "--topic",
        &shop.topic,
        "--since",
        "3h",
        "--show",
        "2",
    ]));
    assert!(
        table.stdout.contains("16, 17, … and 3 more"),
        "{}",
        table.stdout
    );
}

/// Reverses the `--ids-out` escapes indoubt-reconcile(1) documents.
fn unescape_ids_field(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).unwrap()));
            }
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            other => panic!("unknown escape \\{other:?} in {field:?}"),
        }
    }
    out
}

/// Ids holding tabs, line breaks, backslashes and terminal controls cannot forge
/// `--ids-out` lines: every line stays `class<TAB>id`, and the ids come back exactly.
#[test]
fn ids_out_escapes_ids_so_no_id_can_forge_a_line() {
    let hostile = [
        "plain-1",
        "tab\there",
        "line\nmissing\tforged-1",
        "cr\r\nextra\tforged-2",
        "back\\slash\\n",
        "esc\u{1b}[31mred\u{7}",
        "nel\u{85}ls\u{2028}end",
        "заказ-4711",
    ];
    let db = TestDb::create("idsout");
    let mut admin = db.admin();
    admin
        .batch_execute("CREATE TABLE orders (id text PRIMARY KEY, created_at timestamptz NOT NULL)")
        .unwrap();
    for id in hostile {
        admin
            .execute(
                "INSERT INTO orders VALUES ($1, now() - interval '2 hours')",
                &[&id],
            )
            .unwrap();
    }
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "orders.hostile", 1);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .unwrap();
    // One published (matched), one the database does not have (extra), twice (duplicated).
    let now = chrono::Utc::now().timestamp_millis();
    for key in ["plain-1", "ghost\n\tmissing\tx", "ghost\n\tmissing\tx"] {
        producer
            .send(
                BaseRecord::to(&topic)
                    .key(key)
                    .payload("{}")
                    .timestamp(now - 3_600_000),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    producer.flush(WAIT).unwrap();
    let file = tempfile::NamedTempFile::new().unwrap();
    let (r, out) = reconcile(
        &db.url(),
        &bootstrap,
        &topic,
        &["--since", "3h", "--ids-out", &file.path().to_string_lossy()],
    );
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let written = std::fs::read_to_string(file.path()).unwrap();
    let lines: Vec<Vec<&str>> = written.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        lines.len(),
        hostile.len() - 1 + 2,
        "one line per id: 7 missing, 1 extra, 1 duplicated:\n{written}"
    );
    let mut missing: Vec<String> = Vec::new();
    for fields in &lines {
        match fields[0] {
            "missing" => {
                assert_eq!(fields.len(), 2, "{fields:?}");
                missing.push(unescape_ids_field(fields[1]));
            }
            "extra" => {
                assert_eq!(fields.len(), 2, "{fields:?}");
                assert_eq!(unescape_ids_field(fields[1]), "ghost\n\tmissing\tx");
            }
            "duplicated" => assert_eq!(fields[1..], ["ghost\\n\\tmissing\\tx", "2"]),
            other => panic!("a forged class {other:?} in:\n{written}"),
        }
    }
    let mut expected: Vec<String> = hostile[1..].iter().map(|s| s.to_string()).collect();
    expected.sort();
    missing.sort();
    assert_eq!(missing, expected, "the ids come back exactly");
    assert_eq!(ids(&r, "missing").len(), 7);
    for exact in [
        "missing\tline\\nmissing\\tforged-1\n",
        "missing\tback\\\\slash\\\\n\n",
        "missing\tesc\\x1b[31mred\\x07\n",
        "missing\tnel\\u{0085}ls\\u{2028}end\n",
        "missing\tзаказ-4711\n",
    ] {
        assert!(written.contains(exact), "{exact:?} not in:\n{written}");
    }
}

#[test]
fn window_and_settle_edges() {
    let shop = Shop::new(1);
    let (since, until): (String, String) = {
        let row = shop.db.admin().query_one("SELECT min(created_at)::text, (min(created_at) + interval '1 hour')::text FROM orders", &[]).unwrap();
        (row.get(0), row.get(1))
    };
    let rfc = |t: &str| {
        chrono::DateTime::parse_from_str(&format!("{t}00"), "%Y-%m-%d %H:%M:%S%.f%z")
            .map(|d| d.to_rfc3339())
            .unwrap()
    };
    // [since, until): the rows at exactly `since` are in, the window ends before order 21.
    let (r, _) = shop.reconcile(&["--since", &rfc(&since), "--until", &rfc(&until)]);
    assert_eq!(r["database_rows"], 20);
    assert_eq!(ids(&r, "missing").len(), 20, "nothing published");
    assert!(ids(&r, "pending").is_empty());
    // A settle window wider than the rows' age makes them pending, not missing: exit 0.
    let (r, out) = shop.reconcile(&["--since", "3h", "--settle", "3h"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(ids(&r, "pending").len(), 21);
    // An empty topic: every settled row is missing.
    let (r, out) = shop.reconcile(&["--since", "3h"]);
    assert_eq!(
        (
            out.code,
            ids(&r, "missing").len(),
            r["topic_messages"].as_u64()
        ),
        (2, 20, Some(0))
    );
}

#[test]
fn a_topic_still_being_written_does_not_keep_it_running() {
    let shop = Shop::new(2);
    let producer = shop.producer();
    for id in 1..=21 {
        shop.publish(&producer, &id.to_string(), 60_000);
    }
    producer.flush(WAIT).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (stop, topic, bootstrap) = (stop.clone(), shop.topic.clone(), shop.bootstrap.clone());
        std::thread::spawn(move || {
            let p: BaseProducer = ClientConfig::new()
                .set("bootstrap.servers", &bootstrap)
                .create()
                .unwrap();
            let mut n = 1000;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let id = n.to_string();
                let _ = p.send(BaseRecord::to(&topic).key(&id).payload("{}"));
                p.poll(std::time::Duration::from_millis(5));
                n += 1;
            }
            p.flush(WAIT).unwrap();
        })
    };
    let (r, out) = shop.reconcile(&["--since", "3h", "--settle", "0s"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert!(out.code < 3, "it ended on its own: {}", out.stderr);
    assert_eq!(r["matched"], 21);
    assert!(ids(&r, "missing").is_empty());
}

#[test]
fn a_failing_query_is_unknown_with_the_servers_words() {
    let shop = Shop::new(1);
    let out = run(indoubt().args([
        "reconcile",
        "--pg",
        &shop.db.url(),
        "--query",
        "SELECT id FROM no_such_table WHERE $1 < $2",
        "-b",
        &shop.bootstrap,
        "--topic",
        &shop.topic,
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("42P01") && out.stderr.contains("no_such_table"),
        "{}",
        out.stderr
    );
    let out = run(indoubt().args([
        "reconcile",
        "--pg",
        &shop.db.url(),
        "-b",
        &shop.bootstrap,
        "--topic",
        &shop.topic,
    ]));
    assert_eq!(out.code, 3, "no query");
    assert!(out.stderr.contains("--query"), "{}", out.stderr);
}

/// A JSON id is its exact text: 18446744073709551616 (above u64) is not rounded through
/// a float into a row both missing and extra, and 1e3 or 7.0 are not 1000 or 7 (ids
/// are compared as text, as keys and headers are; indoubt-reconcile(1), CLASSES).
#[test]
fn json_numbers_are_ids_exactly_as_written() {
    let shop = Shop::new(1);
    shop.db
        .admin()
        .batch_execute(
            "ALTER TABLE orders ALTER COLUMN id TYPE numeric(30);
             DELETE FROM orders;
             INSERT INTO orders VALUES (18446744073709551616, now() - interval '2 hours'),
                                       (1000, now() - interval '2 hours'),
                                       (7, now() - interval '2 hours')",
        )
        .unwrap();
    let producer = shop.producer();
    for id in ["18446744073709551616", "1000", "1e3", "7.0"] {
        shop.publish(&producer, id, 2 * 3_600_000 - 1000);
    }
    producer.flush(std::time::Duration::from_secs(10)).unwrap();
    let out = run(indoubt().args([
        "-o",
        "json",
        "reconcile",
        "--pg",
        &shop.db.url(),
        "--query",
        "SELECT id::text, created_at FROM orders WHERE created_at >= $1 AND created_at < $2",
        "-b",
        &shop.bootstrap,
        "--topic",
        &shop.topic,
        "--id-from",
        "json:/order/id",
    ]));
    let r: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(r["matched"], 2, "{}{}", out.stdout, out.stderr);
    assert_eq!(ids(&r, "missing"), ["7"]);
    assert_eq!(ids(&r, "extra"), ["1e3", "7.0"]);
    assert_eq!(r["unparseable_count"], 0);
}

/// A NULL id, a time without a zone, an id of another type and untyped window
/// parameters: each refused with the row or column, its SQL type and what to write
/// instead — never a driver message naming Rust types.
#[test]
fn unreadable_rows_and_columns_are_named_with_what_to_do() {
    let shop = Shop::new(1);
    let refused = |query: &str| {
        let out = run(indoubt().args([
            "reconcile",
            "--pg",
            &shop.db.url(),
            "--query",
            query,
            "-b",
            &shop.bootstrap,
            "--topic",
            &shop.topic,
        ]));
        assert_eq!(out.code, 3, "{query}: {}", out.stderr);
        assert!(
            !out.stderr.contains("Rust type")
                && !out.stderr.contains("chrono")
                && !out.stderr.contains("Option<"),
            "{query}: {}",
            out.stderr
        );
        out.stderr
    };
    let err = refused(
        "SELECT NULLIF(id, 7) AS order_id, created_at FROM orders \
         WHERE created_at >= $1 AND created_at < $2 ORDER BY id",
    );
    assert!(
        err.contains("row 7 (time ")
            && err.contains("has a NULL id (column \"order_id\", bigint)")
            && err.contains("WHERE order_id IS NOT NULL"),
        "{err}"
    );
    let err = refused(
        "SELECT id, created_at::timestamp FROM orders WHERE created_at >= $1 AND created_at < $2",
    );
    assert!(
        err.contains("second column \"created_at\" is of type timestamp without time zone")
            && err.contains("created_at AT TIME ZONE 'UTC'"),
        "{err}"
    );
    let err = refused(
        "SELECT id::numeric AS id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2",
    );
    assert!(
        err.contains("first column \"id\" is of type numeric") && err.contains("id::text"),
        "{err}"
    );
    let err = refused("SELECT id, created_at FROM orders WHERE $1 < $2");
    assert!(
        err.contains("uses $1 as text") && err.contains("$1::timestamptz"),
        "{err}"
    );
    let err = refused("SELECT id, created_at FROM orders");
    assert!(err.contains("takes 0 parameter(s)"), "{err}");
}

/// Publishes `ids` with Kafka's own console producer (key:value lines), compressed with
/// `codec`: Java frames snappy the xerial way, and writes zstd.
fn publish_with_java(shop: &Shop, codec: &str, ids: std::ops::RangeInclusive<u32>) {
    use std::io::Write;
    // The class of that name in the lab's release (it moved in 4.0).
    let mut child = std::process::Command::new(repo_root().join("tests/lab/kafka-cluster"))
        .args(["tool", "ConsoleProducer"])
        .args([
            "--bootstrap-server",
            &shop.bootstrap,
            "--topic",
            &shop.topic,
        ])
        .args(["--compression-codec", codec])
        .args([
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
        ])
        .args(["--producer-property", "linger.ms=200"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("java");
    let mut stdin = child.stdin.take().unwrap();
    for id in ids {
        writeln!(stdin, r#"{id}:{{"order":{{"id":{id}}}}}"#).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "console producer ({codec}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_compression_codec_is_read_as_java_and_librdkafka_write_it() {
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let shop = Shop::new(2);
        publish_with_java(&shop, codec, 1..=10);
        // librdkafka (here built without zstd) frames snappy as a plain block.
        let rest = 11..=20;
        if codec == "zstd" {
            publish_with_java(&shop, codec, rest);
        } else {
            let producer: BaseProducer = ClientConfig::new()
                .set("bootstrap.servers", &shop.bootstrap)
                .set("compression.type", codec)
                .set("linger.ms", "200")
                .create()
                .unwrap();
            for id in rest {
                shop.publish(&producer, &id.to_string(), 1000);
            }
            producer.flush(WAIT).unwrap();
        }
        let (r, out) = shop.reconcile(&["--id-from", "json:/order/id"]);
        assert_eq!(out.code, 0, "{codec}:\n{}\n{}", out.stdout, out.stderr);
        assert_eq!(
            (&r["topic_messages"], &r["matched"], &r["unparseable_count"]),
            (&Value::from(20), &Value::from(20), &Value::from(0)),
            "{codec}"
        );
    }
}

#[test]
fn the_topic_is_read_over_sasl_ssl() {
    let shop = Shop::new(2);
    let producer = shop.producer();
    for id in 1..=20 {
        shop.publish(&producer, &id.to_string(), 1000);
    }
    producer.flush(WAIT).unwrap();
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "reconcile",
            "--pg",
            &shop.db.url(),
            "--query",
            QUERY,
        ])
        .args(["--topic", &shop.topic])
        .args(sasl_args(
            "SCRAM-SHA-512",
            &lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD"),
            &lab("INDOUBT_LAB_KAFKA_CA"),
        )));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&r["topic_messages"], &r["matched"]),
        (&Value::from(20), &Value::from(20))
    );
    assert!(r["target"]["address"]
        .as_str()
        .unwrap()
        .contains(&lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP")));

    // A job naming a config target, the credentials given with -X on top of it.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  secure:\n    bootstrap_servers: {}\n    properties:\n      security.protocol: SASL_SSL\n      sasl.mechanism: SCRAM-SHA-512\n      ssl.ca.location: {}\nreconcile:\n  orders:\n    postgres: {}\n    query: {QUERY}\n    kafka: secure\n    topic: {}\n",
            lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP"),
            lab("INDOUBT_LAB_KAFKA_CA"),
            shop.db.url(),
            shop.topic
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["--config", &config.to_string_lossy(), "-o", "json"])
        .args(["reconcile", "orders", "-X"])
        .arg(format!(
            "sasl.username={}",
            lab("INDOUBT_LAB_KAFKA_SASL_USER")
        ))
        .arg("-X")
        .arg(format!(
            "sasl.password={}",
            lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD")
        )));
    assert_eq!(
        out.code, 0,
        "-X reaches the job's target:\n{}\n{}",
        out.stdout, out.stderr
    );
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["matched"], 20);
}

#[test]
fn aborted_writes_interleaved_with_committed_ones_are_not_messages() {
    let shop = Shop::new(1);
    let plain = shop.producer();
    for id in 1..=15 {
        shop.publish(&plain, &id.to_string(), 1000);
    }
    plain.flush(WAIT).unwrap();
    let aborting = transactional_producer(&shop.bootstrap, &unique("aborting"));
    let committing = transactional_producer(&shop.bootstrap, &unique("committing"));
    aborting.begin_transaction().unwrap();
    committing.begin_transaction().unwrap();
    // One partition: 16 (aborted), 17 (committed), 18 (aborted), 19 (committed) in turn.
    for (producer, id) in [
        (&aborting, "16"),
        (&committing, "17"),
        (&aborting, "18"),
        (&committing, "19"),
    ] {
        shop.publish(producer, id, 1000);
        producer.flush(WAIT).unwrap();
    }
    aborting.abort_transaction(WAIT).unwrap();
    committing.commit_transaction(WAIT).unwrap();
    let (r, out) = shop.reconcile(&["--settle", "5m"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(ids(&r, "missing"), ["16", "18", "20"]);
    assert_eq!(r["topic_messages"], 17, "1-15, 17 and 19");
}

/// The broker leading the topic crashes during the run: the run asks again who leads its
/// partitions until the cluster has fenced the dead broker, reads on from the new
/// leader, and its result stays exact.
const FAILOVER_ORDERS: u32 = 8_000;
const NEVER_PUBLISHED: [u32; 3] = [7, 4242, 7_999];

#[test]
fn a_leader_that_crashes_mid_run_hands_its_partitions_to_the_new_leader() {
    let cluster = KafkaCluster::start(2);
    let bootstrap = cluster.bootstrap();
    // Both partitions led by broker 2 and followed by broker 1.
    let topic = create_topic_with(
        &bootstrap,
        "orders.created",
        2,
        TopicReplication::Variable(&[&[2, 1], &[2, 1]]),
        &[],
    );

    let db = TestDb::create("failover");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, {FAILOVER_ORDERS}) g"
        ))
        .unwrap();
    // 1 KiB events, about 3.9 MiB per partition. acks=all: broker 1 holds every event
    // before the run starts.
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .set("acks", "all")
        .set("linger.ms", "20")
        .create()
        .unwrap();
    let created_ms = chrono::Utc::now().timestamp_millis() - 7_000_000;
    let payload = "x".repeat(1000);
    for id in (1..=FAILOVER_ORDERS).filter(|id| !NEVER_PUBLISHED.contains(id)) {
        let key = id.to_string();
        loop {
            let record = BaseRecord::to(&topic)
                .key(&key)
                .payload(&payload)
                .timestamp(created_ms);
            match producer.send(record) {
                Ok(()) => break,
                Err(_) => {
                    producer.poll(std::time::Duration::from_millis(50));
                }
            }
        }
    }
    producer.flush(WAIT).unwrap();
    // A quota of 512 KiB/s for indoubt's client id: the broker answers a Fetch with at
    // most 5 MiB (the quota over its 10s window; the topic holds about 8 MiB) and makes
    // the next one wait seconds, so the run is still going when broker 2 dies. Brokers
    // apply it as they replay the cluster's metadata: broker 2 is asked until it has.
    cluster.tool(
        None,
        "kafka.admin.ConfigCommand",
        &[
            "--alter",
            "--entity-type",
            "clients",
            "--entity-name",
            "indoubt",
            "--add-config",
            "consumer_byte_rate=524288",
        ],
    );
    wait_for("broker 2 to enforce the quota", || {
        cluster
            .tool(
                Some(2),
                "kafka.admin.ConfigCommand",
                &[
                    "--describe",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "indoubt",
                ],
            )
            .contains("consumer_byte_rate=524288")
    });
    // Broker 2 leads both partitions when the run starts, with broker 1 in sync. On a
    // busy machine broker 2 may have lost the lead meanwhile (a missed heartbeat): it
    // is handed back by a preferred-leader election.
    let watcher = consumer(&bootstrap, "read_uncommitted");
    let led_by_2 = || {
        let metadata = watcher
            .fetch_metadata(Some(&topic), WAIT)
            .expect("metadata");
        metadata.topics()[0]
            .partitions()
            .iter()
            .all(|p| p.leader() == 2 && p.isr().len() == 2)
    };
    if !led_by_2() {
        cluster.tool(
            None,
            "org.apache.kafka.tools.LeaderElectionCommand",
            &[
                "--election-type",
                "PREFERRED",
                "--topic",
                &topic,
                "--partition",
                "0",
            ],
        );
        cluster.tool(
            None,
            "org.apache.kafka.tools.LeaderElectionCommand",
            &[
                "--election-type",
                "PREFERRED",
                "--topic",
                &topic,
                "--partition",
                "1",
            ],
        );
    }
    wait_for("broker 2 to lead both partitions", led_by_2);

    let mut child = indoubt_process()
        .args([
            "-v",
            "-o",
            "json",
            "reconcile",
            "--pg",
            &db.url(),
            "--query",
            "SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2",
            "-b",
            &bootstrap,
            "--topic",
            &topic,
            "--since",
            "3h",
            "--no-progress",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, stderr) = (mpsc::channel(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.0.send(line);
        }
    });
    let mut seen = Vec::new();
    let started = format!("reading 2 partition(s) of {topic} from broker(s) 2");
    while !seen.iter().any(|l: &String| l.contains(&started)) {
        let line = lines.1.recv_timeout(WAIT).unwrap_or_else(|_| {
            panic!("indoubt never began reading; its stderr: {seen:?}");
        });
        seen.push(line);
    }
    cluster.kill_node(2);
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    seen.extend(lines.1.try_iter());

    let stderr = seen.join("\n");
    // Broker 2 died with its first answer in flight or just after it; either way the
    // rest of partition 1 came from broker 1 (an answer holds at most 4 MiB of a partition,
    // and partition 0 comes first).
    assert!(
        stderr.contains(&format!("{topic}-1 moved from broker 2 to broker 1")),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let expected: Vec<String> = NEVER_PUBLISHED.iter().map(u32::to_string).collect();
    assert_eq!(report["missing"], serde_json::json!(expected), "{stderr}");
    let published = u64::from(FAILOVER_ORDERS) - NEVER_PUBLISHED.len() as u64;
    assert_eq!(report["topic_messages"], published);
    assert_eq!(report["matched"], published);
    assert_eq!(report["duplicated_count"], 0);
    assert_eq!(report["extra_count"], 0);
}

/// A leader that accepts connections and never answers (a host gone silent, a network
/// split): its reader gives up at the request timeout, which may be past the idle budget
/// already, and the partition is still read from the broker that leads it now.
#[test]
fn a_leader_that_stops_answering_is_given_up_and_its_partition_read_elsewhere() {
    use indoubt::kafka::cluster::Cluster;
    use indoubt::kafka::config::ClientConfig as Client;
    use indoubt::kafka::fetch::{read_committed, Range};
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "silent-leader", 1);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .unwrap();
    for i in 0..10 {
        send(&producer, &topic, 0, &format!("m{i}"));
    }
    // Connections complete in the listen backlog; nothing ever reads or answers them.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_address = silent.local_addr().unwrap().to_string();
    let moves = std::sync::Mutex::new(Vec::new());
    let (read, outcome) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let target = Client::plaintext(vec![bootstrap.clone()]);
            let request_timeout = std::time::Duration::from_secs(2);
            let mut cluster =
                Cluster::connect(&target, Some(std::slice::from_ref(&topic)), request_timeout)
                    .await
                    .unwrap();
            // The metadata read at the start named broker 0, the silent one, the leader.
            cluster.brokers.insert(0, silent_address);
            let partition = cluster.topics.get_mut(&topic).unwrap();
            partition.partitions.get_mut(&0).unwrap().leader = 0;
            let (sink, mut queue) = tokio::sync::mpsc::channel(64);
            let sinks = vec![sink];
            let fetching = async {
                let outcome = read_committed(
                    &cluster,
                    &topic,
                    &[Range {
                        partition: 0,
                        start: 0,
                        end: 10,
                    }],
                    std::time::Duration::from_secs(1), // less than the request timeout
                    &sinks,
                    &|| {},
                    &|m| moves.lock().unwrap().push(m),
                )
                .await;
                drop(sinks);
                outcome
            };
            let draining = async {
                let mut read = Vec::new();
                while let Some(work) = queue.recv().await {
                    work.batch
                        .for_each_record(|r| {
                            if (work.from..work.end).contains(&r.offset) {
                                read.push(r.offset);
                            }
                            Ok(())
                        })
                        .unwrap();
                }
                read
            };
            let (outcome, read) = tokio::join!(fetching, draining);
            (read, outcome)
        });
    outcome.unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(read, (0..10).collect::<Vec<i64>>());
    let moves = moves.into_inner().unwrap();
    assert!(
        moves
            .iter()
            .any(|m| m.starts_with(&format!("{topic}-0 moved from broker 0 to broker 1"))),
        "{moves:?}"
    );
}

/// Retention (here DeleteRecords, its manual form) removed the topic's oldest events:
/// rows older than what every partition still holds are not reported missing, the
/// comparison starts where the topic's memory does, and says so.
#[test]
fn rows_older_than_the_topic_retains_are_not_called_missing() {
    let shop = Shop::new(1);
    shop.db
        .admin()
        .batch_execute(
            "INSERT INTO orders SELECT g, now() - interval '20 minutes' FROM generate_series(22, 30) g;
             INSERT INTO orders VALUES (31, now() - interval '40 minutes')",
        )
        .unwrap();
    let producer = shop.producer();
    let minute = 60_000;
    for id in 1..=20 {
        shop.publish(&producer, &id.to_string(), 120 * minute - 1000); // offsets 0-19
    }
    shop.publish(&producer, "31", 40 * minute); // offset 20: the oldest one kept
    for id in 22..=29 {
        shop.publish(&producer, &id.to_string(), 20 * minute); // 30 never published
    }
    producer.flush(WAIT).unwrap();
    delete_records(&shop.bootstrap, &shop.topic, &[(0, 20)]);

    let (r, out) = shop.reconcile(&["--since", "3h"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        ids(&r, "missing"),
        ["30"],
        "orders 1-20 were published, then deleted"
    );
    assert_eq!(ids(&r, "pending"), ["21"]);
    assert_eq!(r["matched"], 8, "22-29");
    assert_eq!(
        r["database_rows"], 10,
        "21-30: order 31 is older than the kept events + slack"
    );
    let kept_from = millis(&r["retained"]["partitions"]["0"]);
    assert_eq!(kept_from, shop.now_ms - 40 * minute, "order 31's event");
    assert_eq!(
        millis(&r["compared_from"]),
        kept_from + minute + 1,
        "just after it plus the default slack of 1m"
    );
    let warning = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "window_past_retention")
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(warning["severity"], "WARNING");
    assert!(warning["message"]
        .as_str()
        .unwrap()
        .contains("older rows are not judged"));

    // A window wholly older than what the topic keeps cannot be compared at all.
    let (_, out) = shop.reconcile(&["--since", "3h", "--until", "1h"]);
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(
        out.stderr.contains("may have lost messages up to"),
        "{}",
        out.stderr
    );
}

/// Several partitions lose different amounts: the comparison starts after the newest
/// message any of them may have lost. One trimmed at a batch boundary, one inside a
/// batch, one emptied while retention.ms is infinite (so nothing bounds its loss).
#[test]
fn the_partition_that_lost_the_most_sets_where_the_comparison_starts() {
    let db = TestDb::create("shop");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, 6) g;
             INSERT INTO orders VALUES (7, now() - interval '35 minutes');
             INSERT INTO orders SELECT g, now() - interval '20 minutes' FROM generate_series(8, 11) g",
        )
        .unwrap();
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic_with(
        &bootstrap,
        "orders.kept",
        3,
        TopicReplication::Fixed(1),
        &[("retention.ms", "-1")],
    );
    // A long linger: what is not flushed goes out as one batch per partition.
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .set("linger.ms", "1000")
        .create()
        .unwrap();
    let now_ms = chrono::Utc::now().timestamp_millis();
    let minute = 60_000;
    let publish = |partition: i32, id: &str, ago_min: i64, flush: bool| {
        producer
            .send(
                BaseRecord::to(&topic)
                    .partition(partition)
                    .key(id)
                    .payload(id)
                    .timestamp(now_ms - ago_min * minute),
            )
            .map_err(|(e, _)| e)
            .unwrap();
        if flush {
            producer.flush(WAIT).unwrap(); // what follows starts a new batch
        }
    };
    // Partition 0: orders 1, 2 (offsets 0, 1) lost inside the batch; the first kept is 40m old.
    publish(0, "1", 120, false);
    publish(0, "2", 120, false);
    publish(0, "90", 40, false);
    publish(0, "8", 20, false);
    publish(0, "9", 20, true);
    // Partition 1: orders 3, 4 lost, a batch of their own; the first kept is 30m old.
    publish(1, "3", 120, false);
    publish(1, "4", 120, true);
    publish(1, "91", 30, false);
    publish(1, "10", 20, true);
    // Partition 2: orders 5, 6, then nothing kept at all.
    publish(2, "5", 120, false);
    publish(2, "6", 120, true);
    delete_records(&bootstrap, &topic, &[(0, 2), (1, 2), (2, 2)]);
    let (r, out) = reconcile(&db.url(), &bootstrap, &topic, &["--since", "3h"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        millis(&r["retained"]["partitions"]["0"]),
        now_ms - 40 * minute
    );
    assert_eq!(
        millis(&r["retained"]["partitions"]["1"]),
        now_ms - 30 * minute
    );
    assert_eq!(r["retained"]["emptied"], serde_json::json!([2]));
    assert_eq!(r["retained"]["unbounded"], serde_json::json!([2]));
    assert_eq!(r["retained"]["retention_ms"], -1);
    assert_eq!(
        millis(&r["compared_from"]),
        now_ms - 30 * minute + minute + 1,
        "after partition 1's loss, the latest"
    );
    assert_eq!(
        ids(&r, "missing"),
        ["11"],
        "order 7 (35m old) is not judged"
    );
    assert_eq!(r["matched"], 3, "8, 9, 10");
    let codes = codes(&r);
    assert!(
        codes.contains(&"window_past_retention") && codes.contains(&"partitions_emptied"),
        "{codes:?}"
    );
}

/// A partition emptied while only time deletes (retention.ms of 1h, no size limit) is
/// bounded by now − 1h; a compacted topic is named as such.
#[test]
fn an_emptied_partition_is_bounded_by_time_retention_and_compaction_is_named() {
    let shop = Shop::new(1);
    let topic = create_topic_with(
        &shop.bootstrap,
        "orders.compacted",
        1,
        TopicReplication::Fixed(1),
        &[
            ("retention.ms", "3600000"),
            ("cleanup.policy", "compact,delete"),
        ],
    );
    let producer = shop.producer();
    for id in ["1", "2"] {
        producer
            .send(
                BaseRecord::to(&topic)
                    .key(id)
                    .payload(id)
                    .timestamp(shop.now_ms - 7_000_000),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    producer.flush(WAIT).unwrap();
    delete_records(&shop.bootstrap, &topic, &[(0, 2)]);
    let (r, out) = reconcile(&shop.db.url(), &shop.bootstrap, &topic, &["--since", "3h"]);
    assert_eq!(
        out.code, 1,
        "nothing judged is missing: {}\n{}",
        out.stdout, out.stderr
    );
    assert_eq!(r["retained"]["emptied"], serde_json::json!([0]));
    assert_eq!(r["retained"]["unbounded"], serde_json::json!([]));
    let bound = millis(&r["retained"]["partitions"]["0"]);
    let hour_ago = chrono::Utc::now().timestamp_millis() - 3_600_000;
    assert!(
        (hour_ago - 120_000..=hour_ago).contains(&bound),
        "now - retention.ms: {bound} vs {hour_ago}"
    );
    assert_eq!(
        r["database_rows"], 1,
        "orders 1-20 are 2h old, past the bound; order 21 is 1 minute old"
    );
    let codes = codes(&r);
    assert!(
        codes.contains(&"window_past_retention") && codes.contains(&"topic_compacted"),
        "{codes:?}"
    );
    assert!(!codes.contains(&"partitions_emptied"), "{codes:?}");
}

#[test]
fn rows_whose_events_lie_past_a_stuck_lso_are_not_judged_never_missing() {
    let shop = Shop::new(2);
    let producer = shop.producer();
    let hour = 3_600_000;
    for id in 1..=3 {
        shop.publish(&producer, &id.to_string(), 2 * hour - 1000);
    }
    producer.flush(WAIT).unwrap();
    // A transaction left open on both partitions pins their LSOs; the relay goes on
    // publishing after it (committed, but past the LSO: no read_committed consumer sees
    // them until it ends). 19 and 20 are never published.
    let (open0, _) = long_transaction(&shop.bootstrap, &shop.topic, 0);
    let (open1, _) = long_transaction(&shop.bootstrap, &shop.topic, 1);
    for id in 4..=18 {
        shop.publish(&producer, &id.to_string(), 2 * hour - 1000);
    }
    producer.flush(WAIT).unwrap();
    let past: Vec<String> = (4..=18).map(|i| i.to_string()).collect();

    let (r, out) = shop.reconcile(&["--since", "3h"]);
    assert_eq!(
        out.code, 2,
        "19 and 20 are missing for sure\n{}",
        out.stderr
    );
    assert_eq!(ids(&r, "missing"), ["19", "20"]);
    let mut not_judged = ids(&r, "not_judged");
    not_judged.sort_by_key(|id| id.parse::<u32>().unwrap());
    assert_eq!(
        not_judged, past,
        "in the topic past the LSO: never called missing"
    );
    assert_eq!(r["not_judged_count"], 15);
    assert_eq!(r["matched"], 3);
    assert_eq!(ids(&r, "pending"), ["21"]);
    assert!(
        ids(&r, "extra").is_empty(),
        "the open transactions' records are not read"
    );
    let bounds = r["lso_bounds"].as_array().unwrap();
    assert_eq!(bounds.len(), 2, "{bounds:?}");
    for b in bounds {
        assert!(
            b["high_watermark"].as_i64() > b["last_stable_offset"].as_i64(),
            "{b}"
        );
        assert!(
            b["producer_id"].as_i64().is_some(),
            "the holder is named: {b}"
        );
        assert!(b["messages_past_lso"].as_u64() >= Some(1), "{b}");
    }
    let findings = r["findings"].as_array().unwrap();
    let warning = findings
        .iter()
        .find(|f| f["code"] == "not_judged_past_lso")
        .expect("a not-judged finding");
    assert_eq!(warning["severity"], "WARNING");
    let advice = warning["advice"].as_str().unwrap();
    assert!(
        advice.contains("do not republish") && advice.contains("kafka lso"),
        "{advice}"
    );
    let message = warning["message"].as_str().unwrap();
    assert!(
        message.contains("15 row(s) not judged")
            && message.contains(&format!("{}-0 at offset", shop.topic)),
        "{message}"
    );
    let missing = findings
        .iter()
        .find(|f| f["code"] == "missing_in_topic")
        .unwrap();
    assert!(
        missing["message"].as_str().unwrap().starts_with("2 row(s)"),
        "only the two never published: {missing}"
    );

    // Once the transactions end, the same rows are judged: in the topic.
    open0.abort_transaction(WAIT).unwrap();
    open1.abort_transaction(WAIT).unwrap();
    let (r, out) = shop.reconcile(&["--since", "3h"]);
    assert_eq!(out.code, 2);
    assert_eq!(ids(&r, "missing"), ["19", "20"]);
    assert_eq!(r["matched"], 18);
    assert_eq!(r["not_judged_count"], 0);
    assert!(r["lso_bounds"].as_array().unwrap().is_empty());
}

/// A job's missing ids (either way) name the command that writes them all to a file, over
/// the same window; run as printed, it writes exactly the ids this run reported.
#[test]
fn a_jobs_missing_ids_name_the_command_that_writes_them_and_it_works_as_printed() {
    let shop = incident();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  lab:\n    bootstrap_servers: {}\nreconcile:\n  orders:\n    postgres: {}\n    query: {QUERY}\n    kafka: lab\n    topic: {}\n    since: 3h\n    settle: 5m\n",
            shop.bootstrap,
            shop.db.url(),
            shop.topic
        ),
    )
    .unwrap();
    let job = |extra: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&config)
            .arg("reconcile")
            .args(extra));
        let report: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (report, out)
    };
    let (r, out) = job(&[]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let next_of = |report: &Value, code: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == code)
            .map(|f| f["next"].clone())
            .unwrap_or_else(|| panic!("no {code}: {report}"))
    };
    let next = next_of(&r, "missing_in_topic");
    let next = next.as_str().expect("missing ids have a next command");
    assert_eq!(next_of(&r, "missing_in_database"), next);
    assert!(
        next_of(&r, "duplicated_in_topic").is_null(),
        "a duplicate is fixed by the consumer, not by a file of ids"
    );
    assert!(
        next.contains(" reconcile --since ")
            && next.ends_with(" --ids-out reconcile-ids.tsv -- orders"),
        "{next}"
    );

    let work = tempfile::tempdir().unwrap();
    let (again, code) = run_printed_in(next, work.path());
    assert_eq!(code, Some(2), "{next}: {again:#}");
    assert_eq!(again["since"], r["since"], "the same window: {next}");
    assert_eq!(again["until"], r["until"], "the same window: {next}");
    assert!(
        again["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["next"].is_null()),
        "the file is written: nothing more to run"
    );
    let written = std::fs::read_to_string(work.path().join("reconcile-ids.tsv")).unwrap();
    let of = |class: &str| -> Vec<String> {
        let mut ids: Vec<String> = written
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{class}\t")))
            .map(str::to_string)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(of("missing"), ids(&r, "missing"), "{written}");
    assert_eq!(of("extra"), ids(&r, "extra"), "{written}");

    // A field overridden by a flag is not the job any more: no next that would compare
    // something else.
    let (r, out) = job(&["--settle", "1m"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(next_of(&r, "missing_in_topic").is_null(), "{r}");
}

/// A broker whose advertised.listeners names an address nothing listens on: the bootstrap
/// broker answers, the metadata sends the client to the other one, and the refused
/// connection reaches the operator with its hint (the cluster no longer flattens it to
/// text), both as `kafka lso`'s advice for each partition it leads and under `reconcile`'s
/// error.
#[test]
fn a_broker_advertised_where_nothing_listens_is_named_with_its_hint_by_kafka_lso_and_reconcile() {
    let nowhere = free_port();
    let cluster = KafkaCluster::start_advertising(2, &[(2, nowhere)]);
    // Broker 1 answers indoubt's metadata request; broker 2 is reached only where it says.
    let bootstrap = cluster.bootstrap().split(',').next().unwrap().to_string();
    // Led by broker 2 alone: every request about it goes to the advertised address. Made
    // by Kafka's own tool, which asks another broker when the one it picked cannot be
    // reached (librdkafka's admin client may keep asking broker 2).
    let topic = unique("orders.created");
    cluster.tool(
        Some(1),
        "org.apache.kafka.tools.TopicCommand",
        &["--create", "--topic", &topic, "--replica-assignment", "2,2"],
    );
    let address = format!("127.0.0.1:{nowhere}");
    // Broker 1 must know the new topic before it is asked.
    let watcher = consumer(&bootstrap, "read_uncommitted");
    wait_for("broker 1 to name broker 2 the topic's leader", || {
        watcher.fetch_metadata(Some(&topic), WAIT).is_ok_and(|m| {
            let t = &m.topics()[0];
            t.error().is_none()
                && t.partitions().len() == 2
                && t.partitions().iter().all(|p| p.leader() == 2)
        })
    });

    let lso = run(indoubt().args([
        "-o", "json", "kafka", "lso", "-b", &bootstrap, "--topic", &topic,
    ]));
    assert_eq!(lso.code, 3, "{}\n{}", lso.stdout, lso.stderr);
    let report: Value = serde_json::from_str(&lso.stdout).unwrap();
    let unreadable: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "lso_unreadable")
        .collect();
    assert_eq!(unreadable.len(), 2, "{}", lso.stdout);
    for finding in unreadable {
        let message = finding["message"].as_str().unwrap();
        assert!(
            message.contains("ListOffsets: broker 2: ")
                && message.contains(&format!("connection refused at {address}")),
            "{message}"
        );
        let advice = finding["advice"].as_str().unwrap_or_default();
        assert!(
            advice.contains(&format!("broker 2 is at {address}"))
                && advice.contains("advertised.listeners"),
            "no hint in {finding}"
        );
    }

    let db = TestDb::create("advertised");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, 3) g",
        )
        .unwrap();
    let (_, out) = reconcile(&db.url(), &bootstrap, &topic, &[]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains(&format!("connection refused at {address}")),
        "{}",
        out.stderr
    );
    let hint = out
        .stderr
        .lines()
        .find(|l| l.starts_with("hint: "))
        .unwrap_or_else(|| panic!("no hint:\n{}", out.stderr));
    assert!(
        hint.contains(&format!("broker 2 is at {address}"))
            && hint.contains("advertised.listeners"),
        "{hint}"
    );
}

#[test]
fn an_id_past_4_kib_is_refused_on_either_side_naming_its_row_or_message() {
    let shop = Shop::new(1);
    shop.db
        .admin()
        .batch_execute(
            "CREATE TABLE big (n int, id text, created_at timestamptz);
             INSERT INTO big SELECT g, 'order-' || g, now() - interval '2 hours' FROM generate_series(1, 3) g;
             INSERT INTO big VALUES (4, repeat('x', 4096), now() - interval '2 hours'),
                                    (5, repeat('y', 1000000), now() - interval '2 hours');
             CREATE TABLE huge (n int, id text, created_at timestamptz);
             INSERT INTO huge SELECT g, 'order-' || g, now() - interval '2 hours' FROM generate_series(1, 3) g;
             INSERT INTO huge SELECT g, repeat('z', 20000000) || g, now() - interval '2 hours' FROM generate_series(4, 6) g;",
        )
        .unwrap();
    let measured = |query: &str, extra: &[&str]| {
        let mut cmd = indoubt_process();
        cmd.args([
            "reconcile",
            "--pg",
            &shop.db.url(),
            "--query",
            query,
            "-b",
            &shop.bootstrap,
            "--topic",
            &shop.topic,
            "--memory",
            "1MiB",
            "--no-progress",
        ])
        .args(extra);
        run_measured(&mut cmd, std::time::Duration::from_secs(120))
    };

    // A row: 4096 bytes is an id, 1,000,000 is not, and the error names the row.
    let out = measured(
        "SELECT id, created_at FROM big WHERE created_at >= $1 AND created_at < $2 ORDER BY n",
        &[],
    );
    eprintln!(
        "a 1 MB id in a row: exit {:?}, peak RSS {} KiB",
        out.code, out.peak_rss_kib
    );
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(
        out.stderr.contains("row 5 (time ")
            && out.stderr.contains(
                "of the reconcile query has an id of 1000000 bytes: indoubt compares ids of at most 4096 bytes"
            )
            && out.stderr.contains("WHERE octet_length(id) <= 4096"),
        "{}",
        out.stderr
    );

    // Three 20 MB ids under --memory 1MiB (287 MB of RSS before): the first is refused
    // as it arrives, past the 16 MiB a message may take, naming the row.
    let out = measured(
        "SELECT id, created_at FROM huge WHERE created_at >= $1 AND created_at < $2 ORDER BY n",
        &[],
    );
    eprintln!(
        "three 20 MB ids in rows: exit {:?}, peak RSS {} KiB",
        out.code, out.peak_rss_kib
    );
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("reading row 4 of the reconcile query: ")
            && out
                .stderr
                .contains("the server sent a row (DataRow) of 19.1 MiB"),
        "{}",
        out.stderr
    );
    assert!(
        out.peak_rss_kib < 100 << 10,
        "peak RSS {} KiB",
        out.peak_rss_kib
    );

    // A message: its key is the id; 100,000 bytes of it is refused, naming the message.
    let producer = shop.producer();
    for id in ["order-1", "order-2", "order-3"] {
        shop.publish(&producer, id, 3_600_000);
    }
    let key = "k".repeat(100_000);
    producer
        .send(
            BaseRecord::to(&shop.topic)
                .key(&key)
                .payload("{}")
                .timestamp(shop.now_ms - 3_600_000),
        )
        .map_err(|(e, _)| e)
        .unwrap();
    producer.flush(WAIT).unwrap();
    let out = measured(
        "SELECT id, created_at FROM big WHERE created_at >= $1 AND created_at < $2 AND n <= 4",
        &["--id-from", "key"],
    );
    eprintln!(
        "a 100 kB id in a message: exit {:?}, peak RSS {} KiB",
        out.code, out.peak_rss_kib
    );
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "the message at partition 0 offset 3 has an id of 100000 bytes: indoubt compares ids of at most 4096 bytes"
        ) && out.stderr.contains("--id-from says where a message's id is"),
        "{}",
        out.stderr
    );
}
