//! `indoubt serve`: a real Prometheus server (Debian's, tests/lab/prometheus) scrapes it
//! and its HTTP API shows the checks' series and indoubt_up; the endpoints, the refusals
//! (methods, bodies, header floods, connections past the bound), readiness before the
//! first run, no secret in any answer, and a graceful stop on SIGTERM.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `indoubt serve` on a port of its own, killed if the test ends before it stops.
struct Served {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(config: &str, args: &[&str]) -> Served {
        Served::start_with(config, &["-v"], args)
    }

    /// With `global` options (`-v` or none) before `serve`.
    fn start_with(config: &str, global: &[&str], args: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("indoubt.yaml");
        std::fs::write(&path, config).unwrap();
        let port = free_port();
        let child = indoubt_process()
            .arg("--config")
            .arg(&path)
            .args(global)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let served = Served {
            child: Some(child),
            port,
            _dir: dir,
        };
        // Listening comes first: the port answers before any run completes.
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "serve never listened");
            std::thread::sleep(Duration::from_millis(20));
        }
        served
    }

    fn get(&self, path: &str) -> (u16, String) {
        http(
            self.port,
            &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        )
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.get("/-/ready").0 != 200 {
            assert!(Instant::now() < deadline, "never ready");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM, then the exit code and stderr.
    fn terminate(&mut self) -> (Option<i32>, String) {
        let mut child = self.child.take().unwrap();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (code, stderr)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One raw request; the status and the body.
fn http(port: u16, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// Prometheus of the test's own, scraping `target` every second.
struct Prometheus {
    dir: tempfile::TempDir,
    port: u16,
}

impl Prometheus {
    fn start(target: &str) -> Prometheus {
        Prometheus::start_with(target, None)
    }

    /// The same, evaluating the alerting rules of the file `rules` every second.
    fn start_with(target: &str, rules: Option<&std::path::Path>) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut args = vec![
            "start".to_string(),
            dir.path().to_str().unwrap().to_string(),
            port.to_string(),
            target.to_string(),
            "1s".to_string(),
        ];
        args.extend(rules.map(|r| r.to_str().unwrap().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_lab_script("prometheus", &args);
        Prometheus { dir, port }
    }

    /// Waits (a minute at most) until every alert of `expected` fires; the alerts firing then.
    fn wait_firing(&self, expected: &[&str]) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let firing = self.firing();
            if expected.iter().all(|a| firing.iter().any(|f| f == a)) {
                return firing;
            }
            assert!(
                Instant::now() < deadline,
                "firing: {firing:?}, expected {expected:?}; statuses: {:?}",
                self.query("indoubt_check_status")
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Queries every dashboard panel whose expression reads a series `made_here` names
    /// (a prefix) and asserts it has data; how many were queried.
    fn panels_with_data(&self, made_here: &[&str]) -> usize {
        let dashboard: Value = serde_json::from_str(
            &std::fs::read_to_string(repo_root().join("monitoring/indoubt.dashboard.json"))
                .unwrap(),
        )
        .unwrap();
        let mut queried = 0;
        for panel in dashboard["panels"].as_array().unwrap() {
            let expr = panel["targets"][0]["expr"].as_str().unwrap();
            if !made_here.iter().any(|m| expr.contains(m)) {
                continue;
            }
            assert!(
                !self.query(expr).is_empty(),
                "panel {}: {expr} has no data",
                panel["title"]
            );
            queried += 1;
        }
        queried
    }

    /// The alerts firing now, by name.
    fn firing(&self) -> Vec<String> {
        let (status, body) = http(
            self.port,
            "GET /api/v1/alerts HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(status, 200, "{body}");
        let json = body
            .lines()
            .find(|l| l.starts_with('{'))
            .unwrap_or_else(|| panic!("no JSON in {body}"));
        let answer: Value = serde_json::from_str(json).unwrap();
        answer["data"]["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["state"] == "firing")
            .map(|a| a["labels"]["alertname"].as_str().unwrap().to_string())
            .collect()
    }

    /// The samples of an instant query, as (labels, value).
    fn query(&self, query: &str) -> Vec<(Value, String)> {
        let encoded: String = query
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect();
        let (status, body) = http(
            self.port,
            &format!(
                "GET /api/v1/query?query={encoded} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            ),
        );
        assert_eq!(status, 200, "{body}");
        // The body may come chunked; the JSON is its one line that starts with '{'.
        let json = body
            .lines()
            .find(|l| l.starts_with('{'))
            .unwrap_or_else(|| panic!("no JSON in {body}"));
        let answer: Value = serde_json::from_str(json).unwrap();
        answer["data"]["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["metric"].clone(),
                    r["value"][1].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// Waits until `query` has a sample of `value`.
    fn wait_for(&self, query: &str, value: &str) -> Vec<(Value, String)> {
        self.wait_until(query, |v| v == value)
    }

    fn wait_until(&self, query: &str, good: impl Fn(&str) -> bool) -> Vec<(Value, String)> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let samples = self.query(query);
            if samples.iter().any(|(_, v)| good(v)) {
                return samples;
            }
            assert!(
                Instant::now() < deadline,
                "{query} never had the value looked for: {samples:?}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = std::process::Command::new(repo_root().join("tests/lab/prometheus"))
            .args(["stop", self.dir.path().to_str().unwrap()])
            .status();
    }
}

const PREPARED_AT_ONCE: &str =
    "thresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 0s\n";

#[test]
fn a_real_prometheus_scrapes_the_findings_and_indoubt_up_and_sigterm_stops_it_cleanly() {
    let db = TestDb::create("serve");
    let gid = unique("serve_gid");
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (id int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let role = TestRole::create("serve_monitor", "SUPERUSER");
    let url = url_for(&role.name, &role.password, &db.name);
    let mut served = Served::start(
        &format!("postgres:\n  shop:\n    conninfo: {url}\n{PREPARED_AT_ONCE}"),
        &["--interval", "1s", "--only", "pg"],
    );
    served.wait_ready();
    let (status, metrics) = served.get("/metrics");
    assert_eq!(status, 200);
    assert!(metrics.contains("indoubt_up 1\n"), "{metrics}");
    assert!(
        metrics.contains("indoubt_check_status{target=\"shop\",check=\"pg_prepared\"} 2\n"),
        "{metrics}"
    );
    assert!(metrics.contains(&format!("gid=\"{gid}\"")), "{metrics}");
    assert!(
        !metrics.contains(&role.password),
        "the password of the target's URL is in /metrics"
    );
    assert_eq!(served.get("/healthz"), (200, "ok\n".to_string()));

    let prometheus = Prometheus::start(&format!("127.0.0.1:{}", served.port));
    prometheus.wait_for("indoubt_up", "1");
    let statuses = prometheus.wait_for(
        "indoubt_check_status{target=\"shop\",check=\"pg_prepared\"}",
        "2",
    );
    assert_eq!(statuses[0].0["job"], "indoubt");
    let findings = prometheus.wait_for(
        "indoubt_finding_severity{target=\"shop\",code=\"prepared_xact_age\"}",
        "2",
    );
    assert!(findings[0].0.get("gid").is_none(), "{findings:?}");
    prometheus.wait_until(
        &format!("indoubt_pg_prepared_transaction_age_seconds{{gid=\"{gid}\"}}"),
        |v| v.parse::<f64>().is_ok_and(|n| n >= 0.0),
    );
    // The checks run again on the interval.
    prometheus.wait_until("indoubt_runs_total{outcome=\"completed\"}", |v| {
        v.parse::<f64>().is_ok_and(|n| n >= 2.0)
    });
    let success = prometheus.query("time() - indoubt_last_success_timestamp_seconds");
    let age: f64 = success[0].1.parse().unwrap();
    assert!(age < 30.0, "the last success is recent: {age}s ago");
    let run = prometheus.query("time() - indoubt_last_run_timestamp_seconds");
    let age: f64 = run[0].1.parse().unwrap();
    assert!(
        (0.0..30.0).contains(&age),
        "the last run is recent: {age}s ago"
    );

    let (code, stderr) = served.terminate();
    assert_eq!(code, Some(0), "a graceful stop exits 0: {stderr}");
    assert!(stderr.contains("SIGTERM: no new connections"), "{stderr}");
    assert!(!stderr.contains(&role.password), "{stderr}");
}

#[test]
fn readiness_waits_for_the_first_run_and_unknown_checks_still_make_a_run() {
    // A server that takes connections and never answers: the first run lasts its deadline.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let served = Served::start(
        &format!("postgres:\n  silent:\n    conninfo: postgres://nobody@127.0.0.1:{port}/x?connect_timeout=60\n"),
        &["--interval", "1s", "--deadline", "3s", "--only", "pg"],
    );
    let (status, body) = served.get("/-/ready");
    assert_eq!(
        (status, body.as_str()),
        (503, "no run of the checks has completed yet\n")
    );
    let (_, metrics) = served.get("/metrics");
    assert!(metrics.contains("indoubt_up 0\n"), "{metrics}");
    assert!(
        !metrics.contains("indoubt_check_status{"),
        "no run, no check's status: {metrics}"
    );
    assert_eq!(served.get("/healthz").0, 200, "alive while not ready");
    served.wait_ready();
    let (_, metrics) = served.get("/metrics");
    assert!(metrics.contains("indoubt_up 1\n"), "{metrics}");
    assert!(
        metrics.contains("indoubt_check_status{target=\"silent\",check=\"pg_prepared\"} 3\n"),
        "UNKNOWN past the deadline: {metrics}"
    );
    drop(silent);
}

#[test]
fn only_get_and_head_without_a_body_are_answered_and_floods_are_bounded() {
    let db = TestDb::create("serve_http");
    let served = Served::start(
        &format!("postgres:\n  shop:\n    conninfo: {}\n", db.url()),
        &["--interval", "60s", "--only", "pg"],
    );
    served.wait_ready();
    let port = served.port;
    let (status, _) = http(
        port,
        "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 405);
    let (status, body) = http(
        port,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert_eq!(
        (status, body.as_str()),
        (413, "a request has no body here\n")
    );
    assert_eq!(served.get("/nowhere").0, 404);
    let (status, body) = http(
        port,
        "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!((status, body.as_str()), (200, ""));
    // Headers past 16 KiB are refused, not buffered.
    let flood = format!(
        "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Flood: {}\r\n\r\n",
        "a".repeat(64 << 10)
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let _ = stream.write_all(flood.as_bytes());
    let mut answer = String::new();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = stream.read_to_string(&mut answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "a header flood is refused: {answer:.80}"
    );
    // 64 idle connections hold every slot: the next is closed at once, unanswered.
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut extra = TcpStream::connect(("127.0.0.1", port)).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = extra.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut buffer = [0u8; 64];
    let read = extra.read(&mut buffer);
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "past the bound a connection is closed: {read:?}"
    );
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(10);
    while served.get("/healthz").0 != 200 {
        assert!(Instant::now() < deadline, "the slots come back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_interval_under_a_second_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        "postgres:\n  shop:\n    conninfo: postgres://x@127.0.0.1/x\n",
    )
    .unwrap();
    let out = run(indoubt()
        .arg("--config")
        .arg(&config)
        .args(["serve", "--interval", "100ms"]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("--interval 100ms is too short"),
        "{}",
        out.stderr
    );
}

/// A config of `n` postgres targets where nothing listens: each run's exposition is large
/// (about 680 bytes a target, every check UNKNOWN with its reason), and quick to make.
fn unreachable_targets(n: usize) -> String {
    let port = free_port();
    let mut config = String::from("postgres:\n");
    for i in 0..n {
        config.push_str(&format!(
            "  t{i:03}:\n    conninfo: postgres://u@127.0.0.1:{port}/x\n"
        ));
    }
    config
}

#[test]
fn clients_that_pipeline_and_never_read_cannot_lock_a_scraper_out() {
    // Answers of ~136 kB: 100 of them cannot fit in the sockets' buffers, so every
    // flooding connection ends up blocked on an answer its client will not take.
    // Without -v: nobody reads its stderr while it runs, and 200 targets' notes would
    // fill the pipe.
    let served = Served::start_with(
        &unreachable_targets(200),
        &[],
        &["--interval", "60s", "--only", "pg"],
    );
    served.wait_ready();
    let (status, metrics) = served.get("/metrics");
    assert_eq!(status, 200);
    assert!(metrics.len() > 100_000, "{} bytes", metrics.len());
    let flood = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1000);
    let flooding: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
            stream
                .set_write_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let _ = stream.write_all(flood.as_bytes());
            stream
        })
        .collect();
    let flooded = Instant::now();
    // Long enough for their answers to be blocked for more than a second, on a machine
    // busy with other tests too.
    std::thread::sleep(Duration::from_millis(3500));
    let scrape = Instant::now();
    let (status, metrics) = served.get("/metrics");
    assert_eq!(
        status, 200,
        "a scrape while 64 clients flood: {metrics:.200}"
    );
    assert!(metrics.contains("indoubt_up 1\n"), "{metrics:.200}");
    assert!(
        scrape.elapsed() < Duration::from_secs(3),
        "answered in {:?}",
        scrape.elapsed()
    );
    // Within the write timeout (10 s) of being blocked, every flooding connection is
    // closed by the server (a reset: its requests were left unread), unread.
    std::thread::sleep(Duration::from_secs(14).saturating_sub(flooded.elapsed()));
    let open = flooding
        .iter()
        .filter(|s| !matches!(s.take_error(), Ok(Some(e)) if e.kind() == std::io::ErrorKind::ConnectionReset))
        .count();
    assert_eq!(open, 0, "flooding connections the server has not closed");
    drop(flooding);
    assert_eq!(served.get("/healthz").0, 200);
}

#[test]
fn a_connection_is_closed_after_100_requests_and_serve_says_where_it_listens() {
    let db = TestDb::create("serve_limit");
    let mut served = Served::start_with(
        &format!("postgres:\n  shop:\n    conninfo: {}\n", db.url()),
        &[],
        &["--interval", "90s", "--only", "pg"],
    );
    let mut stream = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                .repeat(100)
                .as_bytes(),
        )
        .unwrap();
    let mut answers = Vec::new();
    let end = stream.read_to_end(&mut answers);
    let answers = String::from_utf8_lossy(&answers);
    assert!(
        end.is_ok(),
        "the connection closes after the 100th answer: {end:?} after {} answers",
        answers.matches("HTTP/1.1 200").count()
    );
    assert_eq!(answers.matches("HTTP/1.1 200 OK\r\n").count(), 100);
    let last = answers.rsplit("HTTP/1.1 200 OK").next().unwrap();
    assert!(last.contains("connection: close\r\n"), "{last}");
    assert_eq!(
        answers.matches("connection: close").count(),
        1,
        "keep-alive until then"
    );
    let (code, stderr) = served.terminate();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "indoubt serve: serving /metrics on http://127.0.0.1:{} (config ",
            served.port
        )) && stderr.contains(", checks every 1m 30s)\n"),
        "one line once listening, without -v: {stderr}"
    );
}

/// monitoring/'s alerting rules and dashboard against a real Prometheus scraping `indoubt
/// serve` over a database of the test's own — a young prepared transaction, the lab's
/// order saga with each stuck state, an outbox whose relay skipped two rows: the alerts
/// of what it holds fire (read from /api/v1/alerts; their `for:` set to 0s here, their
/// thresholds as shipped), the prepared transaction's does not (it is seconds old, the
/// rule says 30m), and every dashboard panel whose series these checks make returns data.
#[test]
fn the_alert_rules_fire_on_the_incidents_and_the_dashboard_panels_have_data() {
    let db = TestDb::create("serverules");
    db.admin()
        .batch_execute(&crate::saga::fixture("postgres.sql"))
        .unwrap();
    let gid = unique("rules_gid");
    db.admin()
        .batch_execute(
            "CREATE TABLE outbox (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, published_at timestamptz);
             INSERT INTO outbox SELECT g, now() - interval '1 hour', CASE WHEN g IN (20, 35) THEN NULL ELSE now() - interval '1 hour' END FROM generate_series(1, 100) g;
             CREATE TABLE t (id int)",
        )
        .unwrap();
    // Apart: statements before a BEGIN in one batch join its transaction.
    db.admin()
        .batch_execute(&format!(
            "BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let saga = unique("rulesaga");
    let config = format!(
        "postgres:\n  shop:\n    conninfo: {url}\noutbox:\n  orders_outbox:\n    postgres: {url}\n    table: public.outbox\n    settle: 5m\n    check: true\n{}",
        crate::saga::saga_yaml(&saga, &format!("postgres: {}", db.url()), "public"),
        url = db.url()
    );
    let served = Served::start(&config, &["--interval", "1s", "--only", "pg,saga,outbox"]);
    served.wait_ready();
    let dir = tempfile::tempdir().unwrap();
    let rules = shipped_rules(dir.path(), &[]);
    let prometheus = Prometheus::start_with(&format!("127.0.0.1:{}", served.port), Some(&rules));
    prometheus.wait_for("indoubt_up", "1");
    let firing = prometheus.wait_firing(&[
        "SagaNeedsHuman",
        "SagaOutcomeUnknown",
        "SagaStalled",
        "SagaLockOrphaned",
        "OutboxRowsSkipped",
        "OutboxBacklog",
    ]);
    assert!(
        !firing
            .iter()
            .any(|f| f == "PreparedTransactionStuck" || f == "IndoubtDown"),
        "{firing:?}"
    );
    let queried = prometheus.panels_with_data(&[
        "indoubt_check_status",
        "indoubt_target_up",
        "indoubt_pg_prepared_",
        "indoubt_pg_horizon_",
        "indoubt_pg_wraparound_",
        "indoubt_outbox_",
        "indoubt_saga_",
    ]);
    assert!(queried >= 11, "{queried} panels queried");
}

/// The shipped rules with every `for:` at 0s (an alert fires at its first evaluation), and
/// each threshold of `sooner` (`series > N`, as an expression has it) lowered to `> 1`,
/// for incidents a test can only make young; written into `dir`.
fn shipped_rules(dir: &std::path::Path, sooner: &[&str]) -> std::path::PathBuf {
    let shipped =
        std::fs::read_to_string(repo_root().join("monitoring/indoubt.rules.yml")).unwrap();
    let rewritten: String = shipped
        .lines()
        .map(|l| {
            let indent = &l[..l.len() - l.trim_start().len()];
            if l.trim_start().starts_with("for: ") {
                return format!("{indent}for: 0s");
            }
            match sooner
                .iter()
                .find(|t| l.trim_start().starts_with("expr: ") && l.contains(*t))
            {
                Some(t) => l.replace(t, &format!("{} > 1", t.rsplit_once(" > ").unwrap().0)),
                None => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    for t in sooner {
        assert!(shipped.contains(t), "no rule has {t}");
    }
    let rules = dir.join("rules.yml");
    std::fs::write(&rules, rewritten).unwrap();
    rules
}

#[test]
fn the_kafka_mysql_and_reconcile_alerts_fire_on_their_incidents_in_a_real_prometheus() {
    // A prepared transaction, and orders 4 and 9 that never reached their topic.
    let db = TestDb::create("serveincidents");
    db.admin()
        .batch_execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '1 hour' FROM generate_series(1, 10) g;
             CREATE TABLE t (id int)",
        )
        .unwrap();
    let gid = unique("incidents_gid");
    db.admin()
        .batch_execute(&format!(
            "BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let orders = common::kafka::create_topic(&bootstrap, "serve-orders", 1);
    let producer: rdkafka::producer::BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()
        .unwrap();
    for id in (1..=10).filter(|id| *id != 4 && *id != 9) {
        let key = id.to_string();
        producer
            .send(
                rdkafka::producer::BaseRecord::to(&orders)
                    .key(&key)
                    .payload(&key),
            )
            .map_err(|(e, _)| e)
            .unwrap();
    }
    rdkafka::producer::Producer::flush(&producer, common::kafka::WAIT).unwrap();
    // A transaction no coordinator knows of, pinning its partition's LSO.
    let pinned = common::kafka::create_topic(&bootstrap, "serve-pinned", 1);
    common::kafka::hanging_transaction(&bootstrap, &pinned, 0);
    // A prepared XA branch whose session is gone.
    let mysql_db = mysql::MysqlDb::create("serveincidents");
    let xid = format!("'{}'", unique("serve_xa"));
    mysql_db.prepare_detached(&xid);
    let config = format!(
        "postgres:\n  shop:\n    conninfo: {url}\nkafka:\n  broker:\n    bootstrap_servers: {bootstrap}\n    check_topic_regex: '^({orders}|{pinned})$'\nmysql:\n  orders_db:\n    url: {mysql_url}\n    option_file: {cnf}\n    ssl_mode: DISABLED\nreconcile:\n  orders_events:\n    postgres: {url}\n    query: SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2\n    kafka: broker\n    topic: {orders}\n    id_from: key\n    since: 3h\n    check: true\nthresholds:\n  hanging:\n    max_transaction_timeout: 0s\n",
        url = db.url(),
        mysql_url = mysql::url(),
        cnf = mysql::cnf(),
    );
    let served = Served::start(
        &config,
        &["--interval", "1s", "--only", "pg,kafka,mysql,reconcile"],
    );
    served.wait_ready();
    let dir = tempfile::tempdir().unwrap();
    // Made a moment ago: their age thresholds (30m, 15m) lowered, nothing else.
    let rules = shipped_rules(
        dir.path(),
        &[
            "indoubt_pg_prepared_oldest_age_seconds > 1800",
            "indoubt_kafka_lso_stuck_seconds > 900",
            "indoubt_mysql_xa_oldest_branch_age_seconds > 1800",
        ],
    );
    let prometheus = Prometheus::start_with(&format!("127.0.0.1:{}", served.port), Some(&rules));
    prometheus.wait_for("indoubt_up", "1");
    let firing = prometheus.wait_firing(&[
        "PreparedTransactionStuck",
        "KafkaLsoStuck",
        "KafkaHangingTransaction",
        "MysqlXaBranchStuck",
        "EventsMissingInTopic",
    ]);
    assert!(!firing.iter().any(|f| f == "IndoubtDown"), "{firing:?}");
    // The two missing orders, and when the older was written: an hour ago.
    let missing =
        prometheus.query("indoubt_reconcile_ids{target=\"orders_events\",class=\"missing\"}");
    assert_eq!(missing[0].1, "2", "{missing:?}");
    let oldest =
        prometheus.query("indoubt_reconcile_oldest_missing_age_seconds{target=\"orders_events\"}");
    let age: f64 = oldest[0].1.parse().unwrap();
    assert!((3590.0..3700.0).contains(&age), "{oldest:?}");
    let hanging = prometheus.query(
        "indoubt_kafka_open_transactions_past_timeout{target=\"broker\",verdict=\"hanging\"}",
    );
    assert_eq!(hanging[0].1, "1", "{hanging:?}");
    let queried = prometheus.panels_with_data(&[
        "indoubt_kafka_",
        "indoubt_mysql_",
        "indoubt_reconcile_",
        "indoubt_findings",
    ]);
    assert!(queried >= 8, "{queried} panels queried");
    mysql::sql(&format!("XA ROLLBACK {xid}"));
}
