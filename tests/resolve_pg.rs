//! `indoubt resolve pg` and `indoubt audit` against the lab's PostgreSQL: decisions from
//! sources, confirmation on a real terminal, quoting, races, crashes and a tamper-evident trail.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Setup {
    db: TestDb,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(prefix: &str) -> Setup {
        let db = TestDb::create(prefix);
        db.admin()
            .batch_execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL); INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 10) g")
            .unwrap();
        Setup {
            db,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn prepare(&self, id: i32, gid: &str) {
        connect(&self.db.url())
            .batch_execute(&format!("BEGIN; UPDATE accounts SET balance = balance + 1 WHERE id = {id}; PREPARE TRANSACTION {}", literal(gid)))
            .unwrap();
    }

    fn balance(&self, id: i32) -> i32 {
        self.db
            .admin()
            .query_one("SELECT balance FROM accounts WHERE id = $1", &[&id])
            .unwrap()
            .get(0)
    }

    fn still_prepared(&self, gid: &str) -> bool {
        self.db
            .admin()
            .query_one(
                "SELECT count(*) FROM pg_prepared_xacts WHERE gid = $1",
                &[&gid],
            )
            .unwrap()
            .get::<_, i64>(0)
            == 1
    }

    fn audit(&self) -> PathBuf {
        self.dir.path().join("audit.jsonl")
    }

    /// `resolve pg GID` with JSON output, the test's audit log, and `extra`.
    fn resolve(&self, gid: &str, extra: &[&str]) -> (Value, Outcome) {
        let audit = self.audit();
        let out = run(indoubt()
            .args([
                "-o",
                "json",
                "resolve",
                "pg",
                gid,
                "--pg",
                &pg_url(),
                "--audit-log",
            ])
            .arg(&audit)
            .args(extra));
        let json = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        (json, out)
    }

    fn config(&self, yaml: &str) -> PathBuf {
        let path = self.dir.path().join("indoubt.yaml");
        std::fs::write(&path, yaml).unwrap();
        path
    }
}

fn code(report: &Value) -> &str {
    report["findings"][0]["code"].as_str().unwrap_or("")
}

fn verify(audit: &Path) -> (Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "audit", "verify", "--audit-log"])
        .arg(audit));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

