//! Interrupts against the lab, on real terminals (tmux): Ctrl-C and SIGTERM during a
//! reconcile cancel its query on the server and clear the spinner; at the confirmation
//! prompt Ctrl-D and Esc abort, Ctrl-Z suspends and `fg` resumes, and SIGTERM or SIGHUP
//! leave the terminal as it was — with nothing done each time.

use crate::common;

use common::kafka::create_topic;
use common::*;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of the test's own (its own socket), one 120x40 window running an
/// interactive bash with job control, as an operator's terminal would.
struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    fn start() -> Tmux {
        let dir = tempfile::tempdir().unwrap();
        let tmux = Tmux {
            socket: unique("indoubt-tmux"),
            dir,
        };
        let mut cmd = tmux.command();
        cmd.args([
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "bash --norc --noprofile -i",
        ])
        .env("PS1", "$ ");
        isolate(&mut cmd);
        // The shell's own HOME, not the shared empty one: it may write its history there.
        cmd.env("HOME", tmux.dir.path());
        let status = cmd.status().expect("tmux (apt-get install tmux)");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.args(["-L", &self.socket]);
        cmd
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?}: {:?}", out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types a line into the shell, as literal text, then Enter.
    fn type_line(&self, line: &str) {
        self.tmux(&["send-keys", "-l", line]);
        self.tmux(&["send-keys", "Enter"]);
    }

    /// Presses keys (tmux names: C-c, C-d, C-z, Escape).
    fn keys(&self, keys: &str) {
        self.tmux(&["send-keys", keys]);
    }

    /// The screen, wrapped lines joined.
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J"])
    }

    fn wait_screen(&self, what: &str, check: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen();
            if check(&screen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `command` in the shell, saving `stty -a` before and after and the exit code;
    /// all in one subshell, so Ctrl-Z stops the whole job (bash goes on with the rest of a
    /// list when one command of it stops).
    fn run(&self, command: &str) {
        let (before, after, rc) = (
            self.path("stty.before"),
            self.path("stty.after"),
            self.path("rc"),
        );
        let _ = std::fs::remove_file(&rc);
        // The screen is cleared first, and seen cleared, so a wait for this command's
        // output can never be met by the last command's (a loaded machine showed that race:
        // keys meant for the prompt reached the shell before the new prompt existed).
        self.type_line("clear");
        self.wait_screen("the screen cleared", |s| !s.contains(PROMPT));
        self.type_line(&format!(
            "clear; (stty -a > '{}'; {command}; echo $? > '{}.tmp'; stty -a > '{}'; mv '{1}.tmp' '{1}')",
            before.display(),
            rc.display(),
            after.display()
        ));
    }

    /// The exit code of the command `run` started, once it has ended.
    fn exit_code(&self) -> i32 {
        let rc = self.path("rc");
        let mut code = None;
        wait_for("the command to end", || {
            code = std::fs::read_to_string(&rc)
                .ok()
                .and_then(|t| t.trim().parse().ok());
            code.is_some()
        });
        code.unwrap_or(-1)
    }

    /// The terminal's settings before the command and after it, as `stty -a` prints them.
    fn stty(&self) -> (String, String) {
        (
            std::fs::read_to_string(self.path("stty.before")).unwrap(),
            std::fs::read_to_string(self.path("stty.after")).unwrap(),
        )
    }

    /// The pid of the indoubt process the pane's shell started (a grandchild: `run`
    /// wraps it in a subshell).
    fn indoubt_pid(&self) -> u32 {
        let shell: u32 = self
            .tmux(&["list-panes", "-F", "#{pane_pid}"])
            .trim()
            .parse()
            .unwrap();
        let bin = assert_cmd::cargo::cargo_bin("indoubt");
        let children = |pid: u32| -> Vec<u32> {
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        };
        let mut found = None;
        wait_for("indoubt to start in the pane", || {
            let mut queue = children(shell);
            while let Some(pid) = queue.pop() {
                if std::fs::read_link(format!("/proc/{pid}/exe"))
                    .ok()
                    .as_deref()
                    == Some(bin.as_path())
                {
                    found = Some(pid);
                    return true;
                }
                queue.extend(children(pid));
            }
            false
        });
        found.unwrap_or(0)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
    }
}

fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How many sessions run a statement whose text holds `marker` (the test's own query).
fn running(db: &TestDb, marker: &str) -> i64 {
    connect(&pg_url())
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' \
             AND query LIKE '%' || $2 || '%' AND pid <> pg_backend_pid()",
            &[&db.name, &marker],
        )
        .unwrap()
        .get(0)
}

/// A reconcile query that sleeps on the server for ten minutes, marked to be found.
fn sleeping_query(marker: &str) -> String {
    format!(
        "SELECT g::bigint, now() FROM generate_series(1, 2) g, pg_sleep(600) \
         WHERE $1::timestamptz < $2 /* {marker} */"
    )
}

fn reconcile_args(db: &TestDb, topic: &str, marker: &str) -> Vec<String> {
    [
        "reconcile",
        "--pg",
        &db.url(),
        "--query",
        &sleeping_query(marker),
        "-b",
        &lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"),
        "--topic",
        topic,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Without the CancelRequest the query would run for its ten minutes (the default
/// --query-timeout is an hour) after indoubt exited.
fn wait_until_cancelled(db: &TestDb, marker: &str) {
    wait_for(
        "the reconcile query to be gone from pg_stat_activity",
        || running(db, marker) == 0,
    );
}

#[test]
fn ctrl_c_during_reconcile_cancels_its_query_and_clears_the_spinner() {
    let db = TestDb::create("sigint");
    let topic = create_topic(&lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"), "sigint", 1);
    let marker = unique("reconcile-sigint");
    let tmux = Tmux::start();
    let bin = assert_cmd::cargo::cargo_bin("indoubt");
    let args: Vec<String> = reconcile_args(&db, &topic, &marker)
        .iter()
        .map(|a| quote(a))
        .collect();
    tmux.run(&format!(
        "{} {}",
        quote(&bin.to_string_lossy()),
        args.join(" ")
    ));
    wait_for("the reconcile query to run on the server", || {
        running(&db, &marker) == 1
    });
    tmux.wait_screen("the spinner", |s| s.contains("messages 0"));
    tmux.keys("C-c");
    assert_eq!(tmux.exit_code(), 130, "{}", tmux.screen());
    wait_until_cancelled(&db, &marker);
    let screen = tmux.screen();
    assert!(
        screen.contains("interrupted by SIGINT: asked")
            && screen.contains("to cancel the statement in flight"),
        "{screen}"
    );
    assert!(
        !screen.contains("messages 0"),
        "the spinner is cleared: {screen}"
    );
}

#[test]
fn sigterm_during_reconcile_cancels_its_query() {
    let db = TestDb::create("sigterm");
    let topic = create_topic(&lab("INDOUBT_LAB_KAFKA_BOOTSTRAP"), "sigterm", 1);
    let marker = unique("reconcile-sigterm");
    let mut child = indoubt_process()
        .args(reconcile_args(&db, &topic, &marker))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the reconcile query to run on the server", || {
        running(&db, &marker) == 1
    });
    kill("TERM", child.id());
    let mut status = None;
    wait_for("indoubt to exit", || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.and_then(|s| s.code()), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted by SIGTERM: asked"), "{stderr}");
    wait_until_cancelled(&db, &marker);
}

/// A database with one prepared transaction, and the audit log `resolve pg` would write.
struct Prepared {
    db: TestDb,
    gid: String,
    audit: PathBuf,
    _dir: tempfile::TempDir,
}

impl Prepared {
    fn new(prefix: &str) -> Prepared {
        Self::with_gid(prefix, &unique("prompt-gid"))
    }

    fn with_gid(prefix: &str, gid: &str) -> Prepared {
        let db = TestDb::create(prefix);
        let gid = gid.to_string();
        db.admin()
            .batch_execute(&format!(
                "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
                 INSERT INTO accounts VALUES (1, 100);
                 BEGIN; UPDATE accounts SET balance = balance + 1 WHERE id = 1;
                 PREPARE TRANSACTION {}",
                literal(&gid)
            ))
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        Prepared {
            db,
            gid,
            audit: dir.path().join("audit.jsonl"),
            _dir: dir,
        }
    }

    /// `resolve pg` of the GID with `args` (shell words, quoted by the caller).
    fn command(&self, args: &str) -> String {
        format!(
            "{} resolve pg {} --pg {} {args} --audit-log {}",
            quote(&assert_cmd::cargo::cargo_bin("indoubt").to_string_lossy()),
            quote(&self.gid),
            quote(&pg_url()),
            quote(&self.audit.to_string_lossy())
        )
    }

    fn resolve_command(&self) -> String {
        format!(
            "{} resolve pg {} --pg {} --commit --reason 'prompt test' --audit-log {}",
            quote(&assert_cmd::cargo::cargo_bin("indoubt").to_string_lossy()),
            quote(&self.gid),
            quote(&pg_url()),
            quote(&self.audit.to_string_lossy())
        )
    }

    fn still_prepared(&self) -> bool {
        self.db
            .admin()
            .query_one(
                "SELECT count(*) FROM pg_prepared_xacts WHERE gid = $1",
                &[&self.gid],
            )
            .unwrap()
            .get::<_, i64>(0)
            == 1
    }

    /// Nothing was done: still prepared, and no intent in the audit log (not even the file).
    fn assert_untouched(&self, screen: &str) {
        assert!(self.still_prepared(), "{screen}");
        assert!(!self.audit.exists(), "no audit intent: {screen}");
    }
}

const PROMPT: &str = "to confirm (anything else aborts):";

fn at_prompt(tmux: &Tmux, prepared: &Prepared) {
    tmux.run(&prepared.resolve_command());
    tmux.wait_screen("the confirmation prompt", |s| s.contains(PROMPT));
}

#[test]
fn ctrl_d_esc_and_ctrl_c_at_the_prompt_abort_with_nothing_done() {
    let prepared = Prepared::new("prompt_abort");
    let tmux = Tmux::start();
    for (keys, code, said) in [
        ("C-d", 1, "nothing done: aborted with Ctrl-D"),
        ("Escape", 1, "nothing done: aborted with Esc"),
        ("C-c", 130, "interrupted by SIGINT"),
    ] {
        at_prompt(&tmux, &prepared);
        // Half a GID typed first: the key aborts whatever is on the line.
        tmux.tmux(&["send-keys", "-l", &prepared.gid[..5]]);
        tmux.keys(keys);
        let rc = tmux.exit_code();
        let screen = tmux.screen();
        assert_eq!(rc, code, "{keys}: {screen}");
        assert!(screen.contains(said), "{keys}: {screen}");
        prepared.assert_untouched(&screen);
        let (before, after) = tmux.stty();
        assert_eq!(
            before, after,
            "{keys}: the terminal's settings are restored"
        );
    }
}

#[test]
fn ctrl_z_at_the_prompt_suspends_and_fg_resumes_it() {
    let prepared = Prepared::new("prompt_suspend");
    let tmux = Tmux::start();
    at_prompt(&tmux, &prepared);
    tmux.keys("C-z");
    tmux.wait_screen("the shell to report the job stopped", |s| {
        s.contains("Stopped")
    });
    assert!(prepared.still_prepared());
    tmux.type_line("fg");
    tmux.wait_screen("the prompt again after fg", |s| {
        s.matches(PROMPT).count() == 2
    });
    tmux.type_line(&prepared.gid);
    let rc = tmux.exit_code();
    let screen = tmux.screen();
    assert_eq!(rc, 0, "{screen}");
    assert!(
        !prepared.still_prepared(),
        "confirmed after the resume: {screen}"
    );
    let (before, after) = tmux.stty();
    assert_eq!(before, after);
}

#[test]
fn sigterm_and_sighup_at_the_prompt_restore_the_terminal_and_do_nothing() {
    let prepared = Prepared::new("prompt_signal");
    let tmux = Tmux::start();
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        at_prompt(&tmux, &prepared);
        kill(signal, tmux.indoubt_pid());
        let rc = tmux.exit_code();
        let screen = tmux.screen();
        let (before, after) = tmux.stty();
        assert_eq!(
            before, after,
            "SIG{signal}: the terminal's settings are restored"
        );
        assert_eq!(rc, code, "SIG{signal}: {screen}");
        assert!(
            screen.contains(&format!("interrupted by SIG{signal}")),
            "{screen}"
        );
        prepared.assert_untouched(&screen);
    }
}

/// A GID as pgjdbc writes Narayana's: format id, base64 gtrid, base64 bqual (124 characters).
fn long_gid() -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let gtrid = format!("{:-<60}", unique("gtrid"));
    format!(
        "131077_{}_{}",
        b64.encode(gtrid.as_bytes()),
        b64.encode(b"bqual-of-this-branch-0001")
    )
}

/// The token the confirmation prompt on `screen` asks for (`Commit: type TOKEN, or …`).
fn token_on(screen: &str, decision: &str) -> String {
    let start = format!("{decision}: type ");
    let line = screen
        .lines()
        .rev()
        .find(|l| l.contains(&start) && l.contains(PROMPT))
        .unwrap_or_else(|| panic!("no {decision} prompt: {screen}"));
    let after = &line[line.find(&start).unwrap() + start.len()..];
    after.split(',').next().unwrap().to_string()
}

/// An empty screen, so a wait for the next command's prompt cannot be met by the last one's.
fn clear_all(tmux: &Tmux) {
    tmux.type_line("clear");
    tmux.wait_screen("the screen cleared", |s| {
        !s.contains("Reason:") && !s.contains("Ticket") && !s.contains(PROMPT)
    });
}

/// A heuristic decision taken at the terminal asks for a reason (required) and a ticket
/// before the confirmation, and records both; the confirmation is a short token for this
/// decision on this GID, so a GID of 124 base64 characters need not be typed, and the
/// token of another decision does not confirm this one.
#[test]
fn a_heuristic_at_the_terminal_asks_a_reason_and_a_ticket_then_a_short_token() {
    let prepared = Prepared::with_gid("prompt_reason", &long_gid());
    let tmux = Tmux::start();
    let reason_asked =
        |tmux: &Tmux| tmux.wait_screen("the reason prompt", |s| s.contains("Reason:"));

    // An empty reason: nothing done. The reason comes before the confirmation.
    clear_all(&tmux);
    tmux.run(&prepared.command("--commit"));
    reason_asked(&tmux);
    let screen = tmux.screen();
    assert!(
        screen.contains("This is a HEURISTIC decision") && !screen.contains(PROMPT),
        "{screen}"
    );
    tmux.type_line("   ");
    assert_eq!(tmux.exit_code(), 1, "{}", tmux.screen());
    let screen = tmux.screen();
    assert!(
        screen.contains("nothing done: a heuristic decision needs a reason"),
        "{screen}"
    );
    prepared.assert_untouched(&screen);

    // Ctrl-D at the reason, Esc at the ticket: aborted, nothing done.
    for (keys, said) in [
        ("C-d", "aborted with Ctrl-D"),
        ("Escape", "aborted with Esc"),
    ] {
        clear_all(&tmux);
        tmux.run(&prepared.command("--commit"));
        reason_asked(&tmux);
        if keys == "Escape" {
            tmux.type_line("a reason");
            tmux.wait_screen("the ticket prompt", |s| {
                s.contains("Ticket or incident id (Enter for none):")
            });
        }
        tmux.keys(keys);
        assert_eq!(tmux.exit_code(), 1, "{keys}: {}", tmux.screen());
        let screen = tmux.screen();
        assert!(screen.contains(said), "{keys}: {screen}");
        prepared.assert_untouched(&screen);
    }

    // The rollback's token (a reason given: nothing more is asked) …
    clear_all(&tmux);
    tmux.run(&prepared.command("--rollback --reason r"));
    tmux.wait_screen("the confirmation prompt", |s| s.contains(PROMPT));
    let screen = tmux.screen();
    assert!(!screen.contains("Reason:"), "{screen}");
    let rollback = token_on(&screen, "Rollback");
    tmux.keys("Escape");
    assert_eq!(tmux.exit_code(), 1);

    // … does not confirm the commit.
    let typed_reason = "coordinator host lost; app team confirms order 4711 was acknowledged";
    let commit_prompt = |tmux: &Tmux| {
        clear_all(tmux);
        tmux.run(&prepared.command("--commit"));
        reason_asked(tmux);
        tmux.type_line(typed_reason);
        tmux.wait_screen("the ticket prompt", |s| s.contains("Ticket or incident id"));
        tmux.type_line("INC-77");
        tmux.wait_screen("the confirmation prompt", |s| s.contains(PROMPT));
        token_on(&tmux.screen(), "Commit")
    };
    let commit = commit_prompt(&tmux);
    assert_eq!(commit.len(), 6, "{commit}");
    assert_ne!(commit, rollback, "a token per decision");
    tmux.type_line(&rollback);
    assert_eq!(tmux.exit_code(), 1, "{}", tmux.screen());
    let screen = tmux.screen();
    assert!(screen.contains("the typed text did not match"), "{screen}");
    prepared.assert_untouched(&screen);

    // The commit's own token does.
    assert_eq!(
        commit_prompt(&tmux),
        commit,
        "the same decision on the same GID"
    );
    tmux.type_line(&commit);
    assert_eq!(tmux.exit_code(), 0, "{}", tmux.screen());
    assert!(!prepared.still_prepared(), "{}", tmux.screen());
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&prepared.audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    let intent = &records[0];
    assert_eq!(
        (
            intent["decision"].as_str(),
            intent["heuristic"].as_bool(),
            intent["reason"].as_str(),
            intent["ticket"].as_str()
        ),
        (
            Some("commit"),
            Some(true),
            Some(typed_reason),
            Some("INC-77")
        ),
        "{intent}"
    );
    assert_eq!(records[1]["outcome"]["status"], "ok");
}
