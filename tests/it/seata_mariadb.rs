//! Seata's client tables in a MariaDB business database (AT's undo log, TCC's fence, the
//! saga store), as Seata's users on MySQL and MariaDB keep them: read, compared and
//! written in MariaDB's SQL, by the real Apache Seata 2.0.0 clients and coordinator.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use super::seata::{globals, pasted, probe};
use crate::common;
use common::mysql::{sql, MysqlDb};
use common::seata::{coordinator, line, stuck};
use common::*;
use serde_json::Value;

/// A config naming the lab's coordinator (its store in PostgreSQL) and one client whose
/// business database is `db` in the lab's MariaDB (reached as `user`, whose password is
/// in `cnf`), holding `tables` (`undo_log: undo_log`, …).
fn config(
    dir: &std::path::Path,
    db: &MysqlDb,
    (user, cnf): (&str, &str),
    tables: &str,
    extra: &str,
) -> std::path::PathBuf {
    let (_, store) = coordinator();
    let address = common::mysql::url()
        .split_once('@')
        .expect("mysql://USER@ADDRESS/")
        .1
        .to_string();
    let tables: String = tables
        .split(',')
        .map(|t| format!("        {}\n", t.trim()))
        .collect();
    let path = dir.join(format!("{user}.yaml"));
    std::fs::write(
        &path,
        format!(
            "mysql:\n  biz:\n    url: mysql://{user}@{address}{}\n    option_file: {cnf}\n    ssl_mode: DISABLED\nseata:\n  tc:\n    postgres: {store}\n    grace: 1s\n{extra}    clients:\n      biz:\n        mysql: biz\n{tables}",
            db.name
        ),
    )
    .unwrap();
    path
}

/// The lab's admin account and its option file.
fn admin() -> (String, String) {
    let user = common::mysql::url()
        .strip_prefix("mysql://")
        .and_then(|r| r.split_once('@'))
        .expect("mysql://USER@ADDRESS/")
        .0
        .to_string();
    (user, common::mysql::cnf())
}

/// The next of the finding about `xid`, as printed.
fn next_about(report: &Value, xid: &str) -> String {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["evidence"]["xid"] == xid || f["object"]["name"] == xid)
        .and_then(|f| f["next"].as_str())
        .unwrap_or_else(|| panic!("no next about {xid}: {report:#}"))
        .to_string()
}

