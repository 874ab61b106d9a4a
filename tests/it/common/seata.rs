//! The lab's Apache Seata coordinators (tests/lab/seata/server, their stores in the lab's
//! PostgreSQL and MariaDB) and the client harness that leaves its stuck states (tests/lab/seata/run).

use super::*;
use std::collections::BTreeMap;

/// The running coordinator with its store in PostgreSQL: (its transaction service
/// `127.0.0.1:PORT`, its store's URL). Started once (the script is idempotent).
pub fn coordinator() -> (String, String) {
    static STARTED: OnceLock<(String, String)> = OnceLock::new();
    STARTED.get_or_init(|| started("pg", "PG")).clone()
}

/// The running coordinator with its store in the lab's MariaDB (database `seata`): its
/// transaction service and its store's URL (no password: the lab's option file has it).
pub fn coordinator_mariadb() -> (String, String) {
    static STARTED: OnceLock<(String, String)> = OnceLock::new();
    STARTED
        .get_or_init(|| started("mariadb", "MARIADB"))
        .clone()
}

/// Starts one of the lab's coordinators (`pg` or `mariadb`; idempotent) and reads its
/// `INDOUBT_LAB_SEATA_<ENV>_TC` and `_STORE_URL` from what the script prints.
fn started(instance: &str, env_name: &str) -> (String, String) {
    let out = std::process::Command::new(repo_root().join("tests/lab/seata/server"))
        .args(["start", instance])
        .output()
        .expect("run tests/lab/seata/server");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "tests/lab/seata/server start {instance} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let env: HashMap<String, String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches('\'').to_string()))
        .collect();
    (
        env[&format!("INDOUBT_LAB_SEATA_{env_name}_TC")].clone(),
        env[&format!("INDOUBT_LAB_SEATA_{env_name}_STORE_URL")].clone(),
    )
}

/// One line the harness printed: its kind and its `key=value` fields.
pub struct Line {
    pub kind: String,
    pub fields: BTreeMap<String, String>,
}

/// Runs the harness (`tests/lab/seata/run COMMAND key=value...`) and returns its lines
/// (`halting: WHERE` among them when it halted the JVM where it was told to).
pub fn stuck(command: &str, args: &[String]) -> Vec<Line> {
    harness(&["tests/lab/seata/run"], command, args)
}

/// Runs a lab harness (its script and the script's own options, then `COMMAND
/// key=value...`) that prints `KIND key=value...` lines and exits 0 after `done`, 1
/// after `halting:` (the JVM halted on purpose); returns its lines.
pub fn harness(script: &[&str], command: &str, args: &[String]) -> Vec<Line> {
    let out = std::process::Command::new(repo_root().join(script[0]))
        .args(&script[1..])
        .arg(command)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", script[0]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let halted = out.status.code() == Some(1) && text.lines().any(|l| l.starts_with("halting:"));
    assert!(
        out.status.success() || halted,
        "{} {command} failed:\n{text}\n{}",
        script.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .filter_map(|line| {
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            let kind = kind.trim_end_matches(':');
            let (fields, message) = match rest.split_once("message=") {
                Some((fields, message)) => (fields, Some(message)),
                None => (rest, None),
            };
            let mut map: BTreeMap<String, String> = fields
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            if let Some(m) = message {
                map.insert("message".into(), m.to_string());
            }
            (!kind.is_empty()).then(|| Line {
                kind: kind.to_string(),
                fields: map,
            })
        })
        .collect()
}

/// The first line of `kind`, or a failure that shows them all.
pub fn line<'a>(lines: &'a [Line], kind: &str) -> &'a Line {
    lines.iter().find(|l| l.kind == kind).unwrap_or_else(|| {
        let all: Vec<String> = lines
            .iter()
            .map(|l| format!("{} {:?}", l.kind, l.fields))
            .collect();
        panic!("the harness printed no {kind} line: {all:#?}")
    })
}

/// Waits until the coordinator whose store is this PostgreSQL URL has ended the global
/// (its row gone from `global_table`).
pub fn wait_ended(store: &str, xid: &str) {
    let mut store = postgres::Client::connect(store, postgres::NoTls).unwrap();
    wait_for("the global ended by the coordinator's retry", || {
        store
            .query("SELECT 1 FROM global_table WHERE xid = $1", &[&xid])
            .unwrap()
            .is_empty()
    });
}
