//! `indoubt dbos workflows` and `resolve dbos` against the real DBOS Transact library
//! (3.4.0, tests/lab/dbos) on the lab's PostgreSQL: DBOS gives up on a workflow whose
//! process dies in a step, strands a PENDING one under an application version no process
//! runs, starves a queue behind a dead head, ends one in ERROR; a sleeping one only
//! waits. DBOS's own CLI resumes and cancels them, and DBOS runs the resumed ones to
//! SUCCESS.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::dbos::{app, status, Serving};
use common::*;
use serde_json::Value;
use std::path::Path;

fn probe(config: &Path) -> (Value, Outcome) {
    json_with(config, &["dbos", "workflows"])
}

/// The one finding of `code` whose evidence names workflow `id`.
fn naming<'a>(r: &'a Value, code: &str, id: &str) -> &'a Value {
    let all: Vec<&Value> = findings_of(r, code)
        .into_iter()
        .filter(|f| {
            let ids = f["evidence"]["ids"].as_array().into_iter().flatten();
            let heads = f["evidence"]["heads"].as_array().into_iter().flatten();
            ids.chain(heads).any(|i| i == id)
        })
        .collect();
    assert_eq!(all.len(), 1, "one {code} naming {id}: {r:#}");
    all[0]
}

fn resolve(config: &Path, audit: &Path, args: &[&str]) -> (Value, Outcome) {
    let audit = audit.to_string_lossy();
    let mut all = vec!["resolve", "dbos", "--audit-log", &audit];
    all.extend(args);
    json_with(config, &all)
}

