//! `indoubt saga` and `resolve saga` against a hand-written order saga's tables — the
//! lab's fixture (tests/lab/sagas: each stuck state, seats held for a compensated and a
//! missing saga) in a database of the test's own — on PostgreSQL and on MariaDB, with the
//! config of the saga issue's example as written.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;
use common::mysql::MysqlDb;
use common::*;
use serde_json::Value;
use std::path::PathBuf;

/// The test's saga tables, on one server.
enum Server {
    Pg(TestDb),
    My(MysqlDb),
}

struct Sagas {
    server: Server,
    name: String,
    config: PathBuf,
    audit: PathBuf,
    _dir: tempfile::TempDir,
}

/// The saga issue's example, as written, for the saga `name` whose database line is `db`
/// and whose tables are in schema or database `schema` — with the two keys the fixes
/// need (`reason`, `released`, `version`).
pub(crate) fn saga_yaml(name: &str, db: &str, schema: &str) -> String {
    format!(
        "sagas:
  {name}:
    {db}
    table: {schema}.order_saga
    id: id
    state: state
    updated_at: updated_at
    started_at: created_at             # optional
    attempts: attempts                 # optional
    step: step                         # optional
    states:
      running: [STARTED, SEATS_HELD, PAID, SHIPPED]
      done: [COMPLETED, COMPENSATED]   # terminal, fine
      failed: [FAILED]                 # terminal, needs a human
      compensating: [COMPENSATING]
      unknown: [PAYMENT_UNKNOWN]       # an external outcome not known yet
    pivot: SHIPPED                     # from this step on: forward recovery only
    deadline: 30m                      # a saga not done by then is overdue
    stalled_after: 10m                 # no progress (updated_at) for this long
    max_attempts: 10
    unknown_escalate_after: 15m
    context: \"order {{order_id}}: refund {{amount}} {{currency}}\"   # columns of the saga row
    manual_queue:
      table: {schema}.saga_manual_intervention
      saga_id: saga_id
      created_at: created_at
      resolved_at: resolved_at
      reason: reason
    locks:                             # entities a running saga holds
      - table: {schema}.seats
        id: id
        state: state
        held: [HELD]
        saga_id: saga_id
        released: AVAILABLE
        version: version
"
    )
}

pub(crate) fn fixture(file: &str) -> String {
    std::fs::read_to_string(repo_root().join("tests/lab/sagas").join(file)).unwrap()
}

impl Sagas {
    /// The lab's order saga in a PostgreSQL database of the test's own.
    fn pg(prefix: &str) -> Sagas {
        let db = TestDb::create(prefix);
        db.admin().batch_execute(&fixture("postgres.sql")).unwrap();
        let name = unique(prefix);
        let yaml = saga_yaml(&name, &format!("postgres: {}", db.url()), "public");
        Sagas::with(Server::Pg(db), name, yaml)
    }

    /// The same in a MariaDB database of the test's own.
    fn mariadb(prefix: &str) -> Sagas {
        let db = MysqlDb::create(prefix);
        let sql = fixture("mariadb.sql")
            .replace("USE shop;", &format!("USE {};", db.name))
            .replace("shop.", &format!("{}.", db.name));
        common::mysql::sql(&sql);
        let name = unique(prefix);
        let yaml = format!(
            "mysql:\n  app:\n    url: {}{}\n    option_file: {}\n    ssl_mode: DISABLED\n{}",
            common::mysql::url(),
            db.name,
            common::mysql::cnf(),
            saga_yaml(&name, "mysql: app", &db.name)
        );
        Sagas::with(Server::My(db), name, yaml)
    }

    fn with(server: Server, name: String, yaml: String) -> Sagas {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.yaml");
        std::fs::write(&config, yaml).unwrap();
        Sagas {
            server,
            name,
            audit: dir.path().join("audit.jsonl"),
            config,
            _dir: dir,
        }
    }

    /// Runs statements in the saga's database.
    fn sql(&self, statements: &str) {
        match &self.server {
            Server::Pg(db) => db.admin().batch_execute(statements).unwrap(),
            Server::My(db) => {
                common::mysql::sql(&format!("USE {}; {statements}", db.name));
            }
        }
    }

