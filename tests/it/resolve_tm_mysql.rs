//! One real global transaction across PostgreSQL and MariaDB (Narayana 7 enlisting
//! pgjdbc's and MariaDB Connector/J's XA data sources), halted after its commit decision
//! was logged: `--all-branches` from either side finds the other branch, reads the
//! decision from Narayana's object store and commits both.

#![allow(clippy::disallowed_methods)] // tests write their own fixtures

use crate::common;

use common::mysql::{self, MysqlDb};
use common::xa::Tm;
use common::*;
use serde_json::Value;

struct Lab {
    tm: Tm,
    pg: TestDb,
    my: MysqlDb,
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        Lab::of("narayana")
    }

    fn of(kind: &'static str) -> Lab {
        let pg = TestDb::create("xa_pg");
        pg.admin()
            .batch_execute("CREATE TABLE orphans (id bigint, v text)")
            .unwrap();
        Lab {
            tm: Tm::new(kind, "file"),
            pg,
            my: MysqlDb::create("xa_my"),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn config(&self) -> std::path::PathBuf {
        let path = self.dir.path().join("indoubt.yaml");
        std::fs::write(
            &path,
            format!(
                "postgres:\n  here:\n    conninfo: {}\nmysql:\n  maria:\n    url: {}\n    option_file: {}\n    ssl_mode: DISABLED\nresolve:\n  participants: [here, maria]\n  decision_sources:\n{}",
                self.pg.url(),
                mysql::url(),
                mysql::cnf(),
                self.tm.source_yaml("")
            ),
        )
        .unwrap();
        path
    }

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

    fn pg_rows(&self) -> i64 {
        self.pg
            .admin()
            .query_one("SELECT count(*) FROM orphans", &[])
            .unwrap()
            .get(0)
    }

    /// The MariaDB branch of this transaction manager: its XID as `mysql xa` shows it.
    fn mysql_xid(&self) -> Option<String> {
        let out = run(indoubt()
            .args(["-o", "json", "mysql", "xa"])
            .args(mysql::target_args()));
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        report["branches"].as_array()?.iter().find_map(|b| {
            let d = &b["decoded_xid"];
            let node = d["narayana"]["coordinator_node"]
                .as_str()
                .or(d["atomikos"]["tm_unique_name"].as_str())?;
            (node == self.tm.node).then(|| b["xid"].as_str().unwrap().to_string())
        })
    }

    fn resolve(&self, engine: &str, id: &str, target: &[&str]) -> (Value, Outcome) {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(self.config())
            .args(["resolve", engine, id])
            .args(target)
            .args([
                "--all-branches",
                "--commit",
                "--yes",
                "--reason",
                "coordinator logged commit",
                "--audit-log",
            ])
            .arg(self.dir.path().join("audit.jsonl")));
        (
            serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    }
}

#[test]
fn all_branches_from_postgres_commits_the_mariadb_sibling_by_the_logged_decision() {
    let lab = Lab::new();
    lab.tm.orphan_with(&[&lab.pg], &[lab.my.jdbc()], "commit");
    let gid = lab.pg_gid().expect("the PostgreSQL branch is prepared");
    let xid = lab.mysql_xid().expect("the MariaDB branch is prepared");
    // The dry run names the sibling, the decision source's commit, and both statements.
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(lab.config())
        .args([
            "resolve",
            "pg",
            &gid,
            "--pg",
            "here",
            "--all-branches",
            "--dry-run",
        ]));
    let dry: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(dry["proposal"]["decision"], "commit", "{dry:#}");
    let sibling = &dry["mysql_siblings"][0];
    assert_eq!(sibling["xid"], xid.as_str(), "{dry:#}");
    assert_eq!(sibling["found_on"], "maria");
    assert_eq!(sibling["statement"], format!("XA COMMIT {xid}"));
    assert_eq!(
        sibling["decision_sources"][0]["answer"], "commit",
        "{sibling:#}"
    );
    assert_eq!(lab.pg_rows(), 0);
    assert_eq!(lab.my.rows(), 1);

    let (done, out) = lab.resolve("pg", &gid, &["--pg", "here"]);
    assert_eq!(out.code, 0, "{done:#}{}", out.stderr);
    assert_eq!(done["outcome"]["status"], "ok");
    assert_eq!(done["mysql_siblings"][0]["state"], "committed", "{done:#}");
    assert_eq!(lab.pg_gid(), None);
    assert_eq!(lab.mysql_xid(), None);
    // Committed, not rolled back: the harness's rows are there on both engines.
    assert_eq!(lab.pg_rows(), 1);
    assert_eq!(lab.my.rows(), 2);
}

