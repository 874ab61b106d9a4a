//! Atomikos' own log, read in place: the `tmlog<N>.log` files of its log directory, in
//! order. Read-only: the lock file is left alone and nothing is written.

use crate::audit::record::Answer;
use crate::gid::DecodedGid;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The Atomikos tid of the transaction (its gtrid as text), when the GID is Atomikos' and
/// (when a tm_unique_name is configured) that TM's: the tid is the name, the begin time in
/// epoch milliseconds and a counter.
pub fn tid_for(decoded: &DecodedGid, tm_unique_name: Option<&str>) -> Result<String, String> {
    let DecodedGid::Xa(xa) = decoded else {
        return Err("not an XA GID, so not Atomikos'".into());
    };
    if xa.transaction_manager != Some("Atomikos") {
        return Err(format!("format id {} is not Atomikos'", xa.format_id));
    }
    let tid = &xa.gtrid_text;
    if let Some(name) = tm_unique_name {
        let ours = tid
            .strip_prefix(name)
            .is_some_and(|rest| rest.len() >= 14 && rest.bytes().all(|b| b.is_ascii_digit()));
        if !ours {
            return Err(format!(
                "tid {tid:?} is not of the transaction manager {name:?} whose log this is"
            ));
        }
    }
    Ok(tid.clone())
}

/// The last state the log files under `dir` record for `tid`, read oldest file first.
pub fn log(dir: &Path, tid: &str) -> (Answer, String) {
    let files = match log_files(dir) {
        Ok(files) if files.is_empty() => {
            return (
                Answer::Unreachable,
                format!("no Atomikos log (tmlog*.log) in {}", dir.display()),
            )
        }
        Ok(files) => files,
        Err(e) => {
            return (
                Answer::Unreachable,
                format!("reading {}: {e}", dir.display()),
            )
        }
    };
    let mut states: Vec<String> = Vec::new();
    for file in &files {
        let read = std::fs::File::open(file).and_then(|f| {
            for line in std::io::BufReader::new(f).split(b'\n') {
                let line = line?;
                let mut fields = line.split(|&b| b == b'|');
                if fields.next() == Some(tid.as_bytes()) {
                    if let Some(state) = fields.next() {
                        states.push(String::from_utf8_lossy(state).into_owned());
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = read {
            return (
                Answer::Unreachable,
                format!("reading {}: {e}", file.display()),
            );
        }
    }
    let read = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let committing = states.iter().any(|s| s == "COMMITTING");
    match states.last().map(String::as_str) {
        None => (Answer::NoRecord, format!("no line for tid {tid} in {read}")),
        Some("COMMITTING") => (
            Answer::Commit,
            format!("{tid}|COMMITTING with no later TERMINATED in {read}: the coordinator decided commit"),
        ),
        Some("TERMINATED") if committing => (
            Answer::Commit,
            format!("{tid} was COMMITTING, then TERMINATED in {read}: the coordinator committed, and this branch was left behind"),
        ),
        Some("ABORTING") => (
            Answer::Rollback,
            format!("{tid}|ABORTING in {read}: the coordinator decided rollback"),
        ),
        Some("IN_DOUBT") => (
            Answer::InProgress,
            format!("{tid}|IN_DOUBT in {read}: Atomikos itself awaits the decision"),
        ),
        Some(state) => (
            Answer::Unreachable,
            format!("{tid}'s last state in {read} is {state}, which records no decision indoubt can act on"),
        ),
    }
}

/// `tmlog<N>.log` files, lowest N first (Atomikos writes a new one at each start and
/// checkpoint, carrying over what is still pending).
fn log_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("tmlog")?.strip_suffix(".log")?;
            let n = if n.is_empty() { 0 } else { n.parse().ok()? };
            e.file_type().ok()?.is_file().then(|| (n, e.path()))
        })
        .collect();
    files.sort();
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // test fixtures in a private temporary directory
mod tests {
    use super::*;

    const TID: &str = "lab2179611488839000001";

    fn answer(lines: &[(&str, &str)]) -> Answer {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in lines {
            std::fs::write(dir.path().join(file), text).unwrap();
        }
        std::fs::write(dir.path().join("tmlog.lck"), "").unwrap();
        log(dir.path(), TID).0
    }

    #[test]
    fn the_last_state_across_rotated_files_decides() {
        let committing = format!("{TID}|COMMITTING|1796114898450|lab2|\n");
        let terminated = format!("{TID}|TERMINATED|1796114898450|lab2|\n");
        assert_eq!(answer(&[("tmlog0.log", "")]), Answer::NoRecord);
        assert_eq!(answer(&[("tmlog0.log", &committing)]), Answer::Commit);
        assert_eq!(
            answer(&[("tmlog2.log", &terminated), ("tmlog10.log", &committing)]),
            Answer::Commit
        );
        let other = "lab2179611488839000002|COMMITTING|1|lab2|\n";
        assert_eq!(answer(&[("tmlog1.log", other)]), Answer::NoRecord);
        assert_eq!(
            answer(&[("tmlog1.log", &format!("{TID}|TERMINATED|1|lab2|\n"))]),
            Answer::Unreachable
        );
        assert_eq!(answer(&[("other.log", &committing)]), Answer::Unreachable);
    }
}
