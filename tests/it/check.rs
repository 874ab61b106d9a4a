//! `indoubt check` against real servers: an all-OK PostgreSQL and Kafka, each incident
//! alone, a target down, a target that never answers, and the Nagios and Prometheus formats.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::{committed_writes, create_topic, hanging_transaction, long_transaction};
use common::{connect, free_port, indoubt, lab, run, PrivateCluster, TestDb};
use serde_json::Value;
use std::path::Path;

/// A Kafka target: name, bootstrap servers, and the topics check inspects there (a regex;
/// the shared lab broker holds every other test's topics too).
type KafkaTarget<'a> = (&'a str, String, Option<String>);

/// A config with these postgres targets (name, URL) and kafka targets, and thresholds that
/// make an incident made a moment ago count: prepared and LSO ages of 0s/0s, a horizon
/// holder a WARNING at once (CRITICAL after 1h), open transactions examined by
/// `kafka hanging` at once.
fn config(dir: &Path, postgres: &[(&str, String)], kafka: &[KafkaTarget]) -> String {
    config_with(dir, postgres, kafka, "")
}

/// `config` of postgres targets whose names the test made.
fn config_of_owned(dir: &Path, postgres: &[(String, String)]) -> String {
    let named: Vec<(&str, String)> = postgres
        .iter()
        .map(|(n, u)| (n.as_str(), u.clone()))
        .collect();
    config(dir, &named, &[])
}

/// As `config`, with more top-level YAML (e.g. an `outbox:` section) and slot thresholds
/// of 1MiB/2MiB.
fn config_with(
    dir: &Path,
    postgres: &[(&str, String)],
    kafka: &[KafkaTarget],
    extra: &str,
) -> String {
    let mut yaml = String::from("postgres:\n");
    for (name, url) in postgres {
        yaml.push_str(&format!("  {name}:\n    conninfo: {url}\n"));
    }
    if !kafka.is_empty() {
        yaml.push_str("kafka:\n");
        for (name, bootstrap, topics) in kafka {
            yaml.push_str(&format!("  {name}:\n    bootstrap_servers: {bootstrap}\n"));
            if let Some(topics) = topics {
                yaml.push_str(&format!("    check_topic_regex: '{topics}'\n"));
            }
        }
    }
    yaml.push_str(extra);
    yaml.push_str(
        "thresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 0s\n  slots:\n    warning_retained: 1MiB\n    critical_retained: 2MiB\n  horizon:\n    warning_age: 0s\n    critical_age: 1h\n  lso:\n    warning_age: 0s\n    critical_age: 0s\n  hanging:\n    max_transaction_timeout: 0s\n",
    );
    let path = dir.join("indoubt.yaml");
    std::fs::write(&path, yaml).unwrap();
    path.to_string_lossy().into_owned()
}

fn check_json(config: &str, args: &[&str]) -> (Value, common::Outcome) {
    let out = run(indoubt()
        .args(["--config", config, "-o", "json", "check"])
        .args(args));
    let report = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout, out.stderr));
    (report, out)
}

