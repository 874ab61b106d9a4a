//! `indoubt config show`: the config in force, targets without secrets, unusable targets as UNKNOWN.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

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
    mysql_targets: Vec<MysqlTarget>,
    thresholds: Thresholds,
    settings: Vec<Setting>,
    reconcile_jobs: Vec<serde_json::Value>,
    outboxes: Vec<serde_json::Value>,
    inboxes: Vec<serde_json::Value>,
    seata_coordinators: Vec<serde_json::Value>,
    modulith_registries: Vec<serde_json::Value>,
    camunda_engines: Vec<serde_json::Value>,
    dbos_applications: Vec<serde_json::Value>,
    sagas: Vec<serde_json::Value>,
    audit: serde_json::Value,
    resolve: serde_json::Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Setting {
    #[serde(deserialize_with = "common::schema::present")]
    key: Option<String>,
    #[serde(deserialize_with = "common::schema::present")]
    flag: Option<String>,
    value: String,
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PgTarget {
    name: String,
    address: Option<String>,
    sslmode: Option<String>,
    /// The service of pg_service.conf that gave settings (tests/libpq_habits.rs).
    #[serde(deserialize_with = "common::schema::present")]
    service: Option<serde_json::Value>,
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
    purge_warning_history_length: u64,
    purge_critical_history_length: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MysqlTarget {
    name: String,
    address: String,
    ssl_mode: String,
    #[serde(deserialize_with = "common::schema::present")]
    password_from: Option<String>,
}

#[test]
fn a_mysql_target_shows_where_its_password_comes_from_never_the_password() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("my.cnf");
    std::fs::write(&cnf, "[client]\npassword = 'hunter2-mysql'\n").unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "mysql:\n  orders:\n    url: mysql://monitor:inline-secret@db1:3307/shop?ssl-mode=REQUIRED\n  other:\n    url: mysql://monitor@db2/\n    option_file: {}\n",
            cnf.display()
        ),
    )
    .unwrap();
    let (report, out) = show(&config);
    assert!(!out.stdout.contains("hunter2") && !out.stdout.contains("inline-secret"));
    let orders = &report.mysql_targets[0];
    assert_eq!(
        (
            orders.name.as_str(),
            orders.address.as_str(),
            orders.ssl_mode.as_str()
        ),
        ("orders", "mysql://monitor@db1:3307/shop", "REQUIRED")
    );
    assert_eq!(orders.password_from.as_deref(), Some("the URL"));
    assert_eq!(
        (
            report.thresholds.purge_warning_history_length,
            report.thresholds.purge_critical_history_length
        ),
        (100_000, 1_000_000)
    );
    let other = &report.mysql_targets[1];
    assert_eq!(
        other.password_from,
        Some(format!("the option file {}", cnf.display()))
    );
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
    // A config without a seata: section lists no coordinator (tests/it/seata.rs one with).
    assert!(report.seata_coordinators.is_empty());
    assert!(report.modulith_registries.is_empty());
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
    assert_eq!(report.postgres_targets[0].service, None);
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
    // At 80 columns the source of a config key is `config` on the key's own row.
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.starts_with("thresholds.prepared.warning_age")
                && l.trim_end().ends_with("config"))
            && !table.stdout.contains("hunter2"),
        "{}",
        table.stdout
    );
}

