//! `indoubt config show`: the config in force, targets without secrets, unusable targets as UNKNOWN.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

mod common;

use common::*;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigReport {
    schema_version: u32,
    indoubt_version: String,
    command: String,
    generated_at: String,
    target: schema::Target,
    status: String,
    exit_code: u8,
    findings: Vec<schema::Finding>,
    config_file: Option<String>,
    postgres_targets: Vec<PgTarget>,
    kafka_targets: Vec<KafkaTarget>,
    thresholds: Thresholds,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PgTarget {
    name: String,
    address: Option<String>,
    sslmode: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KafkaTarget {
    name: String,
    bootstrap_servers: Vec<String>,
    properties: std::collections::BTreeMap<String, String>,
    #[serde(deserialize_with = "common::schema::present")]
    check_topic_regex: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Thresholds {
    prepared_warning_age_seconds: u64,
    prepared_critical_age_seconds: u64,
    slots_warning_retained_bytes: u64,
    slots_critical_retained_bytes: u64,
    horizon_warning_age_seconds: u64,
    horizon_critical_age_seconds: u64,
    horizon_warning_xids: u64,
    horizon_critical_xids: u64,
    wraparound_warning_xids: u64,
    wraparound_critical_xids: u64,
    lso_warning_age_seconds: u64,
    lso_critical_age_seconds: u64,
    lso_warning_gap: u64,
    lso_critical_gap: u64,
    hanging_max_transaction_timeout_seconds: u64,
}

fn show(config: &std::path::Path) -> (ConfigReport, Outcome) {
    let out = run(indoubt().args([
        "--config",
        &config.to_string_lossy(),
        "-o",
        "json",
        "config",
        "show",
    ]));
    let report = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    (report, out)
}

#[test]
fn shows_targets_without_secrets_and_thresholds_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let props = dir.path().join("client.properties");
    std::fs::write(
        &props,
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.password=kafka-hunter2\n",
    )
    .unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  db1:\n    conninfo: postgres://mon:pg-hunter2@db1:6432/postgres?sslmode=verify-full\nkafka:\n  prod:\n    bootstrap_servers: k1:9092,k2:9092\n    check_topic_regex: ^payments$\n    properties_file: {}\n    properties:\n      sasl.username: svc\nthresholds:\n  prepared:\n    warning_age: 2m\n",
            props.display()
        ),
    )
    .unwrap();
    let (report, out) = show(&config);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stdout.contains("hunter2"),
        "a secret was shown:\n{}",
        out.stdout
    );
    assert_eq!(report.status, "OK");
    assert_eq!((report.schema_version, report.exit_code), (2, 0));
    assert_eq!(report.command, "config show");
    assert_eq!(report.target.kind, "config");
    assert!(!report.indoubt_version.is_empty() && report.generated_at.ends_with('Z'));
    assert_eq!(
        report.config_file.as_deref(),
        Some(config.to_string_lossy().as_ref())
    );
    assert_eq!(
        report.postgres_targets[0].address.as_deref(),
        Some("mon@db1:6432/postgres")
    );
    assert_eq!(
        report.postgres_targets[0].sslmode.as_deref(),
        Some("verify-full")
    );
    let kafka = &report.kafka_targets[0];
    assert_eq!(kafka.name, "prod");
    assert_eq!(kafka.bootstrap_servers, ["k1:9092", "k2:9092"]);
    assert_eq!(kafka.properties["security.protocol"], "SASL_SSL");
    assert_eq!(kafka.properties["sasl.username"], "svc");
    assert_eq!(kafka.properties["sasl.password"], "<redacted>");
    assert_eq!(kafka.check_topic_regex.as_deref(), Some("^payments$"));
    assert_eq!(report.thresholds.prepared_warning_age_seconds, 120);
    assert_eq!(
        report.thresholds.prepared_critical_age_seconds, 1800,
        "default where the config is silent"
    );
    let t = &report.thresholds;
    assert_eq!(
        (
            t.slots_warning_retained_bytes,
            t.slots_critical_retained_bytes
        ),
        (1 << 30, 10 << 30)
    );
    assert_eq!(
        (
            t.horizon_warning_age_seconds,
            t.horizon_critical_age_seconds
        ),
        (3600, 21600)
    );
    assert_eq!(
        (t.horizon_warning_xids, t.horizon_critical_xids),
        (10_000_000, 100_000_000)
    );
    assert_eq!(
        (t.wraparound_warning_xids, t.wraparound_critical_xids),
        (1_300_000_000, 1_400_000_000)
    );
    assert_eq!(
        (t.lso_warning_age_seconds, t.lso_critical_age_seconds),
        (300, 900)
    );
    assert_eq!(
        (t.lso_warning_gap, t.lso_critical_gap),
        (100_000, 1_000_000)
    );
    assert_eq!(t.hanging_max_transaction_timeout_seconds, 900);
    let table = run(indoubt().args(["--config", &config.to_string_lossy(), "config", "show"]));
    assert!(
        table.stdout.contains("warning 2m, critical 30m") && !table.stdout.contains("hunter2"),
        "{}",
        table.stdout
    );
}

