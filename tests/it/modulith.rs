//! `indoubt modulith publications` against Spring Modulith's JDBC event publication
//! registry, kept by a real Spring Boot application (tests/lab/modulith): 2.0 on Spring
//! Boot 4.0 in PostgreSQL, 1.4 on Spring Boot 3.5 in MariaDB.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::modulith::{app, incomplete_ids, Build};
use common::mysql::MysqlDb;
use common::*;
use serde_json::Value;

fn probe(config: &std::path::Path) -> (Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(config)
        .args(["modulith", "publications"]));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

fn findings<'a>(r: &'a Value, code: &str) -> Vec<&'a Value> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// The finding of `code` about the listener whose id holds `class`.
fn about<'a>(r: &'a Value, code: &str, class: &str) -> &'a Value {
    findings(r, code)
        .into_iter()
        .find(|f| {
            f["evidence"]["listener_id"]
                .as_str()
                .is_some_and(|id| id.contains(&format!("${class}.on(")))
        })
        .unwrap_or_else(|| panic!("no {code} about {class}: {r:#}"))
}

/// Spring Modulith 2.0 in PostgreSQL: a listener that throws leaves FAILED publications,
/// one killed mid-run a PROCESSING one; each is named by listener with its statuses, the
/// statement as printed lists them, and once the listener is fixed the application's own
/// resubmission of the ids indoubt names completes them, and the finding is gone. One
/// resubmitted while it still fails is a poison event past its attempts; a renamed
/// listener's rows are named with the listener that completes the event now; completed
/// rows past the retention are counted.
#[test]
fn a_failed_a_cut_off_and_a_renamed_listeners_publications_are_named_until_resubmitted() {
    let db = TestDb::create("modulith2");
    let jdbc = common::xa::jdbc(&db.url());
    app(Build::V2, "publish", &jdbc, &["listener=ok", "count=3"]);
    let failed = app(Build::V2, "publish", &jdbc, &["listener=throws", "count=2"]);
    let failed_ids = incomplete_ids(&failed, "Invoicing");
    assert_eq!(failed_ids.len(), 2);
    let halted = app(Build::V2, "publish", &jdbc, &["listener=dies", "count=1"]);
    assert!(halted.iter().any(|l| l.kind == "halting"));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "modulith:\n  orders:\n    postgres: {}\n    incomplete_age: 1s\n    retention: 1s\n    poison_attempts: 3\n",
            db.url()
        ),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (r, out) = probe(&config);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(r["registries"][0]["snapshot"]["layout"], "v2", "{r:#}");
    let invoicing = about(&r, "modulith_incomplete", "Invoicing");
    assert_eq!(invoicing["severity"], "WARNING", "{invoicing:#}");
    assert!(
        invoicing["message"]
            .as_str()
            .unwrap()
            .starts_with("2 publication(s) of indoubt.lab.modulith.App$OrderPlaced to listener indoubt.lab.modulith.App$Invoicing.on(indoubt.lab.modulith.App$OrderPlaced) incomplete, the oldest published "),
        "{invoicing:#}"
    );
    assert!(
        invoicing["message"]
            .as_str()
            .unwrap()
            .contains("(2 FAILED)"),
        "{invoicing:#}"
    );
    let mut named: Vec<String> = invoicing["evidence"]["oldest_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let mut expected = failed_ids.clone();
    named.sort();
    expected.sort();
    assert_eq!(named, expected, "{invoicing:#}");
    let packing = about(&r, "modulith_incomplete", "Packing");
    assert!(
        packing["message"]
            .as_str()
            .unwrap()
            .contains("(1 PROCESSING)")
            && packing["message"]
                .as_str()
                .unwrap()
                .contains("PROCESSING ones were cut off mid-run"),
        "{packing:#}"
    );
    // The statement as printed, run where it says: the listener's incomplete rows.
    let next = invoicing["next"].as_str().unwrap();
    let listed = db.admin().simple_query(next).unwrap();
    let rows = listed
        .iter()
        .filter(|m| matches!(m, postgres::SimpleQueryMessage::Row(_)))
        .count();
    assert_eq!(rows, 2, "{next}");
    // A table named as the registry's, a date kept as text: UNKNOWN, saying which table.
    let odd = TestDb::create("modulithodd");
    odd.admin()
        .batch_execute(
            "CREATE TABLE event_publication (id uuid PRIMARY KEY, listener_id text, event_type text,
               serialized_event text, publication_date text, completion_date text)",
        )
        .unwrap();
    let odd_config = dir.path().join("odd.yaml");
    std::fs::write(
        &odd_config,
        format!("modulith:\n  odd:\n    postgres: {}\n", odd.url()),
    )
    .unwrap();
    let (odd_report, out) = probe(&odd_config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let message = findings(&odd_report, "modulith_unreadable")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.starts_with("reading event_publication, whose columns are named as a Spring Modulith registry's but whose types may not be: "),
        "{message}"
    );
    let unpruned = &findings(&r, "modulith_unpruned")[0];
    assert_eq!(unpruned["evidence"]["past_retention"], 3, "{unpruned:#}");
    // Its next, pasted: resolve modulith's dry run of the same three.
    let next = unpruned["next"].as_str().unwrap();
    assert!(
        next.ends_with(" resolve modulith orders --dry-run"),
        "{next}"
    );
    let (dry, code) = super::seata::pasted(next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    assert_eq!(dry["prunable"], 3, "{dry:#}");
    // Resubmitted three times more while it still fails: past its attempts, a poison.
    let poison_id = failed_ids[0].clone();
    app(
        Build::V2,
        "resubmit",
        &jdbc,
        &["listener=throws", &format!("ids={poison_id}"), "times=3"],
    );
    let (r, _) = probe(&config);
    let poison = about(&r, "modulith_poison", "Invoicing");
    assert_eq!(poison["severity"], "CRITICAL", "{poison:#}");
    assert!(
        poison["message"]
            .as_str()
            .unwrap()
            .contains("one was attempted 4 times"),
        "{poison:#}"
    );
    // Fixed, the application resubmits the ids indoubt named: they complete.
    let done = app(
        Build::V2,
        "resubmit",
        &jdbc,
        &[
            "listener=throws",
            "fixed=true",
            &format!("ids={}", failed_ids.join(",")),
        ],
    );
    assert!(incomplete_ids(&done, "Invoicing").is_empty());
    let (r, _) = probe(&config);
    let left: Vec<&Value> = findings(&r, "modulith_incomplete")
        .into_iter()
        .chain(findings(&r, "modulith_poison"))
        .filter(|f| {
            f["evidence"]["listener_id"]
                .as_str()
                .unwrap()
                .contains("$Invoicing.")
        })
        .collect();
    assert!(left.is_empty(), "{left:#?}");
    // Billing renamed Accounting (a deployment of its own): its rows name a listener
    // that is gone.
    let renamed = TestDb::create("modulith2r");
    let jdbc = common::xa::jdbc(&renamed.url());
    app(Build::V2, "publish", &jdbc, &["listener=old", "count=1"]);
    app(Build::V2, "publish", &jdbc, &["listener=new", "count=1"]);
    app(Build::V2, "resubmit", &jdbc, &["listener=new"]);
    std::fs::write(
        &config,
        format!(
            "modulith:\n  orders:\n    postgres: {}\n    incomplete_age: 1s\n",
            renamed.url()
        ),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let (r, out) = probe(&config);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let gone = about(&r, "modulith_listener_gone", "Billing");
    assert!(
        gone["evidence"]["successor"]
            .as_str()
            .is_some_and(|s| s.contains("$Accounting.on(")),
        "{gone:#}"
    );
    assert!(
        gone["advice"]
            .as_str()
            .unwrap()
            .contains("@ApplicationModuleListener(id = \"indoubt.lab.modulith.App$Billing.on(indoubt.lab.modulith.App$OrderPlaced)\")"),
        "{gone:#}"
    );
    let human = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["modulith", "publications"]));
    assert!(
        human.stdout.contains("(explain: modulith_listener_gone)"),
        "{}",
        human.stdout
    );
}

