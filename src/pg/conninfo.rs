//! libpq-compatible connection parameters: postgres:// URLs, key=value strings, services
//! of pg_service.conf, PG* variables and ~/.pgpass.
//!
//! We parse these ourselves rather than handing the string to tokio-postgres because we
//! must know which part is the password (to keep it out of every message), fill gaps
//! from the environment and the password file the way libpq does, and support the
//! `verify-ca`/`verify-full` modes that tokio-postgres does not model.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::secret::Password;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    /// libpq's `allow` tries plain first; we have no such order and treat it as `prefer`.
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(text: &str) -> Result<SslMode> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => bail!(
                "invalid sslmode {other:?}: use disable, allow, prefer, require, verify-ca or verify-full"
            ),
        })
    }
}

#[derive(Debug, Clone)]
pub struct ConnParams {
    /// Host names, IP addresses or Unix socket directories (starting with `/`).
    pub hosts: Vec<String>,
    pub hostaddrs: Vec<std::net::IpAddr>,
    pub ports: Vec<u16>,
    pub user: String,
    pub dbname: String,
    /// Why `dbname` is what it is when no setting named a database: None when one did
    /// (the connection string, -d, a service or PGDATABASE).
    pub dbname_default: Option<UnnamedDb>,
    pub password: Option<Password>,
    pub sslmode: SslMode,
    pub sslrootcert: Option<PathBuf>,
    pub sslcert: Option<PathBuf>,
    pub sslkey: Option<PathBuf>,
    pub connect_timeout: Option<Duration>,
    pub read_write_only: bool,
    /// Where the password came from, for a hint when the server refuses it.
    pub password_from: Option<PasswordFrom>,
    /// The PG* variables that filled in settings, for messages.
    pub from_environment: Vec<&'static str>,
    /// The service of pg_service.conf that filled in settings, when one was named.
    pub service: Option<Service>,
    /// The password file searched when no password was given (found there or not).
    pub passfile: Option<PathBuf>,
    /// The password file was passed over because its group or others may read it, as
    /// libpq passes it over; libpq warns, and so must the application.
    pub passfile_ignored: bool,
    /// Where the connection string came from, as the caller names it: for messages only.
    pub origin: Origin,
}

/// Where a connection string came from, as the caller names it (for messages only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origin {
    #[default]
    Unknown,
    /// A connection string was given, and where: "the connection string of --pg", "the
    /// conninfo of postgres target \"db1\" of FILE".
    Given(String),
    /// None was: libpq's defaults and the PG* variables apply. Why, and where the
    /// caller looked for one.
    Defaults(String),
}

/// The database a connection goes to when no setting names one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnnamedDb {
    /// libpq's default: the user name (for a command that reads one database).
    #[default]
    UserName,
    /// `postgres`, for a command that reads the whole server (as check_postgres does): any
    /// database would do, and the user's own seldom exists.
    Postgres,
}

/// A service of a service file that filled in settings (never their values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    pub name: String,
    /// The file its section was read from.
    pub file: PathBuf,
    /// PGSERVICE named it (not `service=` of the connection string).
    pub from_environment: bool,
    /// The keys it set: those the connection string (and -h, -p, -U, -d) left unset.
    pub keys: Vec<String>,
}

impl Service {
    /// `service "lab" of /home/me/.pg_service.conf (named by PGSERVICE)`.
    pub fn describe(&self) -> String {
        format!(
            "service {:?} of {}{}",
            self.name,
            self.file.display(),
            if self.from_environment {
                " (named by PGSERVICE)"
            } else {
                ""
            }
        )
    }
}

/// Where a password came from (never the password itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasswordFrom {
    /// `password=` or the URL's password.
    ConnectionString,
    /// `password=` of a service's section in a service file.
    Service(Service),
    /// PGPASSWORD.
    Environment,
    /// A password file (`passfile=`, PGPASSFILE or ~/.pgpass).
    File(PathBuf),
}

const KNOWN_KEYS: &[&str] = &[
    "service",
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "connect_timeout",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "application_name",
    "target_session_attrs",
];

/// Environment variables that stand in for missing keys, as in libpq.
const ENV_FALLBACKS: &[(&str, &str)] = &[
    ("host", "PGHOST"),
    ("hostaddr", "PGHOSTADDR"),
    ("port", "PGPORT"),
    ("dbname", "PGDATABASE"),
    ("user", "PGUSER"),
    ("password", "PGPASSWORD"),
    ("passfile", "PGPASSFILE"),
    ("connect_timeout", "PGCONNECT_TIMEOUT"),
    ("sslmode", "PGSSLMODE"),
    ("sslrootcert", "PGSSLROOTCERT"),
    ("sslcert", "PGSSLCERT"),
    ("sslkey", "PGSSLKEY"),
    ("target_session_attrs", "PGTARGETSESSIONATTRS"),
];

/// Whether a `--pg` value is a connection string rather than a target name.
pub fn looks_like_conninfo(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://") || text.contains('=')
}

