//! Flags, environment and config resolved into what a command needs: output style, timeout and targets.

use crate::cli::{GlobalArgs, OutputFormat};
use crate::cli::{KafkaTargetArgs, PgTargetArgs};
use crate::config::{self, Loaded};
use crate::error::hinted;
use crate::kafka::properties;
use crate::kafka::security::Security;
use crate::kafka::target::{
    parse_bootstrap, parse_property_arg, read_properties_file, KafkaTarget,
};
use crate::pg::conninfo::{is_plain_name, looks_like_conninfo, ConnParams, Origin};
use crate::report::{table::Style, Target};
use crate::settings::{defaults, Setting, Thresholds};
use crate::units::{format_duration, format_size};
use anyhow::{Context as _, Result};
use std::time::Duration;

/// A warning/critical pair in force: each its command's flag, else the setting (the
/// config's value or the default); a warning above the critical is refused rather than
/// silently swapped.
fn pair<T: PartialOrd + Copy>(
    what: &str,
    flags: (Option<T>, Option<T>),
    settings: (&Setting<T>, &Setting<T>),
    show: impl Fn(T) -> String,
) -> Result<(T, T)> {
    let warning = flags.0.unwrap_or(settings.0.value);
    let critical = flags.1.unwrap_or(settings.1.value);
    if warning > critical {
        return Err(hinted(
            format!(
                "{what}: warning threshold {} is above the critical one {}",
                show(warning),
                show(critical)
            ),
            "the warning threshold must not exceed the critical one",
        ));
    }
    Ok((warning, critical))
}

pub struct Context {
    pub output: OutputFormat,
    pub style: Style,
    pub verbose: u8,
    pub timeout: Duration,
    /// Where the timeout came from (--timeout or the default), for `config show`.
    pub timeout_from: crate::settings::Source,
    pub config: Loaded,
    /// The thresholds of the config and the defaults, resolved once.
    pub thresholds: Thresholds,
    /// What a next command must repeat of this run (its --config).
    pub invocation: crate::next::Invocation,
}

/// A PostgreSQL server to inspect, with the name the config gave it.
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

impl Context {
    pub fn new(global: &GlobalArgs) -> Result<Context> {
        let timeout = Setting::of(&defaults::TIMEOUT).over(global.timeout, "--timeout");
        if timeout.value.is_zero() {
            return Err(hinted(
                "--timeout must be longer than 0",
                "e.g. --timeout 10s",
            ));
        }
        let config = config::load(global.config.as_deref())?;
        Ok(Context {
            output: global.output,
            style: Style {
                color: crate::term::use_color(match global.no_color {
                    true => crate::term::ColorWhen::Never,
                    false => global.color,
                }),
                width: crate::term::layout_width(global.width),
                frame: crate::term::frame(),
                wide: global.output == crate::cli::OutputFormat::Wide,
            },
            verbose: global.verbose,
            timeout: timeout.value,
            timeout_from: timeout.source,
            thresholds: Thresholds::resolve(&config.config.thresholds),
            config,
            invocation: crate::next::Invocation {
                config: global.config.clone(),
            },
        })
    }

    /// Status on stderr, shown with -v. The message is data (it may quote a server):
    /// escaped here, at the edge.
    pub fn note(&self, message: impl AsRef<str>) {
        if self.verbose > 0 {
            crate::term::status(&crate::shown!("indoubt: {}", message.as_ref()));
        }
    }

    /// Prepared-transaction age: warning, critical.
    pub fn prepared_thresholds(
        &self,
        flags: (Option<Duration>, Option<Duration>),
    ) -> Result<(Duration, Duration)> {
        let t = &self.thresholds;
        pair(
            "prepared age",
            flags,
            (&t.prepared_warning_age, &t.prepared_critical_age),
            format_duration,
        )
    }

    /// WAL retained by an inactive slot, in bytes.
    pub fn slot_thresholds(&self, flags: (Option<u64>, Option<u64>)) -> Result<(u64, u64)> {
        let t = &self.thresholds;
        pair(
            "retained WAL",
            flags,
            (&t.slots_warning_retained, &t.slots_critical_retained),
            format_size,
        )
    }

