//! MySQL and MariaDB connection settings the mysql client's way: a `mysql://` URL, the
//! `[client]` group of an option file (`~/.my.cnf`), MYSQL_PWD, and `--ssl-mode`.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

pub use crate::secret::Password;

/// The mysql client's `--ssl-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disabled,
    /// TLS when the server offers it, its certificate not checked (the client's default).
    Preferred,
    /// TLS or nothing, its certificate not checked.
    Required,
    /// TLS, the certificate signed by `ssl-ca`.
    VerifyCa,
    /// TLS, the certificate signed by `ssl-ca` and naming the host.
    VerifyIdentity,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disabled => "DISABLED",
            SslMode::Preferred => "PREFERRED",
            SslMode::Required => "REQUIRED",
            SslMode::VerifyCa => "VERIFY_CA",
            SslMode::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }

    /// Case-insensitive, as the client reads it.
    pub fn parse(text: &str) -> Result<SslMode> {
        Ok(match text.to_ascii_uppercase().as_str() {
            "DISABLED" => SslMode::Disabled,
            "PREFERRED" => SslMode::Preferred,
            "REQUIRED" => SslMode::Required,
            "VERIFY_CA" => SslMode::VerifyCa,
            "VERIFY_IDENTITY" => SslMode::VerifyIdentity,
            _ => bail!(
                "invalid ssl-mode {:?}: use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY (as the mysql client's --ssl-mode)",
                crate::text::escape(text)
            ),
        })
    }
}

/// Where a server is and how to log in to it, resolved.
#[derive(Debug, Clone)]
pub struct MysqlParams {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<Password>,
    /// Where the password came from (`the option file F`, `MYSQL_PWD`, `the URL`), never itself.
    pub password_from: Option<String>,
    pub database: Option<String>,
    pub ssl_mode: SslMode,
    pub ssl_ca: Option<PathBuf>,
    /// Where `ssl_ca` was set, for messages about it: `ssl-ca` (the flag or the target's
    /// setting), `ssl-ca (the URL)`, `ssl-ca (option file F)`.
    pub ssl_ca_from: String,
}

impl MysqlParams {
    /// `mysql://user@host:port/db`: never the password.
    pub fn describe(&self) -> String {
        let host = match self.host.contains(':') {
            true => format!("[{}]", self.host),
            false => self.host.clone(),
        };
        format!(
            "mysql://{}@{}:{}/{}",
            self.user,
            host,
            self.port,
            self.database.as_deref().unwrap_or("")
        )
    }
}

/// What names a server: a URL, and optionally an option file and a TLS mode over it.
#[derive(Debug, Clone, Default)]
pub struct Given<'a> {
    pub url: &'a str,
    /// An option file to read `[client]` from; else `~/.my.cnf` when there is one.
    pub option_file: Option<&'a Path>,
    pub ssl_mode: Option<&'a str>,
    pub ssl_ca: Option<&'a Path>,
}

/// The default port of both servers.
pub const DEFAULT_PORT: u16 = 3306;

/// Whether a value is a `mysql://` URL rather than a target name.
pub fn looks_like_url(text: &str) -> bool {
    text.starts_with("mysql://") || text.starts_with("mariadb://")
}

