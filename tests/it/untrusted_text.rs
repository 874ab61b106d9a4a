//! Text from servers and users on an operator's terminal and in monitoring outputs:
//! escaped exactly once (tables, prompts, Nagios, Prometheus), kept exact in JSON and for
//! `resolve pg` (a GID that is not UTF-8, from a SQL_ASCII database), cut when huge, laid
//! out for a terminal that reports 0 columns, and Prometheus series that never repeat.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::{create_topic, send, transactional_producer};
use common::{
    connect, free_port, indoubt, lab, pg_url, promtool_accepts, replace_db, run, unique, TestDb,
};
use rdkafka::producer::Producer;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the terminal showed, typing `input` (nothing: no input at all).
fn on_terminal(columns: u16, env: &[(&str, &str)], input: &str, args: &[&str]) -> String {
    let input = (!input.is_empty()).then_some(input);
    common::tty::on_terminal(columns, env, input, args).text
}

/// None of the hostile sequences the tests plant (a colour change, an OSC window title,
/// BEL, a bidi override, a C1 CSI) reached the output raw.
fn assert_no_planted_controls(what: &str, text: &str) {
    for bad in ["\u{7}", "\u{202e}", "\u{9b}", "\u{1b}[31m", "\u{1b}]0;"] {
        assert!(
            !text.contains(bad),
            "{what}: raw {bad:?} reached the terminal:\n{text}"
        );
    }
}

/// As above, and no carriage return either (outputs that are not a terminal's).
fn assert_no_raw_controls(what: &str, text: &str) {
    assert_no_planted_controls(what, text);
    assert!(!text.contains('\r'), "{what}: raw CR:\n{text}");
}

/// No raw control reaches `text`, each of `shown` is in it (escaped), and nothing is
/// escaped a second time (`\\u{1b}`).
fn assert_escaped_once(what: &str, text: &str, shown: &[&str]) {
    assert_no_raw_controls(what, text);
    for s in shown {
        assert!(text.contains(s), "{what}: no {s:?} in:\n{text}");
    }
    assert!(
        !text.contains("\\\\u{1b}"),
        "{what}: escaped twice:\n{text}"
    );
}

#[test]
fn resolve_kafka_shows_a_hostile_transactional_id_escaped_once_in_report_prompt_and_findings() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "hostile-id", 1);
    let base = unique("tx");
    let id = format!("{base}\u{1b}[31m\u{1b}]0;owned\u{7}");
    let producer = transactional_producer(&bootstrap, &id);
    producer.begin_transaction().unwrap();
    send(&producer, &topic, 0, "open");
    let shown_id = format!("{base}\\u{{1b}}[31m\\u{{1b}}]0;owned\\u{{7}}");
    let args = [
        "resolve",
        "kafka",
        "-b",
        &bootstrap,
        "--topic",
        &topic,
        "--partition",
        "0",
        "--start-offset",
        "0",
        "--force",
        "--reason",
        "test",
    ];

    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let report = run(indoubt().args(&dry));
    assert_eq!(report.code, 0, "{}\n{}", report.stdout, report.stderr);
    assert_no_raw_controls("resolve kafka report", &report.stdout);
    assert!(
        report.stdout.lines().any(|l| l
            .trim_start()
            .strip_prefix("transactional id")
            .is_some_and(|v| v.trim_start() == shown_id)),
        "{}",
        report.stdout
    );
    assert!(
        !report.stdout.contains("\\\\u{1b}"),
        "escaped twice:\n{}",
        report.stdout
    );
    let json = run(indoubt().args(["-o", "json"]).args(&dry));
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        json["transactional_id"],
        id.as_str(),
        "JSON keeps the raw value"
    );

    // The prompt, at a terminal: the evidence before "Type … to confirm".
    let prompt = on_terminal(100, &[], "no\n", &args);
    assert!(prompt.contains("to confirm"), "no prompt:\n{prompt}");
    assert_no_planted_controls("resolve kafka prompt", &prompt);
    assert!(prompt.contains(&shown_id), "{prompt}");

    // A finding quoting it (kafka lso) shows it escaped once, not `\\u{1b}`.
    let lso = run(indoubt().args(["kafka", "lso", "-b", &bootstrap, "--topic", &topic]));
    assert_no_raw_controls("kafka lso", &lso.stdout);
    assert!(
        !lso.stdout.contains("\\\\u{1b}"),
        "escaped twice:\n{}",
        lso.stdout
    );
    assert!(lso.stdout.contains("\\u{1b}[31m"), "{}", lso.stdout);
    producer.abort_transaction(Duration::from_secs(30)).unwrap();
}

