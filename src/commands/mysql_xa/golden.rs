//! Golden output of `mysql xa` (report::golden): a MariaDB restarted under a Narayana
//! branch it recovered (its age only a lower bound, a session waiting on its row) beside
//! a plain-text XID a live session still holds (its age exact), the history list behind
//! them; two branches of one transaction no session holds, told apart by nothing; and a
//! server with none.

use super::*;
use crate::mysql::session::Flavor;
use crate::report::golden::{self, ago, fixed_now, Expect, Layouts};
use crate::report::table;

/// The golden config with the MariaDB server of the fixtures, `prod-billing`.
pub(crate) const CONFIG: &str = "\
postgres:
  prod-orders:
    conninfo: postgres://monitor@db-orders-1.prod.example:5432/postgres
mysql:
  prod-billing:
    url: mysql://monitor@db-billing-1.prod.example:3306/
";

fn settings() -> MysqlXaSettings {
    golden::probe_settings(CONFIG, &["mysql", "xa", "--mysql", "prod-billing"])
}

/// Seconds since the server restarted: InnoDB dates what it recovered from then.
const UPTIME: i64 = 2 * 3600 + 11 * 60 + 28;

/// A Narayana uid (28 bytes: IPv4-mapped address, process id, start second, counter)
/// of the node that coordinates `pg prepared`'s transaction, at counter `other`.
fn narayana_uid(other: i32) -> Vec<u8> {
    let mut uid = Vec::new();
    uid.extend_from_slice(&0u64.to_be_bytes());
    uid.extend_from_slice(&0xffff_0a00_0117u64.to_be_bytes());
    uid.extend_from_slice(&0x8b3i32.to_be_bytes());
    uid.extend_from_slice(&1_796_000_000i32.to_be_bytes());
    uid.extend_from_slice(&other.to_be_bytes());
    uid
}

/// The MariaDB branch of that global transaction as Narayana's XATxConverter writes it
/// (format 131077): the gtrid its uid and node name, the bqual the branch's own uid and
/// its EIS name. The gtrid is `golden::narayana_gid()`'s, so it is the same transaction.
pub(crate) fn narayana_xid() -> Xid {
    let mut gtrid = narayana_uid(4711);
    gtrid.extend_from_slice(b"orders-service-node-eu-west");
    let mut bqual = narayana_uid(4713);
    bqual.extend_from_slice(&0i32.to_be_bytes());
    bqual.extend_from_slice(&0i32.to_be_bytes());
    Xid {
        format_id: 131_077,
        gtrid,
        bqual,
    }
}

/// A billing job's own XID, in plain text: `XA START 'invoice-run-88412','billing'`.
pub(crate) fn plain_xid() -> Xid {
    Xid {
        format_id: 1,
        gtrid: b"invoice-run-88412".to_vec(),
        bqual: b"billing".to_vec(),
    }
}

fn age(basis: AgeBasis, secs: i64, source: &str) -> xa::Age {
    xa::Age {
        basis,
        seconds: Some(secs as f64),
        since: Some(ago(secs)),
        at_most_seconds: None,
        earliest_since: None,
        source: source.into(),
    }
}

fn branch(xid: Xid, age: xa::Age) -> Branch {
    Branch {
        format_id: xid.format_id,
        gtrid_length: xid.gtrid.len(),
        bqual_length: xid.bqual.len(),
        xid,
        attached_session: None,
        holder_known: true,
        holder: None,
        age,
        trx_id: None,
        rows_locked: None,
        lock_structs: None,
        rows_modified: None,
        rows_modified_between: None,
        blocked_sessions: Vec::new(),
    }
}

/// The MariaDB server behind `prod-billing`, restarted `UPTIME` ago.
pub(crate) fn server() -> xa::Identity {
    xa::Identity {
        flavor: Flavor::Mariadb,
        version: "10.11.6-MariaDB-0+deb12u1-log".into(),
        host_port: "db-billing-1:3306".into(),
        server_id: "11".into(),
        server_uuid: None,
        datadir: "/var/lib/mysql/".into(),
        started_at: Some(ago(UPTIME)),
        read_only: false,
        replica: Some(false),
    }
}