/// Resolves the settings: the URL's, then the option file's `[client]` group for what the
/// URL leaves out, then MYSQL_PWD for a password neither gives; the user defaults to the
/// login name, as the mysql client's does.
pub fn resolve(given: &Given, env: &dyn Fn(&str) -> Option<String>) -> Result<MysqlParams> {
    let url = url::Url::parse(given.url).map_err(|e| {
        anyhow::anyhow!("not a mysql:// URL ({e}): write mysql://USER@HOST:PORT/DB")
    })?;
    if !matches!(url.scheme(), "mysql" | "mariadb") {
        bail!("not a mysql:// URL: write mysql://USER@HOST:PORT/DB");
    }
    let host = match url.host() {
        Some(url::Host::Ipv6(ip)) => ip.to_string(),
        Some(host) => host.to_string(),
        None => bail!("the mysql:// URL names no host: write mysql://USER@HOST:PORT/DB"),
    };
    let decode = |text: &str| -> Result<String> {
        percent_decode(text).context("a %-escape in the URL that is not UTF-8")
    };
    let database = url
        .path()
        .strip_prefix('/')
        .filter(|d| !d.is_empty())
        .map(decode)
        .transpose()?;
    if database.as_deref().is_some_and(|d| d.contains('/')) {
        bail!("the mysql:// URL's path is one database name: mysql://USER@HOST:PORT/DB");
    }
    let mut ssl_mode = None;
    let mut ssl_ca = None;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "ssl-mode" | "ssl_mode" | "sslmode" => ssl_mode = Some(SslMode::parse(&value)?),
            "ssl-ca" | "ssl_ca" => ssl_ca = Some(PathBuf::from(value.as_ref())),
            other => bail!(
                "unknown parameter {:?} in the mysql:// URL: it takes ssl-mode and ssl-ca",
                crate::text::escape(other)
            ),
        }
    }
    let home = env("HOME").map(PathBuf::from);
    let file = match given.option_file {
        Some(path) => Some(
            read_option_file(path)?
                .with_context(|| format!("the option file {} does not exist", path.display()))?,
        ),
        None => match home.as_ref().map(|h| h.join(".my.cnf")) {
            Some(path) => read_option_file(&path)?,
            None => None,
        },
    };
    let from_file = |key: &str| file.as_ref().and_then(|f| f.get(key));
    let user = match url.username() {
        "" => from_file("user")
            .or_else(|| env("USER"))
            .or_else(crate::pg::conninfo::os_user_name)
            .context("no user: name one in the URL (mysql://USER@HOST/) or the option file")?,
        user => decode(user)?,
    };
    let (password, password_from) = match (url.password(), from_file("password"), env("MYSQL_PWD"))
    {
        (Some(p), _, _) => (Some(decode(p)?), Some("the URL".to_string())),
        (None, Some(p), _) => (
            Some(p),
            file.as_ref()
                .map(|f| format!("the option file {}", f.path.display())),
        ),
        (None, None, Some(p)) => (Some(p), Some("MYSQL_PWD".to_string())),
        (None, None, None) => (None, None),
    };
    if let Some(mode) = given.ssl_mode {
        ssl_mode = Some(SslMode::parse(mode)?);
    }
    let ssl_mode = match (ssl_mode, from_file("ssl-mode")) {
        (Some(mode), _) => mode,
        (None, Some(mode)) => SslMode::parse(&mode)?,
        (None, None) => SslMode::Preferred,
    };
    let (ssl_ca, ssl_ca_from) = match (given.ssl_ca, ssl_ca, from_file("ssl-ca")) {
        (Some(ca), _, _) => (Some(ca.to_path_buf()), "ssl-ca".to_string()),
        (None, Some(ca), _) => (Some(ca), "ssl-ca (the URL)".to_string()),
        (None, None, Some(ca)) => (
            Some(PathBuf::from(ca)),
            file.as_ref().map_or("ssl-ca".to_string(), |f| {
                format!("ssl-ca (option file {})", f.path.display())
            }),
        ),
        (None, None, None) => (None, "ssl-ca".to_string()),
    };
    if matches!(ssl_mode, SslMode::VerifyCa | SslMode::VerifyIdentity) && ssl_ca.is_none() {
        bail!(
            "ssl-mode {} needs ssl-ca, the CA certificate to check the server's with",
            ssl_mode.as_str()
        );
    }
    Ok(MysqlParams {
        host,
        port: url.port().unwrap_or(DEFAULT_PORT),
        user,
        password: password.map(Password::new),
        password_from,
        database,
        ssl_mode,
        ssl_ca,
        ssl_ca_from,
    })
}

/// A `mysql://` URL with its password masked (None when it does not parse: then nothing
/// of it is shown).
pub fn redact(text: &str) -> Option<String> {
    let mut url = url::Url::parse(text).ok()?;
    if url.password().is_some() {
        url.set_password(Some("<redacted>")).ok()?;
    }
    Some(url.to_string())
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// An option file's `[client]` group, as the mysql client reads it.
#[derive(Debug)]
pub struct OptionFile {
    pub path: PathBuf,
    values: Vec<(String, String)>,
}

impl OptionFile {
    /// The last value of `key` (`_` and `-` are the same in option names).
    pub fn get(&self, key: &str) -> Option<String> {
        let key = key.replace('_', "-");
        self.values
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    }
}

/// An option file refused before it is read: the application says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionFileRefused {
    /// A FIFO, a device or a directory: reading it could block, unbounded.
    NotAFile(PathBuf),
}