/// (target, check) → status, from the report's `checks`.
fn statuses(report: &Value) -> Vec<(String, String, String)> {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["target"].as_str().unwrap().to_string(),
                c["check"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn prepare(url: &str, gid: &str) {
    let mut client = connect(url);
    client
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS t (id int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
}

/// A topic of its own on the lab broker, and the kafka target whose check sees only it.
fn own_topic(prefix: &str, partitions: i32) -> (String, String, KafkaTarget<'static>) {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, prefix, partitions);
    let only = format!("^{}$", regex::escape(&topic));
    (bootstrap.clone(), topic, ("broker", bootstrap, Some(only)))
}

#[test]
fn a_healthy_cluster_is_all_ok_and_exits_0() {
    let cluster = PrivateCluster::start_quiet();
    let (bootstrap, topic, kafka) = own_topic("check-healthy", 2);
    committed_writes(&bootstrap, &topic, 0, 3);
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("quiet", cluster.url("postgres"))], &[kafka]);
    let (report, out) = check_json(&config, &["--only", "pg,kafka"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(report["status"], "OK");
    let mut expected: Vec<(String, String, String)> = ["pg prepared", "pg slots", "pg horizon"]
        .iter()
        .map(|c| ("quiet".to_string(), c.to_string(), "OK".to_string()))
        .collect();
    for c in ["kafka lso", "kafka hanging"] {
        expected.push(("broker".to_string(), c.to_string(), "OK".to_string()));
    }
    assert_eq!(statuses(&report), expected);
    assert_eq!(report["checks_run"], 5);
    let lso = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["evidence"]["check"] == "kafka lso")
        .expect("kafka lso's finding");
    assert!(
        lso["message"].as_str().unwrap().contains("2 partition"),
        "only the test's own topic is inspected: {lso}"
    );

    // --quiet keeps the exit code and drops what is OK.
    let (quiet, out) = check_json(&config, &["--only", "pg", "--quiet"]);
    assert_eq!(out.code, 0);
    assert_eq!(quiet["checks"].as_array().unwrap().len(), 0);
    assert_eq!(quiet["checks_run"], 3);
    let out = run(indoubt().args(["--config", &config, "check", "--only", "pg", "--quiet"]));
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, ""),
        "a quiet table run prints nothing when all is OK (no cron mail)"
    );
    // A scrape must still see every check, OK ones included.
    let out = run(indoubt().args([
        "--config",
        &config,
        "-o",
        "prometheus",
        "check",
        "--only",
        "pg",
        "--quiet",
    ]));
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("indoubt_check_status{target=\"quiet\"") && l.ends_with(" 0"))
            .count(),
        3,
        "{}",
        out.stdout
    );
}

#[test]
fn a_prepared_transaction_alone_is_critical_in_every_format() {
    let cluster = PrivateCluster::start_quiet();
    prepare(&cluster.url("postgres"), "check_alone_1");
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("one", cluster.url("postgres"))], &[]);

    let (report, out) = check_json(&config, &["--only", "pg"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(report["status"], "CRITICAL");
    assert!(statuses(&report).contains(&(
        "one".to_string(),
        "pg prepared".to_string(),
        "CRITICAL".to_string()
    )));
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "prepared_xact_age")
        .expect("the prepared transaction's finding");
    assert_eq!(finding["evidence"]["gid"], "check_alone_1");
    assert_eq!(finding["evidence"]["target"], "one");
    assert_eq!(finding["evidence"]["check"], "pg prepared");

    // Nagios: "SERVICE STATE - text | perfdata", then one line per finding.
    let out = run(indoubt().args(["--config", &config, "-o", "nagios", "check", "--only", "pg"]));
    assert_eq!(out.code, 2);
    let first = out.stdout.lines().next().unwrap();
    let plugin_line = regex::Regex::new(
        r"^INDOUBT (OK|WARNING|CRITICAL|UNKNOWN) - [^|\n]+ \| ('[^'=]+'|[^ '=]+)=-?[0-9.]+(s|%|B|c)?;[^; ]*;[^; ]*;[^; ]*(;[^; ]*)?( ('[^'=]+'|[^ '=]+)=-?[0-9.]+(s|%|B|c)?;[^; ]*;[^; ]*;[^; ]*(;[^; ]*)?)*$",
    )
    .unwrap();
    assert!(plugin_line.is_match(first), "not a plugin line: {first}");
    assert!(first.starts_with("INDOUBT CRITICAL - "), "{first}");
    assert!(first.contains("critical=1;"), "{first}");
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("CRITICAL: one pg prepared: ") && l.contains("check_alone_1")),
        "{}",
        out.stdout
    );

    // Prometheus, written atomically to a file and read by a real parser.
    let prom = dir.path().join("indoubt.prom");
    let out = run(indoubt().args([
        "--config",
        &config,
        "check",
        "--only",
        "pg",
        "--prometheus-file",
        &prom.to_string_lossy(),
    ]));
    assert_eq!(out.code, 2);
    let text = std::fs::read_to_string(&prom).unwrap();
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string())))
        .expect("valid exposition");
    let value = |s: &prometheus_parse::Sample| match s.value {
        prometheus_parse::Value::Gauge(v) => v,
        ref other => panic!("not a gauge: {other:?}"),
    };
    let status = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "indoubt_check_status"
                && s.labels.get("target") == Some("one")
                && s.labels.get("check") == Some("pg_prepared")
        })
        .expect("status of pg prepared");
    assert_eq!(value(status), 2.0);
    let finding = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "indoubt_finding_severity"
                && s.labels.get("code") == Some("prepared_xact_age")
                && s.labels.get("target") == Some("one")
        })
        .expect("the finding, labelled with its database");
    assert_eq!(finding.labels.get("database"), Some("postgres"));
    assert_eq!(finding.labels.get("gid"), None, "no series per transaction");
    assert_eq!(value(finding), 2.0);
    let age = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "indoubt_pg_prepared_transaction_age_seconds"
                && s.labels.get("gid") == Some("check_alone_1")
        })
        .expect("the transaction's age, labelled with its gid");
    assert!(value(age) >= 0.0);
    assert!(
        scrape.docs.contains_key("indoubt_check_status"),
        "HELP lines"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temp file left behind");
}