/// The Narayana branch as a restart left it: recovered, so dated from the restart (at
/// least that old; its coordinator prepared it hours before), its rows locked though
/// InnoDB counts none, a payment run waiting on one of them.
pub(crate) fn recovered_branch() -> Branch {
    let mut b = branch(
        narayana_xid(),
        age(
            AgeBasis::AtLeast,
            UPTIME,
            "information_schema.innodb_trx (the only transaction no session holds): it started no later than the server's restart, and InnoDB dates the transactions it recovers from the restart, so it is at least this old",
        ),
    );
    b.trx_id = Some("8812734".into());
    b.lock_structs = Some(1);
    b.rows_modified = Some(3);
    b.blocked_sessions = vec![Waiter {
        session: 4187,
        trx_id: "8830391".into(),
        waiting_seconds: Some(41.0),
        query: Some(
            "UPDATE invoices SET status = 'paid', paid_at = NOW() WHERE order_id = 4711".into(),
        ),
        table: Some("`billing`.`invoices`".into()),
    }];
    b
}

pub(crate) fn snapshot() -> Snapshot {
    let recovered = recovered_branch();
    let mut held = branch(
        plain_xid(),
        age(
            AgeBasis::Exact,
            12 * 60 + 31,
            "information_schema.innodb_trx (the transaction of session 4102, which performance_schema shows in XA state PREPARED with this XID)",
        ),
    );
    held.attached_session = Some(4102);
    // The billing job's connection, idle since its XA PREPARE.
    held.holder = Some(xa::Holder {
        session: 4102,
        user: Some("billing".into()),
        host: Some("10.0.3.17:51442".into()),
        command: Some("Sleep".into()),
        command_seconds: Some(12 * 60 + 30),
    });
    held.trx_id = Some("8829907".into());
    held.rows_locked = Some(2);
    held.lock_structs = Some(2);
    held.rows_modified = Some(2);
    Snapshot {
        server: server(),
        server_time: fixed_now(),
        uptime_seconds: Some(UPTIME),
        purge: xa::Purge {
            history_list_length: Some(184_220),
            source: "information_schema.GLOBAL_STATUS Innodb_history_list_length",
            oldest: Some(xa::OldestTransaction {
                trx_id: "8812734".into(),
                started_at: Some(ago(UPTIME)),
                age_seconds: Some(UPTIME as f64),
                // Dated from the restart: the recovered Narayana branch.
                recovered: true,
                session: None,
                state: "RUNNING".into(),
                xid: Some(recovered.xid.clone()),
            }),
        },
        branches: vec![held, recovered],
        unattributed_waiters: Vec::new(),
        unreadable: Vec::new(),
        innodb_trx_read: true,
        unmatched: None,
    }
}

fn report_for(snapshot: Snapshot) -> Report<XaReport> {
    let mut report = report_of(&settings(), snapshot);
    report.generated_at = fixed_now();
    report
}

/// The XIDs as the table and the findings show them, and the words of the next commands.
fn expect(report: &Report<XaReport>, xids: &[String]) -> (Vec<String>, Vec<String>) {
    let nexts = golden::nexts(&report.findings);
    let mut whole: Vec<String> = xids.to_vec();
    let next_words = golden::words(&nexts);
    whole.extend(next_words.iter().cloned());
    let mut may_overflow = xids.to_vec();
    may_overflow.extend(next_words);
    (whole, may_overflow)
}

