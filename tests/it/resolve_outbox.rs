//! `resolve outbox`: the rows a relay skipped are published through librdkafka with
//! their stable id, seen once by a read_committed consumer, marked published, and a
//! second run has nothing to do; what cannot be sent is refused before anything is.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::kafka::{create_topic, sasl_args};
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A message as a consumer sees it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub partition: i32,
    pub offset: i64,
    pub key: Option<String>,
    pub value: String,
    pub headers: BTreeMap<String, String>,
}

/// Every message of `topic` readable at `isolation`, each partition to its end.
pub(crate) fn consumed(
    bootstrap: &str,
    topic: &str,
    partitions: i32,
    isolation: &str,
) -> Vec<Seen> {
    use rdkafka::consumer::Consumer;
    use rdkafka::message::Headers;
    use rdkafka::Message;
    let consumer = common::kafka::consumer(bootstrap, isolation);
    let mut tpl = rdkafka::TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, rdkafka::Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&tpl).unwrap();
    let deadline = Instant::now() + common::kafka::WAIT;
    let mut at_end = std::collections::BTreeSet::new();
    let mut seen = Vec::new();
    while Instant::now() < deadline && at_end.len() < partitions as usize {
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => {
                let mut headers = BTreeMap::new();
                if let Some(h) = m.headers() {
                    for header in h.iter() {
                        headers.insert(
                            header.key.to_string(),
                            String::from_utf8_lossy(header.value.unwrap_or_default()).into_owned(),
                        );
                    }
                }
                seen.push(Seen {
                    partition: m.partition(),
                    offset: m.offset(),
                    key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
                    value: String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned(),
                    headers,
                });
            }
            Some(Err(rdkafka::error::KafkaError::PartitionEOF(p))) => {
                at_end.insert(p);
            }
            Some(Err(e)) => panic!("consume: {e}"),
            None => {}
        }
    }
    seen
}

/// An outbox of 100 orders written an hour ago, all published but 20 and 35 (the relay's
/// id cursor passed them), and 101 written just now (the relay's normal lag).
fn outbox_db() -> TestDb {
    let db = TestDb::create("republish");
    db.admin()
        .batch_execute(
            "CREATE TABLE outbox (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, published_at timestamptz,
                                  aggregate_id text NOT NULL, event_type text, payload jsonb);
             INSERT INTO outbox SELECT g, now() - interval '1 hour',
                    CASE WHEN g IN (20, 35) THEN NULL ELSE now() - interval '50 minutes' END,
                    'order-' || g, 'OrderPlaced', jsonb_build_object('order', g)
             FROM generate_series(1, 100) g;
             INSERT INTO outbox VALUES (101, now(), NULL, 'order-101', 'OrderPlaced', '{\"order\": 101}')",
        )
        .unwrap();
    db
}