/// Every section is shown, each defaulted value with where it came from (flag, config
/// key, default), a connection string without its password, and a reference to a
/// target the config does not define as UNKNOWN.
#[test]
fn every_section_is_shown_with_where_each_value_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "postgres:\n  db1:\n    conninfo: host=db1 user=mon\nkafka:\n  prod:\n    bootstrap_servers: k1:9092\nthresholds:\n  lso:\n    warning_gap: 5k\nreconcile:\n  orders:\n    postgres: db1\n    kafka: prod\n    topic: orders\n    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n    settle: 2m\n    check: true\n  stray:\n    kafka: nowhere\n    topic: t\noutbox:\n  events:\n    postgres: postgres://relay:pg-hunter2@db2:5433/app\n    table: outbox\n    critical_age: 1h\ninbox:\n  received:\n    postgres: db1\n    table: inbox\naudit:\n  path: /var/log/indoubt/audit.jsonl\nresolve:\n  participants: [db1]\n  decision_sources:\n    - name: tm\n      target: db1\n      query: SELECT outcome FROM tx WHERE gtrid = $1\n      key: gtrid\n",
    )
    .unwrap();
    let out = run(indoubt().args([
        "--config",
        &config.to_string_lossy(),
        "--timeout",
        "3s",
        "-o",
        "json",
        "config",
        "show",
    ]));
    assert!(
        !out.stdout.contains("hunter2"),
        "a secret was shown:\n{}",
        out.stdout
    );
    let report: ConfigReport = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    let setting = |name: &str| {
        report
            .settings
            .iter()
            .find(|s| s.key.as_deref() == Some(name) || s.flag.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no setting {name}: {:?}", report.settings))
    };
    let s = setting("thresholds.lso.warning_gap");
    assert_eq!(
        (s.value.as_str(), s.source.as_str()),
        ("5k", "config thresholds.lso.warning_gap")
    );
    assert_eq!(s.flag.as_deref(), Some("kafka lso --warning-gap"));
    let s = setting("thresholds.lso.critical_gap");
    assert_eq!((s.value.as_str(), s.source.as_str()), ("1M", "default"));
    let s = setting("--timeout");
    assert_eq!((s.value.as_str(), s.source.as_str()), ("3s", "--timeout"));
    assert_eq!(report.settings.len(), 18, "the timeout and 17 thresholds");

    let orders = &report.reconcile_jobs[0];
    assert_eq!(orders["name"], "orders");
    assert_eq!(orders["settle"]["value"], "2m");
    assert_eq!(orders["settle"]["source"], "config reconcile.orders.settle");
    assert_eq!(orders["slack"]["value"], "1m");
    assert_eq!(orders["slack"]["source"], "default");
    assert_eq!(orders["since"]["value"], "24h");
    assert_eq!(orders["id_from"]["value"], "key");
    assert_eq!(orders["check"], true);
    let outbox = &report.outboxes[0];
    assert_eq!(outbox["postgres"], "relay@db2:5433/app");
    assert_eq!(outbox["id_column"], "id");
    assert_eq!(outbox["critical_age"]["value"], "1h");
    assert_eq!(
        outbox["critical_age"]["source"],
        "config outbox.events.critical_age"
    );
    assert_eq!(outbox["warning_age"]["source"], "default");
    assert_eq!(report.inboxes[0]["created_at_column"], "created_at");
    assert_eq!(
        report.audit["path"]["value"],
        "/var/log/indoubt/audit.jsonl"
    );
    assert_eq!(report.audit["path"]["source"], "config audit.path");
    assert_eq!(report.resolve["participants"][0], "db1");
    let tm = &report.resolve["decision_sources"][0];
    assert_eq!(tm["kind"], "sql");
    assert_eq!(tm["key"], "gtrid");
    assert_eq!(tm["authoritative"], false);
    assert_eq!(tm["in_doubt_after"]["value"], "5m");
    assert_eq!(tm["in_doubt_after"]["source"], "default");

    // The job naming a kafka target the config lacks cannot run: UNKNOWN, exit 3.
    assert_eq!(
        (report.status.as_str(), out.code),
        ("UNKNOWN", 3),
        "{:?}",
        report.findings
    );
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.subject == "reconcile job stray"
                && f.message.contains("\"nowhere\" is not a kafka target")),
        "{:?}",
        report.findings
    );

    // Wide enough that no cell wraps, so each text is found whole.
    let table = run(indoubt().args([
        "--config",
        &config.to_string_lossy(),
        "--width",
        "250",
        "config",
        "show",
    ]));
    assert!(!table.stdout.contains("hunter2"), "{}", table.stdout);
    for text in [
        "reconcile",
        "settle 2m (config reconcile.orders.settle)",
        "outbox",
        "inbox",
        "decision source",
        "in_doubt_after 5m (default)",
        "/var/log/indoubt/audit.jsonl",
        "SETTING",
        "config thresholds.lso.warning_gap",
    ] {
        assert!(table.stdout.contains(text), "{text}:\n{}", table.stdout);
    }
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
fn the_manual_config_example_is_a_valid_config() {
    let section = full_example();
    let start = section.find("```\n").expect("its block") + "```\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(&config, example).unwrap();
    let (report, out) = show(&config);
    // The example's properties file is missing on this machine: that is all it lacks.
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
    assert!(report.postgres_targets.len() >= 2);
    let t = &report.thresholds;
    assert_eq!(t.wraparound_warning_xids, 1_300_000_000);
    assert_eq!(t.hanging_max_transaction_timeout_seconds, 900);
    // The saga and the inbox's retention, as the page writes them.
    let saga = &report.sagas[0];
    assert_eq!(saga["name"], "order_saga");
    assert_eq!(
        saga["stalled_after"]["source"],
        "config sagas.order_saga.stalled_after"
    );
    assert_eq!(saga["unknown_escalate_after"]["source"], "default");
    assert_eq!(saga["manual_queue"], "public.saga_manual_intervention");
    assert_eq!(saga["check"], true);
    assert_eq!(report.inboxes[0]["producer_retry_horizon"], "7d");
}

