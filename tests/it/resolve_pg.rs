//! `indoubt resolve pg` and `indoubt audit` against the lab's PostgreSQL: decisions from
//! sources, confirmation on a real terminal, quoting, races, crashes and a tamper-evident trail.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Setup {
    db: TestDb,
    dir: tempfile::TempDir,
    /// The server's admin URL that `resolve` is given.
    pg: String,
}

impl Setup {
    fn new(prefix: &str) -> Setup {
        Self::on(&pg_url(), prefix)
    }

    /// On another server (a private cluster: no other test's prepared transactions).
    fn on(admin_url: &str, prefix: &str) -> Setup {
        let db = TestDb::create_on(admin_url, prefix);
        db.admin()
            .batch_execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL); INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 10) g")
            .unwrap();
        Setup {
            db,
            dir: tempfile::tempdir().unwrap(),
            pg: admin_url.to_string(),
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
        self.resolve_into(&self.audit(), gid, extra)
    }

    /// The same, recorded in the audit log `audit`.
    fn resolve_into(&self, audit: &Path, gid: &str, extra: &[&str]) -> (Value, Outcome) {
        let out = run(indoubt()
            .args([
                "-o",
                "json",
                "resolve",
                "pg",
                gid,
                "--pg",
                &self.pg,
                "--audit-log",
            ])
            .arg(audit)
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
    let audit = s.audit().display().to_string();
    let url = pg_url();
    let args = [
        "resolve",
        "pg",
        "typed-gid",
        "--pg",
        url.as_str(),
        "--commit",
        "--reason",
        "at the terminal",
        "--audit-log",
        audit.as_str(),
    ];
    let on_terminal = |typed: &str| {
        let screen = common::tty::on_terminal(80, &[], Some(&format!("{typed}\n")), &args);
        (screen.code, screen.text)
    };
    let (code_wrong, screen) = on_terminal("typed-gi");
    assert_eq!(code_wrong, Some(1), "{screen}");
    assert!(
        screen.contains("Commit: type ") && screen.contains(", or the whole GID, to confirm"),
        "{screen}"
    );
    // The evidence is read as text, once, laid out for the terminal; the risk stands out.
    let plain = common::tty::plain(&screen);
    assert_eq!(
        plain.matches("\n  owner ").count(),
        1,
        "the evidence is printed once: {plain}"
    );
    assert!(
        plain.contains("\n  locks      ") && plain.contains(" RowExclusiveLock"),
        "{plain}"
    );
    assert!(!plain.contains("{\""), "no JSON in the evidence: {plain}");
    assert!(
        plain.contains("\n  will run   COMMIT PREPARED 'typed-gid'\n"),
        "{plain}"
    );
    assert!(
        screen.contains("\u{1b}[1;31mHEURISTIC\u{1b}[0m"),
        "a heuristic decision is highlighted: {screen:?}"
    );
    assert!(
        plain
            .lines()
            .filter(|l| !l.contains("to confirm (anything else aborts): "))
            .all(|l| l.chars().count() <= 80),
        "fits the 80-column terminal (the prompt line holds what was typed): {plain}"
    );
    assert!(
        plain.contains("nothing done: the typed text did not match")
            && !plain.contains("nothing was done"),
        "the refusal says it once: {plain}"
    );
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
    // No log was ever written there: no records yet (OK, not an error).
    assert_eq!(recent.code, 0, "{}", recent.stderr);
    let listed: serde_json::Value = serde_json::from_str(&recent.stdout).unwrap();
    assert_eq!(listed["findings"][0]["code"], "audit_no_records");
    assert_eq!(listed["records"], serde_json::json!([]));
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
    // A dry run changes nothing; the branch still prepared elsewhere is a WARNING.
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let still = report["siblings"].as_array().unwrap();
    assert_eq!(still.len(), 1, "{still:?}");
    assert_eq!(
        (
            still[0]["gid"].as_str(),
            still[0]["found_on"].as_str(),
            still[0]["database"].as_str(),
            still[0]["state"].as_str()
        ),
        (
            Some(there.as_str()),
            Some("other"),
            Some(other_db.name.as_str()),
            Some("prepared")
        ),
        "{still:?}"
    );
    assert!(
        findings(&report).contains(&("other_branches_prepared".into(), "WARNING".into())),
        "{}",
        out.stdout
    );
    // Both branches, two servers, one command: each statement on its own server.
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
            "--all-branches",
            "--yes",
            "--reason",
            "INC-10 never acknowledged",
            "--audit-log",
        ])
        .arg(s.audit()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        report["siblings"][0]["state"], "rolled_back",
        "{}",
        out.stdout
    );
    assert!(!s.still_prepared(&here));
    let left: i64 = connect(&other_db.url())
        .query_one("SELECT count(*) FROM pg_prepared_xacts", &[])
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the other server's branch is rolled back too");
    assert_eq!(verify(&s.audit()).1.code, 0);
}

/// The findings' codes and severities of a report.
fn findings(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    (
                        f["code"].as_str().unwrap_or("").to_string(),
                        f["severity"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The message of the first finding with `code`.
fn message<'a>(report: &'a Value, code: &str) -> &'a str {
    report["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["code"] == code))
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no {code} finding: {report}"))
}

fn reseal(audit: &Path, reason: &str) -> (Value, Outcome) {
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "audit",
            "reseal",
            "--reason",
            reason,
            "--audit-log",
        ])
        .arg(audit));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// A resolution refused for its audit log: exit 3, the reason on stderr, nothing done.