impl ConnParams {
    /// Builds parameters from a URL or conninfo string (empty: environment only),
    /// with `env` standing in for the process environment.
    pub fn resolve(conninfo: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<ConnParams> {
        Self::resolve_with(conninfo, &[], UnnamedDb::UserName, env)
    }

    /// The same, with `overrides` (psql's -h, -p, -U, -d: `host`, `port`, `user`,
    /// `dbname`) over the string's own settings, as psql's options are (the password file
    /// is then searched for the overridden server and user), and `unnamed` the database
    /// when nothing names one.
    ///
    /// As libpq: the connection string's settings (and the overrides) first, then those of
    /// its service (`service=`, else PGSERVICE) for the keys still unset, then the PG*
    /// variables, then the defaults.
    pub fn resolve_with(
        conninfo: &str,
        overrides: &[(&str, &str)],
        unnamed: UnnamedDb,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ConnParams> {
        let mut keys = parse_conninfo(conninfo)?;
        for (key, value) in overrides {
            keys.insert(key.to_string(), value.to_string());
        }
        let mut from_environment = Vec::new();
        // An empty service= names none (and, being given, keeps PGSERVICE out).
        let service_name = match keys.remove("service") {
            Some(name) => Some(name).filter(|n| !n.is_empty()).map(|n| (n, false)),
            None => env("PGSERVICE")
                .filter(|n| !n.is_empty())
                .map(|n| (n, true)),
        };
        let service = match service_name {
            None => None,
            Some((name, from_env)) => {
                let places = super::service::Places::of(env);
                // The section may set any key the connection string may, but a service.
                let settable: Vec<&str> = KNOWN_KEYS
                    .iter()
                    .copied()
                    .filter(|k| *k != "service")
                    .collect();
                let section = super::service::find(&name, &places, &settable)?;
                let mut set = Vec::new();
                for (key, value) in section.settings {
                    if !keys.contains_key(&key) {
                        keys.insert(key.clone(), value);
                        set.push(key);
                    }
                }
                if from_env {
                    from_environment.push("PGSERVICE");
                }
                Some(Service {
                    name,
                    file: section.file,
                    from_environment: from_env,
                    keys: set,
                })
            }
        };
        for (key, var) in ENV_FALLBACKS {
            if !keys.contains_key(*key) {
                if let Some(value) = env(var).filter(|v| !v.is_empty()) {
                    keys.insert(key.to_string(), value);
                    from_environment.push(*var);
                }
            }
        }
        let take = |k: &str| keys.get(k).filter(|v| !v.is_empty()).cloned();

        let hostaddrs = split_list(take("hostaddr").as_deref())
            .into_iter()
            .map(|a| {
                a.parse()
                    .map_err(|_| anyhow::anyhow!("invalid hostaddr {a:?}: not an IP address"))
            })
            .collect::<Result<Vec<std::net::IpAddr>>>()?;
        let mut hosts: Vec<String> = split_list(take("host").as_deref())
            .into_iter()
            .map(|h| {
                if h.is_empty() {
                    default_socket_dir()
                } else {
                    h
                }
            })
            .collect();
        if hosts.is_empty() {
            if hostaddrs.is_empty() {
                hosts.push(default_socket_dir());
            } else {
                hosts = hostaddrs.iter().map(|a| a.to_string()).collect();
            }
        }
        let ports = split_list(take("port").as_deref())
            .into_iter()
            .map(|p| match p.as_str() {
                "" => Ok(5432),
                // Not quoted: in a URL, a password with an unencoded '/' ends up here.
                p => p.parse::<u16>().map_err(|_| {
                    anyhow::anyhow!("invalid port: not a number from 1 to 65535 (in a URL, %-encode / and @ in the password)")
                }),
            })
            .collect::<Result<Vec<u16>>>()?;
        let ports = if ports.is_empty() { vec![5432] } else { ports };
        if ports.len() != 1 && ports.len() != hosts.len() {
            bail!(
                "{} ports given for {} hosts: give one port, or one per host",
                ports.len(),
                hosts.len()
            );
        }
        let user = match take("user") {
            Some(user) => user,
            None => env("USER")
                .or_else(|| env("LOGNAME"))
                .or_else(os_user_name)
                .context("no user name: set user= in the connection string or PGUSER")?,
        };
        let (dbname, dbname_default) = match take("dbname") {
            Some(dbname) => (dbname, None),
            None => match unnamed {
                UnnamedDb::UserName => (user.clone(), Some(unnamed)),
                UnnamedDb::Postgres => ("postgres".to_string(), Some(unnamed)),
            },
        };
        let sslrootcert_system = take("sslrootcert").as_deref() == Some("system");
        let sslmode = match (take("sslmode"), sslrootcert_system) {
            (Some(mode), system) => {
                let mode = SslMode::parse(&mode)?;
                if system && mode != SslMode::VerifyFull {
                    bail!("sslrootcert=system needs sslmode=verify-full (as libpq): the system store proves nothing without the host name check");
                }
                mode
            }
            (None, true) => SslMode::VerifyFull,
            (None, false) => SslMode::Prefer,
        };
        // libpq: 0 means no limit (ours is then --timeout alone); under 2s counts as 2s.
        let connect_timeout = match take("connect_timeout") {
            Some(t) => match t.trim().parse::<u64>() {
                Ok(0) => None,
                Ok(secs) => Some(Duration::from_secs(secs.max(2))),
                Err(_) => bail!("invalid connect_timeout {t:?}: whole seconds"),
            },
            None => None,
        };
        let read_write_only = match take("target_session_attrs").as_deref() {
            None | Some("any") => false,
            Some("read-write") => true,
            Some(other) => {
                bail!("unsupported target_session_attrs {other:?}: use any or read-write")
            }
        };
        let mut params = ConnParams {
            hosts,
            hostaddrs,
            ports,
            user,
            dbname,
            dbname_default,
            password: take("password").map(Password::new),
            sslmode,
            sslrootcert: take("sslrootcert").map(PathBuf::from),
            sslcert: take("sslcert").map(PathBuf::from),
            sslkey: take("sslkey").map(PathBuf::from),
            connect_timeout,
            read_write_only,
            password_from: None,
            from_environment,
            service,
            passfile: None,
            passfile_ignored: false,
            origin: Origin::Unknown,
        };
        if params.password.is_some() {
            params.password_from = Some(match &params.service {
                Some(service) if service.keys.iter().any(|k| k == "password") => {
                    PasswordFrom::Service(service.clone())
                }
                _ if params.from_environment.contains(&"PGPASSWORD") => PasswordFrom::Environment,
                _ => PasswordFrom::ConnectionString,
            });
        } else {
            let passfile = take("passfile")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|home| Path::new(&home).join(".pgpass")));
            if let Some(passfile) = passfile {
                match password_from_file(&passfile, &params)? {
                    FromPassfile::Password(password) => {
                        params.password = Some(Password::new(password))
                    }
                    FromPassfile::Nothing => {}
                    FromPassfile::Ignored => params.passfile_ignored = true,
                }
                if params.password.is_some() {
                    params.password_from = Some(PasswordFrom::File(passfile.clone()));
                }
                params.passfile = Some(passfile);
            }
        }
        Ok(params)
    }

