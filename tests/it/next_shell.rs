//! The next commands indoubt prints are safe to paste: for hostile GIDs (quotes,
//! backslashes, `$(…)`, backticks, `;`, newlines, a leading `-`, spaces, bytes that are
//! not UTF-8), target names and `--config` paths, the command printed in every layout
//! (a terminal 40, 80 and 200 columns wide, piped, JSON, YAML), read by a real `sh` the
//! way a paste is read, runs a stand-in `indoubt` with exactly the arguments meant and
//! nothing else; and the real indoubt, run the same way, finds the same transaction.
#![allow(clippy::disallowed_methods)] // tests make their fixtures directly

use crate::common;

use common::{as_typed, connect, pg_url, replace_db, run, unique};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small deterministic generator (the same names on every run, so a failure repeats).
struct Names(u64);

impl Names {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }

    /// A name from hostile pieces (each planted command would touch a file in `marker`),
    /// `bytes` long at most, never ending in a newline (see below).
    fn name(&mut self, marker: &Path, not_utf8: bool, max: usize) -> Vec<u8> {
        let m = marker.display();
        let pieces: Vec<Vec<u8>> = vec![
            b"'".to_vec(),
            b"\\".to_vec(),
            format!("$(touch {m}/dollar)").into_bytes(),
            format!("`touch {m}/tick`").into_bytes(),
            format!(";touch {m}/semi;").into_bytes(),
            b"'\\''".to_vec(),
            b"\n".to_vec(),
            b" ".to_vec(),
            b"\"".to_vec(),
            b"%s%n".to_vec(),
            b"*?[a]".to_vec(),
            b"\t".to_vec(),
            b"\x1b[31m".to_vec(),
            "\u{202e}".as_bytes().to_vec(),
            "é".as_bytes().to_vec(),
            b"plain".to_vec(),
            b"\xff".to_vec(),
            b"\xc3".to_vec(),
        ];
        let usable = if not_utf8 {
            pieces.len()
        } else {
            pieces.len() - 2
        };
        let mut name = match self.pick(3) {
            0 => b"-".to_vec(),
            _ => Vec::new(),
        };
        while name.len() < max {
            let piece = &pieces[self.pick(usable)];
            if name.len() + piece.len() > max {
                break;
            }
            name.extend_from_slice(piece);
        }
        // A command substitution cannot end in a newline, so a value's own trailing
        // newlines are printed inside quotes, literally: a line break that the line
        // extraction below does not read back. Such names are left to the unit tests.
        while name.last() == Some(&b'\n') {
            name.pop();
        }
        name.push(b'x');
        name
    }
}

/// A database of its own that takes any bytes in a GID (SQL_ASCII), dropped at the end.
struct AsciiDb {
    name: String,
}

impl AsciiDb {
    fn create() -> AsciiDb {
        let name = unique("nextsh");
        connect(&pg_url())
            .batch_execute(&format!(
                "CREATE DATABASE \"{name}\" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
            ))
            .unwrap();
        connect(&replace_db(&pg_url(), &name))
            .batch_execute("CREATE TABLE t (i int)")
            .unwrap();
        AsciiDb { name }
    }

    fn url(&self) -> String {
        replace_db(&pg_url(), &self.name)
    }

    fn prepare(&self, gid: &[u8]) {
        // Every byte as \xHH of an escape string: a SQL_ASCII database takes them as they are.
        let literal: String = gid.iter().map(|b| format!("\\x{b:02x}")).collect();
        connect(&self.url())
            .batch_execute(&format!(
                "BEGIN; INSERT INTO t VALUES (1); PREPARE TRANSACTION E'{literal}'"
            ))
            .unwrap();
    }
}

impl Drop for AsciiDb {
    fn drop(&mut self) {
        common::rollback_prepared_in(&self.name, &self.url());
        let _ = connect(&pg_url()).batch_execute(&format!(
            "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
            self.name
        ));
    }
}

