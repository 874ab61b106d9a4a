//! `modulith publications`' registries: each of the config (or the one named), its
//! database, table and thresholds, resolved before anything is read.

use super::appdb::Db;
use crate::config::ModulithConfig;
use crate::error::hinted;
use crate::settings::defaults;
use crate::settings::targets::Targets;
use crate::settings::{pair, Setting};
use crate::units::format_duration;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the registries it reads.
pub struct ModulithSettings {
    pub registries: Vec<Registry>,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One registry of the config.
pub struct Registry {
    pub name: String,
    /// The config's `postgres:` or `mysql:` as written.
    pub written: String,
    pub db: Db,
    pub table: Setting<String>,
    pub incomplete_age: Setting<Duration>,
    pub critical_age: Setting<Duration>,
    pub poison_attempts: Setting<u64>,
    pub retention: Setting<Duration>,
}

impl Registry {
    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        self.db.place(&self.written, "the application")
    }

    pub fn subject(&self) -> String {
        format!("modulith registry {}", self.name)
    }
}

/// A registry's table and thresholds: the config's, else the defaults (`config show`
/// shows the same). The table's default is Spring Modulith's name on that server:
/// `EVENT_PUBLICATION` on MySQL and MariaDB (whose table names are case-sensitive).
#[allow(clippy::type_complexity)] // the five settings of one section, in the config's order
pub fn thresholds(
    name: &str,
    c: &ModulithConfig,
) -> (
    Setting<String>,
    Setting<Duration>,
    Setting<Duration>,
    Setting<u64>,
    Setting<Duration>,
) {
    let table_default = match (&c.postgres, &c.mysql) {
        (None, Some(_)) => "EVENT_PUBLICATION".to_string(),
        _ => defaults::MODULITH_TABLE.text().to_string(),
    };
    (
        Setting::in_section(
            &defaults::MODULITH_TABLE,
            name,
            c.table.clone(),
            table_default,
        ),
        Setting::duration_in(&defaults::MODULITH_INCOMPLETE_AGE, name, c.incomplete_age),
        Setting::duration_in(&defaults::MODULITH_CRITICAL_AGE, name, c.critical_age),
        Setting::in_section(
            &defaults::MODULITH_POISON_ATTEMPTS,
            name,
            c.poison_attempts,
            defaults::MODULITH_POISON_ATTEMPTS.number(),
        ),
        Setting::duration_in(&defaults::MODULITH_RETENTION, name, c.retention),
    )
}

/// The registries a run reads: the one named, else every one of the config.
pub fn settings(t: &Targets, name: Option<&str>) -> Result<ModulithSettings> {
    let config = &t.config.config;
    if config.modulith.is_empty() {
        return Err(hinted(
            "no modulith registry in the config",
            "name each under modulith: with the postgres or mysql target of the application's database (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = name {
        if !config.modulith.contains_key(n) {
            let names: Vec<&str> = config.modulith.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no modulith registry named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let mut registries = Vec::new();
    for (n, c) in &config.modulith {
        if name.is_some_and(|asked| asked != n) {
            continue;
        }
        let (written, db) = Db::of(
            t,
            &format!("modulith registry {n}"),
            (&c.postgres, &c.mysql),
        )?;
        let (table, incomplete_age, critical_age, poison_attempts, retention) = thresholds(n, c);
        // Past the critical age an incomplete publication is never only a WARNING.
        pair(
            &format!("modulith {n} incomplete_age and critical_age"),
            (None, None),
            (&incomplete_age, &critical_age),
            format_duration,
        )?;
        registries.push(Registry {
            name: n.clone(),
            written,
            db,
            table,
            incomplete_age,
            critical_age,
            poison_attempts,
            retention,
        });
    }
    Ok(ModulithSettings {
        registries,
        config_file: t.config.path.clone(),
    })
}

/// `resolve modulith`: the registry, the age past which completed publications go, and
/// the batch size.
pub struct ResolveModulithSettings {
    pub registry: Registry,
    pub older_than: Setting<Duration>,
    pub batch_size: u64,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_modulith(
    t: &Targets,
    args: crate::cli::ResolveModulithArgs,
) -> Result<ResolveModulithSettings> {
    let config = &t.config.config;
    let name = match (&args.name, config.modulith.len()) {
        (Some(n), _) => n.clone(),
        (None, 1) => config.modulith.keys().next().cloned().unwrap_or_default(),
        (None, _) => {
            let names: Vec<&str> = config.modulith.keys().map(String::as_str).collect();
            return Err(hinted(
                "which modulith registry? the config names none or several",
                format!("name it (the config names: {})", names.join(", ")),
            ));
        }
    };
    let registry = settings(t, Some(&name))?
        .registries
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no modulith registry named {name:?}"))?;
    let older_than = match args.older_than {
        Some(d) => Setting {
            value: d,
            source: super::Source::Flag("--older-than"),
            entry: &defaults::MODULITH_RETENTION,
        },
        None => registry.retention.clone(),
    };
    Ok(ResolveModulithSettings {
        registry,
        older_than,
        batch_size: args.batch_size,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}