impl std::fmt::Display for OptionFileRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionFileRefused::NotAFile(path) => {
                write!(
                    f,
                    "the option file {} is not a regular file",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for OptionFileRefused {}

/// Reads an option file, None when there is none. One another user owns or group or
/// others may write is refused (crate::fsafe::read_settings; the mysql client ignores a
/// world-writable one: "World-writable config file … is ignored"): what another user
/// could plant must not choose the server a password is sent to.
pub fn read_option_file(path: &Path) -> Result<Option<OptionFile>> {
    read_at_depth(path, 0)
}

/// `!include` is followed as the client follows it, a few levels deep (a loop ends).
const INCLUDE_DEPTH: usize = 4;

fn read_at_depth(path: &Path, depth: usize) -> Result<Option<OptionFile>> {
    // The client's way of saying "no option file".
    if path == Path::new("/dev/null") {
        return Ok(Some(OptionFile {
            path: path.to_path_buf(),
            values: Vec::new(),
        }));
    }
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    // A FIFO or a device would block the read, unbounded.
    if !meta.is_file() {
        return Err(OptionFileRefused::NotAFile(path.to_path_buf()).into());
    }
    // Another user's, or one group or others can write, is refused (the mysql client
    // ignores a world-writable one): what another user could plant or change must not
    // choose the server a password is sent to.
    let file = crate::fsafe::read_settings(path, "option file").map_err(|e| {
        // A refusal says what it is about; a failed read gets the file's name.
        match e.downcast_ref::<std::io::Error>() {
            Some(_) => e.context(format!("reading the option file {}", path.display())),
            None => e,
        }
    })?;
    let text = &file.text;
    let mut values = Vec::new();
    for line in parse_client_group(text) {
        match line {
            Line::Value(key, value) => values.push((key, value)),
            Line::Include(included) if depth < INCLUDE_DEPTH => {
                let included = path.parent().unwrap_or(Path::new("/")).join(included);
                match read_at_depth(&included, depth + 1)? {
                    Some(file) => values.extend(file.values),
                    None => bail!(
                        "the option file {} includes {}, which does not exist",
                        path.display(),
                        included.display()
                    ),
                }
            }
            Line::Include(_) => bail!(
                "the option file {} nests !include more than {INCLUDE_DEPTH} deep",
                path.display()
            ),
        }
    }
    if values.iter().any(|(k, _)| k == "password") {
        file.warn_if_others_can_read_as("chmod 600 it");
    }
    Ok(Some(OptionFile {
        path: path.to_path_buf(),
        values,
    }))
}

/// One line of an option file that matters here.
enum Line {
    /// A `[client]` option, its name with `-` for `_`.
    Value(String, String),
    /// `!include FILE` (anywhere: the included file has groups of its own).
    Include(String),
}

/// The `key=value` lines of the `[client]` groups: `#` and `;` start comments (outside
/// quotes), values may be quoted, and `\n \t \r \b \s \\` are escapes, as in MySQL's
/// option files; `!include FILE` lines are returned to be followed (`!includedir` is not).
fn parse_client_group(text: &str) -> Vec<Line> {
    let mut values = Vec::new();
    let mut in_client = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(file) = line.strip_prefix("!include ") {
            values.push(Line::Include(file.trim().to_string()));
            continue;
        }
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with(';')
            || line.starts_with('!')
        {
            continue;
        }
        if let Some(group) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            in_client = group.trim().eq_ignore_ascii_case("client");
            continue;
        }
        if !in_client {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), option_value(v.trim())),
            None => (line, String::new()),
        };
        values.push(Line::Value(
            key.replace('_', "-").to_ascii_lowercase(),
            value,
        ));
    }
    values
}

