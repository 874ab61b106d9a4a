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
    // Letters, digits, `-` and `_` as they are, every other byte as %XX: two names never
    // share a file (`x y` and `x'y` did, both `x_y`), and the usual ones keep theirs.
    let safe: String = name
        .bytes()
        .map(
            |b| match b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                true => (b as char).to_string(),
                false => format!("%{b:02X}"),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Names that differ never share a state file; a plain name keeps its old one.
    #[test]
    fn every_name_has_a_file_of_its_own() {
        let name = |n: &str| {
            file("outbox", n)
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(name("orders_outbox"), "outbox-orders_outbox.json");
        assert_ne!(name("x y"), name("x'y"));
        assert_eq!(name("x y"), "outbox-x%20y.json");
        assert_eq!(
            name("a/../b"),
            "outbox-a%2F..%2Fb.json".replace("..", "%2E%2E")
        );
    }
}