fn assert_refused(s: &Setup, log: &Path, gid: &str, says: &[&str]) {
    let (_, out) = s.resolve_into(log, gid, &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    for part in ["audit log not writable, so nothing was done", "refused: "]
        .iter()
        .chain(says)
    {
        assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
    }
    assert!(
        out.stderr.contains("\nhint: "),
        "what to do: {}",
        out.stderr
    );
    assert!(s.still_prepared(gid), "nothing done");
}

/// Links planted by `nobody` in a directory it can write, and audit files that are
/// another user's or writable by others: refused with nothing done, never followed.
#[test]
fn planted_links_and_foreign_audit_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let cluster = PrivateCluster::start_quiet();
    let s = Setup::on(&cluster.url("postgres"), "planted");
    s.prepare(1, "planted-1");

    // A directory anyone can write (no sticky bit): links at the head's old fixed
    // temporary name and at the head itself.
    let open = AttackedDir::new(0o777);
    open.plant_links(&open.victim, &["audit.jsonl.head.tmp", "audit.jsonl.head"]);
    assert_refused(
        &s,
        &open.path("audit.jsonl"),
        "planted-1",
        &[
            "the directory",
            "is writable by group and others (mode 0777)",
        ],
    );
    open.assert_untouched();
    assert!(!open.path("audit.jsonl").exists(), "no log made there");

    // A sticky directory, as /tmp: a dangling link at the log's path.
    let sticky = AttackedDir::new(0o1777);
    sticky.plant_links(&sticky.not_yet(), &["audit.jsonl"]);
    assert_refused(
        &s,
        &sticky.path("audit.jsonl"),
        "planted-1",
        &["the audit log", "is a symbolic link"],
    );
    sticky.assert_untouched();

    // A link at the head's path, no log yet: refused before the log is made.
    let head_only = AttackedDir::new(0o1777);
    head_only.plant_links(&head_only.victim, &["audit.jsonl.head"]);
    assert_refused(
        &s,
        &head_only.path("audit.jsonl"),
        "planted-1",
        &["the audit head", "is a symbolic link"],
    );
    head_only.assert_untouched();
    assert!(!head_only.path("audit.jsonl").exists(), "no log made there");

    // A log `nobody` made: theirs, not ours.
    let foreign = AttackedDir::new(0o1777);
    as_nobody(&format!(
        "umask 077 && : > '{}'",
        foreign.path("audit.jsonl").display()
    ));
    assert_refused(
        &s,
        &foreign.path("audit.jsonl"),
        "planted-1",
        &["is owned by uid 65534, not by you or root"],
    );
    let (_, out) = verify(&foreign.path("audit.jsonl"));
    assert_eq!(out.code, 3, "verify refuses it too: {}", out.stderr);
    assert_eq!(
        std::fs::read(foreign.path("audit.jsonl")).unwrap(),
        b"",
        "left as it was"
    );

    // Our own log and head, made writable by everyone.
    s.prepare(2, "planted-ok");
    let (_, out) = s.resolve("planted-ok", &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let before = std::fs::read(s.audit()).unwrap();
    let chmod = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    chmod(&s.audit(), 0o666);
    assert_refused(
        &s,
        &s.audit(),
        "planted-1",
        &[
            "the audit log",
            "is writable by group and others (mode 0666)",
        ],
    );
    assert_eq!(verify(&s.audit()).1.code, 3);
    chmod(&s.audit(), 0o600);
    let head = s.dir.path().join("audit.jsonl.head");
    chmod(&head, 0o620);
    assert_refused(
        &s,
        &s.audit(),
        "planted-1",
        &["the audit head", "is writable by its group (mode 0620)"],
    );
    chmod(&head, 0o600);
    assert_eq!(
        std::fs::read(s.audit()).unwrap(),
        before,
        "nothing appended"
    );
    assert_eq!(verify(&s.audit()).1.code, 0, "intact once put right");
}

/// A tmpfs of its own, unmounted when dropped: a disk that really fills up.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(options: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("run mount");
        assert!(status.success(), "mount a tmpfs (the tests run as root)");
        Tmpfs(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    /// Writes a file until the space runs out.
    fn fill_bytes(&self) {
        use std::io::Write;
        let mut filler = std::fs::File::create(self.path().join("filler")).unwrap();
        while filler.write_all(&[0u8; 4096]).is_ok() {}
    }

    /// Makes empty files until the inodes run out.
    fn fill_inodes(&self) {
        for i in 0.. {
            if std::fs::File::create(self.path().join(format!("inode-{i}"))).is_err() {
                break;
            }
        }
    }

    /// Removes the fillers.
    fn free(&self) {
        for entry in std::fs::read_dir(self.path()).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "filler" || name.starts_with("inode-") {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.0.path())
            .status();
    }
}

/// A full disk: a record that does not fit is cut off again (the log as it was); so is
/// a record whose head cannot be written after it: the log and its head keep agreeing,
/// and however often the disk refuses, verify never sees tampering.
#[test]
fn a_full_disk_is_told_apart_from_tampering() {
    let cluster = PrivateCluster::start_quiet();
    let s = Setup::on(&cluster.url("postgres"), "full");
    let disk = Tmpfs::mount("size=1m,nr_inodes=64,mode=0700");
    let log = disk.path().join("audit.jsonl");
    let resolve = |gid: &str, reason: &str| {
        s.resolve_into(&log, gid, &["--commit", "--yes", "--reason", reason])
            .1
    };
    s.prepare(1, "full-1");
    assert_eq!(resolve("full-1", "r").code, 0);
    let two_records = std::fs::read(&log).unwrap();

    // No space for the record's line: it is cut off again, nothing is done.
    disk.fill_bytes();
    s.prepare(2, "full-2");
    let out = resolve("full-2", &"a reason longer than a page ".repeat(300));
    assert_eq!(out.code, 3, "{}", out.stderr);
    for part in [
        "audit log not writable, so nothing was done",
        "No space left on device",
        "the log is as it was",
    ] {
        assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
    }
    assert!(s.still_prepared("full-2"));
    assert_eq!(
        std::fs::read(&log).unwrap(),
        two_records,
        "no partial record"
    );
    let (v, out) = verify(&log);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        findings(&v),
        [("audit_chain".to_string(), "OK".to_string())]
    );

    // Space for the line, none for the head (no inode for its temporary file): the line
    // is cut off again, so the log and its head agree and nothing is done. Twice: a disk
    // that stays full never makes the trail look tampered with.
    disk.free();
    disk.fill_inodes();
    for attempt in 1..=2 {
        let out = resolve("full-2", "r");
        assert_eq!(out.code, 3, "attempt {attempt}: {}", out.stderr);
        for part in [
            "audit log not writable, so nothing was done",
            "No space left on device",
            "its head could not be, so the record was cut off again",
        ] {
            assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
        }
        assert!(s.still_prepared("full-2"));
        assert_eq!(
            std::fs::read(&log).unwrap(),
            two_records,
            "attempt {attempt}: the record is not left behind"
        );
        let (v, out) = verify(&log);
        assert_eq!(out.code, 0, "attempt {attempt}: {}", out.stdout);
        assert_eq!(
            findings(&v),
            [("audit_chain".to_string(), "OK".to_string())]
        );
    }

    // Tampering looks different: the same log with its last record cut off.
    let copy = tempfile::tempdir().unwrap();
    let cut = copy.path().join("audit.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&cut, format!("{}\n", lines[0])).unwrap();
    std::fs::copy(
        disk.path().join("audit.jsonl.head"),
        copy.path().join("audit.jsonl.head"),
    )
    .unwrap();
    let (v, out) = verify(&cut);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        message(&v, "audit_chain_broken").contains("records were cut off the end"),
        "{v}"
    );

    // Space again: the head needs no repair, and the resolution goes through.
    disk.free();
    let (r, out) = reseal(&log, "the disk was full");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(code(&r), "audit_head_matches", "{r}");
    assert_eq!(std::fs::read(&log).unwrap(), two_records, "no record added");
    assert_eq!(resolve("full-2", "r").code, 0);
    assert!(!s.still_prepared("full-2"));
    assert_eq!(verify(&log).1.code, 0);
}

