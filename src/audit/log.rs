//! The audit log file: appending under an exclusive lock with fsync, and verifying the chain.
//!
//! Each line's `prev_hash` is the SHA-256 of the line before it, so an edited, removed
//! or reordered record breaks the chain; a sidecar `<log>.head` holds the last record's
//! number and hash, so records cut off the end are noticed too.

use super::record::{Kind, Record};
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `--audit-log`, else the config's `audit.path`, else `$XDG_STATE_HOME/indoubt/audit.jsonl`
/// (`~/.local/state/indoubt/audit.jsonl`).
pub fn default_path() -> Result<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state")))
        .context("no audit log path: set --audit-log, audit.path in the config, or HOME")?;
    Ok(base.join("indoubt").join("audit.jsonl"))
}

fn head_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".head");
    PathBuf::from(name)
}

fn hash(line: &str) -> String {
    crate::gid::hex(&Sha256::digest(line.as_bytes()))
}

/// Appends a record (its `seq` and `prev_hash` are filled in here) and makes it durable
/// before returning: nothing may be done on the strength of an intent that could be lost.
pub fn append(path: &Path, mut record: Record) -> Result<Record> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("opening the audit log {}", path.display()))?;
    lock(&file, true, path)?;
    let (seq, prev) = last_record(path)?;
    record.seq = seq + 1;
    record.prev_hash = prev;
    let line = serde_json::to_string(&record).context("encoding the audit record")?;
    writeln!(file, "{line}")
        .with_context(|| format!("writing the audit log {}", path.display()))?;
    file.sync_all()
        .with_context(|| format!("syncing the audit log {}", path.display()))?;
    write_head(path, record.seq, &hash(&line))?;
    // The lock is released when `file` closes.
    Ok(record)
}

/// Records an intent before the action; if that fails, the action must not happen.
pub fn record_intent(path: &Path, intent: Record) -> Result<Record> {
    append(path, intent)
        .map_err(|e| anyhow::anyhow!("audit log not writable, so nothing was done: {e:#}"))
}

/// Records the outcome that answers `intent`.
pub fn record_outcome(path: &Path, intent: &Record, outcome: super::record::Outcome) -> Result<()> {
    let status = outcome.status.clone();
    append(path, intent.outcome_of(outcome))
        .map(|_| ())
        .map_err(|e| {
            anyhow::anyhow!(
                "the action ran ({status}), but its outcome could not be recorded: {e:#}"
            )
        })
}

/// Takes the file lock within 10 seconds (another operator's append takes milliseconds).
fn lock(file: &File, exclusive: bool, path: &Path) -> Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let attempt = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match attempt {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => bail!("locking the audit log {}: {e}", path.display()),
        }
    }
}

/// The last record's number and hash, read from the log itself (under the lock) and
/// cross-checked with the head file. A head one record behind is the crash window
/// between the log's fsync and the head's rename, and is repaired by this append; any
/// other disagreement, or a partial last line, stops the writer until `audit verify`.
fn last_record(path: &Path) -> Result<(u64, String)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the audit log {}", path.display()))?;
    if text.is_empty() {
        return Ok((0, GENESIS.to_string()));
    }
    if !text.ends_with('\n') {
        bail!("the audit log {} ends in a partial record: run `indoubt audit verify` before writing to it", path.display());
    }
    let mut lines = text.lines().rev();
    let last = lines.next().unwrap_or_default();
    let record: Record = serde_json::from_str(last).with_context(|| {
        format!(
            "the last record of {} is unreadable: run `indoubt audit verify`",
            path.display()
        )
    })?;
    let found = (record.seq, hash(last));
    let head = std::fs::read_to_string(head_path(path)).ok();
    let head = head
        .as_deref()
        .and_then(|h| h.trim().split_once(' '))
        .map(|(s, h)| (s.parse::<u64>().unwrap_or(0), h.to_string()));
    let previous = lines.next().map(|l| (found.0.saturating_sub(1), hash(l)));
    match head {
        Some(h) if h == found => Ok(found),
        Some(h) if Some(&h) == previous.as_ref() => Ok(found),
        None if found.0 == 1 => Ok(found),
        _ => bail!(
            "the audit log {} does not match its head file: run `indoubt audit verify` before writing to it",
            path.display()
        ),
    }
}

fn write_head(path: &Path, seq: u64, hash: &str) -> Result<()> {
    let head = head_path(path);
    let tmp = head.with_extension("head.tmp");
    let mut file = File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    writeln!(file, "{seq} {hash}")?;
    file.sync_all()?;
    std::fs::rename(&tmp, &head).with_context(|| format!("writing {}", head.display()))?;
    if let Some(dir) = head.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir).and_then(|d| d.sync_all()).ok();
    }
    Ok(())
}

