//! The audit trail: an append-only, hash-chained JSON Lines log of every resolution —
//! the intent written and fsynced before the action, the outcome after it.

pub mod log;
pub mod record;
pub mod redact;

use std::path::{Path, PathBuf};

/// The sidecar `<log>.head` of a log: its last record's number and hash. The log writes
/// it; a record of a reseal names it.
pub fn head_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".head");
    PathBuf::from(name)
}