/// An AT branch in a MariaDB business database whose client died after a dirty write:
/// the coordinator times the global out and retries its rollback, which the dirty row
/// refuses. `seata globals` compares the row with the undo log's images in MariaDB; the
/// next (`resolve at`'s dry run) shows the guarded UPDATE in MariaDB's SQL, which as
/// printed changes nothing once the row moved; `resolve at --fix after-image` sets the row
/// back, and the coordinator's next retry, taken by a client, restores the before image.
#[test]
fn an_at_rollback_held_up_in_a_mariadb_business_database_is_compared_and_set_back() {
    let (tc, store) = coordinator();
    let db = MysqlDb::create("seata_atmy");
    let lines = stuck(
        "at-dirty",
        &[
            format!("tc={tc}"),
            format!("db={}", db.jdbc()),
            "table=accounts".into(),
            "id=4721".into(),
            format!("app={}", unique("atmy")),
            "halt=after-dirty-write".into(),
            "timeout_ms=2000".into(),
        ],
    );
    let xid = line(&lines, "global").fields["xid"].clone();
    let branch = line(&lines, "branch").fields["branch_id"].clone();
    let dir = tempfile::tempdir().unwrap();
    let (user, cnf) = admin();
    let config = config(dir.path(), &db, (&user, &cnf), "undo_log: undo_log", "");
    let row = || {
        sql(&format!(
            "SELECT amount, note FROM {}.accounts WHERE id = 4721",
            db.name
        ))
    };
    wait_for("the global timed out and retried", || {
        let (r, _) = globals(&config);
        r["coordinators"][0]["snapshot"]["overdue"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|g| g["xid"] == xid.as_str() && g["status"] == 6)
    });
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(
        out.stdout.contains("row accounts id=4721 was changed after the branch (amount: the branch wrote 90, now 7; note: the branch wrote \"seata\", now \"dirty\")"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let (r, _) = globals(&config);
    let next = next_about(&r, &xid);
    assert!(
        next.contains(" resolve at ") && next.ends_with("--dry-run"),
        "{next}"
    );
    let (dry, code) = pasted(&next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    let statement = dry["statements"][0].as_str().unwrap().to_string();
    assert!(
        statement.starts_with(
            "UPDATE `accounts` SET `amount` = 90, `note` = 'seata' WHERE `id` = 4721 AND "
        ),
        "{statement}"
    );
    assert_eq!(row(), "7\tdirty\n", "a dry run changes nothing");
    // Changed again after the read: the statement as printed changes no row.
    sql(&format!(
        "UPDATE {}.accounts SET note = 'DIRTY' WHERE id = 4721",
        db.name
    ));
    let changed = sql(&format!("USE {}; {statement} SELECT ROW_COUNT();", db.name));
    assert_eq!(
        changed.trim(),
        "0",
        "the guard holds on a case change: {statement}"
    );
    sql(&format!(
        "UPDATE {}.accounts SET note = 'dirty' WHERE id = 4721",
        db.name
    ));
    let audit = dir.path().join("audit.jsonl");
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&config)
        .args(["resolve", "at", &xid, "--branch-id", &branch])
        .args(["--fix", "after-image", "--audit-log"])
        .arg(&audit)
        .args(["--yes", "--reason", "the dirty write was a mistake"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let done: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    assert_eq!(done["target"]["kind"], "mysql", "{done:#}");
    assert_eq!(row(), "90\tseata\n", "set back to the after image");
    // A client of the database takes the coordinator's next retry.
    stuck(
        "at-serve",
        &[
            format!("tc={tc}"),
            format!("db={}", db.jdbc()),
            "table=accounts".into(),
            "id=4721".into(),
            format!("app={}", unique("atmyserve")),
            "serve_ms=30000".into(),
            format!("until_ended={xid}"),
        ],
    );
    common::seata::wait_ended(&store, &xid);
    assert_eq!(row(), "100\tbefore\n", "rolled back to the before image");
}

/// TCC with its fence in MariaDB: a Cancel that fails on every retry holds its Try;
/// `seata tcc` names the reservation, its next (a dry run) pasted reads the same, and
/// `resolve tcc --as cancelled` marks the fence record in MariaDB's SQL, after which the
/// coordinator's retry ends the global.
#[test]
fn a_try_held_in_a_mariadb_fence_is_found_and_marked_cancelled_by_hand() {
    let (tc, store) = coordinator();
    let db = MysqlDb::create("seata_tccmy");
    let harness = {
        let args = vec![
            format!("tc={tc}"),
            format!("db={}", db.jdbc()),
            "table=resv".into(),
            "id=5".into(),
            format!("app={}", unique("tccmy")),
            "serve_ms=25000".into(),
        ];
        std::thread::spawn(move || stuck("tcc-cancel-fails", &args))
    };
    let dir = tempfile::tempdir().unwrap();
    let (user, cnf) = admin();
    let config = config(
        dir.path(),
        &db,
        (&user, &cnf),
        "tcc_fence_log: tcc_fence_log",
        "    reservation_age: 1s\n",
    );
    let mut held = Value::Null;
    wait_for("the Try held while its Cancel is retried", || {
        let (r, _) = probe(&config, &["seata", "tcc"]);
        match r["coordinators"][0]["clients"][0]["reservations"][0].clone() {
            x if x["global"]["status"] == 5 => {
                held = x;
                true
            }
            _ => false,
        }
    });
    assert_eq!(held["action_name"], "indoubt-lab-reserve", "{held:#}");
    let xid = held["xid"].as_str().unwrap().to_string();
    let fence_status = || {
        sql(&format!(
            "SELECT status FROM {}.tcc_fence_log WHERE xid = '{xid}'",
            db.name
        ))
        .trim()
        .to_string()
    };
    let (r, _) = probe(&config, &["seata", "tcc"]);
    let next = next_about(&r, &xid);
    let (dry, code) = pasted(&next);
    assert_eq!(code, Some(0), "{next}: {dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    assert!(
        dry["statement"].as_str().is_some_and(|s| s.starts_with(
            "UPDATE `tcc_fence_log` SET status = 3, gmt_modified = NOW(3) WHERE xid = '"
        )),
        "{dry:#}"
    );
    assert_eq!(fence_status(), "1", "a dry run changes nothing");
    let audit = dir.path().join("audit.jsonl");
    let (done, code) = pasted(&next.replace(
        "--dry-run",
        &format!(
            "--yes --reason 'released by hand' --audit-log {}",
            audit.display()
        ),
    ));
    assert_eq!(code, Some(0), "{done:#}");
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    assert_eq!(fence_status(), "3", "marked rolled back");
    common::seata::wait_ended(&store, &xid);
    harness.join().unwrap();
}

/// A saga whose compensation failed, its store in MariaDB: named by business key with its
/// failed states, and its next (the instance's states, in MariaDB's SQL) runs as printed.
/// A client table the account may not read is UNKNOWN with the MariaDB GRANT, which, run
/// by an admin as printed, lets the next run read it; a table that is not there is named.
#[test]
fn a_saga_in_a_mariadb_store_is_named_and_an_unreadable_table_gets_its_grant() {
    let (tc, _) = coordinator();
    let db = MysqlDb::create("seata_sagamy");
    let key = unique("q");
    stuck(
        "saga-compensation-failed",
        &[
            format!("tc={tc}"),
            format!("db={}", db.jdbc()),
            format!("business_key={key}"),
            format!("app={}", unique("sagamy")),
            "serve_ms=0".into(),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let (user, cnf) = admin();
    let sagas = config(
        dir.path(),
        &db,
        (&user, &cnf),
        "saga_table_prefix: seata_",
        "",
    );
    let (r, out) = probe(&sagas, &["seata", "sagas"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let failed = r["coordinators"][0]["clients"][0]["stuck"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["business_key"] == key.as_str())
        .unwrap_or_else(|| panic!("no stuck instance {key}: {r:#}"))
        .clone();
    assert_eq!(failed["compensation_status"], "FA", "{failed:#}");
    assert_eq!(failed["states"][1]["compensates"], "Debit", "{failed:#}");
    let id = failed["id"].as_str().unwrap();
    let next = next_about(&r, id);
    let states = sql(&format!("USE {}; {next}", db.name));
    assert!(states.contains("Refund\tFA"), "{next}: {states}");
    // An account with no privilege in the database: MySQL refuses it the database itself;
    // UNKNOWN with the GRANT on the instance table (then, as it reads, on the others).
    let reader = unique("sagardr");
    sql(&format!(
        "CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw-{reader}'"
    ));
    let reader_cnf = dir.path().join("reader.cnf");
    std::fs::write(&reader_cnf, format!("[client]\npassword=pw-{reader}\n")).unwrap();
    let limited = config_for(dir.path(), &db, &reader, &reader_cnf);
    let (r, out) = probe(&limited, &["seata", "sagas"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let first = r["findings"][0]["next"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        first.ends_with(&format!(
            "GRANT SELECT ON `{}`.`seata_state_machine_inst` TO '{reader}'@'%';",
            db.name
        )),
        "{r:#}"
    );
    sql(&first);
    // Now it may read the instance table only: the other two are UNKNOWN with theirs.
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&limited)
        .args(["seata", "sagas"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    let grants: Vec<String> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "seata_client_unreadable")
        .filter_map(|f| f["next"].as_str().map(str::to_string))
        .collect();
    assert_eq!(grants.len(), 2, "{r:#}");
    for grant in &grants {
        assert!(
            grant.contains(&format!("GRANT SELECT ON `{}`.`seata_", db.name))
                && grant.ends_with(&format!("TO '{reader}'@'%';")),
            "{grant}"
        );
        sql(grant);
    }
    let (r, out) = probe(&limited, &["seata", "sagas"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        r["coordinators"][0]["clients"][0]["stuck"][0]["business_key"],
        key.as_str(),
        "{r:#}"
    );
    // A fence that is not there: named, UNKNOWN.
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(config(
            dir.path(),
            &db,
            (&user, &cnf),
            "tcc_fence_log: no_such_fence",
            "",
        ))
        .args(["seata", "tcc"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("no table no_such_fence"),
        "{}",
        out.stdout
    );
    sql(&format!("DROP USER '{reader}'@'%'"));
}

/// The saga client's config as another account.
fn config_for(
    dir: &std::path::Path,
    db: &MysqlDb,
    user: &str,
    cnf: &std::path::Path,
) -> std::path::PathBuf {
    config(
        dir,
        db,
        (user, &cnf.display().to_string()),
        "saga_table_prefix: seata_",
        "",
    )
}
