//! libpq's connection service file: the `[NAME]` section that `service=NAME` (or PGSERVICE)
//! takes settings from, found and read as libpq's fe-connect.c does (parseServiceInfo,
//! parseServiceFile).
//!
//! The user's file (the one PGSERVICEFILE names, else ~/.pg_service.conf when it exists)
//! is read first; when it has no such section, PGSYSCONFDIR/pg_service.conf (when it
//! exists). A section is taken from one file only. Lines are `key=value` with nothing
//! around the `=`, the value verbatim to the end of the line (no quotes, no escapes);
//! `#` starts a comment line; a key met twice keeps its first value. A service named in
//! neither file, a nested `service=`, a line without `=` and an unknown key are errors.
//! Messages never quote a value or a line: a service file holds passwords.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Where libpq looks for pg_service.conf when PGSYSCONFDIR is not set: the sysconfdir it
/// was built with, which for Debian's and Ubuntu's libpq is /etc/postgresql-common
/// (`pg_config --sysconfdir`).
pub const DEFAULT_SYSCONFDIR: &str = "/etc/postgresql-common";

/// The section of one service, as its file gives it.
#[derive(Debug, Clone)]
pub struct Section {
    /// The file it was read from.
    pub file: PathBuf,
    /// Its settings in file order (a key given twice only once: the first), verbatim.
    pub settings: Vec<(String, String)>,
}

/// The files searched for a service, in order: the user's (when one applies) and the
/// system's.
#[derive(Debug, Clone)]
pub struct Places {
    /// PGSERVICEFILE's file, else ~/.pg_service.conf (None without HOME).
    pub user: Option<PathBuf>,
    /// PGSYSCONFDIR/pg_service.conf, PGSYSCONFDIR defaulting to [`DEFAULT_SYSCONFDIR`].
    pub system: PathBuf,
    /// PGSERVICEFILE named the user's file: it must then be readable, as in libpq.
    user_file_named: bool,
}

impl Places {
    pub fn of(env: &dyn Fn(&str) -> Option<String>) -> Places {
        let set = |var: &str| env(var).filter(|v| !v.is_empty());
        let (user, user_file_named) = match set("PGSERVICEFILE") {
            Some(file) => (Some(PathBuf::from(file)), true),
            None => (
                set("HOME").map(|home| Path::new(&home).join(".pg_service.conf")),
                false,
            ),
        };
        let dir = set("PGSYSCONFDIR").unwrap_or_else(|| DEFAULT_SYSCONFDIR.to_string());
        Places {
            user,
            system: Path::new(&dir).join("pg_service.conf"),
            user_file_named,
        }
    }
}

/// The section of service `name`, from the first file that has one. `known`: the keys a
/// section may set.
pub fn find(name: &str, places: &Places, known: &[&str]) -> Result<Section> {
    let mut searched = Vec::new();
    if let Some(user) = &places.user {
        // libpq skips a ~/.pg_service.conf that is not there, but reads the file
        // PGSERVICEFILE names whatever it is (and fails when it cannot).
        if places.user_file_named || user.exists() {
            if let Some(settings) = read_section(user, name, known)? {
                return Ok(Section {
                    file: user.clone(),
                    settings,
                });
            }
            searched.push(format!("{} has no [{name}]", user.display()));
        } else {
            searched.push(format!("{} does not exist", user.display()));
        }
    }
    if places.system.exists() {
        if let Some(settings) = read_section(&places.system, name, known)? {
            return Ok(Section {
                file: places.system.clone(),
                settings,
            });
        }
        searched.push(format!("{} has no [{name}]", places.system.display()));
    } else {
        searched.push(format!("{} does not exist", places.system.display()));
    }
    bail!(
        "definition of service {name:?} not found: {} (PGSERVICEFILE names the user's service file, else ~/.pg_service.conf; PGSYSCONFDIR the directory of pg_service.conf)",
        searched.join(", and ")
    )
}