/// indoubt-config(5)'s FULL EXAMPLE (doc/man/indoubt-config.5.md): the section's text.
fn full_example() -> String {
    let page =
        std::fs::read_to_string(common::repo_root().join("doc/man/indoubt-config.5.md")).unwrap();
    let at = page.find("# FULL EXAMPLE\n").expect("the section");
    page[at..].to_string()
}

/// indoubt-config(5)'s example writes every threshold at its default (its comments say
/// so): each value and each `# default` comment must be the registry's, and no threshold
/// of the registry may be missing from it.
#[test]
fn the_manual_thresholds_are_the_registry_defaults() {
    use indoubt::settings::defaults;
    let section = full_example();
    let section = section.as_str();
    let start = section.find("\nthresholds:\n").expect("its thresholds") + 1;
    let block = &section[start..start + section[start..].find("```").unwrap()];
    let mut group = "";
    let mut seen = Vec::new();
    for line in block.lines().skip(1) {
        let (text, comment) = line.split_once('#').unwrap_or((line, ""));
        let Some((key, value)) = text.split_once(':') else {
            continue;
        };
        if !key.starts_with("    ") {
            group = key.trim();
            continue;
        }
        let key = format!("thresholds.{group}.{}", key.trim());
        let entry = defaults::by_config(&key).unwrap_or_else(|| {
            panic!("indoubt-config(5) names {key}, which the registry does not know")
        });
        let default = entry.value.text();
        assert_eq!(value.trim(), default, "indoubt-config(5): {line}");
        if let Some(said) = comment.split("default ").nth(1) {
            assert_eq!(said.trim(), default, "indoubt-config(5): {line}");
        }
        seen.push(key);
    }
    for entry in defaults::ALL {
        if let Some(key) = entry.config.filter(|k| k.starts_with("thresholds.")) {
            assert!(
                seen.iter().any(|s| s == key),
                "indoubt-config(5) lacks {key}"
            );
        }
    }
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

/// A regular expression of the config is shown as written: `\d` stays `\d` (the escape
/// grammar's `\\d` would be another expression, a backslash then d's), in the table of
/// `config show` and in the topics check of `config show --check` against the lab's
/// broker; a character a terminal would act on is still written as the regex escape that
/// stands for it, so what is shown is the same expression, safe on a terminal.
#[test]
fn a_regex_is_shown_as_written_in_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "kafka:\n  lab:\n    bootstrap_servers: {}\n    check_topic_regex: '^orders\\.\\d+$'\n  \
             odd:\n    bootstrap_servers: 127.0.0.1:{}\n    check_topic_regex: \"^a\\e\\\\[2J\\\\d\"\n",
            lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
            free_port()
        ),
    )
    .unwrap();
    let table = |args: &[&str]| {
        let out = run(indoubt()
            .args(["--width", "200", "--config"])
            .arg(&config)
            .args(args));
        assert!(
            out.code < 3 || args.len() > 2,
            "{}{}",
            out.stdout,
            out.stderr
        );
        out.stdout
    };
    let shown = table(&["config", "show"]);
    for written in [
        r"check topics ~ ^orders\.\d+$",
        // ESC written as the regex escape that matches it; the backslash of \d single.
        r"check topics ~ ^a\u{1b}\[2J\d",
    ] {
        assert!(shown.contains(written), "{written:?} not in:\n{shown}");
    }
    assert!(!shown.contains(r"\\"), "a backslash doubled:\n{shown}");
    assert!(!shown.contains('\u{1b}'), "a raw ESC reached the terminal");
    // JSON carries the expressions as they are.
    let (report, _) = show(&config);
    assert_eq!(
        report.kafka_targets[0].check_topic_regex.as_deref(),
        Some(r"^orders\.\d+$")
    );

    let checked = table(&["config", "show", "--check"]);
    assert!(
        checked.contains(r"check_topic_regex ^orders\.\d+$"),
        "{checked}"
    );
    assert!(!checked.contains(r"\\"), "a backslash doubled:\n{checked}");
}