#[test]
fn unusable_targets_are_unknown_and_the_rest_still_shown() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "postgres:\n  good:\n    conninfo: host=db1 user=u\n  bad:\n    conninfo: host=db1 sslmode=sometimes\nkafka:\n  noport:\n    bootstrap_servers: k1\n",
    )
    .unwrap();
    let (report, out) = show(&config);
    assert_eq!(out.code, 3);
    assert_eq!(report.status, "UNKNOWN");
    let subjects: Vec<&str> = report.findings.iter().map(|f| f.subject.as_str()).collect();
    assert!(
        subjects.contains(&"postgres target \"bad\"")
            && subjects.contains(&"kafka target \"noport\""),
        "{subjects:?}"
    );
    let good = report
        .postgres_targets
        .iter()
        .find(|t| t.name == "good")
        .unwrap();
    assert_eq!(good.address.as_deref(), Some("u@db1:5432/u"));
}

#[test]
fn the_readme_config_example_is_a_valid_config() {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let section = &readme[readme.find("## Config file").expect("the section")..];
    let start = section.find("```yaml\n").expect("its yaml block") + "```yaml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(&config, example).unwrap();
    let (report, out) = show(&config);
    // Only the example's properties file is missing on this machine.
    let unknown: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity != "OK")
        .map(|f| f.message.clone())
        .collect();
    assert!(
        unknown.len() == 1 && unknown[0].contains("/etc/kafka/client.properties"),
        "{unknown:?}\n{}",
        out.stderr
    );
    assert_eq!(report.postgres_targets.len(), 2);
    let t = &report.thresholds;
    assert_eq!(t.wraparound_warning_xids, 1_300_000_000);
    assert_eq!(t.hanging_max_transaction_timeout_seconds, 900);
}

/// serde keeps the last of two equal keys: the lab target below would silently become
/// the unreachable one, and a job's query would be the second one written.
#[test]
fn a_key_given_twice_is_refused_with_its_line_on_every_level() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    for (yaml, at, key) in [
        (
            format!("postgres:\n  lab:\n    conninfo: {}\n  lab:\n    conninfo: host=192.0.2.1\n", pg_url()),
            "config.yaml:4:3",
            "lab",
        ),
        (
            "reconcile:\n  orders:\n    query: SELECT 1\n    topic: orders\n    query: SELECT 2\n".to_string(),
            "config.yaml:5:5",
            "query",
        ),
        (
            "resolve:\n  decision_sources:\n    - name: tm\n      target: lab\n      query: SELECT 1\n      name: tm2\n".to_string(),
            "config.yaml:6:7",
            "name",
        ),
        (
            "kafka:\n  k:\n    bootstrap_servers: 127.0.0.1:9092\n    properties:\n      security.protocol: SSL\n      security.protocol: PLAINTEXT\n".to_string(),
            "config.yaml:6:7",
            "security.protocol",
        ),
    ] {
        std::fs::write(&config, &yaml).unwrap();
        let out = run(indoubt()
            .arg("--config")
            .arg(&config)
            .args(["pg", "prepared", "--pg", "lab"]));
        assert_eq!(out.code, 3, "{yaml}\n{}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains(at) && out.stderr.contains(&format!("duplicate key {key:?}")),
            "{yaml}\n{}",
            out.stderr
        );
    }
}
