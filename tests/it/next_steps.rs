//! Every next step the PostgreSQL commands print, run as printed against a private
//! cluster: `resolve pg … --dry-run` names the same GID and changes nothing; the SQL of
//! a slot or a session does what it says.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::schema::{Finding, HorizonReport, PreparedReport, SlotsReport};
use common::*;

/// A prepared transaction under `gid`, in `url`'s database.
fn prepare(url: &str, gid: &str) {
    let mut client = connect(url);
    // Its own statement: before a BEGIN in one query string it would be in the
    // transaction, and the next CREATE would wait for it.
    client
        .batch_execute("CREATE TABLE IF NOT EXISTS t (id int)")
        .expect("create table");
    client
        .batch_execute(&format!(
            "BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION {}",
            literal(gid)
        ))
        .expect("prepare");
}

fn still_prepared(url: &str, gid: &str) -> bool {
    connect(url)
        .query_one(
            "SELECT count(*) FROM pg_prepared_xacts WHERE gid = $1",
            &[&gid],
        )
        .unwrap()
        .get::<_, i64>(0)
        == 1
}

/// The finding of `code` whose evidence `key` is `value`.
fn finding<'a>(findings: &'a [Finding], code: &str, key: &str, value: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.code == code && f.evidence.get(key).and_then(|v| v.as_str()) == Some(value))
        .unwrap_or_else(|| panic!("no {code} finding with {key} {value}: {findings:#?}"))
}

/// Runs a printed `resolve pg … --dry-run` and checks it names `gid` and changed nothing.
fn dry_run_names(next: &str, gid: &str, url: &str) {
    let (resolved, code) = run_printed(next);
    // Its status is what it found (no decision source: WARNING), not a usage error.
    assert_eq!(code, resolved["exit_code"].as_i64().map(|c| c as i32));
    assert_ne!(code, Some(3), "{next}: {resolved:#}");
    assert_eq!(resolved["command"], "resolve pg", "{next}");
    assert_eq!(resolved["gid"], gid, "{next}: {resolved:#}");
    assert_eq!(resolved["dry_run"], true);
    assert_eq!(resolved["database"], "postgres", "it found the transaction");
    assert!(still_prepared(url, gid), "a dry run changes nothing");
}

