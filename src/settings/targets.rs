//! Which servers a run addresses: `--pg`, psql's -h/-p/-U/-d, `-b`, `--kafka`, `-X`
//! and the config's targets, resolved into [`PgTarget`] and [`KafkaTarget`] before any
//! connection; and the audit log a resolution writes to.

use crate::cli::{KafkaTargetArgs, PgTargetArgs};
use crate::config::{self, Loaded};
use crate::context::Context;
use crate::error::hinted;
use crate::kafka::config::ClientConfig;
use crate::mysql::params::{self as mysql_params, MysqlParams};
use crate::pg::conninfo::{is_plain_name, looks_like_conninfo, ConnParams, Origin, UnnamedDb};
use crate::report::Target;
use crate::settings::kafka_client::properties;
use crate::settings::kafka_client::target::{
    parse_bootstrap, parse_property_arg, read_properties_file, KafkaTarget,
};
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// A connection string's settings ([`ConnParams::resolve`]), with the warning libpq
/// would print on the way.
pub fn resolve_conninfo(
    conninfo: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ConnParams> {
    let params = ConnParams::resolve(conninfo, env)?;
    warn_of(&params);
    Ok(params)
}

/// What libpq warns of as it resolves settings: a password file others may read, passed
/// over.
fn warn_of(params: &ConnParams) {
    if let (true, Some(path)) = (params.passfile_ignored, &params.passfile) {
        crate::term::status(&crate::shown!(
            "indoubt: warning: password file {} has group or world access; ignored (chmod 0600 it)",
            path.display()
        ));
    }
}

/// A PostgreSQL server to inspect, with the name the config gave it.
#[derive(Debug, Clone)]
pub struct PgTarget {
    pub name: Option<String>,
    pub params: ConnParams,
}

impl PgTarget {
    pub fn report_target(&self) -> Target {
        Target {
            name: self.name.clone(),
            kind: "postgres".into(),
            address: self.params.describe(),
        }
    }
}

/// A MySQL or MariaDB server, with the name the config gave it.
#[derive(Debug, Clone)]
pub struct MysqlTarget {
    pub name: Option<String>,
    pub params: MysqlParams,
}

impl MysqlTarget {
    pub fn report_target(&self) -> Target {
        Target {
            name: self.name.clone(),
            kind: "mysql".into(),
            address: self.params.describe(),
        }
    }
}

/// A target a section of the config names (an outbox's, a decision source's, a
/// participant), resolved up front; one that cannot be used is kept as its error's text,
/// reported where the section is used (an UNKNOWN finding, an unreachable source).
pub type Referenced = std::result::Result<PgTarget, String>;

/// The audit log a resolution writes to and the audit commands read: the flag, else the
/// config, else the XDG state directory (None when not even HOME is set: then only an
/// action that must write the log fails, a dry run does not).
#[derive(Debug, Clone)]
pub struct AuditLog {
    pub path: Option<PathBuf>,
    pub source: crate::settings::Source,
}

impl AuditLog {
    /// The path, or why there is none.
    pub fn path(&self) -> Result<&Path> {
        self.path
            .as_deref()
            .context("no audit log path: set --audit-log, audit.path in the config, or HOME")
    }
}

/// The config and the run's context, for resolving the targets a command names.
pub struct Targets<'a> {
    pub config: &'a Loaded,
    pub ctx: &'a Context,
}

