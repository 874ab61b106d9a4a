//! Golden output of `pg prepared` (report::golden): a Narayana GID wider than the screen,
//! an Atomikos one whose role was dropped in a database with a name that is not UTF-8,
//! sessions it blocks, an unattributed victim, a part that could not be read.

use super::*;
use crate::pg::{Gap, Grant};
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;
use crate::settings::pg::PreparedSettings;
use crate::text::RawText;

fn settings() -> PreparedSettings {
    golden::probe_settings(golden::CONFIG, &["pg", "prepared", "--pg", "prod-orders"])
}

fn lock(mode: &str, relation: Option<&str>, xid: Option<&str>) -> prepared::HeldLock {
    prepared::HeldLock {
        locktype: match relation {
            Some(_) => "relation",
            None => "transactionid",
        }
        .into(),
        mode: mode.into(),
        granted: true,
        database: Some("orders".into()),
        relation_oid: relation.map(|_| 16_402),
        relation: relation.map(RawText::from),
        transactionid: xid.map(str::to_string),
        virtualtransaction: "-1/771203".into(),
    }
}

fn victim(pid: i32, mode: &str, on: Option<&str>, query: &str) -> BlockedSession {
    BlockedSession {
        pid,
        database: Some("orders".into()),
        user: Some("app_orders".into()),
        application: Some("orders-api".into()),
        state: Some("active".into()),
        wait_event: Some("Lock:transactionid".into()),
        query_seconds: Some(1_845.0),
        query: Some(query.into()),
        waits_for: prepared::LockWait {
            locktype: match on {
                Some(_) => "relation",
                None => "transactionid",
            }
            .into(),
            mode: mode.into(),
            relation_oid: on.map(|_| 16_402),
            relation: on.map(RawText::from),
        },
    }
}

fn xact(gid: RawText, database: RawText, owner: Option<&str>, age: i64) -> PreparedXact {
    let decoded_gid = crate::gid::decode_raw(&gid);
    let global_transaction = crate::global_tx::GlobalTransaction::of(&gid, &decoded_gid);
    PreparedXact {
        xid: 771_203,
        database,
        owner: owner.map(RawText::from),
        prepared_at: ago(age),
        age_seconds: age as f64,
        age_xids: 1_204_331,
        decoded_gid,
        global_transaction,
        locks_by_mode: BTreeMap::new(),
        locks: Vec::new(),
        blocked_sessions: Vec::new(),
        gid,
    }
}

use std::collections::BTreeMap;

pub(crate) fn snapshot() -> PreparedSnapshot {
    let mut stuck = xact(
        golden::narayana_gid().into(),
        "orders".into(),
        Some("app_orders"),
        5 * 3600 + 12 * 60,
    );
    stuck.locks = vec![
        lock("RowExclusiveLock", Some("public.orders"), None),
        lock("RowExclusiveLock", Some("public.order_lines"), None),
        lock("ExclusiveLock", None, Some("771203")),
    ];
    stuck.locks_by_mode = [
        ("ExclusiveLock".to_string(), 1),
        ("RowExclusiveLock".to_string(), 2),
    ]
    .into();
    stuck.blocked_sessions = vec![
        victim(
            48_211,
            "ShareLock",
            None,
            "UPDATE orders SET status = 'shipped' WHERE id = 4711",
        ),
        victim(
            48_230,
            "AccessExclusiveLock",
            Some("public.order_lines"),
            "ALTER TABLE order_lines ADD COLUMN shipped_at timestamptz",
        ),
    ];
    let mut dropped = xact(
        golden::atomikos_gid().into(),
        RawText::from(b"l\xe4ger\x1b[2J".to_vec()),
        None,
        20 * 60,
    );
    dropped.age_xids = 88_120;
    dropped.xid = 802_114;
    let young = xact(
        "manual-fix-2026-12-01".into(),
        "orders".into(),
        Some("dba_anna"),
        42,
    );
    PreparedSnapshot {
        server_time: fixed_now(),
        max_prepared_transactions: 100,
        prepared_transactions: vec![stuck, dropped, young],
        unattributed_blocked_sessions: vec![victim(51_002, "ShareLock", None, "SELECT 1 FROM orders FOR UPDATE")],
        visibility_gaps: vec![Gap::MissingPrivilege {
            what: "state and query text of other users' sessions are hidden".into(),
            grant: Grant::ReadAllStats,
        }],
        unreadable: vec![
            "the locks of database analytics: permission denied for database analytics (needs CONNECT)".into(),
        ],
    }
}

pub(crate) fn report(_ctx: &Context) -> Report<PreparedReport> {
    fixed(report_of(&settings(), snapshot()))
}

fn fixed(mut report: Report<PreparedReport>) -> Report<PreparedReport> {
    report.generated_at = fixed_now();
    report
}

#[test]
fn pg_prepared() {
    let ctx = golden::context();
    let report = report(&ctx);
    let nexts = golden::nexts(&report.findings);
    // One resolve per prepared transaction over a threshold: an OK one has no next.
    assert_eq!(
        nexts.len(),
        2,
        "one resolve per prepared transaction to act on"
    );
    let narayana = golden::narayana_gid();
    let mut whole = vec![
        narayana.clone(),
        golden::atomikos_gid(),
        "manual-fix-2026-12-01".into(),
        "l\\xe4ger\\u{1b}[2J".into(),
        "48211".into(),
        "48230".into(),
        "51002".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow: Vec<&str> = next_words.iter().map(String::as_str).collect();
    let atomikos = golden::atomikos_gid();
    may_overflow.push(&narayana);
    may_overflow.push(&atomikos);
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_prepared", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// GIDs that fit: the table is a grid, its victims' statements whole in their cells.
#[test]
fn pg_prepared_grid() {
    let mut snapshot = snapshot();
    let mut citus = xact(
        "citus_0_2288011_77_3".into(),
        "orders".into(),
        Some("app_orders"),
        45 * 60,
    );
    citus.locks = vec![lock("RowExclusiveLock", Some("public.orders"), None)];
    citus.locks_by_mode = [("RowExclusiveLock".to_string(), 1)].into();
    citus.blocked_sessions = snapshot.prepared_transactions[0].blocked_sessions.clone();
    let young = snapshot.prepared_transactions.remove(2);
    snapshot.prepared_transactions = vec![citus, young];
    let report = fixed(report_of(&settings(), snapshot));
    let nexts = golden::nexts(&report.findings);
    let mut whole = vec![
        "citus_0_2288011_77_3".into(),
        "manual-fix-2026-12-01".into(),
    ];
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let may_overflow = next_words.iter().map(String::as_str).collect();
    let expect = Expect {
        whole,
        may_overflow,
    };
    golden::pin("pg_prepared_grid", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
