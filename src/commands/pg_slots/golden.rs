//! Golden output of `pg slots` (report::golden): an inactive Debezium slot of 63
//! characters (PostgreSQL's longest name) retaining WAL with an old catalog_xmin, a
//! lost slot, an unreserved physical one, an active healthy one, with unlimited
//! max_slot_wal_keep_size.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;

const LONG: &str = "debezium_orders_eu_west_1_inventory_connector_prod_cdc_slot_042";

fn slot(name: &str, logical: bool) -> Slot {
    Slot {
        name: name.into(),
        plugin: logical.then(|| "pgoutput".into()),
        slot_type: if logical { "logical" } else { "physical" }.into(),
        database: logical.then(|| "orders".into()),
        temporary: false,
        active: false,
        active_pid: None,
        xmin: None,
        xmin_age: None,
        catalog_xmin: None,
        catalog_xmin_age: None,
        restart_lsn: Some("2F/9A000028".into()),
        confirmed_flush_lsn: logical.then(|| "2F/9A0001B0".into()),
        wal_status: Some("extended".into()),
        safe_wal_size: None,
        retained_bytes: Some(0),
        two_phase: logical.then_some(false),
        conflicting: logical.then_some(false),
        invalidation_reason: None,
        inactive_since: Some(ago(3 * 86_400)),
        failover: Some(false),
        synced: Some(false),
    }
}

pub(crate) fn snapshot() -> SlotsSnapshot {
    let mut stuck = slot(LONG, true);
    stuck.retained_bytes = Some(37 * 1024 * 1024 * 1024);
    stuck.catalog_xmin = Some(771_100);
    stuck.catalog_xmin_age = Some(412_000_000);
    let mut lost = slot("airbyte_analytics", true);
    lost.wal_status = Some("lost".into());
    lost.restart_lsn = None;
    lost.invalidation_reason = Some("wal_removed".into());
    lost.retained_bytes = None;
    let mut unreserved = slot("standby_eu_west_2", false);
    unreserved.wal_status = Some("unreserved".into());
    unreserved.safe_wal_size = Some(-3 * 1024 * 1024 * 1024);
    unreserved.retained_bytes = Some(2 * 1024 * 1024 * 1024);
    unreserved.xmin = Some(771_800);
    unreserved.xmin_age = Some(1_200);
    let mut healthy = slot("standby_eu_west_1", false);
    healthy.active = true;
    healthy.active_pid = Some(3_301);
    healthy.retained_bytes = Some(16 * 1024 * 1024);
    healthy.inactive_since = None;
    SlotsSnapshot {
        server_time: fixed_now(),
        in_recovery: false,
        max_slot_wal_keep_size_mb: -1,
        pg_wal_bytes: Some(41 * 1024 * 1024 * 1024),
        pg_wal_files: Some(2_624),
        slots: vec![stuck, lost, unreserved, healthy],
        visibility_gaps: Vec::new(),
    }
}

pub(crate) fn report(ctx: &Context) -> Report<SlotsReport> {
    report_of(ctx, snapshot())
}

fn report_of(_ctx: &Context, snapshot: SlotsSnapshot) -> Report<SlotsReport> {
    let s: SlotsSettings =
        golden::probe_settings(golden::CONFIG, &["pg", "slots", "--pg", "prod-orders"]);
    let thresholds = Thresholds {
        warning_retained_bytes: s.retained.0,
        critical_retained_bytes: s.retained.1,
        warning_xids: s.xids.0,
        critical_xids: s.xids.1,
    };
    let findings = assess(&snapshot, thresholds, "target prod-orders");
    let target = crate::report::Target {
        name: Some("prod-orders".into()),
        kind: "postgres".into(),
        address: "monitor@db-orders-1.prod.example:5432/postgres".into(),
    };
    let mut report = Report::new(
        "pg slots",
        target,
        findings,
        SlotsReport::new(thresholds, snapshot),
    );
    report.generated_at = fixed_now();
    report
}

#[test]
fn pg_slots() {
    let ctx = golden::context();
    let report = report(&ctx);
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts.iter().any(|n| n.contains(LONG))
            && nexts.iter().any(|n| n.contains("airbyte_analytics")),
        "{nexts:?}"
    );
    let mut whole: Vec<String> = [
        LONG,
        "airbyte_analytics",
        "standby_eu_west_2",
        "standby_eu_west_1",
    ]
    .map(String::from)
    .to_vec();
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let may_overflow = next_words.iter().map(String::as_str).collect();
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_slots", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// Names that fit: a grid at 120 columns (at 80, eight columns still cannot).
#[test]
fn pg_slots_grid() {
    let ctx = golden::context();
    let mut snapshot = snapshot();
    snapshot.slots[0].name = "debezium_orders".into();
    let report = report_of(&ctx, snapshot);
    let nexts = golden::nexts(&report.findings);
    let mut whole: Vec<String> = vec!["debezium_orders".into(), "pid 3301".into()];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let may_overflow = next_words.iter().map(String::as_str).collect();
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_slots_grid", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
