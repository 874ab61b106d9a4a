//! Golden output of `pg outbox` (report::golden): an outbox with a backlog past its
//! critical age whose id cursor skipped rows, one with a small backlog and growth since
//! the previous check, one the server refused to read, and an inbox; the findings through
//! `outbox_findings`, `inbox_findings` and `unreadable`, as a run judges them.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;

/// A schema-qualified table wider than its column has room for at 80 columns.
const ORDERS_TABLE: &str = "orders_service.transactional_outbox_order_events_v2";

fn config() -> String {
    format!(
        "{}outbox:\n  orders:\n    postgres: prod-orders\n    table: {ORDERS_TABLE}\n    id_column: event_seq\n    created_at_column: created_at\n    published_at_column: relayed_at\n    settle: 5m\n    warning_age: 15m\n    critical_age: 1h\n    publish:\n      kafka: prod-events\n      topic: orders.events\n  billing:\n    postgres: prod-orders\n    table: billing.outbox\n  payments:\n    postgres: prod-orders\n    table: payments.outbox\ninbox:\n  shipments:\n    postgres: prod-orders\n    table: shipments.inbox\n    created_at_column: received_at\n    retention: 7d\n    producer_retry_horizon: 14d\n",
        golden::CONFIG
    )
}

fn settings() -> OutboxSettings {
    golden::probe_settings(&config(), &["pg", "outbox"])
}

fn state(rows: i64, unpublished: i64, oldest: i64, skipped: &[&str]) -> OutboxState {
    OutboxState {
        rows,
        unpublished,
        oldest_unpublished_at: (unpublished > 0).then(|| ago(oldest)),
        oldest_unpublished_seconds: (unpublished > 0).then_some(oldest as f64),
        max_published_id: Some("18446744".into()),
        skipped: skipped.len() as i64,
        skipped_ids: skipped.iter().map(|s| s.to_string()).collect(),
        published_past_retention: 0,
        oldest_published_seconds: Some(oldest as f64),
        bytes: Some(rows * 900),
    }
}

/// An outbox's findings as the run's loop marks them: all about that outbox.
fn owned(o: &Outbox, mut findings: Vec<Finding>) -> Vec<Finding> {
    for f in &mut findings {
        f.object = Some(Object::new(ObjectKind::Outbox, o.name.as_str()));
    }
    findings
}

fn report() -> Report<OutboxReport> {
    let s = settings();
    let by_name = |name: &str| match s.outboxes.iter().find(|o| o.name == name) {
        Some(o) => o,
        None => panic!("the fixture config has outbox {name}"),
    };
    let mut findings = Vec::new();
    let mut outboxes = Vec::new();
    // The orders relay polls by id: three rows it passed over, two hours behind.
    let orders = by_name("orders");
    let orders_state = state(
        1_204_877,
        412,
        2 * 3600 + 17 * 60,
        &["18446601", "18446602", "18446655"],
    );
    let invocation = golden::context().invocation;
    findings.extend(owned(
        orders,
        outbox_findings(orders, &orders_state, None, &invocation),
    ));
    outboxes.push(OutboxEntry {
        name: orders.name.clone(),
        table: orders.table.clone(),
        state: Some(orders_state),
        growth_since_last_check: None,
        last_check_at: None,
    });
    let billing = by_name("billing");
    // Billing's relay keeps up, but nothing deletes what it published.
    let mut billing_state = state(88_310, 37, 9 * 60, &[]);
    billing_state.published_past_retention = 61_020;
    billing_state.oldest_published_seconds = Some(86_400.0 * 30.0);
    let growth = Growth {
        rows: 29,
        since: ago(5 * 60),
    };
    findings.extend(owned(
        billing,
        outbox_findings(billing, &billing_state, Some(growth), &invocation),
    ));
    outboxes.push(OutboxEntry {
        name: billing.name.clone(),
        table: billing.table.clone(),
        state: Some(billing_state),
        growth_since_last_check: Some(growth.rows),
        last_check_at: Some(growth.since),
    });
    let payments = by_name("payments");
    let refused = anyhow::anyhow!("ERROR: permission denied for table outbox (SQLSTATE 42501)")
        .context("reading outbox payments.outbox");
    findings.extend(owned(
        payments,
        vec![unreadable(
            codes::OUTBOX_UNREADABLE,
            format!("outbox {} ({})", payments.name, payments.table),
            &refused,
        )],
    ));
    outboxes.push(OutboxEntry {
        name: payments.name.clone(),
        table: payments.table.clone(),
        state: None,
        growth_since_last_check: None,
        last_check_at: None,
    });
    let inbox = &s.inboxes[0];
    let inbox_state = InboxState {
        rows: 5_310_442,
        oldest_at: Some(ago(86_400 * 41)),
        oldest_seconds: Some(86_400.0 * 41.0),
        past_retention: 4_102_331,
        bytes: Some(1_310_720_000),
    };
    let inbox_growth = Growth {
        rows: 1_877,
        since: ago(60),
    };
    findings.extend(inbox_findings(
        inbox,
        format!("inbox {} ({})", inbox.name, inbox.table),
        &inbox_state,
        Some(inbox_growth),
    ));
    let inboxes = vec![InboxEntry {
        name: inbox.name.clone(),
        table: inbox.table.clone(),
        state: Some(inbox_state),
        growth_since_last_check: Some(inbox_growth.rows),
    }];
    let target = Target {
        name: None,
        kind: "outbox".into(),
        address: "/etc/indoubt/prod.yaml".into(),
    };
    let mut report = Report::new(
        "pg outbox",
        target,
        findings,
        OutboxReport { outboxes, inboxes },
    );
    report.generated_at = fixed_now();
    report
}

#[test]
fn pg_outbox() {
    let report = report();
    let nexts = golden::nexts(&report.findings);
    assert_eq!(
        nexts.len(),
        3,
        "the skipped rows and both backlogs name a SELECT"
    );
    let mut whole = vec![
        ORDERS_TABLE.to_string(),
        "18446601".into(),
        "payments.outbox".into(),
        "(SQLSTATE 42501)".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.push(ORDERS_TABLE);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_outbox", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
