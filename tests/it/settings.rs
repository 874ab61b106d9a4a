//! Settings are resolved once, before any command connects to anything: a resolution
//! error (a warning above the critical, an unknown job, a bad -X property) refuses with
//! exit 3 and its message, and no connection was tried — proved by a listener that
//! counts the connections it gets (and answers none, so a connect would hang).
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A server that accepts and never answers, and records who connected.
struct Listener {
    port: u16,
    /// The peer address of every connection accepted, in order.
    accepted: Arc<Mutex<Vec<SocketAddr>>>,
    /// How many of them are our own.
    sentinels: AtomicUsize,
}

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(Mutex::new(Vec::new()));
        let record = accepted.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            while let Ok((stream, peer)) = listener.accept() {
                record.lock().unwrap().push(peer);
                held.push(stream);
            }
        });
        Listener {
            port,
            accepted,
            sentinels: AtomicUsize::new(0),
        }
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Connections made before now, ours aside. They are accepted in order, so once our
    /// own new one is accepted, every earlier one (the command's) is too.
    fn connections_so_far(&self) -> usize {
        let sentinel = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let me = sentinel.local_addr().unwrap();
        let sentinels = self.sentinels.fetch_add(1, Ordering::SeqCst) + 1;
        wait_for("our own connection to be accepted", || {
            self.accepted.lock().unwrap().contains(&me)
        });
        self.accepted.lock().unwrap().len() - sentinels
    }
}

fn config(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    file
}

fn refused_before_connecting(listener: &Listener, out: &Outcome, message: &str) {
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(message),
        "the resolution error, not a connection's:\n{}",
        out.stderr
    );
    assert_eq!(listener.connections_so_far(), 0, "a connection was tried");
}

#[test]
fn a_warning_above_the_critical_refuses_before_the_server_is_reached() {
    let listener = Listener::start();
    let pg = format!("postgres://u@{}/db", listener.address());
    let out = run(indoubt().args([
        "--timeout",
        "3s",
        "pg",
        "prepared",
        "--pg",
        &pg,
        "--warning-age",
        "1h",
        "--critical-age",
        "5m",
    ]));
    refused_before_connecting(
        &listener,
        &out,
        "prepared age: warning threshold 1h is above the critical one 5m",
    );
    assert!(out
        .stderr
        .contains("hint: the warning threshold must not exceed the critical one"));
}

#[test]
fn an_unknown_reconcile_job_refuses_before_either_side_is_reached() {
    let listener = Listener::start();
    let pg = format!("postgres://u@{}/db", listener.address());
    let file = config(&format!(
        "reconcile:\n  orders:\n    postgres: {pg}\n    query: SELECT 1\n    topic: t\n"
    ));
    let out = run(indoubt().args([
        "--config",
        &file.path().to_string_lossy(),
        "--timeout",
        "3s",
        "reconcile",
        "ordres",
        "--pg",
        &pg,
        "-b",
        &listener.address(),
    ]));
    refused_before_connecting(
        &listener,
        &out,
        "no reconcile job named \"ordres\" in the config",
    );
    assert!(out
        .stderr
        .contains("the config's reconcile jobs are: orders"));
}

#[test]
fn a_bad_client_property_refuses_before_the_broker_is_reached() {
    let listener = Listener::start();
    let out = run(indoubt().args([
        "--timeout",
        "3s",
        "kafka",
        "lso",
        "-b",
        &listener.address(),
        "-X",
        "sasl.mechanisms.typo=PLAIN",
    ]));
    refused_before_connecting(&listener, &out, "unknown Kafka client property");
}

#[test]
fn several_postgres_targets_and_no_choice_refuses_before_any_is_reached() {
    let listener = Listener::start();
    let file = config(&format!(
        "postgres:\n  a:\n    conninfo: postgres://u@{0}/a\n  b:\n    conninfo: postgres://u@{0}/b\n",
        listener.address()
    ));
    let out = run(indoubt().args([
        "--config",
        &file.path().to_string_lossy(),
        "--timeout",
        "3s",
        "resolve",
        "pg",
        "some-gid",
        "--dry-run",
    ]));
    refused_before_connecting(
        &listener,
        &out,
        "the config names several postgres targets (a, b)",
    );
}

/// An outbox's age pair is checked like every other pair: a warning above the critical
/// was graded silently (a backlog of 10m CRITICAL under `warning_age: 1h`); now `pg
/// outbox` refuses it before reading the table, and `check` reports that outbox UNKNOWN
/// with why, without reaching its server.
#[test]
fn an_outbox_warning_above_its_critical_is_refused_before_its_database_is_reached() {
    let listener = Listener::start();
    let file = config(&format!(
        "outbox:\n  orders:\n    postgres: postgres://u@{}/shop\n    table: outbox\n    warning_age: 1h\n    critical_age: 5m\n    check: true\n",
        listener.address()
    ));
    let path = file.path().to_string_lossy().to_string();
    let out = run(indoubt().args(["--config", &path, "--timeout", "3s", "pg", "outbox"]));
    refused_before_connecting(
        &listener,
        &out,
        "outbox orders age: warning threshold 1h is above the critical one 5m",
    );

    let out = run(indoubt().args(["--config", &path, "--timeout", "3s", "-o", "json", "check"]));
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let outbox = &report["checks"][0];
    assert_eq!(outbox["check"], "outbox", "{report}");
    assert_eq!(outbox["status"], "UNKNOWN");
    assert!(
        outbox["error"]
            .as_str()
            .unwrap()
            .contains("outbox orders age: warning threshold 1h is above the critical one 5m"),
        "{outbox}"
    );
    assert_eq!(listener.connections_so_far(), 0, "a connection was tried");
}

/// -v says, before any connection, which thresholds are in force and where each came
/// from: a flag, the config's key, or the default.
#[test]
fn verbose_names_each_threshold_in_force_and_its_source_before_connecting() {
    let file = config("thresholds:\n  prepared:\n    critical_age: 1h\n");
    let pg = format!("postgres://u@127.0.0.1:{}/db", free_port());
    let out = run(indoubt().args([
        "--config",
        &file.path().to_string_lossy(),
        "-v",
        "pg",
        "prepared",
        "--pg",
        &pg,
        "--warning-age",
        "10m",
    ]));
    assert_eq!(out.code, 3, "nothing listens there:\n{}", out.stderr);
    let said = "indoubt: prepared age thresholds: warning 10m (--warning-age), critical 1h (config thresholds.prepared.critical_age)";
    let at = out
        .stderr
        .find(said)
        .unwrap_or_else(|| panic!("{}", out.stderr));
    let connecting = out.stderr.find("indoubt: connecting to").unwrap();
    assert!(at < connecting, "{}", out.stderr);

    let out = run(indoubt().args([
        "-v",
        "kafka",
        "lso",
        "-b",
        &format!("127.0.0.1:{}", free_port()),
    ]));
    assert!(
        out.stderr
            .contains("indoubt: LSO age thresholds: warning 5m (default), critical 15m (default)"),
        "{}",
        out.stderr
    );
}
