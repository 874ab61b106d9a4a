//! `indoubt config show --check` against the lab: what a role or principal lacks, as the
//! server or broker says it, each with the GRANT or kafka-acls.sh line that gives it.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::{create_topic, deny_describing_transactional_ids, scram_user, Acl};
use common::schema::{CheckedTarget, ConfigCheckReport, TargetCheck};
use common::*;

fn check_config(yaml: &str) -> (ConfigCheckReport, Outcome) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, yaml).unwrap();
    report::<ConfigCheckReport>(&[
        "--config",
        &path.to_string_lossy(),
        "--timeout",
        "5s",
        "config",
        "show",
        "--check",
    ])
}

fn target<'a>(report: &'a ConfigCheckReport, name: &str) -> &'a CheckedTarget {
    report
        .targets
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no target {name} in {:#?}", report.targets))
}

fn row<'a>(target: &'a CheckedTarget, what: &str) -> &'a TargetCheck {
    target
        .checks
        .iter()
        .find(|c| c.what == what)
        .unwrap_or_else(|| panic!("no check {what} of {}: {:#?}", target.name, target.checks))
}

/// Runs a next SQL line as the lab's admin, as an operator would paste it.
fn run_as_admin(db: &str, sql: &str) {
    connect(&replace_db(&pg_url(), db))
        .batch_execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn a_postgres_role_is_told_what_it_lacks_and_the_grants_it_is_given_work() {
    let role = TestRole::create("doctor", "");
    let quoted = format!("\"{}\"", role.name);
    // The database the role connects to: a table it may read, one it may not.
    let home = TestDb::create("doctor_home");
    home.admin()
        .batch_execute(&format!(
            "CREATE TABLE orders_ok (id bigint, created_at timestamptz);
             CREATE TABLE orders_secret (id bigint, created_at timestamptz);
             CREATE TABLE outbox_ok (id bigint, created_at timestamptz, published_at timestamptz);
             CREATE TABLE outbox_secret (id bigint, created_at timestamptz, published_at timestamptz);
             GRANT SELECT ON orders_ok, outbox_ok TO {quoted};"
        ))
        .unwrap();
    // A database nobody but its owner (and superusers) may connect to.
    let closed = TestDb::create("doctor_closed");
    run_as_admin(
        "postgres",
        &format!("REVOKE CONNECT ON DATABASE \"{}\" FROM PUBLIC", closed.name),
    );
    let url = url_for(&role.name, &role.password, &home.name);
    let yaml = format!(
        "postgres:
  app:
    conninfo: {url}
  gone:
    conninfo: postgres://nobody@127.0.0.1:{port}/postgres?sslmode=disable
reconcile:
  visible:
    postgres: app
    kafka: nowhere_needed
    topic: t
    query: SELECT id, created_at FROM orders_ok WHERE created_at >= $1 AND created_at < $2
  hidden:
    postgres: app
    query: SELECT id, created_at FROM orders_secret WHERE created_at >= $1 AND created_at < $2
outbox:
  readable:
    postgres: app
    table: outbox_ok
  unreadable:
    postgres: app
    table: outbox_secret
",
        port = free_port()
    );
    // `kafka: nowhere_needed` names no target: reported, and the rest still checked.
    let (report, out) = check_config(&yaml);
    assert_eq!(
        out.code, 2,
        "the reconcile job and the outbox cannot run: {}",
        out.stdout
    );
    assert!(
        !out.stdout.contains(&role.password),
        "no password in the report"
    );

    let gone = target(&report, "gone");
    assert_eq!(gone.status, "UNKNOWN");
    assert_eq!(
        row(gone, "connection").code.as_deref(),
        Some("target_unreachable")
    );
    assert!(
        row(gone, "connection")
            .detail
            .contains("connection refused"),
        "{:?}",
        row(gone, "connection")
    );

    let app = target(&report, "app");
    let monitoring = row(app, "monitoring role");
    assert_eq!(monitoring.status, "WARNING");
    assert_eq!(monitoring.code.as_deref(), Some("pg_role_unprivileged"));
    assert!(monitoring.detail.contains("pg horizon"), "{monitoring:?}");
    assert_eq!(
        monitoring.next.as_deref(),
        Some(format!("GRANT pg_monitor TO {quoted};").as_str())
    );
    // pg_ls_waldir is pg_monitor's, not PUBLIC's: the catalog says so.
    let functions = row(app, "functions");
    assert_eq!(functions.status, "WARNING");
    assert!(functions.detail.contains("pg_ls_waldir()"), "{functions:?}");

    let databases = row(app, "databases");
    assert_eq!(databases.status, "WARNING");
    assert_eq!(databases.code.as_deref(), Some("pg_database_blind_spot"));
    assert!(databases.detail.contains(&closed.name), "{databases:?}");
    assert!(
        !databases.detail.contains(&home.name),
        "the role may connect to its own database: {databases:?}"
    );
    let grant_connect = databases.next.clone().expect("a GRANT CONNECT");
    assert!(
        grant_connect.contains(&format!("\"{}\"", closed.name)),
        "{grant_connect}"
    );

    assert_eq!(row(app, "reconcile job visible").status, "OK");
    let hidden = row(app, "reconcile job hidden");
    assert_eq!(hidden.status, "CRITICAL");
    assert_eq!(hidden.code.as_deref(), Some("pg_table_unreadable"));
    assert!(hidden.detail.contains("42501"), "{hidden:?}");
    assert_eq!(
        hidden.next.as_deref(),
        Some(format!("GRANT SELECT ON TABLE \"orders_secret\" TO {quoted};").as_str())
    );
    assert_eq!(row(app, "outbox readable").status, "OK");
    let outbox = row(app, "outbox unreadable");
    assert_eq!(outbox.status, "CRITICAL");
    assert_eq!(
        outbox.next.as_deref(),
        Some(format!("GRANT SELECT ON TABLE \"outbox_secret\" TO {quoted};").as_str())
    );
    // Every failing check is a finding with its next, worst first in the table.
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == "pg_database_blind_spot")
        .expect("a blind-spot finding");
    assert_eq!(finding.subject, "postgres target app");
    assert_eq!(finding.next.as_deref(), Some(grant_connect.as_str()));
    assert!(report
        .findings
        .iter()
        .any(|f| f.code == "config_reference_unusable" && f.subject == "reconcile job visible"));

    // The grants as printed, then the same check again: those checks pass.
    run_as_admin("postgres", &monitoring.next.clone().unwrap());
    run_as_admin("postgres", &grant_connect);
    run_as_admin(&home.name, hidden.next.as_deref().unwrap());
    run_as_admin(&home.name, outbox.next.as_deref().unwrap());
    let (after, _) = check_config(&yaml);
    let app = target(&after, "app");
    for what in [
        "monitoring role",
        "functions",
        "reconcile job hidden",
        "outbox unreadable",
    ] {
        assert_eq!(row(app, what).status, "OK", "{:?}", row(app, what));
    }
    assert!(
        !row(app, "databases").detail.contains(&closed.name),
        "{:?}",
        row(app, "databases")
    );
    run_as_admin(
        "postgres",
        &format!(
            "REVOKE pg_monitor FROM {quoted}; REVOKE CONNECT ON DATABASE \"{}\" FROM {quoted}",
            closed.name
        ),
    );
}

