//! Golden output of `dbos workflows` (report::golden): an application with workflows DBOS
//! gave up on, one in ERROR, one stranded under a retired version, a queue held by a dead
//! head, one unmoved under the newest version with no DBOS process connected, and one
//! sleeping (not judged); a second application whose role may not read DBOS's tables.

use super::*;
use crate::dbos::system::Step;
use crate::report::golden::{self, fixed_now, Expect, Layouts};
use crate::report::table;

const CONFIG: &str = "
postgres:
  orders-sys:
    conninfo: host=db-orders-1.prod.example user=monitor dbname=orders_sys
dbos:
  orders:
    postgres: orders-sys
    check: true
  refunds:
    postgres: orders-sys
    schema: refunds_dbos
";

fn now_ms() -> i64 {
    fixed_now().timestamp_millis()
}

fn step(id: i32, name: &str, wakes_in_ms: Option<i64>) -> Option<Step> {
    Some(Step {
        function_id: id,
        name: name.into(),
        wakes_ms: wakes_in_ms.map(|w| now_ms() + w),
    })
}

fn workflow(
    id: &str,
    version: &str,
    executor: &str,
    queue: Option<&str>,
    unmoved_ms: i64,
    last: Option<Step>,
) -> Workflow {
    Workflow {
        id: id.into(),
        name: "charge_order".into(),
        application: Some("orders".into()),
        executor: Some(executor.into()),
        version: Some(version.into()),
        recovery_attempts: Some(1),
        queue: queue.map(String::from),
        created_ms: now_ms() - unmoved_ms - 1000,
        updated_ms: now_ms() - unmoved_ms,
        last_step: last,
    }
}

fn snapshot() -> Snapshot {
    let hour = 3_600_000;
    Snapshot {
        migration: Some(125),
        now_ms: now_ms(),
        latest_versions: [("orders".to_string(), "2026.12.1".to_string())].into(),
        connections: Some(0),
        dead_lettered: vec![Group {
            status: "MAX_RECOVERY_ATTEMPTS_EXCEEDED".into(),
            name: "charge_order".into(),
            version: Some("2026.12.1".into()),
            count: 3,
            oldest_ms: now_ms() - 5 * hour,
            newest_ms: now_ms() - hour,
            max_attempts: Some(101),
            ids: vec![
                "order-4711".into(),
                "order-4712".into(),
                "order-4713".into(),
            ],
            last_step: step(2, "reserve_stock", None),
        }],
        errors: vec![Group {
            status: "ERROR".into(),
            name: "refund_order".into(),
            version: Some("2026.12.1".into()),
            count: 1,
            oldest_ms: now_ms() - 2 * hour,
            newest_ms: now_ms() - 2 * hour,
            max_attempts: Some(1),
            ids: vec!["refund-88".into()],
            last_step: step(2, "refund", None),
        }],
        stalled: vec![
            workflow(
                "order-4650",
                "2026.11.3",
                "vm-a",
                None,
                30 * hour,
                step(1, "reserve_stock", None),
            ),
            workflow(
                "order-4801",
                "2026.12.1",
                "vm-b",
                Some("payments"),
                2 * hour,
                step(1, "reserve_stock", None),
            ),
            workflow(
                "order-4820",
                "2026.12.1",
                "vm-c",
                None,
                20 * 60_000,
                step(3, "capture", None),
            ),
            workflow(
                "order-4900",
                "2026.12.1",
                "vm-c",
                None,
                15 * 60_000,
                step(2, "DBOS.sleep", Some(45 * 60_000)),
            ),
        ],
        stalled_total: 4,
        enqueued: vec![Enqueued {
            queue: "payments".into(),
            version: Some("2026.12.1".into()),
            application: Some("orders".into()),
            pending_in_queue: 1,
            count: 41,
            oldest_ms: now_ms() - 2 * hour + 5000,
            concurrency: Some(1),
            ids: vec!["order-4802".into(), "order-4803".into()],
        }],
    }
}

fn report() -> Report<DbosReport> {
    let settings: DbosSettings = golden::probe_settings(CONFIG, &["dbos", "workflows"]);
    // In the config's order (by name): orders, then refunds.
    let reads = vec![
        Read::Snapshot(snapshot()),
        Read::Problems(vec![Problem::NotReadable {
            table: "refunds_dbos.workflow_status".into(),
        }]),
    ];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn dbos_workflows() {
    let report = report();
    // What it measures: the stuck workflows by kind.
    let measured: Vec<(String, f64)> = DbosWorkflows::measures(&report.data)
        .into_iter()
        .map(|m| (m.labels[0].1.clone(), m.value))
        .collect();
    assert_eq!(
        measured,
        [
            ("dead_lettered".to_string(), 3.0),
            ("error".to_string(), 1.0),
            ("pending".to_string(), 4.0),
            ("enqueued".to_string(), 41.0)
        ]
    );
    let codes: Vec<(&str, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.code.name(), f.severity))
        .collect();
    assert_eq!(
        codes,
        [
            ("dbos_dead_lettered", Severity::Critical),
            ("dbos_error", Severity::Warning),
            ("dbos_queue_starved", Severity::Critical),
            ("dbos_stranded", Severity::Critical),
            ("dbos_pending", Severity::Warning),
            ("dbos_unreadable", Severity::Unknown),
        ],
        "the payments queue waits 2 h behind order-4801; order-4650 is of a retired version for 30 h; order-4820 is unmoved 20 min; order-4900 sleeps 45 min more: not judged"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts.iter().any(|n| n == "indoubt resolve dbos --resume --dry-run -- orders order-4711 order-4712 order-4713"),
        "{nexts:?}"
    );
    assert!(
        nexts
            .iter()
            .any(|n| n
                == "indoubt resolve dbos --resume --executor-gone --dry-run -- orders order-4820"),
        "no DBOS process is connected: the executor is gone, and the next says so: {nexts:?}"
    );
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> = vec!["order-4711".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("dbos_workflows", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "dbos_workflows__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