/// A directory holding a stand-in `indoubt` that writes its arguments, NUL-separated,
/// to a file named by $ARGV_OUT, and does nothing else.
fn stand_in(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let script = bin.join("indoubt");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$ARGV_OUT\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// The arguments `sh` gave the stand-in when it read `line` as pasted, `--flag=VALUE`
/// read as the flag and its value.
fn argv_of(line: &str, bin: &Path, scratch: &Path) -> Vec<Vec<u8>> {
    let out = scratch.join(unique("argv"));
    let status = Command::new("sh")
        .args(["-c", line])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("ARGV_OUT", &out)
        .current_dir(scratch)
        .status()
        .expect("sh");
    assert!(status.success(), "sh could not run {line:?}");
    let recorded = std::fs::read(&out).unwrap_or_else(|e| panic!("{line:?} ran no indoubt: {e}"));
    let mut args: Vec<Vec<u8>> = recorded.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
    args.pop(); // after the last NUL
    let mut split = Vec::new();
    for arg in args {
        match arg.iter().position(|b| *b == b'=') {
            Some(at) if arg.starts_with(b"--") => {
                split.push(arg[..at].to_vec());
                split.push(arg[at + 1..].to_vec());
            }
            _ => split.push(arg),
        }
    }
    split
}

/// The next commands of a table or plain layout, as a shell reads them (continuations
/// joined): what follows each `next: `.
fn nexts_of_layout(text: &str) -> Vec<String> {
    as_typed(text)
        .lines()
        .filter_map(|l| l.split_once("next: ").map(|(_, n)| n.to_string()))
        .collect()
}

#[test]
fn every_layouts_next_command_runs_exactly_the_arguments_meant_and_nothing_else() {
    let db = AsciiDb::create();
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("marker");
    std::fs::create_dir(&marker).unwrap();
    let bin = stand_in(scratch.path());
    let mut names = Names(0x5eed_1dea);

    // GIDs (PostgreSQL takes up to 199 bytes), unique, not starting with what another
    // starts with.
    let gids: Vec<Vec<u8>> = (0..6)
        .map(|i| {
            let mut gid = names.name(&marker, true, 150);
            gid.extend_from_slice(format!("-{i}").as_bytes());
            gid
        })
        .collect();
    for gid in &gids {
        db.prepare(gid);
    }
    // A config under a hostile directory name, naming the database under a hostile
    // target name (one 300 characters long).
    let targets: Vec<String> = (0..3)
        .map(|i| {
            let max = if i == 0 { 300 } else { 40 };
            let name = names.name(&marker, false, max);
            String::from_utf8(name).unwrap()
        })
        .collect();
    for target in &targets {
        let dir_name = String::from_utf8(names.name(&marker, false, 60)).unwrap();
        let dir = scratch.path().join(dir_name.replace('/', "_"));
        std::fs::create_dir(&dir).unwrap();
        let config = dir.join("in'dóubt $(x).yaml");
        let mut targets_map = serde_yaml::Mapping::new();
        let mut one = serde_yaml::Mapping::new();
        one.insert("conninfo".into(), db.url().into());
        targets_map.insert(target.as_str().into(), one.into());
        let mut doc = serde_yaml::Mapping::new();
        doc.insert("postgres".into(), targets_map.into());
        std::fs::write(&config, serde_yaml::to_string(&doc).unwrap()).unwrap();
        let config_arg = config.to_str().unwrap();
        let select = [
            "--config",
            config_arg,
            "pg",
            "prepared",
            "--pg",
            target.as_str(),
            "--warning-age",
            "0s",
        ];

        let mut layouts: Vec<(String, Vec<String>)> = Vec::new();
        for columns in [40u16, 80, 200] {
            let screen = common::tty::on_terminal(columns, &[("NO_COLOR", "1")], None, &select);
            layouts.push((format!("terminal {columns}"), nexts_of_layout(&screen.text)));
        }
        let piped = run(common::indoubt().args(select));
        layouts.push(("piped".into(), nexts_of_layout(&piped.stdout)));
        for format in ["json", "yaml"] {
            let out = run(common::indoubt().args(select).args(["-o", format]));
            let report: serde_json::Value = match format {
                "json" => serde_json::from_str(&out.stdout).unwrap(),
                _ => serde_yaml::from_str(&out.stdout).unwrap(),
            };
            let nexts = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|f| f["next"].as_str().map(str::to_string))
                .collect();
            layouts.push((format.to_string(), nexts));
        }

        // The JSON's next command of each GID, run for real below.
        let mut json_nexts = Vec::new();
        for (layout, nexts) in &layouts {
            for gid in &gids {
                // The command meant: `resolve pg GID` of this target, with this run's
                // --config (after `--` when the GID starts with a dash).
                let mut meant: Vec<Vec<u8>> = vec![
                    b"--config".to_vec(),
                    config.as_os_str().as_bytes().to_vec(),
                    b"resolve".to_vec(),
                    b"pg".to_vec(),
                ];
                let tail: Vec<Vec<u8>> = vec![b"--pg".to_vec(), target.as_bytes().to_vec()];
                if gid.starts_with(b"-") {
                    meant.extend(tail);
                    meant.extend([b"--dry-run".to_vec(), b"--".to_vec(), gid.clone()]);
                } else {
                    meant.push(gid.clone());
                    meant.extend(tail);
                    meant.push(b"--dry-run".to_vec());
                }
                let found = nexts
                    .iter()
                    .find(|n| argv_of(n, &bin, scratch.path()) == meant);
                assert!(
                    found.is_some(),
                    "{layout} (target {target:?}): no next command gives resolve pg {:?}; printed: {nexts:#?}",
                    String::from_utf8_lossy(gid)
                );
                if layout == "json" {
                    json_nexts.extend(found.cloned());
                }
            }
            assert_eq!(
                std::fs::read_dir(&marker).unwrap().count(),
                0,
                "{layout}: a planted command ran"
            );
        }

        // The real indoubt, given the JSON's next command as printed, finds the same
        // transaction in its dry run.
        let real_bin = assert_cmd::cargo::cargo_bin("indoubt");
        for next in &json_nexts {
            let out = Command::new("sh")
                // Before the subcommand: after a `--` it would be an operand.
                .args(["-c", &next.replacen("indoubt ", "indoubt -o json ", 1)])
                .env(
                    "PATH",
                    format!("{}:/usr/bin:/bin", real_bin.parent().unwrap().display()),
                )
                .env("HOME", scratch.path())
                .current_dir(scratch.path())
                .output()
                .unwrap();
            let report: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                    panic!("{next}: {e}: {}", String::from_utf8_lossy(&out.stderr))
                });
            assert_eq!(report["command"], "resolve pg", "{next}");
            assert_eq!(report["database"], db.name.as_str(), "{next}: {report:#}");
            assert_eq!(report["dry_run"], true);
        }
        assert_eq!(std::fs::read_dir(&marker).unwrap().count(), 0);
    }
}
