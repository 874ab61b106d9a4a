//! Golden output of `reconcile` (report::golden): a job whose window lost messages to
//! retention, with missing ids (long ones, one holding an escape sequence), duplicates,
//! an id the database lacks, unparseable messages and rows not judged past a stuck LSO;
//! its findings through `assess`, the next command from `ids_out_next`.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;

const JOB: &str = "orders_events";
const TOPIC: &str = "prod.eu-west-1.orders.order-events.v1";
/// A missing id wider than the IDS column has room for at 80 columns.
const LONG_ID: &str = "order-2026-12-01T02:47:11.813Z-eu-west-1-checkout-7f3a9c2e41d84b6f";
/// A missing id holding an escape sequence: shown escaped, never sent to the terminal.
const ESCAPED_ID: &str = "ord-\u{1b}[2J-0042";

/// The fixture config with one reconcile job on its targets.
fn config() -> String {
    format!(
        "{}reconcile:\n  {JOB}:\n    postgres: prod-orders\n    kafka: prod-events\n    topic: {TOPIC}\n    query: SELECT id::text, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n",
        golden::CONFIG
    )
}

fn settings() -> ReconcileSettings {
    golden::probe_settings(&config(), &["reconcile", JOB])
}

fn data(show: usize) -> ReconcileReport {
    let since = ago(3 * 3600);
    let until = ago(0);
    let compared_from = ago(3 * 3600 - 1800);
    let mut retained = BTreeMap::new();
    retained.insert(4, ago(3 * 3600 - 1800 + 60));
    let missing: Vec<String> = vec![
        LONG_ID.into(),
        "4711".into(),
        ESCAPED_ID.into(),
        "4790".into(),
        "4791".into(),
        "4802".into(),
        "4803".into(),
    ];
    let not_judged: Vec<String> = vec!["5120".into(), "5121".into(), "5122".into()];
    let extra: Vec<String> = vec!["9000017".into()];
    let duplicated = vec![
        Duplicate {
            id: "4512".into(),
            count: 2,
        },
        Duplicate {
            id: "4519".into(),
            count: 3,
        },
    ];
    let unparseable = vec![
        Unparseable {
            partition: 2,
            offset: 118_204,
            why: "no field \"order_id\" in the JSON value".into(),
        },
        Unparseable {
            partition: 7,
            offset: 99_012,
            why: "the value is not JSON: expected value at line 1 column 1".into(),
        },
    ];
    ReconcileReport {
        job: Some(JOB.into()),
        topic: TOPIC.into(),
        since,
        compared_from,
        retained: Retained {
            partitions: retained,
            emptied: Vec::new(),
            unbounded: Vec::new(),
            retention_ms: Some(3 * 3_600_000),
            cleanup_policy: Some("delete".into()),
        },
        lso_bounds: vec![Unstable {
            partition: 5,
            last_stable_offset: 80_311,
            high_watermark: 80_342,
            producer_id: Some(1_004_211),
            producer_epoch: Some(17),
            first_unstable_at_ms: Some(ago(2 * 3600 + 120).timestamp_millis()),
            messages_past_lso: 31,
        }],
        until,
        settle_seconds: 60,
        count_only: false,
        database_rows: 48_213,
        topic_messages: 48_207,
        partitions: 12,
        matched: 48_196,
        missing_count: missing.len(),
        pending_count: 4,
        not_judged_count: not_judged.len(),
        extra_count: extra.len(),
        duplicated_count: duplicated.len(),
        unparseable_count: unparseable.len(),
        missing,
        read_to: BTreeMap::new(),
        oldest_missing_age_seconds: Some(7_260.0),
        pending: vec!["5201".into(), "5202".into(), "5203".into(), "5204".into()],
        not_judged,
        extra,
        duplicated,
        unparseable,
        memory_bytes: 512 << 20,
        spilled_bytes: 0,
        show,
    }
}

fn report() -> Report<ReconcileReport> {
    let ctx = golden::context();
    let s = settings();
    assert!(s.job_as_configured, "the job runs as the config has it");
    let data = data(s.show);
    let next = nexts(&ctx, &s, &data);
    assert!(
        next.ids_out.is_some() && next.republish.is_none(),
        "a job run as configured has an --ids-out next, and no republish one without a republish: query"
    );
    let findings = assess(&data, &next);
    let target = Target {
        name: Some("prod-orders".into()),
        kind: "reconcile".into(),
        address: format!(
            "db-orders-1.prod.example:5432/postgres ⇄ kafka-1.prod.example:9093 topic {TOPIC}"
        ),
    };
    let mut report = Report::new("reconcile", target, findings, data);
    report.generated_at = fixed_now();
    report
}

#[test]
fn reconcile() {
    let report = report();
    let nexts = golden::nexts(&report.findings);
    assert_eq!(
        nexts.len(),
        2,
        "missing and extra ids name the --ids-out run"
    );
    let mut whole = vec![
        LONG_ID.to_string(),
        "ord-\\u{1b}[2J-0042".into(),
        format!("{TOPIC}-5"),
        format!("kafka lso --topic {TOPIC}"),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    may_overflow.push(LONG_ID);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("reconcile", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
