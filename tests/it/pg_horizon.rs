//! `indoubt pg horizon` on private clusters: each culprit alone, several at once, standby
//! feedback, dead tuples that VACUUM could not remove, and what an unprivileged role cannot see.

#![allow(clippy::disallowed_methods, clippy::disallowed_macros)] // tests make their fixtures and say what they skip directly

use crate::common;

use common::schema::HorizonReport;
use common::*;

fn horizon(url: &str, extra: &[&str]) -> (HorizonReport, Outcome) {
    let mut args = vec!["pg", "horizon", "--pg", url];
    args.extend_from_slice(extra);
    report(&args)
}

fn quiet_cluster() -> PrivateCluster {
    PrivateCluster::start_quiet()
}

/// Opens a transaction that took an xid and then goes quiet; returns the session and its pid.
fn idle_in_transaction(url: &str) -> (postgres::Client, i32) {
    let mut client = connect(url);
    let pid: i32 = client
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    client
        .batch_execute("BEGIN; SELECT pg_current_xact_id();")
        .unwrap();
    (client, pid)
}

fn gone(admin: &mut postgres::Client, pid: i32) -> bool {
    admin
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap()
        .get::<_, i64>(0)
        == 0
}

/// Burns `n` xids so that older holders have a visible age.
fn burn_xids(url: &str, n: usize) {
    let mut client = connect(url);
    for _ in 0..n {
        client.batch_execute("SELECT pg_current_xact_id()").unwrap();
    }
}

#[test]
fn an_idle_in_transaction_session_alone_is_named_with_ages_postgres_agrees_with() {
    let cluster = quiet_cluster();
    let (_session, pid) = idle_in_transaction(&cluster.url("postgres"));
    burn_xids(&cluster.url("postgres"), 5);
    let mut admin = connect(&cluster.url("postgres"));
    let age_before: i32 = admin
        .query_one(
            "SELECT age(backend_xid) FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap()
        .get(0);
    let (report, out) = horizon(&cluster.url("postgres"), &[]);
    let age_after: i32 = admin
        .query_one(
            "SELECT age(backend_xid) FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        out.code, 0,
        "young: OK under the default thresholds\n{}",
        out.stderr
    );
    let culprit = &report.holders[0];
    assert_eq!(
        (culprit.kind.as_str(), culprit.id.as_str()),
        ("idle_in_transaction", pid.to_string().as_str())
    );
    assert_eq!(culprit.pins, "own_database");
    assert_eq!(culprit.database.as_deref(), Some("postgres"));
    let age = culprit.age_xids.unwrap();
    assert!(
        age >= age_before && age <= age_after && age >= 5,
        "{age_before} <= {age} <= {age_after}"
    );
    assert!(culprit.age_seconds.unwrap() >= 0.0);
    assert_eq!(
        report.culprit.as_deref().map(|c| c.starts_with(&format!(
            "vacuum held back in postgres by idle-in-transaction session {pid} for "
        ))),
        Some(true),
        "{:?}",
        report.culprit
    );
    assert_eq!(report.findings[0].code, "horizon_holder");
    assert_eq!(
        common::sql_placed(report.findings[0].next.as_deref().unwrap()).1,
        format!("SELECT pg_terminate_backend({pid});")
    );

    // The first line a person sees names it too.
    let table = run(indoubt().args([
        "pg",
        "horizon",
        "--pg",
        &cluster.url("postgres"),
        "--warning-age",
        "0s",
    ]));
    assert_eq!(table.code, 1);
    let first = table.stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "WARNING: vacuum held back in postgres by idle-in-transaction session {pid}"
        )),
        "{first}"
    );
    assert_eq!(
        run(indoubt().args([
            "pg",
            "horizon",
            "--pg",
            &cluster.url("postgres"),
            "--warning-xids",
            "1",
            "--critical-xids",
            "2"
        ]))
        .code,
        2
    );
}

