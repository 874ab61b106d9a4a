//! The audit log file: appending under an exclusive lock with fsync, and verifying the chain.
//!
//! Each line's `prev_hash` is the SHA-256 of the line before it, so an edited, removed
//! or reordered record breaks the chain; a sidecar `<log>.head` holds the last record's
//! number and hash, so records cut off the end are noticed too.

use super::head_path;
use super::record::{Kind, Record};
use crate::error::hinted;
use crate::fsafe;
use crate::report::Target;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Where the writer's refusals send the operator.
const RESEAL_HINT: &str = "run `indoubt audit verify`: if the chain is intact and only the head is lost or wrong, `indoubt audit reseal --reason TEXT` makes a new one and records that it did (man indoubt-audit)";

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

fn hash(line: &[u8]) -> String {
    crate::gid::hex(&Sha256::digest(line))
}

/// What a failed append left in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// Nothing: the log and its head are as they were before it.
    Nothing,
    /// The record, with the head one behind it: the head could not be written and the
    /// record could not be cut off again either. `audit verify` names that state (a failed
    /// head write, not tampering) and the next append or `audit reseal` repairs it.
    RecordHeadBehind,
    /// Part of the record may be in the log: cutting it off again failed.
    PartialRecord,
}

/// An append that failed, and what it left in the log.
#[derive(Debug)]
pub struct Failed {
    pub left: Left,
    pub error: anyhow::Error,
}

impl Failed {
    fn before_writing(error: anyhow::Error) -> Failed {
        Failed {
            left: Left::Nothing,
            error,
        }
    }
}

/// Appends a record (its `seq` and `prev_hash` are filled in here) and makes it durable
/// before returning: nothing may be done on the strength of an intent that could be lost.
pub fn append(path: &Path, record: Record) -> Result<Record> {
    try_append(path, record).map_err(|f| f.error)
}

/// [`append`], telling on failure what is left in the log.
fn try_append(path: &Path, mut record: Record) -> Result<Record, Failed> {
    // A planted head is refused before anything is made, the log included.
    read_head(path).map_err(Failed::before_writing)?;
    let (mut file, text) = open_locked(path).map_err(Failed::before_writing)?;
    let (seq, prev) = last_record(path, &text).map_err(Failed::before_writing)?;
    record.seq = seq + 1;
    record.prev_hash = prev;
    commit(&mut file, path, text.len(), &record)?;
    // The lock is released when `file` closes.
    Ok(record)
}

/// The log opened for appending (created if missing) under the exclusive lock, and all
/// it holds, read through the same descriptor: the name cannot be swapped in between.
fn open_locked(path: &Path) -> Result<(File, Vec<u8>)> {
    let mut file = fsafe::open_append(path, "audit log")?;
    lock(&file, true, path)?;
    let mut text = Vec::new();
    file.rewind()
        .and_then(|()| file.read_to_end(&mut text))
        .with_context(|| format!("reading the audit log {}", path.display()))?;
    Ok((file, text))
}

/// Appends one record as a line, fsynced, then moves the head to it; all or nothing,
/// under the lock. A write or sync that fails (a full disk) is undone by cutting the file
/// back to `len`; so is a head that cannot be written after the line was: the log and
/// its head then agree again, and the record is not in the log. What could not be undone
/// is said, and returned as [`Failed::left`].
fn commit(file: &mut File, path: &Path, len: usize, record: &Record) -> Result<(), Failed> {
    let line = serde_json::to_string(record)
        .context("encoding the audit record")
        .map_err(Failed::before_writing)?;
    let written = file
        .write_all(format!("{line}\n").as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let (left, what) = match cut_back(file, len) {
            Ok(()) => (Left::Nothing, "the log is as it was".to_string()),
            Err(u) => (
                Left::PartialRecord,
                format!(
                    "cutting off the partial record also failed ({u}): run `indoubt audit verify`"
                ),
            ),
        };
        return Err(Failed {
            left,
            error: anyhow::Error::new(e)
                .context(format!("writing the audit log {} ({what})", path.display())),
        });
    }
    let line_hash = hash(line.as_bytes());
    let Err(e) = write_head(path, record.seq, &line_hash) else {
        return Ok(());
    };
    // The rename may have happened before the failure (the directory's fsync failed): the
    // head names this record then, and cutting the record off would leave the head ahead
    // of the log. Both stay; a crash before the directory reaches the disk leaves the
    // head one behind, which the next append repairs.
    if matches!(read_head(path), Ok(Head::Names(seq, ref h)) if seq == record.seq && *h == line_hash)
    {
        crate::term::status(&crate::shown!(
            "indoubt: warning: record {} is in the audit log {} and its head names it, but the head's directory could not be synced ({:#}): after a crash the head may be one record behind, which the next append repairs",
            record.seq,
            path.display(),
            e
        ));
        return Ok(());
    }
    match cut_back(file, len) {
        Ok(()) => Err(Failed {
            left: Left::Nothing,
            error: e.context(format!(
                "the record was written to the audit log {} but its head could not be, so the record was cut off again: the log and its head are as they were, the record is not in the log",
                path.display()
            )),
        }),
        Err(u) => Err(Failed {
            left: Left::RecordHeadBehind,
            error: e.context(format!(
                "the record is in the audit log {} but its head could not be written, and cutting the record off again failed ({u}): the head is one record behind, which `indoubt audit verify` reports as a failed head write and the next append or `indoubt audit reseal` repairs",
                path.display()
            )),
        }),
    }
}