#[test]
fn a_kafka_principal_is_told_which_acls_it_lacks_as_the_broker_says_them() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let (user, password) = scram_user("doctor");
    let principal = format!("User:{user}");
    let readable = create_topic(&bootstrap, "doctor-ok", 1);
    let denied = create_topic(&bootstrap, "doctor-noread", 1);
    // READ denied on one topic; DESCRIBE allowed there (any ACL on a resource ends the
    // lab's "allow when no ACL is found" for it).
    let _describe = Acl::add(&[
        "--allow-principal",
        &principal,
        "--operation",
        "Describe",
        "--operation",
        "DescribeConfigs",
        "--topic",
        &denied,
    ]);
    let _no_read = Acl::add(&[
        "--deny-principal",
        &principal,
        "--operation",
        "Read",
        "--topic",
        &denied,
    ]);
    let _no_describe = deny_describing_transactional_ids(&principal);
    let yaml = format!(
        "kafka:
  sasl:
    bootstrap_servers: {sasl_bootstrap}
    properties:
      security.protocol: SASL_SSL
      sasl.mechanism: SCRAM-SHA-256
      sasl.username: {user}
      sasl.password: {password}
      ssl.ca.location: {ca}
  down:
    bootstrap_servers: 127.0.0.1:{port}
  plain:
    bootstrap_servers: {bootstrap}
reconcile:
  good:
    kafka: sasl
    topic: {readable}
  blocked:
    kafka: sasl
    topic: {denied}
",
        sasl_bootstrap = lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP"),
        ca = lab("INDOUBT_LAB_KAFKA_CA"),
        port = free_port(),
    );
    // ACLs reach the broker's authorizer through the metadata log: asked until they show.
    let mut result = None;
    wait_for(
        "indoubt to report what the ACLs deny (they reach the authorizer through the metadata log)",
        || {
            let (report, out) = check_config(&yaml);
            let done = target(&report, "sasl")
                .checks
                .iter()
                .any(|c| c.what == "transactional ids" && c.status == "WARNING")
                && target(&report, "sasl")
                    .checks
                    .iter()
                    .any(|c| c.what == format!("topic {denied}") && c.status == "CRITICAL");
            result = Some((report, out));
            done
        },
    );
    let (report, out) = result.unwrap();
    assert_eq!(
        out.code, 2,
        "reconcile job blocked cannot read its topic: {}",
        out.stdout
    );
    assert!(!out.stdout.contains(&password), "no password in the report");

    let sasl = target(&report, "sasl");
    let txn = row(sasl, "transactional ids");
    assert_eq!(txn.code.as_deref(), Some("kafka_acl_missing"));
    assert!(
        txn.detail
            .contains("the broker lists only transactional ids this principal may DESCRIBE"),
        "{txn:?}"
    );
    assert!(
        txn.detail.contains("TRANSACTIONAL_ID_AUTHORIZATION_FAILED"),
        "{txn:?}"
    );
    assert_eq!(
        txn.next.as_deref(),
        Some(
            format!(
                "kafka-acls.sh --bootstrap-server {} --add --allow-principal {principal} --operation Describe --transactional-id '*'",
                lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP")
            )
            .as_str()
        )
    );
    let blocked = row(sasl, &format!("topic {denied}"));
    assert_eq!(blocked.code.as_deref(), Some("kafka_acl_missing"));
    assert!(
        blocked
            .detail
            .contains("reconcile job blocked cannot read it: no READ"),
        "{blocked:?}"
    );
    assert_eq!(
        blocked.next.as_deref(),
        Some(
            format!(
                "kafka-acls.sh --bootstrap-server {} --add --allow-principal {principal} --operation Read --topic {denied}",
                lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP")
            )
            .as_str()
        )
    );
    assert_eq!(row(sasl, &format!("topic {readable}")).status, "OK");
    // The bitfield names what the broker allows: DESCRIBE, not READ.
    assert!(blocked.detail.contains("Describe"), "{blocked:?}");

    // The same broker as a super user: nothing lacking. The unreachable one: UNKNOWN.
    let plain = target(&report, "plain");
    assert_eq!(plain.status, "OK", "{:#?}", plain.checks);
    assert_eq!(row(plain, "transactional ids").status, "OK");
    let down = target(&report, "down");
    assert_eq!(down.status, "UNKNOWN");
    assert_eq!(
        row(down, "connection").code.as_deref(),
        Some("target_unreachable")
    );
    assert!(
        row(down, "connection")
            .detail
            .contains("is the broker running"),
        "the hint: {:?}",
        row(down, "connection")
    );
    let finding = report
        .findings
        .iter()
        .find(|f| {
            f.subject == "kafka target sasl"
                && f.code == "kafka_acl_missing"
                && f.severity == "CRITICAL"
        })
        .expect("the blocked topic as a finding");
    assert_eq!(finding.next, blocked.next);
}

