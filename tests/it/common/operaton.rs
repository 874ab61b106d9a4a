//! The lab's Operaton engine (tests/lab/operaton/run): Camunda 7's engine embedded in a
//! Spring Boot application on a lab database, failing jobs and external tasks through
//! the engine's own code paths, and serving its REST API.

use super::seata::{harness, Line};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Runs `COMMAND db=JDBC key=value...` and returns its lines.
pub fn engine(command: &str, db: &str, args: &[&str]) -> Vec<Line> {
    let mut all = vec![format!("db={db}")];
    all.extend(args.iter().map(|a| a.to_string()));
    harness(&["tests/lab/operaton/run"], command, &all)
}

/// The engine with its REST API and job executor, until dropped.
pub struct Served {
    child: Child,
    pub url: String,
}

impl Served {
    /// Starts `serve` on a free port and waits for its `serving` line.
    pub fn start(db: &str, fixed: bool) -> Served {
        let port = super::free_port();
        let mut child = Command::new(super::repo_root().join("tests/lab/operaton/run"))
            .args([
                "serve".to_string(),
                format!("db={db}"),
                format!("port={port}"),
                format!("fixed={fixed}"),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the engine's REST API");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) if line.starts_with("serving ") => {
                    break line
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix("url="))
                        .expect("serving url=")
                        .to_string()
                }
                Some(Ok(_)) => continue,
                _ => {
                    let _ = child.kill();
                    panic!("the engine's REST API did not start (see stderr)");
                }
            }
        };
        // The rest of its output is read so that it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SIGTERM: Spring closes the engine and the pool.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

/// The `state` lines of `kind` whose `key` is `value`.
pub fn state_of<'a>(lines: &'a [Line], kind: &str, key: &str, value: &str) -> Vec<&'a Line> {
    lines
        .iter()
        .filter(|l| l.kind == kind && l.fields.get(key).is_some_and(|v| v == value))
        .collect()
}