/// `--prometheus-file` in a directory other users can write (node_exporter's textfile
/// directory is often group-writable), with links planted by `nobody`: root never writes
/// through them, and refuses a link at the file's own path.
#[test]
fn links_planted_in_a_shared_textfile_directory_are_never_written_through() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let attacked = common::AttackedDir::new(0o777);
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("lab", common::pg_url())], &[]);
    let prom = attacked.path("indoubt.prom");
    let check = || {
        run(indoubt()
            .args([
                "--config",
                &config,
                "check",
                "--only",
                "pg",
                "--prometheus-file",
            ])
            .arg(&prom))
    };

    // A link at the file's own path: refused, nothing written anywhere.
    attacked.plant_links(&attacked.victim, &["indoubt.prom"]);
    let out = check();
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("refused: the Prometheus file")
            && out.stderr.contains("is a symbolic link"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    attacked.assert_untouched();
    assert!(
        std::fs::symlink_metadata(&prom)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left for the operator to look at"
    );

    // Links at every temporary name a writer naming its file after its pid would use,
    // and at the usual fixed ones: the file is written, the links are not followed.
    std::fs::remove_file(&prom).unwrap();
    attacked.plant_links_for_every_pid(&attacked.victim, ".indoubt.prom.", ".tmp");
    attacked.plant_links(
        &attacked.victim,
        &[
            "indoubt.prom.tmp",
            ".indoubt.prom.tmp",
            "indoubt.prom~",
            ".indoubt.prom",
        ],
    );
    let planted = std::fs::read_dir(&attacked.dir).unwrap().count();
    let out = check();
    attacked.assert_untouched();
    let meta = std::fs::symlink_metadata(&prom)
        .unwrap_or_else(|e| panic!("not written ({e}): {}", out.stderr));
    assert!(meta.is_file(), "{}", out.stderr);
    assert_eq!(meta.uid(), euid(), "made by this user, not planted");
    assert_eq!(
        meta.permissions().mode() & 0o022,
        0,
        "not writable by others"
    );
    let text = std::fs::read_to_string(&prom).unwrap();
    assert!(text.contains("# TYPE indoubt_check_status gauge"), "{text}");
    assert_eq!(
        std::fs::read_dir(&attacked.dir).unwrap().count(),
        planted + 1,
        "only the file was added: no temporary file left"
    );
}

/// This process's effective uid (the owner of the files indoubt makes for it).
fn euid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::tempfile().unwrap();
    probe.metadata().unwrap().uid()
}

