//! `indoubt pg outbox`: backlog, age, the rows a monotonic-cursor relay skipped, growth, inboxes.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

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
            "outbox:\n  events:\n    postgres: {url}\n    table: public.events_outbox\n    id_column: seq\n    created_at_column: made\n    published_at_column: sent\n    settle: 5m\n    warning_age: 1h\n    critical_age: 3h\ninbox:\n  in:\n    postgres: {url}\n    table: inbox\n    created_at_column: received\n    retention: 7d\n    producer_retry_horizon: 7d\n",
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
    // Each finding's next statement, run as printed, lists the rows it is about.
    let next = |code: &str| {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == code)
            .and_then(|f| f["next"].as_str())
            .unwrap_or_else(|| panic!("{code} has a next statement: {r}"))
            .to_string()
    };
    let seqs = |sql: &str| -> Vec<i64> {
        db.admin()
            .query(sql, &[])
            .unwrap()
            .iter()
            .map(|row| row.get("seq"))
            .collect()
    };
    // A statement names no server: it says where it runs, in a comment that runs too.
    for code in ["outbox_skipped_rows", "outbox_backlog"] {
        let said = format!("/* in database {} of ", db.name);
        assert!(next(code).starts_with(&said), "{code}: {}", next(code));
    }
    assert_eq!(seqs(&next("outbox_skipped_rows")), vec![7, 30]);
    assert_eq!(
        seqs(&next("outbox_backlog")),
        vec![7, 30, 51, 52],
        "the oldest unpublished first"
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
    assert!(
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["next"].is_null()),
        "nothing to act on, no next: {r}"
    );
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