#[test]
fn mysql_xa() {
    let report = report_for(snapshot());
    let nexts = golden::nexts(&report.findings);
    // A resolve for the branch no session holds; none for the one session 4102 holds
    // (resolve refuses it: busy), none on the purge finding (the branch's own names it).
    assert_eq!(
        nexts.len(),
        1,
        "one resolve, for the free branch: {nexts:?}"
    );
    assert!(nexts[0].contains(&narayana_xid().arg()), "{nexts:?}");
    let xids = [narayana_xid().sql(), plain_xid().sql()];
    let (mut whole, may_overflow) = expect(&report, &xids);
    whole.extend(["4187".to_string(), "4102".into(), "184220".into()]);
    let expect = Expect {
        whole,
        may_overflow: may_overflow.iter().map(String::as_str).collect(),
    };
    golden::pin("mysql_xa", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// Two branches of one Atomikos transaction (two data sources on one server), both left
/// when the application died: two InnoDB transactions no session holds, and which is
/// whose is recorded nowhere, so each is given the bounds of both and the group the
/// oldest; a session waits on one of them, which one cannot be told.
#[test]
fn mysql_xa_unmatched() {
    let gtrid = b"payments-tm179600000000000042".to_vec();
    let xid = |n: u8| Xid {
        format_id: 1_096_044_365,
        gtrid: gtrid.clone(),
        bqual: [gtrid.as_slice(), &[b'0' + n]].concat(),
    };
    let (youngest, oldest) = (25 * 60 + 20, 25 * 60 + 23);
    let bounded = |x: Xid| {
        let mut b = branch(
            x,
            xa::Age {
                basis: AgeBasis::AtLeast,
                seconds: Some(youngest as f64),
                since: Some(ago(youngest)),
                at_most_seconds: Some(oldest as f64),
                earliest_since: Some(ago(oldest)),
                source: "information_schema.innodb_trx: 2 transactions no session holds, and which is this branch's is not recorded anywhere; each is at least as old as the youngest of them and at most as old as the oldest".into(),
            },
        );
        b.rows_modified_between = Some([1, 4]);
        b
    };
    let branches = vec![bounded(xid(1)), bounded(xid(2))];
    let mut snapshot = snapshot();
    snapshot.unmatched = Some(xa::Unmatched {
        xids: branches.iter().map(|b| b.xid.clone()).collect(),
        oldest_seconds: oldest as f64,
        oldest_since: Some(ago(oldest)),
        oldest_recovered: false,
    });
    snapshot.branches = branches;
    snapshot.unattributed_waiters = vec![Waiter {
        session: 6021,
        trx_id: "8830577".into(),
        waiting_seconds: Some(7.0),
        query: Some("UPDATE ledger SET balance = balance - 1200 WHERE account_id = 9".into()),
        table: Some("`payments`.`ledger`".into()),
    }];
    snapshot.purge.history_list_length = Some(61_904);
    snapshot.purge.oldest = Some(xa::OldestTransaction {
        trx_id: "8829120".into(),
        started_at: Some(ago(oldest)),
        age_seconds: Some(oldest as f64),
        recovered: false,
        session: None,
        state: "RUNNING".into(),
        xid: None,
    });
    let report = report_for(snapshot);
    let xids = [xid(1).sql(), xid(2).sql()];
    let (mut whole, may_overflow) = expect(&report, &xids);
    whole.push("6021".into());
    let expect = Expect {
        whole,
        may_overflow: may_overflow.iter().map(String::as_str).collect(),
    };
    golden::pin("mysql_xa_unmatched", Layouts::WithWide, &expect, |style| {
        table::render(&report, style).into_string()
    });
}

/// No branch prepared: one OK finding for the branches, one for purge, no table.
#[test]
fn mysql_xa_none() {
    let mut snapshot = snapshot();
    snapshot.branches = Vec::new();
    snapshot.purge.history_list_length = Some(1_204);
    snapshot.purge.oldest = Some(xa::OldestTransaction {
        trx_id: "8830977".into(),
        started_at: Some(ago(2)),
        age_seconds: Some(2.0),
        recovered: false,
        session: Some(5120),
        state: "RUNNING".into(),
        xid: None,
    });
    let report = report_for(snapshot);
    assert_eq!(report.status, Severity::Ok, "nothing to act on");
    assert!(golden::nexts(&report.findings).is_empty());
    let expect = Expect {
        whole: vec!["history list length 1204".into()],
        may_overflow: Vec::new(),
    };
    golden::pin("mysql_xa_none", Layouts::Both, &expect, |style| {
        table::render(&report, style).into_string()
    });
}
