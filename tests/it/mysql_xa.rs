//! `mysql xa`, `resolve mysql` and `check` against the lab's real MariaDB: branches left
//! by sessions that disconnected after XA PREPARE and by sessions still holding them,
//! their ages and where those come from, the sessions blocked behind them, the XA
//! statements written in hex, and bad input refused before anything is done.

#![allow(clippy::disallowed_methods)] // tests write their own fixtures

use crate::common;

use common::mysql::{self, MysqlDb};
use common::*;
use serde_json::Value;

fn xa_json(extra: &[&str]) -> (Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "mysql", "xa"])
        .args(mysql::target_args())
        .args(extra));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// The finding about the branch with this XID.
fn finding<'a>(report: &'a Value, xid: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["evidence"]["xid"] == xid))
        .unwrap_or_else(|| panic!("no finding for {xid}: {report:#}"))
}

fn branch<'a>(report: &'a Value, xid: &str) -> &'a Value {
    report["branches"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["xid"] == xid))
        .unwrap_or_else(|| panic!("no branch {xid}: {report:#}"))
}

#[test]
fn a_branch_whose_session_disconnected_is_listed_with_its_age_rows_and_decoded_xid() {
    let db = MysqlDb::create("xa_detached");
    // A Narayana-shaped XID: the 28-byte Uid then the node name, format 131077.
    let node = unique("node").replace('_', "-");
    let mut gtrid = vec![0u8; 10];
    gtrid.extend_from_slice(&[
        0xff, 0xff, 0x7f, 0, 0, 1, 0, 0, 0x8c, 0x93, 0x6b, 0x0f, 0x7d, 0x5c, 0, 0, 0, 2,
    ]);
    gtrid.extend_from_slice(node.as_bytes());
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let xid = format!("X'{}',X'01',131077", hex(&gtrid));
    db.prepare_detached(&xid);
    // A warning from the first second, so the finding names its next command (an OK one
    // names none). The lab's own incident branch may be older than a day: the exit code
    // is the worst of all; this branch's own finding is a WARNING.
    let (report, out) = xa_json(&["--warning-age", "0s", "--critical-age", "24h"]);
    assert!(out.code <= 2, "{}", out.stderr);
    let f = finding(&report, &xid);
    assert_eq!(f["code"], "xa_branch_age");
    assert_eq!(f["severity"], "WARNING", "{f:#}");
    // The lab holds other detached branches too: exact or a lower bound, never unknown.
    let basis = f["evidence"]["age_basis"].as_str().unwrap();
    assert!(matches!(basis, "exact" | "at_least"), "{f:#}");
    assert!(f["evidence"]["age_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(f["evidence"]["attached_session"], Value::Null);
    let b = branch(&report, &xid);
    // Its own InnoDB transaction only when it is the one no session holds; else nothing
    // of another's is claimed for it.
    match basis {
        "exact" => assert_eq!(b["rows_modified"], 1, "{b:#}"),
        _ => {
            assert!(
                b["rows_modified"].is_null()
                    && b["age"]["source"]
                        .as_str()
                        .unwrap()
                        .contains("at least as old as the youngest"),
                "{b:#}"
            );
            // What is established of the group is said of the group, with its severity.
            let group = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| {
                    f["evidence"]["xids"]
                        .as_array()
                        .is_some_and(|x| x.iter().any(|x| x == xid.as_str()))
                })
                .unwrap_or_else(|| panic!("no finding about the group: {report:#}"));
            assert_eq!(group["code"], "xa_branch_age");
            let oldest = group["evidence"]["oldest_seconds"].as_f64().unwrap();
            assert!(oldest >= f["evidence"]["age_seconds"].as_f64().unwrap());
        }
    }
    assert_eq!(b["decoded_xid"]["transaction_manager"], "Narayana");
    assert_eq!(
        b["decoded_xid"]["narayana"]["coordinator_node"],
        node.as_str()
    );
    // The next command, run as printed, finds the same branch.
    let next = f["next"].as_str().unwrap();
    assert!(next.contains("resolve mysql 0x"), "{next}");
    let words: Vec<String> = shell_words(next);
    let out = run(indoubt().args(["-o", "json"]).args(&words[1..]));
    let dry: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(dry["branch"]["xid"], xid.as_str(), "{}", out.stderr);
    mysql::sql(&format!("XA ROLLBACK {xid}"));
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// A command line as printed (no quotes needed in the ones tested here).
fn shell_words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn a_branch_a_live_session_holds_is_attributed_its_victims_named_and_never_resolved() {
    let db = MysqlDb::create("xa_held");
    let gtrid = unique("held");
    let xid = mysql::xid(&gtrid, "b1", 4660);
    let held = db.prepare_held(&xid);
    // A session that wants the row waits (innodb_lock_wait_timeout is 5s in the lab).
    let name = db.name.clone();
    let waiter = std::thread::spawn(move || {
        std::process::Command::new("mariadb")
            .arg(format!("--defaults-file={}", mysql::cnf()))
            .args([
                "-e",
                &format!("UPDATE {name}.orphans SET v = 'waiter' WHERE id = 1"),
            ])
            .output()
            .unwrap()
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (report, _) = xa_json(&[]);
    let f = finding(&report, &xid);
    let session = f["evidence"]["attached_session"].as_u64();
    assert!(session.is_some(), "{f:#}");
    assert_eq!(f["evidence"]["age_basis"], "exact", "{f:#}");
    let blocked = f["evidence"]["blocked_sessions"].as_array().unwrap();
    assert_eq!(blocked.len(), 1, "{f:#}");
    // Held by a session: refused as busy, nothing recorded as done.
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let resolve = |extra: &[&str]| {
        let out = run(indoubt()
            .args(["-o", "json", "resolve", "mysql", &xid])
            .args(mysql::target_args())
            .arg("--audit-log")
            .arg(&audit)
            .args(extra));
        (
            serde_json::from_str::<Value>(&out.stdout).unwrap_or(Value::Null),
            out,
        )
    };
    let (busy, out) = resolve(&["--rollback", "--yes", "--reason", "test"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(busy["findings"][0]["code"], "busy", "{busy:#}");
    assert!(mysql::prepared(&gtrid));
    waiter.join().unwrap();
    // Its session gone, the branch stays prepared and is rolled back by its XID.
    drop(held);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        mysql::prepared(&gtrid),
        "a prepared branch survives its session"
    );
    let (done, out) = resolve(&["--rollback", "--yes", "--reason", "test"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(done["outcome"]["status"], "ok", "{done:#}");
    assert_eq!(
        done["statement"],
        format!("XA ROLLBACK {}", xid),
        "the statement names the XID in hex"
    );
    assert!(!mysql::prepared(&gtrid));
    assert_eq!(db.rows(), 1);
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(
        log.contains("\"intent\"") && log.contains("XA ROLLBACK"),
        "{log}"
    );
    // The same again: already resolved (the audit trail says so), exit 0.
    let (again, out) = resolve(&["--rollback", "--yes", "--reason", "test"]);
    assert_eq!(out.code, 0);
    assert_eq!(again["findings"][0]["code"], "already_resolved");
    // Another trail has no record of it: not there, exit 3, nothing is OK about it.
    let other = run(indoubt()
        .args(["-o", "json", "resolve", "mysql", &xid])
        .args(mysql::target_args())
        .arg("--audit-log")
        .arg(dir.path().join("other.jsonl"))
        .arg("--dry-run"));
    let other: Value = serde_json::from_str(&other.stdout).unwrap();
    assert_eq!(other["findings"][0]["code"], "not_there", "{other:#}");
    assert_eq!(other["exit_code"], 3, "{other:#}");
}

#[test]
fn hostile_xid_bytes_are_committed_by_their_hex_form_only() {
    let db = MysqlDb::create("xa_hostile");
    let gtrid = format!("{}');DROP DATABASE {};--", unique("h"), db.name);
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let xid = format!("X'{}',X'{}',7", hex(&gtrid), hex("\u{1b}[31m"));
    db.prepare_detached(&xid);
    let dir = tempfile::tempdir().unwrap();
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "resolve",
            "mysql",
            &xid,
            "--commit",
            "--yes",
            "--reason",
            "test",
            "--audit-log",
        ])
        .arg(dir.path().join("a.jsonl"))
        .args(mysql::target_args()));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        report["outcome"]["status"], "ok",
        "{report:#}{}",
        out.stderr
    );
    // Committed, and the database is still there.
    assert_eq!(
        mysql::sql(&format!("SELECT v FROM {}.orphans WHERE id = 1", db.name)).trim(),
        "changed"
    );
}

#[test]
fn bad_input_and_unreachable_servers_are_refused_with_exit_3() {
    let out = run(indoubt()
        .args(["resolve", "mysql", "X'zz'", "--dry-run"])
        .args(mysql::target_args()));
    assert_eq!(out.code, 3);
    assert!(out.stderr.contains("not an XID"), "{}", out.stderr);
    let out = run(indoubt().args(["mysql", "xa", "--mysql", "nosuch"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("neither a target name"),
        "{}",
        out.stderr
    );
    let port = free_port();
    let out = run(indoubt().args([
        "mysql",
        "xa",
        "--mysql",
        &format!("mysql://u@127.0.0.1:{port}/"),
        "--timeout",
        "3s",
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains(&format!("connecting to mysql://u@127.0.0.1:{port}/")),
        "{}",
        out.stderr
    );
    // A wrong password is the server's refusal, and the password is never printed.
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("my.cnf");
    std::fs::write(&cnf, "[client]\npassword=wrong-secret-42\n").unwrap();
    let out = run(indoubt()
        .args(["mysql", "xa", "--mysql", &mysql::url(), "--defaults-file"])
        .arg(&cnf));
    assert_eq!(out.code, 3);
    assert!(out.stderr.contains("Access denied"), "{}", out.stderr);
    assert!(!out.stderr.contains("wrong-secret-42") && !out.stdout.contains("wrong-secret-42"));
}

#[test]
fn ssl_modes_verify_the_server_as_the_mysql_client_does() {
    let ca = lab("INDOUBT_LAB_PG_CA");
    let other = lab("INDOUBT_LAB_PG_OTHER_CA");
    let xa = |url: &str, mode: &str, ca: Option<&str>| {
        let mut cmd = indoubt();
        cmd.args([
            "-v",
            "-o",
            "json",
            "mysql",
            "xa",
            "--mysql",
            url,
            "--defaults-file",
        ])
        .arg(mysql::cnf())
        .args(["--ssl-mode", mode]);
        if let Some(ca) = ca {
            cmd.args(["--ssl-ca", ca]);
        }
        run(&mut cmd)
    };
    let port = lab("INDOUBT_LAB_MYSQL_PORT");
    let by_ip = format!(
        "mysql://{}@127.0.0.1:{port}/",
        lab("INDOUBT_LAB_MYSQL_USER")
    );
    let by_name = format!(
        "mysql://{}@localhost:{port}/",
        lab("INDOUBT_LAB_MYSQL_USER")
    );
    // The lab's certificate names localhost and 127.0.0.1, signed by the lab's CA.
    for (url, mode) in [
        (&by_ip, "VERIFY_IDENTITY"),
        (&by_name, "VERIFY_IDENTITY"),
        (&by_ip, "VERIFY_CA"),
        (&by_ip, "REQUIRED"),
    ] {
        let out = xa(url, mode, Some(&ca));
        assert!(out.code < 3, "{mode} {url}: {}", out.stderr);
        assert!(out.stderr.contains(", over TLS"), "{mode}: {}", out.stderr);
    }
    let out = xa(&by_ip, "DISABLED", None);
    assert!(
        out.code < 3 && !out.stderr.contains("over TLS"),
        "{}",
        out.stderr
    );
    // Another CA's signature is refused before anything is read.
    let out = xa(&by_ip, "VERIFY_CA", Some(&other));
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(out.stderr.contains("ssl-mode VERIFY_CA"), "{}", out.stderr);
    // VERIFY_* without a CA is refused with what it needs.
    let out = xa(&by_ip, "VERIFY_IDENTITY", None);
    assert_eq!(out.code, 3);
    assert!(out.stderr.contains("needs ssl-ca"), "{}", out.stderr);
}

/// A server certificate signed by another CA than the one given: one line naming the
/// ssl-ca setting that gave the CA file and the CA that did sign, then a hint (the right
/// CA file; --ssl-mode=REQUIRED only encrypts), never OpenSSL's own words; exit 3.
#[test]
fn a_server_certificate_of_another_ca_names_the_ssl_ca_and_how_to_fix_it() {
    let other = lab("INDOUBT_LAB_PG_OTHER_CA");
    let port = lab("INDOUBT_LAB_MYSQL_PORT");
    let user = lab("INDOUBT_LAB_MYSQL_USER");
    let by_flag = run(indoubt()
        .args(["mysql", "xa", "--mysql", &mysql::url(), "--defaults-file"])
        .arg(mysql::cnf())
        .args(["--ssl-mode", "VERIFY_CA", "--ssl-ca", &other]));
    let by_url = run(indoubt()
        .args([
            "mysql",
            "xa",
            "--mysql",
            &format!("mysql://{user}@localhost:{port}/?ssl-mode=VERIFY_IDENTITY&ssl-ca={other}"),
            "--defaults-file",
        ])
        .arg(mysql::cnf()));
    for (out, host, set_by) in [
        (&by_flag, "127.0.0.1", "ssl-ca".to_string()),
        (&by_url, "localhost", "ssl-ca (the URL)".to_string()),
    ] {
        assert_eq!(out.code, 3, "{}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            2,
            "one error line, one hint line: {}",
            out.stderr
        );
        assert!(
            lines[0].contains(&format!(
                "the certificate of the server at {host}:{port} (CN=localhost) is not signed by a CA indoubt trusts: it is issued by CN=indoubt lab CA, which is not among the CAs of {set_by} {other} (CN=stranger CA)"
            )),
            "{}",
            out.stderr
        );
        assert!(
            lines[1].starts_with("hint: point --ssl-ca")
                && lines[1].contains("at the file of the CA that issued the server's certificate (CN=indoubt lab CA)")
                && lines[1].contains("--ssl-mode=REQUIRED would connect without this check, but it only encrypts"),
            "{}",
            out.stderr
        );
        assert!(
            !out.stderr.contains("error:0A000086") && !out.stderr.contains("statem_clnt"),
            "OpenSSL's own text is not repeated: {}",
            out.stderr
        );
    }
}

#[test]
fn config_show_check_names_what_a_mysql_user_lacks_with_the_grant() {
    let db = MysqlDb::create("xa_cfg");
    // A branch, so the reads that attribute one have something to read.
    let xid = mysql::xid(&unique("cfg"), "b", 4660);
    db.prepare_detached(&xid);
    let user = unique("nopriv");
    mysql::sql(&format!(
        "CREATE USER '{user}'@'%' IDENTIFIED BY 'pw-{user}'"
    ));
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("nopriv.cnf");
    std::fs::write(&cnf, format!("[client]\npassword=pw-{user}\n")).unwrap();
    let port = lab("INDOUBT_LAB_MYSQL_PORT");
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "mysql:\n  admin:\n    url: {}\n    option_file: {}\n  monitor:\n    url: mysql://{user}@127.0.0.1:{port}/\n    option_file: {}\n",
            mysql::url(),
            mysql::cnf(),
            cnf.display()
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "config", "show", "--check"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let target = |name: &str| {
        report["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["kind"] == "mysql" && t["name"] == name)
            .unwrap_or_else(|| panic!("no mysql target {name}: {report:#}"))
            .clone()
    };
    assert_eq!(target("admin")["status"], "OK", "{report:#}");
    let monitor = target("monitor");
    assert_eq!(monitor["status"], "WARNING", "{monitor:#}");
    let lacking = monitor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "mysql_unprivileged")
        .unwrap_or_else(|| panic!("{monitor:#}"));
    assert!(
        lacking["detail"].as_str().unwrap().contains("PROCESS"),
        "{lacking:#}"
    );
    assert_eq!(
        lacking["next"],
        format!("GRANT PROCESS ON *.* TO '{user}'@'%';")
    );
    assert_eq!(out.code, 1);
    mysql::sql(&format!("XA ROLLBACK {xid}; DROP USER '{user}'@'%'"));
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn check_runs_mysql_xa_on_every_mysql_target_in_every_format() {
    let db = MysqlDb::create("xa_check");
    let gtrid = unique("chk");
    let xid = mysql::xid(&gtrid, "b", 4660);
    db.prepare_detached(&xid);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "mysql:\n  m1:\n    url: {}\n    option_file: {}\n    ssl_mode: DISABLED\nthresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 100d\n",
            mysql::url(),
            mysql::cnf()
        ),
    )
    .unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "check"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let checks: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["mysql xa"], "{report:#}");
    // WARNING by its age (warning_age 0s); UNKNOWN when other tests' branches on the
    // shared server leave its age not established (the integration tests run side by side).
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["evidence"]["xid"] == xid.as_str()
                && (f["severity"] == "WARNING"
                    || (f["severity"] == "UNKNOWN" && f["code"] == "xa_branch_age_unknown"))),
        "{report:#}"
    );
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "prometheus", "check"]));
    // The finding by its code on the target (no series per XID), the branches counted.
    assert!(
        out.stdout.lines().any(|l| l.starts_with(
            "indoubt_finding_severity{target=\"m1\",check=\"mysql_xa\",code=\"xa_branch_age"
        )),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("xid="), "{}", out.stdout);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("indoubt_mysql_xa_prepared_branches{target=\"m1\"}")),
        "{}",
        out.stdout
    );
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "nagios", "check"]));
    assert!(out.stdout.starts_with("INDOUBT "), "{}", out.stdout);
    assert!(
        out.stdout.contains("m1 mysql xa: XA branch"),
        "{}",
        out.stdout
    );
    mysql::sql(&format!("XA ROLLBACK {xid}"));
}

