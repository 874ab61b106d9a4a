//! Narayana's own log, read in place: the object store's AtomicAction records (file
//! stores) and the JDBC store's table. Read-only: no Narayana code runs (its recovery
//! would replay commits), no file is opened for writing or locked.

use crate::audit::record::Answer;
use crate::gid::DecodedGid;
use std::path::{Path, PathBuf};

/// The record type of a two-phase coordinator's decision, as both stores name it.
pub const ATOMIC_ACTION: &str = "StateManager/BasicAction/TwoPhaseCoordinator/AtomicAction";
/// ShadowingStore's mark of a record being written, and FileSystemStore's of a hidden one.
const SHADOW_CHAR: char = '!';
const HIDDEN_CHAR: char = '#';
/// StateStatus.OS_COMMITTED: a durable record, as opposed to an uncommitted (shadow) one.
const OS_COMMITTED: i32 = 1;

/// The transaction's Uid in Narayana's text form, when the GID is Narayana's and (when a
/// node is configured) that node's.
pub fn uid_for(decoded: &DecodedGid, node: Option<&str>) -> Result<String, String> {
    let DecodedGid::Xa(xa) = decoded else {
        return Err("not an XA GID, so not Narayana's".into());
    };
    let Some(n) = &xa.narayana else {
        return Err(format!(
            "format id {} is not Narayana's, or its gtrid holds no Uid",
            xa.format_id
        ));
    };
    match node {
        Some(node) if node != n.coordinator_node => Err(format!(
            "a transaction of Narayana node {:?}; this log is node {node:?}'s",
            n.coordinator_node
        )),
        _ => Ok(n.transaction_uid.clone()),
    }
}

