//! `indoubt seata globals` against the real Apache Seata 2.0.0 coordinator (its store in
//! the lab's PostgreSQL) and global transactions left stuck by Seata's own clients.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::seata::{coordinator, coordinator_mariadb, line, stuck};
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

/// A next command as printed (an `indoubt …` line), run by `sh` with the indoubt under
/// test first on PATH and `-o json`: its report and exit status.
pub(crate) fn pasted(next: &str) -> (Value, Option<i32>) {
    let bin = assert_cmd::cargo::cargo_bin("indoubt");
    let out = std::process::Command::new("sh")
        .args(["-c", &next.replacen("indoubt ", "indoubt -o json ", 1)])
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", bin.parent().unwrap().display()),
        )
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{next}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (report, out.status.code())
}

pub(crate) fn globals(config: &std::path::Path) -> (Value, Outcome) {
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
    let clients = format!(
        "    clients:\n      biz:\n        postgres: {}\n        undo_log: undo_log\n",
        db.url()
    );
    let config = write_config(dir.path(), &store, &clients);
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
    // The branch's undo log in the business database, against the row now: the dirty
    // write, column by column (the harness wrote 100/'before' -> 90/'seata', then 7/'dirty').
    let (r, _) = globals(&config);
    let branches = &r["coordinators"][0]["clients"][0]["undo"]["branches"];
    let undo = branches
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["xid"] == xid.as_str())
        .unwrap_or_else(|| panic!("no undo log of {xid}: {r:#}"));
    let check = &undo["checks"][0];
    assert_eq!(check["table"], table, "{undo:#}");
    assert_eq!(check["key"], "id=4711", "{undo:#}");
    assert_eq!(check["now"]["now"], "changed", "{undo:#}");
    let columns: Vec<(String, String, String)> = check["now"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("column"), s("after"), s("now"))
        })
        .collect();
    assert_eq!(
        columns,
        [
            ("amount".into(), "90".into(), "7".into()),
            ("note".into(), "\"seata\"".into(), "\"dirty\"".into())
        ],
        "{undo:#}"
    );
    assert_eq!(
        undo["images"][0]["before"][0]["fields"][1]["value"]["value"], "100",
        "the before image is decoded: {undo:#}"
    );
    // An undo log planted by someone who may write the business database, naming another
    // table: indoubt does not read that table (the global locks no row of it).
    let mut admin = db.admin();
    admin
        .batch_execute("CREATE TABLE secrets (id bigint PRIMARY KEY, v text); INSERT INTO secrets VALUES (1, 'hunter2-value')")
        .unwrap();
    let planted = r#"{"sqlUndoLogs":["java.util.ArrayList",[{"sqlType":"UPDATE","tableName":"secrets","beforeImage":{"rows":["java.util.ArrayList",[{"fields":["java.util.ArrayList",[{"name":"id","keyType":"PRIMARY_KEY","value":1},{"name":"v","keyType":"NULL","value":"x"}]]}]]},"afterImage":{"rows":["java.util.ArrayList",[{"fields":["java.util.ArrayList",[{"name":"id","keyType":"PRIMARY_KEY","value":1},{"name":"v","keyType":"NULL","value":"y"}]]}]]}}]]}"#;
    admin
        .execute(
            "INSERT INTO undo_log (branch_id, xid, context, rollback_info, log_status, log_created, log_modified) VALUES (1, $1, 'serializer=jackson&compressorType=NONE', convert_to($2, 'UTF8'), 0, localtimestamp, localtimestamp)",
            &[&xid.as_str(), &planted],
        )
        .unwrap();
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(!out.stdout.contains("hunter2"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "branch 1 is not an AT branch of this global in the coordinator's branch table"
        ),
        "{}",
        out.stdout
    );
    // The table and the finding: its xid, the locked row, the statement that lists them.
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(out.code >= 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(&xid), "{}", out.stdout);
    assert!(out.stdout.contains("accounts:4711"), "{}", out.stdout);
    assert!(
        out.stdout.contains("row accounts id=4711 was changed after the branch (amount: the branch wrote 90, now 7; note: the branch wrote \"seata\", now \"dirty\"): a dirty write, which the rollback refuses"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("a person decides"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("the coordinator no longer retries this rollback"),
        "RollbackFailed is not retried: {}",
        out.stdout
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("(explain: seata_global_given_up)"),
        "{}",
        out.stdout
    );
    // The branch's own undo log rewritten by whoever may write the business database:
    // what it names is read only where the lock table agrees, exactly.
    let branch_id = branch["branch_id"].as_i64().unwrap();
    let rewrite = |admin: &mut postgres::Client, images: &str| {
        admin
            .execute(
                "UPDATE undo_log SET rollback_info = convert_to($1, 'UTF8') WHERE xid = $2 AND branch_id = $3",
                &[&images, &xid.as_str(), &branch_id],
            )
            .unwrap();
    };
    let image = |table: &str, rows: &[(i64, &str)]| {
        let rows: Vec<String> = rows
            .iter()
            .map(|(id, rest)| format!(r#"{{"fields":["java.util.ArrayList",[{{"name":"id","keyType":"PRIMARY_KEY","value":["java.lang.Long",{id}]}}{rest}]]}}"#))
            .collect();
        format!(
            r#"{{"tableName":"{table}","rows":["java.util.ArrayList",[{}]]}}"#,
            rows.join(",")
        )
    };
    let undo_log = |table: &str, before: &str, after: &str| {
        format!(
            r#"{{"sqlUndoLogs":["java.util.ArrayList",[{{"sqlType":"UPDATE","tableName":"{table}","beforeImage":{before},"afterImage":{after}}}]]}}"#
        )
    };
    let undo_now = |config: &std::path::Path| -> Value {
        let (r, _) = globals(config);
        r["coordinators"][0]["clients"][0]["undo"]["branches"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|b| b["xid"] == xid.as_str() && b["branch_id"] == branch_id)
            .cloned()
            .unwrap_or_else(|| panic!("no undo log of branch {branch_id}: {r:#}"))
    };
    // Another table whose name differs only in case ("ACCOUNTS" is not accounts).
    admin
        .batch_execute("CREATE TABLE \"ACCOUNTS\" (id bigint PRIMARY KEY, password text); INSERT INTO \"ACCOUNTS\" VALUES (4711, 'hunter2-upper')")
        .unwrap();
    let pw = |v: &str| format!(r#",{{"name":"password","keyType":"NULL","value":"{v}"}}"#);
    rewrite(
        &mut admin,
        &undo_log(
            "ACCOUNTS",
            &image("ACCOUNTS", &[(4711, &pw("x"))]),
            &image("ACCOUNTS", &[(4711, &pw("y"))]),
        ),
    );
    let undo = undo_now(&config);
    assert!(!undo.to_string().contains("hunter2"), "{undo:#}");
    assert_eq!(undo["checks"][0]["now"]["now"], "not_compared", "{undo:#}");
    // A row of the locked table that the global does not lock is not read either; the
    // one it locks is paired with its after image by key, not by position, and a
    // char(n) column compares padded, as JDBC gave it to the image.
    admin
        .batch_execute(&format!(
            "ALTER TABLE {table} ADD COLUMN code char(8) NOT NULL DEFAULT 'CD';
             INSERT INTO {table} (id, amount, note) VALUES (9001, 1, 'other-secret')"
        ))
        .unwrap();
    let now: Vec<(i64, String)> = admin
        .query(
            &format!("SELECT amount::int8, note FROM {table} WHERE id = 4711"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let (amount, note) = &now[0];
    let row = |amount: i64, note: &str| {
        format!(
            r#",{{"name":"amount","keyType":"NULL","value":{amount}}},{{"name":"note","keyType":"NULL","value":"{note}"}},{{"name":"code","keyType":"NULL","value":"CD      "}}"#
        )
    };
    rewrite(
        &mut admin,
        &undo_log(
            table,
            &image(table, &[(4711, &row(100, "before")), (9001, &row(0, "x"))]),
            &image(table, &[(9001, &row(5, "y")), (4711, &row(*amount, note))]),
        ),
    );
    let undo = undo_now(&config);
    assert!(!undo.to_string().contains("other-secret"), "{undo:#}");
    let checks = undo["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2, "{undo:#}");
    assert_eq!(checks[0]["key"], "id=4711", "{undo:#}");
    assert_eq!(checks[0]["now"]["now"], "as_after", "{undo:#}");
    assert_eq!(checks[1]["key"], "id=9001", "{undo:#}");
    assert_eq!(checks[1]["now"]["now"], "not_compared", "{undo:#}");
    // The updated row deleted since: a dirty write too.
    admin
        .batch_execute(&format!("DELETE FROM {table} WHERE id = 4711"))
        .unwrap();
    let undo = undo_now(&config);
    assert_eq!(undo["checks"][0]["now"]["now"], "deleted", "{undo:#}");
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(
        out.stdout.contains(
            "row accounts id=4711 was deleted after the branch updated it: a dirty write"
        ),
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

/// One Seata XA global transaction across a PostgreSQL and a MariaDB database, made by
/// Seata's own XA data source proxies and halted where `halt` says; its two prepared
/// branches (format id 9752), and a config whose decision source is the coordinator's
/// store.
struct XaLab {
    pg: TestDb,
    my: common::mysql::MysqlDb,
    xid: String,
    store: String,
    dir: tempfile::TempDir,
}

impl XaLab {
    fn new(halt: &str, timeout_ms: u32) -> XaLab {
        let (tc, store) = coordinator();
        let pg = TestDb::create("seata_xa");
        let my = common::mysql::MysqlDb::create("seata_xa");
        let lines = stuck(
            "xa",
            &[
                format!("tc={tc}"),
                format!("db={}", common::xa::jdbc(&pg.url())),
                format!("db={}", my.jdbc()),
                "table=xa_orders".into(),
                "id=1".into(),
                format!("app={}", unique("xa")),
                format!("halt={halt}"),
                format!("timeout_ms={timeout_ms}"),
            ],
        );
        let xid = line(&lines, "global").fields["xid"].clone();
        assert_eq!(
            lines.iter().filter(|l| l.kind == "xa-prepared").count(),
            2,
            "a branch prepared in each database"
        );
        XaLab {
            pg,
            my,
            xid,
            store,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn config(&self) -> std::path::PathBuf {
        let path = self.dir.path().join("indoubt.yaml");
        std::fs::write(
            &path,
            format!(
                "postgres:\n  here:\n    conninfo: {}\nmysql:\n  maria:\n    url: {}\n    option_file: {}\n    ssl_mode: DISABLED\nresolve:\n  participants: [here, maria]\n  decision_sources:\n    - name: seata-tc\n      kind: seata_store\n      target: {}\n",
                self.pg.url(),
                common::mysql::url(),
                common::mysql::cnf(),
                self.store
            ),
        )
        .unwrap();
        path
    }

    /// The PostgreSQL branch's GID, while it is prepared.
    fn pg_gid(&self) -> Option<String> {
        let rows = self
            .pg
            .admin()
            .query(
                "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()",
                &[],
            )
            .unwrap();
        rows.first().map(|r| r.get(0))
    }

    /// The global's status in the coordinator's store.
    fn status(&self) -> Option<i16> {
        let rows = connect(&self.store)
            .query(
                "SELECT status FROM global_table WHERE xid = $1",
                &[&self.xid],
            )
            .unwrap();
        rows.first().map(|r| r.get(0))
    }

    fn resolve(&self, args: &[&str]) -> (Value, Outcome) {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(self.config())
            .arg("resolve")
            .args(args)
            .arg("--audit-log")
            .arg(self.dir.path().join("audit.jsonl")));
        (
            serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    }
}

/// The coordinator decided commit and the client died in the first branch's commit:
/// `pg prepared` decodes the branch as Seata's (its global xid and branch id), and
/// `resolve pg --all-branches` reads the commit from the coordinator's global table and
/// commits both branches, the MariaDB one too.
#[test]
fn a_seata_xa_branch_is_committed_by_the_coordinators_decision_on_both_engines() {
    let lab = XaLab::new("commit", 60_000);
    assert!(
        matches!(lab.status(), Some(2) | Some(3)),
        "the coordinator decided commit: {:?}",
        lab.status()
    );
    let gid = lab.pg_gid().expect("the PostgreSQL branch is prepared");
    let (dry, out) = lab.resolve(&["pg", &gid, "--pg", "here", "--all-branches", "--dry-run"]);
    assert_eq!(out.code, 0, "{dry:#}{}", out.stderr);
    let decoded = &dry["decoded_gid"];
    assert_eq!(decoded["transaction_manager"], "Seata", "{dry:#}");
    assert_eq!(decoded["seata"]["xid"], lab.xid.as_str(), "{dry:#}");
    let answer = &dry["decision_sources"][0];
    assert_eq!(answer["answer"], "commit", "{dry:#}");
    assert_eq!(answer["authoritative"], true, "{dry:#}");
    assert_eq!(dry["proposal"]["decision"], "commit", "{dry:#}");
    assert_eq!(
        dry["mysql_siblings"].as_array().map(Vec::len),
        Some(1),
        "{dry:#}"
    );
    let (done, out) = lab.resolve(&[
        "pg",
        &gid,
        "--pg",
        "here",
        "--all-branches",
        "--commit",
        "--yes",
        "--reason",
        "the Seata coordinator decided commit",
    ]);
    assert_eq!(out.code, 0, "{done:#}{}", out.stderr);
    assert_eq!(done["outcome"]["status"], "ok", "{done:#}");
    assert_eq!(done["mysql_siblings"][0]["state"], "committed", "{done:#}");
    assert_eq!(lab.pg_gid(), None);
    // Committed, not rolled back: the row is there on both engines.
    let pg_rows: i64 = lab
        .pg
        .admin()
        .query_one("SELECT count(*) FROM xa_orders", &[])
        .unwrap()
        .get(0);
    assert_eq!(pg_rows, 1);
    assert_eq!(lab.my.rows_of("xa_orders"), 1);
}

/// A global whose client died after phase one: Begin until its timeout, then the
/// coordinator times it out (TimeoutRollbacking). Before, `resolve mysql` reads "not yet
/// decided" and proposes nothing; after, it proposes the rollback the coordinator decided.
#[test]
fn a_seata_xa_branch_is_not_decided_before_the_coordinator_times_it_out_then_rolled_back() {
    let lab = XaLab::new("prepared", 8_000);
    let xid_args = |r: &Value| -> Option<String> {
        r["branches"].as_array()?.iter().find_map(|b| {
            (b["decoded_xid"]["seata"]["xid"] == lab.xid.as_str())
                .then(|| b["xid"].as_str().unwrap().to_string())
        })
    };
    let out = run(indoubt()
        .args(["-o", "json", "mysql", "xa"])
        .args(common::mysql::target_args()));
    let xid = xid_args(&serde_json::from_str(&out.stdout).unwrap()).expect("the MariaDB branch");
    if lab.status() == Some(1) {
        let (dry, _) = lab.resolve(&["mysql", &xid, "--mysql", "maria", "--dry-run"]);
        assert_eq!(
            dry["decision_sources"][0]["answer"], "in_progress",
            "{dry:#}"
        );
        assert!(dry["proposal"]["decision"].is_null(), "{dry:#}");
    }
    wait_for("the coordinator to time the global out", || {
        matches!(lab.status(), Some(6) | Some(7))
    });
    let (done, out) = lab.resolve(&[
        "mysql",
        &xid,
        "--mysql",
        "maria",
        "--all-branches",
        "--rollback",
        "--yes",
        "--reason",
        "the Seata coordinator timed it out",
    ]);
    assert_eq!(out.code, 0, "{done:#}{}", out.stderr);
    assert_eq!(
        done["decision_sources"][0]["answer"], "rollback",
        "{done:#}"
    );
    assert_eq!(done["outcome"]["status"], "ok", "{done:#}");
    assert_eq!(done["siblings"][0]["state"], "rolled_back", "{done:#}");
    assert_eq!(lab.pg_gid(), None);
    assert_eq!(lab.my.rows_of("xa_orders"), 0);
}

/// `config show` lists each coordinator: its store without the password, its tables as
/// configured, its grace and critical age with where each comes from, and whether
/// `check` runs it (from the probe's own plan).
#[test]
fn config_show_lists_each_coordinator_with_its_settings_and_their_sources() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.yaml");
    std::fs::write(
        &path,
        "seata:\n  orders-tc:\n    postgres: postgres://monitor:s3cret@db1:5432/seata\n    lock_table: tc.lock_table\n    critical_age: 1h\n    check: true\n  payments-tc:\n    postgres: postgres://monitor@db2/seata\n",
    )
    .unwrap();
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&path)
        .args(["config", "show"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("s3cret"), "{}", out.stdout);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    let c = &r["seata_coordinators"];
    assert_eq!(c[0]["name"], "orders-tc");
    assert_eq!(c[0]["postgres"], "monitor@db1:5432/seata");
    assert_eq!(c[0]["lock_table"], "tc.lock_table");
    assert_eq!(c[0]["global_table"], "global_table");
    assert_eq!(c[0]["grace"]["value"], "2m10s", "{c:#}");
    assert_eq!(c[0]["grace"]["source"], "default");
    assert_eq!(c[0]["critical_age"]["value"], "1h");
    assert_eq!(
        c[0]["critical_age"]["source"],
        "config seata.orders-tc.critical_age"
    );
    assert_eq!(c[0]["check"], true);
    assert_eq!(c[1]["check"], false);
}

/// `config show --check` checks that the role may read the coordinator's three tables
/// and the columns `seata globals` reads; one it may not read is CRITICAL with the GRANT
/// to that role.
#[test]
fn config_show_check_names_the_grant_the_role_lacks_on_the_store() {
    let (_, store) = coordinator();
    let role = TestRole::create("seata_check", "");
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &replace_credentials(&store, &role.name, &role.password),
        "",
    );
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&config)
        .args(["config", "show", "--check"]));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    let findings = r["findings"].as_array().unwrap();
    for table in ["global_table", "branch_table", "lock_table"] {
        let grant = format!("GRANT SELECT ON TABLE \"{table}\" TO \"{}\";", role.name);
        assert!(
            findings.iter().any(|f| f["code"] == "pg_table_unreadable"
                && f["next"].as_str().is_some_and(|n| n.contains(&grant))),
            "{grant} in {findings:#?}"
        );
    }
}

/// Lock rows whose global transaction is gone from the global table (as when a global's
/// row was deleted by hand): CRITICAL, counted by rows and globals, a sample shown, and
/// the SELECT that lists them by row_key.
#[test]
fn locks_of_a_global_that_is_gone_are_orphans_listed_by_row_key() {
    let (_, store) = coordinator();
    let xid = format!("10.9.9.9:8091:{}", unique("gone").replace('_', ""));
    let key = |pk: &str| format!("jdbc:postgresql://gone/db^^^gone_stock^^^{pk}-{xid}");
    let mut admin = connect(&store);
    for pk in ["sku-1", "sku-2"] {
        admin
            .execute(
                "INSERT INTO lock_table (row_key, xid, branch_id, resource_id, table_name, pk, status, gmt_create, gmt_modified)
                 VALUES ($1, $2, 1, 'jdbc:postgresql://gone/db', 'gone_stock', $3, 0, localtimestamp, localtimestamp)",
                &[&key(pk), &xid, &pk],
            )
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &store, "    check: true\n");
    let (r, out) = globals(&config);
    // check (and serve) measure them: the store's orphaned locked rows.
    let measured = prometheus_check(&config);
    admin
        .execute("DELETE FROM lock_table WHERE xid = $1", &[&xid])
        .unwrap();
    let orphan_rows =
        crate::metrics::value(&measured, "indoubt_seata_orphan_locked_rows{target=\"tc\"}");
    assert!(orphan_rows >= 2.0, "{measured}");
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let orphans = &r["coordinators"][0]["snapshot"]["orphan_locks"];
    assert!(orphans["rows"].as_i64().unwrap() >= 2, "{orphans:#}");
    assert!(orphans["xids"].as_i64().unwrap() >= 1, "{orphans:#}");
    let finding = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "seata_orphan_locks")
        .unwrap_or_else(|| panic!("{r:#}"));
    assert_eq!(finding["severity"], "CRITICAL");
    assert!(
        finding["next"]
            .as_str()
            .unwrap()
            .contains("WHERE NOT EXISTS (SELECT 1 FROM \"global_table\" AS g WHERE g.xid = l.xid)"),
        "{finding:#}"
    );
}

/// A config naming the lab's coordinator and one client database holding `tables`
/// (`tcc_fence_log: tcc_fence_log`, …), with `extra` settings of the coordinator.
fn client_config(
    dir: &std::path::Path,
    store: &str,
    db: &TestDb,
    tables: &str,
    extra: &str,
) -> std::path::PathBuf {
    let tables: String = tables
        .split(',')
        .map(|t| format!("        {}\n", t.trim()))
        .collect();
    write_config(
        dir,
        store,
        &format!(
            "{extra}    clients:\n      biz:\n        postgres: {}\n{tables}",
            db.url()
        ),
    )
}

/// `check --only seata -o prometheus`: the exposition `serve` would give.
fn prometheus_check(config: &std::path::Path) -> String {
    let out = run(indoubt()
        .args(["-o", "prometheus", "--config"])
        .arg(config)
        .args(["check", "--only", "seata"]));
    assert!(out.stdout.contains("indoubt_build_info"), "{}", out.stderr);
    common::promtool_accepts(&out.stdout);
    out.stdout
}

pub(crate) fn probe(config: &std::path::Path, args: &[&str]) -> (Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(config)
        .args(args));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// TCC through Seata's own fence: a Try whose client died before the global ended (the
/// coordinator times it out and retries the Cancel with no client to run it), a Cancel
/// that came before its Try (a suspended record). `seata tcc` names the Try a
/// reservation held, with its action and its global's status, and counts the suspended.
#[test]
fn a_tcc_try_nobody_confirms_or_cancels_is_a_reservation_held() {
    let (tc, store) = coordinator();
    let db = TestDb::create("seata_tcc");
    let jdbc = common::xa::jdbc(&db.url());
    let tried = stuck(
        "tcc-no-cancel",
        &[
            format!("tc={tc}"),
            format!("db={jdbc}"),
            "table=resv".into(),
            "id=1".into(),
            format!("app={}", unique("tcc")),
            "timeout_ms=2000".into(),
        ],
    );
    let xid = line(&tried, "tried").fields["xid"].clone();
    stuck(
        "tcc-suspended",
        &[
            format!("tc={tc}"),
            format!("db={jdbc}"),
            "table=resv".into(),
            "id=3".into(),
            format!("app={}", unique("tcs")),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let config = client_config(
        dir.path(),
        &store,
        &db,
        "tcc_fence_log: tcc_fence_log",
        "    reservation_age: 1s\n    check: true\n",
    );
    let mut found = Value::Null;
    wait_for("the Try past its global's timeout", || {
        let (r, _) = probe(&config, &["seata", "tcc"]);
        let client = &r["coordinators"][0]["clients"][0];
        let hit = client["reservations"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|x| x["xid"] == xid.as_str() && x["global"]["status"] == 6)
            .cloned();
        match hit {
            Some(_) => {
                found = r.clone();
                true
            }
            None => false,
        }
    });
    let client = &found["coordinators"][0]["clients"][0];
    let reservation = &client["reservations"][0];
    assert_eq!(
        reservation["action_name"], "indoubt-lab-reserve",
        "{client:#}"
    );
    assert_eq!(reservation["severity"], "WARNING", "{client:#}");
    assert_eq!(reservation["held_since"], "global_begin", "{client:#}");
    let suspended = client["by_status"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "suspended")
        .unwrap_or_else(|| panic!("no suspended count: {client:#}"));
    assert_eq!(suspended["records"], 1, "{client:#}");
    // check (and serve) measure it: the client's stuck reservations and the oldest's age.
    let measured = prometheus_check(&config);
    let series = |family: &str| format!("{family}{{target=\"tc\",client=\"biz\"}}");
    assert!(
        crate::metrics::value(&measured, &series("indoubt_seata_tcc_stuck_reservations")) >= 1.0,
        "{measured}"
    );
    assert!(
        crate::metrics::value(
            &measured,
            &series("indoubt_seata_tcc_oldest_stuck_reservation_age_seconds")
        ) >= 1.0,
        "{measured}"
    );
    assert!(
        crate::metrics::value(&measured, &series("indoubt_seata_tcc_open_tries")) >= 1.0,
        "{measured}"
    );
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "tcc"]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("its global is TimeoutRollbacking: the coordinator retries its Cancel until the service completes it"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("(explain: seata_tcc_reservation)"),
        "{}",
        out.stdout
    );
}

/// Sagas run by Seata's state machine engine: one whose Charge state's outcome is
/// unknown (the coordinator retries it forward), one whose compensation (Refund of
/// Debit) failed (the coordinator retries the compensation), one whose application died
/// inside Charge (running, unchanged past the stall). `seata sagas` names each with its
/// business key and the states that did not succeed.
#[test]
fn saga_instances_unknown_or_with_a_failed_compensation_are_named_by_business_key() {
    let (tc, store) = coordinator();
    let db = TestDb::create("seata_saga");
    let jdbc = common::xa::jdbc(&db.url());
    let (unknown_key, failed_key, running_key) = (unique("o"), unique("p"), unique("r"));
    for (command, key, more) in [
        ("saga-unknown", &unknown_key, "serve_ms=0"),
        ("saga-compensation-failed", &failed_key, "serve_ms=0"),
        // Halts the JVM inside its Charge state: running, and nothing moves it.
        ("saga-running", &running_key, "timeout_ms=60000"),
    ] {
        stuck(
            command,
            &[
                format!("tc={tc}"),
                format!("db={jdbc}"),
                format!("business_key={key}"),
                format!("app={}", unique("saga")),
                more.into(),
            ],
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let config = client_config(
        dir.path(),
        &store,
        &db,
        "saga_table_prefix: seata_",
        "    saga_stall: 1s\n    check: true\n",
    );
    // The running one is stuck once unchanged for the stall (a second).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (r, out) = probe(&config, &["seata", "sagas"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let stuck = r["coordinators"][0]["clients"][0]["stuck"]
        .as_array()
        .unwrap();
    let by_key = |key: &str| {
        stuck
            .iter()
            .find(|s| s["business_key"] == key)
            .unwrap_or_else(|| panic!("no stuck instance {key}: {r:#}"))
    };
    let unknown = by_key(&unknown_key);
    assert_eq!(unknown["status"], "UN", "{unknown:#}");
    assert_eq!(unknown["machine"], "indoubtLabOrder", "{unknown:#}");
    assert_eq!(unknown["states"][0]["name"], "Charge", "{unknown:#}");
    assert_eq!(
        unknown["global"]["status_name"], "CommitRetrying",
        "{unknown:#}"
    );
    let failed = by_key(&failed_key);
    assert_eq!(failed["compensation_status"], "FA", "{failed:#}");
    let states: Vec<(String, String, Value)> = failed["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().into(),
                s["status"].as_str().unwrap().into(),
                s["compensates"].clone(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("Charge".into(), "FA".into(), Value::Null),
            ("Refund".into(), "FA".into(), Value::from("Debit")),
        ],
        "{failed:#}"
    );
    assert_eq!(
        failed["global"]["status_name"], "RollbackRetrying",
        "{failed:#}"
    );
    let running = by_key(&running_key);
    assert_eq!(running["status"], "RU", "{running:#}");
    assert_eq!(running["states"][0]["name"], "Charge", "{running:#}");
    assert_eq!(running["states"][0]["status"], "RU", "{running:#}");
    assert_eq!(running["global"]["status_name"], "Begin", "{running:#}");
    // check (and serve) measure them: three stuck of at least three unended.
    let measured = prometheus_check(&config);
    let series = |family: &str| format!("{family}{{target=\"tc\",client=\"biz\"}}");
    let stuck_n = crate::metrics::value(&measured, &series("indoubt_seata_saga_stuck_instances"));
    assert_eq!(stuck_n, 3.0, "{measured}");
    assert!(
        crate::metrics::value(&measured, &series("indoubt_seata_saga_unended_instances")) >= 3.0,
        "{measured}"
    );
    assert!(
        crate::metrics::value(
            &measured,
            &series("indoubt_seata_saga_oldest_stuck_unchanged_seconds")
        ) >= 1.0,
        "{measured}"
    );
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "sagas"]));
    assert!(
        out.stdout.contains(&format!(
            "seata saga indoubtLabOrder business key {failed_key}"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("its compensation failed: what its succeeded states did is not undone (states: Charge failed, Refund failed (compensates Debit)); its global is RollbackRetrying: the coordinator retries it"),
        "{}",
        out.stdout
    );
}

/// A client whose fence and saga tables are not there: UNKNOWN (exit 3) naming each,
/// never an OK.
#[test]
fn a_client_table_that_is_not_there_is_unknown() {
    let (_, store) = coordinator();
    let db = TestDb::create("seata_none");
    let dir = tempfile::tempdir().unwrap();
    let config = client_config(
        dir.path(),
        &store,
        &db,
        "tcc_fence_log: tcc_fence_log, saga_table_prefix: seata_",
        "",
    );
    for (probe_name, table) in [
        ("tcc", "tcc_fence_log"),
        ("sagas", "seata_state_machine_inst"),
    ] {
        let out = run(indoubt()
            .args(["--width", "1000", "--config"])
            .arg(&config)
            .args(["seata", probe_name]));
        assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains(&format!("no table {table}")),
            "{}",
            out.stdout
        );
        assert!(
            out.stdout.contains("(explain: seata_client_unreadable)"),
            "{}",
            out.stdout
        );
    }
}

/// A coordinator whose store is in MariaDB (`store.db.db-type: mysql`, as Seata's users
/// on MariaDB run it): an AT global whose client died after a dirty write is timed out
/// and retried, and `seata globals` reads it there as on PostgreSQL — its status, its
/// branch, its row lock and (from the business database's undo log) the dirty write.
#[test]
fn a_store_in_mariadb_is_read_as_one_in_postgres() {
    let (tc, store_url) = coordinator_mariadb();
    let db = TestDb::create("seata_my");
    let lines = stuck(
        "at-dirty",
        &[
            format!("tc={tc}"),
            format!("db={}", common::xa::jdbc(&db.url())),
            "table=accounts".into(),
            "id=4712".into(),
            format!("app={}", unique("atm")),
            "halt=after-dirty-write".into(),
            "timeout_ms=2000".into(),
        ],
    );
    let xid = line(&lines, "global").fields["xid"].clone();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "mysql:\n  store:\n    url: {store_url}\n    option_file: {}\n    ssl_mode: DISABLED\nseata:\n  tc:\n    mysql: store\n    grace: 1s\n    clients:\n      biz:\n        postgres: {}\n        undo_log: undo_log\n",
            common::mysql::cnf(),
            db.url()
        ),
    )
    .unwrap();
    let mut found = Value::Null;
    wait_for(
        "the global timed out, past its grace, in the MariaDB store",
        || {
            let (r, _) = globals(&config);
            let hit = r["coordinators"][0]["snapshot"]["overdue"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|g| g["xid"] == xid.as_str() && g["status"] == 6)
                .cloned();
            match hit {
                Some(g) => {
                    found = g;
                    true
                }
                None => false,
            }
        },
    );
    let g = &found;
    assert_eq!(g["status_name"], "TimeoutRollbacking", "{g:#}");
    assert_eq!(g["branches"][0]["branch_type"], "AT", "{g:#}");
    assert_eq!(g["locks"]["rows"], 1, "{g:#}");
    assert_eq!(g["locks"]["sample"][0]["pk"], "4712", "{g:#}");
    assert!(g["past_timeout_seconds"].as_f64().unwrap() > 1.0, "{g:#}");
    assert!(g["locks"]["held_since"].is_string(), "{g:#}");
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(out.code >= 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("row accounts id=4712 was changed after the branch (amount: the branch wrote 90, now 7; note: the branch wrote \"seata\", now \"dirty\")"),
        "{}",
        out.stdout
    );
    // Its next: resolve at's dry run, which reads the branch and its locks from the
    // MariaDB store, pasted into a shell.
    let next_of = || {
        let (r, _) = globals(&config);
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["evidence"]["xid"] == xid.as_str())
            .and_then(|f| f["next"].as_str())
            .unwrap_or_else(|| panic!("no next: {r:#}"))
            .to_string()
    };
    let next = next_of();
    assert!(next.contains(" resolve at "), "{next}");
    let (dry, code) = pasted(&next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    assert_eq!(dry["branch_in_store"], true, "{dry:#}");
    // The row as the branch left it: no dirty write, and the next is the SELECT of its
    // branches and locks in MariaDB's SQL, which runs as printed in the store's database.
    db.admin()
        .batch_execute("UPDATE accounts SET amount = 90, note = 'seata' WHERE id = 4712")
        .unwrap();
    let next = next_of();
    let database = store_url.rsplit_once('/').unwrap().1;
    let listed = common::mysql::sql(&format!("USE `{database}`; {next}"));
    assert!(
        listed.contains("\tAT\t") && listed.contains("accounts\t4712"),
        "{next}: {listed}"
    );
    // A table the store does not have: UNKNOWN, named.
    let wrong = dir.path().join("wrong.yaml");
    std::fs::write(
        &wrong,
        std::fs::read_to_string(&config).unwrap().replace(
            "    grace: 1s\n",
            "    grace: 1s\n    lock_table: no_such_locks\n",
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["--width", "1000", "--config"])
        .arg(&wrong)
        .args(["seata", "globals"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("no table no_such_locks"),
        "{}",
        out.stdout
    );
}

/// The recovery the TCC fence allows: a Cancel that fails on every retry (the service
/// refuses it; the harness keeps serving the coordinator's retries) is done by hand,
/// then `resolve tcc --as cancelled` marks the Try rolled back in its fence — after a dry
/// run that changes nothing and a refusal of the phase the coordinator did not decide.
/// The coordinator's next retry of the Cancel finds it done (Seata's fence answers
/// without calling the service) and the global transaction ends.
#[test]
fn a_try_marked_cancelled_by_hand_lets_the_coordinators_retry_end_its_global() {
    let (tc, store) = coordinator();
    let db = TestDb::create("seata_fix");
    let jdbc = common::xa::jdbc(&db.url());
    let app = unique("tfx");
    let harness = {
        let args = vec![
            format!("tc={tc}"),
            format!("db={jdbc}"),
            "table=resv".into(),
            "id=2".into(),
            format!("app={app}"),
            "serve_ms=25000".into(),
        ];
        std::thread::spawn(move || stuck("tcc-cancel-fails", &args))
    };
    let dir = tempfile::tempdir().unwrap();
    let config = client_config(
        dir.path(),
        &store,
        &db,
        "tcc_fence_log: tcc_fence_log",
        "    reservation_age: 1s\n",
    );
    let audit = dir.path().join("audit.jsonl");
    let mut held = Value::Null;
    wait_for(
        "the Try held while the coordinator retries its Cancel",
        || {
            let (r, _) = probe(&config, &["seata", "tcc"]);
            match r["coordinators"][0]["clients"][0]["reservations"][0].clone() {
                x if x["global"]["status"] == 5 => {
                    held = x;
                    true
                }
                _ => false,
            }
        },
    );
    let xid = held["xid"].as_str().unwrap().to_string();
    let branch = held["branch_id"].as_i64().unwrap().to_string();
    let fence_status = || -> i16 {
        db.admin()
            .query_one(
                "SELECT status FROM tcc_fence_log WHERE xid = $1",
                &[&xid.as_str()],
            )
            .unwrap()
            .get(0)
    };
    let resolve = |more: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&config)
            .args([
                "resolve",
                "tcc",
                &xid,
                "--branch-id",
                &branch,
                "--audit-log",
            ])
            .arg(&audit)
            .args(more));
        let json: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (json, out)
    };
    // The reservation's next, as `seata tcc` prints it (a dry run), pasted into a
    // shell: the same Try, the phase the coordinator decided.
    let (r, _) = probe(&config, &["seata", "tcc"]);
    let next = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "seata_tcc_reservation")
        .and_then(|f| f["next"].as_str())
        .unwrap_or_else(|| panic!("no reservation next: {r:#}"))
        .to_string();
    assert!(
        next.contains("--as cancelled") && next.ends_with("--dry-run"),
        "{next}"
    );
    let (dry, code) = pasted(&next);
    assert_eq!(code, Some(0), "{next}: {dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{next}: {dry:#}");
    let (dry, out) = resolve(&["--as", "cancelled", "--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    assert_eq!(
        dry["heuristic"], false,
        "the coordinator decided rollback: {dry:#}"
    );
    assert_eq!(fence_status(), 1, "a dry run changes nothing");
    let (conflict, out) = resolve(&["--as", "confirmed", "--yes", "--reason", "test"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        conflict["findings"][0]["code"], "tcc_phase_conflict",
        "{conflict:#}"
    );
    assert_eq!(fence_status(), 1, "a refusal changes nothing");
    let (done, out) = resolve(&[
        "--as",
        "cancelled",
        "--yes",
        "--reason",
        "reservation released by hand",
    ]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    assert_eq!(done["outcome"]["status"], "ok", "{done:#}");
    assert_eq!(fence_status(), 3, "marked rolled back");
    let trail = std::fs::read_to_string(&audit).unwrap();
    assert!(trail.contains("reservation released by hand"), "{trail}");
    // Asked again: already so, nothing done.
    let (again, out) = resolve(&["--as", "cancelled", "--yes", "--reason", "again"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        again["findings"][0]["code"], "already_resolved",
        "{again:#}"
    );
    // The coordinator's next Cancel reaches the live client, whose fence says it ran.
    common::seata::wait_ended(&store, &xid);
    // A branch that is not there: UNKNOWN, nothing done.
    let out = run(indoubt()
        .args(["--config"])
        .arg(&config)
        .args([
            "resolve",
            "tcc",
            &xid,
            "--branch-id",
            "1",
            "--as",
            "cancelled",
            "--audit-log",
        ])
        .arg(&audit)
        .args(["--yes", "--reason", "typo"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("holds no record of branch 1"),
        "{}",
        out.stdout
    );
    harness.join().unwrap();
}

/// `config show --check` reads a MariaDB store's three tables as the store's account
/// does: a table it may not read is CRITICAL with the GRANT (which, pasted as an admin,
/// makes the check pass), a table that is not there is named.
#[test]
fn config_show_check_reads_a_mariadb_stores_tables_as_its_account() {
    let (_, store_url) = coordinator_mariadb();
    let (_, address) = store_url
        .strip_prefix("mysql://")
        .and_then(|rest| rest.split_once('@'))
        .expect("mysql://USER@ADDRESS/DB");
    let database = address.rsplit_once('/').expect("a database").1.to_string();
    let user = unique("seatachk");
    common::mysql::sql(&format!(
        "CREATE USER '{user}'@'%' IDENTIFIED BY 'pw-{user}'; GRANT SELECT ON `{database}`.`global_table` TO '{user}'@'%'"
    ));
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("chk.cnf");
    std::fs::write(&cnf, format!("[client]\npassword=pw-{user}\n")).unwrap();
    let config = dir.path().join("c.yaml");
    let yaml = format!(
        "mysql:\n  store:\n    url: mysql://{user}@{address}\n    option_file: {}\n    ssl_mode: DISABLED\nseata:\n  tc:\n    mysql: store\n",
        cnf.display()
    );
    std::fs::write(&config, &yaml).unwrap();
    let check = |config: &std::path::Path| {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(config)
            .args(["config", "show", "--check"]));
        let r: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
        let unreadable: Vec<Value> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "mysql_table_unreadable")
            .cloned()
            .collect();
        (unreadable, out)
    };
    let (unreadable, out) = check(&config);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(unreadable.len(), 2, "{unreadable:#?}");
    for (finding, table) in unreadable.iter().zip(["branch_table", "lock_table"]) {
        assert_eq!(finding["severity"], "CRITICAL", "{finding:#}");
        let grant = format!("GRANT SELECT ON `{database}`.`{table}` TO '{user}'@'%';");
        let next = finding["next"].as_str().unwrap_or_default();
        assert!(next.contains(&grant), "{grant} in {finding:#}");
        // The statement as printed, run by an admin.
        common::mysql::sql(next.trim_start_matches(|c| c != 'G'));
    }
    let (unreadable, out) = check(&config);
    assert!(unreadable.is_empty(), "{unreadable:#?}\n{}", out.stdout);
    // A lock table the store does not have: to an account with privileges on the
    // tables only, the server answers as for a table it may not read; both are named.
    let wrong = dir.path().join("wrong.yaml");
    std::fs::write(&wrong, format!("{yaml}    lock_table: no_such_locks\n")).unwrap();
    let (unreadable, _) = check(&wrong);
    assert_eq!(unreadable.len(), 1, "{unreadable:#?}");
    assert!(
        unreadable[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no SELECT on table no_such_locks, or no such table")),
        "{unreadable:#?}"
    );
    // As an account that may read the database, the server says the table is not there.
    common::mysql::sql(&format!("GRANT SELECT ON `{database}`.* TO '{user}'@'%'"));
    let (unreadable, _) = check(&wrong);
    assert!(
        unreadable[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("table no_such_locks was not found")),
        "{unreadable:#?}"
    );
    common::mysql::sql(&format!("DROP USER '{user}'@'%'"));
}

/// A store of Seata 1.4 (its lock table has no `status`) is read; a branch table of
/// another layout (no `client_id`) is named with the column it lacks; tables in a schema
/// the role may not use are UNKNOWN with the GRANT USAGE that shows them — never the
/// server's raw error in place of a finding.
#[test]
fn a_store_of_another_layout_or_in_a_hidden_schema_is_named_not_an_error() {
    let db = TestDb::create("seata_layout");
    let schema =
        std::fs::read_to_string(repo_root().join("tests/lab/seata/sql/coordinator-postgresql.sql"))
            .unwrap();
    let mut admin = db.admin();
    admin
        .batch_execute(&format!(
            "CREATE SCHEMA hid; SET search_path = hid; {schema} RESET search_path;
             {schema}
             DROP INDEX lock_table_status; ALTER TABLE lock_table DROP COLUMN status;"
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &db.url(), "");
    let (r, out) = globals(&config);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        r["coordinators"][0]["snapshot"]["lock_status_column"], false,
        "{r:#}"
    );
    // Nothing stuck: the OK finding says so, and no empty table is printed.
    let out = run(indoubt()
        .args(["--config"])
        .arg(&config)
        .args(["seata", "globals"]));
    assert!(out.stdout.starts_with("OK: "), "{}", out.stdout);
    assert!(!out.stdout.contains("COORDINATOR"), "{}", out.stdout);
    // A Begin global with no begin_time cannot be timed: listed, never an OK.
    admin
        .batch_execute(
            "INSERT INTO global_table (xid, status, timeout, gmt_create, gmt_modified)
             VALUES ('10.0.0.1:8091:77', 1, 60000, now() - interval '3 days', now() - interval '3 days')",
        )
        .unwrap();
    let (r, out) = globals(&config);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        r["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Begin: with no begin time")),
        "{r:#}"
    );
    admin.batch_execute("DELETE FROM global_table").unwrap();
    admin
        .batch_execute("ALTER TABLE branch_table DROP COLUMN client_id")
        .unwrap();
    let (r, out) = globals(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let message = r["findings"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("table branch_table lacks the column(s) client_id"),
        "{r:#}"
    );
    // The schema's tables, as a role without USAGE on it.
    let role = TestRole::create("seata_hid", "");
    admin
        .batch_execute(&format!(
            "GRANT SELECT ON ALL TABLES IN SCHEMA hid TO \"{}\"",
            role.name
        ))
        .unwrap();
    let as_role = replace_credentials(&db.url(), &role.name, &role.password);
    let config = write_config(
        dir.path(),
        &as_role,
        "    global_table: hid.global_table\n    branch_table: hid.branch_table\n    lock_table: hid.lock_table\n",
    );
    let (r, out) = globals(&config);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let findings = r["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 3, "{findings:#?}");
    let grant = format!("GRANT USAGE ON SCHEMA \"hid\" TO \"{}\";", role.name);
    for f in findings {
        assert!(
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("may not use schema hid")),
            "{f:#}"
        );
        let next = f["next"].as_str().unwrap_or_default();
        assert!(next.contains(&grant), "{grant} in {f:#}");
    }
    // The GRANT as printed, run as the schema's owner, lets the role read the store.
    let next = findings[0]["next"].as_str().unwrap();
    admin.batch_execute(next).unwrap();
    let (_, out) = globals(&config);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

/// An AT global whose client died right after a dirty write of row `id` of `accounts`, in
/// a database of its own: timed out, its rollback retried by the coordinator with no client
/// to take it (TimeoutRollbacking); a config naming the lab's coordinator and that
/// database as its client `biz`.
struct HeldUp {
    tc: String,
    store: String,
    db: TestDb,
    id: u32,
    xid: String,
    branch: String,
    dir: tempfile::TempDir,
    config: std::path::PathBuf,
}

fn held_up(prefix: &str, id: u32) -> HeldUp {
    let (tc, store) = coordinator();
    let db = TestDb::create(prefix);
    let lines = stuck(
        "at-dirty",
        &[
            format!("tc={tc}"),
            format!("db={}", common::xa::jdbc(&db.url())),
            "table=accounts".into(),
            format!("id={id}"),
            format!("app={}", unique(prefix)),
            "halt=after-dirty-write".into(),
            "timeout_ms=2000".into(),
        ],
    );
    let xid = line(&lines, "global").fields["xid"].clone();
    let branch = line(&lines, "branch").fields["branch_id"].clone();
    let dir = tempfile::tempdir().unwrap();
    let clients = format!(
        "    clients:\n      biz:\n        postgres: {}\n        undo_log: undo_log\n",
        db.url()
    );
    let config = write_config(dir.path(), &store, &clients);
    wait_for(
        "the global timed out and retried by the coordinator",
        || {
            let (r, _) = globals(&config);
            r["coordinators"][0]["snapshot"]["overdue"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|g| g["xid"] == xid.as_str() && g["status"] == 6)
        },
    );
    HeldUp {
        tc,
        store,
        db,
        id,
        xid,
        branch,
        dir,
        config,
    }
}

impl HeldUp {
    /// The row now: (amount, note).
    fn row(&self) -> (i32, String) {
        let r = self
            .db
            .admin()
            .query_one(
                "SELECT amount, note FROM accounts WHERE id = $1",
                &[&i64::from(self.id)],
            )
            .unwrap();
        (r.get(0), r.get(1))
    }

    /// A client of the database (`at-serve`) takes the coordinator's next retry; returns
    /// once the global has ended (its row gone from the store).
    fn served_until_ended(&self) -> Vec<common::seata::Line> {
        let served = stuck(
            "at-serve",
            &[
                format!("tc={}", self.tc),
                format!("db={}", common::xa::jdbc(&self.db.url())),
                "table=accounts".into(),
                format!("id={}", self.id),
                format!("app={}", unique("atserve")),
                "serve_ms=30000".into(),
                format!("until_ended={}", self.xid),
            ],
        );
        common::seata::wait_ended(&self.store, &self.xid);
        served
    }
}

/// The recovery of an AT rollback that a dirty write holds up, while the coordinator
/// retries it (the client died after the dirty write: TimeoutRollbacking, retried with no
/// client to take it): `resolve at --fix after-image` sets the row back to what the
/// branch wrote — after a dry run that changes nothing, and never while the row changes
/// under it — and the next retry, taken by a client of the database (`at-serve`), rolls
/// the branch back to the before image and ends the global.
#[test]
fn an_at_rollback_held_up_by_a_dirty_write_goes_on_once_the_row_is_set_back() {
    let h = held_up("seata_atfix", 4713);
    let audit = h.dir.path().join("audit.jsonl");
    let resolve = |more: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&h.config)
            .args([
                "resolve",
                "at",
                &h.xid,
                "--branch-id",
                &h.branch,
                "--audit-log",
            ])
            .arg(&audit)
            .args(more));
        let json: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (json, out)
    };
    // The global's next, as `seata globals` prints it (a dry run), pasted into a shell.
    let (r, _) = globals(&h.config);
    let next = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["evidence"]["xid"] == h.xid.as_str())
        .and_then(|f| f["next"].as_str())
        .unwrap_or_else(|| panic!("no next: {r:#}"))
        .to_string();
    assert!(
        next.contains(" resolve at ")
            && next.contains("--fix after-image")
            && next.ends_with("--dry-run"),
        "{next}"
    );
    let (dry, code) = pasted(&next);
    assert_eq!(code, Some(0), "{dry:#}");
    assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
    assert_eq!(dry["rows"][0]["now"]["now"], "changed", "{dry:#}");
    let statement = dry["statements"][0].as_str().unwrap();
    assert!(
        statement.starts_with("UPDATE \"accounts\" SET \"amount\" = '90', \"note\" = 'seata' WHERE \"id\" = '4713' AND"),
        "{statement}"
    );
    assert_eq!(h.row(), (7, "dirty".into()), "a dry run changes nothing");
    // Changed again between the read and the write: the guard holds, nothing is done.
    let admin = || h.db.admin();
    admin()
        .batch_execute("UPDATE accounts SET amount = 8 WHERE id = 4713")
        .unwrap();
    let changed = admin().execute(statement, &[]).unwrap();
    assert_eq!(
        changed, 0,
        "the statement as printed guards the row: {statement}"
    );
    admin()
        .batch_execute("UPDATE accounts SET amount = 7 WHERE id = 4713")
        .unwrap();
    let (done, out) = resolve(&[
        "--fix",
        "after-image",
        "--yes",
        "--reason",
        "the dirty write was a mistake",
    ]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    assert_eq!(h.row(), (90, "seata".into()), "set back to the after image");
    let trail = std::fs::read_to_string(&audit).unwrap();
    assert!(trail.contains("the dirty write was a mistake"), "{trail}");
    // A client of the database takes the coordinator's next retry: the rollback
    // succeeds, the row is as before the branch, the global ends.
    let served = h.served_until_ended();
    assert_eq!(
        line(&served, "row").fields["amount"],
        "100",
        "rolled back to the before image"
    );
    assert_eq!(h.row(), (100, "before".into()));
    // Nothing left to fix: the undo log went with the rollback.
    let (again, out) = resolve(&["--fix", "after-image", "--yes", "--reason", "again"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(again["findings"][0]["code"], "not_there", "{again:#}");
}

/// A rollback the coordinator gave up (Seata 2.0.0 gives up at once when the client
/// itself meets the dirty write) gets no retry: `resolve at` refuses both fixes and says
/// why, changing nothing.
#[test]
fn resolve_at_refuses_a_rollback_the_coordinator_gave_up() {
    let (tc, store) = coordinator();
    let db = TestDb::create("seata_atgone");
    let lines = stuck(
        "at-dirty",
        &[
            format!("tc={tc}"),
            format!("db={}", common::xa::jdbc(&db.url())),
            "table=accounts".into(),
            "id=4714".into(),
            format!("app={}", unique("atgone")),
        ],
    );
    let xid = line(&lines, "global").fields["xid"].clone();
    let branch = line(&lines, "branch").fields["branch_id"].clone();
    let dir = tempfile::tempdir().unwrap();
    let clients = format!(
        "    clients:\n      biz:\n        postgres: {}\n        undo_log: undo_log\n",
        db.url()
    );
    let config = write_config(dir.path(), &store, &clients);
    for fix in ["after-image", "undo-log"] {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&config)
            .args(["resolve", "at", &xid, "--branch-id", &branch, "--fix", fix])
            .args(["--yes", "--reason", "test"]));
        assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
        let r: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(r["findings"][0]["code"], "at_not_retried", "{r:#}");
        assert!(
            r["findings"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("RollbackFailed: the coordinator has given it up")),
            "{r:#}"
        );
    }
    let r = db
        .admin()
        .query_one("SELECT amount, note FROM accounts WHERE id = 4714", &[])
        .unwrap();
    assert_eq!(
        (r.get::<_, i32>(0), r.get::<_, String>(1)),
        (7, "dirty".into())
    );
    let undo_logs: i64 = db
        .admin()
        .query_one(
            "SELECT count(*) FROM undo_log WHERE xid = $1",
            &[&xid.as_str()],
        )
        .unwrap()
        .get(0);
    assert_eq!(undo_logs, 1, "nothing deleted");
}

/// The other recovery: the later change is kept. `resolve at --fix undo-log` (a
/// heuristic: recorded with its reason) deletes the branch's undo log, and the next retry
/// finds nothing to undo: the global ends with the row as the dirty write left it.
#[test]
fn an_at_rollback_held_up_by_a_dirty_write_ends_keeping_it_once_the_undo_log_goes() {
    let h = held_up("seata_atkeep", 4715);
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&h.config)
        .args([
            "resolve",
            "at",
            &h.xid,
            "--branch-id",
            &h.branch,
            "--fix",
            "undo-log",
        ])
        .args(["--audit-log"])
        .arg(h.dir.path().join("audit.jsonl"))
        .args(["--yes", "--reason", "finance corrected the amount by hand"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let done: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    assert_eq!(done["heuristic"], true, "{done:#}");
    h.served_until_ended();
    assert_eq!(h.row(), (7, "dirty".into()), "the later change kept");
}

/// `resolve at` judges a statement's rows together as Seata's undo does: of one UPDATE's
/// three locked rows, one changed since, one as the branch left it (a numeric(38,18)
/// compared with every digit Jackson wrote) and one already as before — the last holds
/// the rollback up too, so it is set back with the changed one, and the clean one is not
/// written. A lock held by another branch of the global does not let it write a row.
#[test]
fn resolve_at_judges_a_statements_rows_together_with_exact_decimals() {
    let h = held_up("seata_atrows", 4716);
    let mut db = h.db.admin();
    db.batch_execute(
        "ALTER TABLE accounts ADD COLUMN bal numeric(38,18) NOT NULL DEFAULT 1.000000000000000001;
         INSERT INTO accounts (id, amount, note) VALUES (4800, 90, 'seata'), (4801, 100, 'before'), (4802, 7, 'dirty')",
    )
    .unwrap();
    // The branch's locks on the new rows (4802's by another branch id), as the
    // coordinator writes them.
    let mut store = postgres::Client::connect(&h.store, postgres::NoTls).unwrap();
    let branch: i64 = h.branch.parse().unwrap();
    let resource: String = store
        .query_one(
            "SELECT resource_id FROM lock_table WHERE xid = $1",
            &[&h.xid.as_str()],
        )
        .unwrap()
        .get(0);
    for (pk, by) in [("4800", branch), ("4801", branch), ("4802", branch + 1000)] {
        store
            .execute(
                "INSERT INTO lock_table (row_key, xid, branch_id, resource_id, table_name, pk, gmt_create, gmt_modified)
                 VALUES ($1 || '^^^accounts^^^' || $2, $3, $4, $1, 'accounts', $2, localtimestamp, localtimestamp)",
                &[&resource, &pk, &h.xid.as_str(), &by],
            )
            .unwrap();
    }
    let field = |name: &str, value: &str| {
        format!(r#"{{"name":"{name}","keyType":"NULL","value":{value}}}"#)
    };
    let row = |id: u32, amount: u32, note: &str| {
        format!(
            r#"{{"fields":["java.util.ArrayList",[{{"name":"id","keyType":"PRIMARY_KEY","value":["java.lang.Long",{id}]}},{},{},{}]]}}"#,
            field("amount", &amount.to_string()),
            field("note", &format!("\"{note}\"")),
            field("bal", r#"["java.math.BigDecimal",1.000000000000000001]"#)
        )
    };
    let image = |rows: Vec<String>| {
        format!(
            r#"{{"tableName":"accounts","rows":["java.util.ArrayList",[{}]]}}"#,
            rows.join(",")
        )
    };
    let ids = [4716, 4800, 4801, 4802];
    let undo = format!(
        r#"{{"sqlUndoLogs":["java.util.ArrayList",[{{"sqlType":"UPDATE","tableName":"accounts","beforeImage":{},"afterImage":{}}}]]}}"#,
        image(ids.iter().map(|&id| row(id, 100, "before")).collect()),
        image(ids.iter().map(|&id| row(id, 90, "seata")).collect()),
    );
    db.execute(
        "UPDATE undo_log SET rollback_info = convert_to($1, 'UTF8') WHERE xid = $2 AND branch_id = $3",
        &[&undo, &h.xid.as_str(), &branch],
    )
    .unwrap();
    let resolve = |more: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&h.config)
            .args([
                "resolve",
                "at",
                &h.xid,
                "--branch-id",
                &h.branch,
                "--fix",
                "after-image",
            ])
            .args(["--audit-log"])
            .arg(h.dir.path().join("audit.jsonl"))
            .args(more));
        let json: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (json, out)
    };
    // 4802 is locked by another branch: not read, and nothing is written.
    let (refused, out) = resolve(&["--dry-run"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        refused["findings"][0]["code"], "at_not_fixable",
        "{refused:#}"
    );
    assert_eq!(
        refused["rows"][3]["now"]["now"], "not_compared",
        "{refused:#}"
    );
    // Without that row in the undo log: the statement's rows judged together.
    let undo = undo.replace(&format!(",{}", row(4802, 100, "before")), "");
    let undo = undo.replace(&format!(",{}", row(4802, 90, "seata")), "");
    db.execute(
        "UPDATE undo_log SET rollback_info = convert_to($1, 'UTF8') WHERE xid = $2 AND branch_id = $3",
        &[&undo, &h.xid.as_str(), &branch],
    )
    .unwrap();
    let (dry, out) = resolve(&["--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let verdicts: Vec<&str> = dry["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["now"]["now"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["changed", "as_after", "reverted"], "{dry:#}");
    let statements = dry["statements"].as_array().unwrap();
    assert_eq!(statements.len(), 2, "{dry:#}");
    assert!(
        statements[0]
            .as_str()
            .unwrap()
            .contains("\"bal\" = '1.000000000000000001'"),
        "{dry:#}"
    );
    let (done, out) = resolve(&["--yes", "--reason", "rows set back"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(done["findings"][0]["code"], "resolved", "{done:#}");
    let now: Vec<(i64, i32, String, String)> = db
        .query(
            "SELECT id, amount, note, bal::text FROM accounts WHERE id IN (4716, 4800, 4801) ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    for (id, amount, note, bal) in now {
        assert_eq!(
            (amount, note.as_str(), bal.as_str()),
            (90, "seata", "1.000000000000000001"),
            "row {id} as the branch left it"
        );
    }
}