/// A role of its own for one test, with any name (it is quoted), dropped at the end.
struct Role(String);

impl Drop for Role {
    fn drop(&mut self) {
        let _ = connect(&pg_url()).batch_execute(&format!(
            "DROP OWNED BY \"{0}\"; DROP ROLE IF EXISTS \"{0}\"",
            self.0
        ));
    }
}

#[test]
fn resolve_pg_shows_a_hostile_database_and_owner_escaped_in_report_and_prompt() {
    let owner = Role(format!("{}\u{1b}]0;owned\u{7}", unique("own")));
    connect(&pg_url())
        .batch_execute(&format!("CREATE ROLE \"{}\" LOGIN SUPERUSER", owner.0))
        .unwrap();
    let db = OwnDb::create(&format!("{} \u{1b}[31mred", unique("esc db")), "");
    let db_url = db.url();
    let gid = unique("hostile-db");
    connect(&db_url)
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; SET ROLE \"{}\"; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'",
            owner.0
        ))
        .unwrap();
    let args = [
        "resolve",
        "pg",
        &gid,
        "--pg",
        &pg_url(),
        "--rollback",
        "--reason",
        "test",
    ];

    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let report = run(indoubt().args(&dry));
    assert_eq!(report.code, 0, "{}\n{}", report.stdout, report.stderr);
    assert_escaped_once(
        "resolve pg report",
        &report.stdout,
        &["\\u{1b}[31mred", "\\u{1b}]0;owned\\u{7}"],
    );

    let prompt = on_terminal(100, &[], "no\n", &args);
    assert!(prompt.contains("to confirm"), "no prompt:\n{prompt}");
    assert_no_planted_controls("resolve pg prompt", &prompt);
    assert!(prompt.contains("\\u{1b}]0;owned\\u{7}"), "{prompt}");
}

/// A database of its own (any name; SQL_ASCII for any bytes in a GID or a name), dropped
/// with its prepared transactions (whatever their bytes) and the roles made in it, also
/// when the test fails half way.
struct OwnDb {
    name: String,
    roles: Vec<String>,
}

impl OwnDb {
    fn create(name: &str, options: &str) -> OwnDb {
        connect(&pg_url())
            .batch_execute(&format!("CREATE DATABASE \"{name}\" {options}"))
            .unwrap();
        OwnDb {
            name: name.to_string(),
            roles: Vec::new(),
        }
    }

    fn sql_ascii() -> OwnDb {
        OwnDb::create(
            &unique("sqlascii"),
            "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
        )
    }

    fn url(&self) -> String {
        let encoded: String = self
            .name
            .bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' => (b as char).to_string(),
                b => format!("%{b:02X}"),
            })
            .collect();
        replace_db(&pg_url(), &encoded)
    }

    /// A role whose name holds the bytes `hex` (not UTF-8): made from inside the
    /// SQL_ASCII database, where names are bytes.
    fn role(&mut self, hex: &str) {
        connect(&self.url())
            .batch_execute(&format!(
                "DO $$ BEGIN EXECUTE format('CREATE ROLE %I SUPERUSER', convert_from('\\x{hex}'::bytea, 'SQL_ASCII')); END $$"
            ))
            .unwrap();
        self.roles.push(hex.to_string());
    }
}

