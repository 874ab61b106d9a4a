//! `indoubt seata globals` against the real Apache Seata 2.0.0 coordinator (its store in
//! the lab's PostgreSQL) and global transactions left stuck by Seata's own clients.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::seata::{coordinator, line, stuck};
use common::*;
use serde_json::Value;

/// A config naming the lab's coordinator `tc`, its store reached as `store_url`; a grace
/// of 1 s so a global a second past its timeout is overdue.
fn write_config(dir: &std::path::Path, store_url: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("c.yaml");
    std::fs::write(
        &path,
        format!("seata:\n  tc:\n    postgres: {store_url}\n    grace: 1s\n{extra}"),
    )
    .unwrap();
    path
}

fn globals(config: &std::path::Path) -> (Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(config)
        .args(["seata", "globals"]));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// An AT global whose rollback meets a row changed outside Seata (a dirty write): Seata
/// 2.0.0's coordinator answers RollbackFailed (12) at once, retries it no more, and keeps
/// the row's global lock for good, which a second global transaction then fails on
/// (tests/lab/seata/README.md). `seata globals` names it CRITICAL as given up, with its
/// AT branch and the locked row.
#[test]
fn an_at_rollback_on_a_dirty_write_is_given_up_and_keeps_its_row_lock() {
    let (tc, store) = coordinator();
    let db = TestDb::create("seata_at");
    let table = "accounts";
    let lines = stuck(
        "at-dirty",
        &[
            format!("tc={tc}"),
            format!("db={}", common::xa::jdbc(&db.url())),
            format!("table={table}"),
            "id=4711".into(),
            format!("app={}", unique("at")),
        ],
    );
    let xid = line(&lines, "global").fields["xid"].clone();
    let conflict = line(&lines, "lock-conflict");
    assert_eq!(
        conflict.fields["held_by"], xid,
        "the second global failed on this one's lock"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &store, "");
    // Listed as soon as it is given up (an unended one only past its timeout and grace).
    let mut found = Value::Null;
    wait_for("the stuck global past its timeout and grace", || {
        let (r, out) = globals(&config);
        assert!(
            out.code == 1 || out.code == 2 || out.code == 0,
            "{}\n{}",
            out.stdout,
            out.stderr
        );
        let hit = r["coordinators"][0]["snapshot"]["overdue"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|g| g["xid"] == xid.as_str())
            .cloned();
        match hit {
            Some(g) => {
                found = g;
                true
            }
            None => false,
        }
    });
    let g = &found;
    assert_eq!(
        g["status"], 12,
        "the coordinator gave the rollback up: {g:#}"
    );
    assert_eq!(g["status_name"], "RollbackFailed", "{g:#}");
    assert_eq!(g["stage"], "gave_up", "{g:#}");
    let branch = &g["branches"][0];
    assert_eq!(branch["branch_type"], "AT", "{g:#}");
    assert!(g["locks"]["rows"].as_i64().unwrap() >= 1, "{g:#}");
    let sample = &g["locks"]["sample"][0];
    assert_eq!(sample["table_name"], table, "{g:#}");
    assert_eq!(sample["pk"], "4711", "{g:#}");
    assert!(
        g["locks"]["held_since"].is_string(),
        "the lock's age is known: {g:#}"
    );
    // The table and the finding: its xid, the locked row, the statement that lists them.
    let out = run(indoubt()
        .args(["--width", "200", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(out.code >= 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(&xid), "{}", out.stdout);
    assert!(out.stdout.contains("accounts:4711"), "{}", out.stdout);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("(explain: seata_global_given_up)"),
        "{}",
        out.stdout
    );
}

/// A store the role may not read, and a lock table named wrongly: UNKNOWN (exit 3), each
/// naming what is missing, the unreadable one with the GRANT to its role — never an OK.
#[test]
fn an_unreadable_or_missing_table_is_unknown_with_what_would_show_it() {
    let (_, store) = coordinator();
    let role = TestRole::create("seata_reader", "");
    let dir = tempfile::tempdir().unwrap();
    let as_role = replace_credentials(&store, &role.name, &role.password);
    let config = write_config(dir.path(), &as_role, "");
    let (r, out) = globals(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let findings = r["findings"].as_array().unwrap();
    assert!(
        findings.iter().all(|f| f["severity"] == "UNKNOWN"),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .contains("may not read table global_table")),
        "{findings:#?}"
    );
    let grants: Vec<&str> = findings.iter().filter_map(|f| f["next"].as_str()).collect();
    assert!(
        grants.iter().any(|n| n.contains(&format!(
            "GRANT SELECT ON TABLE \"global_table\" TO \"{}\"",
            role.name
        ))),
        "{grants:?}"
    );
    let config = write_config(dir.path(), &store, "    lock_table: no_such_locks\n");
    let (r, out) = globals(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        r["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no table no_such_locks"),
        "{r:#}"
    );
}

/// `user:password@` of a postgres:// URL replaced.
fn replace_credentials(url: &str, user: &str, password: &str) -> String {
    let rest = url.strip_prefix("postgres://").expect("a postgres:// URL");
    let (_, address) = rest.split_once('@').expect("credentials in the URL");
    format!("postgres://{user}:{password}@{address}")
}