    /// How long one holder may hold the horizon, and by how many xids.
    pub fn horizon_thresholds(
        &self,
        age: (Option<Duration>, Option<Duration>),
        xids: (Option<u64>, Option<u64>),
    ) -> Result<((Duration, Duration), (u64, u64))> {
        let t = &self.thresholds;
        Ok((
            pair(
                "horizon age",
                age,
                (&t.horizon_warning_age, &t.horizon_critical_age),
                format_duration,
            )?,
            self.horizon_xid_thresholds(xids)?,
        ))
    }

    /// How many xids a holder may hold the horizon back; slots use it too.
    pub fn horizon_xid_thresholds(&self, flags: (Option<u64>, Option<u64>)) -> Result<(u64, u64)> {
        let t = &self.thresholds;
        pair(
            "horizon xids",
            flags,
            (&t.horizon_warning_xids, &t.horizon_critical_xids),
            |n| n.to_string(),
        )
    }

    /// age(datfrozenxid) / mxid_age(datminmxid) of a database.
    pub fn wraparound_thresholds(&self, flags: (Option<u64>, Option<u64>)) -> Result<(u64, u64)> {
        let t = &self.thresholds;
        pair(
            "wraparound xids",
            flags,
            (&t.wraparound_warning_xids, &t.wraparound_critical_xids),
            |n| n.to_string(),
        )
    }

    /// LSO gap: age of the first unstable record and offsets behind.
    pub fn lso_thresholds(
        &self,
        age: (Option<Duration>, Option<Duration>),
        gap: (Option<u64>, Option<u64>),
    ) -> Result<((Duration, Duration), (u64, u64))> {
        let t = &self.thresholds;
        Ok((
            pair(
                "LSO age",
                age,
                (&t.lso_warning_age, &t.lso_critical_age),
                format_duration,
            )?,
            pair(
                "LSO gap",
                gap,
                (&t.lso_warning_gap, &t.lso_critical_gap),
                |n| n.to_string(),
            )?,
        ))
    }

    /// How old an open transaction's last write must be before `kafka hanging` examines it.
    pub fn hanging_timeout(&self, flag: Option<Duration>) -> Duration {
        flag.unwrap_or(self.thresholds.hanging_max_transaction_timeout.value)
    }

    /// The Kafka cluster: `-b` (with `--command-config` and `-X`), or a config target
    /// (`--kafka NAME`, else `default` — a reconcile job's — else the only one), with `-X`
    /// over its properties.
    pub fn kafka_target(
        &self,
        args: &KafkaTargetArgs,
        default: Option<&str>,
    ) -> Result<(Option<String>, KafkaTarget)> {
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
            self.note(format!("{name} is ignored: {}", property.what));
        }
        Security::from_properties(&target.properties)?;
        Ok((name, target))
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

    /// The audit log: the flag, else the config, else the XDG state directory.
    pub fn audit_log(&self, flag: Option<&std::path::Path>) -> Result<std::path::PathBuf> {
        match flag
            .map(std::path::Path::to_path_buf)
            .or_else(|| self.config.config.audit.path.clone())
        {
            Some(path) => Ok(path),
            None => crate::audit::log::default_path(),
        }
    }

    /// `--pg` as a config target name or a connection string; without it, the config's
    /// only postgres target, else libpq's environment defaults.
    pub fn pg_target(&self, flag: Option<&str>) -> Result<PgTarget> {
        self.pg_target_with(
            flag,
            &[],
            "the connection string given (--pg or the config's)",
        )
    }

    /// The same for a command's PostgreSQL options: `--pg`, then psql's -h, -p, -U and -d
    /// over its settings (as psql's options are over its connection string). Like psql,
    /// a -d holding a URL or key=value settings is the whole connection string.
    pub fn pg_target_for(&self, args: &PgTargetArgs) -> Result<PgTarget> {
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
        self.pg_target_with(flag, &overrides, flag_name)
    }

    fn pg_target_with(
        &self,
        flag: Option<&str>,
        overrides: &[(&str, &str)],
        flag_name: &str,
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
        let mut params =
            ConnParams::resolve_with(conninfo, overrides, &env).with_context(|| match &name {
                Some(name) => format!("postgres target {name:?}"),
                None => "postgres connection settings".to_string(),
            })?;
        params.origin = match origin {
            Origin::Unknown => Origin::Defaults(self.no_server_named(&params.from_environment)),
            given => given,
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