    /// The same server, another database (to name relations of locks held there).
    pub fn with_dbname(&self, dbname: &str) -> ConnParams {
        ConnParams {
            dbname: dbname.to_string(),
            dbname_default: None,
            ..self.clone()
        }
    }

    /// Equal for two settings that reach the same server as the same user with the same
    /// TLS (and password, hashed: the key holds no secret), whatever their database and
    /// wherever they came from.
    pub fn server_key(&self) -> String {
        format!(
            "{:?}|{:?}|{:?}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{}",
            self.hosts,
            self.hostaddrs,
            self.ports,
            self.user,
            self.password.as_ref().map(|p| {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                p.expose().hash(&mut hasher);
                hasher.finish()
            }),
            self.sslmode,
            self.sslrootcert,
            self.sslcert,
            self.sslkey,
            self.read_write_only
        )
    }

    /// Where we connect, for messages and reports. Never includes the password.
    pub fn describe(&self) -> String {
        let hosts = self
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let port = self
                    .ports
                    .get(i)
                    .or(self.ports.first())
                    .copied()
                    .unwrap_or(5432);
                if h.contains(':') && !h.starts_with('/') {
                    format!("[{h}]:{port}")
                } else {
                    format!("{h}:{port}")
                }
            })
            .collect::<Vec<_>>()
            .join(",");
        format!("{}@{}/{}", self.user, hosts, self.dbname)
    }

    pub fn first_host(&self) -> &str {
        self.hosts.first().map(String::as_str).unwrap_or("")
    }

    pub fn first_port(&self) -> u16 {
        self.ports.first().copied().unwrap_or(5432)
    }

    /// Each host with its port, as connections go to them: `host:port` for TCP (the
    /// hostaddr when one is given), the socket file for a Unix socket directory.
    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.hosts
            .iter()
            .enumerate()
            .map(|(i, host)| {
                let port = self
                    .ports
                    .get(i)
                    .or(self.ports.first())
                    .copied()
                    .unwrap_or(5432);
                if host.starts_with('/') {
                    Endpoint::Socket(format!("{}/.s.PGSQL.{port}", host.trim_end_matches('/')))
                } else {
                    let host = self
                        .hostaddrs
                        .get(i)
                        .map(|a| a.to_string())
                        .unwrap_or_else(|| host.clone());
                    if host.contains(':') {
                        Endpoint::Tcp(format!("[{host}]:{port}"))
                    } else {
                        Endpoint::Tcp(format!("{host}:{port}"))
                    }
                }
            })
            .collect()
    }
}

/// Where one connection attempt goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `host:port` (`[v6]:port`).
    Tcp(String),
    /// The Unix socket file libpq would use, e.g. /var/run/postgresql/.s.PGSQL.5432.
    Socket(String),
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Tcp(a) | Endpoint::Socket(a) => f.write_str(a),
        }
    }
}

/// libpq's default user is the operating-system user (cron and CI often have no $USER).
pub fn os_user_name() -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        user_name_of(std::fs::metadata("/proc/self").ok()?.uid())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The name of `uid` in /etc/passwd.
pub fn user_name_of(uid: u32) -> Option<String> {
    let uid = uid.to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 2 && fields[2] == uid).then(|| fields[0].to_string())
    })
}

