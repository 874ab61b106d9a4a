//! Golden output of `pg horizon` (report::golden): the 63-char slot's catalog_xmin
//! holding every database's catalogs, the Narayana prepared transaction of the `pg
//! prepared` fixture holding its database's tables, an idle-in-transaction session holding
//! another database's, standby feedback behind them all, and a database near wraparound.

use super::*;
use crate::pg::horizon::{DeadTuples, Pins, Settings};
use crate::pg::{Gap, Grant};
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::settings::pg::HorizonSettings;
use crate::text::RawText;

const SLOT: &str = "debezium_orders_eu_west_1_inventory_connector_prod_cdc_slot_042";

fn settings() -> HorizonSettings {
    golden::probe_settings(golden::CONFIG, &["pg", "horizon", "--pg", "prod-orders"])
}

fn holder(kind: &str, id: &str, pins: Pins, age_seconds: Option<f64>, age_xids: i32) -> Holder {
    Holder {
        kind: kind.into(),
        id: id.into(),
        database: Some("orders".into()),
        pins,
        user: Some("app_orders".into()),
        application: Some("orders-api".into()),
        client: Some("10.0.1.23".into()),
        state: None,
        backend_type: Some("client backend".into()),
        since: age_seconds.map(|s| ago(s as i64)),
        query_start: None,
        query: None,
        xid: None,
        xmin: Some(2_000_000_000 - i64::from(age_xids)),
        held_xid: Some(2_000_000_000 - i64::from(age_xids)),
        age_xids: Some(age_xids),
        age_seconds,
    }
}

pub(crate) fn snapshot() -> HorizonSnapshot {
    let gid = golden::narayana_gid();
    let prepared = holder(
        "prepared",
        &gid,
        Pins::OwnDatabase,
        Some(18_720.0),
        1_204_331,
    );
    let mut idle = holder(
        "idle_in_transaction",
        "48112",
        Pins::OwnDatabase,
        Some(5_400.0),
        990_002,
    );
    idle.state = Some("idle in transaction".into());
    idle.database = Some(RawText::from(b"l\xe4ger".to_vec()));
    idle.query_start = Some(ago(5_390));
    idle.query = Some("SELECT * FROM orders WHERE customer_id = $1 FOR UPDATE".into());
    let mut slot = holder(
        "slot_catalog_xmin",
        SLOT,
        Pins::CatalogsOfAllDatabases,
        None,
        412_000_000,
    );
    slot.database = Some("orders".into());
    slot.application = Some("logical".into());
    slot.user = None;
    slot.client = None;
    slot.backend_type = None;
    let mut standby = holder(
        "standby_feedback",
        "3301",
        Pins::AllDatabases,
        Some(600.0),
        2_000,
    );
    standby.application = Some("standby_eu_west_1".into());
    standby.database = None;
    HorizonSnapshot {
        server_time: fixed_now(),
        in_recovery: false,
        settings: Settings {
            autovacuum_freeze_max_age: 200_000_000,
            autovacuum_multixact_freeze_max_age: 400_000_000,
            vacuum_failsafe_age: Some(1_600_000_000),
            vacuum_multixact_failsafe_age: Some(1_600_000_000),
            stop_margin_xids: 3_000_000,
            hot_standby_feedback: false,
        },
        // Ranked by age in xids, as the server sorts them: the slot first.
        holders: vec![slot, prepared, idle, standby],
        databases: vec![
            DatabaseAge {
                database: "orders".into(),
                allows_connections: true,
                datfrozenxid_age: 1_350_000_000,
                datminmxid_age: 12_000_000,
                xids_left: 797_483_647,
                percent_of_autovacuum_freeze_max_age: 675.0,
                failsafe_reached: Some(false),
                dead_tuples: vec![DeadTuples {
                    table: "public.order_lines".into(),
                    n_dead_tup: 48_000_000,
                    n_live_tup: 9_000_000,
                    last_vacuum: None,
                    last_autovacuum: Some(ago(86_400 * 2)),
                }],
            },
            DatabaseAge {
                database: RawText::from(b"l\xe4ger".to_vec()),
                allows_connections: true,
                datfrozenxid_age: 150_000_000,
                datminmxid_age: 1_000,
                xids_left: 1_997_483_647,
                percent_of_autovacuum_freeze_max_age: 75.0,
                failsafe_reached: Some(false),
                dead_tuples: Vec::new(),
            },
        ],
        visibility_gaps: vec![Gap::MissingPrivilege {
            what: "database \"analytics\" not read".into(),
            grant: Grant::Connect("analytics".into()),
        }],
    }
}

pub(crate) fn report(_ctx: &Context) -> Report<HorizonReport> {
    let mut report = report_of(&settings(), snapshot());
    report.generated_at = fixed_now();
    report
}

#[test]
fn pg_horizon() {
    let ctx = golden::context();
    let report = report(&ctx);
    let nexts = golden::nexts(&report.findings);
    assert!(nexts.len() >= 3, "{nexts:?}");
    let narayana = golden::narayana_gid();
    let mut whole = vec![
        narayana.clone(),
        SLOT.into(),
        "48112".into(),
        "l\\xe4ger".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.push(&narayana);
    // In the VACUUM WAITS FOR column of the box layout, kept whole beside the database.
    may_overflow.push(SLOT);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_horizon", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// A server of many databases gives series for the few oldest only: the one nearest
/// wraparound always among them.
#[test]
fn measures_name_only_the_oldest_databases() {
    use crate::settings::probe::Inspect;
    let mut snapshot = snapshot();
    let template = snapshot.databases[1].clone();
    for i in 0..40 {
        let mut d = template.clone();
        d.database = format!("tenant_{i:02}").into();
        d.datfrozenxid_age = 1_000 + i;
        snapshot.databases.push(d);
    }
    let report = report_of(&settings(), snapshot);
    let measures = PgHorizon::measures(&report.data);
    let ages: Vec<(String, f64)> = measures
        .iter()
        .filter(|m| m.family == "indoubt_pg_wraparound_datfrozenxid_age_xids")
        .map(|m| (m.labels[0].1.clone(), m.value))
        .collect();
    assert_eq!(ages.len(), crate::metrics::PER_OBJECT, "{ages:?}");
    assert_eq!(ages[0], ("orders".to_string(), 1_350_000_000.0));
    assert_eq!(ages[1], ("l\\xe4ger".to_string(), 150_000_000.0));
    assert_eq!(ages[2].0, "tenant_39");
    for relation in ["tables", "catalogs"] {
        let held = measures
            .iter()
            .filter(|m| m.family == "indoubt_pg_horizon_held_age_xids")
            .filter(|m| m.labels.contains(&("relation", relation.to_string())))
            .count();
        assert!(held <= crate::metrics::PER_OBJECT, "{relation}: {held}");
    }
}