/// An inbox whose ids are kept shorter than producers may redeliver lets a late duplicate
/// through; one whose ids outlive its retention (or that names none) is pruned by
/// nothing; an outbox keeping rows published long ago the same. Each is said with its
/// rows, size and oldest; the inbox's growth since the previous check is counted; one
/// kept within a retention that covers the horizon is OK.
#[test]
fn an_inbox_that_forgets_too_early_and_tables_nobody_prunes_are_said() {
    let db = TestDb::create("inboxretention");
    db.admin()
        .batch_execute(
            "CREATE TABLE old_outbox (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, published_at timestamptz);
             INSERT INTO old_outbox SELECT g, now() - interval '20 days', now() - interval '20 days' FROM generate_series(1, 30) g;
             INSERT INTO old_outbox VALUES (31, now(), now());
             CREATE TABLE short_inbox (id text, received timestamptz);
             INSERT INTO short_inbox SELECT 'm' || g, now() - g * interval '1 day' - interval '1 hour' FROM generate_series(1, 20) g;
             CREATE TABLE kept_inbox (id text, received timestamptz);
             INSERT INTO kept_inbox SELECT 'm' || g, now() - g * interval '1 day' FROM generate_series(1, 20) g;
             CREATE TABLE bare_inbox (id text, received timestamptz);
             INSERT INTO bare_inbox VALUES ('m', now());",
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    let inbox = |name: &str, table: &str, more: &str| {
        format!(
            "  {name}:\n    postgres: {}\n    table: {table}\n    created_at_column: received\n{more}",
            db.url()
        )
    };
    std::fs::write(
        &config,
        format!(
            "outbox:\n  old:\n    postgres: {}\n    table: old_outbox\ninbox:\n{}{}{}",
            db.url(),
            inbox(
                "short",
                "short_inbox",
                "    retention: 7d\n    producer_retry_horizon: 14d\n"
            ),
            inbox(
                "kept",
                "kept_inbox",
                "    retention: 30d\n    producer_retry_horizon: 14d\n"
            ),
            inbox("bare", "bare_inbox", ""),
        ),
    )
    .unwrap();
    let (r, out) = outbox(&config, dir.path());
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let about = |code: &str, subject: &str| {
        findings_of(&r, code)
            .into_iter()
            .find(|f| f["subject"].as_str().unwrap().contains(subject))
            .unwrap_or_else(|| panic!("no {code} about {subject}: {r:#}"))
            .clone()
    };
    let short = about("inbox_retention_short", "short_inbox");
    assert!(
        short["message"]
            .as_str()
            .unwrap()
            .contains("the retention configured for it, 7d, is shorter than the 14d a producer may deliver a message again"),
        "{short:#}"
    );
    let unpruned = about("inbox_unretained", "short_inbox");
    assert!(
        unpruned["message"]
            .as_str()
            .unwrap()
            .contains("14 row(s) are older than the retention 7d"),
        "days 7 to 20 (and an hour) are past 7d, the oldest past a day more: {unpruned:#}"
    );
    let bare = about("inbox_unretained", "bare_inbox");
    assert!(
        bare["message"]
            .as_str()
            .unwrap()
            .contains("no retention is configured"),
        "{bare:#}"
    );
    assert_eq!(about("inbox_size", "kept_inbox")["severity"], "OK");
    let old = about("outbox_unpruned", "old_outbox");
    assert_eq!(old["evidence"]["published_past_retention"], 30, "{old:#}");
    assert!(old["evidence"]["bytes"].as_i64().unwrap() > 0);
    // The inbox's growth since this check.
    db.admin()
        .batch_execute("INSERT INTO kept_inbox VALUES ('new1', now()), ('new2', now())")
        .unwrap();
    let (r, _) = outbox(&config, dir.path());
    let kept = r["inboxes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "kept")
        .unwrap();
    assert_eq!(kept["growth_since_last_check"], 2, "{kept:#}");
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

/// The outbox state directory other users can write, with links and files planted by
/// `nobody`: `pg outbox` and `check` as root refuse them, write nothing and follow no link.
#[test]
fn planted_state_files_are_refused_and_never_followed() {
    let (_db, dir, config) = setup();
    let checked = dir.path().join("checked.yaml");
    std::fs::write(
        &checked,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("    settle: 5m\n", "    settle: 5m\n    check: true\n"),
    )
    .unwrap();
    let refused = |state: &AttackedDir, says: &[&str]| {
        let (r, out) = outbox(&config, state.parent());
        assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
        assert!(r.is_null(), "no report: nothing was done: {}", out.stdout);
        for part in ["refused: "].iter().chain(says) {
            assert!(out.stderr.contains(part), "{part:?} not in: {}", out.stderr);
        }
        assert!(out.stderr.contains("\nhint: "), "{}", out.stderr);
        state.assert_untouched();
    };

    // Anyone may write the directory (no sticky bit): a link at the state file's path.
    let open = AttackedDir::named("indoubt", 0o777);
    open.plant_links(
        &open.victim,
        &["outbox-events.json", ".outbox-events.json.tmp"],
    );
    refused(
        &open,
        &[
            "the directory",
            "is writable by group and others (mode 0777)",
        ],
    );

    // A sticky directory: the link itself is refused, by `pg outbox` and by `check`.
    let sticky = AttackedDir::named("indoubt", 0o1777);
    sticky.plant_links(&sticky.victim, &["outbox-events.json"]);
    refused(&sticky, &["the outbox state", "is a symbolic link"]);
    let out = run(indoubt()
        .env("XDG_STATE_HOME", sticky.parent())
        .args(["-o", "json", "--config"])
        .arg(&checked)
        .args(["check", "--only", "outbox"]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(report["checks"][0]["status"], "UNKNOWN", "{}", out.stdout);
    assert!(
        report["checks"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("is a symbolic link")),
        "{}",
        out.stdout
    );
    sticky.assert_untouched();

    // A state file `nobody` made.
    let foreign = AttackedDir::named("indoubt", 0o1777);
    as_nobody(&format!(
        "echo '{{}}' > '{}'",
        foreign.path("outbox-events.json").display()
    ));
    refused(&foreign, &["is owned by uid 65534, not by you or root"]);
    assert_eq!(
        std::fs::read_to_string(foreign.path("outbox-events.json")).unwrap(),
        "{}\n"
    );
}

/// The state directory is made 0700 and the state file 0600.
#[test]
fn the_state_is_kept_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_db, dir, config) = setup();
    let (_, out) = outbox(&config, dir.path());
    assert_eq!(out.code, 2, "{}", out.stderr);
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&dir.path().join("indoubt")), 0o700);
    assert_eq!(mode(&dir.path().join("indoubt/outbox-events.json")), 0o600);
}