/// Spring Modulith 1.4 in MariaDB (its upper-case EVENT_PUBLICATION, the 1.x layout): a
/// throwing listener's publications and a renamed listener's are named as in PostgreSQL
/// (no statuses: 1.x has none), the statement as printed runs in MariaDB; a table that is
/// not there, and one of another layout, are UNKNOWN naming what is missing.
#[test]
fn a_1x_registry_in_mariadb_is_read_and_another_layout_is_unknown() {
    let db = MysqlDb::create("modulith1");
    let jdbc = db.jdbc();
    // Billing renamed Accounting, then a listener that throws (still there: it keeps
    // getting publications).
    app(Build::V1, "publish", &jdbc, &["listener=ok", "count=2"]);
    app(Build::V1, "publish", &jdbc, &["listener=old", "count=1"]);
    app(Build::V1, "publish", &jdbc, &["listener=new", "count=1"]);
    app(Build::V1, "publish", &jdbc, &["listener=throws", "count=2"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    let write = |extra: &str| {
        std::fs::write(
            &config,
            format!(
                "mysql:\n  app:\n    url: {}{}\n    option_file: {}\n    ssl_mode: DISABLED\nmodulith:\n  orders:\n    mysql: app\n    incomplete_age: 1s\n{extra}",
                common::mysql::url(),
                db.name,
                common::mysql::cnf()
            ),
        )
        .unwrap();
    };
    write("");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (r, out) = probe(&config);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(r["registries"][0]["table"], "EVENT_PUBLICATION", "{r:#}");
    assert_eq!(r["registries"][0]["snapshot"]["layout"], "v1", "{r:#}");
    let invoicing = about(&r, "modulith_incomplete", "Invoicing");
    assert!(
        invoicing["message"]
            .as_str()
            .unwrap()
            .starts_with("2 publication(s) of indoubt.lab.modulith.App$OrderPlaced to listener "),
        "{invoicing:#}"
    );
    let gone = about(&r, "modulith_listener_gone", "Billing");
    assert_eq!(gone["severity"], "CRITICAL", "{gone:#}");
    let next = invoicing["next"].as_str().unwrap();
    let listed = common::mysql::sql(&format!("USE {}; {next}", db.name));
    assert_eq!(listed.lines().count(), 2, "{next}: {listed}");
    // An account with no privilege on the database: the server refuses the connection;
    // UNKNOWN with the GRANT that, run by an admin as printed, lets the next run read it.
    let reader = unique("modrdr");
    common::mysql::sql(&format!(
        "CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw-{reader}'"
    ));
    let reader_cnf = dir.path().join("reader.cnf");
    std::fs::write(&reader_cnf, format!("[client]\npassword=pw-{reader}\n")).unwrap();
    let limited = dir.path().join("limited.yaml");
    std::fs::write(
        &limited,
        format!(
            "mysql:\n  app:\n    url: mysql://{reader}@{}{}\n    option_file: {}\n    ssl_mode: DISABLED\nmodulith:\n  orders:\n    mysql: app\n    incomplete_age: 1s\n",
            common::mysql::url().split_once('@').unwrap().1,
            db.name,
            reader_cnf.display()
        ),
    )
    .unwrap();
    let (r, out) = probe(&limited);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let grant = findings(&r, "modulith_unreadable")[0]["next"]
        .as_str()
        .unwrap_or_else(|| panic!("no GRANT: {r:#}"))
        .to_string();
    assert!(
        grant.ends_with(&format!(
            "GRANT SELECT ON `{}`.`EVENT_PUBLICATION` TO '{reader}'@'%';",
            db.name
        )),
        "{grant}"
    );
    common::mysql::sql(&grant);
    let (_, out) = probe(&limited);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    common::mysql::sql(&format!("DROP USER '{reader}'@'%'"));
    // No such table; a table of another layout.
    write("    table: event_publication\n");
    let (r, out) = probe(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        findings(&r, "modulith_unreadable")[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("no table event_publication"),
        "{r:#}"
    );
    common::mysql::sql(&format!(
        "CREATE TABLE {}.other (id VARCHAR(36), listener_id VARCHAR(512), event_type VARCHAR(512), serialized_event VARCHAR(4000), publication_date TIMESTAMP(6) NULL, completion_date TIMESTAMP(6) NULL, status VARCHAR(20))",
        db.name
    ));
    write("    table: other\n");
    let (r, out) = probe(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let message = findings(&r, "modulith_unreadable")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("lacks the column(s) completion_attempts, last_resubmission_date"),
        "{message}"
    );
    // A table of another collation than the server's, and a listener id with a quote:
    // the statement as printed still runs (a CONVERT(… USING utf8mb4) would clash).
    common::mysql::sql(&format!(
        "ALTER TABLE {db}.EVENT_PUBLICATION CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
         INSERT INTO {db}.EVENT_PUBLICATION VALUES (UUID(), 'it''s.on(E)', 'E', '{{}}', NOW(6) - INTERVAL 1 HOUR, NULL)",
        db = db.name
    ));
    write("");
    let (r, _) = probe(&config);
    let quoted = findings(&r, "modulith_incomplete")
        .into_iter()
        .chain(findings(&r, "modulith_listener_gone"))
        .find(|f| f["evidence"]["listener_id"] == "it's.on(E)")
        .unwrap_or_else(|| panic!("no finding about it's.on(E): {r:#}"))
        .clone();
    let next = quoted["next"].as_str().unwrap();
    assert!(next.contains("_utf8mb4 X'"), "{next}");
    let listed = common::mysql::sql(&format!("USE {}; {next}", db.name));
    assert_eq!(listed.lines().count(), 1, "{next}: {listed}");
}

/// `resolve modulith`: completed publications older than the cutoff are deleted in
/// batches — after a dry run that deletes nothing — and the application's own
/// `CompletedEventPublications` then finds only the newer ones; incomplete ones are never
/// taken. On PostgreSQL (2.x) and MariaDB (1.x).
#[test]
fn completed_publications_older_than_the_cutoff_are_deleted_in_batches_and_only_those() {
    let pg = TestDb::create("modulithprune");
    let my = MysqlDb::create("modulithprune");
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    for (build, jdbc, registry) in [
        (
            Build::V2,
            common::xa::jdbc(&pg.url()),
            format!("postgres: {}", pg.url()),
        ),
        (Build::V1, my.jdbc(), "mysql: app".to_string()),
    ] {
        app(build, "publish", &jdbc, &["listener=ok", "count=5"]);
        app(build, "publish", &jdbc, &["listener=throws", "count=1"]);
        std::thread::sleep(std::time::Duration::from_secs(6));
        app(build, "publish", &jdbc, &["listener=ok", "count=2"]);
        let config = dir.path().join("c.yaml");
        std::fs::write(
            &config,
            format!(
                "mysql:\n  app:\n    url: {}{}\n    option_file: {}\n    ssl_mode: DISABLED\nmodulith:\n  orders:\n    {registry}\n",
                common::mysql::url(),
                my.name,
                common::mysql::cnf()
            ),
        )
        .unwrap();
        let resolve = |more: &[&str]| {
            let out = run(indoubt()
                .args(["-o", "json", "--config"])
                .arg(&config)
                .args([
                    "resolve",
                    "modulith",
                    "--older-than",
                    "5s",
                    "--batch-size",
                    "2",
                    "--audit-log",
                ])
                .arg(&audit)
                .args(more));
            let json: Value = serde_json::from_str(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
            (json, out)
        };
        let (dry, out) = resolve(&["--dry-run"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
        assert_eq!(dry["prunable"], 5, "{dry:#}");
        assert_eq!(dry["deleted"], 0, "{dry:#}");
        let (done, out) = resolve(&["--yes", "--reason", "registry never pruned"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
        assert_eq!(done["deleted"], 5, "{done:#}");
        assert!(
            done["findings"][0]["message"]
                .as_str()
                .unwrap()
                .contains("in 3 batch(es)"),
            "{done:#}"
        );
        // Nothing older left: nothing to do (asked right away: the newer two are
        // younger than the cutoff for a few seconds only).
        let (again, out) = resolve(&["--yes", "--reason", "again"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(
            again["findings"][0]["code"], "already_resolved",
            "{again:#}"
        );
        // The application's own registry: the two newer completed, the incomplete one kept.
        let after = app(build, "completed", &jdbc, &["listener=ok"]);
        assert_eq!(
            common::seata::line(&after, "completed").fields["n"],
            "2",
            "the application finds only the newer ones"
        );
        let still = app(build, "publish", &jdbc, &["listener=ok", "count=0"]);
        assert_eq!(incomplete_ids(&still, "Invoicing").len(), 1);
    }
    // A registry that is not there: nothing done, said in words.
    let nowhere = dir.path().join("nowhere.yaml");
    std::fs::write(
        &nowhere,
        format!(
            "modulith:\n  orders:\n    postgres: {}\n    table: nope\n",
            pg.url()
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["--width", "200", "--config"])
        .arg(&nowhere)
        .args(["resolve", "modulith", "--dry-run"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("nothing done: nope is not a registry indoubt can read (no table nope)"),
        "{}",
        out.stdout
    );
    let trail = std::fs::read_to_string(&audit).unwrap();
    // An intent and an outcome for each of the two deletes; the dry runs and the
    // run with nothing to do recorded nothing.
    assert_eq!(
        trail.matches(r#""reason":"registry never pruned""#).count(),
        4,
        "{trail}"
    );
    assert_eq!(trail.matches(r#""reason":"again""#).count(), 0, "{trail}");
}