#[test]
fn the_table_names_each_target_and_its_checks() {
    let yaml = format!("postgres:\n  lab:\n    conninfo: {}\n", pg_url());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, yaml).unwrap();
    let out = run(indoubt().args([
        "--config",
        &path.to_string_lossy(),
        "--width",
        "80",
        "config",
        "show",
        "--check",
    ]));
    assert!(
        out.code == 0 || out.code == 1,
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.contains("postgres target lab ("),
        "{}",
        out.stdout
    );
    for what in [
        "connection",
        "monitoring role",
        "catalog views",
        "functions",
        "databases",
        "resolve pg",
    ] {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(what)),
            "no row {what}:\n{}",
            out.stdout
        );
    }
    assert!(
        out.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        out.stdout
    );
}

/// One server reached as one role, or one cluster with one set of client settings, is
/// checked once, however many targets and sections use it: the role's and the server's
/// checks (or the cluster's) are one row each, the databases each connected once, and the
/// targets and sections it applies to are listed in its title. On this config, checked
/// one target at a time, the role's checks stood three times and the cluster's twice.
#[test]
fn one_server_or_cluster_is_checked_once_for_every_target_that_uses_it() {
    let db = TestDb::create("once");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint, created_at timestamptz);
             CREATE TABLE outbox (id bigint, created_at timestamptz, published_at timestamptz);
             CREATE TABLE inbox (id bigint, created_at timestamptz);",
        )
        .unwrap();
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "once", 1);
    // A target of the server's postgres database, and three sections with one connection
    // string to another database of it, all as the lab's admin (as tests/lab/indoubt.yaml
    // has them); two kafka targets with the same settings.
    let shop = db.url();
    let yaml = format!(
        "postgres:
  main:
    conninfo: {main}
kafka:
  events:
    bootstrap_servers: {bootstrap}
    check_topic_regex: '^once-'
  events-all:
    bootstrap_servers: {bootstrap}
reconcile:
  orders:
    postgres: {shop}
    kafka: events-all
    topic: {topic}
    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2
outbox:
  out:
    postgres: {shop}
    table: outbox
inbox:
  in:
    postgres: {shop}
    table: inbox
    created_at_column: created_at
",
        main = pg_url(),
    );
    let (report, out) = check_config(&yaml);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let kinds: Vec<(&str, &str)> = report
        .targets
        .iter()
        .map(|t| (t.kind.as_str(), t.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [("postgres", "main"), ("kafka", "events")],
        "{:#?}",
        report.targets
    );
    let main = target(&report, "main");
    let also: Vec<(&str, Option<&str>)> = main
        .also
        .iter()
        .map(|a| (a.name.as_str(), a.address.as_deref()))
        .collect();
    let in_shop = format!(
        "{}/{}",
        main.address.as_deref().unwrap().rsplit_once('/').unwrap().0,
        db.name
    );
    assert_eq!(
        also,
        [(
            "reconcile job orders's connection string",
            Some(in_shop.as_str())
        )]
    );
    assert_eq!(
        main.used_by,
        ["reconcile job orders", "outbox out", "inbox in"],
        "every section, once"
    );
    let whats: Vec<String> = main.checks.iter().map(|c| c.what.clone()).collect();
    assert_eq!(
        whats,
        [
            "connection to postgres",
            "monitoring role",
            "catalog views",
            "functions",
            "settings",
            "databases",
            "resolve pg",
            &format!("connection to {}", db.name),
            "reconcile job orders",
            "outbox out",
            "inbox in",
        ],
        "each database connected once, the role's checks once, each section's own"
    );
    assert!(main.checks.iter().all(|c| c.status == "OK"), "{main:#?}");

    let events = target(&report, "events");
    let also: Vec<&str> = events.also.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(also, ["events-all"]);
    assert_eq!(events.used_by, ["reconcile job orders"]);
    let whats: Vec<&str> = events.checks.iter().map(|c| c.what.as_str()).collect();
    assert_eq!(
        whats,
        [
            "connection",
            "broker APIs",
            "cluster",
            "resolve kafka",
            "transactional ids",
            "topics",
            "topics of events-all",
            &format!("topic {topic}"),
        ]
    );
    assert!(
        row(events, "topics")
            .detail
            .contains("matching check_topic_regex ^once-"),
        "{:?}",
        row(events, "topics")
    );

    // The table: each check a row once, the title naming what it applies to.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let table = run(indoubt()
        .args(["--config", &path.to_string_lossy(), "--width", "200"])
        .args(["config", "show", "--check"]));
    assert_eq!(table.code, 0, "{}", table.stderr);
    for what in [
        "connection to postgres",
        "monitoring role",
        "resolve pg",
        "broker APIs",
        "transactional ids",
    ] {
        assert_eq!(
            table.stdout.lines().filter(|l| l.starts_with(what)).count(),
            1,
            "{what}:\n{}",
            table.stdout
        );
    }
    // The title is wrapped between words.
    let flat = table.stdout.replace('\n', " ");
    assert!(
        flat.contains(&format!(
            "postgres target main ({}) and reconcile job orders's connection string ({in_shop}) (the same server and role, checked once), used by reconcile job orders, outbox out, inbox in:",
            main.address.as_deref().unwrap()
        )),
        "{}",
        table.stdout
    );
    assert!(
        flat.contains(&format!(
            "kafka target events ({bootstrap}) and events-all (the same cluster and client settings, checked once), used by reconcile job orders:"
        )),
        "{}",
        table.stdout
    );
}