impl Drop for OwnDb {
    fn drop(&mut self) {
        if let Some(mut db) = common::rollback_prepared_in(&self.name, &self.url()) {
            for hex in &self.roles {
                let _ = db.batch_execute(&format!(
                    "DO $$ BEGIN EXECUTE format('DROP OWNED BY %1$I; DROP ROLE %1$I', convert_from('\\x{hex}'::bytea, 'SQL_ASCII')); END $$"
                ));
            }
        }
        let _ = connect(&pg_url()).batch_execute(&format!(
            "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
            self.name
        ));
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_gid_that_is_not_utf8_is_reported_escaped_and_resolved_by_its_escaped_form() {
    let mut odd = OwnDb::sql_ascii();
    // The owner's name: ASCII, then the byte 0xff (which is not UTF-8).
    let mut owner = unique("own").into_bytes();
    owner.push(0xff);
    odd.role(&hex(&owner));
    let suffix = unique("g");
    let mut gid = b"odd\xff\x1b[31m".to_vec();
    gid.extend_from_slice(suffix.as_bytes());
    let shown_gid = format!("odd\\xff\\u{{1b}}[31m{suffix}");
    connect(&odd.url())
        .batch_execute(&format!(
            "CREATE TABLE t (i int);
             BEGIN;
             DO $$ BEGIN EXECUTE format('SET ROLE %I', convert_from('\\x{}'::bytea, 'SQL_ASCII')); END $$;
             INSERT INTO t VALUES (1);
             PREPARE TRANSACTION E'odd\\xff\\x1b[31m{suffix}'",
            hex(&owner)
        ))
        .unwrap();
    // A real, old prepared transaction elsewhere must still be reported.
    let normal = TestDb::create("normal");
    let normal_gid = unique("old-normal");
    normal
        .admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{normal_gid}'"
        ))
        .unwrap();
    let select = [
        "pg",
        "prepared",
        "--pg",
        &pg_url(),
        "--database",
        &odd.name,
        "--database",
        &normal.name,
        "--warning-age",
        "0s",
        "--critical-age",
        "0s",
    ];

    let table = run(indoubt().args(select));
    assert_eq!(
        table.code, 2,
        "CRITICAL, not UNKNOWN:\n{}\n{}",
        table.stdout, table.stderr
    );
    assert!(table.stdout.contains(&shown_gid), "{}", table.stdout);
    assert!(table.stdout.contains(&normal_gid), "{}", table.stdout);
    assert_no_raw_controls("pg prepared", &table.stdout);
    assert!(
        !table.stdout.contains("\\\\xff"),
        "escaped twice:\n{}",
        table.stdout
    );
    let json = run(indoubt().args(["-o", "json"]).args(select));
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    let xacts = json["prepared_transactions"].as_array().unwrap();
    let listed = xacts
        .iter()
        .find(|x| x["database"] == odd.name.as_str())
        .unwrap();
    assert_eq!(
        listed["gid"],
        shown_gid.as_str(),
        "the escaped form stands in JSON"
    );
    assert!(
        listed["owner"].as_str().unwrap().ends_with("\\xff"),
        "{listed}"
    );
    assert_eq!(json["status"], "CRITICAL");

    // A session in the SQL_ASCII database itself takes the bytes as they are.
    let inside = run(indoubt().args([
        "pg",
        "prepared",
        "--pg",
        &odd.url(),
        "--database",
        &odd.name,
    ]));
    assert_eq!(inside.code, 0, "{}\n{}", inside.stdout, inside.stderr);
    assert!(inside.stdout.contains(&shown_gid), "{}", inside.stdout);