/// Looks the Uid up in the ObjectStore under `path`: the store directory itself, or the
/// directory that holds `<StoreType>/defaultStore` (ShadowNoFileLockStore, the default, or
/// any other file store), including a HashedStore's hashed subdirectories.
pub fn object_store(path: &Path, uid: &str) -> (Answer, String) {
    let roots = store_roots(path);
    if roots.is_empty() {
        return (
            Answer::Unreachable,
            format!(
                "{} is not a Narayana ObjectStore (no <store type>/defaultStore under it, and no StateManager or Recovery in it)",
                path.display()
            ),
        );
    }
    let name = uid.replace(':', "_");
    let mut half_written = Vec::new();
    for root in &roots {
        let dir = root.join(ATOMIC_ACTION);
        let mut dirs = vec![dir.clone()];
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    let file = entry.file_name();
                    let file = file.to_string_lossy();
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        dirs.push(entry.path());
                    } else if file != name && file.trim_matches([SHADOW_CHAR, HIDDEN_CHAR]) == name
                    {
                        half_written.push(entry.path());
                    }
                }
            }
            // No AtomicAction directory: this store never logged a commit decision.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return (
                    Answer::Unreachable,
                    format!("reading {}: {e}", dir.display()),
                )
            }
        }
        for dir in dirs {
            let record = dir.join(&name);
            match std::fs::symlink_metadata(&record) {
                Ok(meta) if meta.is_file() => {
                    return (
                        Answer::Commit,
                        format!(
                            "the AtomicAction record {} exists: the coordinator logged its commit decision (COMMITTING)",
                            record.display()
                        ),
                    )
                }
                Ok(_) => {
                    return (
                        Answer::Unreachable,
                        format!("{} is not a regular file", record.display()),
                    )
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return (
                        Answer::Unreachable,
                        format!("reading {}: {e}", record.display()),
                    )
                }
            }
        }
    }
    if let Some(path) = half_written.first() {
        return (
            Answer::Unreachable,
            format!(
                "only a shadow or hidden record {} exists (written when the coordinator stopped, or set aside): let Narayana's recovery decide",
                path.display()
            ),
        );
    }
    (
        Answer::NoRecord,
        format!(
            "no AtomicAction record for Uid {uid} in {}",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// The directories that hold the store's record types: `path` itself when it has them,
/// else each `path/<store type>/defaultStore` and `path/defaultStore`.
fn store_roots(path: &Path) -> Vec<PathBuf> {
    let holds_records =
        |dir: &Path| dir.join("StateManager").is_dir() || dir.join("Recovery").is_dir();
    if holds_records(path) {
        return vec![path.to_path_buf()];
    }
    let mut roots = Vec::new();
    if path.join("defaultStore").is_dir() {
        roots.push(path.join("defaultStore"));
    }
    if let Ok(entries) = std::fs::read_dir(path) {
        let mut stores: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("defaultStore"))
            .filter(|d| d.is_dir())
            .collect();
        stores.sort();
        roots.extend(stores);
    }
    roots
}

/// The JDBC store's lookup: every row of the record type for one Uid, with its state.
/// `table` was checked to be a plain `[schema.]name` when the config loaded.
pub fn jdbc_query(table: &str) -> String {
    format!("SELECT statetype, hidden FROM {table} WHERE typename = $1 AND uidstring = $2")
}

/// What the JDBC store's rows (statetype, hidden) for the Uid say.
pub fn jdbc_answer(table: &str, uid: &str, rows: &[(i32, i32)]) -> (Answer, String) {
    if rows
        .iter()
        .any(|&(state, hidden)| state == OS_COMMITTED && hidden == 0)
    {
        return (
            Answer::Commit,
            format!("{table} holds the AtomicAction record of Uid {uid}: the coordinator logged its commit decision (COMMITTING)"),
        );
    }
    match rows.first() {
        Some((state, hidden)) => (
            Answer::Unreachable,
            format!("{table} holds only an uncommitted or hidden AtomicAction record of Uid {uid} (statetype {state}, hidden {hidden}): let Narayana's recovery decide"),
        ),
        None => (
            Answer::NoRecord,
            format!("no AtomicAction row for Uid {uid} in {table}"),
        ),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // test fixtures in a private temporary directory
mod tests {
    use super::*;

    const UID: &str = "0:ffff7f000001:88d9:6b0e8989:2";

    fn store(layout: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(layout);
        std::fs::create_dir_all(root.join("Recovery/TransactionStatusManager")).unwrap();
        (dir, root)
    }

    #[test]
    fn a_record_in_either_layout_is_the_commit_decision() {
        for layout in [
            "ShadowNoFileLockStore/defaultStore",
            "defaultStore",
            "HashedStore/defaultStore",
        ] {
            let (dir, root) = store(layout);
            assert_eq!(
                object_store(dir.path(), UID).0,
                Answer::NoRecord,
                "{layout}"
            );
            let actions = root.join(ATOMIC_ACTION);
            let actions = if layout.starts_with("Hashed") {
                actions.join("#12#")
            } else {
                actions
            };
            std::fs::create_dir_all(&actions).unwrap();
            std::fs::write(actions.join("0_ffff7f000001_88d9_6b0e8989_1"), b"x").unwrap();
            assert_eq!(
                object_store(dir.path(), UID).0,
                Answer::NoRecord,
                "{layout}"
            );
            std::fs::write(actions.join("0_ffff7f000001_88d9_6b0e8989_2"), b"x").unwrap();
            assert_eq!(object_store(dir.path(), UID).0, Answer::Commit, "{layout}");
            // The store directory itself works too.
            assert_eq!(object_store(&root, UID).0, Answer::Commit, "{layout}");
        }
    }

    #[test]
    fn a_shadow_record_or_no_store_decides_nothing() {
        let (dir, root) = store("ShadowNoFileLockStore/defaultStore");
        let actions = root.join(ATOMIC_ACTION);
        std::fs::create_dir_all(&actions).unwrap();
        std::fs::write(actions.join("0_ffff7f000001_88d9_6b0e8989_2!"), b"x").unwrap();
        let (answer, detail) = object_store(dir.path(), UID);
        assert_eq!(answer, Answer::Unreachable, "{detail}");
        let empty = tempfile::tempdir().unwrap();
        let (answer, detail) = object_store(empty.path(), UID);
        assert_eq!(answer, Answer::Unreachable);
        assert!(detail.contains("not a Narayana ObjectStore"), "{detail}");
    }

    #[test]
    fn jdbc_rows_are_read_by_state() {
        assert_eq!(jdbc_answer("t", UID, &[(1, 0)]).0, Answer::Commit);
        assert_eq!(jdbc_answer("t", UID, &[(2, 0)]).0, Answer::Unreachable);
        assert_eq!(jdbc_answer("t", UID, &[(1, 1)]).0, Answer::Unreachable);
        assert_eq!(jdbc_answer("t", UID, &[]).0, Answer::NoRecord);
    }
}
