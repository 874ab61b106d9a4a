//! `indoubt pg prepared` against the lab's real PostgreSQL: listing, locks, victims, GIDs, thresholds, restarts.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use base64::Engine;
use common::schema::{DecodedGid, PreparedReport};
use common::*;
use std::time::{Duration, Instant};

/// A table owned by `owner` with a few rows, in `db`.
fn accounts_table(db: &TestDb, owner: Option<&str>) {
    let mut admin = db.admin();
    admin
        .batch_execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL); INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 10) g")
        .expect("create table");
    if let Some(owner) = owner {
        admin
            .batch_execute(&format!("ALTER TABLE accounts OWNER TO \"{owner}\""))
            .expect("owner");
    }
}

/// Updates row `id` and prepares the transaction under `gid`, as the user of `url`.
fn prepare_update(url: &str, id: i32, gid: &str) {
    connect(url)
        .batch_execute(&format!(
            "BEGIN; UPDATE accounts SET balance = balance + 1 WHERE id = {id}; PREPARE TRANSACTION {}",
            literal(gid)
        ))
        .expect("prepare transaction");
}

fn prepared_json(args: &[&str]) -> (PreparedReport, Outcome) {
    let mut all = vec!["pg", "prepared"];
    all.extend_from_slice(args);
    report(&all)
}