#[test]
fn commit_and_rollback_take_effect_and_are_recorded() {
    let s = Setup::new("resolve");
    s.prepare(1, "xa-commit-me");
    s.prepare(2, "xa-roll-me-back");
    let (report, out) = s.resolve(
        "xa-commit-me",
        &[
            "--commit",
            "--yes",
            "--reason",
            "INC-1 coordinator lost",
            "--ticket",
            "INC-1",
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(code(&report), "resolved");
    assert_eq!(report["statement"], "COMMIT PREPARED 'xa-commit-me'");
    assert_eq!(
        report["heuristic"], true,
        "no source configured: a person's decision"
    );
    assert_eq!(s.balance(1), 101, "the committed update is visible");
    let (_, out) = s.resolve(
        "xa-roll-me-back",
        &["--rollback", "--yes", "--reason", "INC-1"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(s.balance(2), 100, "the rolled back update is gone");

    // Again: already resolved, exit 0, nothing recorded twice.
    let (again, out) = s.resolve("xa-commit-me", &["--commit", "--yes", "--reason", "retry"]);
    assert_eq!((out.code, code(&again)), (0, "already_resolved"));

    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 0, "{}", out.stdout);
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 4, "intent and outcome for each action");
    let intent = &records[0];
    assert_eq!(
        (intent["kind"].as_str(), intent["decision"].as_str()),
        (Some("intent"), Some("commit"))
    );
    assert_eq!(intent["reason"], "INC-1 coordinator lost");
    assert_eq!(intent["ticket"], "INC-1");
    assert_eq!(records[1]["outcome"]["status"], "ok");
    assert_eq!(records[1]["action_id"], intent["action_id"]);
    let raw = std::fs::read_to_string(s.audit()).unwrap();
    assert!(
        !raw.contains(
            pg_url()
                .split(':')
                .nth(2)
                .unwrap()
                .split('@')
                .next()
                .unwrap()
        ),
        "no password in the trail"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(s.audit()).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn a_citus_style_gid_follows_the_coordinators_recorded_decision() {
    let s = Setup::new("citus");
    let coordinator = TestDb::create("coordinator");
    coordinator
        .admin()
        .batch_execute(
            "CREATE TABLE pg_dist_transaction (groupid int, gid text); INSERT INTO pg_dist_transaction VALUES (0, 'citus_0_4242_17_1');
             CREATE TABLE active (initiator_node_identifier int, transaction_number bigint);
             CREATE FUNCTION get_all_active_transactions() RETURNS SETOF active LANGUAGE sql AS 'SELECT * FROM active'",
        )
        .unwrap();
    s.prepare(1, "citus_0_4242_17_1");
    s.prepare(2, "citus_0_4242_18_1");
    let config = s.config(&format!(
        "postgres:\n  worker:\n    conninfo: {}\n  coordinator:\n    conninfo: {}\nresolve:\n  citus_coordinator: coordinator\n",
        pg_url(),
        coordinator.url()
    ));
    let resolve = |gid: &str, decision: &str| {
        run(indoubt()
            .args(["-o", "json", "--config"])
            .arg(&config)
            .args([
                "resolve",
                "pg",
                gid,
                "--pg",
                "worker",
                decision,
                "--yes",
                "--reason",
                "citus recovery",
                "--audit-log",
            ])
            .arg(s.audit()))
    };
    let out = resolve("citus_0_4242_17_1", "--commit");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        (report["decision"].as_str(), report["heuristic"].as_bool()),
        (Some("commit"), Some(false))
    );
    assert_eq!(s.balance(1), 101);
    let out = resolve("citus_0_4242_18_1", "--rollback");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (report["decision"].as_str(), report["heuristic"].as_bool()),
        (Some("rollback"), Some(false))
    );
    assert!(report["proposal"]["why"]
        .as_str()
        .unwrap()
        .contains("presumed abort"));
    assert_eq!(s.balance(2), 100);
    // No decision row yet, but the distributed transaction still runs: nothing presumed.
    s.prepare(3, "citus_0_4242_19_1");
    coordinator
        .admin()
        .batch_execute("INSERT INTO active VALUES (0, 19)")
        .unwrap();
    let out = resolve("citus_0_4242_19_1", "--rollback");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (out.code, report["decision_sources"][0]["answer"].as_str()),
        (1, Some("in_progress")),
        "{}",
        out.stdout
    );
    assert!(s.still_prepared("citus_0_4242_19_1"));
}

#[test]
fn sources_decide_presume_abort_or_leave_it_heuristic() {
    let s = Setup::new("sources");
    let tm = TestDb::create("tmlog");
    tm.admin()
        .batch_execute("CREATE TABLE outcomes (gid text PRIMARY KEY, outcome text); INSERT INTO outcomes VALUES ('decided-commit', 'committed')")
        .unwrap();
    for (i, gid) in ["decided-commit", "never-decided", "against-the-log"]
        .iter()
        .enumerate()
    {
        s.prepare(i as i32 + 1, gid);
    }
    let config = |authoritative: bool, reachable: bool, in_doubt_after: &str| {
        let url = if reachable {
            tm.url()
        } else {
            format!("postgres://u:p@127.0.0.1:{}/x?sslmode=disable", free_port())
        };
        s.config(&format!(
            "postgres:\n  here:\n    conninfo: {}\n  tm:\n    conninfo: {url}\nresolve:\n  decision_sources:\n    - name: tm-log\n      target: tm\n      query: SELECT outcome FROM outcomes WHERE gid = $1\n      authoritative: {authoritative}\n{in_doubt_after}",
            pg_url()
        ))
    };
    let resolve = |config: &Path, gid: &str, extra: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "--timeout", "3s", "--config"])
            .arg(config)
            .args(["resolve", "pg", gid, "--pg", "here", "--audit-log"])
            .arg(s.audit())
            .args(extra));
        (
            serde_json::from_str::<Value>(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    };
    // A recorded decision is proposed, but a runbook's --yes acts only on a decision it names.
    let (r, out) = resolve(
        &config(false, true, ""),
        "decided-commit",
        &["--yes", "--reason", "r"],
    );
    assert_eq!((out.code, code(&r)), (1, "proposal_only"), "{}", out.stdout);
    assert_eq!(r["proposal"]["decision"], "commit");
    assert!(s.still_prepared("decided-commit"));
    let (r, out) = resolve(
        &config(false, true, ""),
        "decided-commit",
        &["--commit", "--yes", "--reason", "r"],
    );
    assert_eq!(
        (out.code, r["decision"].as_str()),
        (0, Some("commit")),
        "{}",
        out.stderr
    );
    // Asking for the opposite is refused without --force.
    s.prepare(9, "decided-commit-2");
    tm.admin()
        .batch_execute("INSERT INTO outcomes VALUES ('against-the-log', 'committed')")
        .unwrap();
    let (r, out) = resolve(
        &config(false, true, ""),
        "against-the-log",
        &["--rollback", "--yes", "--reason", "r"],
    );
    assert_eq!((out.code, code(&r)), (1, "decision_conflict"));
    assert!(s.still_prepared("against-the-log"));
    // An authoritative source without a record, for a branch prepared seconds ago: the
    // coordinator may still be deciding, so wait; rolling back needs --force.
    let (r, out) = resolve(&config(true, true, ""), "never-decided", &["--dry-run"]);
    assert_eq!(
        (
            out.code,
            r["proposal"]["wait"].as_bool(),
            r["proposal"]["decision"].as_str()
        ),
        (1, Some(true), None),
        "{}",
        out.stdout
    );
    assert_eq!(r["decision_sources"][0]["in_doubt_after_seconds"], 300.0);
    let (r, out) = resolve(
        &config(true, true, ""),
        "never-decided",
        &["--rollback", "--yes", "--reason", "r"],
    );
    assert_eq!(
        (out.code, code(&r)),
        (1, "coordinator_deciding"),
        "{}",
        out.stdout
    );
    assert!(s.still_prepared("never-decided"));
    // Past the source's in_doubt_after: presumed abort.
    let past = "      in_doubt_after: 0s\n";
    let (r, out) = resolve(&config(true, true, past), "never-decided", &["--dry-run"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        (r["decision"].as_str(), r["heuristic"].as_bool()),
        (Some("rollback"), Some(false))
    );
    assert!(r["proposal"]["why"]
        .as_str()
        .unwrap()
        .contains("presumed abort"));
    // The same source unreachable: nothing can be presumed.
    let (r, out) = resolve(
        &config(true, false, ""),
        "never-decided",
        &["--yes", "--reason", "r"],
    );
    assert_eq!((out.code, code(&r)), (1, "no_decision"), "{}", out.stdout);
    assert_eq!(r["decision_sources"][0]["answer"], "unreachable");
    assert!(r["proposal"]["why"].as_str().unwrap().contains("HEURISTIC"));
    assert!(s.still_prepared("never-decided"));
    // A non-authoritative "no record" is no decision either.
    let (r, _) = resolve(&config(false, true, ""), "never-decided", &["--dry-run"]);
    assert_eq!(r["proposal"]["heuristic"], true);
}

#[test]
fn hostile_gids_resolve_exactly_that_transaction_in_both_string_modes() {
    for conforming in [true, false] {
        let s = Setup::new("hostile");
        let gid = "x'; DROP TABLE accounts; -- \\ заказ №4711";
        s.prepare(1, gid);
        s.prepare(2, "x");
        if !conforming {
            // From now on, sessions in this database read backslashes in '' as escapes.
            s.db.admin()
                .batch_execute(&format!(
                    "ALTER DATABASE \"{}\" SET standard_conforming_strings = off",
                    s.db.name
                ))
                .unwrap();
        }
        let (report, out) = s.resolve(gid, &["--commit", "--yes", "--reason", "hostile gid"]);
        assert_eq!(
            out.code, 0,
            "conforming={conforming}: {}\n{}",
            out.stdout, out.stderr
        );
        let statement = report["statement"].as_str().unwrap();
        assert!(
            statement.starts_with("COMMIT PREPARED E'"),
            "a GID with a backslash is an E'' literal, read alike in both modes: {statement}"
        );
        assert_eq!(s.balance(1), 101);
        assert!(s.still_prepared("x"), "only that transaction");
        assert!(!s.still_prepared(gid));
        let tables: i64 =
            s.db.admin()
                .query_one(
                    "SELECT count(*) FROM pg_tables WHERE tablename = 'accounts'",
                    &[],
                )
                .unwrap()
                .get(0);
        assert_eq!(tables, 1, "the table is still there");
    }
}

#[test]
fn two_operators_racing_get_one_success() {
    let s = Setup::new("race");
    s.prepare(1, "contested");
    let audit = s.audit();
    let spawn = || {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("indoubt"));
        cmd.args([
            "-o",
            "json",
            "resolve",
            "pg",
            "contested",
            "--pg",
            &pg_url(),
            "--commit",
            "--yes",
            "--reason",
            "race",
            "--audit-log",
        ])
        .arg(&audit)
        .stdout(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let outputs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let codes: Vec<String> = outputs
        .iter()
        .map(|o| {
            serde_json::from_slice::<Value>(&o.stdout)
                .map(|v| code(&v).to_string())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        codes.iter().filter(|c| *c == "resolved").count(),
        1,
        "{codes:?}"
    );
    assert!(
        codes.iter().any(|c| c == "already_resolved" || c == "busy"),
        "{codes:?}"
    );
    assert_eq!(s.balance(1), 101);
    let (_, out) = verify(&audit);
    assert_eq!(out.code, 0, "both wrote intact records: {}", out.stdout);
}

#[test]
fn confirmation_on_a_real_terminal_and_refusal_without_one() {
    let s = Setup::new("prompt");
    s.prepare(1, "typed-gid");
    let on_terminal = |typed: &str| {
        let bin = assert_cmd::cargo::cargo_bin("indoubt");
        let inner = format!(
            "'{}' resolve pg typed-gid --pg '{}' --commit --audit-log '{}'",
            bin.display(),
            pg_url(),
            s.audit().display()
        );
        let mut child = std::process::Command::new("script")
            .args(["-qec", &inner, "/dev/null"])
            .env("HOME", s.dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{typed}\n").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code_wrong, screen) = on_terminal("typed-gi");
    assert_eq!(code_wrong, Some(1), "{screen}");
    assert!(screen.contains("Type typed-gid to confirm"), "{screen}");
    assert!(
        s.still_prepared("typed-gid"),
        "a wrong answer changes nothing"
    );
    let (code_right, screen) = on_terminal("typed-gid");
    assert_eq!(code_right, Some(0), "{screen}");
    assert!(!s.still_prepared("typed-gid"));

    s.prepare(2, "no-terminal");
    let (r, out) = s.resolve("no-terminal", &["--commit"]);
    assert_eq!((out.code, code(&r)), (1, "not_confirmed"));
    assert!(r["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("--yes --reason"));
    let (r, out) = s.resolve("no-terminal", &["--commit", "--yes"]);
    assert_eq!(
        (out.code, code(&r)),
        (1, "not_confirmed"),
        "--yes needs --reason"
    );
    assert!(s.still_prepared("no-terminal"));
}

#[test]
fn a_crash_between_intent_and_action_leaves_an_intent_without_outcome() {
    let s = Setup::new("crash");
    s.prepare(1, "crashy");
    let (_, out) = s.resolve("crashy", &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 0);
    s.prepare(2, "crash-me");
    let out = run(indoubt()
        .env("INDOUBT_FAILPOINT", "after-intent")
        .args([
            "resolve",
            "pg",
            "crash-me",
            "--pg",
            &pg_url(),
            "--rollback",
            "--yes",
            "--reason",
            "r",
            "--audit-log",
        ])
        .arg(s.audit()));
    assert_eq!(
        out.code, 86,
        "the failpoint ends the process: {}",
        out.stderr
    );
    assert!(s.still_prepared("crash-me"), "it died before acting");
    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 1, "{}", out.stdout);
    let unknown = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "outcome_unknown")
        .expect("reported");
    assert!(unknown["message"]
        .as_str()
        .unwrap()
        .contains("outcome unknown — check the object"));
    assert!(unknown["subject"].as_str().unwrap().contains("crash-me"));
}

#[test]
fn audit_verify_detects_edits_removals_and_truncation() {
    let s = Setup::new("tamper");
    for (i, gid) in ["t1", "t2", "t3"].iter().enumerate() {
        s.prepare(i as i32 + 1, gid);
        let (_, out) = s.resolve(gid, &["--commit", "--yes", "--reason", "r"]);
        assert_eq!(out.code, 0);
    }
    let log = s.audit();
    let pristine = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = pristine.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(verify(&log).1.code, 0);
    let broken = |content: String, what: &str| {
        std::fs::write(&log, content).unwrap();
        let (v, out) = verify(&log);
        assert_eq!(out.code, 2, "{what} must be detected: {}", out.stdout);
        assert!(
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "audit_chain_broken"),
            "{what}"
        );
    };
    broken(
        pristine.replacen("\"decision\":\"commit\"", "\"decision\":\"rollback\"", 1),
        "an edited record",
    );
    broken(
        lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 2)
            .map(|(_, l)| format!("{l}\n"))
            .collect(),
        "a deleted record",
    );
    broken(
        lines[..5].iter().map(|l| format!("{l}\n")).collect(),
        "a removed last record",
    );
    broken(
        format!(
            "{}\n{}",
            lines[..5].join("\n"),
            &lines[5][..lines[5].len() / 2]
        ),
        "a truncated file",
    );
    let mut swapped = lines.clone();
    swapped.swap(2, 3);
    broken(
        swapped.iter().map(|l| format!("{l}\n")).collect(),
        "reordered records",
    );
    std::fs::write(&log, &pristine).unwrap();
    assert_eq!(verify(&log).1.code, 0, "restored");
    let list = run(indoubt()
        .args([
            "-o",
            "json",
            "audit",
            "list",
            "--object",
            "'t2'",
            "--audit-log",
        ])
        .arg(&log));
    let listed: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(
        listed["records"].as_array().unwrap().len(),
        2,
        "intent and outcome of t2"
    );
}

#[test]
fn nothing_is_done_when_the_audit_log_cannot_be_written() {
    let s = Setup::new("noaudit");
    s.prepare(1, "unrecorded");
    let out = run(indoubt().args([
        "resolve",
        "pg",
        "unrecorded",
        "--pg",
        &pg_url(),
        "--commit",
        "--yes",
        "--reason",
        "r",
        "--audit-log",
        "/dev/null/indoubt/audit.jsonl",
    ]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("audit log not writable, so nothing was done"),
        "{}",
        out.stderr
    );
    assert!(s.still_prepared("unrecorded"));
    assert_eq!(s.balance(1), 100);
    let recent = run(indoubt()
        .args([
            "-o",
            "json",
            "audit",
            "list",
            "--since",
            "1h",
            "--audit-log",
        ])
        .arg(s.audit()));
    assert_eq!(
        recent.code, 3,
        "no log was ever written there: {}",
        recent.stderr
    );
}

#[test]
fn other_participants_still_holding_the_global_transaction_are_shown() {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let s = Setup::new("branch");
    let other = PrivateCluster::start();
    let other_db = TestDb::create_on(&other.url("postgres"), "branch2");
    other_db
        .admin()
        .batch_execute("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
        .unwrap();
    // One global transaction (same gtrid), two branches (different bqual), two servers.
    let gtrid = b64.encode(b"orders-4711-global");
    let here = format!("4660_{gtrid}_{}", b64.encode(b"branch-a"));
    let there = format!("4660_{gtrid}_{}", b64.encode(b"branch-b"));
    s.prepare(1, &here);
    connect(&other_db.url())
        .batch_execute(&format!(
            "BEGIN; UPDATE t SET id = 2; PREPARE TRANSACTION {}",
            literal(&there)
        ))
        .unwrap();
    let config = s.config(&format!(
        "postgres:\n  here:\n    conninfo: {}\n  other:\n    conninfo: {}\nresolve:\n  participants: [other]\n",
        pg_url(),
        other.url("postgres")
    ));
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(&config)
        .args([
            "resolve",
            "pg",
            &here,
            "--pg",
            "here",
            "--rollback",
            "--dry-run",
        ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let still = report["participants_still_prepared"].as_array().unwrap();
    assert_eq!(still.len(), 1, "{still:?}");
    assert!(still[0].as_str().unwrap().contains(&there), "{still:?}");
    connect(&other_db.url())
        .batch_execute(&format!("ROLLBACK PREPARED {}", literal(&there)))
        .unwrap();
}