/// Cuts the log back to `len` bytes, durably.
fn cut_back(file: &File, len: usize) -> std::io::Result<()> {
    file.set_len(len as u64).and_then(|()| file.sync_all())
}

/// Records an intent before the action; if that fails, the action must not happen.
pub fn record_intent(path: &Path, intent: Record) -> Result<Record> {
    try_append(path, intent).map_err(|f| {
        let left = match f.left {
            Left::Nothing => "",
            Left::RecordHeadBehind => {
                " (the intent stays in the log without an outcome: `indoubt audit verify` lists it as outcome unknown; the action was not run)"
            }
            Left::PartialRecord => "",
        };
        f.error
            .context(format!("audit log not writable, so nothing was done{left}"))
    })
}

/// An outcome that could not be recorded, though its action ran.
#[derive(Debug)]
pub struct OutcomeNotRecorded {
    /// The outcome is in the log after all (its head one behind): only the head write failed.
    pub in_log: bool,
    pub error: anyhow::Error,
}

/// Records the outcome that answers `intent`. When that fails, the action has run anyway:
/// the caller says so, and what is (not) in the log.
pub fn record_outcome(
    path: &Path,
    intent: &Record,
    outcome: super::record::Outcome,
) -> Result<(), OutcomeNotRecorded> {
    try_append(path, intent.outcome_of(outcome))
        .map(|_| ())
        .map_err(|f| OutcomeNotRecorded {
            in_log: f.left == Left::RecordHeadBehind,
            error: f.error,
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
/// cross-checked with the head file. A head one record behind is the window between the
/// log's fsync and the head's rename (a crash, a full disk), and is repaired by this
/// append; any other disagreement, or a partial last line, stops the writer.
fn last_record(path: &Path, text: &[u8]) -> Result<(u64, String)> {
    let scan = scan(text);
    if !scan.complete {
        return Err(hinted(
            format!(
                "the audit log {} ends in a partial record: nothing is written to it",
                path.display()
            ),
            "run `indoubt audit verify`",
        ));
    }
    let head = read_head(path)?;
    match compare_head(&head, &scan) {
        HeadState::Matches | HeadState::Behind => Ok(scan.last()),
        _ => Err(hinted(
            format!(
                "the audit log {} does not match its head file {} ({}): nothing is written to it",
                path.display(),
                head_path(path).display(),
                head.describe()
            ),
            RESEAL_HINT,
        )),
    }
}

/// Replaces the head with the last record's number and hash, durably (fsync, rename,
/// directory fsync) and never through a link.
fn write_head(path: &Path, seq: u64, hash: &str) -> Result<()> {
    fsafe::replace(&head_path(path), fsafe::Kind::Private, "audit head", |w| {
        writeln!(w, "{seq} {hash}")
    })
}

/// What the head file says.
#[derive(Debug)]
enum Head {
    Missing,
    /// Present, but not "SEQ HASH".
    Unreadable(String),
    Names(u64, String),
}

impl Head {
    fn describe(&self) -> String {
        match self {
            Head::Missing => "the head is missing".into(),
            Head::Unreadable(why) => format!("the head is unreadable: {why}"),
            Head::Names(seq, hash) => format!("the head names record {seq}, hash {hash}"),
        }
    }

    /// The head's text as it was, for the record of a reseal.
    fn text(&self) -> Option<String> {
        match self {
            Head::Names(seq, hash) => Some(format!("{seq} {hash}")),
            _ => None,
        }
    }
}

fn read_head(path: &Path) -> Result<Head> {
    let head = head_path(path);
    let Some(mut file) = fsafe::open_read(&head, "audit head")? else {
        return Ok(Head::Missing);
    };
    let mut text = Vec::new();
    if let Err(e) = file.read_to_end(&mut text) {
        return Ok(Head::Unreadable(e.to_string()));
    }
    let text = String::from_utf8_lossy(&text);
    let parsed = text
        .trim()
        .split_once(' ')
        .and_then(|(s, h)| Some((s.parse::<u64>().ok()?, h)))
        .filter(|(_, h)| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    Ok(match parsed {
        Some((seq, hash)) => Head::Names(seq, hash.to_string()),
        // Raw here: whatever shows it escapes it (term::Shown), once.
        None => Head::Unreadable(format!(
            "'{}' is not a record number and a hash",
            text.chars().take(80).collect::<String>().trim()
        )),
    })
}

/// How the head relates to the log.
#[derive(Debug, PartialEq, Eq)]
enum HeadState {
    /// It names the last record.
    Matches,
    /// It names the record before the last (no head at all before the first record):
    /// the head write after the last record failed or was interrupted.
    Behind,
    /// Anything else: records cut off the end, the last one edited, the head replaced or lost.
    Differs,
}

fn compare_head(head: &Head, scan: &Scan) -> HeadState {
    // A missing head is the state before the first record was written.
    let named = match head {
        Head::Missing => (0, GENESIS.to_string()),
        Head::Names(seq, hash) => (*seq, hash.clone()),
        Head::Unreadable(_) => return HeadState::Differs,
    };
    if named == scan.last() {
        HeadState::Matches
    } else if Some(named) == scan.previous() {
        HeadState::Behind
    } else {
        HeadState::Differs
    }
}

/// The log read line by line: each record, its line's hash, and where the chain breaks.
#[derive(Debug, Default)]
struct Scan {
    records: Vec<Record>,
    /// The hash of each record's line, as `records`.
    hashes: Vec<String>,
    breaks: Vec<Break>,
    /// The file ends with a line end (or is empty).
    complete: bool,
}

impl Scan {
    /// The last record's number and line hash; zeros before the first.
    fn last(&self) -> (u64, String) {
        match (self.records.last(), self.hashes.last()) {
            (Some(r), Some(h)) => (r.seq, h.clone()),
            _ => (0, GENESIS.to_string()),
        }
    }

    /// The same for the record before the last (zeros when the last is the first).
    fn previous(&self) -> Option<(u64, String)> {
        let n = self.records.len();
        match n {
            0 => None,
            1 => Some((0, GENESIS.to_string())),
            _ => Some((self.records[n - 2].seq, self.hashes[n - 2].clone())),
        }
    }
}

fn scan(text: &[u8]) -> Scan {
    let mut s = Scan {
        complete: text.is_empty() || text.ends_with(b"\n"),
        ..Scan::default()
    };
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut prev = GENESIS.to_string();
    let mut expected_seq = 1;
    if text.is_empty() {
        return s;
    }
    for (n, line) in body.split(|b| *b == b'\n').enumerate() {
        let lineno = n + 1;
        let record: Record = match serde_json::from_slice(line) {
            Ok(r) => r,
            Err(e) => {
                s.breaks.push(Break::new(format!(
                    "line {lineno}: not a complete record ({e}): the file was cut or edited"
                )));
                prev = hash(line);
                continue;
            }
        };
        if record.prev_hash != prev {
            s.breaks.push(Break::new(format!(
                "line {lineno} (record {}): its previous-hash does not match line {}: a record before it was edited, removed or moved",
                record.seq,
                lineno.saturating_sub(1)
            )));
        }
        if record.seq != expected_seq {
            s.breaks.push(Break::new(format!(
                "line {lineno}: record {} where {} was expected: records were removed or reordered",
                record.seq, expected_seq
            )));
        }
        expected_seq = record.seq + 1;
        prev = hash(line);
        s.hashes.push(prev.clone());
        s.records.push(record);
    }
    if !s.complete {
        s.breaks.push(Break::new(format!(
            "line {}: the last line has no line end: the file was cut, or an append was interrupted",
            body.split(|b| *b == b'\n').count()
        )));
    }
    s
}

/// One place the chain is broken, and what to do about it when something can be done.
#[derive(Debug)]
pub struct Break {
    pub message: String,
    pub advice: Option<&'static str>,
}

impl Break {
    fn new(message: String) -> Break {
        Break {
            message,
            advice: None,
        }
    }
}

/// Everything `audit verify` found.
#[derive(Debug, Default)]
pub struct Verification {
    /// There is no log file: nothing was recorded there yet (unless `breaks` says the
    /// log was removed).
    pub absent: bool,
    pub records: Vec<Record>,
    /// Where the chain is broken (tampering or truncation), in file order.
    pub breaks: Vec<Break>,
    /// The head is one record behind the log: a failed or interrupted head write, not tampering.
    pub head_behind: Option<String>,
    /// Intents with no outcome record: the action's result is unknown.
    pub open_intents: Vec<Record>,
}

/// Reads and checks the log. No log and no head is a log nothing was recorded in yet
/// (`absent`, no records); a head without its log is a log that was removed, a break.
/// A log that cannot be read (permissions, a link, another user's) is an error.
pub fn read_and_verify(path: &Path) -> Result<Verification> {
    let Some(mut file) = fsafe::open_read(path, "audit log")? else {
        let mut v = Verification {
            absent: true,
            ..Verification::default()
        };
        match read_head(path)? {
            Head::Missing => {}
            head => v.breaks.push(Break::new(format!(
                "there is no audit log at {}, but {} ({}): the log was deleted or moved",
                path.display(),
                head.describe(),
                head_path(path).display()
            ))),
        }
        return Ok(v);
    };
    // Shared: an append in progress finishes (log and head) before this reads.
    lock(&file, false, path)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)
        .with_context(|| format!("reading the audit log {}", path.display()))?;
    let scan = scan(&text);
    let head = read_head(path)?;
    let state = compare_head(&head, &scan);
    let (last, _) = scan.last();
    let mut v = Verification {
        records: scan.records,
        breaks: scan.breaks,
        ..Verification::default()
    };
    match state {
        HeadState::Matches => {}
        HeadState::Behind => {
            v.head_behind = Some(format!(
                "the head names record {}, one behind the last record {last}, which chains to it: the head write after record {last} failed or was interrupted (a full disk, a crash), not tampering",
                last.saturating_sub(1)
            ))
        }
        HeadState::Differs => v.breaks.push(Break {
            message: match &head {
                Head::Names(seq, _) if *seq > last => format!(
                    "the log ends at record {last} but its head names record {seq}: records were cut off the end"
                ),
                Head::Names(seq, _) => format!(
                    "the log ends at record {last} but its head names record {seq} with another hash: the last records were edited or cut off, or the head was replaced"
                ),
                other => format!(
                    "{} ({}): records cut off the end cannot be ruled out",
                    other.describe(),
                    head_path(path).display()
                ),
            },
            advice: match head {
                Head::Names(..) => None,
                _ => Some("if the head was lost (deleted, a failed disk) and nothing else is broken, `indoubt audit reseal --reason TEXT` makes a new one and records that it did"),
            },
        }),
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

/// The intents on the object `key` of the server `server` (reached at `target`) that have
/// no outcome record; none when there is no log yet. Read under the shared lock, like
/// `audit verify`. Older records, without the server's identity, match by address and
/// object.
pub fn open_intents_for(
    path: &Path,
    server: Option<&str>,
    key: &str,
    object: &str,
    target: &Target,
) -> Result<Vec<Record>> {
    if fsafe::open_read(path, "audit log")?.is_none() {
        return Ok(Vec::new());
    }
    Ok(read_and_verify(path)?
        .open_intents
        .into_iter()
        .filter(|r| match r.key {
            Some(_) => r.is_about(server, key, target),
            None => {
                r.object == object
                    && r.target.kind == target.kind
                    && r.target.address == target.address
            }
        })
        .collect())
}

/// The last outcome that resolved the object `about` picks (Record::is_about: by its key
/// on its server; Record::is_about_producer): done as asked, or found done the same way.
/// None when there is no log, or no such record.
pub fn resolution_of(path: &Path, about: &dyn Fn(&Record) -> bool) -> Result<Option<Record>> {
    use super::record::Status;
    let Some(mut file) = fsafe::open_read(path, "audit log")? else {
        return Ok(None);
    };
    lock(&file, false, path)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)
        .with_context(|| format!("reading the audit log {}", path.display()))?;
    Ok(text
        .split(|b| *b == b'\n')
        .rev()
        .filter_map(|line| serde_json::from_slice::<Record>(line).ok())
        .find(|r| {
            r.kind == Kind::Outcome
                && r.outcome
                    .as_ref()
                    .is_some_and(|o| matches!(o.status, Status::Ok | Status::AlreadyResolved))
                && about(r)
        }))
}

/// What `audit reseal` did.
#[derive(Debug)]
pub enum Resealed {
    /// The head named the last record: nothing to do.
    Nothing,
    /// The head was one behind (a failed head write): it now names the last record, as
    /// the next append would have made it; nothing is lost, so no record is written.
    Repaired { last: u64 },
    /// The head was lost or named something else: the reseal record says what it said,
    /// and the new head names that record.
    Record(Box<Record>),
}

/// Makes a new head for a log whose chain is intact line by line, after appending a
/// record of it (who, when, why, what the old head said). Refused, with nothing done,
/// when any line is broken.
pub fn reseal(path: &Path, reason: &str, command_line: Vec<String>) -> Result<Resealed> {
    if fsafe::open_read(path, "audit log")?.is_none() {
        bail!("no audit log at {}: nothing to reseal", path.display());
    }
    let (mut file, text) = open_locked(path)?;
    let scan = scan(&text);
    if !scan.breaks.is_empty() {
        let breaks: Vec<&str> = scan.breaks.iter().map(|b| b.message.as_str()).collect();
        return Err(hinted(
            format!(
                "refused: the chain of {} is broken, so a new head would vouch for a log that was edited or cut: {}",
                path.display(),
                breaks.join("; ")
            ),
            "keep this log as evidence (move it aside); the next resolution starts a new one",
        ));
    }
    if scan.records.is_empty() {
        bail!(
            "the audit log {} is empty: nothing to reseal",
            path.display()
        );
    }
    let head = read_head(path)?;
    let (last, last_hash) = scan.last();
    match compare_head(&head, &scan) {
        HeadState::Matches => Ok(Resealed::Nothing),
        HeadState::Behind => {
            write_head(path, last, &last_hash)?;
            Ok(Resealed::Repaired { last })
        }
        HeadState::Differs => {
            let mut record = Record::reseal(
                path,
                reason,
                command_line,
                serde_json::json!({
                    "old_head": head.text(),
                    "old_head_problem": head.describe(),
                    "verified_records": scan.records.len(),
                    "verified_last_record": last,
                    "verified_last_hash": last_hash,
                }),
            );
            record.seq = last + 1;
            record.prev_hash = last_hash;
            commit(&mut file, path, text.len(), &record).map_err(|f| f.error)?;
            Ok(Resealed::Record(Box::new(record)))
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the tests make their fixtures directly
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
            identity: None,
            command_line: vec![],
            reason: None,
            ticket: None,
            target: Target {
                name: None,
                kind: "postgres".into(),
                address: "x".into(),
            },
            object: format!("object {n}"),
            server: None,
            key: None,
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

    #[test]
    fn an_emptied_log_whose_head_names_records_stops_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        append(&log, record(1)).unwrap();
        append(&log, record(2)).unwrap();
        std::fs::write(&log, "").unwrap();
        let err = append(&log, record(3)).unwrap_err();
        assert!(err.to_string().contains("does not match its head"), "{err}");
        assert!(crate::error::hint_of(&err).is_some_and(|h| h.contains("audit reseal")));
        assert_eq!(std::fs::read(&log).unwrap(), b"", "nothing written");
    }

    #[test]
    fn verify_tells_a_failed_head_write_from_records_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        append(&log, record(1)).unwrap();
        let first_head = std::fs::read_to_string(head_path(&log)).unwrap();
        append(&log, record(2)).unwrap();
        let second_head = std::fs::read_to_string(head_path(&log)).unwrap();
        std::fs::write(head_path(&log), &first_head).unwrap();
        let v = read_and_verify(&log).unwrap();
        assert!(v.breaks.is_empty(), "{:?}", v.breaks);
        assert!(v
            .head_behind
            .as_deref()
            .is_some_and(|m| m.contains("not tampering")));
        // The head names record 2 but the log was cut back to record 1.
        let text = std::fs::read_to_string(&log).unwrap();
        let first_line = text.lines().next().unwrap();
        std::fs::write(&log, format!("{first_line}\n")).unwrap();
        std::fs::write(head_path(&log), &second_head).unwrap();
        let v = read_and_verify(&log).unwrap();
        assert!(v.head_behind.is_none());
        assert!(
            v.breaks
                .iter()
                .any(|b| b.message.contains("records were cut off the end")),
            "{:?}",
            v.breaks
        );
    }

    /// Records written before the real and login uid were kept read and verify as
    /// before, in a log that goes on with records that hold them.
    #[test]
    fn records_without_an_identity_still_verify_beside_those_with_one() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        append(&log, record(1)).unwrap();
        let old = std::fs::read_to_string(&log).unwrap();
        assert!(!old.contains("identity"), "the old form: {old}");
        let mut new = record(2);
        new.identity = Some(crate::audit::record::Identity::current());
        append(&log, new).unwrap();
        let v = read_and_verify(&log).unwrap();
        assert!(v.breaks.is_empty(), "{:?}", v.breaks);
        assert!(v.records[0].identity.is_none());
        let identity = v.records[1].identity.as_ref().unwrap();
        assert_eq!(identity.uid, rustix::process::getuid().as_raw());
    }
}