/// A Spring Modulith registry: its database, its table (Spring Modulith's upper-case name
/// on MySQL and MariaDB unless the config names one) and thresholds, each with where it
/// came from.
#[test]
fn a_modulith_registry_is_shown_with_its_table_and_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "mysql:\n  app:\n    url: mysql://monitor@db.invalid:3306/shop\nmodulith:\n  shop:\n    mysql: app\n    retention: 30d\n    check: true\n  billing:\n    postgres: host=db.invalid dbname=billing user=monitor\n    table: events.event_publication\n",
    )
    .unwrap();
    let (report, out) = show(&config);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let by_name = |n: &str| {
        report
            .modulith_registries
            .iter()
            .find(|r| r["name"] == n)
            .unwrap_or_else(|| panic!("no registry {n}: {:#?}", report.modulith_registries))
            .clone()
    };
    let shop = by_name("shop");
    assert_eq!(shop["database"], "mysql app", "{shop:#}");
    assert_eq!(shop["table"]["value"], "EVENT_PUBLICATION", "{shop:#}");
    assert_eq!(shop["table"]["source"], "default", "{shop:#}");
    assert_eq!(shop["retention"]["value"], "30d", "{shop:#}");
    assert_eq!(
        shop["retention"]["source"], "config modulith.shop.retention",
        "{shop:#}"
    );
    assert_eq!(shop["incomplete_age"]["value"], "5m", "{shop:#}");
    assert_eq!(shop["check"], true, "{shop:#}");
    let billing = by_name("billing");
    assert_eq!(
        billing["table"]["value"], "events.event_publication",
        "{billing:#}"
    );
    assert_eq!(billing["check"], false, "{billing:#}");
}

/// A Camunda / Operaton engine: its database, table prefix, thresholds and REST API, each
/// with where it came from; a REST API over plain http to another host is refused before
/// anything is sent (the password would cross in clear).
#[test]
fn a_camunda_engine_is_shown_with_its_thresholds_and_rest_api() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "camunda:\n  billing:\n    postgres: host=db.invalid dbname=bpm user=monitor\n    table_prefix: camunda.\n    lock_age: 2m\n    rest: https://bpm.invalid/engine-rest\n    check: true\n",
    )
    .unwrap();
    let (report, out) = show(&config);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let billing = &report.camunda_engines[0];
    assert_eq!(billing["table_prefix"]["value"], "camunda.", "{billing:#}");
    assert_eq!(billing["lock_age"]["value"], "2m", "{billing:#}");
    assert_eq!(
        billing["lock_age"]["source"], "config camunda.billing.lock_age",
        "{billing:#}"
    );
    assert_eq!(billing["critical_age"]["value"], "1h", "{billing:#}");
    assert_eq!(
        billing["rest"], "https://bpm.invalid/engine-rest",
        "{billing:#}"
    );
    assert_eq!(billing["check"], true, "{billing:#}");
    // The summary counts the framework sections beside the targets.
    assert!(
        out.stdout.contains("; 1 camunda engine(s)"),
        "{}",
        out.stdout
    );

    std::fs::write(
        &config,
        "camunda:\n  billing:\n    postgres: host=db.invalid dbname=bpm user=monitor\n    rest: http://bpm.invalid:8080/engine-rest\n",
    )
    .unwrap();
    let out = run(indoubt()
        .args(["--config"])
        .arg(&config)
        .args(["camunda", "incidents"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("plain http to a host that is not loopback")
            && out.stderr.contains("rest_allow_http"),
        "{}",
        out.stderr
    );
}

/// A DBOS application: its system database, schema, thresholds and CLI, each with where
/// it came from.
#[test]
fn a_dbos_application_is_shown_with_its_schema_thresholds_and_cli() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "dbos:\n  orders:\n    postgres: host=db.invalid dbname=orders_sys user=monitor\n    pending_age: 30m\n    cli: [/srv/orders/.venv/bin/dbos]\n    check: true\n",
    )
    .unwrap();
    let (report, out) = show(&config);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let orders = &report.dbos_applications[0];
    assert_eq!(orders["schema"]["value"], "dbos", "{orders:#}");
    assert_eq!(orders["schema"]["source"], "default", "{orders:#}");
    assert_eq!(orders["pending_age"]["value"], "30m", "{orders:#}");
    assert_eq!(
        orders["pending_age"]["source"], "config dbos.orders.pending_age",
        "{orders:#}"
    );
    assert_eq!(orders["error_window"]["value"], "1d", "{orders:#}");
    assert_eq!(orders["cli"][0], "/srv/orders/.venv/bin/dbos", "{orders:#}");
    assert_eq!(orders["check"], true, "{orders:#}");
}
