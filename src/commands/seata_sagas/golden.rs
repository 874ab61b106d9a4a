//! Golden output of `seata sagas` (report::golden): an instance whose state's outcome is
//! unknown (retried forward), one whose compensation failed and whose global is gone, one
//! running without a change past the stall, one running fine; and a client whose saga
//! tables are missing.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::seata::saga::State;
use crate::seata::status;
use crate::seata::store::Problem;

const CONFIG: &str = "
postgres:
  seata-store:
    conninfo: host=db-seata-1.prod.example user=monitor dbname=seata
  orders-db:
    conninfo: host=db-orders-1.prod.example user=monitor dbname=orders
  travel-db:
    conninfo: host=db-travel-1.prod.example user=monitor dbname=travel
seata:
  orders-tc:
    postgres: seata-store
    check: true
    clients:
      orders:
        postgres: orders-db
        saga_table_prefix: seata_
      travel:
        postgres: travel-db
        saga_table_prefix: saga.seata_
";

fn known(status: i16, began: i64) -> Known {
    let (status_name, stage) = status::global(status);
    Known {
        status,
        status_name,
        stage,
        begun_at: Some(ago(began)),
        timeout_ms: Some(60_000),
    }
}

fn local(ago_s: i64) -> Option<chrono::NaiveDateTime> {
    Some(fixed_now().naive_utc() - chrono::Duration::seconds(ago_s))
}

fn state(name: &str, status: &str, compensates: Option<&str>, started: i64) -> State {
    State {
        name: name.into(),
        service: Some("orderSaga".into()),
        method: Some(name.to_lowercase()),
        status: status.into(),
        compensates: compensates.map(str::to_string),
        retry: false,
        started_local: local(started),
    }
}

fn instance(
    id: &str,
    key: &str,
    status: &str,
    compensation: Option<&str>,
    updated: i64,
) -> Instance {
    Instance {
        id: id.into(),
        business_key: Some(key.into()),
        machine: "placeOrder".into(),
        status: Some(status.into()),
        compensation_status: compensation.map(str::to_string),
        is_running: Some(status == "RU"),
        parent_id: None,
        started_local: local(updated + 2),
        updated_local: local(updated),
        states: Vec::new(),
    }
}

fn sagas() -> Sagas {
    let (unknown, failed, stalled, fine) = (
        "10.0.3.5:8091:2612345678901234567",
        "10.0.3.5:8091:2612345678900000042",
        "10.0.3.5:8091:2612345678901299999",
        "10.0.3.5:8091:2612345678901400000",
    );
    let mut u = instance(unknown, "order-4711", "UN", None, 300);
    u.states = vec![state("Charge", "UN", None, 301)];
    let mut f = instance(failed, "order-4712", "UN", Some("FA"), 3 * 3600);
    f.states = vec![
        state("Charge", "FA", None, 3 * 3600 + 2),
        state("Refund", "FA", Some("Debit"), 3 * 3600 + 1),
    ];
    let mut s = instance(stalled, "order-4713", "RU", None, 20 * 60);
    s.states = vec![state("Ship", "RU", None, 20 * 60)];
    let ok = instance(fine, "order-4714", "RU", None, 3);
    Sagas {
        unended: Unended {
            local_now: fixed_now().naive_utc(),
            instances: vec![f, s, u, ok],
            total: 4,
        },
        globals: Ok([
            (unknown.to_string(), known(3, 305)),
            (stalled.to_string(), known(1, 20 * 60 + 2)),
            (fine.to_string(), known(1, 5)),
        ]
        .into_iter()
        .collect()),
    }
}

fn report() -> Report<SagasReport> {
    let settings: SeataSettings = golden::probe_settings(CONFIG, &["seata", "sagas"]);
    let reads = vec![vec![
        ClientRead::Read(sagas()),
        ClientRead::Problems(vec![Problem::Missing {
            table: "saga.seata_state_machine_inst".into(),
        }]),
    ]];
    let mut report = report_of(&settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn seata_sagas() {
    let report = report();
    let severities: Vec<Severity> = report.findings.iter().map(|f| f.severity).collect();
    assert_eq!(
        severities,
        [
            Severity::Critical,
            Severity::Warning,
            Severity::Warning,
            Severity::Unknown
        ],
        "a failed compensation whose global is gone; a run unchanged 20 minutes (past the 10m stall); an unknown outcome being retried; missing tables — and the instance running for 3 s is not a finding"
    );
    let nexts = golden::nexts(&report.findings);
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> = vec!["order-4712".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("seata_sagas", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "seata_sagas__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
