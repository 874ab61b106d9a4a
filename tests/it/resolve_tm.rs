//! `resolve pg` against orphans of real transaction managers (Narayana 7 with its file
//! ObjectStore and its JDBC store, Atomikos 6 with its file log), their decision read from
//! the coordinator's own log, and the TM's own recovery afterwards.

#![allow(clippy::disallowed_methods)] // tests write their own fixtures

use crate::common;

use common::schema::PreparedReport;
use common::xa::Tm;
use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;

struct Lab {
    tm: Tm,
    dbs: [TestDb; 2],
    dir: tempfile::TempDir,
}

impl Lab {
    fn new(kind: &'static str, store: &str) -> Lab {
        let dbs = [TestDb::create("xa_a"), TestDb::create("xa_b")];
        for db in &dbs {
            db.admin()
                .batch_execute("CREATE TABLE orphans (v text)")
                .unwrap();
        }
        Lab {
            tm: Tm::new(kind, store),
            dbs,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn dbs(&self) -> [&TestDb; 2] {
        [&self.dbs[0], &self.dbs[1]]
    }

    /// The GID prepared in each database, in database order.
    fn gids(&self) -> Vec<String> {
        self.dbs
            .iter()
            .map(|db| {
                let rows = db
                    .admin()
                    .query(
                        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()",
                        &[],
                    )
                    .unwrap();
                assert_eq!(rows.len(), 1, "one branch prepared in {}", db.name);
                rows[0].get(0)
            })
            .collect()
    }

    fn rows(&self) -> Vec<i64> {
        self.dbs
            .iter()
            .map(|db| {
                db.admin()
                    .query_one("SELECT count(*) FROM orphans", &[])
                    .unwrap()
                    .get(0)
            })
            .collect()
    }

    fn prepared(&self) -> usize {
        self.dbs
            .iter()
            .map(|db| {
                let n: i64 = db
                    .admin()
                    .query_one(
                        "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()",
                        &[],
                    )
                    .unwrap()
                    .get(0);
                n as usize
            })
            .sum()
    }

    fn config(&self, source_extra: &str) -> PathBuf {
        self.config_named("indoubt.yaml", source_extra, &[])
    }

    /// A config of its own name, with `participants` as postgres targets (name, URL)
    /// and in `resolve.participants`.
    fn config_named(
        &self,
        name: &str,
        source_extra: &str,
        participants: &[(&str, String)],
    ) -> PathBuf {
        let path = self.dir.path().join(name);
        let mut targets = self.tm.targets_yaml();
        for (name, url) in participants {
            targets.push_str(&format!("  {name}:\n    conninfo: {url}\n"));
        }
        let names: Vec<&str> = participants.iter().map(|(n, _)| *n).collect();
        let yaml = format!(
            "postgres:\n  here:\n    conninfo: {}\n{targets}resolve:\n  participants: [{}]\n  decision_sources:\n{}",
            pg_url(),
            names.join(", "),
            self.tm.source_yaml(source_extra)
        );
        std::fs::write(&path, yaml).unwrap();
        path
    }

    fn audit(&self) -> PathBuf {
        self.dir.path().join("audit.jsonl")
    }

    fn resolve(&self, config: &PathBuf, gid: &str, extra: &[&str]) -> (Value, Outcome) {
        let out = run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(config)
            .args(["resolve", "pg", gid, "--pg", "here", "--audit-log"])
            .arg(self.audit())
            .args(extra));
        (
            serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    }
}

fn code(report: &Value) -> &str {
    report["findings"][0]["code"].as_str().unwrap_or("")
}

const YOUNG_IS_OLD_ENOUGH: &str = "      in_doubt_after: 0s\n";

/// (a) halted before the decision: the coordinator's log has no record. Within
/// in_doubt_after that means wait; past it, presumed abort, as the TM's recovery would.
/// (b) halted after it: the log says commit, rollback is refused, and committing every
/// branch leaves the TM's own recovery nothing to do.
fn decision_read_from_the_coordinators_log(kind: &'static str, store: &str) {
    let lab = Lab::new(kind, store);
    lab.tm.orphan(&lab.dbs(), "prepare");
    let gids = lab.gids();
    let config = lab.config("");
    let (r, out) = lab.resolve(&config, &gids[0], &["--dry-run"]);
    assert_eq!(
        (
            r["decision_sources"][0]["answer"].as_str(),
            r["decision_sources"][0]["authoritative"].as_bool(),
            r["proposal"]["wait"].as_bool(),
            r["proposal"]["decision"].as_str()
        ),
        (Some("no_record"), Some(true), Some(true), None),
        "{kind}/{store}: {}",
        out.stdout
    );
    let (r, out) = lab.resolve(&config, &gids[0], &["--rollback", "--yes", "--reason", "r"]);
    assert_eq!(
        (out.code, code(&r)),
        (1, "coordinator_deciding"),
        "{}",
        out.stdout
    );
    let old_enough = lab.config(YOUNG_IS_OLD_ENOUGH);
    for gid in &gids {
        let (r, out) = lab.resolve(&old_enough, gid, &["--dry-run"]);
        assert_eq!(
            (r["decision"].as_str(), r["heuristic"].as_bool()),
            (Some("rollback"), Some(false)),
            "{kind}/{store}: {}",
            out.stdout
        );
        assert!(r["proposal"]["why"]
            .as_str()
            .unwrap()
            .contains("presumed abort"));
        let (r, out) = lab.resolve(
            &old_enough,
            gid,
            &["--rollback", "--yes", "--reason", "INC-7 presumed abort"],
        );
        // Done; while the other branch is still prepared, that is a WARNING.
        let first = gid == &gids[0];
        assert_eq!(out.code, if first { 1 } else { 0 }, "{}", out.stdout);
        assert_eq!(codes(&r).contains(&"other_branches_prepared"), first);
        assert_eq!(r["outcome"]["status"], "ok", "{}", out.stdout);
    }
    assert_eq!((lab.prepared(), lab.rows()), (0, vec![0, 0]));

    lab.tm.orphan(&lab.dbs(), "commit");
    let gids = lab.gids();
    for gid in &gids {
        let (r, out) = lab.resolve(&config, gid, &["--dry-run"]);
        assert_eq!(
            (
                r["decision_sources"][0]["answer"].as_str(),
                r["proposal"]["decision"].as_str(),
                r["heuristic"].as_bool()
            ),
            (Some("commit"), Some("commit"), Some(false)),
            "{kind}/{store}: {}",
            out.stdout
        );
        let (r, out) = lab.resolve(&config, gid, &["--rollback", "--yes", "--reason", "r"]);
        assert_eq!(
            (out.code, code(&r)),
            (1, "decision_conflict"),
            "{}",
            out.stdout
        );
    }
    // One command, one confirmation, the log's decision for both branches.
    let (r, out) = lab.resolve(
        &config,
        &gids[0],
        &[
            "--all-branches",
            "--commit",
            "--yes",
            "--reason",
            "INC-8 the log says commit",
        ],
    );
    assert_eq!(out.code, 0, "{kind}/{store}: {}", out.stdout);
    assert_eq!(r["outcome"]["status"], "ok", "{}", out.stdout);
    let sibling = &r["siblings"][0];
    assert_eq!(
        (
            &sibling["gid"],
            &sibling["state"],
            &sibling["outcome"]["status"],
            &sibling["heuristic"],
            &sibling["decision_sources"][0]["answer"]
        ),
        (
            &json!(gids[1]),
            &json!("committed"),
            &json!("ok"),
            &json!(false),
            &json!("commit")
        ),
        "{}",
        out.stdout
    );
    assert_eq!(codes(&r), ["resolved", "resolved"], "{}", out.stdout);
    assert_eq!((lab.prepared(), lab.rows()), (0, vec![1, 1]));
    // The TM's own recovery replays its logged commit, finds no branch left to commit,
    // and rolls nothing back.
    let said = lab.tm.recover(&lab.dbs());
    assert_eq!((lab.prepared(), lab.rows()), (0, vec![1, 1]));
    assert!(!said.contains("Rolling back"), "{said}");
    if kind == "narayana" {
        let uid = r["decoded_gid"]["narayana"]["transaction_uid"]
            .as_str()
            .unwrap();
        assert!(
            said.lines()
                .any(|l| l.contains("ARJUNA016038: No XAResource to recover")
                    && l.contains(&format!("tx_uid={uid}"))),
            "{said}"
        );
    } else {
        let tid = r["decoded_gid"]["atomikos"]["tid"].as_str().unwrap();
        let logs: String = std::fs::read_dir(lab.tm.dir.path())
            .unwrap()
            .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
            .collect();
        assert!(logs.contains(&format!("{tid}|TERMINATED|")), "{logs}");
    }

    let out = run(indoubt()
        .args(["-o", "json", "audit", "verify", "--audit-log"])
        .arg(lab.audit()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let records = v["records"].as_array().unwrap();
    // An intent and an outcome for each of the four branches resolved, in pairs.
    assert_eq!(records.len(), 8, "{}", out.stdout);
    for (pair, gid) in records[4..].chunks(2).zip(&gids) {
        assert_eq!(
            (
                &pair[0]["kind"],
                &pair[1]["kind"],
                &pair[1]["outcome"]["status"]
            ),
            (&json!("intent"), &json!("outcome"), &json!("ok"))
        );
        assert_eq!(pair[0]["action_id"], pair[1]["action_id"]);
        assert!(
            pair[0]["object"].as_str().unwrap().contains(gid.as_str()),
            "{pair:?}"
        );
        assert_eq!(pair[0]["reason"], "INC-8 the log says commit");
    }
}

#[test]
fn narayana_file_store_decides() {
    decision_read_from_the_coordinators_log("narayana", "file");
}

#[test]
fn narayana_jdbc_store_decides_by_uid() {
    decision_read_from_the_coordinators_log("narayana", "jdbc");
}

#[test]
fn atomikos_log_decides() {
    decision_read_from_the_coordinators_log("atomikos", "file");
}

/// A coordinator alive and slow in its prepare: the branches are prepared and its log has
/// no record yet. Nothing proposes rolling back what it is about to commit.
fn a_live_coordinator_is_never_rolled_back(kind: &'static str) {
    let lab = Lab::new(kind, "file");
    let mut tm = lab.tm.slow_prepare(&lab.dbs(), 8000);
    let config = lab.config("");
    for gid in lab.gids() {
        let (r, out) = lab.resolve(&config, &gid, &["--dry-run"]);
        assert_eq!(
            (
                r["proposal"]["wait"].as_bool(),
                r["proposal"]["decision"].as_str()
            ),
            (Some(true), None),
            "{kind}: {}",
            out.stdout
        );
        let (r, out) = lab.resolve(&config, &gid, &["--rollback", "--yes", "--reason", "r"]);
        assert_eq!(
            (out.code, code(&r)),
            (1, "coordinator_deciding"),
            "{}",
            out.stdout
        );
    }
    assert!(tm.wait().unwrap().success());
    assert_eq!((lab.prepared(), lab.rows()), (0, vec![1, 1]));
}

#[test]
fn a_live_narayana_is_never_rolled_back() {
    a_live_coordinator_is_never_rolled_back("narayana");
}

#[test]
fn a_live_atomikos_is_never_rolled_back() {
    a_live_coordinator_is_never_rolled_back("atomikos");
}

fn manager(kind: &str) -> &'static str {
    match kind {
        "narayana" => "Narayana",
        _ => "Atomikos",
    }
}

/// The codes of a report's findings.
fn codes(report: &Value) -> Vec<&str> {
    report["findings"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["code"].as_str()).collect())
        .unwrap_or_default()
}

/// An orphan halted after the decision, one branch in each of two databases of one
/// server: `pg prepared` shows both as one global transaction and names its manager and
/// coordinator node; `resolve pg` of either lists the other as its sibling (never
/// itself) in the right database; a participants target that is this same server lists
/// no second copy, and one that cannot be reached is UNKNOWN, not left out.
fn siblings_are_found_and_grouped(kind: &'static str, store: &str) {
    let lab = Lab::new(kind, store);
    lab.tm.orphan(&lab.dbs(), "commit");
    let gids = lab.gids();
    let listed = [
        "pg",
        "prepared",
        "--pg",
        &pg_url(),
        "--database",
        &lab.dbs[0].name,
        "--database",
        &lab.dbs[1].name,
    ];
    let (report, out) = report::<PreparedReport>(&listed);
    assert_eq!(report.prepared_transactions.len(), 2, "{}", out.stdout);
    let global: Vec<_> = report
        .prepared_transactions
        .iter()
        .map(|x| {
            x.global_transaction
                .as_ref()
                .unwrap_or_else(|| panic!("no global_transaction: {}", out.stdout))
        })
        .collect();
    assert_eq!(
        global[0], global[1],
        "{kind}/{store}: one key for both branches"
    );
    assert!(global[0].key.starts_with("xa-"), "{}", global[0].key);
    assert_eq!(
        (
            global[0].transaction_manager.as_deref(),
            global[0].coordinator_node.as_deref(),
            global[0].branches
        ),
        (Some(manager(kind)), Some(lab.tm.node.as_str()), 2),
        "{}",
        out.stdout
    );
    // GLOBAL TX is a column of -o wide (the table says it leaves it out).
    let table = run(indoubt().args(listed).args(["-o", "wide"]));
    assert_eq!(
        table
            .stdout
            .matches(&format!("{}, 2 branches listed", global[0].key))
            .count(),
        2,
        "{}",
        table.stdout
    );

    let down = format!(
        "postgres://nobody:x@127.0.0.1:{}/postgres?sslmode=disable",
        free_port()
    );
    let config = lab.config_named(
        "siblings.yaml",
        "",
        &[("same", lab.dbs[1].url()), ("down", down)],
    );
    for (mine, other) in [(0, 1), (1, 0)] {
        let (r, out) = lab.resolve(&config, &gids[mine], &["--dry-run"]);
        assert_eq!(out.code, 3, "down is UNKNOWN: {}", out.stdout);
        assert_eq!(r["global_transaction"]["key"], global[0].key.as_str());
        let siblings = r["siblings"].as_array().expect("siblings");
        assert_eq!(siblings.len(), 1, "{kind}/{store}: {}", out.stdout);
        let s = &siblings[0];
        assert_eq!(
            (
                &s["gid"],
                &s["database"],
                &s["found_on"],
                &s["also_found_on"],
                &s["state"],
                &s["recognised_by"]
            ),
            (
                &json!(gids[other]),
                &json!(lab.dbs[other].name),
                &json!("this server"),
                &json!(["same"]),
                &json!("prepared"),
                &json!("xa_gtrid")
            ),
            "{}",
            out.stdout
        );
        let search = r["sibling_search"].as_array().expect("sibling_search");
        let entry = |name: &str| {
            search
                .iter()
                .find(|t| t["target"] == name)
                .unwrap_or_else(|| panic!("{name} not in sibling_search: {}", out.stdout))
        };
        assert_eq!(entry("this server")["checked"], true);
        assert_eq!(entry("same")["checked"], true);
        assert!(
            entry("same")["detail"]
                .as_str()
                .unwrap()
                .contains("the same server as this server"),
            "{}",
            out.stdout
        );
        assert_eq!(entry("down")["checked"], false, "{}", out.stdout);
        let found = codes(&r);
        for code in ["dry_run", "siblings_unchecked", "other_branches_prepared"] {
            assert!(found.contains(&code), "{code} in {found:?}");
        }
        // The finding names the dry run of --all-branches, which works as printed.
        let next = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "other_branches_prepared")
            .and_then(|f| f["next"].as_str())
            .unwrap_or_else(|| panic!("no next: {}", out.stdout));
        assert!(next.contains("--all-branches --dry-run"), "{next}");
        let (planned, code) = run_printed(next);
        assert_eq!(code, Some(3), "down is still UNKNOWN: {planned}");
        assert_eq!(
            (
                codes(&planned),
                planned["siblings"][0]["statement"]
                    .as_str()
                    .map(|s| s.starts_with("COMMIT PREPARED")),
            ),
            (vec!["dry_run", "dry_run", "siblings_unchecked"], Some(true)),
            "{planned}"
        );
        let text = run(indoubt().arg("--config").arg(&config).args([
            "resolve",
            "pg",
            &gids[mine],
            "--pg",
            "here",
            "--dry-run",
        ]));
        for needle in [
            format!("\nsibling in {} on this server\n", lab.dbs[other].name),
            format!("'{}'\n", gids[other]),
            "\nsiblings on down\n  UNKNOWN  not checked".to_string(),
        ] {
            assert!(text.stdout.contains(&needle), "{needle}:\n{}", text.stdout);
        }
        // Prose, wrapped to the width between any two words.
        let words = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("--all-branches applies it to every branch"),
            "{}",
            text.stdout
        );
        // Each sibling's block: its title line and the indented lines under it.
        let sibling_blocks = text.stdout.split("\nsibling in ").skip(1).map(|b| {
            b.lines()
                .take_while(|l| !l.is_empty())
                .enumerate()
                .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
                .map(|(_, l)| l)
                .collect::<Vec<_>>()
                .join("\n")
        });
        for block in sibling_blocks {
            assert!(
                !block.contains(&gids[mine]),
                "itself listed as a sibling:\n{}",
                text.stdout
            );
        }
    }
    assert_eq!(lab.prepared(), 2, "a dry run changes nothing");
}

#[test]
fn narayana_file_store_siblings() {
    siblings_are_found_and_grouped("narayana", "file");
}

#[test]
fn narayana_jdbc_store_siblings() {
    siblings_are_found_and_grouped("narayana", "jdbc");
}

#[test]
fn atomikos_siblings() {
    siblings_are_found_and_grouped("atomikos", "file");
}
