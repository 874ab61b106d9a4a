//! Golden output of `modulith publications` (report::golden): a 2.x registry with a
//! listener that throws (FAILED) past the critical age, one cut off mid-run (PROCESSING),
//! a renamed listener whose successor completes its event, a poison event, completed rows
//! never pruned; and a second registry whose role may not read its table.

use super::*;
use crate::modulith::registry::{Completed, Recent, RecentListener};
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use std::collections::BTreeMap;

const CONFIG: &str = "
postgres:
  shop-db:
    conninfo: host=db-shop-1.prod.example user=monitor dbname=shop
mysql:
  billing-db:
    url: mysql://monitor@db-billing-1.prod.example:3306/billing
modulith:
  billing:
    mysql: billing-db
  shop:
    postgres: shop-db
    check: true
";

const EVENT: &str = "com.example.orders.OrderPlaced";

fn listener(id: &str, n: i64, oldest: i64, by: &[(&str, i64)], attempts: i64) -> Listener {
    Listener {
        listener_id: id.into(),
        event_types: vec![EVENT.into()],
        incomplete: n,
        oldest: Some(ago(oldest)),
        newest: Some(ago(oldest - 60)),
        past_age: n,
        by_status: Some(by.iter().map(|(s, n)| (s.to_string(), *n)).collect()),
        max_attempts: Some(attempts),
        last_completion: None,
        oldest_ids: vec![
            "0c9d6f3e-5b1a-4e8f-9d2c-7a1b3c4d5e6f".into(),
            "5e2f7a90-1c3d-4b5e-8f6a-9b0c1d2e3f40".into(),
        ],
    }
}

fn recent(first: i64, last: i64) -> RecentListener {
    RecentListener {
        last_completion: ago(last),
        event_type: EVENT.into(),
        first_published: ago(first),
        last_published: ago(last + 1),
    }
}

fn snapshot() -> Snapshot {
    let shipping = "com.example.shipping.Shipping.on(com.example.orders.OrderPlaced)";
    let invoicing = "com.example.billing.Invoicing.on(com.example.orders.OrderPlaced)";
    let packing = "com.example.packing.Packing.on(com.example.orders.OrderPlaced)";
    let mailer = "com.example.mail.Mailer.on(com.example.orders.OrderPlaced)";
    let notifier = "com.example.mail.Notifier.on(com.example.orders.OrderPlaced)";
    let mut invoicing_l = listener(invoicing, 214, 2 * 3600, &[("FAILED", 214)], 2);
    invoicing_l.newest = Some(ago(40));
    invoicing_l.last_completion = Some(ago(2 * 3600 + 300));
    let mut packing_l = listener(packing, 1, 20 * 60, &[("PROCESSING", 1)], 1);
    // One of them dated two hours ahead of the database's clock.
    packing_l.newest = Some(ago(-2 * 3600));
    packing_l.last_completion = Some(ago(10));
    let mailer_l = listener(mailer, 3, 26 * 3600, &[("FAILED", 3)], 1);
    let mut poison = listener(
        "com.example.stock.Stock.on(com.example.orders.OrderPlaced)",
        1,
        9 * 60,
        &[("RESUBMITTED", 1)],
        5,
    );
    poison.newest = Some(ago(20));
    poison.last_completion = Some(ago(15));
    let by_listener: BTreeMap<String, RecentListener> = [
        (shipping, recent(30 * 86400, 5)),
        (notifier, recent(25 * 3600, 8)),
        (packing, recent(30 * 86400, 10)),
        (invoicing, recent(30 * 86400, 2 * 3600 + 300)),
        (
            "com.example.stock.Stock.on(com.example.orders.OrderPlaced)",
            recent(30 * 86400, 15),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Snapshot {
        layout: Layout::V2,
        now: fixed_now(),
        listeners: vec![mailer_l, invoicing_l, packing_l, poison],
        incomplete_total: 219,
        recent: Recent {
            rows: RECENT,
            since: Some(ago(31 * 86400)),
            by_listener,
        },
        completed: Completed {
            estimated_rows: Some(41_200_000),
            bytes: Some(23_622_320_128),
            oldest: Some(ago(410 * 86400)),
            past_retention: COUNT_CAP + 1,
        },
    }
}

fn report() -> Report<ModulithReport> {
    let settings: ModulithSettings = golden::probe_settings(CONFIG, &["modulith", "publications"]);
    // In the config's order (by name): billing, then shop.
    let reads = vec![
        Read::Problems(vec![Problem::NotReadable {
            table: "EVENT_PUBLICATION".into(),
        }]),
        Read::Snapshot(snapshot()),
    ];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn modulith_publications() {
    let report = report();
    // What it measures: the incomplete publications, the oldest's age, the unpruned.
    let measured = ModulithPublications::measures(&report.data);
    let snapshot = report
        .data
        .registries
        .iter()
        .find_map(|r| r.snapshot.as_ref())
        .unwrap();
    assert_eq!(measured[0].value, snapshot.incomplete_total as f64);
    assert!(
        measured[0].value > 0.0 && measured[1].value > 0.0,
        "{measured:?}"
    );
    assert_eq!(measured[2].value, snapshot.completed.past_retention as f64);
    let codes: Vec<(&str, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.code.name(), f.severity))
        .collect();
    assert_eq!(
        codes,
        [
            ("modulith_unreadable", Severity::Unknown),
            ("modulith_listener_gone", Severity::Critical),
            ("modulith_incomplete", Severity::Critical),
            ("modulith_incomplete", Severity::Warning),
            ("modulith_incomplete", Severity::Warning),
            ("modulith_poison", Severity::Critical),
            ("modulith_unpruned", Severity::Warning),
        ],
        "Mailer's rows stopped 26 h ago and Notifier appeared after: gone; Invoicing fails for 2 h (still getting publications: not gone); Packing was cut off 20 min ago, and one of its rows is dated 2 h ahead; Stock went around 5 times"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts
            .iter()
            .any(|n| n.contains("GRANT SELECT ON `billing`.`EVENT_PUBLICATION` TO 'monitor'@'%';")),
        "{nexts:?}"
    );
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> =
        vec!["com.example.billing.Invoicing.on(com.example.orders.OrderPlaced)".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("modulith_publications", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "modulith_publications__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
