//! The lab's DBOS Transact application (tests/lab/dbos/run): the real `dbos` library on a
//! lab database, starting, recovering and serving workflows through DBOS's own code paths.

use super::seata::{harness, Line};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Runs `COMMAND db=URL key=value...` and returns its lines.
pub fn app(command: &str, db: &str, args: &[&str]) -> Vec<Line> {
    let mut all = vec![format!("db={db}")];
    all.extend(args.iter().map(|a| a.to_string()));
    harness(&["tests/lab/dbos/run"], command, &all)
}

/// The status DBOS's own client reports for workflow `id`.
pub fn status(db: &str, id: &str) -> String {
    app("state", db, &[])
        .into_iter()
        .find(|l| l.kind == "workflow" && l.fields.get("id").is_some_and(|i| i == id))
        .and_then(|l| l.fields.get("status").cloned())
        .unwrap_or_else(|| panic!("no workflow {id}"))
}

/// A `serve` process, until dropped (SIGTERM).
pub struct Serving {
    child: Child,
}

impl Serving {
    /// Starts `serve` with these arguments and waits until it prints a line of `kind`
    /// whose `id` is `id` (or its `serving` line when `id` is None).
    pub fn start(db: &str, args: &[&str], id: Option<&str>) -> Serving {
        let mut child = Command::new(super::repo_root().join("tests/lab/dbos/run"))
            .arg("serve")
            .arg(format!("db={db}"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the DBOS application");
        let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
        loop {
            match lines.next() {
                Some(Ok(line)) => {
                    let ready = match id {
                        None => line.starts_with("serving "),
                        Some(id) => {
                            line.starts_with("workflow ") && line.contains(&format!(" id={id} "))
                        }
                    };
                    if ready {
                        break;
                    }
                }
                _ => {
                    let _ = child.kill();
                    panic!("the DBOS application did not get ready");
                }
            }
        }
        std::thread::spawn(move || for _ in lines {});
        Serving { child }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}
