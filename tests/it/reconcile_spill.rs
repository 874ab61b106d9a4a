//! `indoubt reconcile --memory`: past the budget the ids spill to sorted runs in a
//! scratch directory of the run's own, with the answer the in-memory path gives; the
//! directory goes on exit and on Ctrl-C; a full disk is an error, never an answer.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::kafka::*;
use common::*;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Numeric ids, and every tenth as text ("A-<n>"), so both kinds spill.
const QUERY: &str = "SELECT CASE WHEN id % 10 = 0 THEN 'A-' || id ELSE id::text END, created_at \
                     FROM orders WHERE created_at >= $1 AND created_at < $2";

/// `rows` orders two hours old, and a topic with the events of most of them: every 97th
/// missing, every 101st twice, and events for orders that do not exist.
fn shop(rows: u32) -> (TestDb, String, String) {
    let db = orders_db("spill", rows);
    let bootstrap = lab("INDOUBT_LAB_KAFKA_BOOTSTRAP");
    let topic = create_topic(&bootstrap, "orders.spill", 4);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .set("linger.ms", "20")
        .set("queue.buffering.max.messages", "1000000")
        .create()
        .unwrap();
    let key = |n: u32| {
        if n.is_multiple_of(10) {
            format!("A-{n}")
        } else {
            n.to_string()
        }
    };
    let send = |id: String| loop {
        match producer.send(BaseRecord::<String, str>::to(&topic).key(&id).payload("{}")) {
            Ok(()) => break,
            Err((_, _)) => {
                producer.poll(Duration::from_millis(10));
            }
        }
    };
    for n in 1..=rows {
        if n % 97 != 0 {
            send(key(n));
        }
        if n % 101 == 0 {
            send(key(n));
        }
    }
    for n in rows + 1..rows + 50 {
        send(key(n));
    }
    producer.flush(Duration::from_secs(60)).unwrap();
    (db, topic, bootstrap)
}

/// Over one window, fixed when the test starts, so two runs compare the same rows.
fn reconcile(db: &TestDb, bootstrap: &str, topic: &str, extra: &[&str]) -> (Value, Outcome) {
    static WINDOW: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    let (since, until) = WINDOW.get_or_init(|| {
        let now = chrono::Utc::now() + chrono::Duration::minutes(10);
        let since = now - chrono::Duration::hours(3);
        (since.to_rfc3339(), now.to_rfc3339())
    });
    let out = run(indoubt()
        .args([
            "-o",
            "json",
            "reconcile",
            "--pg",
            &db.url(),
            "--query",
            QUERY,
        ])
        .args(["-b", bootstrap, "--topic", topic, "--settle", "0s"])
        .args(["--since", since, "--until", until])
        .args(extra));
    (
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
        out,
    )
}

