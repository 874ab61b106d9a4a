//! `indoubt camunda incidents` and `resolve camunda` against the real Operaton engine
//! (Camunda 7's Apache-2.0 fork, tests/lab/operaton) on the lab's PostgreSQL: the engine
//! raises the incidents, leaves the retries and the locks, and resolves its incidents
//! itself when indoubt sets retries through its REST API.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::operaton::{engine, state_of, Served};
use common::seata::line;
use common::*;
use serde_json::Value;
use std::path::Path;

fn probe(config: &Path) -> (Value, Outcome) {
    json_with(config, &["camunda", "incidents"])
}

fn findings<'a>(r: &'a Value, code: &str) -> Vec<&'a Value> {
    findings_of(r, code)
}

/// The one finding of `code` about `process/activity`.
fn about<'a>(r: &'a Value, code: &str, activity: &str) -> &'a Value {
    let all: Vec<&Value> = findings(r, code)
        .into_iter()
        .filter(|f| {
            let e = &f["evidence"];
            format!(
                "{}/{}",
                e["process"].as_str().unwrap_or(""),
                e["activity"].as_str().unwrap_or("")
            ) == activity
        })
        .collect();
    assert_eq!(all.len(), 1, "one {code} about {activity}: {r:#}");
    all[0]
}

fn resolve(config: &Path, audit: &Path, args: &[&str]) -> (Value, Outcome) {
    let audit = audit.to_string_lossy();
    let mut all = vec!["resolve", "camunda", "--audit-log", &audit];
    all.extend(args);
    json_with(config, &all)
}