#[test]
fn a_target_down_is_unknown_while_the_others_report() {
    let cluster = PrivateCluster::start_quiet();
    let dir = tempfile::tempdir().unwrap();
    let down = format!(
        "postgres://indoubt_admin@127.0.0.1:{}/postgres?sslmode=disable",
        free_port()
    );
    let config = config(
        dir.path(),
        &[("down", down), ("up", cluster.url("postgres"))],
        &[],
    );
    let (report, out) = check_json(&config, &["--only", "pg"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    for (target, check, status) in statuses(&report) {
        match target.as_str() {
            "down" => assert_eq!(status, "UNKNOWN", "{check}"),
            _ => assert_eq!(status, "OK", "{check}"),
        }
    }
    let down_check = &report["checks"][0];
    assert_eq!(down_check["target"], "down");
    assert!(
        down_check["error"].as_str().unwrap().contains("refused"),
        "{down_check}"
    );
}

#[test]
fn the_deadline_ends_a_check_that_never_answers() {
    // A "broker" that accepts connections and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = silent.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    let cluster = PrivateCluster::start_quiet();
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        &[("up", cluster.url("postgres"))],
        &[("silent", address, None)],
    );
    let (report, out) = check_json(&config, &["--timeout", "300s", "--deadline", "2s"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    for (target, check, status) in statuses(&report) {
        let expected = if target == "silent" { "UNKNOWN" } else { "OK" };
        assert_eq!(status, expected, "{target} {check}");
    }
    let silent_checks: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["target"] == "silent")
        .collect();
    assert_eq!(silent_checks.len(), 2, "kafka lso and kafka hanging");
    for c in silent_checks {
        assert!(
            c["error"]
                .as_str()
                .unwrap()
                .contains("within the 2s deadline"),
            "{c}"
        );
    }
}

#[test]
fn an_inactive_slot_alone_is_critical_under_pg_slots() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute(
            "SELECT pg_create_logical_replication_slot('check_alone_slot', 'pgoutput');
             CREATE TABLE wal_filler AS SELECT repeat(md5(g::text), 32) AS pad FROM generate_series(1, 20000) g;
             SELECT pg_switch_wal();",
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("slotted", url)], &[]);
    let (report, out) = check_json(&config, &["--only", "pg"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let status = statuses(&report);
    assert!(status.contains(&("slotted".into(), "pg slots".into(), "CRITICAL".into())));
    assert!(status.contains(&("slotted".into(), "pg prepared".into(), "OK".into())));
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "slot_retained_wal")
        .expect("the slot's finding");
    assert_eq!(finding["severity"], "CRITICAL");
    assert_eq!(finding["evidence"]["slot"], "check_alone_slot");
}

#[test]
fn an_outbox_marked_for_check_alone_is_critical_and_unmarked_ones_are_not_run() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    connect(&url)
        .batch_execute(
            "CREATE TABLE outbox (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, published_at timestamptz);
             INSERT INTO outbox VALUES (1, now() - interval '1 hour', NULL),
                                       (2, now() - interval '2 hours', now() - interval '2 hours');",
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let name = common::unique("outbox");
    let extra = format!(
        "outbox:\n  {name}:\n    postgres: {url}\n    table: public.outbox\n    check: true\n  not_checked:\n    postgres: {url}\n    table: public.missing\n"
    );
    let config = config_with(dir.path(), &[("db", url.clone())], &[], &extra);
    let (report, out) = check_json(&config, &["--only", "outbox"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        statuses(&report),
        vec![(name.clone(), "outbox".to_string(), "CRITICAL".to_string())],
        "only the outbox with check: true runs"
    );
    // Row 1 is both the backlog and skipped below the published id 2: one incident.
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["outbox_skipped_rows", "outbox_backlog"], "{report}");
    let incidents = report["incidents"].as_array().unwrap();
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    assert_eq!(incidents[0]["findings"].as_array().unwrap().len(), 2);
    assert_eq!(incidents[0]["object"]["kind"], "outbox", "{report}");
}

/// The finding `check` reports under `check` with this `code`.
fn finding<'a>(report: &'a Value, check: &str, code: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["evidence"]["check"] == check && f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} finding under {check}: {report}"))
}

#[test]
fn a_kafka_transaction_left_open_alone_pins_the_lso_and_is_long_not_hanging() {
    let (bootstrap, topic, kafka) = own_topic("check-open", 2);
    committed_writes(&bootstrap, &topic, 1, 1);
    let (producer, transactional_id) = long_transaction(&bootstrap, &topic, 0);
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[], &[kafka]);
    let (report, out) = check_json(&config, &["--only", "kafka"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        statuses(&report),
        [
            ("broker", "kafka lso", "CRITICAL"),
            ("broker", "kafka hanging", "WARNING")
        ]
        .map(|(t, c, s)| (t.to_string(), c.to_string(), s.to_string()))
    );
    let gap = finding(&report, "kafka lso", "lso_gap");
    assert_eq!(gap["evidence"]["topic"], topic.as_str());
    assert_eq!(gap["evidence"]["partition"], 0);
    assert_eq!(
        gap["evidence"]["transactional_id"],
        transactional_id.as_str()
    );
    // Its coordinator still owns it: a WARNING to find the producer, not an abort.
    let long = finding(&report, "kafka hanging", "long_transaction");
    assert_eq!(long["evidence"]["partition"], 0);
    drop(producer);
}

