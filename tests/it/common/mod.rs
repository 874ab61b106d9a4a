//! Test support: the running lab's settings, throwaway databases and clusters, and the indoubt binary.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

pub mod dbos;
pub mod kafka;
pub mod modulith;
pub mod mysql;
pub mod operaton;
pub mod schema;
pub mod seata;
pub mod tty;
pub mod xa;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// A SQL next step as (where its leading comment says it runs, the statement):
/// `/* in database shop of target lab */ SELECT 1` → ("in database shop of target lab",
/// "SELECT 1"). Panics on a statement with no such comment.
pub fn sql_placed(next: &str) -> (&str, &str) {
    let rest = next
        .strip_prefix("/* ")
        .unwrap_or_else(|| panic!("no leading comment: {next}"));
    let (place, statement) = rest
        .split_once(" */ ")
        .unwrap_or_else(|| panic!("an unclosed comment: {next}"));
    (place, statement)
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lab's settings, from the environment or tests/lab/.env. Tests never skip when the
/// lab is down: they fail and say how to start it.
pub fn lab(key: &str) -> String {
    static FILE: OnceLock<HashMap<String, String>> = OnceLock::new();
    if let Ok(value) = std::env::var(key) {
        return value;
    }
    let file = FILE.get_or_init(|| {
        let text = std::fs::read_to_string(repo_root().join("tests/lab/.env")).unwrap_or_default();
        text.lines()
            .filter_map(|line| line.strip_prefix("export "))
            .filter_map(|line| line.split_once('='))
            .map(|(k, v)| (k.to_string(), v.trim_matches('\'').to_string()))
            .collect()
    });
    match file.get(key) {
        Some(value) => value.clone(),
        None => panic!(
            "lab not running: run tests/lab/up ({key} is not set and tests/lab/.env lacks it)"
        ),
    }
}

pub fn pg_url() -> String {
    lab("INDOUBT_LAB_PG_URL")
}

/// A name no other test (or earlier run) uses.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}_{}_{}_{:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos & 0xfffff
    )
}

pub fn connect(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap_or_else(|e| {
        panic!("lab not running: run tests/lab/up (connecting to PostgreSQL failed: {e})")
    })
}

/// The URL of the lab server with another user, password and database.
pub fn url_for(user: &str, password: &str, db: &str) -> String {
    format!(
        "postgres://{user}:{password}@{}:{}/{db}?sslmode=disable",
        lab("INDOUBT_LAB_PG_HOST"),
        lab("INDOUBT_LAB_PG_PORT")
    )
}

/// SQL string literal (standard_conforming_strings = on).
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A database of the lab's own server for one test; dropped (with its prepared
/// transactions rolled back) when the test ends.
pub struct TestDb {
    pub name: String,
    admin_url: String,
}

impl TestDb {
    pub fn create(prefix: &str) -> TestDb {
        Self::create_on(&pg_url(), prefix)
    }

    pub fn create_on(admin_url: &str, prefix: &str) -> TestDb {
        let name = unique(prefix);
        connect(admin_url)
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("create database");
        TestDb {
            name,
            admin_url: admin_url.to_string(),
        }
    }

    /// The admin URL pointed at this database.
    pub fn url(&self) -> String {
        replace_db(&self.admin_url, &self.name)
    }

    pub fn admin(&self) -> postgres::Client {
        connect(&self.url())
    }
}

/// The query `reconcile` tests read their orders with.
pub const ORDERS_QUERY: &str =
    "SELECT id, created_at FROM orders WHERE created_at >= $1 AND created_at < $2";

/// A database of its own holding orders 1..=`count`, made two hours ago (inside
/// `reconcile`'s default window and past its settle time).
pub fn orders_db(prefix: &str, count: u32) -> TestDb {
    let db = TestDb::create(prefix);
    db.admin()
        .batch_execute(&format!(
            "CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
             INSERT INTO orders SELECT g, now() - interval '2 hours' FROM generate_series(1, {count}) g"
        ))
        .unwrap();
    db
}