impl Targets<'_> {
    /// The Kafka cluster: `-b` (with `--command-config` and `-X`), or a config target
    /// (`--kafka NAME`, else `default` — a reconcile job's — else the only one), with `-X`
    /// over its properties; with the client configuration they make.
    pub fn kafka_target(
        &self,
        args: &KafkaTargetArgs,
        default: Option<&str>,
    ) -> Result<(Option<String>, KafkaTarget, ClientConfig)> {
        let targets = &self.config.config.kafka;
        let named = args.kafka.as_deref().or(default);
        let (name, mut target) = match (&args.bootstrap, named) {
            (Some(bootstrap), _) => (
                None,
                KafkaTarget {
                    bootstrap: parse_bootstrap(bootstrap)?,
                    properties: Default::default(),
                },
            ),
            (None, Some(name)) => match targets.get(name) {
                Some(t) => (Some(name.to_string()), KafkaTarget::from_config(name, t)?),
                None => {
                    return Err(hinted(
                        format!("no kafka target named {name:?} in the config"),
                        "--kafka takes a target name from the config; -b HOST:PORT names a cluster directly",
                    ))
                }
            },
            (None, None) if targets.len() == 1 => {
                let (name, t) = targets.iter().next().context("config targets vanished")?;
                (Some(name.clone()), KafkaTarget::from_config(name, t)?)
            }
            (None, None) => {
                return Err(hinted(
                    "which Kafka cluster?",
                    "name it with -b HOST:PORT (kafka tools' --bootstrap-server) or --kafka NAME from the config",
                ))
            }
        };
        if let Some(file) = &args.command_config {
            target.properties.extend(read_properties_file(file)?);
        }
        for pair in &args.properties {
            let (key, value) = parse_property_arg(pair)?;
            properties::check(&key, &value).context("in -X")?;
            target.properties.insert(key, value);
        }
        // Refused here, before any connection (or a reconcile's database query), and the
        // properties that change nothing named under -v.
        for (name, property) in properties::check_all(&target.properties)? {
            self.ctx
                .note(format!("{name} is ignored: {}", property.what));
        }
        let client = super::kafka_client::client_config(&target)?;
        Ok((name, target, client))
    }

    /// A `--pg` value (or a config's postgres reference) that is neither a target name of
    /// the config nor a connection string: a mistyped URL may hold a password, so the
    /// value is shown only when it can be nothing but a name.
    fn not_a_pg_target(&self, value: &str) -> anyhow::Error {
        let shown = if is_plain_name(value) {
            format!("{value:?}")
        } else {
            "(not shown: it may hold a password)".to_string()
        };
        let names: Vec<&str> = self
            .config
            .config
            .postgres
            .keys()
            .map(String::as_str)
            .collect();
        let known = match (&self.config.path, names.is_empty()) {
            (None, _) => "no config file was found, so there are no target names".to_string(),
            (Some(path), true) => format!("{} names no postgres targets", path.display()),
            (Some(path), false) => format!(
                "the postgres targets of {} are: {}",
                path.display(),
                names.join(", ")
            ),
        };
        hinted(
            format!("postgres target {shown} is neither a target name of the config nor a connection string indoubt accepts; {known}"),
            "give a target name, a URL postgres://USER@HOST:PORT/DB?sslmode=verify-full (or postgresql://), or conninfo 'host=HOST port=PORT user=USER dbname=DB'; keep the password out of the command line: ~/.pgpass, PGPASSFILE or PGPASSWORD",
        )
    }

    /// `--mysql` as a config target name or a mysql:// URL (the flags over its
    /// settings); without it, the config's only mysql target.
    pub fn mysql_for(&self, args: &crate::cli::MysqlTargetArgs) -> Result<MysqlTarget> {
        let targets = &self.config.config.mysql;
        let (name, url, option_file, ssl_mode, ssl_ca) = match args.mysql.as_deref() {
            Some(url) if mysql_params::looks_like_url(url) => (None, url, None, None, None),
            Some(name) => match targets.get(name) {
                Some(t) => (
                    Some(name.to_string()),
                    t.url.as_str(),
                    t.option_file.as_deref(),
                    t.ssl_mode.as_deref(),
                    t.ssl_ca.as_deref(),
                ),
                None => {
                    let shown = match is_plain_name(name) {
                        true => format!("{name:?}"),
                        false => "(not shown: it may hold a password)".to_string(),
                    };
                    let names: Vec<&str> = targets.keys().map(String::as_str).collect();
                    return Err(hinted(
                        format!(
                            "mysql target {shown} is neither a target name of the config nor a mysql:// URL{}",
                            match names.is_empty() {
                                true => String::new(),
                                false => format!("; the config's mysql targets are: {}", names.join(", ")),
                            }
                        ),
                        "give a target name or mysql://USER@HOST:PORT/DB; keep the password in an option file (--defaults-file, ~/.my.cnf) or MYSQL_PWD",
                    ));
                }
            },
            None if targets.len() == 1 => {
                let (name, t) = targets.iter().next().context("config targets vanished")?;
                (
                    Some(name.clone()),
                    t.url.as_str(),
                    t.option_file.as_deref(),
                    t.ssl_mode.as_deref(),
                    t.ssl_ca.as_deref(),
                )
            }
            None if targets.is_empty() => {
                return Err(hinted(
                    "which MySQL or MariaDB server?",
                    "name it with --mysql mysql://USER@HOST:PORT/DB or --mysql NAME from the config's mysql: section",
                ))
            }
            None => {
                return Err(hinted(
                    format!(
                        "the config names several mysql targets ({})",
                        targets.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                    "choose one with --mysql NAME",
                ))
            }
        };
        let given = mysql_params::Given {
            url,
            option_file: args.defaults_file.as_deref().or(option_file),
            ssl_mode: args.ssl_mode.as_deref().or(ssl_mode),
            ssl_ca: args.ssl_ca.as_deref().or(ssl_ca),
        };
        let env = |key: &str| std::env::var(key).ok();
        let params = mysql_params::resolve(&given, &env).with_context(|| match &name {
            Some(name) => format!("mysql target {name:?}"),
            None => "the mysql connection settings".to_string(),
        })?;
        Ok(MysqlTarget { name, params })
    }

    /// A config target name of the `mysql:` section, resolved now; its error kept as text.
    pub fn mysql_referenced(&self, name: &str) -> std::result::Result<MysqlTarget, String> {
        self.mysql_for(&crate::cli::MysqlTargetArgs {
            mysql: Some(crate::cli::MysqlConn(name.to_string())),
            defaults_file: None,
            ssl_mode: None,
            ssl_ca: None,
        })
        .map_err(|e| format!("{e:#}"))
    }

    /// The audit log: the flag, else the config, else the XDG state directory.
    pub fn audit_log(&self, flag: Option<&Path>) -> AuditLog {
        use crate::settings::Source;
        match (flag, &self.config.config.audit.path) {
            (Some(path), _) => AuditLog {
                path: Some(path.to_path_buf()),
                source: Source::Flag("--audit-log"),
            },
            (None, Some(path)) => AuditLog {
                path: Some(path.clone()),
                source: Source::Config("audit.path".into()),
            },
            (None, None) => AuditLog {
                path: crate::audit::log::default_path().ok(),
                source: Source::Default,
            },
        }
    }

    /// A postgres reference of a config section, resolved now; its error kept as text.
    pub fn referenced(&self, value: &str) -> Referenced {
        self.pg_target(Some(value)).map_err(|e| format!("{e:#}"))
    }

    /// `--pg` as a config target name or a connection string; without it, the config's
    /// only postgres target, else libpq's environment defaults.
    pub fn pg_target(&self, flag: Option<&str>) -> Result<PgTarget> {
        self.pg_target_in(flag, UnnamedDb::UserName)
    }

    /// The same for a read of the whole server: when nothing names a database, `postgres`.
    pub fn pg_server_target(&self, flag: Option<&str>) -> Result<PgTarget> {
        self.pg_target_in(flag, UnnamedDb::Postgres)
    }

    fn pg_target_in(&self, flag: Option<&str>, unnamed: UnnamedDb) -> Result<PgTarget> {
        self.pg_target_with(
            flag,
            &[],
            "the connection string given (--pg or the config's)",
            unnamed,
        )
    }

    /// The same for a command's PostgreSQL options: `--pg`, then psql's -h, -p, -U and -d
    /// over its settings (as psql's options are over its connection string). Like psql,
    /// a -d holding a URL or key=value settings is the whole connection string. When
    /// nothing names a database, libpq's default: the user name.
    pub fn pg_for(&self, args: &PgTargetArgs) -> Result<PgTarget> {
        self.pg_for_in(args, UnnamedDb::UserName)
    }

    /// The same for a command that reads the whole server (pg prepared, pg slots, pg
    /// horizon, resolve pg's lookup, and so check): when nothing names a database,
    /// `postgres`, as check_postgres does, so `-h db1 -U monitor` works as indoubt-pg(1) says.
    pub fn pg_for_server(&self, args: &PgTargetArgs) -> Result<PgTarget> {
        self.pg_for_in(args, UnnamedDb::Postgres)
    }

    fn pg_for_in(&self, args: &PgTargetArgs, unnamed: UnnamedDb) -> Result<PgTarget> {
        let (flag, flag_name, dbname) = match args.dbname.as_deref() {
            Some(d) if looks_like_conninfo(d) => {
                if args.pg.is_some() {
                    return Err(hinted(
                        "-d holds a connection string, and --pg gives another",
                        "give one: --pg TARGET with -d DBNAME for its database, or the whole connection string in either",
                    ));
                }
                (Some(d), "the connection string of -d", None)
            }
            other => (args.pg.as_deref(), "the connection string of --pg", other),
        };
        let overrides: Vec<(&str, &str)> = [
            ("host", args.host.as_deref()),
            ("port", args.port.as_deref()),
            ("user", args.username.as_deref()),
            ("dbname", dbname),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect();
        self.pg_target_with(flag, &overrides, flag_name, unnamed)
    }

    fn pg_target_with(
        &self,
        flag: Option<&str>,
        overrides: &[(&str, &str)],
        flag_name: &str,
        unnamed: UnnamedDb,
    ) -> Result<PgTarget> {
        let env = |key: &str| std::env::var(key).ok();
        let targets = &self.config.config.postgres;
        let file = || {
            self.config
                .path
                .as_ref()
                .map_or_else(String::new, |p| format!(" of {}", p.display()))
        };
        let (name, conninfo, origin) = match flag {
            Some(value) if looks_like_conninfo(value) => {
                (None, value, Origin::Given(flag_name.to_string()))
            }
            Some(name) => match targets.get(name) {
                Some(t) => (
                    Some(name.to_string()),
                    t.conninfo.as_str(),
                    Origin::Given(format!(
                        "the conninfo of postgres target {name:?}{}",
                        file()
                    )),
                ),
                None => return Err(self.not_a_pg_target(name)),
            },
            None if targets.len() == 1 => {
                let (name, t) = targets.iter().next().context("config targets vanished")?;
                (
                    Some(name.clone()),
                    t.conninfo.as_str(),
                    Origin::Given(format!(
                        "the conninfo of postgres target {name:?}{}",
                        file()
                    )),
                )
            }
            None if targets.len() > 1 => {
                return Err(hinted(
                    format!(
                        "the config names several postgres targets ({})",
                        targets.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                    "choose one with --pg NAME",
                ))
            }
            None if !overrides.is_empty() => (None, "", Origin::Given("-h, -p, -U and -d".into())),
            None => (None, "", Origin::Unknown),
        };
        let mut params = ConnParams::resolve_with(conninfo, overrides, unnamed, &env)
            .with_context(|| match &name {
                Some(name) => format!("postgres target {name:?}"),
                None => "postgres connection settings".to_string(),
            })?;
        warn_of(&params);
        params.origin = match (origin, &params.service) {
            // PGSERVICE named the server (or some of its settings).
            (Origin::Unknown, Some(service)) => Origin::Given(service.describe()),
            (Origin::Unknown, None) => {
                Origin::Defaults(self.no_server_named(&params.from_environment))
            }
            (given, _) => given,
        };
        Ok(PgTarget { name, params })
    }

    /// Why a connection went to libpq's defaults: nothing named a server, and where
    /// indoubt looked for something that would have.
    fn no_server_named(&self, from_environment: &[&str]) -> String {
        let config = match &self.config.path {
            None => format!("no config file was found ({})", config::where_looked()),
            Some(path) => format!("{} names no postgres target", path.display()),
        };
        let used = if from_environment.is_empty() {
            "no PG* variable is set, so libpq's defaults were used".to_string()
        } else {
            format!(
                "so {} and libpq's defaults were used",
                from_environment.join(", ")
            )
        };
        format!("no server was named: no --pg or -h, {config}, and {used}")
    }
}

/// Where a statement for a configured table runs, as the comment before it says it (a
/// statement names no server): its database of the target, or of the connection as
/// written when that could not be used.
pub fn place(target: &Referenced, written: &str) -> String {
    match target {
        Ok(t) => place_in(&server(t), Some(&t.params.dbname)),
        Err(_) => format!("in the database of {written}"),
    }
}

/// A PostgreSQL server as a statement's comment names it: `target lab`, or its address
/// when the config names none.
pub fn server(target: &PgTarget) -> String {
    target
        .name
        .as_deref()
        .map_or_else(|| target.params.describe(), |n| format!("target {n}"))
}

/// Where a statement runs on `server` ([`server`]): in `database`, or in any.
pub fn place_in(server: &str, database: Option<&str>) -> String {
    match database {
        Some(db) => format!("in database {db} of {server}"),
        None => format!("in any database of {server}"),
    }
}