fn option_value(raw: &str) -> String {
    let quote = raw.chars().next().filter(|c| *c == '"' || *c == '\'');
    let mut out = String::new();
    let mut chars = raw.chars().skip(usize::from(quote.is_some())).peekable();
    while let Some(c) = chars.next() {
        match c {
            c if Some(c) == quote => break,
            '#' if quote.is_none() => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('b') => out.push('\u{8}'),
                Some('s') => out.push(' '),
                Some('\\') => out.push('\\'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    match quote {
        Some(_) => out,
        None => out.trim_end().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_url_gives_host_port_user_database_and_tls_mode() {
        let p = resolve(
            &Given {
                url: "mysql://app%40ops@db1.example:3307/shop?ssl-mode=required",
                ..Given::default()
            },
            &env_of(&[]),
        )
        .unwrap();
        assert_eq!(
            (
                p.host.as_str(),
                p.port,
                p.user.as_str(),
                p.database.as_deref()
            ),
            ("db1.example", 3307, "app@ops", Some("shop"))
        );
        assert_eq!(p.ssl_mode, SslMode::Required);
        assert!(p.password.is_none());
        assert_eq!(p.describe(), "mysql://app@ops@db1.example:3307/shop");
        assert_eq!(
            redact("mysql://u:s3cret@db1/shop").as_deref(),
            Some("mysql://u:%3Credacted%3E@db1/shop")
        );
    }

    #[test]
    fn the_password_comes_from_the_option_file_then_mysql_pwd_and_never_prints() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("my.cnf");
        std::fs::write(
            &file,
            "[mysql]\npassword=not-this\n[client]\nuser = ops\npassword = \"s3cr#t \\\\x\" # comment\n",
        )
        .unwrap();
        let p = resolve(
            &Given {
                url: "mysql://db1",
                option_file: Some(&file),
                ..Given::default()
            },
            &env_of(&[("MYSQL_PWD", "from-env")]),
        )
        .unwrap();
        assert_eq!(p.user, "ops");
        assert_eq!(p.password.as_ref().unwrap().expose(), "s3cr#t \\x");
        assert!(!format!("{p:?}").contains("s3cr"));
        assert_eq!(p.port, DEFAULT_PORT);
        let p = resolve(
            &Given {
                url: "mysql://u@db1",
                ..Given::default()
            },
            &env_of(&[("MYSQL_PWD", "from-env")]),
        )
        .unwrap();
        assert_eq!(p.password.unwrap().expose(), "from-env");
        assert_eq!(p.password_from.as_deref(), Some("MYSQL_PWD"));
    }

    #[test]
    fn includes_are_followed_and_dev_null_is_no_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("secret.cnf"),
            "[client]\npassword=from-include\n",
        )
        .unwrap();
        let file = dir.path().join("my.cnf");
        std::fs::write(&file, "[client]\nuser=ops\n!include secret.cnf\n").unwrap();
        let p = resolve(
            &Given {
                url: "mysql://db1",
                option_file: Some(&file),
                ..Given::default()
            },
            &env_of(&[]),
        )
        .unwrap();
        assert_eq!(p.password.unwrap().expose(), "from-include");
        let p = resolve(
            &Given {
                url: "mysql://u@db1",
                option_file: Some(Path::new("/dev/null")),
                ..Given::default()
            },
            &env_of(&[("MYSQL_PWD", "env")]),
        )
        .unwrap();
        assert_eq!(p.password_from.as_deref(), Some("MYSQL_PWD"));
        std::fs::write(&file, "[client]\n!include missing.cnf\n").unwrap();
        let e = resolve(
            &Given {
                url: "mysql://u@db1",
                option_file: Some(&file),
                ..Given::default()
            },
            &env_of(&[]),
        )
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("missing.cnf, which does not exist"),
            "{e:#}"
        );
    }

    #[test]
    fn bad_settings_are_refused_with_what_is_accepted() {
        let err = |url: &str| {
            format!(
                "{:#}",
                resolve(
                    &Given {
                        url,
                        ..Given::default()
                    },
                    &env_of(&[])
                )
                .unwrap_err()
            )
        };
        assert!(err("mysql://u@db1/shop?ssl-mode=sometimes").contains("use DISABLED, PREFERRED"));
        assert!(err("mysql://u@db1/shop?sslca=x").contains("it takes ssl-mode and ssl-ca"));
        assert!(err("postgres://u@db1/shop").contains("not a mysql:// URL"));
        assert!(err("mysql://u@db1/shop?ssl-mode=VERIFY_CA").contains("needs ssl-ca"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("my.cnf");
        std::fs::write(&file, "[client]\npassword=x\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        let e = resolve(
            &Given {
                url: "mysql://u@db1",
                option_file: Some(&file),
                ..Given::default()
            },
            &env_of(&[]),
        )
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("is writable by group and others (mode 0666)"),
            "{e:#}"
        );
    }
}