/// Starts a session that blocks behind the prepared transaction; returns once the server shows it waiting.
fn blocked_session(db: &TestDb, sql: &str) -> (i32, std::thread::JoinHandle<()>) {
    let mut victim = db.admin();
    let pid: i32 = victim
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    let sql = sql.to_string();
    let handle = std::thread::spawn(move || {
        // Ends when the prepared transaction is finished or the database is dropped.
        let _ = victim.batch_execute(&sql);
    });
    let mut admin = db.admin();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let waiting: bool = admin
            .query_one("SELECT 0 = ANY(pg_blocking_pids($1))", &[&pid])
            .unwrap()
            .get(0);
        if waiting {
            return (pid, handle);
        }
        assert!(Instant::now() < deadline, "session {pid} never blocked");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn narayana_gid(node: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut gtrid = Vec::new();
    gtrid.extend_from_slice(&0u64.to_be_bytes());
    gtrid.extend_from_slice(&0xffff_0a00_0007u64.to_be_bytes());
    gtrid.extend_from_slice(&0x1f2ai32.to_be_bytes());
    gtrid.extend_from_slice(&1_778_454_847i32.to_be_bytes());
    gtrid.extend_from_slice(&9i32.to_be_bytes());
    gtrid.extend_from_slice(node.as_bytes());
    let mut bqual = gtrid[..28].to_vec();
    bqual.extend_from_slice(&3i32.to_be_bytes());
    bqual.extend_from_slice(&0i32.to_be_bytes());
    format!("131077_{}_{}", b64.encode(&gtrid), b64.encode(&bqual))
}

#[test]
fn lists_prepared_transaction_with_owner_age_locks_victims_and_decoded_gid() {
    let owner = TestRole::create("owner", "");
    let db = TestDb::create("prep");
    accounts_table(&db, Some(&owner.name));
    let gid = narayana_gid("orders-node-7");
    prepare_update(&url_for(&owner.name, &owner.password, &db.name), 1, &gid);
    let (row_victim, t1) = blocked_session(&db, "UPDATE accounts SET balance = 0 WHERE id = 1");
    let (table_victim, t2) = blocked_session(
        &db,
        "BEGIN; LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE; COMMIT",
    );

    let (report, out) = prepared_json(&["--pg", &pg_url(), "--database", &db.name]);
    let mut admin = db.admin();
    let (pg_age_xids, pg_age_seconds): (i32, f64) = {
        let row = admin
            .query_one(
                "SELECT age(transaction), extract(epoch FROM now() - prepared)::float8 FROM pg_prepared_xacts WHERE gid = $1",
                &[&gid],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };

    assert_eq!(
        out.code, 0,
        "young transaction, default thresholds: OK\n{}",
        out.stderr
    );
    assert_eq!(report.schema_version, 2);
    assert_eq!(report.command, "pg prepared");
    assert_eq!(report.status, "OK");
    assert_eq!(report.prepared_transactions.len(), 1);
    let xact = &report.prepared_transactions[0];
    assert_eq!(xact.gid, gid);
    assert_eq!(xact.database, db.name);
    assert_eq!(xact.owner.as_deref(), Some(owner.name.as_str()));
    assert!(
        xact.age_seconds >= 0.0 && xact.age_seconds <= pg_age_seconds,
        "{} vs {pg_age_seconds}",
        xact.age_seconds
    );
    assert!(
        xact.age_xids >= 0 && xact.age_xids <= i64::from(pg_age_xids),
        "{} vs {pg_age_xids}",
        xact.age_xids
    );

    match &xact.decoded_gid {
        DecodedGid::Xa {
            format_id,
            transaction_manager,
            narayana: Some(n),
            ..
        } => {
            assert_eq!(*format_id, 131077);
            assert_eq!(transaction_manager.as_deref(), Some("Narayana"));
            assert_eq!(n.coordinator_node, "orders-node-7");
            assert_eq!(n.transaction_uid, "0:ffff0a000007:1f2a:6a01113f:9");
            assert_eq!(n.eis_name, Some(3));
        }
        other => panic!("not decoded as Narayana: {other:?}"),
    }
    let global = xact
        .global_transaction
        .as_ref()
        .expect("global_transaction");
    assert!(global.key.starts_with("xa-"), "{}", global.key);
    assert_eq!(
        (
            global.transaction_manager.as_deref(),
            global.coordinator_node.as_deref(),
            global.branches
        ),
        (Some("Narayana"), Some("orders-node-7"), 1)
    );

    // Live prepared transaction: its locks keep the preparing session's vxid, not -1/xid.
    let own_xid = xact
        .locks
        .iter()
        .find(|l| l.locktype == "transactionid")
        .expect("own xid lock");
    assert_eq!(own_xid.mode, "ExclusiveLock");
    assert_eq!(
        own_xid.transactionid.as_deref(),
        Some(xact.xid.to_string().as_str())
    );
    assert!(
        !own_xid.virtualtransaction.starts_with("-1/"),
        "{}",
        own_xid.virtualtransaction
    );
    let table_lock = xact
        .locks
        .iter()
        .find(|l| l.relation.as_deref() == Some("public.accounts"))
        .expect("lock on accounts, named in its own database");
    assert_eq!(table_lock.mode, "RowExclusiveLock");
    assert_eq!(table_lock.database.as_deref(), Some(db.name.as_str()));
    assert!(xact
        .locks
        .iter()
        .any(|l| l.relation.as_deref() == Some("public.accounts_pkey")));
    assert_eq!(xact.locks_by_mode.get("RowExclusiveLock"), Some(&2));
    assert_eq!(xact.locks_by_mode.get("ExclusiveLock"), Some(&1));

    let victim = |pid: i32| {
        xact.blocked_sessions
            .iter()
            .find(|s| s.pid == pid)
            .unwrap_or_else(|| {
                panic!(
                    "session {pid} not listed as blocked: {:?}",
                    xact.blocked_sessions
                )
            })
    };
    assert_eq!(victim(row_victim).waits_for.locktype, "transactionid");
    assert_eq!(victim(row_victim).waits_for.mode, "ShareLock");
    assert_eq!(victim(table_victim).waits_for.locktype, "relation");
    assert_eq!(
        victim(table_victim).waits_for.relation.as_deref(),
        Some("public.accounts")
    );
    assert!(victim(table_victim)
        .query
        .as_deref()
        .unwrap_or("")
        .contains("LOCK TABLE"));
    assert!(report.unattributed_blocked_sessions.is_empty());

    let finding = &report.findings[0];
    assert_eq!(finding.code, "prepared_xact_age");
    assert_eq!(finding.severity, "OK");
    assert_eq!(finding.evidence["gid"], gid.as_str());
    let blocked = finding.evidence["blocked_pids"].as_array().unwrap();
    assert!(blocked.contains(&row_victim.into()) && blocked.contains(&table_victim.into()));
    assert!(finding.advice.as_deref().unwrap().contains("orders-node-7"));

    // The same in a table for a person.
    let table = run(indoubt().args(["pg", "prepared", "--pg", &pg_url(), "--database", &db.name]));
    assert_eq!(table.code, 0);
    for needle in [
        gid.as_str(),
        "public.accounts",
        &format!("pid {row_victim}"),
        "orders-node-7",
        "RowExclusive ×2: public.accounts, public.accounts_pkey",
    ] {
        assert!(
            table.stdout.contains(needle),
            "table lacks {needle:?}:\n{}",
            table.stdout
        );
    }

    admin
        .batch_execute(&format!("ROLLBACK PREPARED {}", literal(&gid)))
        .unwrap();
    t1.join().unwrap();
    t2.join().unwrap();
}

#[test]
fn locks_are_attributed_before_and_after_a_server_restart() {
    // Quiet cluster: nothing else assigns xids, so a moved counter would be ours.
    let cluster = PrivateCluster::start_quiet();
    let mut admin = connect(&cluster.url("postgres"));
    let next_xid = |c: &mut postgres::Client| -> String {
        c.query_one("SELECT pg_snapshot_xmax(pg_current_snapshot())::text", &[])
            .unwrap()
            .get(0)
    };
    let xid_before = next_xid(&mut admin);
    // A new cluster has none: OK, exit 0.
    let (empty, out) = prepared_json(&["--pg", &cluster.url("postgres")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        next_xid(&mut admin),
        xid_before,
        "looking must not assign a transaction id"
    );
    assert_eq!(empty.status, "OK");
    assert!(empty.prepared_transactions.is_empty());
    assert_eq!(empty.findings.len(), 1);
    assert_eq!(empty.findings[0].message, "none");

    let db = TestDb::create_on(&cluster.url("postgres"), "restart");
    accounts_table(&db, None);
    prepare_update(&db.url(), 3, "xa-before-restart");

    let locks_of = |report: &PreparedReport| {
        let xact = &report.prepared_transactions[0];
        let mut names: Vec<(String, String, String)> = xact
            .locks
            .iter()
            .map(|l| {
                (
                    l.locktype.clone(),
                    l.mode.clone(),
                    l.relation.clone().unwrap_or_default(),
                )
            })
            .collect();
        names.sort();
        (
            xact.xid,
            names,
            xact.locks
                .iter()
                .map(|l| l.virtualtransaction.clone())
                .collect::<Vec<_>>(),
        )
    };
    let (before, _) = prepared_json(&["--pg", &cluster.url("postgres")]);
    let (xid, locks_before, vxids_before) = locks_of(&before);
    assert!(
        vxids_before.iter().all(|v| !v.starts_with("-1/")),
        "{vxids_before:?}"
    );
    assert_eq!(locks_before.len(), 3, "{locks_before:?}");

    cluster.ctl("restart");

    let (after, out) = prepared_json(&["--pg", &cluster.url("postgres")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (xid_after, locks_after, vxids_after) = locks_of(&after);
    assert_eq!(xid_after, xid);
    assert_eq!(
        locks_after, locks_before,
        "same locks, same names after recovery"
    );
    assert!(
        vxids_after.iter().all(|v| *v == format!("-1/{xid}")),
        "{vxids_after:?}"
    );

    // Victims of a recovered prepared transaction are attributed through -1/xid too.
    let (victim, handle) = blocked_session(&db, "UPDATE accounts SET balance = 0 WHERE id = 3");
    let (blocked, _) = prepared_json(&["--pg", &cluster.url("postgres")]);
    let xact = &blocked.prepared_transactions[0];
    assert!(
        xact.blocked_sessions.iter().any(|s| s.pid == victim),
        "{:?}",
        xact.blocked_sessions
    );
    db.admin()
        .batch_execute("ROLLBACK PREPARED 'xa-before-restart'")
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn gids_with_quotes_backslashes_spaces_unicode_and_control_characters() {
    let db = TestDb::create("gids");
    accounts_table(&db, None);
    let nasty = [
        "it's a \"gid\" \\ with '; DROP TABLE accounts; -- заказ №4711 ✓",
        "tab\there \u{1b}[31mred\u{1b}[0m",
    ];
    for (i, gid) in nasty.iter().enumerate() {
        prepare_update(&db.url(), i as i32 + 1, gid);
    }
    let (report, out) = prepared_json(&["--pg", &pg_url(), "--database", &db.name]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut gids: Vec<&str> = report
        .prepared_transactions
        .iter()
        .map(|x| x.gid.as_str())
        .collect();
    gids.sort();
    let mut expected = nasty.to_vec();
    expected.sort();
    assert_eq!(gids, expected, "JSON carries the exact GIDs");
    assert!(report
        .prepared_transactions
        .iter()
        .all(|x| x.decoded_gid == DecodedGid::Opaque { note: None }));

    let table = run(indoubt().args(["pg", "prepared", "--pg", &pg_url(), "--database", &db.name]));
    assert!(
        !table.stdout.contains('\u{1b}'),
        "raw escape reached the terminal:\n{}",
        table.stdout
    );
    assert!(table.stdout.contains("\\u{1b}[31mred"), "{}", table.stdout);
    assert!(table.stdout.contains("заказ №4711 ✓"), "{}", table.stdout);
}

#[test]
fn thresholds_from_flags_and_config_set_the_exit_code() {
    let db = TestDb::create("thresholds");
    accounts_table(&db, None);
    prepare_update(&db.url(), 1, "threshold-gid");
    let base = ["pg", "prepared", "--pg", &pg_url(), "--database", &db.name];

    let code = |extra: &[&str]| run(indoubt().args(base).args(extra)).code;
    assert_eq!(code(&[]), 0, "seconds old, default 5m/30m");
    assert_eq!(code(&["--warning-age", "0s", "--critical-age", "1h"]), 1);
    assert_eq!(code(&["--warning-age", "0s", "--critical-age", "0s"]), 2);
    assert_eq!(
        code(&["--warning-age", "2h", "--critical-age", "1h"]),
        3,
        "warning above critical"
    );
    assert_eq!(
        code(&["--warning-age", "5"]),
        3,
        "unitless duration is a usage error"
    );

    let (report, out) = prepared_json(&[
        "--pg",
        &pg_url(),
        "--database",
        &db.name,
        "--warning-age",
        "0s",
        "--critical-age",
        "0s",
    ]);
    assert_eq!(out.code, 2);
    assert_eq!(report.status, "CRITICAL");
    assert_eq!(report.exit_code, 2);
    assert_eq!(report.findings[0].severity, "CRITICAL");
    assert_eq!(report.thresholds.critical_age_seconds, 0);

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  main:\n    conninfo: {}\nthresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 1h\n",
            pg_url()
        ),
    )
    .unwrap();
    let with_config = |extra: &[&str]| {
        run(indoubt()
            .args([
                "--config",
                &config.to_string_lossy(),
                "pg",
                "prepared",
                "--database",
                &db.name,
            ])
            .args(extra))
    };
    let out = with_config(&[]);
    assert_eq!(
        out.code, 1,
        "config thresholds and its only target: {}",
        out.stderr
    );
    assert!(
        out.stdout.contains("main ("),
        "the report names the config target:\n{}",
        out.stdout
    );
    assert_eq!(
        with_config(&["--warning-age", "1h", "--critical-age", "2h"]).code,
        0,
        "flags override the config"
    );
    assert_eq!(
        run(indoubt().env("INDOUBT_CONFIG", &config).args([
            "pg",
            "prepared",
            "--pg",
            "main",
            "--database",
            &db.name
        ]))
        .code,
        1,
        "INDOUBT_CONFIG and --pg NAME"
    );
    let unknown = with_config(&["--pg", "nosuch"]);
    assert_eq!(unknown.code, 3);
    assert!(
        unknown
            .stderr
            .contains("postgres target \"nosuch\" is neither a target name of the config"),
        "{}",
        unknown.stderr
    );
    assert!(
        unknown.stderr.contains("are: main"),
        "lists the known targets: {}",
        unknown.stderr
    );
}

#[test]
fn malformed_config_is_unknown_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "thresholds:\n  prepared:\n\twarning_age: 1m\n").unwrap();
    let out = run(indoubt().args(["--config", &broken.to_string_lossy(), "pg", "prepared"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains(&format!("{}:3:1", broken.display())),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());

    let typo = dir.path().join("typo.yaml");
    std::fs::write(
        &typo,
        "postgres:\n  lab:\n    conninfo: host=x\n    pasword: y\n",
    )
    .unwrap();
    let out = run(indoubt().args(["--config", &typo.to_string_lossy(), "pg", "prepared"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains(&format!("{}:4:5", typo.display())),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("unknown field `pasword`") && out.stderr.contains("conninfo"),
        "{}",
        out.stderr
    );

    let missing = run(indoubt().args(["--config", "/nonexistent/indoubt.yaml", "pg", "prepared"]));
    assert_eq!(missing.code, 3);
    assert!(
        missing.stderr.contains("/nonexistent/indoubt.yaml"),
        "{}",
        missing.stderr
    );
}

#[test]
fn silent_host_ends_in_unknown_within_the_timeout() {
    // Accepts connections and never says a word, like a hung server or a black-holing proxy.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let started = Instant::now();
    let out = run(indoubt().args([
        "pg",
        "prepared",
        "--timeout",
        "2s",
        "--pg",
        &format!("postgres://u:p@127.0.0.1:{port}/db?sslmode=disable"),
    ]));
    let elapsed = started.elapsed();
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        elapsed < Duration::from_secs(3),
        "took {elapsed:?}, more than timeout + 1s"
    );
    assert!(out.stderr.contains("no answer within 2s"), "{}", out.stderr);

    let refused = run(indoubt().args([
        "pg",
        "prepared",
        "--pg",
        &format!("host=127.0.0.1 port={} user=u", free_port()),
    ]));
    assert_eq!(refused.code, 3);
    assert!(
        refused
            .stderr
            .contains("connecting to postgres at u@127.0.0.1"),
        "{}",
        refused.stderr
    );
}

#[test]
fn password_never_appears_in_any_output() {
    let role = TestRole::create("secretive", "");
    let db = TestDb::create("pw");
    let secret = role.password.clone();
    let check = |out: &Outcome, what: &str| {
        assert!(
            !out.stdout.contains(&secret) && !out.stderr.contains(&secret),
            "{what} leaked the password:\n{}\n{}",
            out.stdout,
            out.stderr
        );
    };
    let url = url_for(&role.name, &secret, &db.name);
    for format in ["table", "json", "yaml"] {
        let out = run(indoubt().args([
            "-v",
            "pg",
            "prepared",
            "-o",
            format,
            "--pg",
            &url,
            "--database",
            &db.name,
        ]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        check(&out, format);
    }
    let kv = format!(
        "host=127.0.0.1 port={} user={} dbname={} sslmode=disable password='{secret}'",
        lab("INDOUBT_LAB_PG_PORT"),
        role.name,
        db.name
    );
    let out = run(indoubt().args(["-v", "pg", "prepared", "--pg", &kv, "--database", &db.name]));
    assert_eq!(out.code, 0, "conninfo: {}", out.stderr);
    check(&out, "conninfo");

    // A password with a space, a quote and URL delimiters, in both forms.
    let odd = TestRole::create("odd", "");
    let odd_password = format!("{} a'b?c/d@e", odd.password);
    connect(&pg_url())
        .batch_execute(&format!(
            "ALTER ROLE \"{}\" PASSWORD {}",
            odd.name,
            literal(&odd_password)
        ))
        .unwrap();
    let encoded: String = odd_password
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let odd_kv = format!(
        "host=127.0.0.1 port={} user={} dbname=postgres sslmode=disable password='{}'",
        lab("INDOUBT_LAB_PG_PORT"),
        odd.name,
        odd_password.replace('\'', "\\'")
    );
    for target in [url_for(&odd.name, &encoded, "postgres"), odd_kv] {
        let out = run(indoubt().args([
            "-v",
            "pg",
            "prepared",
            "--pg",
            &target,
            "--database",
            &db.name,
        ]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stdout.contains(&odd_password) && !out.stderr.contains(&odd_password));
    }

    let wrong = format!("{secret}-wrong");
    let out = run(indoubt().args([
        "-v",
        "pg",
        "prepared",
        "--pg",
        &url_for(&role.name, &wrong, &db.name),
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("28P01") && out.stderr.contains("password authentication failed"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains(&wrong) && !out.stdout.contains(&wrong),
        "{}",
        out.stderr
    );

    let env = run(indoubt()
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", lab("INDOUBT_LAB_PG_PORT"))
        .env("PGUSER", &role.name)
        .env("PGPASSWORD", &secret)
        .env("PGDATABASE", &db.name)
        .env("PGSSLMODE", "disable")
        .args(["-v", "pg", "prepared", "-o", "json", "--database", &db.name]));
    assert_eq!(
        env.code, 0,
        "PG* variables alone name the target: {}",
        env.stderr
    );
    assert!(env.stdout.contains(&format!(
        "\"address\": \"{}@127.0.0.1:{}/{}\"",
        role.name,
        lab("INDOUBT_LAB_PG_PORT"),
        db.name
    )));
    check(&env, "PGPASSWORD");

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!("postgres:\n  t:\n    conninfo: \"{url}\"\n"),
    )
    .unwrap();
    let out = run(indoubt().args([
        "-v",
        "--config",
        &config.to_string_lossy(),
        "pg",
        "prepared",
        "-o",
        "yaml",
        "--database",
        &db.name,
    ]));
    assert_eq!(out.code, 0, "config: {}", out.stderr);
    check(&out, "config");
}

#[cfg(unix)]
#[test]
fn pgpass_supplies_the_password() {
    let role = TestRole::create("pgpass", "");
    let dir = tempfile::tempdir().unwrap();
    let passfile = dir.path().join("pgpass");
    role.write_pgpass(&passfile);
    let conninfo = format!(
        "host=127.0.0.1 port={} user={} dbname=postgres sslmode=disable",
        lab("INDOUBT_LAB_PG_PORT"),
        role.name
    );
    let out = run(indoubt().env("PGPASSFILE", &passfile).args([
        "pg",
        "prepared",
        "--pg",
        &conninfo,
        "--database",
        "none",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let without = run(indoubt().args(["pg", "prepared", "--pg", &conninfo, "--database", "none"]));
    assert_eq!(
        without.code, 3,
        "no password without the file: {}",
        without.stderr
    );
}

#[test]
fn tls_modes_behave_like_libpq() {
    let role = TestRole::create("tls", "IN ROLE tls_only");
    let port = lab("INDOUBT_LAB_PG_PORT");
    let ca = lab("INDOUBT_LAB_PG_CA");
    let other_ca = lab("INDOUBT_LAB_PG_OTHER_CA");
    let attempt = |host: &str, extra: &str| {
        let conninfo = format!(
            "host={host} port={port} user={} password={} dbname=postgres {extra}",
            role.name, role.password
        );
        run(indoubt().args(["pg", "prepared", "--pg", &conninfo, "--database", "none"]))
    };
    let plain = attempt("127.0.0.1", "sslmode=disable");
    assert_eq!(plain.code, 3, "the role is TLS-only: {}", plain.stderr);
    assert!(plain.stderr.contains("pg_hba.conf"), "{}", plain.stderr);
    for (host, extra) in [
        ("127.0.0.1", "sslmode=require".to_string()),
        ("127.0.0.1", "sslmode=prefer".to_string()),
        ("127.0.0.1", format!("sslmode=verify-ca sslrootcert={ca}")),
        ("127.0.0.1", format!("sslmode=verify-full sslrootcert={ca}")),
        ("localhost", format!("sslmode=verify-full sslrootcert={ca}")),
    ] {
        let out = attempt(host, &extra);
        assert_eq!(out.code, 0, "{host} {extra}: {}", out.stderr);
    }
    for extra in [
        format!("sslmode=verify-full sslrootcert={other_ca}"),
        format!("sslmode=verify-ca sslrootcert={other_ca}"),
        // libpq: require with a root certificate verifies the chain.
        format!("sslmode=require sslrootcert={other_ca}"),
    ] {
        let out = attempt("127.0.0.1", &extra);
        assert_eq!(out.code, 3, "{extra} must fail verification");
        assert!(
            out.stderr.contains("is not signed by a CA indoubt trusts"),
            "{extra}: {}",
            out.stderr
        );
    }
    // The mode named as libpq spells it (never Rust's VerifyCa).
    for mode in ["verify-full", "verify-ca"] {
        let no_root = attempt("127.0.0.1", &format!("sslmode={mode}"));
        assert_eq!(no_root.code, 3);
        assert!(
            no_root
                .stderr
                .contains(&format!("sslmode {mode} needs a root certificate"))
                && no_root.stderr.contains("sslrootcert"),
            "{}",
            no_root.stderr
        );
    }
}

/// A server certificate signed by a CA other than the one indoubt was given: one line
/// that says so, naming the setting that gave the CA file (sslrootcert, PGSSLROOTCERT) and
/// the CA that did sign, then a hint (the right CA file; sslmode=require only encrypts),
/// never OpenSSL's own words; exit 3, nothing read.
#[test]
fn a_server_certificate_of_another_ca_names_the_ca_file_and_how_to_fix_it() {
    let role = TestRole::create("wrongca", "IN ROLE tls_only");
    let port = lab("INDOUBT_LAB_PG_PORT");
    let other_ca = lab("INDOUBT_LAB_PG_OTHER_CA");
    let conninfo = format!(
        "host=127.0.0.1 port={port} user={} password={} dbname=postgres",
        role.name, role.password
    );
    let by_conninfo = run(indoubt().args([
        "pg",
        "prepared",
        "--pg",
        &format!("{conninfo} sslmode=verify-full sslrootcert={other_ca}"),
        "--database",
        "none",
    ]));
    let by_environment = run(indoubt()
        .env("PGSSLROOTCERT", &other_ca)
        .env("PGSSLMODE", "verify-ca")
        .args(["pg", "prepared", "--pg", &conninfo, "--database", "none"]));
    for (out, set_by) in [
        (&by_conninfo, "sslrootcert"),
        (&by_environment, "PGSSLROOTCERT"),
    ] {
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(out.stdout.is_empty(), "{}", out.stdout);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            2,
            "one error line, one hint line: {}",
            out.stderr
        );
        assert!(
            lines[0].contains(&format!(
                "the certificate of the PostgreSQL server at 127.0.0.1:{port} (CN=localhost) is not signed by a CA indoubt trusts: it is issued by CN=indoubt lab CA, which is not among the CAs of {set_by} {other_ca} (CN=stranger CA)"
            )),
            "{}",
            out.stderr
        );
        assert!(
            lines[1].starts_with("hint: point sslrootcert (or PGSSLROOTCERT) at the file of the CA that issued the server's certificate (CN=indoubt lab CA)")
                && lines[1].contains("sslmode=require without a root certificate would connect without this check, but it only encrypts"),
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
fn unprivileged_role_is_told_what_it_cannot_see() {
    let monitor = TestRole::create("monitor", "");
    let db = TestDb::create("hidden");
    accounts_table(&db, None);
    db.admin()
        .batch_execute(&format!(
            "REVOKE CONNECT ON DATABASE \"{}\" FROM PUBLIC",
            db.name
        ))
        .unwrap();
    prepare_update(&db.url(), 1, "hidden-gid");
    let (victim, handle) = blocked_session(&db, "UPDATE accounts SET balance = 7 WHERE id = 1");

    let (report, out) = prepared_json(&[
        "--pg",
        &url_for(&monitor.name, &monitor.password, "postgres"),
        "--database",
        &db.name,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let xact = &report.prepared_transactions[0];
    assert_eq!(xact.gid, "hidden-gid");
    let table_lock = xact
        .locks
        .iter()
        .find(|l| l.locktype == "relation" && l.relation_oid.is_some())
        .unwrap();
    assert_eq!(
        table_lock.relation, None,
        "cannot name relations in a database it may not enter"
    );
    let blocked = xact
        .blocked_sessions
        .iter()
        .find(|s| s.pid == victim)
        .expect("victim still listed");
    assert_eq!(blocked.query.as_deref(), Some("<insufficient privilege>"));
    let gaps = report.visibility_gaps.join("\n");
    assert!(
        gaps.contains(&format!("database \"{}\"", db.name)) && gaps.contains("CONNECT"),
        "{gaps}"
    );
    assert!(gaps.contains("pg_monitor"), "{gaps}");

    let table = run(indoubt().args([
        "pg",
        "prepared",
        "--pg",
        &url_for(&monitor.name, &monitor.password, "postgres"),
        "--database",
        &db.name,
    ]));
    assert!(
        table.stdout.contains("not visible:") && table.stdout.contains("oid "),
        "{}",
        table.stdout
    );

    db.admin()
        .batch_execute("ROLLBACK PREPARED 'hidden-gid'")
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn yaml_carries_the_same_schema() {
    let db = TestDb::create("yaml");
    accounts_table(&db, None);
    prepare_update(&db.url(), 1, "yaml-gid");
    let out = run(indoubt().args([
        "pg",
        "prepared",
        "-o",
        "yaml",
        "--pg",
        &pg_url(),
        "--database",
        &db.name,
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: PreparedReport =
        serde_yaml::from_str(&out.stdout).expect("documented schema in YAML");
    assert_eq!(report.schema_version, 2);
    assert_eq!(report.prepared_transactions[0].gid, "yaml-gid");
}

#[test]
fn closed_pipe_exits_quietly() {
    let db = TestDb::create("pipe");
    let bin = assert_cmd::cargo::cargo_bin("indoubt");
    let out = std::process::Command::new("bash")
        .args([
            "-c",
            // The reader is gone before indoubt writes its first byte.
            r#"{ sleep 0.5; "$0" pg prepared --pg "$1" --database "$2"; } | true; echo "rc=${PIPESTATUS[0]}""#,
            &bin.to_string_lossy(),
            &pg_url(),
            &db.name,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("rc=0"), "{stdout}");
    assert!(stderr.is_empty(), "no noise on a closed pipe: {stderr}");
}

#[test]
fn usage_errors_are_unknown_not_critical() {
    assert_eq!(
        run(indoubt().args(["pg", "prepared", "--no-such-flag"])).code,
        3
    );
    assert_eq!(run(indoubt().args(["pg"])).code, 3);
    assert_eq!(
        run(indoubt().args(["--output", "xml", "pg", "prepared"])).code,
        3
    );
    let bad_conninfo = run(indoubt().args(["pg", "prepared", "--pg", "host=x sslmode=sometimes"]));
    assert_eq!(bad_conninfo.code, 3);
    assert!(
        bad_conninfo.stderr.contains("invalid sslmode"),
        "{}",
        bad_conninfo.stderr
    );
    let help = run(indoubt().args(["pg", "prepared", "--help"]));
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.contains("Exit codes") && help.stdout.contains("3  UNKNOWN"),
        "{}",
        help.stdout
    );
}

/// What a terminal of the given width shows.
fn on_terminal(columns: u16, env: &[(&str, &str)], args: &[&str]) -> String {
    let screen = common::tty::on_terminal(columns, env, None, args);
    // 0 or 1 here (the test sets --warning-age 0s).
    assert!(matches!(screen.code, Some(0 | 1)), "{}", screen.text);
    screen.text
}

#[test]
fn colour_and_width_follow_the_terminal() {
    let db = TestDb::create("tty");
    accounts_table(&db, None);
    prepare_update(
        &db.url(),
        1,
        &format!(
            "{}-a-rather-long-global-transaction-id-to-force-wrapping",
            db.name
        ),
    );
    let args = [
        "pg",
        "prepared",
        "--pg",
        &pg_url(),
        "--database",
        &db.name,
        "--warning-age",
        "0s",
    ];
    let coloured = on_terminal(100, &[], &args);
    assert!(
        coloured.contains("\u{1b}["),
        "colour on a terminal:\n{coloured}"
    );
    // A next command too is broken between its words (with ` \` continuations) to fit.
    let widest = coloured
        .lines()
        .map(|l| common::tty::plain(l).chars().count())
        .max()
        .unwrap_or(0);
    assert!(
        widest <= 100,
        "table wider than the 100-column terminal ({widest}):\n{coloured}"
    );
    assert!(coloured.contains("WARNING"), "{coloured}");

    let plain = on_terminal(100, &[("NO_COLOR", "1")], &args);
    assert!(!plain.contains("\u{1b}["), "NO_COLOR:\n{plain}");
    let mut flagged = vec!["--no-color"];
    flagged.extend_from_slice(&args);
    assert!(
        !on_terminal(100, &[], &flagged).contains("\u{1b}["),
        "--no-color"
    );
    let piped = run(indoubt().args(args));
    assert!(!piped.stdout.contains('\u{1b}'), "no colour into a pipe");
    // The first line is the answer: the status and what it is about.
    let answer = &piped.stdout[..piped.stdout.find("(indoubt pg prepared on").unwrap()];
    assert!(
        answer.starts_with("WARNING: prepared transaction")
            && answer.contains("-a-rather-long-global-transaction-id-to-force-wrapping'")
            && answer.contains(&format!("in {}", db.name)),
        "{}",
        piped.stdout
    );
}

/// Eight columns and a 100-character XA GID cannot share 80 columns without splitting
/// the GID (or squeezing the rest to a few letters): each transaction is then a record,
/// its GID whole on one line, everything else within the width.
#[test]
fn a_narrow_terminal_shows_records_with_the_gid_on_one_line() {
    let db = TestDb::create("narrow");
    accounts_table(&db, None);
    let gid = narayana_gid("orders-node-7");
    prepare_update(&db.url(), 1, &gid);
    let args = [
        "--no-color",
        "pg",
        "prepared",
        "--pg",
        &pg_url(),
        "--database",
        &db.name,
    ];
    let out = on_terminal(80, &[], &args);
    let gid_line = out
        .lines()
        .find(|l| l.contains(&gid))
        .unwrap_or_else(|| panic!("the GID is not on one line:\n{out}"));
    assert!(gid_line.starts_with("GID "), "{gid_line}");
    assert!(out.contains("─[ 1 ]"), "{out}");
    // The table keeps the columns an operator acts on, and says what -o wide adds.
    assert!(!out.contains("GLOBAL TX "), "{out}");
    assert!(
        out.contains("(-o wide adds GLOBAL TX, DECODED GID)"),
        "{out}"
    );
    let every: Vec<&str> = args.iter().copied().chain(["-o", "wide"]).collect();
    let wide_80 = on_terminal(80, &[], &every);
    assert!(
        wide_80
            .lines()
            .any(|l| l.starts_with("GLOBAL TX ") && l.contains("xa-")),
        "{wide_80}"
    );
    assert!(
        wide_80.contains("Narayana, node 'orders-node-7'"),
        "{wide_80}"
    );
    assert!(!wide_80.contains("-o wide adds"), "{wide_80}");
    for line in out
        .lines()
        .chain(wide_80.lines())
        .filter(|l| !l.contains(&gid))
    {
        assert!(line.chars().count() <= 80, "wider than 80: {line}\n{out}");
    }
    // Wide enough for the table with the GID whole: a table it stays.
    let wide = on_terminal(250, &[], &args);
    assert!(
        wide.lines().any(|l| l.starts_with('│') && l.contains(&gid)),
        "{wide}"
    );
}

#[test]
fn victims_are_blamed_only_on_prepared_transactions_whose_locks_conflict() {
    let db = TestDb::create("conflict");
    accounts_table(&db, None);
    prepare_update(&db.url(), 1, "writer-holds-row-exclusive");
    db.admin()
        .batch_execute(
            "BEGIN; SELECT count(*) FROM accounts; PREPARE TRANSACTION 'reader-holds-access-share'",
        )
        .unwrap();
    // SHARE conflicts with the writer's RowExclusiveLock, not with the reader's AccessShareLock.
    let (victim, handle) = blocked_session(&db, "BEGIN; LOCK TABLE accounts IN SHARE MODE; COMMIT");
    let (report, out) = prepared_json(&["--pg", &pg_url(), "--database", &db.name]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let victims_of = |gid: &str| -> Vec<i32> {
        report
            .prepared_transactions
            .iter()
            .find(|x| x.gid == gid)
            .unwrap_or_else(|| panic!("{gid} not listed"))
            .blocked_sessions
            .iter()
            .map(|s| s.pid)
            .collect()
    };
    assert_eq!(victims_of("writer-holds-row-exclusive"), [victim]);
    assert!(victims_of("reader-holds-access-share").is_empty());
    let reader = report
        .prepared_transactions
        .iter()
        .find(|x| x.gid == "reader-holds-access-share")
        .unwrap();
    assert!(
        reader.locks_by_mode.contains_key("AccessShareLock"),
        "{:?}",
        reader.locks_by_mode
    );
    db.admin()
        .batch_execute("ROLLBACK PREPARED 'writer-holds-row-exclusive'")
        .unwrap();
    handle.join().unwrap();
}