/// A job that ran out of retries and an external task failed with none left are open
/// incidents, named with the exception, the first frame of its stack trace and the
/// business key; a job still burning retries, one whose executor died holding its lock
/// and a task whose worker is gone are each named. A mistyped id is refused, not taken
/// for resolved; without a REST API the call is printed; with it, the engine sets the
/// retries (named by the incident or by the task), resolves the incidents itself and
/// the instances complete.
#[test]
fn the_engines_incidents_and_stalls_are_named_and_it_resolves_them_through_its_api() {
    let db = TestDb::create("camunda");
    let jdbc = common::xa::jdbc(&db.url());
    let failed = engine("fail-job", &jdbc, &["key=order-1"]);
    let job_incident = line(&failed, "incident").fields["id"].clone();
    let job = line(&failed, "incident").fields["job"].clone();
    engine("burn-job", &jdbc, &["key=order-2"]);
    let refused = engine("fail-external", &jdbc, &["key=order-3", "worker=carrier-1"]);
    let task = line(&refused, "incident").fields["external_task"].clone();
    engine(
        "lock-external",
        &jdbc,
        &["key=order-4", "worker=carrier-2", "lock_ms=500"],
    );
    let died = engine("die-in-job", &jdbc, &["key=order-5", "lock_ms=500"]);
    let owner = line(&died, "job").fields["lock_owner"].clone();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    let audit = dir.path().join("audit.log");
    let section = format!(
        "camunda:\n  bpm:\n    postgres: {}\n    lock_age: 1s\n",
        db.url()
    );
    std::fs::write(&config, &section).unwrap();
    // Past both locks' expiry and the lock age.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let (r, out) = probe(&config);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let charge = about(&r, "camunda_incident", "payment/charge");
    let message = charge["message"].as_str().unwrap();
    assert!(
        message.contains("card declined for order order-1")
            && message.contains("(at indoubt.lab.operaton.App$Charge.execute(")
            && message.contains("business key order-1"),
        "{charge:#}"
    );
    let named = &charge["evidence"]["incidents"][0];
    assert_eq!(named["configuration"], job.as_str(), "{charge:#}");
    assert_eq!(named["business_key"], "order-1", "{charge:#}");
    assert!(
        named["stack_head"]
            .as_str()
            .unwrap()
            .starts_with("java.lang.IllegalStateException: card declined"),
        "{charge:#}"
    );
    let ship = about(&r, "camunda_incident", "shipping/ship");
    assert_eq!(ship["evidence"]["incident_type"], "failedExternalTask");
    assert_eq!(
        ship["evidence"]["incidents"][0]["configuration"],
        task.as_str()
    );
    let burning = about(&r, "camunda_retrying", "renewal/renewalCharge");
    assert!(
        burning["message"]
            .as_str()
            .unwrap()
            .contains("4 retries left"),
        "{burning:#}"
    );
    let locked = about(&r, "camunda_lock_expired", "packing/pack");
    assert!(
        locked["message"].as_str().unwrap().contains(&owner),
        "{locked:#}"
    );
    let gone = about(&r, "camunda_worker_gone", "shipping/ship");
    assert!(
        gone["message"]
            .as_str()
            .unwrap()
            .contains("worker carrier-2"),
        "{gone:#}"
    );
    assert_eq!(
        r["engines"][0]["snapshot"]["schema_version"], "7.24.0",
        "Operaton 1.0 keeps Camunda's schema numbers: {r:#}"
    );

    // The incident's next, pasted: the dry run of the job it names, which (no REST API
    // configured) prints the engine's call.
    let next = charge["next"].as_str().unwrap();
    let (dry, code) = run_printed(next);
    assert_eq!(code, Some(1), "{dry:#}");
    assert_eq!(dry["findings"][0]["code"], "call_only", "{dry:#}");
    assert_eq!(dry["found"][0]["kind"], "job", "{dry:#}");
    assert_eq!(dry["found"][0]["retries"], 0, "{dry:#}");
    // A job still burning its retries has nothing to give back: the count would only
    // change (the reviewer's "quietly lowers retries").
    let renewal = about(&r, "camunda_retrying", "renewal/renewalCharge");
    let burning_job = renewal["evidence"]["named"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (lowered, out) = resolve(
        &config,
        &audit,
        &["bpm", &burning_job, "--yes", "--reason", "x"],
    );
    assert_eq!(out.code, 1, "{lowered:#}");
    assert_eq!(lowered["findings"][0]["code"], "not_judged", "{lowered:#}");

    // A mistyped id is nothing indoubt found, not something resolved.
    let (typo, out) = resolve(&config, &audit, &["bpm", "no-such-job", "--dry-run"]);
    assert_eq!(out.code, 3, "{typo:#}");
    assert_eq!(typo["findings"][0]["code"], "not_there", "{typo:#}");

    // Without a REST API: the call, printed; nothing sent.
    let (printed, out) = resolve(&config, &audit, &["bpm", &job, "--yes", "--reason", "x"]);
    assert_eq!(out.code, 1, "{printed:#}");
    assert_eq!(printed["findings"][0]["code"], "call_only", "{printed:#}");
    let call = printed["findings"][0]["next"].as_str().unwrap();
    assert!(
        call.starts_with("curl ") && call.ends_with(&format!("/job/{job}/retries")),
        "{call}"
    );

    // With the engine's API: the job named by its incident, the task by its id.
    let served = Served::start(&jdbc, true);
    std::fs::write(&config, format!("{section}    rest: {}\n", served.url)).unwrap();
    let (done, out) = resolve(
        &config,
        &audit,
        &[
            "bpm",
            &job_incident,
            &task,
            "--yes",
            "--reason",
            "card processor fixed",
        ],
    );
    assert_eq!(out.code, 0, "{done:#}\n{}", out.stderr);
    let codes: Vec<&Value> = done["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["code"])
        .collect();
    assert_eq!(codes, ["resolved", "resolved"], "{done:#}");
    assert!(
        done["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("the engine has no open incident on it"),
        "{done:#}"
    );
    // The engine's own word: no incident left, and both instances completed.
    wait_for("the engine to run the job and the task", || {
        let state = engine("state", &jdbc, &[]);
        state_of(&state, "incident", "type", "failedJob").is_empty()
            && state_of(&state, "incident", "type", "failedExternalTask").is_empty()
            && ["order-1", "order-3"].iter().all(|key| {
                state_of(&state, "instance", "business_key", key)
                    .iter()
                    .all(|i| i.fields["ended"] == "true")
            })
    });
    let (r, out) = probe(&config);
    assert!(findings(&r, "camunda_incident").is_empty(), "{r:#}");
    assert_eq!(
        out.code, 1,
        "only the renewal still burns its retries: {r:#}"
    );
    drop(served);
}

/// The engine writes its times as its JVM's local time: a lock taken for ten minutes by a
/// JVM in New York is not "expired hours ago" to a database in UTC once the config names
/// the engine's zone.
#[test]
fn an_engine_in_another_time_zone_is_read_in_its_zone() {
    let db = TestDb::create("camunda_tz");
    let jdbc = common::xa::jdbc(&db.url());
    let out = std::process::Command::new(repo_root().join("tests/lab/operaton/run"))
        .args([
            "lock-external",
            &format!("db={jdbc}"),
            "key=order-tz",
            "worker=carrier-ny",
            "lock_ms=600000",
        ])
        .env("JAVA_TOOL_OPTIONS", "-Duser.timezone=America/New_York")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    let section = format!(
        "camunda:\n  bpm:\n    postgres: {}\n    lock_age: 1s\n",
        db.url()
    );
    std::fs::write(
        &config,
        format!("{section}    time_zone: America/New_York\n"),
    )
    .unwrap();
    let (r, out) = probe(&config);
    assert_eq!(out.code, 0, "its lock has ten minutes to run: {r:#}");
    assert!(findings(&r, "camunda_worker_gone").is_empty(), "{r:#}");
    // The zone left out, the engine's local times read as the database's: the lock
    // looks hours gone (what the setting is for).
    std::fs::write(&config, &section).unwrap();
    let (r, _) = probe(&config);
    assert_eq!(findings(&r, "camunda_worker_gone").len(), 1, "{r:#}");
}