/// What the workflow engines' fixes go through is checked too: a Camunda engine's REST
/// API that does not answer, and a DBOS CLI that is not there, are said before a
/// resolution needs them; one that is there passes.
#[test]
fn a_rest_api_that_does_not_answer_and_a_cli_that_is_not_there_are_said() {
    let port = free_port();
    let yaml = format!(
        "camunda:\n  bpm:\n    postgres: {pg}\n    rest: http://127.0.0.1:{port}/engine-rest\ndbos:\n  orders:\n    postgres: {pg}\n    cli: [/nonexistent/dbos]\n  billing:\n    postgres: {pg}\n    cli: [sh]\n",
        pg = pg_url()
    );
    // (The tables the probes read are not in the lab's database: those rows fail too.)
    let (report, out) = check_config(&yaml);
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let bpm = target(&report, "bpm");
    assert_eq!(bpm.kind, "camunda");
    let rest = row(bpm, "REST API answers");
    assert_eq!(rest.status, "UNKNOWN", "{rest:#?}");
    assert_eq!(
        rest.code.as_deref(),
        Some("target_unreachable"),
        "{rest:#?}"
    );
    let orders = row(target(&report, "orders"), "CLI runnable");
    assert_eq!(orders.status, "UNKNOWN", "{orders:#?}");
    assert!(orders.detail.contains("is not there"), "{orders:#?}");
    let billing = row(target(&report, "billing"), "CLI runnable");
    assert_eq!(billing.status, "OK", "{billing:#?}");
}