    /// The first column of a query's rows, as text (one line each).
    fn column(&self, query: &str) -> Vec<String> {
        match &self.server {
            Server::Pg(db) => db
                .admin()
                .simple_query(query)
                .unwrap()
                .into_iter()
                .filter_map(|m| match m {
                    postgres::SimpleQueryMessage::Row(r) => {
                        Some(r.get(0).unwrap_or("NULL").to_string())
                    }
                    _ => None,
                })
                .collect(),
            Server::My(db) => common::mysql::sql(&format!("USE {}; {query}", db.name))
                .lines()
                .map(str::to_string)
                .collect(),
        }
    }

    fn saga(&self) -> (Value, Outcome) {
        json_with(&self.config, &["saga", &self.name])
    }

    fn resolve(&self, args: &[&str]) -> (Value, Outcome) {
        let mut all = vec!["resolve", "saga", &self.name];
        all.extend(args);
        let audit = self.audit.to_string_lossy().into_owned();
        all.extend(["--audit-log", &audit]);
        json_with(&self.config, &all)
    }
}

/// The ids a finding names (its instances or entities).
fn ids(finding: &Value, key: &str) -> Vec<String> {
    finding["evidence"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {finding:#}"))
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

fn one<'a>(r: &'a Value, code: &str, severity: &str) -> &'a Value {
    findings_of(r, code)
        .into_iter()
        .find(|f| f["severity"] == severity)
        .unwrap_or_else(|| panic!("no {severity} {code}: {r:#}"))
}

/// Each stuck state of the fixture is found, with the business context, the pivot's side
/// and the queue's state; the escalation a finding prints, run as printed, is a dry run
/// that writes nothing; run for real it raises each saga once (a second run finds the
/// item), after which the same sagas are a person's (WARNING). On both servers.
#[test]
fn every_stuck_state_is_found_and_escalated_once_on_postgres_and_mariadb() {
    for s in [Sagas::pg("sagafind"), Sagas::mariadb("sagafind")] {
        let (r, out) = s.saga();
        assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
        let failed = one(&r, "saga_needs_human", "CRITICAL");
        assert_eq!(ids(failed, "instances"), ["4701", "4702"], "{failed:#}");
        assert_eq!(
            failed["evidence"]["instances"][0]["context"], "order 4701: refund 90.00 EUR",
            "{failed:#}"
        );
        let message = failed["message"].as_str().unwrap();
        assert!(
            message.contains("none has an open item in the manual queue"),
            "{message}"
        );
        let queued = one(&r, "saga_needs_human", "WARNING");
        assert_eq!(ids(queued, "instances"), ["4706"], "{queued:#}");
        let unknown = one(&r, "saga_outcome_unknown", "CRITICAL");
        assert_eq!(ids(unknown, "instances"), ["4703"], "{unknown:#}");
        let stalled = one(&r, "saga_stalled", "WARNING");
        assert_eq!(ids(stalled, "instances"), ["4704"], "{stalled:#}");
        assert_eq!(stalled["evidence"]["past_pivot"], true, "{stalled:#}");
        assert!(
            stalled["advice"]
                .as_str()
                .unwrap()
                .contains("drive them forward only"),
            "{stalled:#}"
        );
        let overdue = one(&r, "saga_overdue", "WARNING");
        assert_eq!(ids(overdue, "instances"), ["4705"], "{overdue:#}");
        assert_eq!(overdue["evidence"]["past_pivot"], false, "{overdue:#}");
        let orphaned = one(&r, "saga_lock_orphaned", "CRITICAL");
        assert_eq!(
            ids(orphaned, "entities"),
            ["17", "18", "20"],
            "seat 19's saga runs: {orphaned:#}"
        );
        let finished = one(&r, "saga_queue_finished", "WARNING");
        assert_eq!(finished["evidence"]["finished"][0]["saga_id"], "4650");
        assert_eq!(one(&r, "saga_queue_open", "WARNING")["evidence"]["open"], 2);
        // No other instance is stuck: 4707 started a moment ago.
        let all = r.to_string();
        assert!(!all.contains("\"4707\""), "{r:#}");

        // The escalation as printed: a dry run, nothing written.
        let next = failed["next"].as_str().unwrap();
        assert!(
            next.ends_with(&format!(
                " resolve saga --escalate --dry-run -- {} 4701 4702",
                s.name
            )),
            "{next}"
        );
        let (dry, code) = run_printed(next);
        assert_eq!(code, Some(0), "{dry:#}");
        assert_eq!(dry["findings"][0]["code"], "dry_run", "{dry:#}");
        let queue = "SELECT saga_id FROM saga_manual_intervention WHERE resolved_at IS NULL ORDER BY saga_id";
        assert_eq!(s.column(queue), ["4650", "4706"]);
        // A line break in the context: the confirmation shows the queue item's text as it
        // is written (escaped once, `\n`), not escaped twice.
        let line_feed = match s.server {
            Server::Pg(_) => "chr(10)",
            Server::My(_) => "CHAR(10)",
        };
        s.sql(&format!(
            "UPDATE order_saga SET currency = CONCAT('E', {line_feed}, 'R') WHERE id = 4702"
        ));
        let shown = run(indoubt()
            .args(["--width", "300", "--config"])
            .arg(&s.config)
            .args([
                "resolve",
                "saga",
                "--escalate",
                "--dry-run",
                "--",
                &s.name,
                "4702",
            ]));
        assert!(
            shown.stdout.contains("refund 45.50 E\\nR\n") && !shown.stdout.contains("E\\\\nR"),
            "{}",
            shown.stdout
        );
        // For real: each once, with what is known of it.
        let (done, out) = s.resolve(&["4701", "4702", "--escalate", "--yes", "--reason", "INC-7"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert!(
            done["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["code"] == "resolved"),
            "{done:#}"
        );
        assert_eq!(s.column(queue), ["4650", "4701", "4702", "4706"]);
        let stored = s.column("SELECT reason FROM saga_manual_intervention WHERE saga_id = 4702");
        // As each client prints it (mariadb --batch shows a backslash as two).
        let written = match s.server {
            Server::Pg(_) => "refund 45.50 E\\nR",
            Server::My(_) => "refund 45.50 E\\\\nR",
        };
        assert!(stored[0].ends_with(written), "{stored:?}");
        let reason = s.column("SELECT reason FROM saga_manual_intervention WHERE saga_id = 4701");
        assert_eq!(
            reason,
            ["indoubt: saga ".to_string() + &s.name + " 4701 is FAILED at step PAID after 3 attempt(s), no progress for 2h; before the pivot: it may be compensated: order 4701: refund 90.00 EUR"]
        );
        let (again, out) = s.resolve(&["4701", "--escalate", "--yes", "--reason", "INC-7"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(
            again["findings"][0]["code"], "already_resolved",
            "{again:#}"
        );
        assert_eq!(s.column(queue).len(), 4, "a second run inserts nothing");
        let (after, _) = s.saga();
        let told = one(&after, "saga_needs_human", "WARNING");
        assert_eq!(
            ids(told, "instances"),
            ["4706", "4701", "4702"],
            "{after:#}"
        );
        assert!(findings_of(&after, "saga_needs_human")
            .iter()
            .all(|f| f["severity"] == "WARNING"));
        // A saga that moves within its time needs nobody: refused.
        let (moving, out) = s.resolve(&["4707", "--escalate", "--yes", "--reason", "x"]);
        assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(moving["findings"][0]["code"], "not_judged", "{moving:#}");
        // A mistyped id, or one MySQL would read as another ('4703x' = 4703): nothing
        // done for any id, exit 3.
        for typo in ["47010", "4703x", " 4703"] {
            let (r, out) = s.resolve(&[typo, "4703", "--escalate", "--yes", "--reason", "x"]);
            assert_eq!(out.code, 3, "{typo}: {}\n{}", out.stdout, out.stderr);
            assert_eq!(r["findings"][0]["code"], "not_there", "{r:#}");
        }
        assert_eq!(s.column(queue).len(), 4, "nothing raised for 4703 either");
    }
}

/// `resolve saga --release` against a race: a seat taken again by another saga between
/// the check and the write is left alone (the statement's guard: same saga, same
/// version), and said so; one still orphaned is set back to AVAILABLE; one held by a
/// running saga within its time is refused; one already free is nothing to do. On both
/// servers.
#[test]
fn an_orphaned_seat_is_released_and_one_taken_again_meanwhile_is_left_alone() {
    for s in [Sagas::pg("sagarelease"), Sagas::mariadb("sagarelease")] {
        let seat = |id: &str| {
            s.column(&format!(
                "SELECT CONCAT(state, ' ', COALESCE(saga_id, -1), ' ', version) FROM seats WHERE id = {id}"
            ))
            .join("")
        };
        // A seat of 4705, past its deadline but moving: its saga still uses it.
        s.sql("INSERT INTO seats VALUES (22, 'HELD', 4705, 1)");
        let (r, _) = s.saga();
        assert_eq!(
            ids(one(&r, "saga_lock_orphaned", "CRITICAL"), "entities"),
            ["17", "18", "20"],
            "{r:#}"
        );
        let (moving, out) = s.resolve(&["22", "--release", "--yes", "--reason", "x"]);
        assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(moving["findings"][0]["code"], "not_judged", "{moving:#}");
        assert_eq!(seat("22"), "HELD 4705 1");
        // An id MySQL would read as another ('20junk' = 20): not there.
        let (typo, out) = s.resolve(&["20junk", "--release", "--yes", "--reason", "x"]);
        assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(typo["findings"][0]["code"], "not_there", "{typo:#}");
        assert_eq!(seat("20"), "HELD 9999 5");
        let retaken = paused(
            &s,
            &["17", "--release", "--yes", "--reason", "INC-8"],
            || {
                s.sql("UPDATE seats SET saga_id = 4707, version = version + 1 WHERE id = 17");
            },
        );
        let (r, out) = retaken;
        assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(r["findings"][0]["code"], "lost_race", "{r:#}");
        assert_eq!(
            seat("17"),
            "HELD 4707 4",
            "the seat taken again is untouched"
        );
        let (freed, out) = s.resolve(&["18", "20", "--release", "--yes", "--reason", "INC-8"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(seat("18"), "AVAILABLE -1 4", "its version moved on");
        assert_eq!(seat("20"), "AVAILABLE -1 6");
        let (running, out) = s.resolve(&["19", "--release", "--yes", "--reason", "x"]);
        assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(running["findings"][0]["code"], "not_judged", "{running:#}");
        assert_eq!(seat("19"), "HELD 4707 1");
        let (free, out) = s.resolve(&["21", "--release", "--yes", "--reason", "x"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(free["findings"][0]["code"], "already_resolved", "{free:#}");
        // The audit trail has the lost race's intent and its outcome.
        let trail = std::fs::read_to_string(&s.audit).unwrap();
        assert!(trail.contains("lost_race"), "{trail}");
        assert!(
            freed["findings"].as_array().unwrap().len() == 2,
            "{freed:#}"
        );
    }
}

/// `resolve saga` paused before its action (debug builds: INDOUBT_FAILPOINT), while
/// `meanwhile` runs.
fn paused(s: &Sagas, args: &[&str], meanwhile: impl FnOnce()) -> (Value, Outcome) {
    let mut cmd = indoubt_process();
    cmd.args(["-o", "json", "--config"])
        .arg(&s.config)
        .args(["resolve", "saga", &s.name])
        .args(args)
        .arg("--audit-log")
        .arg(&s.audit);
    paused_at(cmd, "before-apply", meanwhile)
}

/// What the config names but the tables do not hold, or hold in another type: an
/// UNKNOWN finding naming it, never an OK; a config that makes no sense: exit 3 with the
/// reason. And a state the config lists nowhere is UNKNOWN, not judged.
#[test]
fn a_missing_column_a_time_kept_as_epoch_milliseconds_and_an_unlisted_state_are_said() {
    let s = Sagas::pg("sagabad");
    s.sql(
        "ALTER TABLE order_saga ADD COLUMN updated_ms bigint;
         UPDATE order_saga SET updated_ms = (extract(epoch FROM updated_at) * 1000)::bigint;
         INSERT INTO order_saga VALUES (4800, 'REFUND_PENDING', 'PAID', 1, now(), now(), 4800, 5, 'EUR', 0);",
    );
    let yaml = std::fs::read_to_string(&s.config).unwrap();
    let with = |from: &str, to: &str| {
        let path = s.config.with_file_name(format!("{}.yaml", unique("bad")));
        std::fs::write(&path, yaml.replacen(from, to, 1)).unwrap();
        path
    };
    let epoch = with("updated_at: updated_at", "updated_at: updated_ms");
    let (r, out) = json_with(&epoch, &["saga"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let unfit = one(&r, "saga_unreadable", "UNKNOWN");
    assert_eq!(unfit["evidence"]["column"], "updated_ms");
    assert_eq!(unfit["evidence"]["type"], "bigint");
    let missing = with("step: step", "step: stage");
    let (r, out) = json_with(&missing, &["saga"]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        one(&r, "saga_unreadable", "UNKNOWN")["message"]
            .as_str()
            .unwrap()
            .contains("lacks the column(s) stage"),
        "{r:#}"
    );
    let (r, _) = s.saga();
    let unlisted = one(&r, "saga_state_unlisted", "UNKNOWN");
    assert_eq!(unlisted["evidence"]["state"], "REFUND_PENDING");
    assert!(
        !r["findings"].to_string().contains("\"4800\""),
        "not judged: {r:#}"
    );
    for (from, to, said) in [
        (
            "pivot: SHIPPED",
            "pivot: SHIPPD",
            "the pivot \"SHIPPD\" is not among the steps",
        ),
        (
            "    started_at: created_at",
            "",
            "deadline needs started_at",
        ),
        (
            "failed: [FAILED]",
            "failed: [FAILED, COMPLETED]",
            "state \"COMPLETED\" is listed both as done and as failed",
        ),
    ] {
        let bad = with(from, to);
        let out = run(indoubt().arg("--config").arg(&bad).args(["saga"]));
        assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(said), "{said}: {}", out.stderr);
    }
}

/// Attempts climbing between two runs are a saga retrying hot; a large saga table read
/// whole is said with the index that answers from the unfinished rows only — created as
/// printed, the next run reads through it and says nothing more.
#[test]
fn attempts_climbing_between_runs_and_a_large_table_without_its_index_are_said() {
    let s = Sagas::pg("sagahot");
    s.sql(
        "DROP INDEX order_saga_unfinished;
         INSERT INTO order_saga SELECT g, 'COMPLETED', 'SHIPPED', 1, now() - interval '1 day', now() - interval '1 day', g, 1, 'EUR'
         FROM generate_series(100000, 260000) g;
         ANALYZE order_saga;",
    );
    let (first, _) = s.saga();
    assert!(
        findings_of(&first, "saga_retrying_hot").is_empty(),
        "{first:#}"
    );
    let index = one(&first, "saga_index_missing", "WARNING");
    let create = index["next"].as_str().unwrap();
    assert!(create.contains("CREATE INDEX CONCURRENTLY"), "{create}");
    s.sql("UPDATE order_saga SET attempts = attempts + 3, updated_at = now() WHERE id = 4705");
    let (second, _) = s.saga();
    let hot = one(&second, "saga_retrying_hot", "WARNING");
    assert_eq!(hot["evidence"]["climbed"][0]["id"], "4705", "{hot:#}");
    assert_eq!(hot["evidence"]["climbed"][0]["before"], 2);
    assert_eq!(hot["evidence"]["climbed"][0]["now"], 5);
    // The index as printed (CONCURRENTLY: outside a transaction block).
    match &s.server {
        Server::Pg(db) => {
            db.admin().simple_query(create).unwrap();
            db.admin().batch_execute("ANALYZE order_saga").unwrap();
        }
        Server::My(_) => unreachable!(),
    }
    let (third, _) = s.saga();
    assert!(
        findings_of(&third, "saga_index_missing").is_empty(),
        "read through the index now: {third:#}"
    );
}