struct Outbox {
    db: TestDb,
    topic: String,
    config: std::path::PathBuf,
    audit: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Outbox {
    /// The outbox above publishing to a topic of its own (3 partitions) through `kafka`
    /// (a kafka: section of the config), with `publish` extra keys.
    fn new(kafka: &str, publish: &str) -> Outbox {
        let db = outbox_db();
        let topic = create_topic(&lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"), "republish", 3);
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.yaml");
        std::fs::write(
            &config,
            format!(
                "kafka:\n{kafka}outbox:\n  orders:\n    postgres: {}\n    table: public.outbox\n    settle: 5m\n    publish:\n      kafka: lab\n      topic: {topic}\n      key: aggregate_id\n      headers:\n        eventType: event_type\n{publish}",
                db.url()
            ),
        )
        .unwrap();
        let audit = dir.path().join("audit.log");
        Outbox {
            db,
            topic,
            config,
            audit,
            _dir: dir,
        }
    }

    fn resolve(&self, args: &[&str]) -> (Value, Outcome) {
        let audit = self.audit.to_string_lossy().into_owned();
        let mut all = vec!["resolve", "outbox", "orders", "--audit-log", &audit];
        all.extend(args);
        json_with(&self.config, &all)
    }

    fn published(&self) -> Vec<i64> {
        self.db
            .admin()
            .query(
                "SELECT id FROM outbox WHERE id IN (20, 35, 101) AND published_at IS NOT NULL ORDER BY id",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    fn audit_records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// `resolve outbox events --yes` on `db`'s `outboxevent` table, a Debezium layout
/// published to the lab (`publish` extra keys under publish:).
fn publish_debezium(db: &TestDb, publish: &str) -> (Value, Outcome) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n{}outbox:\n  events:\n    postgres: {}\n    table: outboxevent\n    publish:\n      kafka: lab\n      layout: debezium\n{publish}",
            plaintext(),
            db.url()
        ),
    )
    .unwrap();
    let audit = dir.path().join("audit.log").to_string_lossy().into_owned();
    json_with(
        &config,
        &[
            "resolve",
            "outbox",
            "events",
            "--yes",
            "--reason",
            "x",
            "--audit-log",
            &audit,
        ],
    )
}

fn plaintext() -> String {
    format!(
        "  lab:\n    bootstrap_servers: {}\n",
        lab("INDOUBT_LAB_KAFKA_BOOTSTRAP")
    )
}

#[test]
fn the_skipped_rows_are_published_once_with_their_ids_and_marked_and_a_second_run_has_nothing_to_do(
) {
    let o = Outbox::new(&plaintext(), "");
    // pg outbox names the dry run as its next step, and it runs as printed.
    let (found, _) = json_with(&o.config, &["pg", "outbox", "orders"]);
    let skipped = findings_of(&found, "outbox_skipped_rows");
    let next = skipped[0]["next"].as_str().unwrap();
    assert!(
        next.contains("resolve outbox --dry-run -- orders"),
        "{next}"
    );
    let (dry, code) = run_printed(next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["rows"], 2, "{dry:#}");
    let (dry, out) = o.resolve(&["--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(dry["rows"], 2, "{dry:#}");
    assert_eq!(dry["first_ids"], serde_json::json!(["20", "35"]));
    assert!(o.published().is_empty(), "a dry run marks nothing");
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    assert!(consumed(&bootstrap, &o.topic, 3, "read_committed").is_empty());

    let (done, out) = o.resolve(&["--yes", "--reason", "INC-42"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(findings_of(&done, "resolved").len(), 1, "{done:#}");
    // Each skipped row once, with its id, key, value and headers; the young one not.
    let mut seen = consumed(&bootstrap, &o.topic, 3, "read_committed");
    seen.sort_by(|a, b| a.headers["id"].cmp(&b.headers["id"]));
    assert_eq!(seen.len(), 2, "{seen:#?}");
    for (m, id) in seen.iter().zip(["20", "35"]) {
        assert_eq!(m.headers["id"], id);
        assert_eq!(m.headers["eventType"], "OrderPlaced");
        assert_eq!(m.key.as_deref(), Some(format!("order-{id}").as_str()));
        assert_eq!(m.value, format!("{{\"order\": {id}}}"));
    }
    assert_eq!(
        o.published(),
        [20, 35],
        "marked published; 101 left to the relay"
    );
    // The trail: the intent names the rows, the outcome where each one went.
    let records = o.audit_records();
    assert_eq!(records.len(), 2, "{records:#?}");
    let rows: Vec<&str> = records[0]["evidence"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap())
        .collect();
    assert_eq!(rows, ["20", "35"]);
    let delivered = records[1]["outcome"]["result"]["delivered"]
        .as_array()
        .unwrap();
    assert_eq!(delivered.len(), 2, "{:#}", records[1]);
    for d in delivered {
        let m = seen
            .iter()
            .find(|m| m.headers["id"] == d["id"].as_str().unwrap())
            .unwrap();
        assert_eq!(d["partition"], m.partition);
        assert_eq!(d["offset"], m.offset);
        assert_eq!(d["topic"], o.topic.as_str());
    }
    assert_eq!(records[1]["outcome"]["status"], "ok");

    let (again, out) = o.resolve(&["--yes", "--reason", "INC-42"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        findings_of(&again, "already_resolved").len(),
        1,
        "{again:#}"
    );
    assert_eq!(consumed(&bootstrap, &o.topic, 3, "read_committed").len(), 2);
}

#[test]
fn in_a_transaction_read_committed_consumers_see_the_rows_once() {
    let o = Outbox::new(&plaintext(), "");
    let (done, out) = o.resolve(&["--transactional", "--yes", "--reason", "INC-43"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(findings_of(&done, "resolved").len(), 1, "{done:#}");
    let seen = consumed(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        &o.topic,
        3,
        "read_committed",
    );
    let mut ids: Vec<&str> = seen.iter().map(|m| m.headers["id"].as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["20", "35"]);
    assert_eq!(o.published(), [20, 35]);
}

#[test]
fn what_cannot_be_sent_is_refused_before_anything_is() {
    // A NULL payload and a NULL key among the skipped rows: both said at once.
    let o = Outbox::new(&plaintext(), "");
    o.db.admin()
        .batch_execute(
            "UPDATE outbox SET payload = NULL WHERE id = 35;
             ALTER TABLE outbox ALTER aggregate_id DROP NOT NULL;
             UPDATE outbox SET aggregate_id = NULL WHERE id = 20",
        )
        .unwrap();
    let (r, out) = o.resolve(&["--yes", "--reason", "x"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let refused: Vec<&str> = findings_of(&r, "not_judged")
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(refused.len(), 2, "{r:#}");
    assert!(refused[0].contains("NULL value (payload: 35)"), "{r:#}");
    assert!(refused[1].contains("NULL key (aggregate_id: 20)"), "{r:#}");
    assert!(!o.audit.exists(), "nothing recorded");
    assert!(o.published().is_empty());

    // An id two skipped rows share (no primary key): one message cannot stand for both.
    let o = Outbox::new(&plaintext(), "");
    o.db.admin()
        .batch_execute(
            "ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
             INSERT INTO outbox VALUES (35, now() - interval '1 hour', NULL, 'order-35', 'OrderPlaced', '{\"order\": 35}')",
        )
        .unwrap();
    let (r, out) = o.resolve(&["--yes", "--reason", "x"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        findings_of(&r, "not_judged")[0]["message"]
            .as_str()
            .unwrap()
            .contains("1 id(s) are each on more than one skipped row (id: 35)"),
        "{r:#}"
    );
    assert!(!o.audit.exists(), "nothing recorded");
    assert!(o.published().is_empty());

    // A topic the cluster does not have.
    let o = Outbox::new(&plaintext(), "");
    let text = std::fs::read_to_string(&o.config)
        .unwrap()
        .replace(&o.topic, "no-such-topic-indoubt");
    std::fs::write(&o.config, text).unwrap();
    let (r, out) = o.resolve(&["--yes", "--reason", "x"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        findings_of(&r, "not_judged")[0]["message"]
            .as_str()
            .unwrap()
            .contains("no topic no-such-topic-indoubt"),
        "{r:#}"
    );
    assert!(o.published().is_empty());

    // A value column of a type no message is made of, and one that is not there.
    for (column, says) in [
        ("created_at", "is timestamp with time zone"),
        ("nope", "has no column \"nope\""),
    ] {
        let o = Outbox::new(&plaintext(), &format!("      value: {column}\n"));
        let (_, out) = o.resolve(&["--yes", "--reason", "x"]);
        assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(says), "{}", out.stderr);
    }
}

#[test]
fn the_producer_connects_over_sasl_ssl_as_indoubts_own_client_does() {
    let ca = lab("INDOUBT_LAB_KAFKA_CA");
    let o = Outbox::new(&plaintext(), "");
    for (i, mechanism) in ["SCRAM-SHA-512", "PLAIN"].iter().enumerate() {
        if i == 1 {
            // Unpublish 20 again for the second mechanism.
            o.db.admin()
                .batch_execute("UPDATE outbox SET published_at = NULL WHERE id = 20")
                .unwrap();
        }
        let mut args: Vec<String> =
            sasl_args(mechanism, &lab("INDOUBT_LAB_KAFKA_SASL_PASSWORD"), &ca);
        args.extend(["--yes".into(), "--reason".into(), "x".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (done, out) = o.resolve(&args);
        assert_eq!(out.code, 0, "{mechanism}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(findings_of(&done, "resolved").len(), 1, "{done:#}");
    }
    let seen = consumed(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        &o.topic,
        3,
        "read_committed",
    );
    assert_eq!(seen.len(), 3, "20 and 35, then 20 again: {seen:#?}");
}

#[test]
fn a_broker_stopped_mid_run_leaves_a_truthful_partial_outcome() {
    let cluster = common::kafka::KafkaCluster::start(1);
    let bootstrap = cluster.bootstrap();
    let topic = create_topic(&bootstrap, "republish-stop", 1);
    let db = TestDb::create("republish_stop");
    // 7,500 rows the relay skipped (below the published 7,501): two batches of 5,000.
    db.admin()
        .batch_execute(
            "CREATE TABLE outbox (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, published_at timestamptz, payload text);
             INSERT INTO outbox SELECT g, now() - interval '1 hour', CASE WHEN g = 7501 THEN now() END, 'event ' || g
             FROM generate_series(1, 7501) g",
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  lab:\n    bootstrap_servers: {bootstrap}\noutbox:\n  orders:\n    postgres: {}\n    table: outbox\n    publish:\n      kafka: lab\n      topic: {topic}\n      message_timeout: 5s\n",
            db.url()
        ),
    )
    .unwrap();
    let audit = dir.path().join("audit.log");
    let mut cmd = indoubt_process();
    cmd.arg("--config")
        .arg(&config)
        .args([
            "-o",
            "json",
            "resolve",
            "outbox",
            "orders",
            "--yes",
            "--reason",
            "INC-44",
            "--audit-log",
        ])
        .arg(&audit);
    let (r, out) = paused_at(cmd, "after-batch", || cluster.kill_node(1));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let failed = findings_of(&r, "failed");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.contains("5000 of 7500 row(s) delivered and marked published; 2500 NOT delivered, left unpublished"),
        "{message}"
    );
    let unpublished: i64 = db
        .admin()
        .query_one(
            "SELECT count(*) FROM outbox WHERE published_at IS NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(unpublished, 2500, "only what was acknowledged is marked");
    let records: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let result = &records[1]["outcome"]["result"];
    assert_eq!(records[1]["outcome"]["status"], "error");
    assert_eq!(result["delivered"].as_array().unwrap().len(), 5000);
    let not_delivered = result["not_delivered"].as_array().unwrap();
    assert_eq!(not_delivered.len(), 2500);
    assert_eq!(not_delivered[0]["id"], "5001");
    assert_eq!(result["delivered"][4999]["offset"], 4999);
}

#[test]
fn the_producer_presents_indoubts_own_oauthbearer_token_on_both_listeners() {
    let secret = lab("INDOUBT_LAB_OAUTH_CLIENT_SECRET");
    let o = Outbox::new(&plaintext(), "");
    for (i, (way, mut args)) in [
        (
            "unsecured JWT",
            crate::kafka_oauth::unsecured_librdkafka("alice"),
        ),
        (
            "OIDC client credentials",
            crate::kafka_oauth::oidc_librdkafka("indoubt", &secret),
        ),
        (
            "Java's OIDC login",
            crate::kafka_oauth::oidc_java("indoubt", &secret),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            o.db.admin()
                .batch_execute("UPDATE outbox SET published_at = NULL WHERE id = 20")
                .unwrap();
        }
        args.extend(["--yes".into(), "--reason".into(), "x".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (done, out) = o.resolve(&args);
        assert_eq!(out.code, 0, "{way}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(findings_of(&done, "resolved").len(), 1, "{way}: {done:#}");
    }
    let seen = consumed(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        &o.topic,
        3,
        "read_committed",
    );
    assert_eq!(seen.len(), 4, "20 and 35, then 20 twice: {seen:#?}");
}

#[test]
fn a_debezium_outbox_goes_to_outbox_event_and_its_aggregatetype_keyed_by_aggregateid() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "outbox.event.Order", 2);
    let aggregate = topic.strip_prefix("outbox.event.").unwrap();
    let db = TestDb::create("republish_dbz");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE outboxevent (id bigint PRIMARY KEY, aggregatetype text NOT NULL, aggregateid text NOT NULL,
                                       type text NOT NULL, payload jsonb, created_at timestamptz NOT NULL, published_at timestamptz);
             INSERT INTO outboxevent SELECT g, '{aggregate}', 'order-' || g, 'OrderCreated', jsonb_build_object('id', g),
                    now() - interval '1 hour', CASE WHEN g = 7 THEN NULL ELSE now() END
             FROM generate_series(1, 10) g"
        ))
        .unwrap();
    let (done, out) = publish_debezium(&db, "      headers:\n        eventType: type\n");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["topic"], "outbox.event.<aggregatetype>", "{done:#}");
    let seen = consumed(&bootstrap, &topic, 2, "read_committed");
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0].key.as_deref(), Some("order-7"));
    assert_eq!(seen[0].headers["id"], "7");
    assert_eq!(seen[0].headers["eventType"], "OrderCreated");
    assert_eq!(seen[0].value, "{\"id\": 7}");
}

#[test]
fn the_producer_logs_in_with_gssapi_from_the_ticket_cache_and_refuses_a_keytab() {
    let o = Outbox::new(&plaintext(), "");
    let dir = tempfile::tempdir().unwrap();
    let audit = o.audit.to_string_lossy().into_owned();
    let mut gssapi = crate::kafka_gssapi::gssapi();
    gssapi.extend(["-X".into(), "sasl.kerberos.service.name=kafka".into()]);
    let resolve = |cache: &std::path::Path, extra: &[String]| {
        run(crate::kafka_gssapi::indoubt_krb5(cache)
            .args(["-o", "json", "--config"])
            .arg(&o.config)
            .args(["resolve", "outbox", "orders", "--audit-log", &audit])
            .args(&gssapi)
            .args(extra)
            .args(["--yes", "--reason", "INC-47"]))
    };
    // A keytab: librdkafka could only use it through a kinit into the process's cache.
    let none = dir.path().join("none");
    let keytab = resolve(
        &none,
        &[
            "-X".into(),
            format!("sasl.kerberos.keytab={}", lab("INDOUBT_LAB_KRB5_KEYTAB")),
            "-X".into(),
            format!(
                "sasl.kerberos.principal={}",
                lab("INDOUBT_LAB_KRB5_PRINCIPAL")
            ),
        ],
    );
    assert_eq!(keytab.code, 3, "{}\n{}", keytab.stdout, keytab.stderr);
    assert!(
        keytab
            .stderr
            .contains("the producer cannot log in from a keytab"),
        "{}",
        keytab.stderr
    );
    assert!(!none.exists(), "no ticket cache was written");
    assert!(o.published().is_empty() && o.audit_records().is_empty());
    // The tickets kinit got: the rows go, and are marked.
    let cache = dir.path().join("cache");
    crate::kafka_gssapi::kinit(&cache);
    let done = resolve(&cache, &[]);
    assert_eq!(done.code, 0, "{}\n{}", done.stdout, done.stderr);
    assert_eq!(o.published(), [20, 35]);
    let seen = consumed(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        &o.topic,
        3,
        "read_committed",
    );
    assert_eq!(seen.len(), 2, "{seen:#?}");
}

/// A batch's rows are read and marked by one statement whose transaction stays open until
/// their delivery reports: a row of it that is not sent (here, no topic: its aggregatetype
/// is NULL) must not stay marked. The claim is rolled back and only the delivered row is
/// marked published.
#[test]
fn a_row_of_a_batch_that_is_not_sent_is_not_left_marked_published() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "outbox.event.Order", 1);
    let aggregate = topic.strip_prefix("outbox.event.").unwrap();
    let db = TestDb::create("republish_notopic");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE outboxevent (id bigint PRIMARY KEY, aggregatetype text, aggregateid text NOT NULL,
                                       type text NOT NULL, payload jsonb, created_at timestamptz NOT NULL, published_at timestamptz);
             INSERT INTO outboxevent SELECT g, CASE WHEN g = 4 THEN NULL ELSE '{aggregate}' END, 'order-' || g,
                    'OrderCreated', jsonb_build_object('id', g), now() - interval '1 hour',
                    CASE WHEN g IN (4, 7) THEN NULL ELSE now() END
             FROM generate_series(1, 10) g"
        ))
        .unwrap();
    let (done, out) = publish_debezium(&db, "");
    // Done in part: a WARNING that names the row left.
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["severity"], "WARNING", "{done:#}");
    let message = done["findings"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("1 of 2 row(s) delivered and marked published")
            && message.contains("1 not sent (no topic: its topic column is NULL: 4)"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let marked: Vec<i64> = db
        .admin()
        .query(
            "SELECT id FROM outboxevent WHERE id IN (4, 7) AND published_at IS NOT NULL",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(marked, [7], "only the delivered row is marked published");
    let seen = consumed(&bootstrap, &topic, 1, "read_committed");
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0].headers["id"], "7");
}

/// A skipped row changed between the confirmation and the send (its version moved) is
/// left out as changed, and not marked; the others go as usual.
#[test]
fn a_row_changed_after_the_confirmation_is_left_out_and_not_marked() {
    let o = Outbox::new(&plaintext(), "");
    let audit = o.audit.to_string_lossy().into_owned();
    let args = [
        "resolve",
        "outbox",
        "orders",
        "--yes",
        "--reason",
        "x",
        "--audit-log",
        &audit,
    ];
    let (done, out) = json_paused(&o.config, &args, "before-apply", || {
        o.db.admin()
            .batch_execute(
                "UPDATE outbox SET payload = '{\"order\": 35, \"amended\": true}' WHERE id = 35",
            )
            .unwrap();
    });
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let message = done["findings"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("1 of 2 row(s) delivered and marked published")
            && message.contains("1 not sent (changed since it was read: 35)"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(o.published(), [20], "the changed row is not marked");
    let seen = consumed(
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        &o.topic,
        3,
        "read_committed",
    );
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0].headers["id"], "20");
}