/// Each stuck state DBOS leaves is named with its last step, a sleeping workflow is not;
/// a mistyped id is refused (DBOS's own cancel would say nothing); resuming a PENDING
/// workflow while a DBOS process is connected is refused unless its executor is said to
/// be gone (it would run twice); without a CLI the command is printed, with no password;
/// with DBOS's CLI the workflows are resumed and cancelled, and DBOS runs the resumed
/// ones to SUCCESS.
#[test]
fn dbos_stuck_workflows_are_named_and_dbos_resumes_and_cancels_them() {
    let db = TestDb::create("dbos");
    let url = db.url();
    // Version v0 first: a later v1 makes it the old one.
    app("die", &url, &["key=old", "executor=e0", "version=v0"]);
    app("die", &url, &["key=m1", "executor=e1"]);
    for _ in 0..3 {
        app("recover", &url, &["executor=e1"]);
    }
    assert_eq!(status(&url, "m1"), "MAX_RECOVERY_ATTEMPTS_EXCEEDED");
    app("enqueue", &url, &["key=q", "count=3", "executor=e3"]);
    app("fail", &url, &["key=f1", "executor=e4"]);
    // Its process died and nothing restarts executor e5.
    app("die", &url, &["key=p1", "executor=e5"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    let audit = dir.path().join("audit.log");
    let section = format!("dbos:\n  orders:\n    postgres: {url}\n    pending_age: 1s\n");
    std::fs::write(&config, &section).unwrap();
    // A workflow sleeping for an hour, its process alive: waiting, not stuck.
    let waiter = Serving::start(&url, &["wait=w1", "how=sleep", "executor=e6"], Some("w1"));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (r, out) = probe(&config);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let dead = naming(&r, "dbos_dead_lettered", "m1");
    assert_eq!(dead["severity"], "CRITICAL", "{dead:#}");
    assert!(
        dead["message"]
            .as_str()
            .unwrap()
            .contains("its last recorded step is reserve (#1)"),
        "{dead:#}"
    );
    naming(&r, "dbos_error", "f1");
    let pending = naming(&r, "dbos_pending", "p1");
    assert!(
        pending["message"]
            .as_str()
            .unwrap()
            .contains("on executor(s) e5"),
        "{pending:#}"
    );
    let starved = naming(&r, "dbos_queue_starved", "q-1");
    assert!(
        starved["message"]
            .as_str()
            .unwrap()
            .contains("queue orders (concurrency 1) waited"),
        "{starved:#}"
    );
    let stranded = naming(&r, "dbos_stranded", "old");
    assert!(
        stranded["message"]
            .as_str()
            .unwrap()
            .contains("the newest version is v1"),
        "{stranded:#}"
    );
    // `check` joins findings about the same workflow only: each stuck one keeps its own
    // next (they are all charge_order workflows).
    let checked = dir.path().join("check.yaml");
    std::fs::write(&checked, format!("{section}    check: true\n")).unwrap();
    let (report, out) = json_with(&checked, &["check", "--only", "dbos"]);
    let nexts: Vec<&str> = report["incidents"]
        .as_array()
        .unwrap_or_else(|| panic!("{}\n{}", out.stdout, out.stderr))
        .iter()
        .filter_map(|i| i["next"].as_str())
        .collect();
    for id in ["m1", "old", "p1", "q-1"] {
        assert!(
            nexts.iter().any(|n| n.ends_with(&format!(" orders {id}"))),
            "no next for {id}: {nexts:#?}"
        );
    }
    let said: String = r["findings"].to_string();
    assert!(
        !said.contains("\"w1\""),
        "a sleeping workflow is judged: {r:#}"
    );
    let listed = r["applications"][0]["snapshot"]["stalled"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == "w1")
        .unwrap_or_else(|| panic!("w1 not read: {r:#}"));
    assert_eq!(listed["last_step"]["name"], "DBOS.sleep", "{listed:#}");

    // A mistyped id is nothing indoubt found (DBOS's own cancel would exit 0, silent).
    let (typo, out) = resolve(
        &config,
        &audit,
        &["orders", "nosuch", "--cancel", "--dry-run"],
    );
    assert_eq!(out.code, 3, "{typo:#}");
    assert_eq!(typo["findings"][0]["code"], "not_there", "{typo:#}");
    // A DBOS process is connected: resuming a PENDING workflow could run it twice.
    let (twice, out) = resolve(
        &config,
        &audit,
        &["orders", "old", "--resume", "--yes", "--reason", "x"],
    );
    assert_eq!(out.code, 1, "{twice:#}");
    assert_eq!(twice["findings"][0]["code"], "not_judged", "{twice:#}");
    assert!(
        twice["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("--executor-gone"),
        "{twice:#}"
    );
    drop(waiter);

    // Without a CLI: DBOS's command, printed, its password nowhere in it.
    let (printed, out) = resolve(
        &config,
        &audit,
        &["orders", "m1", "--resume", "--yes", "--reason", "x"],
    );
    assert_eq!(out.code, 1, "{printed:#}");
    assert_eq!(printed["findings"][0]["code"], "call_only", "{printed:#}");
    let command = printed["findings"][0]["next"].as_str().unwrap();
    assert!(
        command.starts_with("dbos workflow resume --sys-db-url ") && command.ends_with(" -- m1"),
        "{command}"
    );
    let password = url.split(':').nth(2).unwrap().split('@').next().unwrap();
    assert!(!command.contains(password), "{command}");

    // With DBOS's CLI: m1 resumed, the queue's head resumed (its executor is gone), the
    // stranded one cancelled.
    let cli = repo_root().join("tests/lab/dbos/run");
    std::fs::write(
        &config,
        format!("{section}    cli: [{}, dbos]\n", cli.display()),
    )
    .unwrap();
    let (done, out) = resolve(
        &config,
        &audit,
        &[
            "orders",
            "m1",
            "q-1",
            "p1",
            "--resume",
            "--executor-gone",
            "--yes",
            "--reason",
            "charge fixed",
        ],
    );
    assert_eq!(out.code, 0, "{done:#}\n{}", out.stderr);
    let codes: Vec<&Value> = done["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["code"])
        .collect();
    assert_eq!(codes, ["resolved", "resolved", "resolved"], "{done:#}");
    assert_eq!(status(&url, "m1"), "ENQUEUED");
    let (cancelled, out) = resolve(
        &config,
        &audit,
        &[
            "orders",
            "old",
            "--cancel",
            "--yes",
            "--reason",
            "v0 retired",
        ],
    );
    assert_eq!(out.code, 0, "{cancelled:#}\n{}", out.stderr);
    assert_eq!(status(&url, "old"), "CANCELLED");
    // DBOS's word: a v1 process runs the resumed ones and the queue behind them.
    app(
        "serve",
        &url,
        &["executor=e9", "fixed=true", "until=m1,p1,q-1,q-2,q-3"],
    );
    for id in ["m1", "p1", "q-1", "q-2", "q-3"] {
        assert_eq!(status(&url, id), "SUCCESS", "{id}");
    }
    let (r, _) = probe(&config);
    let codes: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["dbos_error"], "only f1's ERROR is left: {r:#}");
}
