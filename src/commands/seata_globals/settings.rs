//! `seata globals`' settings: each coordinator of the config (or the one named), its
//! store and tables, its grace and critical age, resolved before anything is read.

use crate::cli::SeataGlobalsArgs;
use crate::config::SeataConfig;
use crate::error::hinted;
use crate::settings::defaults;
use crate::settings::targets::{Referenced, Targets};
use crate::settings::{pair, Setting};
use crate::units::format_duration;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the coordinators it reads.
pub struct GlobalsSettings {
    pub coordinators: Vec<Coordinator>,
    /// Branches and locked rows listed per global.
    pub show: usize,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One coordinator of the config.
pub struct Coordinator {
    pub name: String,
    /// The config's `postgres:` as written.
    pub postgres: String,
    /// Its store's server; one that cannot be used is this coordinator's UNKNOWN.
    pub target: Referenced,
    pub global_table: String,
    pub branch_table: String,
    pub lock_table: String,
    pub grace: Setting<Duration>,
    pub critical_age: Setting<Duration>,
}

/// A coordinator's grace and critical age: the config's, else the defaults (`config
/// show` shows the same).
pub fn ages(name: &str, c: &SeataConfig) -> (Setting<Duration>, Setting<Duration>) {
    (
        Setting::duration_in(&defaults::SEATA_GRACE, name, c.grace),
        Setting::duration_in(&defaults::SEATA_CRITICAL_AGE, name, c.critical_age),
    )
}

pub fn coordinator(t: &Targets, name: &str, c: &SeataConfig) -> Coordinator {
    let (grace, critical_age) = ages(name, c);
    Coordinator {
        name: name.to_string(),
        postgres: c.postgres.clone(),
        target: t.referenced(&c.postgres),
        global_table: c.global_table.clone(),
        branch_table: c.branch_table.clone(),
        lock_table: c.lock_table.clone(),
        grace,
        critical_age,
    }
}

pub fn globals(t: &Targets, args: SeataGlobalsArgs) -> Result<GlobalsSettings> {
    let config = &t.config.config;
    if config.seata.is_empty() {
        return Err(hinted(
            "no seata coordinator in the config",
            "name each under seata: with the postgres target of its store (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = &args.name {
        if !config.seata.contains_key(n) {
            let names: Vec<&str> = config.seata.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no seata coordinator named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let mut coordinators = Vec::new();
    for (name, c) in &config.seata {
        if args.name.as_deref().is_some_and(|n| n != name) {
            continue;
        }
        let c = coordinator(t, name, c);
        // The grace is when an unended global becomes a WARNING: past the critical
        // age it would never be one.
        pair(
            &format!("seata {name} grace and critical_age"),
            (None, None),
            (&c.grace, &c.critical_age),
            format_duration,
        )?;
        coordinators.push(c);
    }
    Ok(GlobalsSettings {
        coordinators,
        show: args.show,
        config_file: t.config.path.clone(),
    })
}