/// Everything `audit verify` found.
#[derive(Debug, Default)]
pub struct Verification {
    pub records: Vec<Record>,
    /// Where the chain is broken, in file order.
    pub breaks: Vec<String>,
    /// Intents with no outcome record: the action's result is unknown.
    pub open_intents: Vec<Record>,
}

pub fn read_and_verify(path: &Path) -> Result<Verification> {
    let file =
        File::open(path).with_context(|| format!("opening the audit log {}", path.display()))?;
    let mut v = Verification::default();
    let mut prev = GENESIS.to_string();
    let mut expected_seq = 1;
    let mut last_hash = GENESIS.to_string();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        let lineno = n + 1;
        let record: Record = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                v.breaks.push(format!(
                    "line {lineno}: not a complete record ({e}): the file was cut or edited"
                ));
                prev = hash(&line);
                continue;
            }
        };
        if record.prev_hash != prev {
            v.breaks.push(format!(
                "line {lineno} (record {}): its previous-hash does not match line {}: a record before it was edited, removed or moved",
                record.seq,
                lineno.saturating_sub(1)
            ));
        }
        if record.seq != expected_seq {
            v.breaks.push(format!(
                "line {lineno}: record {} where {} was expected: records were removed or reordered",
                record.seq, expected_seq
            ));
        }
        expected_seq = record.seq + 1;
        prev = hash(&line);
        last_hash = prev.clone();
        v.records.push(record);
    }
    match std::fs::read_to_string(head_path(path)) {
        Ok(text) => {
            let head = text.trim().to_string();
            let found = format!("{} {}", v.records.last().map_or(0, |r| r.seq), last_hash);
            if head != found {
                v.breaks.push(format!(
                    "the log ends at record {} but its head file names {}: records were cut off the end, or the last one was edited",
                    v.records.last().map_or(0, |r| r.seq),
                    head.split(' ').next().unwrap_or("?")
                ));
            }
        }
        Err(_) if v.records.is_empty() => {}
        Err(e) => v.breaks.push(format!(
            "head file {} unreadable ({e}): truncation cannot be ruled out",
            head_path(path).display()
        )),
    }
    let concluded: std::collections::HashSet<&str> = v
        .records
        .iter()
        .filter(|o| o.kind == Kind::Outcome)
        .map(|o| o.action_id.as_str())
        .collect();
    v.open_intents = v
        .records
        .iter()
        .filter(|i| i.kind == Kind::Intent && !concluded.contains(i.action_id.as_str()))
        .cloned()
        .collect();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::{Kind, Operator};
    use crate::report::Target;

    fn record(n: u32) -> Record {
        Record {
            seq: 0,
            time: chrono::Utc::now(),
            kind: Kind::Intent,
            action_id: format!("a{n}"),
            operator: Operator {
                user: "u".into(),
                host: "h".into(),
                sudo_user: None,
            },
            command_line: vec![],
            reason: None,
            ticket: None,
            target: Target {
                name: None,
                kind: "postgres".into(),
                address: "x".into(),
            },
            object: format!("object {n}"),
            action: "COMMIT PREPARED 'g'".into(),
            evidence: serde_json::Value::Null,
            decision_sources: vec![],
            decision: "commit".into(),
            heuristic: false,
            outcome: None,
            prev_hash: String::new(),
        }
    }

    #[test]
    fn a_crash_before_the_head_was_renamed_is_repaired_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        append(&log, record(1)).unwrap();
        let head_after_first = std::fs::read_to_string(head_path(&log)).unwrap();
        append(&log, record(2)).unwrap();
        // The crash window: the second line is durable, its head never written.
        std::fs::write(head_path(&log), head_after_first).unwrap();
        let third = append(&log, record(3)).unwrap();
        assert_eq!(third.seq, 3);
        let v = read_and_verify(&log).unwrap();
        assert!(v.breaks.is_empty(), "{:?}", v.breaks);
        assert_eq!(v.records.len(), 3);
    }

    #[test]
    fn a_partial_last_line_or_a_foreign_head_stops_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        append(&log, record(1)).unwrap();
        let whole = std::fs::read_to_string(&log).unwrap();
        std::fs::write(&log, &whole[..whole.len() - 10]).unwrap();
        assert!(append(&log, record(2))
            .unwrap_err()
            .to_string()
            .contains("partial record"));
        std::fs::write(&log, &whole).unwrap();
        std::fs::write(head_path(&log), format!("7 {GENESIS}\n")).unwrap();
        assert!(append(&log, record(2))
            .unwrap_err()
            .to_string()
            .contains("does not match its head"));
    }
}