/// The disk fills between the action and its outcome record: the action ran, and the
/// report says so (exit 2), with what it did and that the trail lacks its outcome — not
/// "nothing done". The outcome line is cut off again, so the log and its head agree:
/// `audit verify` shows the intent without its outcome, never tampering, and later
/// resolutions are not refused.
#[test]
fn an_outcome_a_full_disk_cannot_take_is_reported_as_done_and_not_recorded() {
    let s = Setup::new("fullout");
    let disk = Tmpfs::mount("size=1m,nr_inodes=64,mode=0700");
    let log = disk.path().join("audit.jsonl");
    let commit = ["--commit", "--yes", "--reason", "r"];
    s.prepare(1, "fullout-1");
    assert_eq!(s.resolve_into(&log, "fullout-1", &commit).1.code, 0);
    let two_records = std::fs::read(&log).unwrap();

    s.prepare(2, "fullout-2");
    let (r, out) = paused_into(&s, &log, "before-apply", "fullout-2", &commit, || {
        disk.fill_inodes()
    });
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(code(&r), "outcome_not_recorded", "{r}");
    let said = message(&r, "outcome_not_recorded");
    for part in [
        "the action ran (ok: ",
        "its outcome was not recorded in the audit log",
        "No space left on device",
        "the record was cut off again",
        "`indoubt audit verify` lists it as outcome unknown",
    ] {
        assert!(said.contains(part), "{part:?} not in: {said}");
    }
    let advice = r["findings"][0]["advice"].as_str().unwrap_or("");
    assert!(advice.contains("do not run it again: it ran"), "{r}");
    assert!(
        !out.stderr.contains("nothing was done") && !out.stderr.contains("nothing done"),
        "{}",
        out.stderr
    );
    assert!(!s.still_prepared("fullout-2"), "the action ran");
    assert_eq!(s.balance(2), 101, "committed");
    let text = std::fs::read(&log).unwrap();
    assert!(text.starts_with(&two_records));
    assert_eq!(text.split(|b| *b == b'\n').count(), 4, "the intent only");

    let told = |what: &str| {
        let (v, out) = verify(&log);
        assert_eq!(out.code, 1, "{what}: {}", out.stdout);
        assert_eq!(
            findings(&v),
            [("outcome_unknown".to_string(), "WARNING".to_string())],
            "{what}: not tampering"
        );
        assert!(message(&v, "outcome_unknown").contains("fullout-2"));
    };
    told("after the outcome was cut off");

    // The disk still full: the next resolution is not done, and the trail still agrees.
    s.prepare(3, "fullout-3");
    let out = s.resolve_into(&log, "fullout-3", &commit).1;
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(s.still_prepared("fullout-3"));
    told("after a second failed append");

    // Space again: the writer goes on.
    disk.free();
    assert_eq!(s.resolve_into(&log, "fullout-3", &commit).1.code, 0);
    assert!(!s.still_prepared("fullout-3"));
    told("after the disk was freed");
}