pub fn replace_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let base = base.rsplit_once('/').map(|(b, _)| b).unwrap_or(base);
    if query.is_empty() {
        format!("{base}/{db}")
    } else {
        format!("{base}/{db}?{query}")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Ok(mut db) = postgres::Client::connect(&self.url(), postgres::NoTls) else {
            return;
        };
        if let Ok(rows) = db.query(
            "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()",
            &[],
        ) {
            for row in rows {
                let gid: String = row.get(0);
                let _ = db.batch_execute(&format!("ROLLBACK PREPARED {}", literal(&gid)));
            }
        }
        drop(db);
        if let Ok(mut admin) = postgres::Client::connect(&self.admin_url, postgres::NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// A login role of the lab's server for one test, dropped at the end.
pub struct TestRole {
    pub name: String,
    pub password: String,
}

impl TestRole {
    /// A pgpass file at `path` (mode 0600, as libpq requires) giving this role's password
    /// for the lab's server.
    #[cfg(unix)]
    pub fn write_pgpass(&self, path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let line = format!(
            "127.0.0.1:{}:*:{}:{}\n",
            lab("INDOUBT_LAB_PG_PORT"),
            self.name,
            self.password
        );
        std::fs::write(path, line).expect("pgpass");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .expect("pgpass mode");
    }

    pub fn create(prefix: &str, attributes: &str) -> TestRole {
        Self::with_password(prefix, attributes, &format!("pw-{}-S3cret", unique("x")))
    }

    /// The same with a password of the test's choosing (quotes, spaces, '@' and all).
    pub fn with_password(prefix: &str, attributes: &str, password: &str) -> TestRole {
        let name = unique(prefix);
        let password = password.to_string();
        connect(&pg_url())
            .batch_execute(&format!(
                "CREATE ROLE \"{name}\" LOGIN PASSWORD {} {attributes}",
                literal(&password)
            ))
            .expect("create role");
        TestRole { name, password }
    }
}

impl Drop for TestRole {
    fn drop(&mut self) {
        if let Ok(mut admin) = postgres::Client::connect(&pg_url(), postgres::NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP OWNED BY \"{0}\" CASCADE; DROP ROLE IF EXISTS \"{0}\"",
                self.name
            ));
        }
    }
}

/// A PostgreSQL cluster of its own, for tests that restart the server or need it empty.
pub struct PrivateCluster {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub password: String,
}

impl PrivateCluster {
    /// A cluster where nothing else assigns xids or holds snapshots (autovacuum off).
    pub fn start_quiet() -> PrivateCluster {
        let cluster = Self::start();
        let mut admin = connect(&cluster.url("postgres"));
        admin
            .batch_execute("ALTER SYSTEM SET autovacuum = off")
            .expect("autovacuum off");
        admin
            .batch_execute("SELECT pg_reload_conf()")
            .expect("reload");
        cluster
    }

    pub fn start() -> PrivateCluster {
        let dir = tempfile::Builder::new()
            .prefix("indoubt-pg-")
            .tempdir()
            .expect("tempdir");
        let port = free_port();
        let password = format!("pw{}", unique("c"));
        run_lab_script(
            "pg-cluster",
            &[
                "init",
                &dir.path().to_string_lossy(),
                &port.to_string(),
                &password,
            ],
        );
        let cluster = PrivateCluster {
            dir,
            port,
            password,
        };
        cluster.ctl("start");
        cluster
    }

    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://indoubt_admin:{}@127.0.0.1:{}/{db}?sslmode=disable",
            self.password, self.port
        )
    }

    pub fn ctl(&self, action: &str) {
        run_lab_script("pg-cluster", &[action, &self.dir.path().to_string_lossy()]);
    }

    /// A streaming standby of this cluster (pg_basebackup, physical slot `slot`,
    /// hot_standby_feedback on, feedback every second), started.
    pub fn standby(&self, slot: &str) -> PrivateCluster {
        let dir = tempfile::Builder::new()
            .prefix("indoubt-pg-")
            .tempdir()
            .expect("tempdir");
        let port = free_port();
        run_lab_script(
            "pg-cluster",
            &[
                "standby",
                &dir.path().to_string_lossy(),
                &port.to_string(),
                &self.port.to_string(),
                &self.password,
                slot,
            ],
        );
        let conf = dir.path().join("data/postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).expect("standby config");
        text.push_str("wal_receiver_status_interval = 1s\n");
        std::fs::write(&conf, text).expect("standby config");
        let standby = PrivateCluster {
            dir,
            port,
            password: self.password.clone(),
        };
        standby.ctl("start");
        standby
    }
}