#[test]
fn a_hanging_kafka_transaction_alone_is_critical_under_kafka_hanging() {
    let (bootstrap, topic, kafka) = own_topic("check-hanging", 2);
    let (producer_id, _, _) = hanging_transaction(&bootstrap, &topic, 1);
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[], &[kafka]);
    let (report, out) = check_json(&config, &["--only", "kafka"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        statuses(&report),
        [
            ("broker", "kafka lso", "CRITICAL"),
            ("broker", "kafka hanging", "CRITICAL")
        ]
        .map(|(t, c, s)| (t.to_string(), c.to_string(), s.to_string()))
    );
    let hanging = finding(&report, "kafka hanging", "hanging_transaction");
    assert_eq!(hanging["severity"], "CRITICAL");
    assert_eq!(hanging["evidence"]["topic"], topic.as_str());
    assert_eq!(hanging["evidence"]["partition"], 1);
    assert_eq!(hanging["evidence"]["producer_id"], producer_id);
    // The next command names the same config and target, and works from there.
    let next = hanging["next"].as_str().unwrap_or_default();
    assert_eq!(
        next,
        format!(
            "indoubt --config {} resolve kafka --kafka broker --topic {topic} --partition 1 --start-offset 0 --dry-run",
            config
        ),
        "{hanging}"
    );
}

#[test]
fn a_reconcile_gap_alone_is_critical_and_unmarked_jobs_are_not_run() {
    let db = TestDb::create("check_shop");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '1 hour' FROM generate_series(1, 10) g;",
        )
        .unwrap();
    let (bootstrap, topic, kafka) = own_topic("check-orders", 2);
    let producer: rdkafka::producer::BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .unwrap();
    // 4 and 9 never published, 1 published twice.
    for id in (1..=10).filter(|id| *id != 4 && *id != 9).chain([1]) {
        let key = id.to_string();
        producer
            .send(
                rdkafka::producer::BaseRecord::to(&topic)
                    .key(&key)
                    .payload(&key),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    rdkafka::producer::Producer::flush(&producer, common::kafka::WAIT).unwrap();
    let job = |name: &str, check: bool| {
        format!(
            "  {name}:\n    postgres: {}\n    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n    kafka: broker\n    topic: {topic}\n    id_from: key\n    since: 3h\n    check: {check}\n",
            db.url()
        )
    };
    let extra = format!(
        "reconcile:\n{}{}",
        job("orders_events", true),
        job("not_checked", false)
    );
    let dir = tempfile::tempdir().unwrap();
    let config = config_with(dir.path(), &[], &[kafka], &extra);
    let (report, out) = check_json(&config, &["--only", "reconcile"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        statuses(&report),
        [("orders_events", "reconcile", "CRITICAL")].map(|(t, c, s)| (
            t.to_string(),
            c.to_string(),
            s.to_string()
        )),
        "only the job with check: true runs"
    );
    let missing = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "CRITICAL")
        .expect("the missing events' finding");
    let message = missing["message"].as_str().unwrap();
    assert!(message.starts_with("2 row(s) of "), "{missing}");
    assert!(
        message.ends_with("): 4, 9"),
        "names the missing ids: {missing}"
    );
    // The missing ids and the duplicate are about one comparison: one incident.
    let incidents = report["incidents"].as_array().unwrap();
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    assert_eq!(
        incidents[0]["findings"].as_array().unwrap().len(),
        report["findings"].as_array().unwrap().len(),
        "{report}"
    );
    assert_eq!(incidents[0]["object"]["kind"], "reconcile_job", "{report}");
    assert_eq!(incidents[0]["object"]["name"], "orders_events", "{report}");
}

#[test]
fn a_session_idle_in_transaction_alone_is_a_warning_under_pg_horizon() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    let mut idle = connect(&url);
    let pid: i32 = idle
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    idle.batch_execute("BEGIN; SELECT pg_current_xact_id()")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("idle", url)], &[]);
    let (report, out) = check_json(&config, &["--only", "pg"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        statuses(&report),
        [
            ("idle", "pg prepared", "OK"),
            ("idle", "pg slots", "OK"),
            ("idle", "pg horizon", "WARNING")
        ]
        .map(|(t, c, s)| (t.to_string(), c.to_string(), s.to_string()))
    );
    let holder = finding(&report, "pg horizon", "horizon_holder");
    assert_eq!(holder["evidence"]["kind"], "idle_in_transaction");
    assert_eq!(holder["evidence"]["id"], pid.to_string());
    idle.batch_execute("ROLLBACK").unwrap();
}

