//! Real transaction managers for tests: tests/lab/xa/run drives Narayana or Atomikos over
//! the lab's databases and halts it where a test wants the orphan.

use super::{repo_root, unique, TestDb};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// One coordinator: its kind, its log (a directory, or a JDBC store database) and node name.
pub struct Tm {
    pub kind: &'static str,
    pub store_db: Option<TestDb>,
    pub dir: tempfile::TempDir,
    pub node: String,
}

impl Tm {
    /// `narayana` with store `file` or `jdbc`, or `atomikos` (its file log).
    pub fn new(kind: &'static str, store: &str) -> Tm {
        let store_db = (store == "jdbc").then(|| TestDb::create("txstore"));
        Tm {
            kind,
            store_db,
            dir: tempfile::tempdir().unwrap(),
            // Ends in a letter: an Atomikos tid is `<name><13-digit begin ms><counter>`, so a
            // name ending in a digit can also be read one character shorter (`…b1` + `1796…`
            // or `…b` + `11796…`, a begin time in 2007), and then the GID alone does not say
            // which; indoubt rightly names no node then (gid.rs unit tests), and one test in
            // sixteen failed on the random hex suffix.
            node: format!("{}-n", unique("tm").replace('_', "-")),
        }
    }

    /// One global transaction over `dbs` (each with a table `orphans (v text)`), halted at
    /// `halt` (`prepare`: no decision logged; `commit`: COMMITTING logged).
    pub fn orphan(&self, dbs: &[&TestDb], halt: &str) {
        self.orphan_with(dbs, &[], halt)
    }

    /// The same over `dbs` and MariaDB databases given by their JDBC URLs (each with a
    /// table `orphans (id BIGINT PRIMARY KEY, v …)`; the row inserted is id 2).
    pub fn orphan_with(&self, dbs: &[&TestDb], mariadb: &[String], halt: &str) {
        let mut extra: Vec<String> = mariadb.iter().map(|u| format!("db={u}")).collect();
        extra.push(format!("halt={halt}"));
        if !mariadb.is_empty() {
            extra.push("id=2".into());
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let out = self
            .command("orphan", dbs, &extra)
            .output()
            .expect("running tests/lab/xa/run");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("halting:"),
            "the transaction manager did not halt: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A coordinator that stays alive, its last resource slow to prepare: returns once every
    /// database branch is prepared, while the coordinator has not decided yet.
    pub fn slow_prepare(&self, dbs: &[&TestDb], millis: u64) -> Child {
        let mut child = self
            .command(
                "orphan",
                dbs,
                &["halt=none", &format!("slow_prepare_ms={millis}")],
            )
            .stdout(Stdio::piped())
            // The TMs' own logging would flood the test output.
            .stderr(Stdio::null())
            .spawn()
            .expect("running tests/lab/xa/run");
        let stdout = child.stdout.take().unwrap();
        let prepared = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line == "prepared");
        if !prepared {
            let _ = child.wait();
            panic!("the transaction manager ended before its branches were prepared");
        }
        child
    }

    /// The TM's own recovery over the same log and databases.
    pub fn recover(&self, dbs: &[&TestDb]) -> String {
        self.recover_with(dbs, &[])
    }

    /// The same, with MariaDB databases by their JDBC URLs.
    pub fn recover_with(&self, dbs: &[&TestDb], mariadb: &[String]) -> String {
        let extra: Vec<String> = mariadb.iter().map(|u| format!("db={u}")).collect();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let out = self
            .command("recover", dbs, &extra)
            .output()
            .expect("running tests/lab/xa/run");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success() && stdout.contains("recovered"),
            "recovery failed: {stdout}\n{stderr}"
        );
        stderr
    }

    /// The decision source of this coordinator's log, as config YAML (list item).
    pub fn source_yaml(&self, extra: &str) -> String {
        let mut yaml = format!("    - name: {}-log\n", self.kind);
        match (self.kind, &self.store_db) {
            ("narayana", Some(_)) => {
                yaml.push_str("      kind: narayana_jdbc_store\n      target: txstore\n")
            }
            ("narayana", None) => yaml.push_str(&format!(
                "      kind: narayana_object_store\n      path: {}\n",
                self.dir.path().display()
            )),
            _ => yaml.push_str(&format!(
                "      kind: atomikos_log\n      path: {}\n",
                self.dir.path().display()
            )),
        }
        yaml.push_str(&format!("      coordinator: {}\n{extra}", self.node));
        yaml
    }

    /// The config's postgres targets this coordinator's source needs.
    pub fn targets_yaml(&self) -> String {
        match &self.store_db {
            Some(db) => format!("  txstore:\n    conninfo: {}\n", db.url()),
            None => String::new(),
        }
    }

    fn command(&self, mode: &str, dbs: &[&TestDb], extra: &[&str]) -> Command {
        let mut cmd = Command::new(repo_root().join("tests/lab/xa/run"));
        cmd.arg(mode)
            .arg(format!("tm={}", self.kind))
            .arg(format!("dir={}", self.dir.path().display()))
            .arg(format!("node={}", self.node))
            .args(dbs.iter().map(|db| format!("db={}", jdbc(&db.url()))))
            .args(extra)
            .stdin(Stdio::null());
        if let Some(db) = &self.store_db {
            let (url, user, password) = jdbc_parts(&db.url());
            cmd.args([
                "store=jdbc".to_string(),
                format!("store_url={url}"),
                format!("store_user={user}"),
                format!("store_password={password}"),
            ]);
        }
        cmd
    }
}

/// `postgres://user:password@host:port/db?…` as pgjdbc's URL with user and password.
pub fn jdbc(url: &str) -> String {
    let (url, user, password) = jdbc_parts(url);
    format!("{url}?user={user}&password={password}")
}

fn jdbc_parts(url: &str) -> (String, String, String) {
    let rest = url.strip_prefix("postgres://").expect("a postgres:// URL");
    let rest = rest.split('?').next().unwrap_or(rest);
    let (credentials, address) = rest.split_once('@').expect("user and password in the URL");
    let (user, password) = credentials.split_once(':').expect("a password in the URL");
    (
        format!("jdbc:postgresql://{address}"),
        user.to_string(),
        password.to_string(),
    )
}