#[test]
fn all_branches_from_mariadb_commits_the_postgres_sibling_by_the_logged_decision() {
    let lab = Lab::new();
    lab.tm.orphan_with(&[&lab.pg], &[lab.my.jdbc()], "commit");
    let gid = lab.pg_gid().expect("the PostgreSQL branch is prepared");
    let xid = lab.mysql_xid().expect("the MariaDB branch is prepared");
    let (done, out) = lab.resolve("mysql", &xid, &["--mysql", "maria"]);
    assert_eq!(out.code, 0, "{done:#}{}", out.stderr);
    assert_eq!(done["decision_sources"][0]["answer"], "commit", "{done:#}");
    assert_eq!(done["outcome"]["status"], "ok", "{done:#}");
    assert_eq!(done["siblings"][0]["gid"], gid.as_str());
    assert_eq!(done["siblings"][0]["state"], "committed", "{done:#}");
    assert_eq!((lab.pg_gid(), lab.mysql_xid()), (None, None));
    assert_eq!((lab.pg_rows(), lab.my.rows()), (1, 2));
}

#[test]
fn atomikos_across_postgres_and_mariadb_is_committed_by_its_logged_decision() {
    let lab = Lab::of("atomikos");
    lab.tm.orphan_with(&[&lab.pg], &[lab.my.jdbc()], "commit");
    let gid = lab.pg_gid().expect("the PostgreSQL branch is prepared");
    let xid = lab.mysql_xid().expect("the MariaDB branch is prepared");
    let (done, out) = lab.resolve("pg", &gid, &["--pg", "here"]);
    assert_eq!(out.code, 0, "{done:#}{}", out.stderr);
    let sibling = &done["mysql_siblings"][0];
    assert_eq!(sibling["xid"], xid.as_str());
    assert_eq!(
        sibling["decision_sources"][0]["answer"], "commit",
        "{sibling:#}"
    );
    assert_eq!(sibling["state"], "committed", "{done:#}");
    assert_eq!((lab.pg_gid(), lab.mysql_xid()), (None, None));
    assert_eq!((lab.pg_rows(), lab.my.rows()), (1, 2));
}

#[test]
fn a_transaction_halted_before_its_decision_is_not_committed_by_all_branches() {
    let lab = Lab::new();
    lab.tm.orphan_with(&[&lab.pg], &[lab.my.jdbc()], "prepare");
    let xid = lab.mysql_xid().expect("the MariaDB branch is prepared");
    // No record in the coordinator's log, and younger than in_doubt_after: the
    // coordinator may still be deciding, so --commit is refused, nothing is done.
    let (refused, out) = lab.resolve("mysql", &xid, &["--mysql", "maria"]);
    assert_eq!(out.code, 1, "{refused:#}");
    assert_eq!(
        refused["findings"][0]["code"], "coordinator_deciding",
        "{refused:#}"
    );
    assert!(lab.mysql_xid().is_some() && lab.pg_gid().is_some());
    // The TM's own recovery rolls both back.
    lab.tm.recover_with(&[&lab.pg], &[lab.my.jdbc()]);
    assert_eq!((lab.pg_gid(), lab.mysql_xid()), (None, None));
}
