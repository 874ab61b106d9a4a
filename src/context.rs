//! Flags, environment and config resolved into what a command needs: output style, timeout and targets.

use crate::cli::{GlobalArgs, OutputFormat};
use crate::config::{self, Loaded};
use crate::error::hinted;
use crate::pg::conninfo::{looks_like_conninfo, ConnParams};
use crate::report::{table::Style, Target};
use anyhow::{Context as _, Result};
use std::time::Duration;

pub struct Context {
    pub output: OutputFormat,
    pub style: Style,
    pub verbose: u8,
    pub timeout: Duration,
    pub config: Loaded,
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
            kind: "postgres",
            address: self.params.describe(),
        }
    }
}

impl Context {
    pub fn new(global: &GlobalArgs) -> Result<Context> {
        if global.timeout.is_zero() {
            return Err(hinted(
                "--timeout must be longer than 0",
                "e.g. --timeout 10s",
            ));
        }
        Ok(Context {
            output: global.output,
            style: Style {
                color: crate::term::use_color(global.no_color),
            },
            verbose: global.verbose,
            timeout: global.timeout,
            config: config::load(global.config.as_deref())?,
        })
    }

    /// Status on stderr, shown with -v.
    pub fn note(&self, message: impl AsRef<str>) {
        if self.verbose > 0 {
            eprintln!("indoubt: {}", message.as_ref());
        }
    }

    /// Prepared-transaction age thresholds: flags over the config over the defaults (5m, 30m).
    pub fn prepared_thresholds(
        &self,
        warning_flag: Option<Duration>,
        critical_flag: Option<Duration>,
    ) -> Result<(Duration, Duration)> {
        const DEFAULT_WARNING: Duration = Duration::from_secs(5 * 60);
        const DEFAULT_CRITICAL: Duration = Duration::from_secs(30 * 60);
        let configured = &self.config.config.thresholds.prepared;
        let warning = warning_flag
            .or(configured.warning_age)
            .unwrap_or(DEFAULT_WARNING);
        let critical = critical_flag
            .or(configured.critical_age)
            .unwrap_or(DEFAULT_CRITICAL);
        if warning > critical {
            return Err(hinted(
                format!(
                    "prepared warning age {} is above the critical age {}",
                    crate::units::format_duration(warning),
                    crate::units::format_duration(critical)
                ),
                "the warning threshold must not exceed the critical one",
            ));
        }
        Ok((warning, critical))
    }

    /// `--pg` as a config target name or a connection string; without it, the config's
    /// only postgres target, else libpq's environment defaults.
    pub fn pg_target(&self, flag: Option<&str>) -> Result<PgTarget> {
        let env = |key: &str| std::env::var(key).ok();
        let targets = &self.config.config.postgres;
        let (name, conninfo) = match flag {
            Some(value) if looks_like_conninfo(value) => (None, value),
            Some(name) => match targets.get(name) {
                Some(t) => (Some(name.to_string()), t.conninfo.as_str()),
                None => {
                    let source = match &self.config.path {
                        Some(path) => path.display().to_string(),
                        None => "no config file was found".to_string(),
                    };
                    let known = if targets.is_empty() {
                        format!("{source} names no postgres targets")
                    } else {
                        format!(
                            "{source} names: {}",
                            targets.keys().cloned().collect::<Vec<_>>().join(", ")
                        )
                    };
                    return Err(hinted(
                        format!("no postgres target named {name:?} ({known})"),
                        "--pg takes a target name from the config, a postgres:// URL or a key=value conninfo string",
                    ));
                }
            },
            None if targets.len() == 1 => {
                let (name, t) = targets.iter().next().context("config targets vanished")?;
                (Some(name.clone()), t.conninfo.as_str())
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
            None => (None, ""),
        };
        let params = ConnParams::resolve(conninfo, &env).with_context(|| match &name {
            Some(name) => format!("postgres target {name:?}"),
            None => "postgres connection settings".to_string(),
        })?;
        Ok(PgTarget { name, params })
    }
}