/// A comma-separated list; an empty entry keeps its place (libpq then uses the default).
fn split_list(value: Option<&str>) -> Vec<String> {
    value
        .filter(|v| !v.is_empty())
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default()
}

/// Debian's libpq looks for the server socket in /var/run/postgresql; upstream's default is /tmp.
fn default_socket_dir() -> String {
    if Path::new("/var/run/postgresql").is_dir() {
        "/var/run/postgresql".to_string()
    } else {
        "/tmp".to_string()
    }
}

/// One setting of a connection string and where its value is written in the text (quotes
/// and %-escapes included): the connection code reads the value, the audit trail masks the
/// span of a password, so both go by one grammar.
#[derive(Debug, Clone)]
struct Setting {
    key: String,
    value: String,
    span: Range<usize>,
}

/// Splits a URL or a key=value string into keys. Messages never quote values or unknown
/// words: they may be (part of) a password.
fn parse_conninfo(text: &str) -> Result<BTreeMap<String, String>> {
    Ok(settings(text)?
        .into_iter()
        .map(|s| (s.key, s.value))
        .collect())
}

/// Every setting of the string, in order (a later one wins), unknown keys refused.
fn settings(text: &str) -> Result<Vec<Setting>> {
    let lead = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let settings = if let Some(rest) = trimmed
        .strip_prefix("postgresql://")
        .or_else(|| trimmed.strip_prefix("postgres://"))
    {
        parse_url(rest, lead + (trimmed.len() - rest.len()))?
    } else {
        parse_key_values(text)?
    };
    if let Some(bad) = settings
        .iter()
        .map(|s| &s.key)
        .find(|k| !KNOWN_KEYS.contains(&k.as_str()))
    {
        // Name it only if it looks like an option name: a stray word may be part of a password.
        let looks_like_option = bad.len() <= 32
            && bad.contains('_')
            && bad.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        let shown = if looks_like_option {
            format!(" {bad:?}")
        } else {
            String::new()
        };
        bail!(
            "unsupported connection option{shown} (supported: {})",
            KNOWN_KEYS.join(", ")
        );
    }
    Ok(settings)
}

/// The connection string with every password replaced by `<redacted>`, found by the
/// parser that reads it; a string that parser does not accept is masked whole (where a
/// password starts and ends in it cannot be known).
pub fn redact(text: &str) -> String {
    match settings(text) {
        Ok(settings) => mask_passwords(text, &settings),
        Err(_) => NOT_ACCEPTED.to_string(),
    }
}

/// What stands for a connection string the parser refused: all of it may be secret.
pub const NOT_ACCEPTED: &str = "<redacted: not a connection string indoubt accepts>";

/// For text no parser reads as a connection string (a positional argument, an unknown
/// option): the text with its passwords masked when it reads as a connection string that
/// names one, masked whole when it has the shape of user info (`user:password@host`) the
/// parser does not accept (`postgres:/u:pw@h`, `postgresql//u:pw@h`, `http://u:pw@h`),
/// else None.
pub fn redact_if_it_holds_a_password(text: &str) -> Option<String> {
    let trimmed = text.trim();
    // `user:password@host`, whatever comes before it (a mistyped scheme, another one).
    let url_with_userinfo = !trimmed.contains(char::is_whitespace)
        && trimmed
            .find(':')
            .is_some_and(|colon| trimmed[colon..].contains('@'));
    let postgres_url = trimmed.starts_with("postgres://") || trimmed.starts_with("postgresql://");
    if url_with_userinfo && !postgres_url {
        return Some(NOT_ACCEPTED.to_string());
    }
    match lex(text)? {
        Ok(settings) if settings.iter().any(is_password) => Some(mask_passwords(text, &settings)),
        Ok(_) => None,
        Err(_) if postgres_url => Some(NOT_ACCEPTED.to_string()),
        // Not a connection string: a lone quote, say. Mask only if it names a password.
        Err(_) if trimmed.to_ascii_lowercase().contains("password") => {
            Some(NOT_ACCEPTED.to_string())
        }
        Err(_) => None,
    }
}

/// The text read as a URL or key=value settings, keys not checked; None when it has
/// the shape of neither.
fn lex(text: &str) -> Option<Result<Vec<Setting>>> {
    if !looks_like_conninfo(text) {
        return None;
    }
    let trimmed = text.trim();
    Some(
        if let Some(rest) = trimmed
            .strip_prefix("postgresql://")
            .or_else(|| trimmed.strip_prefix("postgres://"))
        {
            let lead = text.len() - text.trim_start().len();
            parse_url(rest, lead + (trimmed.len() - rest.len()))
        } else {
            parse_key_values(text)
        },
    )
}

/// The text with its passwords masked when the whole of it reads as a URL or key=value
/// connection string that sets one; else None. Unlike [`redact_if_it_holds_a_password`],
/// text that does not read as a connection string is left alone (free text, a query).
pub fn redact_password(text: &str) -> Option<String> {
    match lex(text)? {
        Ok(settings) if settings.iter().any(is_password) => Some(mask_passwords(text, &settings)),
        _ => None,
    }
}