    let horizon = run(indoubt().args(["-o", "json", "pg", "horizon", "--pg", &pg_url()]));
    assert_ne!(horizon.code, 3, "{}\n{}", horizon.stdout, horizon.stderr);
    let horizon: Value = serde_json::from_str(&horizon.stdout).unwrap();
    assert!(
        horizon["holders"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == shown_gid.as_str()),
        "{horizon}"
    );

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  lab:\n    conninfo: {}\nthresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 0s\n",
            pg_url()
        ),
    )
    .unwrap();
    let check = run(indoubt().args([
        "--config",
        &config.to_string_lossy(),
        "-o",
        "json",
        "check",
        "--only",
        "pg",
    ]));
    let check: Value = serde_json::from_str(&check.stdout).unwrap();
    let prepared = check["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "pg prepared")
        .unwrap();
    assert_eq!(prepared["status"], "CRITICAL", "{check}");
    assert!(
        check["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["subject"].as_str().unwrap().contains(&normal_gid)),
        "{check}"
    );

    // Resolved by the escaped form, as shown; the statement is built from the exact bytes.
    let audit = dir.path().join("audit.jsonl");
    let resolved = run(indoubt().args([
        "-o",
        "json",
        "resolve",
        "pg",
        &shown_gid,
        "--pg",
        &pg_url(),
        "--rollback",
        "--yes",
        "--reason",
        "r",
        "--audit-log",
        &audit.to_string_lossy(),
    ]));
    assert_eq!(resolved.code, 0, "{}\n{}", resolved.stdout, resolved.stderr);
    let resolved: Value = serde_json::from_str(&resolved.stdout).unwrap();
    assert_eq!(resolved["outcome"]["status"], "ok", "{resolved}");
    assert_eq!(
        resolved["statement"],
        format!("ROLLBACK PREPARED E'odd\\xff\\x1b[31m{suffix}'").as_str()
    );
    let left: i64 = connect(&pg_url())
        .query_one(
            "SELECT count(*) FROM pg_prepared_xacts WHERE textsend(gid) = $1",
            &[&gid],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the odd GID was resolved");
}

#[test]
fn a_gid_argument_that_reads_two_ways_is_refused_unless_written_unambiguously() {
    let db = TestDb::create("ambiguous");
    let tag = unique("amb");
    let literal_gid = format!("a\\x41{tag}"); // a backslash, x, 4, 1
    let other_gid = format!("aA{tag}");
    // (Alone: in one batch with the BEGIN, the CREATE would join the prepared transaction.)
    db.admin().batch_execute("CREATE TABLE t (i int)").unwrap();
    for gid in [&literal_gid, &other_gid] {
        db.admin()
            .batch_execute(&format!(
                "BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION E'{}'",
                gid.replace('\\', "\\\\")
            ))
            .unwrap();
    }
    let resolve = |arg: &str| {
        run(indoubt().args([
            "-o",
            "json",
            "resolve",
            "pg",
            arg,
            "--pg",
            &pg_url(),
            "--rollback",
            "--dry-run",
        ]))
    };
    let both = resolve(&literal_gid);
    assert_eq!(both.code, 3, "{}\n{}", both.stdout, both.stderr);
    assert!(
        both.stderr.contains("names two prepared transactions"),
        "{}",
        both.stderr
    );
    // Written as indoubt shows it (backslash doubled), it names only the literal one.
    let shown = resolve(&format!("a\\\\x41{tag}"));
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["gid"], literal_gid.as_str());
    let plain = resolve(&other_gid);
    let plain: Value = serde_json::from_str(&plain.stdout).unwrap();
    assert_eq!(plain["gid"], other_gid.as_str());
}

/// node_exporter's textfile collector, the consumer `--prometheus-file` is for: it drops
/// (and logs) a sample whose series it has already collected.
struct NodeExporter {
    child: std::process::Child,
    port: u16,
    log: std::path::PathBuf,
}

impl NodeExporter {
    fn start(dir: &Path) -> NodeExporter {
        let port = free_port();
        let log = dir.join("node_exporter.log");
        let child = Command::new("prometheus-node-exporter")
            .args([
                &format!("--web.listen-address=127.0.0.1:{port}"),
                "--collector.disable-defaults",
                "--collector.textfile",
                &format!("--collector.textfile.directory={}", dir.display()),
            ])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("prometheus-node-exporter (Debian package prometheus-node-exporter)");
        NodeExporter { child, port, log }
    }

    fn scrape(&self) -> String {
        let started = Instant::now();
        loop {
            if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                write!(s, "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
                let mut body = String::new();
                s.read_to_string(&mut body).unwrap();
                return body;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "node_exporter did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn nagios_and_prometheus_escape_control_and_bidi_text_and_never_repeat_a_series() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "two-open", 1);
    // Two open transactions on one partition: two findings the old labels could not tell apart.
    let producers: Vec<_> = (0..2)
        .map(|i| {
            let p = transactional_producer(&bootstrap, &unique(&format!("open{i}")));
            p.begin_transaction().unwrap();
            send(&p, &topic, 0, "open");
            p
        })
        .collect();
    let db = TestDb::create("monitoring");
    let gid = format!("pay\u{202e}gpj.exe\u{1b}[31m\r\u{7}{}", unique("m"));
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("indoubt.yaml");
    std::fs::write(
        &config,
        format!(
            "postgres:\n  lab:\n    conninfo: {}\nkafka:\n  k:\n    bootstrap_servers: {bootstrap}\n    check_topic_regex: '^{topic}$'\nthresholds:\n  prepared:\n    warning_age: 0s\n    critical_age: 0s\n  hanging:\n    max_transaction_timeout: 0s\n",
            db.url()
        ),
    )
    .unwrap();
    let config = config.to_string_lossy().into_owned();
    let check = |format: &str| {
        run(indoubt().args([
            "--config", &config, "-o", format, "check", "--only", "pg,kafka",
        ]))
    };

    let nagios = check("nagios");
    assert_no_raw_controls("nagios", &nagios.stdout);
    assert!(
        nagios
            .stdout
            .contains("pay\\u{202e}gpj.exe\\u{1b}[31m\\r\\u{7}"),
        "{}",
        nagios.stdout
    );
    assert_eq!(
        nagios.stdout.lines().next().unwrap().matches('|').count(),
        1
    );

    let prometheus = check("prometheus");
    assert!(
        prometheus.stdout.contains("indoubt_finding_severity"),
        "{}",
        prometheus.stderr
    );
    assert_no_raw_controls("prometheus", &prometheus.stdout);
    assert!(
        !prometheus.stdout.contains('\u{1b}'),
        "{}",
        prometheus.stdout
    );
    promtool_accepts(&prometheus.stdout);

    // Every series once: node_exporter keeps every sample of the file.
    let textfiles = tempfile::tempdir().unwrap();
    std::fs::write(textfiles.path().join("indoubt.prom"), &prometheus.stdout).unwrap();
    let exporter = NodeExporter::start(textfiles.path());
    let scraped = exporter.scrape();
    let samples = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("indoubt_finding_severity{"))
            .count()
    };
    // Two open transactions on one partition: one series, their worst, and a count of two.
    let long = prometheus
        .stdout
        .lines()
        .filter(|l| l.contains("code=\"long_transaction\"") && l.contains(&topic))
        .count();
    assert_eq!(
        long, 1,
        "one series per partition, not per transaction:\n{}",
        prometheus.stdout
    );
    let counted: f64 = prometheus
        .stdout
        .lines()
        .filter(|l| l.starts_with("indoubt_findings{") && l.contains("code=\"long_transaction\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(counted, 2.0, "{}", prometheus.stdout);
    // The GID is in one label of one series (the oldest few transactions' ages), escaped.
    let gid_lines: Vec<&str> = prometheus
        .stdout
        .lines()
        .filter(|l| l.contains("gpj.exe"))
        .collect();
    assert_eq!(gid_lines.len(), 1, "{}", prometheus.stdout);
    assert!(
        gid_lines[0].starts_with("indoubt_pg_prepared_transaction_age_seconds{")
            && gid_lines[0].matches("gpj.exe").count() == 1,
        "{}",
        gid_lines[0]
    );
    let log = std::fs::read_to_string(&exporter.log).unwrap_or_default();
    assert_eq!(
        samples(&scraped),
        samples(&prometheus.stdout),
        "node_exporter dropped a repeated series: {log}\n{}",
        prometheus.stdout
    );
    assert!(!log.contains("collected before"), "{log}");
    for p in producers {
        p.abort_transaction(Duration::from_secs(30)).unwrap();
    }
}

#[test]
fn a_cell_past_the_limit_is_cut_with_a_marker_and_json_keeps_it_whole() {
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "huge-id", 1);
    let db = TestDb::create("huge");
    // One row whose id is the longest reconcile compares, 4096 bytes (past the 2000
    // characters of a cell), and which the topic lacks: it goes in the IDS cell.
    let query = "SELECT repeat('x', 4093) || 'end' AS id, $1::timestamptz + interval '1 second' AS created_at WHERE $2::timestamptz IS NOT NULL";
    let args = [
        "reconcile",
        "--pg",
        &db.url(),
        "--query",
        query,
        "-b",
        &bootstrap,
        "--topic",
        &topic,
    ];
    let table = run(indoubt().args(args));
    assert_eq!(table.code, 2, "{}\n{}", table.stdout, table.stderr);
    // The marker may be wrapped between its words like any text.
    let words: Vec<&str> = table.stdout.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .contains("more characters; -o json has all)"),
        "{}",
        &table.stdout[..table.stdout.len().min(3000)]
    );
    assert!(
        table.stdout.len() < 100_000,
        "the table is {} bytes",
        table.stdout.len()
    );
    let json = run(indoubt().args(["-o", "json"]).args(args));
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    let missing = json["missing"][0].as_str().unwrap();
    assert_eq!(missing.len(), 4096);
    assert!(missing.ends_with("xend"));
}

#[test]
fn a_terminal_of_0_columns_gets_columns_then_80() {
    let db = TestDb::create("zero-cols");
    let gid = format!("{}-{}", db.name, "a-long-global-transaction-id-".repeat(4));
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE t (i int); BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION '{gid}'"
        ))
        .unwrap();
    let args = [
        "--no-color",
        "pg",
        "prepared",
        "--pg",
        &pg_url(),
        "--database",
        &db.name,
        "--warning-age",
        "0s",
    ];
    // Laid out for `width`: every line fits, but the one holding the GID, which is wider
    // than either width and is kept whole on a line of its own to be copied; and the
    // width is used (a line longer than the narrower layout allows).
    let laid_out_for = |text: &str, width: usize, wider_than: usize| {
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines.iter().any(|l| l.contains(&gid)),
            "the GID is split:\n{text}"
        );
        let widest = lines
            .iter()
            .filter(|l| !l.contains(&gid))
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0);
        assert!(
            widest <= width && widest > wider_than,
            "laid out {widest} wide, not for {width} columns:\n{text}"
        );
    };
    laid_out_for(&on_terminal(0, &[], "", &args), 80, 60);
    laid_out_for(&on_terminal(0, &[("COLUMNS", "120")], "", &args), 120, 80);
}

#[test]
fn an_error_quoting_the_server_is_escaped_on_stderr() {
    // The server's own message names the database that does not exist.
    let url = replace_db(&pg_url(), &format!("{}%1B%5D0%3Bowned%07", unique("nope")));
    let out = run(indoubt().args(["pg", "prepared", "--pg", &url]));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("does not exist"), "{}", out.stderr);
    assert_escaped_once("stderr", &out.stderr, &["\\u{1b}]0;owned\\u{7}"]);
}
