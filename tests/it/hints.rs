//! Mistakes an operator makes, against the lab: psql's -h/-p/-U/-d, help asked for with
//! other arguments, no config at all, a refused password, a refused or silent port, a
//! port of another protocol, an audit log before the first resolution, a config's only
//! reconcile job. Each gets an error that says what to do, with exit 3, or just works.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

/// The lab's admin user and password, from its URL.
fn admin() -> (String, String) {
    let url = pg_url();
    let rest = url.split_once("://").unwrap().1;
    let (user, password) = rest.split_once('@').unwrap().0.split_once(':').unwrap();
    (user.to_string(), password.to_string())
}

fn host() -> String {
    lab("INDOUBT_LAB_PG_HOST")
}

fn port() -> String {
    lab("INDOUBT_LAB_PG_PORT")
}

/// A database of its own with one prepared transaction, `gid`.
fn with_prepared(prefix: &str) -> (TestDb, String) {
    let db = TestDb::create(prefix);
    let gid = unique("hint_gid");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION {}",
            literal(&gid)
        ))
        .unwrap();
    (db, gid)
}

fn gids(out: &Outcome) -> Vec<String> {
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    report["prepared_transactions"]
        .as_array()
        .unwrap_or_else(|| panic!("no prepared list: {}", out.stdout))
        .iter()
        .map(|p| p["gid"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn psql_options_name_the_server_as_in_psql() {
    let (user, password) = admin();
    let (db, gid) = with_prepared("psqlopts");
    // psql's spelling of the server, the password where psql would find it.
    let out = run(indoubt().env("PGPASSWORD", &password).args([
        "-o",
        "json",
        "pg",
        "prepared",
        "-h",
        &host(),
        "-p",
        &port(),
        "-U",
        &user,
        "-d",
        "postgres",
        "--database",
        &db.name,
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gids(&out), vec![gid.clone()]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        report["target"]["address"],
        format!("{user}@{}:{}/postgres", host(), port())
    );

    // As psql, a -d holding a URL is the whole connection string.
    let out = run(indoubt().args([
        "-o",
        "json",
        "pg",
        "prepared",
        "-d",
        &pg_url(),
        "--database",
        &db.name,
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gids(&out), vec![gid.clone()]);

    // And the options win over --pg's settings, as psql's over its connection string.
    let wrong_port = pg_url().replace(&format!(":{}/", port()), &format!(":{}/", free_port()));
    let out = run(indoubt().args([
        "-o",
        "json",
        "pg",
        "prepared",
        "--pg",
        &wrong_port,
        "-p",
        &port(),
        "--database",
        &db.name,
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(gids(&out), vec![gid]);

    // The issue's own line: never help and OK. It connects to 127.0.0.1:54320 (and is
    // refused there for want of a password).
    let out = run(indoubt().args(["pg", "prepared", "-h", &host(), "-p", &port()]));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("Usage:"), "{}", out.stdout);
    assert!(
        out.stderr.contains("connecting to postgres at ")
            && out.stderr.contains(&format!("@{}:{}/", host(), port())),
        "{}",
        out.stderr
    );
}

#[test]
fn help_comes_alone_or_not_at_all() {
    let refused: &[&[&str]] = &[
        // psql's -h where it is not the host: help, exit 0, a monitor reading OK forever.
        &["kafka", "lso", "-h", "127.0.0.1", "-b", "127.0.0.1:9092"],
        &["check", "--quiet", "-h"],
        &["pg", "prepared", "--pg", "db1", "--help"],
        &["-o", "json", "--help"],
    ];
    for args in refused {
        let out = run(indoubt().args(*args));
        assert_eq!(out.code, 3, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stdout, "", "{args:?}");
        assert!(
            out.stderr.contains("nothing was run")
                && out
                    .stderr
                    .contains("hint: for help, give it alone: indoubt"),
            "{args:?}: {}",
            out.stderr
        );
    }
    let out = run(indoubt().args(["kafka", "lso", "-h", "127.0.0.1"]));
    assert!(
        out.stderr.contains("indoubt kafka lso --help"),
        "{}",
        out.stderr
    );

    let alone: &[&[&str]] = &[
        &["-h"],
        &["--help"],
        &["kafka", "lso", "-h"],
        &["pg", "prepared", "--help"],
        &["help", "pg", "prepared"],
    ];
    for args in alone {
        let out = run(indoubt().args(*args));
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(
            out.stdout.contains("Usage: indoubt"),
            "{args:?}: {}",
            out.stdout
        );
    }
    // In the pg commands -h is the host, as in psql: alone it lacks its value.
    let out = run(indoubt().args(["pg", "prepared", "-h"]));
    assert_eq!(out.code, 3);
    assert!(out.stderr.contains("--host <HOST>"), "{}", out.stderr);
    let help = run(indoubt().args(["pg", "slots", "--help"]));
    assert!(
        help.stdout.contains("-h, --host <HOST>")
            && help.stdout.contains("-p, --port <PORT>")
            && help.stdout.contains("-U, --username <USER>")
            && help.stdout.contains("-d, --dbname <DBNAME>"),
        "{}",
        help.stdout
    );
}

/// Libpq's default socket, where a connection with nothing named goes.
fn default_socket() -> &'static str {
    if Path::new("/var/run/postgresql").is_dir() {
        "/var/run/postgresql/.s.PGSQL.5432"
    } else {
        "/tmp/.s.PGSQL.5432"
    }
}

#[test]
fn no_config_and_no_pg_variables_say_where_indoubt_looked() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/indoubt/config.yaml");
    // This machine runs no PostgreSQL on libpq's default socket (the lab's is elsewhere).
    let out = run(indoubt().env("HOME", home.path()).args(["pg", "prepared"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    for said in [
        "no server was named",
        "no config file was found",
        "INDOUBT_CONFIG is not set",
        &format!("{} does not exist", config.display()),
        "no PG* variable is set",
        &format!("no server socket at {}", default_socket()),
    ] {
        assert!(
            out.stderr.contains(said),
            "{said:?} not in:\n{}",
            out.stderr
        );
    }
    assert!(
        out.stderr
            .contains("hint: is PostgreSQL running on this machine")
            && out.stderr.contains("-h HOST -p PORT"),
        "{}",
        out.stderr
    );

    // With PGHOST set, the message names the variable it used.
    let refused = free_port();
    let out = run(indoubt()
        .env("HOME", home.path())
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", refused.to_string())
        .args(["pg", "prepared"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains(&format!("connection refused at 127.0.0.1:{refused}"))
            && out
                .stderr
                .contains("so PGHOST, PGPORT and libpq's defaults were used"),
        "{}",
        out.stderr
    );

    // check has nothing to check, and says where it looked rather than blaming a config.
    let out = run(indoubt().env("HOME", home.path()).args(["check"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("nothing to check: no config file was found")
            && out
                .stderr
                .contains(&format!("{} does not exist", config.display()))
            && !out.stderr.contains("the config names"),
        "{}",
        out.stderr
    );
}

#[cfg(unix)]
fn private_file(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn a_refused_password_names_where_it_came_from_and_never_itself() {
    let role = TestRole::create("pwhint", "");
    let wrong = format!("Wr0ng-{}", unique("pw"));
    let dir = tempfile::tempdir().unwrap();
    let psql = || {
        [
            "pg",
            "prepared",
            "-h",
            &host(),
            "-p",
            &port(),
            "-U",
            &role.name,
            "-d",
            "postgres",
        ]
        .map(str::to_string)
    };
    let refused = |out: &Outcome, hint: &str| {
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(out.stderr.contains("28P01"), "{}", out.stderr);
        assert!(
            out.stderr.contains(hint),
            "{hint:?} not in:\n{}",
            out.stderr
        );
        assert!(
            !out.stderr.contains(&wrong),
            "the password was shown:\n{}",
            out.stderr
        );
        assert!(!out.stdout.contains(&wrong));
    };

    // In the --pg string.
    let out = run(indoubt().args([
        "pg",
        "prepared",
        "--pg",
        &url_for(&role.name, &wrong, "postgres"),
    ]));
    refused(
        &out,
        "hint: the password sent is the one in the connection string of --pg",
    );

    // PGPASSWORD.
    let out = run(indoubt().env("PGPASSWORD", &wrong).args(psql()));
    refused(&out, "hint: the password sent is PGPASSWORD's");

    // A password file.
    let pgpass = dir.path().join("pgpass");
    private_file(
        &pgpass,
        &format!("{}:{}:*:{}:{wrong}\n", host(), port(), role.name),
    );
    let out = run(indoubt().env("PGPASSFILE", &pgpass).args(psql()));
    refused(
        &out,
        &format!(
            "hint: the password sent is the one {} gives",
            pgpass.display()
        ),
    );

    // A config target's conninfo.
    let config = dir.path().join("config.yaml");
    private_file(
        &config,
        &format!(
            "postgres:\n  shop:\n    conninfo: \"{}\"\n",
            url_for(&role.name, &wrong, "postgres")
        ),
    );
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["pg", "prepared"]));
    refused(
        &out,
        &format!(
            "the conninfo of postgres target \"shop\" of {}",
            config.display()
        ),
    );

    // None at all: where indoubt looked for one.
    let out = run(indoubt().args(psql()));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("the server asks for the password of")
            && out.stderr.contains("/.pgpass has no line for this server")
            && out.stderr.contains("PGPASSWORD"),
        "{}",
        out.stderr
    );

    // The right one, from the password file, connects: the hints above were about the
    // password. (What this role sees of other tests' transactions decides the status.)
    role.write_pgpass(&pgpass);
    let out = run(indoubt()
        .env("PGPASSFILE", &pgpass)
        .arg("-o")
        .arg("json")
        .args(psql()));
    assert!(matches!(out.code, 0..=2), "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        report["target"]["address"],
        format!("{}@{}:{}/postgres", role.name, host(), port())
    );
}

/// A port that accepts connections and never says a word (a firewall's tarpit, a hung
/// server); it holds them until the test process ends.
fn silent_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    port
}

/// A port that answers whatever it is sent with `answer`, then closes, as an HTTP server
/// answers a request it cannot parse (400) or a TLS server a record that is not TLS (an alert).
fn answering_port(answer: &'static [u8]) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 1024];
            let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(answer);
        }
    });
    port
}

const HTTP_400: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n400 Bad Request";
/// A fatal alert (unexpected_message), record version TLS 1.2.
const TLS_ALERT: &[u8] = &[0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a];

#[test]
fn refused_and_silent_ports_say_so() {
    let closed = free_port();
    let out = run(indoubt().args([
        "pg",
        "prepared",
        "-h",
        "127.0.0.1",
        "-p",
        &closed.to_string(),
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains(&format!("connection refused at 127.0.0.1:{closed}"))
            && out.stderr.contains(&format!(
                "hint: is the server running on 127.0.0.1:{closed}?"
            )),
        "{}",
        out.stderr
    );
    let out = run(indoubt().args(["kafka", "lso", "-b", &format!("127.0.0.1:{closed}")]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains(&format!(
            "hint: is the broker running on 127.0.0.1:{closed}?"
        )),
        "{}",
        out.stderr
    );

    let silent = silent_port();
    let out = run(indoubt().args([
        "--timeout",
        "3s",
        "pg",
        "prepared",
        "-h",
        "127.0.0.1",
        "-p",
        &silent.to_string(),
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains(&format!("no answer within 3s from 127.0.0.1:{silent}"))
            && out
                .stderr
                .contains("did not answer a PostgreSQL SSLRequest or a Kafka ApiVersions request")
            && out
                .stderr
                .contains("hint: nothing answered within --timeout 3s"),
        "{}",
        out.stderr
    );
}

/// Runs with a timeout of five minutes: a port mix-up must be named at once, and
/// `run` gives up (failing the test) long before five minutes.
fn named(args: &[&str]) -> Outcome {
    let out = run(indoubt().args(["--timeout", "5m"]).args(args));
    assert_eq!(out.code, 3, "{args:?}: {}{}", out.stdout, out.stderr);
    out
}

fn says(out: &Outcome, what: &[&str]) {
    for said in what {
        assert!(
            out.stderr.contains(said),
            "{said:?} not in:\n{}",
            out.stderr
        );
    }
}

#[test]
fn a_server_of_another_protocol_is_named_by_its_first_bytes() {
    let kafka = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let kafka_tls = lab("INDOUBT_LAB_KAFKA_SASL_BOOTSTRAP");
    let postgres = format!("{}:{}", host(), port());
    let http = format!("127.0.0.1:{}", answering_port(HTTP_400));
    let tls = format!("127.0.0.1:{}", answering_port(TLS_ALERT));
    let pg_at = |address: &str| {
        let (h, p) = address.rsplit_once(':').unwrap();
        named(&["pg", "prepared", "-h", h, "-p", p])
    };

    // --pg (here -h/-p) at a Kafka broker: it is silent to PostgreSQL's SSLRequest.
    says(
        &pg_at(&kafka),
        &[
            &format!("{kafka} looks like a Kafka broker, not PostgreSQL"),
            "hint: that is a Kafka port: the kafka commands take it with -b HOST:PORT",
        ],
    );
    says(
        &named(&["pg", "slots", "--pg", &format!("postgres://u@{kafka}/db")]),
        &[&format!(
            "{kafka} looks like a Kafka broker, not PostgreSQL"
        )],
    );
    // At the broker's TLS listener, at an HTTP and at a TLS server.
    says(
        &pg_at(&kafka_tls),
        &[&format!(
            "{kafka_tls} looks like a TLS server, not PostgreSQL"
        )],
    );
    says(
        &pg_at(&http),
        &[
            &format!("{http} looks like an HTTP server, not PostgreSQL"),
            "hint: a web server listens there",
        ],
    );
    says(
        &pg_at(&tls),
        &[&format!("{tls} looks like a TLS server, not PostgreSQL")],
    );

    // -b at PostgreSQL, HTTP and TLS servers.
    says(
        &named(&["kafka", "lso", "-b", &postgres]),
        &[
            &format!("{postgres} looks like a PostgreSQL server, not a Kafka broker"),
            "hint: that is a PostgreSQL port: the pg commands take it with --pg or -h/-p",
        ],
    );
    says(
        &named(&["kafka", "transactions", "-b", &http]),
        &[&format!(
            "{http} looks like an HTTP server, not a Kafka broker"
        )],
    );
    for address in [&tls, &kafka_tls] {
        says(
            &named(&["kafka", "lso", "-b", address]),
            &[
                &format!("{address} looks like a TLS server, not a Kafka broker"),
                "hint: the listener speaks TLS: if it is a broker's SSL or SASL_SSL listener, add -X security.protocol=SSL",
            ],
        );
    }
    // TLS asked of a plaintext listener, and of PostgreSQL.
    says(
        &named(&["kafka", "lso", "-b", &kafka, "-X", "security.protocol=SSL"]),
        &[
            &format!("{kafka} looks like a plaintext Kafka listener, not a TLS one"),
            "hint: the listener is plaintext",
        ],
    );
    says(
        &named(&[
            "kafka",
            "lso",
            "-b",
            &postgres,
            "-X",
            "security.protocol=SSL",
        ]),
        &[&format!(
            "{postgres} looks like a PostgreSQL server, not a TLS listener"
        )],
    );
}

/// indoubt run as `nobody`, isolated like [`indoubt`].
fn as_nobody(args: &[&str]) -> Outcome {
    let mut cmd = std::process::Command::new("setpriv");
    cmd.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("indoubt"))
        .args(args);
    isolate(&mut cmd);
    cmd.env("HOME", "/nonexistent");
    let out = cmd.output().expect("setpriv");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn nobody_ids() -> (u32, u32) {
    let id = |flag: &str| {
        let out = std::process::Command::new("id")
            .args([flag, "nobody"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    };
    (id("-u"), id("-g"))
}

#[test]
fn an_audit_log_before_the_first_resolution_has_no_records_yet_and_no_trail_to_verify() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("state/audit.jsonl");
    let log = log.to_str().unwrap();
    let out = run(indoubt().args(["audit", "list", "--audit-log", log]));
    assert_eq!(out.code, 0, "audit list: {}", out.stderr);
    assert!(out.stdout.contains("no records yet"), "{}", out.stdout);
    let out = run(indoubt().args(["-o", "json", "audit", "list", "--audit-log", log]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["status"], "OK");
    assert_eq!(report["findings"][0]["code"], "audit_no_records");
    assert_eq!(report["records"], Value::Array(vec![]));
    // Nothing to verify is not a verified trail: one removed with its head looks the same.
    let out = run(indoubt().args(["audit", "verify", "--audit-log", log]));
    assert_eq!(out.code, 1, "audit verify: {}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("no trail at"), "{}", out.stdout);
    let out = run(indoubt().args(["-o", "json", "audit", "verify", "--audit-log", log]));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["status"], "WARNING");
    assert_eq!(report["findings"][0]["code"], "audit_no_trail");
    assert_eq!(
        report["findings"][0]["message"],
        format!("no trail at {log}: never written here, or removed")
    );
    assert_eq!(report["records"], Value::Array(vec![]));

    // A head without its log: the log was removed, which is not "nothing yet".
    {
        use std::os::unix::fs::PermissionsExt;
        let state = dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
        private_file(
            &state.join("audit.jsonl.head"),
            &format!("3 {}\n", "ab".repeat(32)),
        );
    }
    let out = run(indoubt().args(["audit", "verify", "--audit-log", log]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("the log was deleted or moved"),
        "{}",
        out.stdout
    );
    let out = run(indoubt().args(["audit", "list", "--audit-log", log]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("the chain is broken") && !out.stdout.contains("no records yet"),
        "{}",
        out.stdout
    );

    // A log that cannot be read is an error, not an empty log: one its owner may not
    // read, and one in a directory its reader may not enter.
    use std::os::unix::fs::PermissionsExt;
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (uid, gid) = nobody_ids();
    let theirs = shared.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
    let unreadable = theirs.join("audit.jsonl");
    std::fs::write(&unreadable, "").unwrap();
    std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::os::unix::fs::chown(&theirs, Some(uid), Some(gid)).unwrap();
    std::os::unix::fs::chown(&unreadable, Some(uid), Some(gid)).unwrap();
    let closed = dir.path().join("state/deeper/audit.jsonl"); // dir is root's, 0700
    for path in [&unreadable, &closed] {
        for command in ["list", "verify"] {
            let out = as_nobody(&["audit", command, "--audit-log", path.to_str().unwrap()]);
            assert_eq!(
                out.code,
                3,
                "audit {command} {}: {}{}",
                path.display(),
                out.stdout,
                out.stderr
            );
            assert!(!out.stdout.contains("no records yet"), "{}", out.stdout);
            assert!(out.stderr.contains("Permission denied"), "{}", out.stderr);
        }
    }
}

#[test]
fn a_config_with_one_reconcile_job_runs_it_by_default() {
    let db = TestDb::create("onejob");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, 3) g",
        )
        .unwrap();
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = common::kafka::create_topic(&bootstrap, "onejob", 1);
    let job = |name: &str| {
        format!(
            "  {name}:\n    postgres: shop\n    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n    kafka: lab\n    topic: {topic}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    let head = format!(
        "postgres:\n  shop:\n    conninfo: \"{}\"\nkafka:\n  lab:\n    bootstrap_servers: {bootstrap}\nreconcile:\n",
        db.url()
    );
    private_file(&config, &format!("{head}{}", job("orders")));
    let out = run(indoubt().arg("--config").arg(&config).args([
        "-o",
        "json",
        "reconcile",
        "--no-progress",
    ]));
    // The three orders' events were never published: CRITICAL, found by the only job.
    assert_eq!(out.code, 2, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["job"], "orders");
    assert_eq!(report["database_rows"], 3);
    assert_eq!(report["missing"], serde_json::json!(["1", "2", "3"]));

    // Several jobs: which one is asked, with their names.
    private_file(
        &config,
        &format!("{head}{}{}", job("orders"), job("refunds")),
    );
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["reconcile", "--no-progress"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains("which reconcile job? The config names several: orders, refunds")
            && out
                .stderr
                .contains("hint: name one: indoubt reconcile NAME"),
        "{}",
        out.stderr
    );
    let out =
        run(indoubt()
            .arg("--config")
            .arg(&config)
            .args(["reconcile", "--no-progress", "returns"]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains("the config's reconcile jobs are: orders, refunds"),
        "{}",
        out.stderr
    );
}

#[test]
fn kafka_producers_without_arguments_says_what_it_needs_with_an_example() {
    let empty_home = tempfile::tempdir().unwrap();
    let out = run(indoubt()
        .env("HOME", empty_home.path())
        .env_remove("INDOUBT_CONFIG")
        .args(["kafka", "producers"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("--topic TOPIC --partition N")
            && out.stderr.contains("-b HOST:PORT, or --kafka NAME")
            && out.stderr.contains(
                "hint: for example: indoubt kafka producers -b kafka-1:9092 --topic orders --partition 3"
            ),
        "{}",
        out.stderr
    );
    // The cluster named, only the partition is asked for.
    let out = run(indoubt().env("HOME", empty_home.path()).args([
        "kafka",
        "producers",
        "-b",
        "127.0.0.1:1",
    ]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("--topic TOPIC --partition N") && !out.stderr.contains("-b HOST:PORT,"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_says_in_its_first_line_everything_indoubt_covers() {
    let out = run(indoubt().arg("--help"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = out.stdout.split("\n\n").next().unwrap().replace('\n', " ");
    for covered in [
        "PostgreSQL",
        "Kafka",
        "MySQL/MariaDB",
        "transaction managers' logs",
    ] {
        assert!(first.contains(covered), "{covered}: {first}");
    }
}