#[test]
fn beside_a_branch_recovered_at_a_restart_no_branch_age_has_an_upper_bound() {
    // A server of its own, restarted under a prepared branch: InnoDB dates the branch it
    // recovers from the restart, though it was prepared before.
    let server = mysql::PrivateMariadb::start();
    server.sql(
        "CREATE DATABASE t; CREATE TABLE t.orphans (id BIGINT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB; INSERT INTO t.orphans VALUES (1, 'one'), (2, 'two');",
    );
    let prepare = |xid: &str, id: u32| {
        server.sql(&format!(
            "XA START {xid}; UPDATE t.orphans SET v = 'changed' WHERE id = {id}; XA END {xid}; XA PREPARE {xid};"
        ))
    };
    let recovered = mysql::xid("recovered", "b", 4660);
    prepare(&recovered, 1);
    server.ctl("restart");
    // Past the seconds after a restart in which a transaction may still be a recovered
    // one: the next branch is plainly one whose session went away.
    wait_for("the server to be up for 12s", || server.uptime() >= 12);
    let gone = mysql::xid("gone", "b", 4660);
    prepare(&gone, 2);
    let out = run(indoubt()
        .args(["-o", "json", "mysql", "xa", "--warning-age", "0s"])
        .args(server.target_args()));
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert!(out.code < 3, "{}{}", out.stdout, out.stderr);
    // Two branches no session holds, two such transactions: which is which is not
    // known, and one of them is older than its InnoDB start, by how much nothing says.
    for xid in [&recovered, &gone] {
        let f = finding(&report, xid);
        assert_eq!(f["evidence"]["age_basis"], "at_least", "{f:#}");
        assert_eq!(f["evidence"]["age_at_most_seconds"], Value::Null, "{f:#}");
        let message = f["message"].as_str().unwrap();
        assert!(
            message.contains("at least") && !message.contains("between"),
            "{message}"
        );
        let b = branch(&report, xid);
        assert_eq!(b["age"]["earliest_since"], Value::Null, "{b:#}");
        assert!(
            b["age"]["source"].as_str().unwrap().contains("restart"),
            "{b:#}"
        );
    }
    // The group's oldest is dated from the restart: at least that old, not "started ago".
    let group = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["evidence"]["xids"].is_array())
        .unwrap_or_else(|| panic!("no finding about the group: {report:#}"));
    assert_eq!(group["evidence"]["oldest_recovered"], true, "{group:#}");
    let message = group["message"].as_str().unwrap();
    assert!(
        message.contains("no later than the server's restart"),
        "{message}"
    );
    // The table says no more than the JSON: no span of ages or of starts.
    let out = run(indoubt()
        .args(["mysql", "xa", "--warning-age", "0s"])
        .args(server.target_args())
        .env("COLUMNS", "200"));
    assert!(
        !out.stdout.contains("between") && out.stdout.contains("at least"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_branch_a_live_session_holds_names_that_session_and_no_resolve_as_its_next() {
    let db = MysqlDb::create("xa_holder");
    let gtrid = unique("holder");
    let xid = mysql::xid(&gtrid, "b1", 4660);
    let sibling = mysql::xid(&gtrid, "b2", 4660);
    // Dropped after the session holding the branch (declared before it).
    let _cleanup = mysql::Cleanup {
        xids: vec![xid.clone(), sibling.clone()],
        database: db.name.clone(),
    };
    let held = db.prepare_held(&xid);
    // Another branch of the same global transaction, its session gone.
    mysql::sql(&format!(
        "XA START {sibling}; INSERT INTO {}.orphans VALUES (2, 'two'); XA END {sibling}; XA PREPARE {sibling};",
        db.name
    ));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (report, out) = xa_json(&["--warning-age", "0s", "--critical-age", "24h"]);
    assert!(out.code <= 2, "{}", out.stderr);
    let f = finding(&report, &xid);
    assert_eq!(f["severity"], "WARNING", "{f:#}");
    let session = f["evidence"]["attached_session"]
        .as_u64()
        .unwrap_or_else(|| panic!("{f:#}"));
    // resolve refuses a branch a session holds: no resolve is its next.
    assert_eq!(f["next"], Value::Null, "{f:#}");
    // What to look at instead: that session, who it is and how long it has been idle.
    let advice = f["advice"].as_str().unwrap();
    let user = lab("INDOUBT_LAB_MYSQL_USER");
    for part in [
        format!("session {session} ({user}@127.0.0.1"),
        "idle".to_string(),
        "still holds this branch".to_string(),
    ] {
        assert!(advice.contains(&part), "{part:?} in {advice}");
    }
    assert_eq!(f["evidence"]["holder"]["user"], user.as_str(), "{f:#}");
    assert_eq!(f["evidence"]["holder"]["command"], "Sleep", "{f:#}");
    // resolve says the same of it, and does nothing.
    let out = run(indoubt()
        .args(["-o", "json", "resolve", "mysql", &xid, "--dry-run"])
        .args(mysql::target_args()));
    let busy: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(busy["findings"][0]["code"], "busy", "{busy:#}");
    assert!(
        busy["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("session {session} ({user}@127.0.0.1")),
        "{busy:#}"
    );
    // Its sibling is still prepared, said so; but no next goes through the held branch.
    let findings = busy["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "other_branches_prepared"),
        "{busy:#}"
    );
    let held_arg = format!("0x{}", hex(&gtrid));
    for f in findings {
        let next = f["next"].as_str().unwrap_or_default();
        assert!(
            !(next.contains("resolve mysql") && next.contains(&format!("{held_arg},0x6231,"))),
            "a next through the held branch: {f:#}"
        );
    }
    // Its session gone first: then the cleanup rolls both back.
    drop(held);
    std::thread::sleep(std::time::Duration::from_millis(500));
}

#[test]
fn resolve_mysql_of_an_xid_not_there_names_the_lister_of_the_same_server() {
    // Addressed through a config of its own: the lister must check that server, not
    // the default config's.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("my indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "mysql:\n  billing:\n    url: {}\n    option_file: {}\n    ssl_mode: DISABLED\n",
            mysql::url(),
            mysql::cnf()
        ),
    )
    .unwrap();
    let xid = mysql::xid(&unique("never"), "b", 4660);
    let audit = dir.path().join("audit.jsonl");
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["-o", "json", "resolve", "mysql", &xid, "--mysql", "billing"])
        .arg("--audit-log")
        .arg(&audit)
        .arg("--dry-run"));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let f = &report["findings"][0];
    assert_eq!(f["code"], "not_there", "{f:#}");
    let next = f["next"]
        .as_str()
        .unwrap_or_else(|| panic!("no lister: {f:#}"));
    assert_eq!(
        next,
        format!(
            "indoubt --config '{}' mysql xa --mysql billing",
            config.display()
        )
    );
    // Run as printed (by a shell), it lists that server's branches: a config of that
    // name exists nowhere else.
    let shell = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("\"$INDOUBT_BIN\"{}", &next["indoubt".len()..]),
        ])
        .env("INDOUBT_BIN", assert_cmd::cargo::cargo_bin("indoubt"))
        .env_remove("INDOUBT_CONFIG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&shell.stdout);
    // It read that server: its report, no usage error. UNKNOWN (3) only for a branch of
    // another test running beside this one on the same server whose age cannot be told.
    let code = shell.status.code();
    assert!(
        stdout.contains("on billing")
            && (code.is_some_and(|c| c < 3)
                || (code == Some(3) && stdout.contains("(explain: xa_branch_age_unknown)"))),
        "{stdout}{}",
        String::from_utf8_lossy(&shell.stderr)
    );
    // Addressed by URL and option file: the lister repeats both.
    let out = run(indoubt()
        .args(["-o", "json", "resolve", "mysql", &xid, "--dry-run"])
        .args(mysql::target_args())
        .arg("--audit-log")
        .arg(&audit));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let next = report["findings"][0]["next"].as_str().unwrap_or_default();
    assert!(
        next.starts_with("indoubt mysql xa --mysql ")
            && next.contains(&format!("--defaults-file {}", mysql::cnf())),
        "{report:#}"
    );
}
