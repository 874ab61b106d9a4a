//! Golden output of `seata globals` (report::golden): an AT global stuck in
//! RollbackRetrying on a dirty write, holding row locks; a TCC global the coordinator gave
//! up on; a Begin nobody timed out; a status from a newer release; orphaned locks; and a
//! second coordinator whose role may not read the lock table.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::seata::status;
use crate::seata::store::{Branch, LockedRow, Locks, OrphanLock, OrphanLocks, StatusCount};

const CONFIG: &str = "
postgres:
  seata-store:
    conninfo: host=db-seata-1.prod.example user=monitor dbname=seata
seata:
  orders-tc:
    postgres: seata-store
    check: true
  payments-tc:
    postgres: seata-store
    lock_table: payments.lock_table
";

fn global(xid: &str, status: i16, past: f64) -> Global {
    let (status_name, stage) = status::global(status);
    Global {
        xid: xid.into(),
        transaction_id: xid.rsplit(':').next().and_then(|t| t.parse().ok()),
        status,
        status_name,
        stage,
        application_id: Some("order-service".into()),
        transaction_service_group: Some("default_tx_group".into()),
        transaction_name: Some("placeOrder(com.example.Order)".into()),
        timeout_ms: Some(60_000),
        begun_at: Some(ago(past as i64 + 60)),
        past_timeout_seconds: Some(past),
        modified_local: None,
        store_offset: None,
        branches: Vec::new(),
        branches_unlisted: 0,
        locks: Locks::default(),
    }
}

fn branch(id: i64, kind: &str, status: i16, resource: &str) -> Branch {
    Branch {
        branch_id: id,
        branch_type: Some(kind.into()),
        resource_id: Some(resource.into()),
        status: Some(status),
        status_name: status::branch(status),
        client_id: Some("order-service:10.0.3.17:51234".into()),
    }
}

fn row(table: &str, pk: &str) -> LockedRow {
    LockedRow {
        branch_id: None,
        resource_id: Some("jdbc:postgresql://db-orders-1:5432/orders".into()),
        table_name: Some(table.into()),
        pk: Some(pk.into()),
    }
}

fn snapshot() -> Snapshot {
    let mut dirty = global("10.0.3.5:8091:2612345678901234567", 5, 3.5 * 3600.0);
    dirty.branches = vec![
        branch(
            2612345678901234570,
            "AT",
            9,
            "jdbc:postgresql://db-orders-1:5432/orders",
        ),
        branch(
            2612345678901234571,
            "AT",
            8,
            "jdbc:postgresql://db-stock-1:5432/stock",
        ),
    ];
    dirty.locks = Locks {
        rows: 3,
        held_since: Some(ago(3 * 3600 + 1800)),
        rollbacking: Some(3),
        sample: vec![row("orders", "4711"), row("order_lines", "90211")],
    };
    let mut given_up = global("10.0.3.5:8091:2612345678901299999", 17, 26.0 * 3600.0);
    given_up.application_id = Some("payment-service".into());
    given_up.transaction_name = Some("refund".into());
    given_up.branches = vec![branch(2612345678901300001, "TCC", 10, "refundAction")];
    let mut open = global("10.0.3.6:8091:2612345678901355555", 1, 300.0);
    open.transaction_name = None;
    let newer = global("10.0.3.6:8091:2612345678901366666", 23, 900.0);
    Snapshot {
        server_time: fixed_now(),
        by_status: [1, 5, 17, 23]
            .map(|s| {
                let (name, stage) = status::global(s);
                StatusCount {
                    status: s,
                    name,
                    stage,
                    globals: 1,
                }
            })
            .to_vec(),
        overdue: vec![given_up, dirty, open, newer],
        overdue_total: 4,
        orphan_locks: OrphanLocks {
            rows: 2,
            xids: 1,
            oldest_local: None,
            sample: vec![OrphanLock {
                xid: Some("10.0.3.5:8091:2612345678900000001".into()),
                row: row("stock", "sku-1001"),
            }],
        },
        lock_status_column: true,
    }
}

fn report() -> Report<GlobalsReport> {
    let settings: SeataSettings = golden::probe_settings(CONFIG, &["seata", "globals"]);
    let reads = vec![
        (Read::Snapshot(snapshot()), Vec::new()),
        (
            Read::Problems(vec![Problem::NotReadable {
                table: "payments.lock_table".into(),
            }]),
            Vec::new(),
        ),
    ];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn seata_globals() {
    let report = report();
    let severities: Vec<Severity> = report.findings.iter().map(|f| f.severity).collect();
    assert_eq!(
        severities,
        [
            Severity::Critical,
            Severity::Critical,
            Severity::Warning,
            Severity::Unknown,
            Severity::Critical,
            Severity::Unknown
        ],
        "given up, 3.5 h retrying (past the 30m critical age), 5 minutes open (past the 130 s grace), an unknown status, orphaned locks, an unreadable table"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts
            .iter()
            .any(|n| n.contains("GRANT SELECT ON TABLE \"payments\".\"lock_table\"")),
        "{nexts:?}"
    );
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> = vec!["10.0.3.5:8091:2612345678901234567".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("seata_globals", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "seata_globals__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