/// A prepared transaction that also holds the horizon (and blocks a session): one
/// incident, in the table and in JSON, with every finding kept; its next command works.
#[test]
fn a_prepared_transaction_holding_the_horizon_is_one_incident() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin.batch_execute("CREATE TABLE t (id int)").unwrap();
    admin
        .batch_execute("BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION 'check_incident_1'")
        .unwrap();
    // A session waiting for the prepared transaction's lock on t.
    let mut victim = connect(&url);
    let victim_pid: i32 = victim
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    let waiting = std::thread::spawn(move || {
        let _ = victim.batch_execute("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE; COMMIT");
    });
    common::wait_for("the session to block", || {
        admin
            .query_one("SELECT 0 = ANY(pg_blocking_pids($1))", &[&victim_pid])
            .unwrap()
            .get(0)
    });
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("one", url.clone())], &[]);

    let out = run(indoubt().args(["--config", &config, "-o", "json", "check", "--only", "pg"]));
    let report: common::schema::CheckReport = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not the documented JSON ({e}):\n{}", out.stdout));
    let index = |code: &str| {
        report
            .findings
            .iter()
            .position(|f| f.code == code && f.subject.contains("check_incident_1"))
            .unwrap_or_else(|| panic!("no {code} finding: {:#?}", report.findings))
    };
    let (prepared, horizon) = (index("prepared_xact_age"), index("horizon_holder"));
    let about: Vec<_> = report
        .incidents
        .iter()
        .filter(|i| i.findings.contains(&prepared) || i.findings.contains(&horizon))
        .collect();
    assert_eq!(about.len(), 1, "one incident: {:#?}", report.incidents);
    let incident = about[0];
    assert_eq!(incident.severity, "CRITICAL");
    assert_eq!(
        incident.findings[..2],
        [prepared, horizon],
        "the worst first, both kept"
    );
    assert_eq!(
        incident.object,
        Some(common::schema::IncidentObject {
            kind: "prepared_transaction".into(),
            target: "one".into(),
            name: "check_incident_1".into(),
        })
    );
    assert_eq!(
        incident.title,
        "one pg prepared: prepared transaction 'check_incident_1' in postgres"
    );
    assert_eq!(
        report.incidents[0].findings, incident.findings,
        "worst first"
    );
    let next = incident.next.as_deref().expect("its next command");
    let (resolved, _) = common::run_printed(next);
    assert_eq!(resolved["gid"], "check_incident_1", "{next}");
    assert_eq!(resolved["dry_run"], true);

    // The table: the answer first, the incident's findings together with one next line,
    // then the numbered list of next commands, then the checks.
    let table = run(indoubt().args(["--config", &config, "check", "--only", "pg"]));
    assert_eq!(table.code, 2);
    // Off a terminal the layout is 80 columns: a next command longer than that (the
    // config's temporary path makes it so) is broken between its words, never overflowing.
    for line in table.stdout.lines() {
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns: {line}\n{}",
            table.stdout
        );
    }
    let typed = common::as_typed(&table.stdout);
    let lines: Vec<&str> = typed.lines().collect();
    assert!(lines[0].starts_with("CRITICAL: "), "{}", table.stdout);
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?}:\n{}", table.stdout))
    };
    let first = at("CRITICAL  one pg prepared: prepared transaction 'check_incident_1'");
    let second = at("WARNING   one pg horizon: prepared transaction 'check_incident_1'");
    assert!(
        first < second && lines[first..second].iter().all(|l| !l.is_empty()),
        "one block:\n{}",
        table.stdout
    );
    let nexts: Vec<&&str> = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("next: "))
        .collect();
    assert_eq!(
        nexts.len(),
        1,
        "one next line for the incident:\n{}",
        table.stdout
    );
    assert_eq!(nexts[0].trim_start(), format!("next: {next}"));
    let list = at("next:");
    assert!(list > second, "{}", table.stdout);
    assert_eq!(lines[list + 1], format!("  1. {next}"));
    assert!(at("TARGET") > list, "the checks below:\n{}", table.stdout);

    admin
        .batch_execute("ROLLBACK PREPARED 'check_incident_1'")
        .unwrap();
    waiting.join().unwrap();
}