fn is_password(s: &Setting) -> bool {
    s.key.eq_ignore_ascii_case("password")
}

fn mask_passwords(text: &str, settings: &[Setting]) -> String {
    let mut spans: Vec<&Range<usize>> = settings
        .iter()
        .filter(|s| is_password(s))
        .map(|s| &s.span)
        .collect();
    spans.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        if span.start < at {
            continue;
        }
        out.push_str(&text[at..span.start]);
        out.push_str("<redacted>");
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A word that can only be a target name: letters, digits, `_`, `-` and `.` — none of
/// the `:`, `@`, `/` or `=` a URL or conninfo string (and so a password in it) is made of.
pub fn is_plain_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn parse_key_values(text: &str) -> Result<Vec<Setting>> {
    let mut settings = Vec::new();
    let mut chars = text.char_indices().peekable();
    let skip_spaces = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            chars.next();
        }
    };
    loop {
        skip_spaces(&mut chars);
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(&(_, c)) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            key.push(c);
            chars.next();
        }
        skip_spaces(&mut chars);
        if chars.next().map(|(_, c)| c) != Some('=') {
            // Never quote the word: an unquoted password with a space lands here.
            bail!(
                "invalid connection string: word {} is not key=value",
                settings.len() + 1
            );
        }
        skip_spaces(&mut chars);
        let start = chars.peek().map(|&(i, _)| i).unwrap_or(text.len());
        let mut value = String::new();
        let end;
        if chars.peek().map(|&(_, c)| c) == Some('\'') {
            chars.next();
            loop {
                match chars.next() {
                    Some((_, '\\')) => match chars.next() {
                        Some((_, c)) => value.push(c),
                        None => bail!(
                            "invalid connection string: unterminated quoted value for {key:?}"
                        ),
                    },
                    Some((i, '\'')) => {
                        end = i + 1;
                        break;
                    }
                    Some((_, c)) => value.push(c),
                    None => {
                        bail!("invalid connection string: unterminated quoted value for {key:?}")
                    }
                }
            }
        } else {
            loop {
                match chars.peek().copied() {
                    Some((i, c)) if c.is_whitespace() => {
                        end = i;
                        break;
                    }
                    None => {
                        end = text.len();
                        break;
                    }
                    Some((_, c)) => {
                        chars.next();
                        if c == '\\' {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(escaped);
                            }
                        } else {
                            value.push(c);
                        }
                    }
                }
            }
        }
        settings.push(Setting {
            key,
            value,
            span: start..end,
        });
    }
    Ok(settings)
}

/// The part of a URL after `postgres://`, which starts at byte `base` of the whole text.
fn parse_url(rest: &str, base: usize) -> Result<Vec<Setting>> {
    let mut settings = Vec::new();
    // Where a slice of `rest` starts in the whole text.
    let at = |part: &str| base + (part.as_ptr() as usize - rest.as_ptr() as usize);
    let mut push = |key: &str, value: String, raw: &str| {
        let start = at(raw);
        settings.push(Setting {
            key: key.to_string(),
            value,
            span: start..start + raw.len(),
        })
    };
    // As libpq: user info runs to an '@' met before any '/'; only then come host, path, query.
    let (userinfo, rest) = match rest.find(['@', '/']) {
        Some(i) if rest.as_bytes()[i] == b'@' => (Some(&rest[..i]), &rest[i + 1..]),
        _ => (None, rest),
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    // No host or database name holds an '@': one there is the rest of a password with an
    // unencoded '@' or '/', which libpq would take for a host or a database name.
    if before_query.contains('@') {
        bail!("invalid postgres URL: an '@' after the user info (%-encode '@' as %40 and '/' as %2F in a password)");
    }
    let (hostspec, path) = match before_query.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (before_query, None),
    };
    if let Some(userinfo) = userinfo {
        let (user, password) = match userinfo.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (userinfo, None),
        };
        if !user.is_empty() {
            let value = percent_decode(user).context("invalid postgres URL: bad user name")?;
            push("user", value, user);
        }
        if let Some(p) = password {
            let value = percent_decode(p).context("invalid postgres URL: bad password encoding")?;
            push("password", value, p);
        }
    }
    if !hostspec.is_empty() {
        let mut hosts = Vec::new();
        let mut ports = Vec::new();
        for part in hostspec.split(',') {
            let (host, port) = if let Some(inner) = part.strip_prefix('[') {
                let (h, after) = inner
                    .split_once(']')
                    .context("invalid postgres URL: unclosed [ in host")?;
                (h.to_string(), after.strip_prefix(':').map(str::to_string))
            } else {
                match part.rsplit_once(':') {
                    Some((h, p)) => (h.to_string(), Some(p.to_string())),
                    None => (part.to_string(), None),
                }
            };
            hosts.push(percent_decode(&host).context("invalid postgres URL: bad host encoding")?);
            ports.push(port.unwrap_or_default());
        }
        if hosts.iter().any(|h| !h.is_empty()) {
            push("host", hosts.join(","), hostspec);
        }
        if ports.iter().any(|p| !p.is_empty()) {
            push("port", ports.join(","), hostspec);
        }
    }
    if let Some(path) = path.filter(|p| !p.is_empty()) {
        let value = percent_decode(path).context("invalid postgres URL: bad database name")?;
        push("dbname", value, path);
    }
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .context("invalid postgres URL: query parameter without \"=\"")?;
        let key = percent_decode(k).context("invalid postgres URL: bad parameter")?;
        let value = percent_decode(v).context("invalid postgres URL: bad parameter value")?;
        push(&key, value, v);
    }
    Ok(settings)
}

