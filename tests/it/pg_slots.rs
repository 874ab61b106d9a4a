//! `indoubt pg slots` on private clusters: retained WAL that grows, thresholds, wal_status lost.

use crate::common;

use common::schema::SlotsReport;
use common::*;

fn slots(url: &str, extra: &[&str]) -> (SlotsReport, Outcome) {
    let mut args = vec!["pg", "slots", "--pg", url];
    args.extend_from_slice(extra);
    report(&args)
}

/// Writes about `mb` MiB of WAL.
fn generate_wal(client: &mut postgres::Client, mb: usize) {
    client
        .batch_execute("CREATE TABLE IF NOT EXISTS filler (id bigserial, payload text)")
        .unwrap();
    client
        .batch_execute(&format!(
            "INSERT INTO filler (payload) SELECT repeat(md5(g::text), 16) FROM generate_series(1, {}) g",
            mb * 2400
        ))
        .unwrap();
}

#[test]
fn an_inactive_slot_retains_more_as_wal_grows_and_thresholds_set_the_exit_code() {
    let cluster = PrivateCluster::start();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("SELECT pg_create_logical_replication_slot('debezium_shop', 'pgoutput')")
        .unwrap();
    let (before, out) = slots(&url, &[]);
    assert_eq!(
        out.code, 0,
        "young and small: OK by default\n{}",
        out.stderr
    );
    let slot = &before.slots[0];
    assert_eq!(
        (
            slot.name.as_str(),
            slot.slot_type.as_str(),
            slot.plugin.as_deref()
        ),
        ("debezium_shop", "logical", Some("pgoutput"))
    );
    assert!(!slot.active && slot.active_pid.is_none());
    assert_eq!(slot.database.as_deref(), Some("postgres"));
    assert_eq!(slot.wal_status.as_deref(), Some("reserved"));
    assert!(slot.catalog_xmin.is_some() && slot.xmin.is_none());
    assert_eq!(
        slot.two_phase,
        Some(false),
        "PG14+ column read on this server"
    );
    assert_eq!(before.max_slot_wal_keep_size_mb, -1);
    assert!(before.pg_wal_bytes.unwrap() > 0, "superuser sees pg_wal");

    generate_wal(&mut admin, 24);
    let (after, _) = slots(&url, &[]);
    let postgres_says: i64 = admin
        .query_one(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint FROM pg_replication_slots WHERE slot_name = 'debezium_shop'",
            &[],
        )
        .unwrap()
        .get(0);
    let (r1, r2) = (
        before.slots[0].retained_bytes.unwrap(),
        after.slots[0].retained_bytes.unwrap(),
    );
    assert!(
        r2 >= r1 + (16 << 20),
        "retention grew by the WAL written: {r1} -> {r2}"
    );
    assert!(
        r2 <= postgres_says,
        "{r2} vs PostgreSQL's own {postgres_says}"
    );

    let code = |extra: &[&str]| run(indoubt().args(["pg", "slots", "--pg", &url]).args(extra)).code;
    assert_eq!(code(&[]), 0, "under 1GiB");
    assert_eq!(code(&["--warning-retained", "1MiB"]), 1);
    assert_eq!(
        code(&["--warning-retained", "1MiB", "--critical-retained", "2MiB"]),
        2
    );
    assert_eq!(
        code(&["--warning-retained", "2GiB", "--critical-retained", "1GiB"]),
        3
    );
    let (report, _) = slots(&url, &["--warning-retained", "1MiB"]);
    let codes: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.severity.as_str()))
        .collect();
    assert!(
        codes.contains(&("slot_retained_wal", "WARNING")),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("max_slot_wal_keep_size_unlimited", "WARNING")),
        "{codes:?}"
    );

    let table = run(indoubt().args(["pg", "slots", "--pg", &url]));
    assert!(
        table.stdout.contains("debezium_shop")
            && table.stdout.contains("max_slot_wal_keep_size: unlimited"),
        "{}",
        table.stdout
    );
}

#[test]
fn a_slot_that_lost_its_wal_is_critical() {
    let cluster = PrivateCluster::start();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'")
        .unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    admin
        .batch_execute("SELECT pg_create_physical_replication_slot('gone_standby', true)")
        .unwrap();
    wait_for("the slot to be invalidated", || {
        generate_wal(&mut admin, 20);
        admin.batch_execute("SELECT pg_switch_wal()").unwrap();
        admin.batch_execute("CHECKPOINT").unwrap();
        let status: Option<String> = admin
            .query_one(
                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'gone_standby'",
                &[],
            )
            .unwrap()
            .get(0);
        status.as_deref() == Some("lost")
    });
    let (report, out) = slots(&url, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(report.max_slot_wal_keep_size_mb, 1);
    let lost = report
        .findings
        .iter()
        .find(|f| f.code == "slot_wal_lost")
        .expect("lost finding");
    assert_eq!(lost.severity, "CRITICAL");
    assert_eq!(lost.subject, "slot gone_standby");
}

#[test]
fn an_unreserved_slot_names_what_it_retains_beyond_the_limit() {
    let cluster = PrivateCluster::start();
    let url = cluster.url("postgres");
    let mut admin = connect(&url);
    admin
        .batch_execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'")
        .unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    admin
        .batch_execute("SELECT pg_create_physical_replication_slot('slow_standby', true)")
        .unwrap();
    // Past the limit, and no checkpoint yet to remove the WAL: unreserved.
    generate_wal(&mut admin, 20);
    admin.batch_execute("SELECT pg_switch_wal()").unwrap();
    let (report, out) = slots(&url, &[]);
    let slot = &report.slots[0];
    assert_eq!(
        slot.wal_status.as_deref(),
        Some("unreserved"),
        "{}",
        out.stderr
    );
    let safe = slot.safe_wal_size.expect("safe_wal_size with a limit set");
    assert!(safe < 0, "past the limit: {safe}");
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == "slot_wal_unreserved")
        .expect("unreserved finding");
    let excess = indoubt::units::format_size(safe.unsigned_abs());
    let total = indoubt::units::format_size(slot.retained_bytes.unwrap() as u64);
    assert_ne!(excess, total);
    assert!(
        finding.message.contains(&format!(
            "retains {excess} beyond max_slot_wal_keep_size ({total} in all)"
        )),
        "{}",
        finding.message
    );
}