/// The directory of the audit log is never a link, nor under a directory another user
/// could rename (root with another user's HOME): refused, exit 3, nothing done, nothing
/// made there. No trail at all is not a verified one.
#[test]
fn an_audit_directory_that_is_a_link_or_in_another_users_home_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new("auditdir");
    s.prepare(1, "auditdir-1");

    let real = s.dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
    let link = s.dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_refused(
        &s,
        &link.join("audit.jsonl"),
        "auditdir-1",
        &["the directory", "is a symbolic link"],
    );
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0, "nothing made");
    let (_, out) = verify(&link.join("audit.jsonl"));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("is a symbolic link"), "{}", out.stderr);

    // root with a HOME another user owns (sudo -E): the default trail would be theirs to
    // rename away.
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::process::Command::new("chown")
        .args(["65534:65534"])
        .arg(home.path())
        .status()
        .unwrap();
    let out = run(indoubt()
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .env_remove("INDOUBT_CONFIG")
        .args(["resolve", "pg", "auditdir-1", "--pg", &s.pg])
        .args(["--commit", "--yes", "--reason", "r"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    for part in [
        "audit log not writable, so nothing was done",
        &format!("the directory {}, above", home.path().display()),
        "is owned by uid 65534, not by you or root",
    ] {
        assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
    }
    assert!(s.still_prepared("auditdir-1"));
    assert_eq!(
        std::fs::read_dir(home.path()).unwrap().count(),
        0,
        "nothing made in their home"
    );

    // A trail that is not there: never written, or removed with its head.
    let (v, out) = verify(&s.dir.path().join("never/audit.jsonl"));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(code(&v), "audit_no_trail");
    assert!(
        message(&v, "audit_no_trail").contains(&format!(
            "no trail at {}: never written here, or removed",
            s.dir.path().join("never/audit.jsonl").display()
        )),
        "{v}"
    );
}

/// A lost head stops the writer (and says how to recover); `audit reseal` checks the
/// chain, records what it did and why, and the writer goes on. A broken chain is not
/// resealed.
#[test]
fn a_lost_head_blocks_the_writer_until_resealed() {
    let cluster = PrivateCluster::start_quiet();
    let s = Setup::on(&cluster.url("postgres"), "lost");
    let head = s.dir.path().join("audit.jsonl.head");
    s.prepare(1, "lost-1");
    s.prepare(2, "lost-2");
    let (_, out) = s.resolve("lost-1", &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::fs::remove_file(&head).unwrap();

    let (_, out) = s.resolve("lost-2", &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("does not match its head file")
            && out.stderr.contains("the head is missing")
            && out.stderr.contains("hint: run `indoubt audit verify`")
            && out.stderr.contains("`indoubt audit reseal --reason TEXT`"),
        "{}",
        out.stderr
    );
    assert!(s.still_prepared("lost-2"));
    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 2, "{}", out.stdout);
    let broken = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "audit_chain_broken")
        .expect("the missing head is a break");
    assert!(
        broken["message"]
            .as_str()
            .unwrap()
            .contains("the head is missing"),
        "{broken}"
    );
    assert!(
        broken["advice"]
            .as_str()
            .unwrap_or("")
            .contains("indoubt audit reseal --reason"),
        "{broken}"
    );

    let out = run(indoubt()
        .args(["audit", "reseal", "--audit-log"])
        .arg(s.audit()));
    assert_eq!(out.code, 3, "--reason is required: {}", out.stderr);
    let (r, out) = reseal(&s.audit(), "head deleted by a cleanup job, INC-7");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(code(&r), "audit_resealed", "{r}");
    let record = &r["records"][0];
    assert_eq!(record["kind"], "reseal");
    assert_eq!(record["seq"], 3);
    assert_eq!(record["reason"], "head deleted by a cleanup job, INC-7");
    assert!(record["evidence"]["old_head"].is_null(), "{record}");
    assert_eq!(
        record["evidence"]["old_head_problem"],
        "the head is missing"
    );
    assert_eq!(record["evidence"]["verified_records"], 2);
    assert!(record["operator"]["user"]
        .as_str()
        .is_some_and(|u| !u.is_empty()));

    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        message(&v, "audit_resealed").contains("can no longer be ruled out"),
        "{v}"
    );
    assert_eq!(
        message(&v, "audit_chain"),
        "3 record(s), chain intact, every intent has its outcome"
    );
    let (_, out) = s.resolve("lost-2", &["--commit", "--yes", "--reason", "r"]);
    assert_eq!(out.code, 0, "the writer goes on: {}", out.stderr);
    assert_eq!(verify(&s.audit()).1.code, 0);

    // Nothing to do when the head matches.
    let five = std::fs::read(s.audit()).unwrap();
    let (r, out) = reseal(&s.audit(), "again");
    assert_eq!(
        (out.code, code(&r)),
        (0, "audit_head_matches"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read(s.audit()).unwrap(), five);

    // A head naming another record is kept in the reseal record.
    std::fs::write(&head, format!("9 {}\n", "ab".repeat(32))).unwrap();
    let (r, out) = reseal(&s.audit(), "head restored from an old backup");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        r["records"][0]["evidence"]["old_head"],
        format!("9 {}", "ab".repeat(32))
    );

    // A broken chain is never resealed.
    let intact = std::fs::read_to_string(s.audit()).unwrap();
    let edited = intact.replacen("\"decision\":\"commit\"", "\"decision\":\"rollback\"", 1);
    std::fs::write(s.audit(), &edited).unwrap();
    std::fs::remove_file(&head).unwrap();
    let (_, out) = reseal(&s.audit(), "hide it");
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("refused: the chain of")
            && out.stderr.contains("previous-hash does not match"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(s.audit()).unwrap(),
        edited,
        "nothing appended"
    );
    assert!(!head.exists(), "no head made");
}

/// Four branches of one global transaction, one per database, and a decision source
/// keyed by GID that recorded a rollback for the third (`br_c`) and commits for the rest.
struct FourBranches {
    resolver: TestRole,
    dbs: Vec<TestDb>,
    gids: Vec<String>,
    dir: tempfile::TempDir,
    _txlog: TestDb,
    _other: TestRole,
}

impl FourBranches {
    /// `owners[i]`: whether the resolver (true) or another role prepared branch i.
    fn new(owners: [bool; 4]) -> FourBranches {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD;
        let resolver = TestRole::create("resolver", "");
        let other = TestRole::create("other_owner", "");
        let dbs: Vec<TestDb> = ["br_a", "br_b", "br_c", "br_d"]
            .iter()
            .map(|p| TestDb::create(p))
            .collect();
        let txlog = TestDb::create("txlog");
        let gtrid = b64.encode(unique("orders-global").as_bytes());
        let gids: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|b| format!("4660_{gtrid}_{}", b64.encode(b.as_bytes())))
            .collect();
        for (i, db) in dbs.iter().enumerate() {
            db.admin()
                .batch_execute("CREATE TABLE t (v int); GRANT ALL ON t TO PUBLIC")
                .unwrap();
            let role = if owners[i] { &resolver } else { &other };
            connect(&url_for(&role.name, &role.password, &db.name))
                .batch_execute(&format!(
                    "BEGIN; INSERT INTO t VALUES ({i}); PREPARE TRANSACTION {}",
                    literal(&gids[i])
                ))
                .unwrap();
        }
        txlog
            .admin()
            .batch_execute(&format!(
                "CREATE TABLE outcomes (gid text, outcome text);
                 INSERT INTO outcomes VALUES ({}, 'COMMITTED'), ({}, 'COMMITTED'), ({}, 'ROLLED_BACK'), ({}, 'COMMITTED')",
                literal(&gids[0]),
                literal(&gids[1]),
                literal(&gids[2]),
                literal(&gids[3])
            ))
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("indoubt.yaml"),
            format!(
                "postgres:\n  here:\n    conninfo: {}\n  txlog:\n    conninfo: {}\nresolve:\n  decision_sources:\n    - name: outcomes\n      target: txlog\n      query: SELECT outcome FROM outcomes WHERE gid = $1\n      key: gid\n      authoritative: true\n",
                url_for(&resolver.name, &resolver.password, "postgres"),
                txlog.url()
            ),
        )
        .unwrap();
        FourBranches {
            resolver,
            dbs,
            gids,
            dir,
            _txlog: txlog,
            _other: other,
        }
    }

    fn audit(&self) -> PathBuf {
        self.dir.path().join("audit.jsonl")
    }

    /// `resolve pg <branch a> --all-branches --commit --yes`, as the resolver role.
    fn command(&self) -> std::process::Command {
        let mut cmd = indoubt_process();
        cmd.args(["-o", "json", "--config"])
            .arg(self.dir.path().join("indoubt.yaml"))
            .args([
                "resolve",
                "pg",
                &self.gids[0],
                "--pg",
                "here",
                "--all-branches",
                "--commit",
                "--yes",
                "--reason",
                "INC-9 the log says commit",
                "--audit-log",
            ])
            .arg(self.audit());
        cmd
    }

    /// Which branches are still prepared, in database order.
    fn still_prepared(&self) -> Vec<bool> {
        self.dbs
            .iter()
            .map(|db| {
                db.admin()
                    .query_one(
                        "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()",
                        &[],
                    )
                    .unwrap()
                    .get::<_, i64>(0)
                    == 1
            })
            .collect()
    }
}