#[test]
fn a_fleet_of_databases_on_one_server_is_read_once_within_its_connection_limit() {
    // 40 targets, each a database of one server that takes 14 connections: read one by
    // one (3 checks a target, and pg horizon entering every database) they would need
    // hundreds; read once per server they fit.
    let cluster = PrivateCluster::start_quiet();
    let mut admin = connect(&cluster.url("postgres"));
    admin
        .batch_execute("ALTER SYSTEM SET max_connections = 14")
        .unwrap();
    drop(admin);
    cluster.ctl("restart");
    let mut admin = connect(&cluster.url("postgres"));
    let targets: Vec<(String, String)> = (0..40)
        .map(|i| {
            let db = format!("fleet_{i:02}");
            admin
                .batch_execute(&format!("CREATE DATABASE {db}"))
                .unwrap();
            (format!("db{i:02}"), cluster.url(&db))
        })
        .collect();
    drop(admin);
    let dir = tempfile::tempdir().unwrap();
    let config = config_of_owned(dir.path(), &targets);
    let (report, out) = check_json(&config, &["--only", "pg", "--concurrency", "32"]);
    let statuses = statuses(&report);
    assert_eq!(statuses.len(), 120, "{}", out.stderr);
    let not_ok: Vec<_> = statuses.iter().filter(|(_, _, s)| s != "OK").collect();
    assert!(
        not_ok.is_empty(),
        "every check answers: {not_ok:?}\n{}",
        report["findings"]
    );
    assert_eq!(out.code, 0);
    // 120 checks run longer than a terminal: the answer is said again last, where the
    // screen ends.
    let table = run(indoubt().args(["--config", &config, "check", "--only", "pg"]));
    let lines: Vec<&str> = table.stdout.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines.len() > 24, "{}", table.stdout);
    assert_eq!(
        lines.last(),
        lines.first(),
        "the one-line answer first and last:\n{}",
        table.stdout
    );
    assert!(lines[0].starts_with("OK: "), "{}", table.stdout);
}

#[test]
fn a_server_that_never_answers_holds_its_own_slots_not_the_whole_run() {
    // The first target takes connections and never answers: its three checks wait out
    // the deadline in three of the four slots; the other targets' checks go through the
    // fourth, rather than queueing behind it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let mut targets = vec![(
        "a_silent".to_string(),
        format!("postgres://nobody@127.0.0.1:{port}/x"),
    )];
    let dbs: Vec<TestDb> = (0..3).map(|_| TestDb::create("slots")).collect();
    targets.extend(
        dbs.iter()
            .enumerate()
            .map(|(i, db)| (format!("b{i}"), db.url())),
    );
    let dir = tempfile::tempdir().unwrap();
    let config = config_of_owned(dir.path(), &targets);
    let out = run(indoubt()
        .args([
            "--config",
            &config,
            "--timeout",
            "60s",
            "-o",
            "json",
            "check",
        ])
        .args(["--only", "pg", "--concurrency", "4", "--deadline", "5s"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    for (target, check, status) in statuses(&report) {
        if target == "a_silent" {
            assert_eq!(status, "UNKNOWN", "{check}");
        } else {
            assert_ne!(
                status, "UNKNOWN",
                "{target} {check} waited behind the silent server\n{}",
                report["findings"]
            );
        }
    }
    drop(silent);
}

#[test]
fn a_database_one_target_cannot_enter_does_not_fail_the_others_of_its_server() {
    // Both targets are the same server as the same user: their whole-server reads are
    // shared, but the first target's database does not exist. Its failure is its own.
    let db = TestDb::create("enterable");
    let missing = db.url().replace(&db.name, &format!("{}_gone", db.name));
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("a_gone", missing), ("b_app", db.url())], &[]);
    let (report, out) = check_json(&config, &["--only", "pg", "--concurrency", "1"]);
    for (target, check, status) in statuses(&report) {
        if target == "a_gone" {
            assert_eq!(status, "UNKNOWN", "{check}: {}", out.stdout);
        } else {
            assert_ne!(
                status, "UNKNOWN",
                "{target} {check}: {}",
                report["findings"]
            );
        }
    }
}