#[test]
fn a_prepared_transaction_alone_is_named() {
    let cluster = quiet_cluster();
    connect(&cluster.url("postgres"))
        .batch_execute("CREATE TABLE t (id int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION 'held-by-2pc'")
        .unwrap();
    burn_xids(&cluster.url("postgres"), 3);
    let (report, _) = horizon(&cluster.url("postgres"), &[]);
    assert_eq!(report.holders.len(), 1, "{:?}", report.holders);
    assert_eq!(
        (
            report.holders[0].kind.as_str(),
            report.holders[0].id.as_str()
        ),
        ("prepared", "held-by-2pc")
    );
    assert!(report.holders[0].age_xids.unwrap() >= 3);
    assert!(report
        .culprit
        .unwrap()
        .contains("prepared transaction 'held-by-2pc'"));
    connect(&cluster.url("postgres"))
        .batch_execute("ROLLBACK PREPARED 'held-by-2pc'")
        .unwrap();
}

#[test]
fn a_logical_slot_catalog_xmin_alone_is_named_which_check_pgactivity_misses() {
    let cluster = quiet_cluster();
    connect(&cluster.url("postgres"))
        .batch_execute("SELECT pg_create_logical_replication_slot('cdc_orders', 'pgoutput')")
        .unwrap();
    burn_xids(&cluster.url("postgres"), 3);
    let (report, _) = horizon(&cluster.url("postgres"), &[]);
    let culprit = &report.holders[0];
    assert_eq!(
        (culprit.kind.as_str(), culprit.id.as_str()),
        ("slot_catalog_xmin", "cdc_orders")
    );
    assert_eq!(culprit.pins, "catalogs_of_all_databases");
    assert_eq!(culprit.state.as_deref(), Some("inactive"));
    assert!(culprit.age_xids.unwrap() >= 3);
}

#[test]
fn with_several_holders_the_oldest_is_the_culprit() {
    let cluster = quiet_cluster();
    let url = cluster.url("postgres");
    let (session, pid) = idle_in_transaction(&url);
    burn_xids(&url, 2);
    connect(&url)
        .batch_execute("CREATE TABLE t (id int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION 'younger'")
        .unwrap();
    burn_xids(&url, 2);
    let (report, _) = horizon(&url, &[]);
    let kinds: Vec<(&str, &str)> = report
        .holders
        .iter()
        .map(|h| (h.kind.as_str(), h.id.as_str()))
        .collect();
    let pid_text = pid.to_string();
    assert_eq!(
        kinds,
        [
            ("idle_in_transaction", pid_text.as_str()),
            ("prepared", "younger")
        ]
    );
    assert!(report.holders[0].age_xids > report.holders[1].age_xids);

    drop(session); // the application finally goes away
    let mut admin = connect(&url);
    wait_for("the session to end", || gone(&mut admin, pid));
    let (report, _) = horizon(&url, &[]);
    assert_eq!(
        report.holders[0].id, "younger",
        "the next oldest becomes the culprit"
    );
    connect(&url)
        .batch_execute("ROLLBACK PREPARED 'younger'")
        .unwrap();
}

#[test]
fn vacuum_leaves_dead_tuples_that_the_report_shows_next_to_their_cause() {
    let cluster = quiet_cluster();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("CREATE TABLE events (id int PRIMARY KEY, body text); INSERT INTO events SELECT g, 'x' FROM generate_series(1, 1000) g")
        .unwrap();
    let (_holder, pid) = idle_in_transaction(&url);
    // Delete from a session that then ends, so its statistics are flushed before VACUUM
    // reports its own count (a later flush would add the deletes again).
    let mut deleter = connect(&url);
    let deleter_pid: i32 = deleter
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    deleter.batch_execute("DELETE FROM events").unwrap();
    drop(deleter);
    wait_for("the deleting session to end", || {
        gone(&mut admin, deleter_pid)
    });
    admin.batch_execute("VACUUM events").unwrap();
    // Before 15 the statistics collector gets VACUUM's report asynchronously (UDP).
    wait_for("VACUUM's statistics to arrive", || {
        admin
            .query_one(
                "SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'events'",
                &[],
            )
            .unwrap()
            .get(0)
    });
    let dead: i64 = admin
        .query_one(
            "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'events'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        dead, 1000,
        "VACUUM could not remove them: the session holds the horizon"
    );
    let (report, _) = horizon(&url, &[]);
    assert_eq!(report.holders[0].id, pid.to_string());
    let postgres = report
        .databases
        .iter()
        .find(|d| d.database == "postgres")
        .unwrap();
    let events = postgres
        .dead_tuples
        .iter()
        .find(|t| t.table == "public.events")
        .expect("events listed");
    assert_eq!(events.n_dead_tup, 1000);
    assert!(events.last_vacuum.is_some());
    assert!(postgres.datfrozenxid_age > 0 && postgres.xids_left > 2_000_000_000);
    assert_eq!(postgres.failsafe_reached, Some(false));
    assert!(
        report.databases.iter().any(|d| d.database == "template0"),
        "every database has an age"
    );
}