fn sibling<'a>(r: &'a Value, gid: &str) -> &'a Value {
    r["siblings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["gid"] == gid)
        .unwrap_or_else(|| panic!("{gid} not a sibling: {r}"))
}

/// `--all-branches` over four branches: each is checked against its own source (the
/// one whose source recorded the opposite is left alone); a branch another session
/// rolls back while indoubt works is told it lost the race, and stops none of the
/// others; every branch acted on has its intent and outcome; the exit code says not
/// all went as asked.
#[test]
fn all_branches_reports_each_branch_and_a_lost_race_stops_none() {
    use std::io::{BufRead, Read, Write};
    use std::process::Stdio;
    let four = FourBranches::new([true; 4]);
    let mut child = four
        .command()
        // Waits before the first branch's re-read until a line comes on stdin.
        .env("INDOUBT_FAILPOINT", "pause:before-check")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("failpoint before-check: waiting") {
        assert!(stderr.read_line(&mut said).unwrap() > 0, "{said}");
    }
    four.dbs[1]
        .admin()
        .batch_execute(&format!("ROLLBACK PREPARED {}", literal(&four.gids[1])))
        .unwrap();
    // One line, then the end of input: the later pauses do not wait.
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    stderr.read_to_string(&mut said).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{said}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["outcome"]["status"], "ok", "{r}");
    let (b, c, d) = (
        sibling(&r, &four.gids[1]),
        sibling(&r, &four.gids[2]),
        sibling(&r, &four.gids[3]),
    );
    assert_eq!(
        (&b["state"], &b["outcome"]["status"]),
        (&Value::from("gone"), &Value::from("lost_race")),
        "{b}"
    );
    assert!(
        b["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("another session rolled it back first"),
        "{b}"
    );
    assert_eq!(
        (&c["state"], &c["outcome"]),
        (&"prepared".into(), &Value::Null)
    );
    assert!(
        c["left_alone"].as_str().unwrap().contains("contradict"),
        "{c}"
    );
    assert_eq!(
        (&d["state"], &d["outcome"]["status"]),
        (&"committed".into(), &"ok".into()),
        "{d}"
    );
    let found = findings(&r);
    for expected in [
        ("resolved", "OK"),
        ("lost_race", "WARNING"),
        ("branch_left_alone", "WARNING"),
    ] {
        assert!(
            found.contains(&(expected.0.into(), expected.1.into())),
            "{expected:?} in {found:?}"
        );
    }
    assert_eq!(
        found.iter().filter(|f| f.0 == "resolved").count(),
        2,
        "{found:?}"
    );
    assert_eq!(four.still_prepared(), [false, false, true, false]);
    let committed: Vec<i64> = four
        .dbs
        .iter()
        .map(|db| {
            db.admin()
                .query_one("SELECT count(*) FROM t", &[])
                .unwrap()
                .get(0)
        })
        .collect();
    assert_eq!(committed, [1, 0, 0, 1]);
    let (v, verified) = verify(&four.audit());
    assert_eq!(verified.code, 0, "{}", verified.stdout);
    let records = v["records"].as_array().unwrap();
    let intents: Vec<&str> = records
        .iter()
        .filter(|r| r["kind"] == "intent")
        .map(|r| r["object"].as_str().unwrap())
        .collect();
    assert_eq!(records.len(), 6, "{}", verified.stdout);
    for (gid, acted) in four.gids.iter().zip([true, true, false, true]) {
        assert_eq!(
            intents.iter().any(|o| o.contains(gid.as_str())),
            acted,
            "{gid}: {intents:?}"
        );
    }
}

/// A branch the role may not finish (another role prepared it) refuses the whole
/// `--all-branches` before anything is confirmed or recorded: no branch is resolved.
#[test]
fn all_branches_refuses_them_all_when_one_branch_is_another_roles() {
    let four = FourBranches::new([true, false, true, true]);
    let out = four.command().output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let refused: Vec<&Value> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "not_owner")
        .collect();
    assert_eq!(refused.len(), 1, "{r}");
    assert!(
        refused[0]["subject"]
            .as_str()
            .unwrap()
            .contains(&four.gids[1]),
        "{r}"
    );
    assert!(
        refused[0]["message"]
            .as_str()
            .unwrap()
            .contains(&four.resolver.name),
        "{r}"
    );
    assert_eq!(four.still_prepared(), [true; 4]);
    assert!(!four.audit().exists(), "nothing recorded");
}

/// `resolve pg GID` (JSON, the test's audit log, `extra`) paused at the failpoint `point`
/// (debug builds: `INDOUBT_FAILPOINT=pause:POINT`, after its intent): `meanwhile` runs
/// while it waits there, then it goes on.
fn paused(
    s: &Setup,
    point: &str,
    gid: &str,
    extra: &[&str],
    meanwhile: impl FnOnce(),
) -> (Value, Outcome) {
    paused_into(s, &s.audit(), point, gid, extra, meanwhile)
}

