//! Golden output of `saga` (report::golden): an order saga with a failed instance nobody
//! was told of, one a person has, one at its attempts, a payment outcome unknown, one
//! stalled past the pivot, one overdue before it, one retrying since the previous run,
//! an unlisted state, seats held for a compensated and a missing saga, a manual queue with
//! an item whose saga has finished, and a large table read whole; a second saga whose
//! updated_at is kept as epoch milliseconds.

use super::*;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::saga::read::{LockState, QueueState, Scan, StateCount};

const CONFIG: &str = "
postgres:
  shop:
    conninfo: host=db-shop-1.prod.example user=monitor dbname=shop
sagas:
  order_saga:
    postgres: shop
    table: public.order_saga
    started_at: created_at
    attempts: attempts
    step: step
    states:
      running: [STARTED, SEATS_HELD, PAID, SHIPPED]
      done: [COMPLETED, COMPENSATED]
      failed: [FAILED]
      compensating: [COMPENSATING]
      unknown: [PAYMENT_UNKNOWN]
    pivot: SHIPPED
    deadline: 30m
    max_attempts: 10
    context: \"order {order_id}: refund {amount} {currency}\"
    manual_queue:
      table: public.saga_manual_intervention
      resolved_at: resolved_at
    locks:
      - table: public.seats
        held: [HELD]
        released: AVAILABLE
        version: version
  refund_saga:
    postgres: shop
    table: public.refund_saga
    states:
      running: [STARTED]
      done: [DONE]
";

fn row(id: &str, state: &str, step: &str, attempts: i64, idle: f64, age: f64) -> SagaRow {
    SagaRow {
        id: id.into(),
        state: state.into(),
        step: Some(step.into()),
        attempts: Some(attempts),
        idle_seconds: idle,
        age_seconds: Some(age),
        queue_open: 0,
        queue_items: 0,
        queued_seconds: None,
        context: vec![Some(id.into()), Some("90.00".into()), Some("EUR".into())],
    }
}

fn snapshot() -> Snapshot {
    let mut queued = row("4706", "FAILED", "PAID", 4, 3.0 * 3600.0, 4.0 * 3600.0);
    queued.queue_open = 1;
    queued.queue_items = 1;
    queued.queued_seconds = Some(170.0 * 60.0);
    Snapshot {
        by_state: vec![
            StateCount {
                state: "FAILED".into(),
                count: 2,
                oldest_update_seconds: Some(3.0 * 3600.0),
            },
            StateCount {
                state: "SEATS_HELD".into(),
                count: 41,
                oldest_update_seconds: Some(60.0),
            },
            StateCount {
                state: "REFUND_PENDING".into(),
                count: 3,
                oldest_update_seconds: Some(7200.0),
            },
        ],
        stuck: vec![
            queued,
            row("4701", "FAILED", "PAID", 3, 7200.0, 3.0 * 3600.0),
            row("4703", "PAYMENT_UNKNOWN", "PAID", 1, 2400.0, 3300.0),
            row("4704", "SHIPPED", "SHIPPED", 1, 1200.0, 1500.0),
            row("4702", "COMPENSATING", "SEATS_HELD", 10, 300.0, 3000.0),
            row("4705", "SEATS_HELD", "SEATS_HELD", 2, 60.0, 2700.0),
        ],
        stuck_more: false,
        attempts: vec![("4702".into(), 10), ("4710".into(), 7)],
        queue: Some(QueueState {
            open: 2,
            oldest_open_seconds: Some(250.0 * 60.0),
            finished: vec![("4650".into(), "COMPLETED".into(), Some(250.0 * 60.0))],
            finished_count: 1,
        }),
        locks: vec![LockState {
            table: "public.seats".into(),
            held: 212,
            orphaned: vec![
                Held {
                    id: "17".into(),
                    saga_id: Some("4690".into()),
                    saga_state: Some("COMPENSATED".into()),
                    saga_idle_seconds: Some(9000.0),
                    saga_age_seconds: Some(10800.0),
                    version: Some("3".into()),
                },
                Held {
                    id: "20".into(),
                    saga_id: Some("9999".into()),
                    saga_state: None,
                    saga_idle_seconds: None,
                    saga_age_seconds: None,
                    version: Some("5".into()),
                },
            ],
            orphaned_more: false,
        }],
        scans: vec![Scan {
            table: "public.order_saga".into(),
            estimated_rows: 10_000_000,
            question: "its unfinished instances",
            index: crate::quote::Sql::assembled("CREATE INDEX CONCURRENTLY \"order_saga_unfinished\" ON \"public\".\"order_saga\" (\"updated_at\") WHERE \"state\" NOT IN ('COMPLETED', 'COMPENSATED');".into()),
            create_index: "CREATE INDEX CONCURRENTLY \"order_saga_unfinished\" ON \"public\".\"order_saga\" (\"updated_at\") WHERE \"state\" NOT IN ('COMPLETED', 'COMPENSATED');".into(),
        }],
    }
}

fn report() -> Report<SagaReport> {
    let settings: SagaSettings = golden::probe_settings(CONFIG, &["saga"]);
    let previous = Attempts {
        at: fixed_now() - chrono::Duration::seconds(60),
        source: String::new(),
        attempts: [("4710".to_string(), 4), ("4702".to_string(), 10)].into(),
    };
    let reads = vec![
        Read::Snapshot {
            snapshot: Box::new(snapshot()),
            previous: Some(previous),
            read_at: fixed_now(),
            state_file: None,
        },
        Read::Unfit(vec![Unfit {
            table: "public.refund_saga".into(),
            column: "updated_at".into(),
            found: "bigint".into(),
            wanted: "a timestamp",
        }]),
    ];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn saga_instances() {
    let report = report();
    let codes: Vec<(&str, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.code.name(), f.severity))
        .collect();
    assert_eq!(
        codes,
        [
            ("saga_needs_human", Severity::Critical),
            ("saga_needs_human", Severity::Warning),
            ("saga_outcome_unknown", Severity::Critical),
            ("saga_stalled", Severity::Warning),
            ("saga_overdue", Severity::Warning),
            ("saga_retrying_hot", Severity::Warning),
            ("saga_state_unlisted", Severity::Unknown),
            ("saga_lock_orphaned", Severity::Critical),
            ("saga_queue_open", Severity::Warning),
            ("saga_queue_finished", Severity::Warning),
            ("saga_index_missing", Severity::Warning),
            ("saga_unreadable", Severity::Unknown),
        ],
        "4701 failed and 4702 at its 10 attempts, nobody told; 4706 failed, queued; 4703's payment unknown 40 min; 4705 started 45 min ago; 4704 idle 20 min past the pivot; 4710's attempts climbed; REFUND_PENDING is listed nowhere"
    );
    let stalled = report
        .findings
        .iter()
        .find(|f| f.code == codes::SAGA_STALLED)
        .unwrap();
    assert!(
        stalled
            .advice
            .as_ref()
            .unwrap()
            .to_string()
            .contains("drive them forward only"),
        "4704 is at the pivot: {stalled:?}"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts
            .iter()
            .any(|n| n == "indoubt resolve saga --escalate --dry-run -- order_saga 4701 4702"),
        "{nexts:?}"
    );
    assert!(
        nexts
            .iter()
            .any(|n| n == "indoubt resolve saga --release --dry-run -- order_saga 17 20"),
        "{nexts:?}"
    );
    let next_words = golden::words(&nexts);
    let expect = Expect {
        whole: next_words.clone(),
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("saga_instances", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "saga_instances__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
