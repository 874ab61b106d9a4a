//! Golden output of `seata tcc` (report::golden): a Try whose global the coordinator is
//! still rolling back, one whose global is gone and one whose global was given up;
//! ended fence records the clean task left; and a second client whose role may not read
//! its fence.

use super::*;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::seata::fence::Record;
use crate::seata::status;
use crate::seata::store::Problem;

const CONFIG: &str = "
postgres:
  seata-store:
    conninfo: host=db-seata-1.prod.example user=monitor dbname=seata
  stock-db:
    conninfo: host=db-stock-1.prod.example user=monitor dbname=stock
  seats-db:
    conninfo: host=db-seats-1.prod.example user=monitor dbname=seats
seata:
  orders-tc:
    postgres: seata-store
    check: true
    clients:
      stock:
        postgres: stock-db
        tcc_fence_log: tcc_fence_log
      seats:
        postgres: seats-db
        tcc_fence_log: booking.tcc_fence_log
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

fn record(xid: &str, branch: i64, action: &str, created_ago: i64) -> Record {
    Record {
        xid: xid.into(),
        branch_id: branch,
        action_name: Some(action.into()),
        created_local: Some(fixed_now().naive_utc() - chrono::Duration::seconds(created_ago)),
    }
}

fn fenced() -> Fenced {
    let (retrying, gone, given_up, young) = (
        "10.0.3.5:8091:2612345678901234567",
        "10.0.3.5:8091:2612345678900000042",
        "10.0.3.5:8091:2612345678901299999",
        "10.0.3.5:8091:2612345678901400000",
    );
    let count = |status: i16, records: i64, past: i64| FenceCount {
        status,
        name: fence::status_name(status),
        records,
        oldest_local: Some(fixed_now().naive_utc() - chrono::Duration::days(9)),
        past_retention: past,
    };
    Fenced {
        fence: Fence {
            local_now: fixed_now().naive_utc(),
            now: fixed_now(),
            by_status: vec![
                count(1, 4, 0),
                count(2, 1200, 40),
                count(3, 80, 2),
                count(4, 3, 3),
            ],
            tried: vec![
                record(gone, 2612345678900000044, "reserveStock", 3 * 3600),
                record(given_up, 2612345678901300001, "reserveStock", 26 * 3600),
                record(retrying, 2612345678901234570, "reserveStock", 15 * 60),
                record(young, 2612345678901400002, "reserveStock", 5),
            ],
            tried_total: 4,
        },
        globals: Ok([
            (retrying.to_string(), known(6, 15 * 60 + 2)),
            (given_up.to_string(), known(14, 26 * 3600 + 1)),
            (young.to_string(), known(1, 6)),
        ]
        .into_iter()
        .collect()),
        still_tried: [(gone.to_string(), 2612345678900000044)]
            .into_iter()
            .collect(),
    }
}

fn report() -> Report<TccReport> {
    let settings: SeataSettings = golden::probe_settings(CONFIG, &["seata", "tcc"]);
    // The clients in the config's order (by name): seats, then stock.
    let reads = vec![vec![
        ClientRead::Problems(vec![Problem::NotReadable {
            table: "booking.tcc_fence_log".into(),
        }]),
        ClientRead::Read(fenced()),
    ]];
    let mut report = report_of(&crate::next::Invocation::default(), &settings, reads);
    report.generated_at = fixed_now();
    report.target.address = "/etc/indoubt/config.yaml".into();
    report
}

#[test]
fn seata_tcc() {
    let report = report();
    let severities: Vec<Severity> = report.findings.iter().map(|f| f.severity).collect();
    assert_eq!(
        severities,
        [
            Severity::Unknown,
            Severity::Critical,
            Severity::Critical,
            Severity::Warning,
            Severity::Warning
        ],
        "an unreadable fence; a Try whose global is gone; one given up; one retried 15 minutes (past the 10m reservation age); records past the retention — and the Try 5 s old is not a finding"
    );
    let nexts = golden::nexts(&report.findings);
    assert!(
        nexts
            .iter()
            .any(|n| n.contains("GRANT SELECT ON TABLE \"booking\".\"tcc_fence_log\"")),
        "{nexts:?}"
    );
    // In `check`, findings about different things are different incidents, each with
    // its own next: the unreadable fence, and the records past retention, are not one.
    let groups = crate::findings::group(&report.findings, |_| "tc".into());
    for code in [
        codes::SEATA_TCC_UNCLEANED,
        seata_common::codes::SEATA_CLIENT_UNREADABLE,
    ] {
        let at = report.findings.iter().position(|f| f.code == code).unwrap();
        let group = groups.iter().find(|g| g.findings.contains(&at)).unwrap();
        assert_eq!(
            group.findings,
            [at],
            "{} stands alone: {groups:?}",
            code.name()
        );
    }
    let next_words = golden::words(&nexts);
    let mut whole: Vec<String> = vec!["10.0.3.5:8091:2612345678900000042".into()];
    whole.extend(next_words.iter().cloned());
    let expect = Expect {
        whole,
        may_overflow: next_words.iter().map(String::as_str).collect(),
    };
    golden::pin("seata_tcc", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
    golden::snapshot(
        "seata_tcc__json",
        &serde_json::to_string_pretty(&report).unwrap(),
    );
}