fn percent_decode(text: &str) -> Result<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3).context("truncated %-escape")?;
            out.push(u8::from_str_radix(hex, 16).context("bad %-escape")?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).context("not UTF-8 after %-decoding")
}

/// What a password file gave.
enum FromPassfile {
    Password(String),
    /// No file, or no line for this server, database and user.
    Nothing,
    /// Its group or others may read it: passed over.
    Ignored,
}

/// Looks the password up in a libpq password file (`host:port:db:user:password`, `*` wildcards).
fn password_from_file(path: &Path, params: &ConnParams) -> Result<FromPassfile> {
    if path.is_dir() {
        return Ok(FromPassfile::Nothing);
    }
    // Another user's, or one group or others can write, is refused outright (libpq only
    // ignores one group or others can reach, below): its lines decide which password goes
    // to which server, as OpenSSH refuses such a file of its own.
    crate::fsafe::check_secret_file(path, "password file", None)?;
    // libpq skips a password file it cannot read; so do we.
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(FromPassfile::Nothing);
    };
    let text = String::from_utf8_lossy(&bytes);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                return Ok(FromPassfile::Ignored);
            }
        }
    }
    // libpq matches a connection through the default socket directory against "localhost".
    let host = if params.first_host() == default_socket_dir() {
        "localhost".to_string()
    } else {
        params.first_host().to_string()
    };
    let port = params.first_port().to_string();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass_line(line);
        if fields.len() < 5 {
            continue;
        }
        let matches = |field: &str, value: &str| field == "*" || field == value;
        if matches(&fields[0], &host)
            && matches(&fields[1], &port)
            && matches(&fields[2], &params.dbname)
            && matches(&fields[3], &params.user)
        {
            return Ok(FromPassfile::Password(fields[4..].join(":")));
        }
    }
    Ok(FromPassfile::Nothing)
}