/// The settings of section `[name]` of `file`, or None when it has none.
fn read_section(file: &Path, name: &str, known: &[&str]) -> Result<Option<Vec<(String, String)>>> {
    // A service names the server, its TLS and where the password comes from: one another
    // user owns or can write is refused, as the config is (crate::fsafe).
    let read = crate::fsafe::read_settings_bytes(file, "service file").map_err(|e| {
        // A refusal says what it is about; a failed read gets the file's name.
        match e.downcast_ref::<std::io::Error>() {
            Some(_) => e.context(format!("service file {} cannot be read", file.display())),
            None => e,
        }
    })?;
    let bytes = &read.text;
    let at = |line: usize| format!("service file {}, line {line}", file.display());
    let mut found = false;
    let mut settings: Vec<(String, String)> = Vec::new();
    for (index, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = raw.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        if line[0] == b'[' {
            if found {
                // The next section: the one wanted has ended.
                break;
            }
            // As libpq: the name, then ']'; whatever follows the ']' does not matter.
            found =
                line[1..].starts_with(name.as_bytes()) && line.get(name.len() + 1) == Some(&b']');
            continue;
        }
        if !found {
            continue;
        }
        if line.starts_with(b"ldap") {
            bail!(
                "{}: LDAP lookups of a service are not supported",
                at(index + 1)
            );
        }
        let Some(eq) = line.iter().position(|b| *b == b'=') else {
            bail!("syntax error in {}: not key=value", at(index + 1));
        };
        let (key, value) = (&line[..eq], &line[eq + 1..]);
        if key == b"service" {
            bail!(
                "nested service specifications not supported in {}",
                at(index + 1)
            );
        }
        let Some(key) = std::str::from_utf8(key).ok().filter(|k| known.contains(k)) else {
            // Named only when it reads as an option name: the line may be a password's.
            let shown = std::str::from_utf8(key)
                .ok()
                .filter(|k| {
                    !k.is_empty()
                        && k.len() <= 32
                        && k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                })
                .map(|k| format!(" {k:?}"))
                .unwrap_or_default();
            bail!(
                "syntax error in {}: unsupported connection option{shown} (supported: {})",
                at(index + 1),
                known.join(", ")
            );
        };
        let value = std::str::from_utf8(value)
            .with_context(|| format!("{}: the value of {key} is not UTF-8", at(index + 1)))?;
        // As libpq: a key given twice keeps its first value.
        if !settings.iter().any(|(k, _)| k == key) {
            settings.push((key.to_string(), value.to_string()));
        }
    }
    if settings.iter().any(|(k, _)| k == "password") {
        read.warn_if_others_can_read_as(
            "chmod go-r it (or keep the password in ~/.pgpass, mode 0600)",
        );
    }
    Ok(found.then_some(settings))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the tests make their fixtures directly
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["host", "port", "user", "dbname", "password"];

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pg_service.conf");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn places(user: Option<&Path>, named: bool, system: &Path) -> Places {
        Places {
            user: user.map(Path::to_path_buf),
            system: system.to_path_buf(),
            user_file_named: named,
        }
    }

    #[test]
    fn sections_are_read_as_libpq_reads_them() {
        let (_dir, path) = file(
            "# comment\n  [lab] anything after\nhost=h1\n\tport=5433 \ndbname=a b\nhost=h2\r\n[lab]\nuser=later\n[other]\nbogus\n",
        );
        let found = find(
            "lab",
            &places(Some(&path), true, Path::new("/nonexistent/x")),
            KNOWN,
        )
        .unwrap();
        assert_eq!(
            found.settings,
            vec![
                ("host".to_string(), "h1".to_string()),
                ("port".to_string(), "5433".to_string()),
                ("dbname".to_string(), "a b".to_string()),
            ]
        );
        // A name that only starts like one is another section.
        assert!(find(
            "la",
            &places(Some(&path), true, Path::new("/nonexistent/x")),
            KNOWN
        )
        .is_err());
    }

    #[test]
    fn errors_name_the_file_and_line_never_the_value() {
        for (text, said) in [
            ("[s]\nhost = h\n", "syntax error in service file"),
            ("[s]\nhunter2\n", "not key=value"),
            (
                "[s]\nservice=t\n",
                "nested service specifications not supported",
            ),
            (
                "[s]\nsslcrl=/x\n",
                "unsupported connection option \"sslcrl\"",
            ),
            ("[s]\nldap://h/x\n", "LDAP"),
        ] {
            let (_dir, path) = file(text);
            let err = format!(
                "{:#}",
                find(
                    "s",
                    &places(Some(&path), true, Path::new("/nonexistent/x")),
                    KNOWN
                )
                .unwrap_err()
            );
            assert!(
                err.contains(said) && err.contains(", line 2"),
                "{text:?}: {err}"
            );
            assert!(!err.contains("hunter2"), "{err}");
        }
    }

    #[test]
    fn the_user_file_first_then_the_system_file() {
        let (_user_dir, user) = file("[a]\nhost=user\n");
        let (_sys_dir, system) = file("[a]\nhost=system\nport=1\n[b]\nhost=system\n");
        let both = places(Some(&user), false, &system);
        let a = find("a", &both, KNOWN).unwrap();
        // Taken from one file only: the system's port does not come with it.
        assert_eq!(a.settings, vec![("host".to_string(), "user".to_string())]);
        assert_eq!(a.file, user);
        assert_eq!(find("b", &both, KNOWN).unwrap().file, system);
        let err = format!("{:#}", find("c", &both, KNOWN).unwrap_err());
        assert!(
            err.contains("definition of service \"c\" not found"),
            "{err}"
        );
        // A ~/.pg_service.conf that is not there is skipped; a PGSERVICEFILE is not.
        let missing = user.with_file_name("missing.conf");
        assert!(find("b", &places(Some(&missing), false, &system), KNOWN).is_ok());
        let err = format!(
            "{:#}",
            find("b", &places(Some(&missing), true, &system), KNOWN).unwrap_err()
        );
        assert!(err.contains("cannot be read"), "{err}");
    }
}