/// Polls `check` every 100ms for up to 30s; panics with `what` if it never holds.
pub fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !check() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new(repo_root().join("tests/lab/pg-cluster"))
            .args(["stop", &self.dir.path().to_string_lossy()])
            .env("INDOUBT_LAB_PG_BIN", lab("INDOUBT_LAB_PG_BIN"))
            .status();
    }
}

pub fn run_lab_script(script: &str, args: &[&str]) {
    run_lab_script_with(script, args, &[]);
}

/// As `run_lab_script`, with more environment variables for the script.
pub fn run_lab_script_with(script: &str, args: &[&str], env: &[(String, String)]) {
    let out = std::process::Command::new(repo_root().join("tests/lab").join(script))
        .args(args)
        .env("INDOUBT_LAB_PG_BIN", lab("INDOUBT_LAB_PG_BIN"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run lab script");
    assert!(
        out.status.success(),
        "{script} {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// The indoubt binary, isolated from the developer's own config and PG* settings.
pub fn indoubt() -> assert_cmd::Command {
    assert_cmd::Command::from_std(indoubt_process())
}

/// The same, as a process to spawn and watch while it runs.
pub fn indoubt_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("indoubt"));
    isolate(&mut cmd);
    cmd
}

/// The developer's settings a command (indoubt, or what runs it: script, tmux) must not
/// inherit: PG* connection variables, indoubt's config, colour and width.
pub const DEVELOPER_VARS: [&str; 16] = [
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGSYSCONFDIR",
    "PGHOST",
    "PGHOSTADDR",
    "PGPORT",
    "PGUSER",
    "PGDATABASE",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSSLMODE",
    "PGSSLROOTCERT",
    "INDOUBT_CONFIG",
    "NO_COLOR",
    "COLUMNS",
    "XDG_CONFIG_HOME",
];

/// Removes [`DEVELOPER_VARS`] and gives the command an empty HOME.
pub fn isolate(cmd: &mut std::process::Command) {
    for var in DEVELOPER_VARS {
        cmd.env_remove(var);
    }
    cmd.env("HOME", empty_home());
}

/// A HOME without config, pgpass or root.crt, shared by all tests of a process.
fn empty_home() -> &'static Path {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().expect("tempdir"))
        .path()
}

pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut assert_cmd::Command) -> Outcome {
    let out = cmd
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("run indoubt");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs indoubt with `-o json` and parses its report into the strict schema struct `T`.
pub fn report<T: serde::de::DeserializeOwned>(args: &[&str]) -> (T, Outcome) {
    let out = run(indoubt().args(["-o", "json"]).args(args));
    let report = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not the documented JSON ({e}):\n{}\nstderr: {}",
            out.stdout, out.stderr
        )
    });
    (report, out)
}

/// Runs `indoubt -o json --config CONFIG ARGS…` and its JSON (Null when it printed none).
pub fn json_with(config: &std::path::Path, args: &[&str]) -> (serde_json::Value, Outcome) {
    let out = run(indoubt()
        .args(["-o", "json", "--config"])
        .arg(config)
        .args(args));
    (
        serde_json::from_str(&out.stdout).unwrap_or(serde_json::Value::Null),
        out,
    )
}

/// The findings of `code` in a report's JSON.
pub fn findings_of<'a>(report: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["code"] == code)
        .collect()
}

