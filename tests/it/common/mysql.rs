//! The lab's MariaDB for tests: throwaway databases, statements through the mariadb
//! client (its option file holds the password), and sessions held open on purpose.

use super::{free_port, lab, run_lab_script, unique};
use std::io::Write;
use std::process::{Child, Command, Stdio};

/// `mysql://indoubt_admin@127.0.0.1:PORT/` and the option file with its password.
pub fn url() -> String {
    lab("INDOUBT_LAB_MYSQL_URL")
}

pub fn cnf() -> String {
    lab("INDOUBT_LAB_MYSQL_CNF")
}

/// `--mysql URL --defaults-file CNF`, as the tests address the lab's server.
pub fn target_args() -> Vec<String> {
    vec!["--mysql".into(), url(), "--defaults-file".into(), cnf()]
}

fn client() -> Command {
    client_of(&cnf())
}

fn client_of(cnf: &str) -> Command {
    let mut cmd = Command::new("mariadb");
    cmd.arg(format!("--defaults-file={cnf}"))
        .args(["--batch", "--skip-column-names"]);
    cmd
}

/// Runs statements in one session that ends when they do; panics on an error.
pub fn sql(statements: &str) -> String {
    sql_on(&cnf(), statements)
}

/// The same, on the server this client option file names.
fn sql_on(cnf: &str, statements: &str) -> String {
    let out = client_of(cnf)
        .args(["-e", statements])
        .output()
        .expect("running mariadb");
    assert!(
        out.status.success(),
        "mariadb -e {statements:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A database of its own with a table `orphans (id BIGINT PRIMARY KEY, v VARCHAR(64))`
/// and one row, id 1.
pub struct MysqlDb {
    pub name: String,
}

impl MysqlDb {
    pub fn create(prefix: &str) -> MysqlDb {
        let name = unique(prefix);
        sql(&format!(
            "CREATE DATABASE {name}; CREATE TABLE {name}.orphans (id BIGINT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB; INSERT INTO {name}.orphans VALUES (1, 'one');"
        ));
        MysqlDb { name }
    }

    /// The JDBC URL the transaction-manager harness enlists it with.
    pub fn jdbc(&self) -> String {
        format!(
            "jdbc:mariadb://{}:{}/{}?user={}&password={}",
            lab("INDOUBT_LAB_MYSQL_HOST"),
            lab("INDOUBT_LAB_MYSQL_PORT"),
            self.name,
            lab("INDOUBT_LAB_MYSQL_USER"),
            lab("INDOUBT_LAB_MYSQL_PASSWORD")
        )
    }

    /// How many rows `orphans` has, as a new session sees it.
    pub fn rows(&self) -> usize {
        self.rows_of("orphans")
    }

    /// How many rows a table of this database has, as a new session sees it.
    pub fn rows_of(&self, table: &str) -> usize {
        sql(&format!("SELECT count(*) FROM {}.{table}", self.name))
            .trim()
            .parse()
            .unwrap()
    }

    /// A branch that changes row 1 and is prepared, its session gone after XA PREPARE.
    pub fn prepare_detached(&self, xid: &str) {
        sql(&format!(
            "XA START {xid}; UPDATE {db}.orphans SET v = 'changed' WHERE id = 1; XA END {xid}; XA PREPARE {xid};",
            db = self.name
        ));
    }

    /// The same, its session kept open (and the branch held by it) until the child is killed.
    pub fn prepare_held(&self, xid: &str) -> Held {
        let mut child = client()
            // Each result written as it comes, not when stdin ends.
            .arg("--unbuffered")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("running mariadb");
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            "XA START {xid}; UPDATE {db}.orphans SET v = 'held' WHERE id = 1; XA END {xid}; XA PREPARE {xid}; SELECT 'prepared';",
            db = self.name
        )
        .unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
        assert_eq!(line.trim(), "prepared");
        Held {
            child,
            _stdin: stdin,
        }
    }
}

/// A session holding a prepared branch; it disconnects when dropped.
pub struct Held {
    child: Child,
    _stdin: std::process::ChildStdin,
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Rolls these branches back and drops the database when dropped, so a test that fails
/// leaves nothing prepared on the shared server (a branch already resolved is skipped).
pub struct Cleanup {
    pub xids: Vec<String>,
    pub database: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for xid in &self.xids {
            let _ = client()
                .args(["-e", &format!("XA ROLLBACK {xid}")])
                .output();
        }
        let _ = client()
            .args(["-e", &format!("DROP DATABASE IF EXISTS {}", self.database)])
            .output();
    }
}

/// Whether XA RECOVER lists a branch with this gtrid (its text).
pub fn prepared(gtrid: &str) -> bool {
    sql("XA RECOVER")
        .lines()
        .any(|l| l.split('\t').nth(3).is_some_and(|d| d.starts_with(gtrid)))
}

/// An XID of a test's own: `X'hex(gtrid)',X'hex(bqual)',format`.
pub fn xid(gtrid: &str, bqual: &str, format: i64) -> String {
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    format!("X'{}',X'{}',{format}", hex(gtrid), hex(bqual))
}

/// A MariaDB server of its own (tests/lab/mariadb-server, configured as the lab's), for
/// tests that restart it; stopped and removed when dropped.
pub struct PrivateMariadb {
    dir: tempfile::TempDir,
    port: u16,
}

impl PrivateMariadb {
    pub fn start() -> PrivateMariadb {
        let dir = tempfile::Builder::new()
            .prefix("indoubt-mariadb-")
            .tempdir()
            .expect("tempdir");
        let port = free_port();
        let password = format!("pw{}", unique("m"));
        run_lab_script(
            "mariadb-server",
            &[
                "init",
                &dir.path().to_string_lossy(),
                &port.to_string(),
                &password,
            ],
        );
        let server = PrivateMariadb { dir, port };
        server.ctl("start");
        server
    }

    /// `start`, `stop` or `restart` (a clean shutdown: prepared branches are kept).
    pub fn ctl(&self, action: &str) {
        run_lab_script(
            "mariadb-server",
            &[action, &self.dir.path().to_string_lossy()],
        );
    }

    fn cnf(&self) -> String {
        self.dir
            .path()
            .join("client.cnf")
            .to_string_lossy()
            .into_owned()
    }

    /// `--mysql URL --defaults-file CNF` for this server.
    pub fn target_args(&self) -> Vec<String> {
        vec![
            "--mysql".into(),
            format!("mysql://indoubt_admin@127.0.0.1:{}/", self.port),
            "--defaults-file".into(),
            self.cnf(),
        ]
    }

    pub fn sql(&self, statements: &str) -> String {
        sql_on(&self.cnf(), statements)
    }

    /// Seconds since the server started.
    pub fn uptime(&self) -> u64 {
        self.sql("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'")
            .trim()
            .parse()
            .expect("uptime")
    }
}

impl Drop for PrivateMariadb {
    fn drop(&mut self) {
        let _ = Command::new(super::repo_root().join("tests/lab/mariadb-server"))
            .args(["stop", &self.dir.path().to_string_lossy()])
            .status();
    }
}