/// The same, recorded in the audit log `audit`.
fn paused_into(
    s: &Setup,
    audit: &Path,
    point: &str,
    gid: &str,
    extra: &[&str],
    meanwhile: impl FnOnce(),
) -> (Value, Outcome) {
    let mut cmd = indoubt_process();
    cmd.args([
        "-o",
        "json",
        "resolve",
        "pg",
        gid,
        "--pg",
        &s.pg,
        "--audit-log",
    ])
    .arg(audit)
    .args(extra);
    paused_at(cmd, point, meanwhile)
}

/// Another session's ROLLBACK PREPARED of `gid`, in the test's database.
fn rolled_back_by_another(s: &Setup, gid: &str) -> impl FnOnce() {
    let (url, gid) = (s.db.url(), gid.to_string());
    move || {
        connect(&url)
            .batch_execute(&format!("ROLLBACK PREPARED {}", literal(&gid)))
            .unwrap()
    }
}

/// The loser of a COMMIT-versus-ROLLBACK race is told which outcome won, from the status
/// of the transaction's xid read with the evidence, and exits 1: it did not do what it
/// was asked. Lost at the statement (42704) or at the re-read before it, alike. When the
/// winner decided the same, it is already resolved as asked (exit 0).
#[test]
fn the_loser_of_a_commit_rollback_race_is_told_which_outcome_won() {
    let s = Setup::new("lostrace");
    let commit = ["--commit", "--yes", "--reason", "race"];

    // After the re-read, before COMMIT PREPARED: the statement finds it gone.
    let gid = unique("race-at-apply");
    s.prepare(1, &gid);
    let (r, out) = paused(
        &s,
        "before-apply",
        &gid,
        &commit,
        rolled_back_by_another(&s, &gid),
    );
    assert_eq!(
        (out.code, code(&r)),
        (1, "lost_race"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let said = r["findings"][0]["message"].as_str().unwrap();
    assert!(
        said.starts_with("NOT committed: another session rolled it back first")
            && said.contains("is aborted"),
        "{said}"
    );
    assert_eq!(
        (
            r["outcome"]["status"].as_str(),
            r["outcome"]["code"].as_str()
        ),
        (Some("lost_race"), Some("42704")),
        "{r}"
    );
    assert_eq!(s.balance(1), 100, "the other session's rollback stands");

    // Before the re-read: found gone there, nothing sent, told the same.
    let gid = unique("race-at-check");
    s.prepare(2, &gid);
    let (r, out) = paused(
        &s,
        "before-check",
        &gid,
        &commit,
        rolled_back_by_another(&s, &gid),
    );
    assert_eq!((out.code, code(&r)), (1, "lost_race"), "{}", out.stdout);
    assert!(r["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("NOT committed: another session rolled it back first"));
    assert_eq!(r["outcome"]["code"], Value::Null, "{r}");

    // The winner decided the same: already resolved as asked.
    let gid = unique("race-same");
    s.prepare(3, &gid);
    let (r, out) = paused(
        &s,
        "before-check",
        &gid,
        &["--rollback", "--yes", "--reason", "race"],
        rolled_back_by_another(&s, &gid),
    );
    assert_eq!(
        (out.code, code(&r)),
        (0, "already_resolved"),
        "{}",
        out.stdout
    );
    assert!(r["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("already resolved as asked: another session rolled it back first"));

    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 0, "{}", out.stdout);
    let statuses: Vec<&str> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["outcome"]["status"].as_str())
        .collect();
    assert_eq!(statuses, ["lost_race", "lost_race", "already_resolved"]);
}

/// PostgreSQL lets only the role that prepared a transaction, or a superuser, commit or
/// roll it back: any other role is refused before anything is confirmed or recorded
/// (exit 3, no audit log written), with whom to connect as.
#[test]
fn a_role_that_did_not_prepare_it_is_refused_before_any_intent() {
    let s = Setup::new("owner");
    let owner = TestRole::create("owner", "");
    let other = TestRole::create("other", "");
    s.db.admin()
        .batch_execute(&format!("GRANT ALL ON accounts TO \"{}\"", owner.name))
        .unwrap();
    let gid = unique("owned");
    connect(&url_for(&owner.name, &owner.password, &s.db.name))
        .batch_execute(&format!(
            "BEGIN; UPDATE accounts SET balance = balance + 1 WHERE id = 1; PREPARE TRANSACTION {}",
            literal(&gid)
        ))
        .unwrap();
    let as_role = |role: &TestRole, extra: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "resolve", "pg", &gid, "--pg"])
            .arg(url_for(&role.name, &role.password, &s.db.name))
            .args(["--commit", "--audit-log"])
            .arg(s.audit())
            .args(extra));
        (
            serde_json::from_str::<Value>(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    };
    for extra in [&["--yes", "--reason", "r"][..], &["--dry-run"][..]] {
        let (r, out) = as_role(&other, extra);
        assert_eq!(
            (out.code, code(&r)),
            (3, "not_owner"),
            "{extra:?}: {}\n{}",
            out.stdout,
            out.stderr
        );
        let finding = &r["findings"][0];
        let said = finding["message"].as_str().unwrap();
        assert!(
            said.contains(&format!("connected as {}", other.name))
                && said.contains(&format!("its owner is {}", owner.name))
                && said.contains("not a superuser"),
            "{said}"
        );
        assert_eq!(
            finding["advice"].as_str(),
            Some(format!("connect as {} or a superuser", owner.name).as_str())
        );
        assert!(!s.audit().exists(), "no intent recorded: {extra:?}");
        assert!(s.still_prepared(&gid));
    }
    let (r, out) = as_role(&owner, &["--yes", "--reason", "r"]);
    assert_eq!((out.code, code(&r)), (0, "resolved"), "{}", out.stderr);
    assert_eq!(s.balance(1), 101, "its owner may");
}

/// A second resolve of a transaction whose earlier intent has no outcome (that process
/// died between its intent and its statement) shows that intent — when, who, which
/// decision — and warns before going on; the new intent names it. Another transaction's
/// open intent is not shown.
#[test]
fn a_second_resolve_after_a_crash_shows_the_earlier_intent_and_warns() {
    let s = Setup::new("again");
    let gid = unique("crashed-once");
    s.prepare(1, &gid);
    let out = run(indoubt()
        .env("INDOUBT_FAILPOINT", "after-intent")
        .args(["resolve", "pg", &gid, "--pg", &s.pg, "--rollback", "--yes"])
        .args(["--reason", "first try", "--audit-log"])
        .arg(s.audit()));
    assert_eq!(out.code, 86, "{}", out.stderr);
    let (v, _) = verify(&s.audit());
    let open = v["records"][0].clone();
    let open_id = open["action_id"].as_str().unwrap().to_string();

    let (r, out) = s.resolve(&gid, &["--rollback", "--dry-run"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let earlier = r["earlier_intents"].as_array().unwrap();
    assert_eq!(earlier.len(), 1, "{r}");
    assert_eq!(
        (
            earlier[0]["action_id"].as_str(),
            earlier[0]["decision"].as_str(),
            earlier[0]["time"].as_str()
        ),
        (
            Some(open_id.as_str()),
            Some("rollback"),
            open["time"].as_str()
        )
    );
    assert_eq!(earlier[0]["operator"], open["operator"]);
    // The same server at another address (localhost, not 127.0.0.1): the same intent,
    // found by the server's identity.
    let elsewhere = run(indoubt()
        .args([
            "-o",
            "json",
            "resolve",
            "pg",
            &gid,
            "--rollback",
            "--dry-run",
            "--pg",
        ])
        .arg(s.pg.replace("127.0.0.1", "localhost"))
        .arg("--audit-log")
        .arg(s.audit()));
    let elsewhere: Value = serde_json::from_str(&elsewhere.stdout).unwrap();
    assert_eq!(
        elsewhere["earlier_intents"][0]["action_id"].as_str(),
        Some(open_id.as_str()),
        "{elsewhere:#}"
    );
    let table = run(indoubt()
        .args([
            "resolve",
            "pg",
            &gid,
            "--pg",
            &s.pg,
            "--rollback",
            "--dry-run",
        ])
        .arg("--audit-log")
        .arg(s.audit()));
    // The warning is wrapped to the width: read as words.
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    for part in [
        "WARNING: an earlier resolve of prepared transaction",
        "has no outcome in the audit log",
        "decision rollback (heuristic)",
        &open_id,
        "That process may have died before its action",
    ] {
        assert!(
            flat(&table.stdout).contains(part),
            "{part:?}: {}",
            table.stdout
        );
    }

    let (r, out) = s.resolve(&gid, &["--rollback", "--yes", "--reason", "second try"]);
    assert_eq!((out.code, code(&r)), (0, "resolved"), "{}", out.stderr);
    assert!(
        flat(&out.stderr).contains("WARNING: an earlier resolve of")
            && out.stderr.contains(&open_id),
        "warned before going on: {}",
        out.stderr
    );
    let (v, _) = verify(&s.audit());
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 3, "{v}");
    assert_eq!(
        records[1]["evidence"]["earlier_intents_without_outcome"],
        serde_json::json!([open_id]),
        "{}",
        records[1]
    );

    let other = unique("never-crashed");
    s.prepare(2, &other);
    let (r, _) = s.resolve(&other, &["--rollback", "--dry-run"]);
    assert_eq!(r["earlier_intents"], serde_json::json!([]), "{r}");
}

/// A GID that starts with `-` (a negative XA format id is legal) is an operand after `--`
/// in the printed `--all-branches` command, or the shell's next command would read it as
/// a flag.
#[test]
fn the_all_branches_next_of_a_dash_first_gid_works_as_printed() {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let s = Setup::new("dashgid");
    let gtrid = b64.encode(unique("dash-global").as_bytes());
    let here = format!("-7_{gtrid}_{}", b64.encode(b"branch-a"));
    let there = format!("-7_{gtrid}_{}", b64.encode(b"branch-b"));
    s.prepare(1, &here);
    s.prepare(2, &there);
    let out = run(indoubt().args([
        "-o",
        "json",
        "resolve",
        "pg",
        "--pg",
        &s.db.url(),
        "--rollback",
        "--dry-run",
        "--audit-log",
        &s.audit().to_string_lossy(),
        "--",
        &here,
    ]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let next = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "other_branches_prepared")
        .and_then(|f| f["next"].as_str())
        .unwrap_or_else(|| panic!("the sibling's warning names a next command: {report:#}"))
        .to_string();
    assert!(next.contains(&format!(" -- {here}")), "{next}");
    // The URL's password is not repeated; the shell gives it as libpq's variable.
    let url = s.db.url();
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('@'))
        .and_then(|(user, _)| user.split_once(':'))
        .map(|(_, password)| password.to_string())
        .expect("the lab's URL holds a password");
    assert!(!next.contains(&password), "{next}");
    let (resolved, code) = run_printed(&format!("PGPASSWORD='{password}' {next}"));
    assert_ne!(code, Some(3), "{next}: {resolved:#}");
    assert_eq!(resolved["gid"], here.as_str(), "{next}");
    assert_eq!(resolved["all_branches"], true, "{next}");
    assert_eq!(resolved["dry_run"], true, "{next}");
    assert!(s.still_prepared(&here) && s.still_prepared(&there));
    for gid in [&here, &there] {
        connect(&s.db.url())
            .batch_execute(&format!("ROLLBACK PREPARED {}", literal(gid)))
            .unwrap();
    }
}

/// A GID that is not prepared is never "already resolved" on a guess: a mistyped digit
/// or a GID pasted with its quotes is UNKNOWN (exit 3), nothing done, with the GID meant
/// named; once indoubt resolved it, the audit trail says who did and when (OK), also when
/// the server is reached at another address; a trail without that record is not OK.
#[test]
fn a_gid_that_is_not_prepared_is_not_ok_unless_the_audit_trail_resolved_it() {
    let s = Setup::new("absent");
    let gid = format!("{}_orders_4711", unique("absent"));
    s.prepare(1, &gid);
    let typo = gid.replace("_4711", "_4771");
    let quoted = format!("'{gid}'");
    for asked in [typo.as_str(), quoted.as_str()] {
        for extra in [
            &["--dry-run"][..],
            &["--commit", "--yes", "--reason", "INC-7"][..],
        ] {
            let (report, out) = s.resolve(asked, extra);
            assert_eq!(out.code, 3, "{asked} {extra:?}: {}", out.stdout);
            assert_eq!(code(&report), "not_there", "{report:#}");
            assert_eq!(
                report["findings"][0]["evidence"]["did_you_mean"],
                serde_json::json!([gid]),
                "{report:#}"
            );
            assert!(s.still_prepared(&gid), "nothing was done");
        }
    }
    let table = run(indoubt()
        .args([
            "resolve",
            "pg",
            &typo,
            "--dry-run",
            "--pg",
            &s.pg,
            "--audit-log",
        ])
        .arg(s.audit()));
    assert_eq!(table.code, 3);
    let words = table
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(&format!("did you mean '{gid}'")),
        "{}",
        table.stdout
    );
    assert!(
        !table.stdout.contains("already resolved"),
        "{}",
        table.stdout
    );

    let (_, out) = s.resolve(&gid, &["--commit", "--yes", "--reason", "INC-7"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Through another address of the same server: the record is found by the server's
    // identity, not the address string.
    let other = s.pg.replace("127.0.0.1", "localhost");
    assert_ne!(other, s.pg, "the lab's URL names 127.0.0.1");
    let again = run(indoubt()
        .args([
            "-o",
            "json",
            "resolve",
            "pg",
            &gid,
            "--pg",
            &other,
            "--audit-log",
        ])
        .arg(s.audit())
        .args(["--commit", "--yes", "--reason", "retry"]));
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(code(&again), "already_resolved", "{again:#}");
    assert_eq!(again["exit_code"], 0);
    let message = again["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("ran commit") && message.contains("audit record 2"),
        "{message}"
    );
    // A trail that never saw it: not OK.
    let (fresh, out) = s.resolve_into(&s.dir.path().join("other.jsonl"), &gid, &["--dry-run"]);
    assert_eq!((out.code, code(&fresh)), (3, "not_there"), "{fresh:#}");
}

/// COMMIT PREPARED names a GID, not a transaction: if the one reviewed ends and another
/// is prepared under the same GID between the re-read and the statement, the statement
/// reaches the new one. That is found from the reviewed xid's status afterwards,
/// reported (exit 2) and recorded as a mismatch, never as "ok".
#[test]
fn a_statement_that_reached_another_transaction_under_the_same_gid_is_not_ok() {
    let s = Setup::new("regid");
    let gid = unique("reused-gid");
    s.prepare(1, &gid);
    let (url, again) = (s.db.url(), gid.clone());
    let (r, out) = paused(
        &s,
        "before-apply",
        &gid,
        &["--commit", "--yes", "--reason", "INC-9"],
        move || {
            let mut c = connect(&url);
            c.batch_execute(&format!("ROLLBACK PREPARED {}", literal(&again)))
                .unwrap();
            c.batch_execute(&format!(
                "BEGIN; UPDATE accounts SET balance = balance + 10 WHERE id = 2; PREPARE TRANSACTION {}",
                literal(&again)
            ))
            .unwrap();
        },
    );
    assert_eq!(
        (out.code, code(&r)),
        (2, "resolved_another"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let said = r["findings"][0]["message"].as_str().unwrap();
    assert!(said.contains("is aborted, not committed"), "{said}");
    assert_eq!(r["outcome"]["status"], "mismatch", "{r:#}");
    // What happened: the reviewed update was rolled back, the new one committed.
    assert_eq!((s.balance(1), s.balance(2)), (100, 110));
    let (v, _) = verify(&s.audit());
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.last().unwrap()["outcome"]["status"], "mismatch");
}

/// USER and SUDO_USER are claims anyone starting the process can make: each record also
/// holds what the kernel says — the real uid and the login uid (kept through su and
/// sudo) with their names — beside the claimed names, which stay as they were.
#[test]
fn the_audit_record_holds_the_real_and_the_login_uid_beside_the_claimed_names() {
    let s = Setup::new("whoami");
    s.prepare(1, "whoami-1");
    let expected_login = s.dir.path().join("loginuid");
    // The login uid of a session nobody logged in to, where the kernel lets root set
    // it (CAP_AUDIT_CONTROL, not yet set); else whatever this process has.
    let mut cmd = indoubt_process();
    let program = cmd.get_program().to_owned();
    cmd = {
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(format!(
                "echo 65534 > /proc/self/loginuid 2>/dev/null; cat /proc/self/loginuid > '{}'; exec \"$0\" \"$@\"",
                expected_login.display()
            ))
            .arg(program);
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => sh.env(key, v),
                None => sh.env_remove(key),
            };
        }
        sh
    };
    let out = cmd
        .env("USER", "mallory")
        .env("SUDO_USER", "eve")
        .args([
            "resolve", "pg", "whoami-1", "--pg", &s.pg, "--commit", "--yes",
        ])
        .args(["--reason", "r", "--audit-log"])
        .arg(s.audit())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let login: u32 = std::fs::read_to_string(&expected_login)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let uid: u32 = String::from_utf8(
        std::process::Command::new("id")
            .arg("-u")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let (v, out) = verify(&s.audit());
    assert_eq!(out.code, 0, "{}", out.stdout);
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    for r in records {
        assert_eq!(
            r["operator"]["user"], "mallory",
            "the claim, as before: {r}"
        );
        assert_eq!(r["operator"]["sudo_user"], "eve", "{r}");
        let identity = &r["identity"];
        assert_eq!(identity["uid"], uid, "{r}");
        assert_eq!(identity["uid_name"], "root", "{r}");
        if login == u32::MAX {
            assert_eq!(identity["login_uid"], Value::Null, "unset: {r}");
        } else {
            assert_eq!(identity["login_uid"], login, "{r}");
            assert_eq!(identity["login_name"], "nobody", "{r}");
        }
    }
    let table = run(indoubt()
        .args(["audit", "list", "--audit-log"])
        .arg(s.audit()));
    assert!(table.stdout.contains("uid 0 (root)"), "{}", table.stdout);
}