#[test]
fn pg_prepared_names_a_dry_run_resolve_that_works_as_printed() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    // Quotes and spaces for the shell, a leading dash for the argument parser.
    let gids = ["next_plain_1", "it's a gid", "-dash-first"];
    for gid in gids {
        prepare(&url, gid);
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("my config.yaml");
    std::fs::write(&config, format!("postgres:\n  one:\n    conninfo: {url}\n")).unwrap();
    let config = config.to_string_lossy().into_owned();

    // The config's only target, by its name, with the --config of this run.
    let (report, out) = common::report::<PreparedReport>(&[
        "--config",
        &config,
        "pg",
        "prepared",
        "--warning-age",
        "0s",
        "--critical-age",
        "0s",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    for gid in gids {
        let f = finding(&report.findings, "prepared_xact_age", "gid", gid);
        let next = f.next.as_deref().expect("a next command");
        assert!(
            next.starts_with(&format!("indoubt --config '{config}' resolve pg ")),
            "{next}"
        );
        assert!(
            next.contains("--pg one") && next.contains("--dry-run"),
            "{next}"
        );
        assert_eq!(
            f.object
                .as_ref()
                .map(|o| (o.kind.as_str(), o.name.as_str())),
            Some(("prepared_transaction", gid))
        );
        dry_run_names(next, gid, &url);
    }

    // A URL holding a password is not repeated (it would print the password): its host,
    // port, user and database are, and the password comes from where libpq looks.
    let (report, _) =
        common::report::<PreparedReport>(&["pg", "prepared", "--pg", &url, "--warning-age", "0s"]);
    let next = finding(&report.findings, "prepared_xact_age", "gid", "next_plain_1")
        .next
        .clone()
        .unwrap();
    assert!(!next.contains(&cluster.password), "{next}");
    assert_eq!(
        next,
        format!(
            "indoubt resolve pg next_plain_1 -h 127.0.0.1 -p {} -U indoubt_admin -d postgres --dry-run",
            cluster.port
        )
    );
    dry_run_names(
        &format!("PGPASSWORD={} {next}", cluster.password),
        "next_plain_1",
        &url,
    );

    // psql's flags (here the cluster's socket directory, where it trusts local users)
    // are repeated as given.
    let socket = cluster.dir.path().join("run");
    let socket = socket.to_string_lossy();
    let port = cluster.port.to_string();
    let psql = [
        "-h",
        socket.as_ref(),
        "-p",
        &port,
        "-U",
        "indoubt_admin",
        "-d",
        "postgres",
    ];
    let mut args = vec!["pg", "prepared"];
    args.extend(psql);
    args.extend(["--warning-age", "0s", "--critical-age", "0s"]);
    let (report, out) = common::report::<PreparedReport>(&args);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let next = finding(&report.findings, "prepared_xact_age", "gid", "it's a gid")
        .next
        .clone()
        .unwrap();
    assert!(next.contains(&format!(" -h {socket} -p {port} ")), "{next}");
    dry_run_names(&next, "it's a gid", &url);
}

#[test]
fn pg_horizon_names_the_statement_or_command_that_ends_each_hold() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    // An abandoned logical slot (made first: making one waits for open transactions), an
    // idle-in-transaction session and a prepared transaction.
    admin
        .batch_execute("SELECT pg_create_logical_replication_slot('horizon_slot', 'pgoutput')")
        .unwrap();
    let mut idle = connect(&url);
    let pid: i32 = idle
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    idle.batch_execute("BEGIN; SELECT pg_current_xact_id();")
        .unwrap();
    prepare(&url, "horizon_gid_1");
    let (report, out) = common::report::<HorizonReport>(&[
        "pg",
        "horizon",
        "--pg",
        &url,
        "--warning-age",
        "0s",
        "--warning-xids",
        "0",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);

    let session = finding(&report.findings, "horizon_holder", "id", &pid.to_string());
    let (place, statement) = common::sql_placed(session.next.as_deref().unwrap());
    assert_eq!(statement, format!("SELECT pg_terminate_backend({pid});"));
    assert!(place.starts_with("in any database of "), "{place}");
    let advice = session.advice.as_deref().unwrap_or_default();
    assert!(
        !advice.contains("pg_terminate_backend"),
        "said once: {advice}"
    );
    let ended: bool = admin
        .query_one(session.next.as_deref().unwrap(), &[])
        .unwrap()
        .get(0);
    assert!(ended);
    wait_for("the session to end", || {
        admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                &[&pid],
            )
            .unwrap()
            .get::<_, i64>(0)
            == 0
    });

    // Prepared after the session took its xid, it held nothing back while the session
    // lived: no command then; now it is what vacuum waits for.
    let behind = finding(&report.findings, "horizon_holder", "id", "horizon_gid_1");
    assert_eq!(behind.next, None, "{behind:?}");
    let (report, _) = common::report::<HorizonReport>(&[
        "pg",
        "horizon",
        "--pg",
        &url,
        "--warning-age",
        "0s",
        "--warning-xids",
        "0",
    ]);
    let prepared = finding(&report.findings, "horizon_holder", "id", "horizon_gid_1");
    assert_eq!(
        prepared.object.as_ref().map(|o| o.kind.as_str()),
        Some("prepared_transaction")
    );
    // The URL holds a password: the password comes from the environment, as for psql.
    let next = prepared.next.as_deref().unwrap();
    assert!(!next.contains(&cluster.password), "{next}");
    dry_run_names(
        &format!("PGPASSWORD={} {next}", cluster.password),
        "horizon_gid_1",
        &url,
    );

    let slot = finding(&report.findings, "horizon_holder", "id", "horizon_slot");
    assert_eq!(
        common::sql_placed(slot.next.as_deref().unwrap()).1,
        "SELECT pg_drop_replication_slot('horizon_slot');"
    );
    admin.batch_execute(slot.next.as_deref().unwrap()).unwrap();
    let slots: i64 = admin
        .query_one("SELECT count(*) FROM pg_replication_slots", &[])
        .unwrap()
        .get(0);
    assert_eq!(slots, 0, "the slot is gone");
}

#[test]
fn pg_slots_names_the_drop_statement_once_and_it_drops_the_slot() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("SELECT pg_create_logical_replication_slot('cdc_orders', 'pgoutput'); CREATE TABLE filler AS SELECT repeat(md5(g::text), 16) AS payload FROM generate_series(1, 20000) g")
        .unwrap();
    let (report, out) = common::report::<SlotsReport>(&[
        "pg",
        "slots",
        "--pg",
        &url,
        "--warning-retained",
        "1kB",
        "--critical-retained",
        "2kB",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let retained = finding(&report.findings, "slot_retained_wal", "slot", "cdc_orders");
    let next = retained.next.as_deref().expect("the drop statement");
    // Any database of the server drops it, a logical slot's too: the comment says so.
    let (place, statement) = common::sql_placed(next);
    assert_eq!(statement, "SELECT pg_drop_replication_slot('cdc_orders');");
    assert!(place.starts_with("in any database of "), "{place}");
    let advice = retained.advice.as_deref().unwrap_or_default();
    assert!(
        !advice.contains("pg_drop_replication_slot") && advice.contains("loses its position"),
        "the statement is the next step, its consequence the advice: {advice}"
    );
    assert_eq!(
        retained
            .object
            .as_ref()
            .map(|o| (o.kind.as_str(), o.name.as_str())),
        Some(("replication_slot", "cdc_orders"))
    );
    admin.batch_execute(next).unwrap();
    let (after, out) = common::report::<SlotsReport>(&["pg", "slots", "--pg", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(after.slots.is_empty(), "{:?}", after.slots);
}

/// An OK finding names no next command: nothing needs doing. A young prepared
/// transaction under the thresholds and a fresh inactive slot holding nothing are OK and
/// carry neither a resolve nor a pg_drop_replication_slot.
#[test]
fn an_ok_finding_names_no_next_command() {
    let cluster = PrivateCluster::start_quiet();
    let url = cluster.url("postgres");
    // The slot first: creating a logical slot waits for every open transaction, prepared
    // ones included.
    let slot = unique("fresh_slot");
    connect(&url)
        .query(
            "SELECT pg_create_logical_replication_slot($1, 'test_decoding')",
            &[&slot],
        )
        .unwrap();
    prepare(&url, "young_and_fine");
    for args in [
        &["pg", "prepared", "--pg", &url][..],
        &["pg", "slots", "--pg", &url][..],
    ] {
        let (report, out) = common::report::<serde_json::Value>(args);
        let findings = report["findings"].as_array().unwrap();
        let ok: Vec<_> = findings.iter().filter(|f| f["severity"] == "OK").collect();
        assert!(!ok.is_empty(), "{args:?}: an OK finding: {}", out.stdout);
        for f in ok {
            assert!(
                f["next"].is_null(),
                "{args:?}: an OK finding with a next: {f:#}"
            );
        }
    }
    // The private cluster goes with the test, its slot and transaction with it.
}
