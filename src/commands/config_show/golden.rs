//! Golden output of `config show` (report::golden): every section of a production-like
//! config, one threshold overridden, long names and a SASL_SSL cluster; its settings
//! table must be a grid at 80 columns.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;

const CONFIG: &str = "\
postgres:
  prod-orders:
    conninfo: postgres://monitor@db-orders-1.prod.example:5432/postgres?sslmode=verify-full
  prod-payments:
    conninfo: host=db-payments-1.prod.example port=5433 user=monitor dbname=payments
kafka:
  prod-events:
    bootstrap_servers: kafka-1.prod.example:9093,kafka-2.prod.example:9093
    properties:
      security.protocol: SASL_SSL
      sasl.mechanism: SCRAM-SHA-512
      sasl.username: indoubt
      sasl.password: hunter2
    check_topic_regex: '^(orders|payments)\\.'
thresholds:
  prepared:
    warning_age: 2m
reconcile:
  orders-to-events:
    postgres: prod-orders
    query: SELECT id::text, created_at FROM orders WHERE created_at >= $1 AND created_at < $2
    kafka: prod-events
    topic: orders.order-events.v1
    id_from: json:/payload/after/id
    since: 1h
    check: true
outbox:
  orders-outbox:
    postgres: prod-orders
    table: public.outbox_events
    check: true
inbox:
  payments-inbox:
    postgres: prod-payments
    table: public.inbox_messages
audit:
  path: /var/lib/indoubt/audit.jsonl
resolve:
  decision_sources:
    - name: narayana-orders
      kind: narayana_object_store
      path: /var/lib/narayana/ObjectStore
      coordinator: orders-service-node-eu-west
  participants: [prod-payments]
";

#[test]
fn config_show() {
    let s = match golden::settings(CONFIG, &["config", "show"]) {
        crate::settings::CommandSettings::ConfigShow(s) => s,
        _ => unreachable!("resolved as config show"),
    };
    let mut report = build(&s).unwrap_or_else(|e| panic!("{e:#}"));
    report.generated_at = fixed_now();
    let text = table::render(
        &report,
        &golden::style(crate::report::layout::Frame::Plain, 80, false),
    )
    .into_string();
    assert!(
        !text.contains("hunter2"),
        "a password is never shown:\n{text}"
    );
    let whole: Vec<String> = [
        "monitor@db-orders-1.prod.example:5432/postgres",
        "kafka-2.prod.example:9093",
        "orders.order-events.v1",
        "json:/payload/after/id",
        "public.outbox_events",
        "/var/lib/indoubt/audit.jsonl",
        "thresholds.prepared.warning_age",
    ]
    .map(String::from)
    .to_vec();
    let expect = Expect {
        whole,
        may_overflow: Vec::new(),
    };
    golden::pin("config_show", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
