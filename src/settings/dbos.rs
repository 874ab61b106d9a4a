//! `dbos workflows`' applications and `resolve dbos`'s: each DBOS application of the
//! config (or the one named), its system database, schema, thresholds and CLI, resolved
//! before anything is read.

use super::appdb::Db;
use crate::config::DbosConfig;
use crate::dbos::system::Schema;
use crate::error::hinted;
use crate::settings::defaults;
use crate::settings::targets::{Referenced, Targets};
use crate::settings::{pair, Setting};
use crate::units::format_duration;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the applications it reads.
pub struct DbosSettings {
    pub apps: Vec<App>,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One application of the config.
pub struct App {
    pub name: String,
    /// The config's `postgres:` as written.
    pub written: String,
    /// Always PostgreSQL (`Db::Postgres`): the shape the GRANTs of unreadable tables take.
    pub db: Db,
    pub schema: Setting<String>,
    pub pending_age: Setting<Duration>,
    pub critical_age: Setting<Duration>,
    pub error_window: Setting<Duration>,
    /// DBOS's CLI as a command line, when the config names it.
    pub cli: Option<Vec<String>>,
}

impl App {
    pub fn tables(&self) -> Schema {
        Schema::new(&self.schema.value)
    }

    pub fn subject(&self) -> String {
        format!("dbos application {}", self.name)
    }

    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        self.db.place(&self.written, "the application")
    }

    /// Its system database's target.
    pub fn target(&self) -> Referenced {
        match &self.db {
            Db::Postgres(target) => target.clone(),
            Db::Mysql(_) => Err("a DBOS system database is PostgreSQL".into()),
        }
    }
}

/// An application's schema and thresholds: the config's, else the defaults (`config
/// show` shows the same).
pub fn thresholds(
    name: &str,
    c: &DbosConfig,
) -> (
    Setting<String>,
    Setting<Duration>,
    Setting<Duration>,
    Setting<Duration>,
) {
    (
        Setting::in_section(
            &defaults::DBOS_SCHEMA,
            name,
            c.schema.clone(),
            defaults::DBOS_SCHEMA.text().to_string(),
        ),
        Setting::duration_in(&defaults::DBOS_PENDING_AGE, name, c.pending_age),
        Setting::duration_in(&defaults::DBOS_CRITICAL_AGE, name, c.critical_age),
        Setting::duration_in(&defaults::DBOS_ERROR_WINDOW, name, c.error_window),
    )
}

/// The applications a run reads: the one named, else every one of the config.
pub fn settings(t: &Targets, name: Option<&str>) -> Result<DbosSettings> {
    let config = &t.config.config;
    if config.dbos.is_empty() {
        return Err(hinted(
            "no dbos application in the config",
            "name each under dbos: with the postgres target of its system database (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = name {
        if !config.dbos.contains_key(n) {
            let names: Vec<&str> = config.dbos.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no dbos application named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let mut apps = Vec::new();
    for (n, c) in &config.dbos {
        if name.is_some_and(|asked| asked != n) {
            continue;
        }
        let (schema, pending_age, critical_age, error_window) = thresholds(n, c);
        pair(
            &format!("dbos {n} pending_age and critical_age"),
            (None, None),
            (&pending_age, &critical_age),
            format_duration,
        )?;
        if c.cli.as_ref().is_some_and(|argv| argv.is_empty()) {
            return Err(hinted(
                format!("dbos application {n} names an empty cli:"),
                "give DBOS's CLI as a list, e.g. cli: [/srv/app/.venv/bin/dbos], or leave cli: out (the command is printed then)",
            ));
        }
        apps.push(App {
            name: n.clone(),
            written: c.postgres.clone(),
            db: Db::Postgres(t.referenced(&c.postgres)),
            schema,
            pending_age,
            critical_age,
            error_window,
            cli: c.cli.clone(),
        });
    }
    Ok(DbosSettings {
        apps,
        config_file: t.config.path.clone(),
    })
}

/// What `resolve dbos` asks DBOS to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Resume,
    Cancel,
}

impl Action {
    /// DBOS's CLI's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Action::Resume => "resume",
            Action::Cancel => "cancel",
        }
    }
}

/// `resolve dbos`: the application, the workflows, the action.
pub struct ResolveDbosSettings {
    pub app: App,
    pub ids: Vec<String>,
    pub action: Action,
    /// The operator's word that the workflows' executor is gone (DBOS keeps no liveness).
    pub executor_gone: bool,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_dbos(t: &Targets, args: crate::cli::ResolveDbosArgs) -> Result<ResolveDbosSettings> {
    let app = settings(t, Some(&args.name))?
        .apps
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no dbos application named {:?}", args.name))?;
    Ok(ResolveDbosSettings {
        app,
        ids: args.ids,
        action: match args.cancel {
            true => Action::Cancel,
            false => Action::Resume,
        },
        executor_gone: args.executor_gone,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}
