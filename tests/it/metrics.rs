//! `check -o prometheus` (and `serve`, which exposes the same): the measured families —
//! values in base units, labelled by stable objects — of a prepared transaction and a
//! hand-written saga made by the test, beside the Nagios-minded series; `promtool check
//! metrics` accepts the whole exposition.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::*;

/// The value of the one sample of `series` (its name and labels as exposed).
pub(crate) fn value(exposition: &str, series: &str) -> f64 {
    exposition
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {series} in:\n{exposition}"))
        .parse()
        .unwrap()
}

#[test]
fn check_exposes_measured_values_with_bounded_labels_that_promtool_accepts() {
    let db = TestDb::create("metrics");
    db.admin()
        .batch_execute(&crate::saga::fixture("postgres.sql"))
        .unwrap();
    let gid = unique("metrics_gid");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (id int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let saga = unique("metricsaga");
    let target = unique("metricspg");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  {target}:\n    conninfo: {}\n{}",
            db.url(),
            crate::saga::saga_yaml(&saga, &format!("postgres: {}", db.url()), "public")
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["-o", "prometheus", "--config"])
        .arg(&config)
        .args(["check", "--only", "pg,saga"]));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let e = &out.stdout;
    // The prepared transaction: counted, and the oldest few by GID in its database.
    assert!(
        value(
            e,
            &format!("indoubt_pg_prepared_transactions{{target=\"{target}\"}}")
        ) >= 1.0
    );
    assert!(
        value(
            e,
            &format!(
                "indoubt_pg_prepared_database_transactions{{target=\"{target}\",database=\"{}\"}}",
                db.name
            )
        ) == 1.0
    );
    assert!(
        value(
            e,
            &format!("indoubt_pg_prepared_oldest_age_xids{{target=\"{target}\"}}")
        ) >= 0.0
    );
    // The horizon: the few databases held back most (its own among the server's, held by
    // it or by an older holder other tests made), each with the holder's kind.
    let held: Vec<&str> = e
        .lines()
        .filter(|l| {
            l.starts_with(&format!(
                "indoubt_pg_horizon_held_age_xids{{target=\"{target}\","
            )) && l.contains("relation=\"tables\"")
        })
        .collect();
    assert!((1..=5).contains(&held.len()), "{held:#?}");
    for line in &held {
        let kind = line
            .split("holder_kind=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(
            [
                "session",
                "idle_in_transaction",
                "prepared",
                "slot_xmin",
                "slot_catalog_xmin",
                "standby_feedback",
                "none"
            ]
            .contains(&kind),
            "{line}"
        );
    }
    assert!(
        !held[0].contains("holder_kind=\"none\""),
        "the database held back most is held (by its prepared transaction, at least): {held:#?}"
    );
    // The saga: its stuck instances by why, its orphaned seats, its queue.
    let stuck = |reason: &str| {
        value(
            e,
            &format!("indoubt_saga_stuck_instances{{target=\"{saga}\",reason=\"{reason}\"}}"),
        )
    };
    assert_eq!(stuck("needs_human"), 3.0, "4701, 4702 and 4706");
    assert_eq!(stuck("outcome_unknown"), 1.0);
    assert_eq!(stuck("stalled"), 1.0);
    assert_eq!(stuck("overdue"), 1.0);
    assert_eq!(
        value(
            e,
            &format!("indoubt_saga_orphaned_locks{{target=\"{saga}\",table=\"public.seats\"}}")
        ),
        3.0
    );
    assert_eq!(
        value(
            e,
            &format!("indoubt_saga_manual_queue_open_items{{target=\"{saga}\"}}")
        ),
        2.0
    );
    assert!(
        value(
            e,
            &format!("indoubt_saga_oldest_stuck_idle_seconds{{target=\"{saga}\"}}")
        ) >= 3.0 * 3600.0
    );
    // Who exposed it, and whether each check could read its target.
    assert!(e.contains(&format!(
        "indoubt_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    )));
    assert_eq!(
        value(
            e,
            &format!("indoubt_target_up{{target=\"{saga}\",check=\"saga\"}}")
        ),
        1.0
    );
    // No label holds a value with a space (free text), the findings' series included.
    for line in e.lines().filter(|l| !l.starts_with('#') && l.contains('{')) {
        let labels = &line[line.find('{').unwrap()..line.rfind('}').unwrap()];
        assert!(!labels.contains(' '), "free text in a label: {line}");
    }
    promtool_accepts(e);
}