fn split_pgpass_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields
                        .last_mut()
                        .expect("fields starts non-empty")
                        .push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("fields starts non-empty").push(c),
        }
    }
    fields
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the tests make their fixtures directly
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn url_with_everything() {
        let p = ConnParams::resolve(
            "postgres://app%40corp:s3cr%3At@db1.example:6432,db2:6433/shop%20db?sslmode=verify-full&sslrootcert=/ca.pem",
            &env_of(&[]),
        )
        .unwrap();
        assert_eq!(p.user, "app@corp");
        assert_eq!(p.password.unwrap().expose(), "s3cr:t");
        assert_eq!(p.hosts, vec!["db1.example", "db2"]);
        assert_eq!(p.ports, vec![6432, 6433]);
        assert_eq!(p.dbname, "shop db");
        assert_eq!(p.sslmode, SslMode::VerifyFull);
        assert_eq!(p.sslrootcert.unwrap(), PathBuf::from("/ca.pem"));
    }

    #[test]
    fn url_ipv6_and_socket_dir() {
        let p = ConnParams::resolve("postgresql://u@[::1]:5433/db", &env_of(&[])).unwrap();
        assert_eq!(p.hosts, vec!["::1"]);
        assert_eq!(p.describe(), "u@[::1]:5433/db");
        let p = ConnParams::resolve("postgresql://u@%2Fvar%2Frun%2Fpostgresql/db", &env_of(&[]))
            .unwrap();
        assert_eq!(p.hosts, vec!["/var/run/postgresql"]);
    }

    #[test]
    fn key_values_with_quotes_and_escapes() {
        let p = ConnParams::resolve(
            "host=db1 port = 5433 user=o\\'brien password='it''s\\' a secret' dbname='my db'",
            &env_of(&[]),
        );
        // '' is not an escape in conninfo: the value ends at the second quote.
        assert!(p.is_err());
        let p = ConnParams::resolve(
            "host=db1 port = 5433 user=o\\'brien password='it\\'s a \\\\secret' dbname='my db'",
            &env_of(&[]),
        )
        .unwrap();
        assert_eq!(p.user, "o'brien");
        assert_eq!(p.password.unwrap().expose(), "it's a \\secret");
        assert_eq!(p.dbname, "my db");
        assert_eq!(p.ports, vec![5433]);
    }

    #[test]
    fn environment_fills_gaps_but_does_not_override() {
        let env = env_of(&[
            ("PGHOST", "envhost"),
            ("PGPORT", "7777"),
            ("PGUSER", "envuser"),
            ("PGPASSWORD", "pw"),
            ("PGSSLMODE", "require"),
        ]);
        let p = ConnParams::resolve("dbname=x", &env).unwrap();
        assert_eq!(
            (p.hosts[0].as_str(), p.ports[0], p.user.as_str()),
            ("envhost", 7777, "envuser")
        );
        assert_eq!(p.sslmode, SslMode::Require);
        assert_eq!(p.password.unwrap().expose(), "pw");
        let p = ConnParams::resolve("host=mine user=me", &env).unwrap();
        assert_eq!(
            (p.hosts[0].as_str(), p.user.as_str(), p.dbname.as_str()),
            ("mine", "me", "me")
        );
    }

    #[test]
    fn url_password_may_hold_a_question_mark_and_empty_entries_take_defaults() {
        let p = ConnParams::resolve("postgres://u:pa?ss@h1:6000,h2/db", &env_of(&[])).unwrap();
        assert_eq!(p.password.unwrap().expose(), "pa?ss");
        assert_eq!(p.hosts, vec!["h1", "h2"]);
        assert_eq!(p.ports, vec![6000, 5432]);
    }

    #[test]
    fn sslrootcert_system_means_verify_full() {
        let p = ConnParams::resolve("host=h user=u sslrootcert=system", &env_of(&[])).unwrap();
        assert_eq!(p.sslmode, SslMode::VerifyFull);
        assert!(ConnParams::resolve(
            "host=h user=u sslrootcert=system sslmode=require",
            &env_of(&[])
        )
        .is_err());
    }

    #[test]
    fn connect_timeout_like_libpq() {
        let t = |v: &str| {
            ConnParams::resolve(&format!("host=h user=u connect_timeout={v}"), &env_of(&[]))
                .unwrap()
                .connect_timeout
        };
        assert_eq!(t("0"), None);
        assert_eq!(t("1"), Some(Duration::from_secs(2)));
        assert_eq!(t("7"), Some(Duration::from_secs(7)));
    }

    #[test]
    fn errors_never_echo_the_secret() {
        for bad in [
            "host=x password='hunter2",
            "host=x password=hunter2 bogus=1",
            "host=x password=my hunter2 secret",
            "host=x password=a hunter2=c",
            "postgres://u:hunter2/x@h/db",
            "postgres://u:hunter2@h:notaport/db",
            "postgres://u:hunter2@h/db?sslmode=maybe",
        ] {
            let err = format!("{:#}", ConnParams::resolve(bad, &env_of(&[])).unwrap_err());
            assert!(!err.contains("hunter2"), "{err}");
        }
        let p = ConnParams::resolve("postgres://u:hunter2@h/db", &env_of(&[])).unwrap();
        assert!(!format!("{p:?} {}", p.describe()).contains("hunter2"));
    }

    #[test]
    fn pgpass_lookup_with_wildcards_and_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:*:app:nope\ndb1:5433:*:app:pa\\:ss:word\n*:*:*:*:fallback\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let passfile = file.to_string_lossy().to_string();
        let env = env_of(&[("PGPASSFILE", passfile.as_str())]);
        let p = ConnParams::resolve("host=db1 port=5433 user=app dbname=shop", &env).unwrap();
        assert_eq!(p.password.unwrap().expose(), "pa:ss:word");
        let p = ConnParams::resolve("host=db9 user=x", &env).unwrap();
        assert_eq!(p.password.unwrap().expose(), "fallback");
    }

    #[cfg(unix)]
    #[test]
    fn world_readable_pgpass_is_ignored() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(&file, "*:*:*:*:leaky\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let passfile = file.to_string_lossy().to_string();
        let p = ConnParams::resolve(
            "host=h user=u",
            &env_of(&[("PGPASSFILE", passfile.as_str())]),
        )
        .unwrap();
        assert!(p.password.is_none());
    }

    #[test]
    fn passwords_are_masked_where_the_parser_reads_them() {
        for (text, masked) in [
            (
                "host=db password=hunter2 user=x",
                "host=db password=<redacted> user=x",
            ),
            (
                "host=db password = 'a b \\' hunter2' user=x",
                "host=db password = <redacted> user=x",
            ),
            ("password=hunter2\\ more", "password=<redacted>"),
            (
                "postgres://app:hunter2@db/shop",
                "postgres://app:<redacted>@db/shop",
            ),
            (
                "postgresql://app:hun%40ter2@db/shop?sslmode=require",
                "postgresql://app:<redacted>@db/shop?sslmode=require",
            ),
            (
                "postgres://app@db/shop?password=hunter2&sslmode=disable",
                "postgres://app@db/shop?password=<redacted>&sslmode=disable",
            ),
            (
                "postgres://app@db/shop?pass%77ord=hunter2",
                "postgres://app@db/shop?pass%77ord=<redacted>",
            ),
            (
                "  postgres://app:hunter2@db/shop",
                "  postgres://app:<redacted>@db/shop",
            ),
            ("host=db user=x", "host=db user=x"),
        ] {
            // The same text connects with that very password.
            if text.contains("hunter2") && !text.contains("%40") {
                let p = ConnParams::resolve(text, &env_of(&[("USER", "u")])).unwrap();
                assert!(p.password.unwrap().expose().contains("hunter2"), "{text}");
            }
            assert_eq!(redact(text), masked, "{text}");
        }
        for refused in [
            "host=db password='hunter2",
            "postgres://u:hunter2/x@h/db",
            "postgres://u:12/hunter2@h/db",
            "postgres://u:hunter2@h/db@x",
            "host=db bogus=hunter2",
        ] {
            assert!(
                ConnParams::resolve(refused, &env_of(&[])).is_err(),
                "{refused}"
            );
            assert_eq!(redact(refused), NOT_ACCEPTED, "{refused}");
        }
    }

    #[test]
    fn text_no_parser_reads_is_masked_only_when_it_holds_a_password() {
        let masked = |t: &str| redact_if_it_holds_a_password(t);
        assert_eq!(masked("xa-commit-me"), None);
        assert_eq!(masked("INC-1 the coordinator was lost"), None);
        assert_eq!(masked("a=b"), None);
        assert_eq!(
            masked("host=h password=hunter2").as_deref(),
            Some("host=h password=<redacted>")
        );
        for url in [
            "postgres:/u:hunter2@h/db",
            "postgresql//u:hunter2@h",
            "http://u:hunter2@h/db?a=b",
        ] {
            let shown = masked(url).unwrap_or_else(|| url.to_string());
            assert!(!shown.contains("hunter2"), "{url}: {shown}");
        }
    }

    #[test]
    fn a_service_fills_what_the_string_leaves_before_the_environment_does() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("services.conf");
        std::fs::write(
            &file,
            "[shop]\nhost=svc-host\nport=6000\nuser=svc-user\npassword=svc 'secret\n",
        )
        .unwrap();
        let services = file.to_string_lossy().to_string();
        let env = env_of(&[
            ("PGSERVICEFILE", services.as_str()),
            ("PGHOST", "env-host"),
            ("PGDATABASE", "env-db"),
            ("PGPASSWORD", "env-pw"),
        ]);
        // The string's own settings, then the service's, then the environment's.
        for text in [
            "service=shop port=7000",
            "postgresql:///?service=shop&port=7000",
        ] {
            let p = ConnParams::resolve(text, &env).unwrap();
            assert_eq!(p.hosts, vec!["svc-host"], "{text}");
            assert_eq!(p.ports, vec![7000]);
            assert_eq!(p.user, "svc-user");
            assert_eq!(p.dbname, "env-db");
            assert_eq!(p.password.as_ref().unwrap().expose(), "svc 'secret");
            let service = p.service.clone().unwrap();
            assert_eq!((service.name.as_str(), &service.file), ("shop", &file));
            assert_eq!(service.keys, vec!["host", "user", "password"]);
            assert_eq!(p.password_from, Some(PasswordFrom::Service(service)));
            assert!(!format!("{p:?} {}", p.describe()).contains("secret"));
        }
        // PGSERVICE names one when the string does not.
        let with_pgservice = |pairs: &[(&str, &str)]| {
            let mut all = vec![("PGSERVICEFILE", services.as_str())];
            all.extend_from_slice(pairs);
            env_of(&all)
        };
        let p = ConnParams::resolve("", &with_pgservice(&[("PGSERVICE", "shop")])).unwrap();
        assert_eq!((p.hosts[0].as_str(), p.ports[0]), ("svc-host", 6000));
        assert!(p.from_environment.contains(&"PGSERVICE"));
        assert!(p.service.unwrap().from_environment);
        let err = ConnParams::resolve("", &with_pgservice(&[("PGSERVICE", "nope")])).unwrap_err();
        assert!(
            format!("{err:#}").contains("definition of service \"nope\" not found"),
            "{err:#}"
        );
        assert!(ConnParams::resolve("service=nope", &env).is_err());
        assert_eq!(
            redact("service=shop password=hunter2"),
            "service=shop password=<redacted>"
        );
    }

    #[test]
    fn the_database_nothing_names_is_the_users_or_postgres() {
        let env = env_of(&[]);
        let p = ConnParams::resolve("host=h user=mon", &env).unwrap();
        assert_eq!(
            (p.dbname.as_str(), p.dbname_default),
            ("mon", Some(UnnamedDb::UserName))
        );
        let p =
            ConnParams::resolve_with("host=h user=mon", &[], UnnamedDb::Postgres, &env).unwrap();
        assert_eq!(
            (p.dbname.as_str(), p.dbname_default),
            ("postgres", Some(UnnamedDb::Postgres))
        );
        for (text, pairs) in [
            ("host=h user=mon dbname=shop", vec![]),
            ("host=h user=mon", vec![("PGDATABASE", "shop")]),
        ] {
            let p =
                ConnParams::resolve_with(text, &[], UnnamedDb::Postgres, &env_of(&pairs)).unwrap();
            assert_eq!((p.dbname.as_str(), p.dbname_default), ("shop", None));
        }
        let p = ConnParams::resolve_with(
            "host=h user=mon",
            &[("dbname", "shop")],
            UnnamedDb::Postgres,
            &env,
        )
        .unwrap();
        assert_eq!(p.dbname, "shop");
    }

    #[test]
    fn target_names_are_not_conninfo() {
        assert!(!looks_like_conninfo("lab"));
        assert!(looks_like_conninfo("host=x"));
        assert!(looks_like_conninfo("postgres://x"));
    }
}