#[test]
fn wraparound_thresholds_grade_each_database() {
    let cluster = quiet_cluster();
    let url = cluster.url("postgres");
    let (report, out) = horizon(
        &url,
        &[
            "--wraparound-warning-xids",
            "1",
            "--wraparound-critical-xids",
            "1B",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let wrap: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.code == "wraparound" && f.severity == "WARNING")
        .map(|f| f.subject.as_str())
        .collect();
    assert!(
        wrap.contains(&"database postgres") && wrap.contains(&"database template1"),
        "{wrap:?}"
    );
    let (_, out) = horizon(
        &url,
        &[
            "--wraparound-warning-xids",
            "1",
            "--wraparound-critical-xids",
            "2",
        ],
    );
    assert_eq!(out.code, 2);
}

#[test]
fn standby_feedback_is_attributed_and_the_tool_runs_on_the_standby() {
    let primary = quiet_cluster();
    let standby = primary.standby("replica_1");
    let mut on_standby = connect(&standby.url("postgres"));
    wait_for("the standby to stream", || {
        connect(&primary.url("postgres"))
            .query_one(
                "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
                &[],
            )
            .unwrap()
            .get::<_, i64>(0)
            == 1
    });
    // A long report on the standby: its snapshot travels to the primary as feedback.
    on_standby
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM pg_class;")
        .unwrap();
    burn_xids(&primary.url("postgres"), 5);
    let mut slot_age = 0;
    wait_for("the standby's xmin to reach the primary's slot", || {
        let (report, _) = horizon(&primary.url("postgres"), &[]);
        match report.holders.first() {
            Some(h) if h.kind == "slot_xmin" && h.id == "replica_1" => {
                slot_age = h.age_xids.unwrap_or(0);
                assert_eq!(h.pins, "all_databases");
                slot_age >= 5
            }
            _ => false,
        }
    });
    assert!(slot_age >= 5);
    // Streaming: the standby is not "away", its query is the cause.
    let (report, _) = horizon(&primary.url("postgres"), &[]);
    let advice = report
        .findings
        .iter()
        .find(|f| f.subject == "xmin of replication slot replica_1")
        .and_then(|f| f.advice.clone())
        .expect("the slot's finding has advice");
    assert_eq!(report.holders[0].state.as_deref(), Some("active"));
    assert!(
        advice.contains("is connected") && advice.contains("on the standby"),
        "{advice}"
    );
    assert!(!advice.contains("bring the standby back"), "{advice}");

    // On the standby itself: the session holding the snapshot, and slots measured from the received WAL.
    let (report, out) = horizon(&standby.url("postgres"), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(report.in_recovery);
    assert_eq!(report.holders[0].kind, "idle_in_transaction");
    assert_eq!(
        report.holders[0].pins, "all_databases",
        "on a standby, feedback carries it to the primary"
    );
    connect(&standby.url("postgres"))
        .batch_execute("SELECT pg_create_physical_replication_slot('cascade', true)")
        .unwrap();
    let out = run(indoubt().args([
        "pg",
        "slots",
        "-o",
        "json",
        "--pg",
        &standby.url("postgres"),
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let slots: common::schema::SlotsReport = serde_json::from_str(&out.stdout).unwrap();
    assert!(slots.in_recovery);
    let cascade = slots.slots.iter().find(|s| s.name == "cascade").unwrap();
    let retained = cascade
        .retained_bytes
        .expect("retained WAL measured on a standby");
    let upper: i64 = connect(&standby.url("postgres"))
        .query_one(
            "SELECT pg_wal_lsn_diff(greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), restart_lsn)::bigint FROM pg_replication_slots WHERE slot_name = 'cascade'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        (0..=upper).contains(&retained),
        "0 <= {retained} <= {upper}"
    );
    drop(on_standby);
}

#[test]
fn an_unprivileged_role_is_told_what_it_cannot_see() {
    let cluster = quiet_cluster();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("CREATE ROLE watcher LOGIN PASSWORD 'watcher-pw'")
        .unwrap();
    admin.batch_execute("CREATE DATABASE sealed").unwrap();
    admin
        .batch_execute("REVOKE CONNECT ON DATABASE sealed FROM PUBLIC")
        .unwrap();
    let (_session, pid) = idle_in_transaction(&url);
    let watcher = format!(
        "postgres://watcher:watcher-pw@127.0.0.1:{}/postgres?sslmode=disable",
        cluster.port
    );
    let (report, out) = horizon(&watcher, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let holder = report
        .holders
        .iter()
        .find(|h| h.id == pid.to_string())
        .expect("still listed by its xid");
    assert_eq!(
        holder.kind, "session",
        "state hidden, so not known to be idle"
    );
    assert_eq!(holder.state, None);
    let gaps = report.visibility_gaps.join("\n");
    assert!(gaps.contains("pg_monitor"), "{gaps}");
    assert!(
        gaps.contains("GRANT CONNECT ON DATABASE \"sealed\""),
        "{gaps}"
    );

    let out = run(indoubt().args(["pg", "slots", "-o", "json", "--pg", &watcher]));
    let slots: common::schema::SlotsReport = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(slots.pg_wal_bytes, None);
    assert!(
        slots.visibility_gaps.join("\n").contains("pg_monitor"),
        "{:?}",
        slots.visibility_gaps
    );

    admin.batch_execute("GRANT pg_monitor TO watcher").unwrap();
    let (report, _) = horizon(&watcher, &[]);
    let holder = report
        .holders
        .iter()
        .find(|h| h.id == pid.to_string())
        .unwrap();
    assert_eq!(
        holder.kind, "idle_in_transaction",
        "with pg_monitor the state is visible"
    );
    assert!(!report.visibility_gaps.join("\n").contains("pg_monitor"));
}

/// The server's own horizon for `table`: the cutoff VACUUM VERBOSE reports ("removable
/// cutoff" since 15, "oldest xmin" before).
fn vacuum_cutoff(url: &str, table: &str) -> i64 {
    use std::sync::{Arc, Mutex};
    let said = Arc::new(Mutex::new(String::new()));
    let sink = said.clone();
    let mut config: postgres::Config = url.parse().unwrap();
    config.notice_callback(move |notice| {
        let mut text = sink.lock().unwrap();
        text.push_str(notice.message());
        text.push('\n');
        text.push_str(notice.detail().unwrap_or(""));
        text.push('\n');
    });
    let mut client = config.connect(postgres::NoTls).unwrap();
    client
        .batch_execute(&format!("VACUUM (VERBOSE) {table}"))
        .unwrap();
    let text = said.lock().unwrap().clone();
    ["removable cutoff: ", "oldest xmin: "]
        .iter()
        .find_map(|label| {
            let at = text.find(label)? + label.len();
            text[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no cutoff in VACUUM VERBOSE's output:\n{text}"))
}

fn server_version(url: &str) -> i32 {
    connect(url)
        .query_one("SELECT current_setting('server_version_num')::int", &[])
        .unwrap()
        .get(0)
}

/// Writes WAL until the slot's wal_status is lost (max_slot_wal_keep_size is small).
fn lose_slot(admin: &mut postgres::Client, slot: &str) {
    admin
        .batch_execute("CREATE TABLE IF NOT EXISTS filler (payload text)")
        .unwrap();
    wait_for("the slot to be invalidated", || {
        admin
            .batch_execute("INSERT INTO filler SELECT repeat(md5(g::text), 16) FROM generate_series(1, 48000) g")
            .unwrap();
        admin.batch_execute("SELECT pg_switch_wal()").unwrap();
        admin.batch_execute("CHECKPOINT").unwrap();
        let status: Option<String> = admin
            .query_one(
                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1",
                &[&slot],
            )
            .unwrap()
            .get(0);
        status.as_deref() == Some("lost")
    });
}

/// A config file that makes every xmin a WARNING (1 xid), so a slot wrongly taken for a
/// holder shows.
fn strict_config(dir: &std::path::Path) -> String {
    let path = dir.join("strict.yaml");
    std::fs::write(
        &path,
        "thresholds:\n  horizon:\n    warning_xids: 1\n  slots:\n    warning_retained: 1KiB\n",
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_lost_slot_holds_nothing_back_on_any_version() {
    let cluster = quiet_cluster();
    let url = cluster.url("postgres");
    let version = server_version(&url);
    let mut admin = connect(&url);
    admin
        .batch_execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'")
        .unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    // The slot first, so its catalog_xmin is the oldest xmin on the server.
    admin
        .batch_execute("SELECT pg_create_logical_replication_slot('cdc_gone', 'pgoutput')")
        .unwrap();
    burn_xids(&url, 3);
    let mut preparer = connect(&url);
    preparer
        .batch_execute(
            "CREATE TABLE ledger (id int); BEGIN; INSERT INTO ledger VALUES (1); PREPARE TRANSACTION 'real_holder'",
        )
        .unwrap();
    let prepared_xid: i64 = admin
        .query_one(
            "SELECT transaction::text::bigint FROM pg_prepared_xacts WHERE gid = 'real_holder'",
            &[],
        )
        .unwrap()
        .get(0);
    lose_slot(&mut admin, "cdc_gone");
    let (catalog_xmin, conflicting): (Option<i64>, Option<bool>) = {
        let row = admin
            .query_one(
                &format!(
                    "SELECT catalog_xmin::text::bigint, {} FROM pg_replication_slots WHERE slot_name = 'cdc_gone'",
                    if version >= 160000 { "conflicting" } else { "NULL::boolean" }
                ),
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert!(
        catalog_xmin.is_some_and(|x| x < prepared_xid),
        "the lost slot still shows an older catalog_xmin ({catalog_xmin:?} vs {prepared_xid})"
    );
    if version / 10000 == 16 {
        assert_eq!(
            conflicting,
            Some(true),
            "16 sets conflicting for WAL removal too"
        );
    }
    assert_eq!(
        vacuum_cutoff(&url, "pg_catalog.pg_class"),
        prepared_xid,
        "the server ignores the lost slot: the prepared transaction is the catalogs' horizon"
    );

    let (report, out) = horizon(&url, &["--warning-xids", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        (
            report.holders[0].kind.as_str(),
            report.holders[0].id.as_str()
        ),
        ("prepared", "real_holder"),
        "{:?}",
        report.holders
    );
    assert!(
        report.holders.iter().all(|h| h.id != "cdc_gone"),
        "{:?}",
        report.holders
    );

    let dir = tempfile::tempdir().unwrap();
    let config = strict_config(dir.path());
    let (slots, out) = common::report::<common::schema::SlotsReport>(&[
        "--config", &config, "pg", "slots", "--pg", &url,
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let about: Vec<(&str, &str, &str)> = slots
        .findings
        .iter()
        .filter(|f| f.subject == "slot cdc_gone")
        .map(|f| (f.code.as_str(), f.severity.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(about.len(), 1, "lost and nothing else: {about:?}");
    let (code, severity, message) = about[0];
    assert_eq!((code, severity), ("slot_wal_lost", "CRITICAL"));
    assert!(!message.contains("recovery conflict"), "{message}");
    assert!(
        message.contains("WAL it needs was removed") || message.contains("(wal_removed)"),
        "{message}"
    );
    assert!(
        !slots
            .findings
            .iter()
            .any(|f| f.code == "max_slot_wal_keep_size_unlimited"),
        "the limit is set"
    );
    connect(&url)
        .batch_execute("ROLLBACK PREPARED 'real_holder'")
        .unwrap();
}

#[test]
fn a_slot_synced_to_a_standby_is_managed_from_the_primary() {
    let primary = quiet_cluster();
    let primary_url = primary.url("postgres");
    let version = server_version(&primary_url);
    if version < 170000 {
        eprintln!("slot synchronisation came with PostgreSQL 17; this server is {version}");
        return;
    }
    let standby = primary.standby("replica_sync");
    connect(&primary_url)
        .batch_execute(
            "SELECT pg_create_logical_replication_slot('cdc_failover', 'pgoutput', false, false, true)",
        )
        .unwrap();
    // Slot synchronisation connects to a database of the primary.
    let standby_url = standby.url("postgres");
    let mut on_standby = connect(&standby_url);
    on_standby
        .batch_execute(&format!(
            "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port={} user=indoubt_admin password={} dbname=postgres'",
            primary.port, primary.password
        ))
        .unwrap();
    on_standby.batch_execute("SELECT pg_reload_conf()").unwrap();
    wait_for("the failover slot to be synced to the standby", || {
        let _ = on_standby.batch_execute("SELECT pg_sync_replication_slots()");
        on_standby
            .query_one(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'cdc_failover' AND synced AND NOT temporary",
                &[],
            )
            .map(|r| r.get::<_, i64>(0) == 1)
            .unwrap_or(false)
    });

    let dir = tempfile::tempdir().unwrap();
    let config = strict_config(dir.path());
    let (slots, out) = common::report::<common::schema::SlotsReport>(&[
        "--config",
        &config,
        "pg",
        "slots",
        "--pg",
        &standby_url,
    ]);
    assert!(slots.in_recovery);
    let synced = slots
        .slots
        .iter()
        .find(|s| s.name == "cdc_failover")
        .expect("the synced slot is listed");
    assert_eq!(synced.synced, Some(true));
    assert!(synced.catalog_xmin.is_some());
    let about: Vec<&str> = slots
        .findings
        .iter()
        .filter(|f| f.subject == "slot cdc_failover" || f.message.contains("cdc_failover"))
        .map(|f| f.code.as_str())
        .collect();
    assert!(
        about.is_empty(),
        "exempt from this server's WAL limits, its horizon the primary's: {about:?}"
    );
    assert_eq!(out.code, 0, "{}", out.stdout);

    let (report, _) = horizon(&standby_url, &["--warning-xids", "1"]);
    let holder = report
        .holders
        .iter()
        .find(|h| h.id == "cdc_failover")
        .expect("the synced slot's catalog_xmin is a holder on the standby");
    assert_eq!(holder.state.as_deref(), Some("synced"));
    assert_eq!(
        holder.age_seconds, None,
        "inactive_since restarts at every sync: no age in time"
    );
    let advice = report
        .findings
        .iter()
        .find(|f| f.subject == "catalog_xmin of replication slot cdc_failover")
        .and_then(|f| f.advice.clone())
        .expect("a finding with advice");
    assert!(advice.contains("synced from the primary"), "{advice}");
}

fn one_i64(url: &str, sql: &str) -> i64 {
    connect(url).query_one(sql, &[]).unwrap().get(0)
}

/// What the report says vacuum waits for in `database`: tables or catalogs.
fn waits_for<'a>(report: &'a HorizonReport, database: &str) -> &'a common::schema::DatabaseWait {
    report
        .vacuum_waits_for
        .iter()
        .find(|d| d.database == database)
        .unwrap_or_else(|| panic!("{database} in {:?}", report.vacuum_waits_for))
}

fn finding_about<'a>(report: &'a HorizonReport, subject: &str) -> &'a common::schema::Finding {
    report
        .findings
        .iter()
        .find(|f| f.subject == subject)
        .unwrap_or_else(|| panic!("no finding about {subject}: {:#?}", report.findings))
}

/// Each database has its own horizon: the report's per database is VACUUM (VERBOSE)'s
/// removable cutoff there ("oldest xmin" before 15), holders with one xmin hold jointly,
/// a younger holder holds nothing back, and ending a holder moves exactly what it held.
#[test]
fn each_database_waits_for_its_own_holders_as_vacuum_verbose_reports() {
    let cluster = quiet_cluster();
    let postgres = cluster.url("postgres");
    let (shop, app) = (cluster.url("shop"), cluster.url("app"));
    let mut admin = connect(&postgres);
    for sql in [
        "CREATE DATABASE shop",
        "CREATE DATABASE app",
        // First: creating a logical slot waits for every running transaction.
        "SELECT pg_create_logical_replication_slot('cdc_first', 'pgoutput')",
    ] {
        admin.batch_execute(sql).unwrap();
    }
    burn_xids(&postgres, 3);
    for url in [&shop, &app, &postgres] {
        connect(url)
            .batch_execute("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
            .unwrap();
    }
    connect(&shop)
        .batch_execute("BEGIN; INSERT INTO t VALUES (2); PREPARE TRANSACTION 'shop-order-1'")
        .unwrap();
    // A report in shop that took its snapshot while the order was prepared: its xmin is
    // the prepared transaction's xid.
    let mut reader = connect(&shop);
    let reader_pid: i32 = reader
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    reader
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t")
        .unwrap();
    burn_xids(&postgres, 3);
    let (app_session, app_pid) = idle_in_transaction(&app);
    burn_xids(&postgres, 3);
    let (_late, late_pid) = idle_in_transaction(&app);
    burn_xids(&postgres, 3);

    let prepared_xid = one_i64(
        &postgres,
        "SELECT transaction::text::bigint FROM pg_prepared_xacts WHERE gid = 'shop-order-1'",
    );
    let xid_of = |pid: i32| {
        one_i64(
            &postgres,
            &format!("SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE pid = {pid}"),
        )
    };
    let (app_xid, late_xid) = (xid_of(app_pid), xid_of(late_pid));
    let catalog_xmin = one_i64(
        &postgres,
        "SELECT catalog_xmin::text::bigint FROM pg_replication_slots WHERE slot_name = 'cdc_first'",
    );
    assert!(catalog_xmin < prepared_xid && prepared_xid < app_xid && app_xid < late_xid);

    // Every holder over the xid threshold, so each has its finding.
    let (report, out) = horizon(&postgres, &["--warning-xids", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let shop_waits = waits_for(&report, "shop");
    let shop_tables = shop_waits.tables.as_ref().expect("shop's tables are held");
    assert_eq!(shop_tables.held_xid, Some(prepared_xid));
    assert_eq!(vacuum_cutoff(&shop, "t"), prepared_xid, "the server agrees");
    let prepared = "prepared transaction 'shop-order-1'".to_string();
    let reader_name = format!("idle-in-transaction session {reader_pid}");
    assert_eq!(shop_tables.held_by, [prepared.clone(), reader_name.clone()]);
    let app_tables = waits_for(&report, "app").tables.as_ref().unwrap();
    assert_eq!(app_tables.held_xid, Some(app_xid));
    assert_eq!(
        vacuum_cutoff(&app, "t"),
        app_xid,
        "not the older prepared transaction in shop"
    );
    assert!(
        waits_for(&report, "postgres").tables.is_none(),
        "nothing that counts in postgres holds its tables"
    );
    assert!(vacuum_cutoff(&postgres, "t") > late_xid);
    for (db, url) in [("shop", &shop), ("app", &app), ("postgres", &postgres)] {
        let catalogs = waits_for(&report, db).catalogs.as_ref().unwrap();
        assert_eq!(catalogs.held_xid, Some(catalog_xmin), "{db}");
        assert_eq!(
            vacuum_cutoff(url, "pg_catalog.pg_class"),
            catalog_xmin,
            "{db}"
        );
    }
    let culprit = report.culprit.clone().unwrap_or_default();
    assert!(
        culprit.starts_with(&format!(
            "vacuum held back in shop by {prepared} and {reader_name} for "
        )) && culprit.contains(&format!("; in app by idle-in-transaction session {app_pid} for "))
            && culprit.contains("; in the system catalogs of every database by catalog_xmin of replication slot cdc_first for "),
        "{culprit}"
    );

    // Ranked by what they hold back: the slot, the pair, app's session; the late one last.
    let ranked: Vec<&str> = report.holders.iter().map(|h| h.id.as_str()).collect();
    let (reader_id, app_id, late_id) = (
        reader_pid.to_string(),
        app_pid.to_string(),
        late_pid.to_string(),
    );
    assert_eq!(
        ranked,
        [
            "cdc_first",
            "shop-order-1",
            reader_id.as_str(),
            app_id.as_str(),
            late_id.as_str()
        ]
    );
    let slot = &report.holders[0];
    assert_eq!(
        slot.holds_back.catalogs_of.len(),
        4,
        "postgres, template1, shop, app"
    );
    assert!(slot.holds_back.tables_of.is_empty());

    // The pair: the prepared transaction is ended first (its resolve), the reader's
    // session alone would free nothing.
    let on_prepared = finding_about(&report, &prepared);
    assert!(
        on_prepared
            .message
            .contains("holds back vacuum in shop for "),
        "{}",
        on_prepared.message
    );
    assert!(on_prepared
        .message
        .contains(&format!("jointly with {reader_name}")));
    assert!(on_prepared
        .next
        .as_deref()
        .unwrap_or_default()
        .contains("resolve pg shop-order-1"));
    let on_reader = finding_about(&report, &reader_name);
    assert_eq!(on_reader.next, None, "terminating it alone frees nothing");
    let advice = on_reader.advice.clone().unwrap_or_default();
    assert!(
        advice.starts_with(&format!(
            "ending it alone frees nothing: {prepared} holds the same xmin"
        )),
        "{advice}"
    );
    let on_app = finding_about(&report, &format!("idle-in-transaction session {app_pid}"));
    assert_eq!(
        on_app.message.split(" for ").next(),
        Some("holds back vacuum in app")
    );
    assert_eq!(
        common::sql_placed(on_app.next.as_deref().unwrap()).1,
        format!("SELECT pg_terminate_backend({app_pid});")
    );
    let on_late = finding_about(&report, &format!("idle-in-transaction session {late_pid}"));
    assert_eq!(
        on_late.severity, "WARNING",
        "next in line, holding nothing back yet"
    );
    assert!(
        on_late.message.contains(&format!(
            "holds back nothing now: idle-in-transaction session {app_pid} holds an older one"
        )),
        "{}",
        on_late.message
    );
    assert_eq!(on_late.next, None);

    // Ending the reader alone: shop still waits for the prepared transaction, as said.
    drop(reader);
    wait_for("the reader's session to end", || {
        gone(&mut admin, reader_pid)
    });
    assert_eq!(vacuum_cutoff(&shop, "t"), prepared_xid);
    let (report, _) = horizon(&postgres, &[]);
    assert_eq!(
        waits_for(&report, "shop").tables.as_ref().unwrap().held_by,
        [prepared]
    );
    // Resolving it frees shop; ending app's session hands app to the late one.
    connect(&shop)
        .batch_execute("ROLLBACK PREPARED 'shop-order-1'")
        .unwrap();
    drop(app_session);
    wait_for("app's session to end", || gone(&mut admin, app_pid));
    let (report, _) = horizon(&postgres, &[]);
    assert!(waits_for(&report, "shop").tables.is_none());
    assert!(vacuum_cutoff(&shop, "t") > late_xid);
    assert_eq!(
        waits_for(&report, "app").tables.as_ref().unwrap().held_xid,
        Some(late_xid)
    );
    assert_eq!(vacuum_cutoff(&app, "t"), late_xid);
    admin
        .batch_execute("SELECT pg_drop_replication_slot('cdc_first')")
        .unwrap();
}
