//! `indoubt pg outbox`: backlog, age, the rows a monotonic-cursor relay skipped, growth, inboxes.

mod common;

use common::*;
use serde_json::Value;

fn setup() -> (TestDb, tempfile::TempDir, std::path::PathBuf) {
    let db = TestDb::create("outbox");
    db.admin()
        .batch_execute(
            "CREATE TABLE events_outbox (seq bigint PRIMARY KEY, made timestamptz NOT NULL, sent timestamptz);
             INSERT INTO events_outbox SELECT g, now() - interval '2 hours', now() - interval '2 hours' FROM generate_series(1, 50) g;
             UPDATE events_outbox SET sent = NULL WHERE seq IN (7, 30);          -- committed after the cursor passed
             INSERT INTO events_outbox VALUES (51, now(), NULL), (52, now(), NULL); -- the relay's normal lag
             CREATE TABLE inbox (id text, received timestamptz);
             INSERT INTO inbox VALUES ('a', now() - interval '3 days'), ('b', now());",
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "outbox:\n  events:\n    postgres: {url}\n    table: public.events_outbox\n    id_column: seq\n    created_at_column: made\n    published_at_column: sent\n    settle: 5m\n    warning_age: 1h\n    critical_age: 3h\ninbox:\n  in:\n    postgres: {url}\n    table: inbox\n    created_at_column: received\n",
            url = db.url()
        ),
    )
    .unwrap();
    (db, dir, config)
}

fn outbox(config: &std::path::Path, home: &std::path::Path) -> (Value, Outcome) {
    let out = run(indoubt()
        .env("XDG_STATE_HOME", home)
        .args(["-o", "json", "--config"])
        .arg(config)
        .args(["pg", "outbox"]));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

#[test]
fn skipped_rows_backlog_age_growth_and_inbox() {
    let (db, dir, config) = setup();
    let (r, out) = outbox(&config, dir.path());
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let state = &r["outboxes"][0]["state"];
    assert_eq!(state["unpublished"], 4);
    assert_eq!(state["max_published_id"], "50");
    assert_eq!(state["skipped"], 2);
    assert_eq!(
        state["skipped_ids"],
        serde_json::json!(["7", "30"]),
        "51 and 52 are merely young"
    );
    let codes: Vec<(&str, &str)> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert!(
        codes.contains(&("outbox_skipped_rows", "CRITICAL")),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("outbox_backlog", "WARNING")),
        "2h old: past the 1h warning, not the 3h critical: {codes:?}"
    );
    assert_eq!(r["inboxes"][0]["state"]["rows"], 2);
    assert!(r["inboxes"][0]["state"]["oldest_seconds"].as_f64().unwrap() > 2.9 * 86_400.0);
    assert!(
        r["outboxes"][0]["growth_since_last_check"].is_null(),
        "no earlier check"
    );

    // The relay publishes the skipped rows and two more arrive: growth is known now.
    db.admin().batch_execute("UPDATE events_outbox SET sent = now() WHERE seq IN (7, 30); INSERT INTO events_outbox VALUES (53, now(), NULL), (54, now(), NULL)").unwrap();
    let (r, out) = outbox(&config, dir.path());
    assert_eq!(out.code, 0, "young backlog only: {}", out.stdout);
    assert_eq!(r["outboxes"][0]["state"]["skipped"], 0);
    assert_eq!(
        r["outboxes"][0]["growth_since_last_check"], 0,
        "4 unpublished before, 4 now"
    );

    // The same outbox name, now counted in another database: nothing to compare with.
    let (_other_db, _other_dir, other_config) = setup();
    let (r, _) = outbox(&other_config, dir.path());
    assert_eq!(r["outboxes"][0]["state"]["unpublished"], 4);
    assert!(
        r["outboxes"][0]["growth_since_last_check"].is_null()
            && r["outboxes"][0]["last_check_at"].is_null(),
        "{r}"
    );
}

#[test]
fn a_missing_table_is_unknown_and_the_rest_still_reports() {
    let (db, dir, _) = setup();
    let config = dir.path().join("bad.yaml");
    std::fs::write(
        &config,
        format!("outbox:\n  gone:\n    postgres: {url}\n    table: no_such_outbox\ninbox:\n  in:\n    postgres: {url}\n    table: inbox\n    created_at_column: received\n", url = db.url()),
    )
    .unwrap();
    let (r, out) = outbox(&config, dir.path());
    assert_eq!(out.code, 3);
    let unknown = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "outbox_unreadable")
        .expect("named");
    assert!(
        unknown["message"].as_str().unwrap().contains("42P01"),
        "{unknown}"
    );
    assert_eq!(r["inboxes"][0]["state"]["rows"], 2);
}