/// The report without what differs by design between two runs: the budget, the bytes
/// spilled and when it was made.
fn answer(report: &Value) -> Value {
    let mut answer = report.clone();
    for field in ["memory_bytes", "spilled_bytes", "generated_at"] {
        answer.as_object_mut().expect("a JSON report").remove(field);
    }
    answer
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_tiny_budget_spills_and_gives_exactly_the_answer_of_memory() {
    let (db, topic, bootstrap) = shop(300_000);
    let spill = tempfile::tempdir().unwrap();
    let spill_dir = spill.path().to_str().unwrap();
    let (in_memory, out) = reconcile(&db, &bootstrap, &topic, &[]);
    assert_eq!(out.code, 2, "missing events are CRITICAL\n{}", out.stderr);
    assert_eq!(in_memory["spilled_bytes"], 0, "300k ids fit in 512MiB");
    assert_eq!(in_memory["memory_bytes"], 512 << 20);
    let (spilled, out) = reconcile(
        &db,
        &bootstrap,
        &topic,
        &["--memory", "1MiB", "--spill-dir", spill_dir, "-v"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    let bytes = spilled["spilled_bytes"].as_u64().unwrap();
    assert!(
        bytes > 1 << 20,
        "300k ids on both sides outgrow 1MiB: {bytes} spilled"
    );
    assert!(
        out.stderr.contains("spilled to") && out.stderr.contains(spill_dir),
        "-v says where and how much: {}",
        out.stderr
    );
    let (spilled, in_memory) = (answer(&spilled), answer(&in_memory));
    for (field, value) in in_memory.as_object().unwrap() {
        if field == "oldest_missing_age_seconds" {
            // Read by the server's clock at each run's end: the same row, seconds apart.
            let (a, b) = (spilled[field].as_f64().unwrap(), value.as_f64().unwrap());
            assert!((a - b).abs() < 60.0, "{field}: spilled {a} in memory {b}");
            continue;
        }
        assert!(
            spilled[field] == *value,
            "{field} differs: spilled {} in memory {}",
            spilled[field],
            value
        );
    }
    let without_age = |mut v: serde_json::Value| {
        v.as_object_mut()
            .unwrap()
            .remove("oldest_missing_age_seconds");
        v
    };
    assert_eq!(without_age(spilled.clone()), without_age(in_memory.clone()));
    // Every 97th never published, unless it is a 101st too (published once then).
    let lost = (1..=300_000u32).filter(|n| n.is_multiple_of(97) && !n.is_multiple_of(101));
    let mut texts: Vec<String> = lost
        .clone()
        .filter(|n| n % 10 == 0)
        .map(|n| format!("A-{n}"))
        .collect();
    texts.sort();
    let expected: Vec<String> = lost
        .filter(|n| n % 10 != 0)
        .map(|n| n.to_string())
        .chain(texts)
        .collect();
    assert_eq!(
        in_memory["missing"],
        serde_json::json!(expected),
        "numbers in order, then texts"
    );
    assert_eq!(
        in_memory["duplicated_count"],
        300_000 / 101 - 300_000 / 9797
    );
    assert_eq!(in_memory["extra_count"], 49);
    assert_eq!(
        entries(spill.path()),
        Vec::<String>::new(),
        "the scratch directory is removed on exit"
    );
}

#[test]
fn a_full_disk_is_an_error_never_a_partial_answer() {
    let (db, topic, bootstrap) = shop(100_000);
    let mount = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"])
        .arg(mount.path())
        .status()
        .expect("run mount (the tests run as root, as .ci/run does)");
    assert!(status.success(), "mounting a 64k tmpfs for the full disk");
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(mount.path());
    let (report, out) = reconcile(
        &db,
        &bootstrap,
        &topic,
        &[
            "--memory",
            "1MiB",
            "--spill-dir",
            mount.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 3, "UNKNOWN, not an answer\n{}", out.stderr);
    assert_eq!(report, Value::Null, "no report on stdout: {}", out.stdout);
    assert!(
        out.stderr.contains("ran out of space") && out.stderr.contains("hint: free space there"),
        "{}",
        out.stderr
    );
    assert_eq!(entries(mount.path()), Vec::<String>::new());
}

#[test]
fn ctrl_c_while_spilling_removes_the_scratch_directory() {
    let (db, topic, bootstrap) = shop(1_000);
    // Three million rows of the database's own: the spill starts in the first tenth.
    let query = "SELECT g, now() - interval '2 hours' FROM generate_series(1, 3000000) g \
                 WHERE now() - interval '2 hours' >= $1 AND now() - interval '2 hours' < $2";
    let spill = tempfile::tempdir().unwrap();
    let mut child = indoubt_process()
        .args(["reconcile", "--pg", &db.url(), "--query", query])
        .args(["-b", &bootstrap, "--topic", &topic, "--since", "3h"])
        .args(["--memory", "1MiB", "--spill-dir"])
        .arg(spill.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while entries(spill.path()).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "reconcile ended before it spilled"
        );
        assert!(Instant::now() < deadline, "no scratch directory appeared");
        std::thread::sleep(Duration::from_millis(2));
    }
    let scratch = entries(spill.path());
    assert!(scratch[0].starts_with("indoubt-reconcile-"), "{scratch:?}");
    let mode = std::fs::metadata(spill.path().join(&scratch[0]))
        .unwrap()
        .permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o700,
        "nobody else can look in"
    );
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(entries(spill.path()), Vec::<String>::new());
}

#[test]
fn a_budget_past_1gib_is_refused_with_why() {
    let out = run(indoubt().args([
        "reconcile",
        "--pg",
        "postgres://localhost/x",
        "--query",
        "SELECT 1",
        "-b",
        "localhost:1",
        "--topic",
        "t",
        "--memory",
        "2GiB",
    ]));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("--memory 2GiB is out of range")
            && out
                .stderr
                .contains("hint: past the budget reconcile spills"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_spill_directory_others_can_write_is_refused_before_anything_is_read() {
    // As a Kubernetes emptyDir comes: 0777, not sticky.
    let open = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        open.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let out = run(indoubt()
        .args(["reconcile", "--pg", "postgres://nobody@127.0.0.1:1/x"])
        .args(["--query", "SELECT 1", "-b", "127.0.0.1:1", "--topic", "t"])
        .arg("--spill-dir")
        .arg(open.path()));
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("is writable by")
            && out
                .stderr
                .contains("hint: give --spill-dir a directory of your own"),
        "refused at once, not at the first spill (nor a connection error): {}",
        out.stderr
    );
}

/// A --spill-dir that is a symbolic link is refused as the audit directory is: whoever
/// can change the link decides where the runs go.
#[test]
fn a_linked_spill_directory_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(indoubt()
        .args(["reconcile", "--pg", "postgres://nobody@127.0.0.1:1/x"])
        .args(["--query", "SELECT 1", "-b", "127.0.0.1:1", "--topic", "t"])
        .arg("--spill-dir")
        .arg(&link));
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("is a symbolic link")
            && out
                .stderr
                .contains("hint: give --spill-dir a directory of your own"),
        "refused at once: {}",
        out.stderr
    );
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
}
