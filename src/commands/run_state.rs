//! What one run keeps for the next (an outbox's backlog, a saga's attempts), to say what
//! changed between two runs: a small JSON file per object beside the audit log, read and
//! written only through fsafe (a link, another user's file or one others may write is
//! refused, and nothing is read or written then).

use crate::fsafe;
use anyhow::{Context as _, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The file of `kind`'s object `name` (`outbox-orders.json`); None when there is no
/// state directory. A name is kept to the characters a file name may safely hold.
pub(crate) fn file(kind: &str, name: &str) -> Option<PathBuf> {
    let audit = crate::audit::log::default_path().ok()?;
    let safe: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect();
    Some(audit.with_file_name(format!("{kind}-{safe}.json")))
}

/// The previous run's state: None when there is none; Err(why) when the file is
/// indoubt's but does not parse. A file that is a link, another user's or writable by
/// others is refused (the outer error).
pub(crate) fn load<T: DeserializeOwned>(
    file: &Path,
    what: &str,
) -> Result<Result<Option<T>, String>> {
    let Some(mut f) = fsafe::open_read(file, what)? else {
        return Ok(Ok(None));
    };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .with_context(|| format!("reading the {what} {}", file.display()))?;
    Ok(serde_json::from_slice::<T>(&bytes)
        .map(Some)
        .map_err(|e| e.to_string()))
}

/// Replaces the file with this run's state (private, in a private directory).
pub(crate) fn save<T: Serialize>(file: &Path, what: &str, now: &T) -> Result<()> {
    let bytes = serde_json::to_vec(now).with_context(|| format!("encoding the {what}"))?;
    if let Some(dir) = file.parent() {
        fsafe::create_private_dir(dir)?;
    }
    fsafe::replace(file, fsafe::Kind::Private, what, |w| w.write_all(&bytes))
}