/// Runs `script` with `sh` as the unprivileged user `nobody`: the attacker of the file
/// tests, planting links in a directory it can write.
pub fn as_nobody(script: &str) {
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "sh",
            "-c",
            script,
        ])
        .output()
        .expect("run setpriv");
    assert!(
        out.status.success(),
        "as nobody: {script}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A directory other users can write (`mode`: 0o777 as a careless shared directory,
/// 0o1777 as /tmp), named `name` inside a private directory others may only pass
/// through, and a root-only file elsewhere for them to aim links at.
pub struct AttackedDir {
    root: tempfile::TempDir,
    pub dir: PathBuf,
    victims: tempfile::TempDir,
    pub victim: PathBuf,
}

pub const PRECIOUS: &str = "root's precious file\n";

impl AttackedDir {
    pub fn new(mode: u32) -> AttackedDir {
        Self::named("shared", mode)
    }

    pub fn named(name: &str, mode: u32) -> AttackedDir {
        use std::os::unix::fs::PermissionsExt;
        let chmod = |path: &Path, mode: u32| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
        };
        let root = tempfile::tempdir().expect("tempdir");
        chmod(root.path(), 0o755);
        let dir = root.path().join(name);
        std::fs::create_dir(&dir).expect("mkdir");
        chmod(&dir, mode);
        let victims = tempfile::tempdir().expect("tempdir");
        let victim = victims.path().join("victim");
        std::fs::write(&victim, PRECIOUS).expect("victim");
        AttackedDir {
            root,
            dir,
            victims,
            victim,
        }
    }

    /// The directory holding the attacked one.
    pub fn parent(&self) -> &Path {
        self.root.path()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// A path next to the victim that does not exist (for dangling links).
    pub fn not_yet(&self) -> PathBuf {
        self.victims.path().join("created-by-the-attack")
    }

    /// As `nobody`: links named `names` in the directory, pointing at `target`.
    pub fn plant_links(&self, target: &Path, names: &[&str]) {
        let mut script = format!("cd '{}' && ", self.dir.display());
        for name in names {
            script.push_str(&format!("ln -s '{}' '{name}' && ", target.display()));
        }
        script.push_str("true");
        as_nobody(&script);
    }

    /// As `nobody`: a link `{prefix}{pid}{suffix}` for every pid the kernel can hand out
    /// (the temporary name of a writer that names its file after its pid), or, where
    /// pid_max is in the millions, for the next 100000 pids.
    pub fn plant_links_for_every_pid(&self, target: &Path, prefix: &str, suffix: &str) {
        let read =
            |file: &str| -> Option<u64> { std::fs::read_to_string(file).ok()?.trim().parse().ok() };
        let pid_max = read("/proc/sys/kernel/pid_max").unwrap_or(32768);
        let (from, to) = if pid_max <= 200_000 {
            (1, pid_max)
        } else {
            let last = read("/proc/sys/kernel/ns_last_pid").unwrap_or(1);
            (last, (last + 100_000).min(pid_max))
        };
        as_nobody(&format!(
            "cd '{}' && perl -e 'for my $i ({from}..{to}) {{ symlink(\"{}\", \"{prefix}$i{suffix}\") or die \"$i: $!\" }}'",
            self.dir.display(),
            target.display()
        ));
    }

    /// The victim is untouched, and nothing was created where a dangling link pointed.
    pub fn assert_untouched(&self) {
        assert_eq!(
            std::fs::read_to_string(&self.victim).expect("victim"),
            PRECIOUS,
            "the link's target was written through"
        );
        assert!(
            !self.not_yet().exists(),
            "a dangling link's target was created"
        );
    }
}

/// A command line as a finding printed it, run by a shell (indoubt on the PATH, the
/// developer's settings removed), with `-o json` added (before a `--`): its report and
/// exit code.
pub fn run_printed(line: &str) -> (serde_json::Value, Option<i32>) {
    run_printed_in(line, std::path::Path::new("."))
}

/// The same, in the working directory `dir` (a command that writes a relative file).
pub fn run_printed_in(line: &str, dir: &std::path::Path) -> (serde_json::Value, Option<i32>) {
    let bin = assert_cmd::cargo::cargo_bin("indoubt");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = std::process::Command::new("sh");
    // Before a `--` (after it, everything is an operand: a GID starting with `-`).
    let line = match line.split_once(" -- ") {
        Some((options, operands)) => format!("{options} -o json -- {operands}"),
        None => format!("{line} -o json"),
    };
    cmd.args(["-c", &line]);
    isolate(&mut cmd);
    let out = cmd.env("PATH", path).current_dir(dir).output().expect("sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    (
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{line}: {e}: {stdout}")),
        out.status.code(),
    )
}

/// Table output as a shell reads it: a next command broken over lines with ` \`
/// continuations is one line again.
pub fn as_typed(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.to_string();
        while let Some(head) = line.strip_suffix(" \\") {
            let rest = lines.next().unwrap_or_default().trim_start();
            line = format!("{head} {rest}");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A process run to its end, with its peak memory.
pub struct Measured {
    pub code: Option<i32>,
    pub stderr: String,
    /// The most the process's peak resident set (VmHWM) was seen at, in KiB.
    pub peak_rss_kib: u64,
    pub elapsed: std::time::Duration,
}

/// Runs `cmd` (stdout discarded, stderr kept), reading its VmHWM from /proc every few
/// milliseconds until it exits; it is killed past `limit`. (Not wait4's ru_maxrss: Linux
/// carries the spawning process's own peak over the exec into it, and this test process
/// is large.)
pub fn run_measured(cmd: &mut std::process::Command, limit: std::time::Duration) -> Measured {
    use std::io::Read;
    let started = std::time::Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn indoubt");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        // Read before asking whether it exited: the last sample is as late as can be.
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    Measured {
        code: status.code(),
        stderr: reader.join().expect("stderr reader"),
        peak_rss_kib: peak,
        elapsed: started.elapsed(),
    }
}

/// Rolls back every prepared transaction of the database `name` (reached at `url`), by
/// its GID's exact bytes, on the session it returns (None: the database cannot be
/// entered). The bytes are read from the admin's UTF-8 database: a SQL_ASCII database's
/// session would be refused bytes that are not UTF-8.
pub fn rollback_prepared_in(name: &str, url: &str) -> Option<postgres::Client> {
    let gids = postgres::Client::connect(&pg_url(), postgres::NoTls)
        .and_then(|mut c| {
            c.query(
                "SELECT textsend(gid) FROM pg_prepared_xacts WHERE database = $1",
                &[&name],
            )
        })
        .unwrap_or_default();
    let mut db = postgres::Client::connect(url, postgres::NoTls).ok()?;
    for row in gids {
        let gid: Vec<u8> = row.get(0);
        let literal = indoubt::resolve::apply::pg::literal(&gid);
        let _ = db.batch_execute(&format!("ROLLBACK PREPARED {literal}"));
    }
    Some(db)
}

/// `indoubt --config CONFIG -o json ARGS…`, paused at the failpoint `point` while
/// `meanwhile` runs (see [`paused_at`]).
pub fn json_paused(
    config: &std::path::Path,
    args: &[&str],
    point: &str,
    meanwhile: impl FnOnce(),
) -> (serde_json::Value, Outcome) {
    let mut cmd = indoubt_process();
    cmd.arg("--config")
        .arg(config)
        .args(["-o", "json"])
        .args(args);
    paused_at(cmd, point, meanwhile)
}

/// `cmd` (indoubt and its arguments, `-o json` among them) paused at the failpoint
/// `point` (debug builds: `INDOUBT_FAILPOINT=pause:POINT`): `meanwhile` runs while it
/// waits there, then it goes on. Its report and outcome.
pub fn paused_at(
    mut cmd: std::process::Command,
    point: &str,
    meanwhile: impl FnOnce(),
) -> (serde_json::Value, Outcome) {
    use std::io::{BufRead, Read, Write};
    use std::process::Stdio;
    let mut child = cmd
        .env("INDOUBT_FAILPOINT", format!("pause:{point}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read all along: a report larger than a pipe holds would block the child.
    let mut stdout_pipe = child.stdout.take().unwrap();
    let stdout_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout_pipe.read_to_string(&mut text);
        text
    });
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "it ended before the failpoint {point}: {said}"
        );
        said.push_str(&line);
        if line.contains(&format!("failpoint {point}: waiting")) {
            break;
        }
    }
    meanwhile();
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    stderr.read_to_string(&mut said).unwrap();
    let status = child.wait().unwrap();
    let stdout = stdout_reader.join().unwrap();
    (
        serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null),
        Outcome {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr: said,
        },
    )
}

/// Asserts that `promtool check metrics` (Debian's package prometheus) accepts an
/// exposition.
pub fn promtool_accepts(exposition: &str) {
    use std::io::Write;
    use std::process::Stdio;
    let mut promtool = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian package prometheus)");
    promtool
        .stdin
        .take()
        .unwrap()
        .write_all(exposition.as_bytes())
        .unwrap();
    let verdict = promtool.wait_with_output().unwrap();
    assert!(
        verdict.status.success(),
        "promtool refused the exposition: {}{}\n{exposition}",
        String::from_utf8_lossy(&verdict.stdout),
        String::from_utf8_lossy(&verdict.stderr)
    );
}
