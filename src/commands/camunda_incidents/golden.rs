//! Golden output of `camunda incidents` (report::golden): an engine with failed jobs past
//! the critical age (their stack traces' first frames), an external task failed with no
//! retries left, jobs still burning retries, a job left locked by an executor that died,
//! an external task left by a worker that is gone, and a large ACT_RU_JOB with no index
//! for the read; a second engine whose schema is a version indoubt does not know.

use super::*;
use crate::camunda::engine::Stalled;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;

const CONFIG: &str = "
postgres:
  bpm-db:
    conninfo: host=db-bpm-1.prod.example user=monitor dbname=bpm
camunda:
  billing:
    postgres: bpm-db
    rest: https://bpm.prod.example/engine-rest
    check: true
  legacy:
    postgres: bpm-db
    table_prefix: legacy.
";

fn at(secs: i64) -> Option<NaiveDateTime> {
    Some(ago(secs).naive_utc())
}

fn incident(id: &str, job: &str, key: &str, secs: i64) -> Incident {
    Incident {
        id: id.into(),
        at: at(secs),
        message: Some(format!("card declined for order {key}")),
        configuration: Some(job.into()),
        process_instance: Some(format!("pi-{key}")),
        business_key: Some(key.into()),
        stack_head: Some(format!(
            "java.lang.IllegalStateException: card declined for order {key}\n\tat com.example.billing.Charge.execute(Charge.java:41)\n\tat org.operaton.bpm.engine.impl.delegate.JavaDelegateInvocation.invoke(JavaDelegateInvocation.java:39)\n"
        )),
        retries: Some(0),
    }
}

fn stalled(
    id: &str,
    key: &str,
    message: Option<&str>,
    owner: Option<&str>,
    lock: Option<i64>,
    due: Option<i64>,
    retries: i32,
) -> Stalled {
    Stalled {
        id: id.into(),
        process_instance: Some(format!("pi-{key}")),
        business_key: Some(key.into()),
        retries: Some(retries),
        message: message.map(String::from),
        owner: owner.map(String::from),
        lock_expires: lock.and_then(at),
        due: due.and_then(at),
    }
}

fn snapshot() -> Snapshot {
    Snapshot {
        schema_version: "1.0.0".into(),
        now: fixed_now().naive_utc(),
        incidents: vec![
            IncidentGroup {
                process: "payment".into(),
                activity: "charge".into(),
                incident_type: "failedJob".into(),
                count: 7,
                oldest: at(3 * 3600),
                newest: at(600),
                named: vec![
                    incident("inc-1", "job-11", "order-4711", 3 * 3600),
                    incident("inc-2", "job-12", "order-4712", 2 * 3600),
                ],
            },
            IncidentGroup {
                process: "shipping".into(),
                activity: "ship".into(),
                incident_type: "failedExternalTask".into(),
                count: 1,
                oldest: at(25 * 60),
                newest: at(25 * 60),
                named: vec![Incident {
                    id: "inc-3".into(),
                    at: at(25 * 60),
                    message: Some("carrier API returned 503".into()),
                    configuration: Some("task-31".into()),
                    process_instance: Some("pi-order-4801".into()),
                    business_key: Some("order-4801".into()),
                    stack_head: Some("HTTP 503 from https://carrier.example/api/labels".into()),
                    retries: Some(0),
                }],
            },
        ],
        stalled: vec![
            StalledGroup {
                kind: Kind::Job,
                stall: Stall::LockExpired,
                process: "payment".into(),
                activity: "reconcile".into(),
                topic: None,
                count: 1,
                min_retries: Some(3),
                earliest: at(45 * 60),
                named: vec![stalled(
                    "job-41",
                    "order-4650",
                    None,
                    Some("9f1c2d3e-executor-a"),
                    Some(45 * 60),
                    None,
                    3,
                )],
            },
            StalledGroup {
                kind: Kind::ExternalTask,
                stall: Stall::LockExpired,
                process: "shipping".into(),
                activity: "label".into(),
                topic: Some("print-label".into()),
                count: 2,
                min_retries: None,
                earliest: at(30 * 60),
                named: vec![
                    stalled(
                        "task-51",
                        "order-4790",
                        None,
                        Some("label-worker-7"),
                        Some(30 * 60),
                        None,
                        0,
                    ),
                    stalled(
                        "task-52",
                        "order-4791",
                        None,
                        Some("label-worker-7"),
                        Some(29 * 60),
                        None,
                        0,
                    ),
                ],
            },
            StalledGroup {
                kind: Kind::Job,
                stall: Stall::Retrying,
                process: "payment".into(),
                activity: "charge".into(),
                topic: None,
                count: 12,
                min_retries: Some(2),
                earliest: at(-20 * 60),
                named: vec![stalled(
                    "job-61",
                    "order-4820",
                    Some("card declined for order order-4820"),
                    None,
                    None,
                    Some(-20 * 60),
                    2,
                )],
            },
        ],
        job_rows: Some(1_200_000),
        job_scan_indexed: false,
    }
}

fn report() -> Report<CamundaReport> {
    let settings: CamundaSettings = golden::probe_settings(CONFIG, &["camunda", "incidents"]);
    // In the config's order (by name): billing, then legacy.
    let reads = vec![
        Read::Snapshot(snapshot()),
        Read::UnknownVersion(Some("8.6.0".into())),
    ];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn camunda_incidents() {
    let report = report();
    // What it measures: the open incidents, the oldest's age, the stalled jobs.
    let measured = CamundaIncidents::measures(&report.data);
    let incidents: i64 = report.data.engines[0]
        .snapshot
        .as_ref()
        .unwrap()
        .incidents
        .iter()
        .map(|i| i.count)
        .sum();
    assert_eq!(measured[0].family, "indoubt_camunda_open_incidents");
    assert_eq!(measured[0].value, incidents as f64);
    assert!(incidents > 0 && measured[1].value > 0.0, "{measured:?}");
    let codes: Vec<(&str, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.code.name(), f.severity))
        .collect();
    assert_eq!(
        codes,
        [
            ("camunda_incident", Severity::Critical),
            ("camunda_incident", Severity::Warning),
            ("camunda_lock_expired", Severity::Warning),
            ("camunda_worker_gone", Severity::Warning),
            ("camunda_retrying", Severity::Warning),
            ("camunda_engine", Severity::Ok),
            ("camunda_unreadable", Severity::Unknown),
        ],
        "the failed jobs are 3 h old (past 1 h), the external task's incident 25 min; ACT_RU_JOB's 1.2 M rows with no index are said; an 8.x schema is not judged"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts
            .iter()
            .any(|n| n == "indoubt resolve camunda --dry-run -- billing job-11 job-12"),
        "{nexts:?}"
    );
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> = vec!["job-11".into(), "task-31".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("camunda_incidents", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "camunda_incidents__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
