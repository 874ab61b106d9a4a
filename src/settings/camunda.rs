//! `camunda incidents`' engines and `resolve camunda`'s: each engine of the config (or
//! the one named), its database, table prefix, thresholds and REST API, resolved before
//! anything is read.

use super::appdb::Db;
use crate::camunda::engine::Tables;
use crate::camunda::rest::Api;
use crate::config::CamundaConfig;
use crate::error::hinted;
use crate::http::HttpTrust;
use crate::settings::defaults;
use crate::settings::targets::{Referenced, Targets};
use crate::settings::Setting;
use anyhow::{Context as _, Result};
use std::path::PathBuf;
use std::time::Duration;

/// One run: the engines it reads.
pub struct CamundaSettings {
    pub engines: Vec<Engine>,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One engine of the config.
pub struct Engine {
    pub name: String,
    /// The config's `postgres:` as written.
    pub written: String,
    /// Always PostgreSQL (`Db::Postgres`): the shape the GRANTs of unreadable tables take.
    pub db: Db,
    pub table_prefix: Setting<String>,
    pub critical_age: Setting<Duration>,
    pub lock_age: Setting<Duration>,
    /// The engine's time zone, when the config names it.
    pub time_zone: Option<String>,
    /// Its REST API, when the config names one (its URL checked, its password read).
    pub rest: Option<Api>,
}

impl Engine {
    pub fn tables(&self) -> Tables {
        Tables::new(&self.table_prefix.value)
    }

    pub fn subject(&self) -> String {
        format!("camunda engine {}", self.name)
    }

    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        self.db.place(&self.written, "the engine")
    }

    /// Its database's target.
    pub fn target(&self) -> Referenced {
        match &self.db {
            Db::Postgres(target) => target.clone(),
            Db::Mysql(_) => Err("a camunda engine's database is PostgreSQL".into()),
        }
    }
}

/// An engine's prefix and thresholds: the config's, else the defaults (`config show`
/// shows the same).
pub fn thresholds(
    name: &str,
    c: &CamundaConfig,
) -> (Setting<String>, Setting<Duration>, Setting<Duration>) {
    (
        Setting::in_section(
            &defaults::CAMUNDA_TABLE_PREFIX,
            name,
            c.table_prefix.clone(),
            String::new(),
        ),
        Setting::duration_in(&defaults::CAMUNDA_CRITICAL_AGE, name, c.critical_age),
        Setting::duration_in(&defaults::CAMUNDA_LOCK_AGE, name, c.lock_age),
    )
}

/// The REST API an engine's section names, checked (https, or http to loopback unless
/// allowed) and with its password read, before anything is sent.
pub(crate) fn rest(name: &str, c: &CamundaConfig) -> Result<Option<Api>> {
    let Some(url) = &c.rest else {
        if c.rest_user.is_some() || c.rest_password_file.is_some() {
            return Err(hinted(
                format!("camunda engine {name} names a REST user or password but no rest: URL"),
                "add rest: http://HOST:8080/engine-rest (the engine's REST API) to the section",
            ));
        }
        return Ok(None);
    };
    let basic = match (&c.rest_user, &c.rest_password_file) {
        (Some(user), Some(file)) => {
            crate::fsafe::check_secret_file(file, "REST password file", None)?;
            let text = crate::fsafe::read_settings(file, "REST password file")?.text;
            let password = text.trim_end_matches(['\n', '\r']).to_string();
            Some((user.clone(), crate::secret::Password::new(password)))
        }
        (None, None) => None,
        _ => {
            return Err(hinted(
                format!(
                    "camunda engine {name} names only one of rest_user: and rest_password_file:"
                ),
                "HTTP basic authentication needs both (or neither, for an API without it)",
            ))
        }
    };
    let api = Api {
        url: url.trim_end_matches('/').to_string(),
        trust: HttpTrust {
            allow_http: c.rest_allow_http,
            ..HttpTrust::default()
        },
        basic,
    };
    api.check()
        .with_context(|| format!("camunda engine {name}, rest"))?;
    Ok(Some(api))
}

/// The engines a run reads: the one named, else every one of the config.
pub fn settings(t: &Targets, name: Option<&str>) -> Result<CamundaSettings> {
    let config = &t.config.config;
    if config.camunda.is_empty() {
        return Err(hinted(
            "no camunda engine in the config",
            "name each under camunda: with the postgres target of the engine's database (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = name {
        if !config.camunda.contains_key(n) {
            let names: Vec<&str> = config.camunda.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no camunda engine named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let mut engines = Vec::new();
    for (n, c) in &config.camunda {
        if name.is_some_and(|asked| asked != n) {
            continue;
        }
        let (table_prefix, critical_age, lock_age) = thresholds(n, c);
        engines.push(Engine {
            name: n.clone(),
            written: c.postgres.clone(),
            db: Db::Postgres(t.referenced(&c.postgres)),
            table_prefix,
            critical_age,
            lock_age,
            time_zone: c.time_zone.clone(),
            rest: rest(n, c)?,
        });
    }
    Ok(CamundaSettings {
        engines,
        config_file: t.config.path.clone(),
    })
}

/// `resolve camunda`: the engine, the ids, the retries to set.
pub struct ResolveCamundaSettings {
    pub engine: Engine,
    pub ids: Vec<String>,
    pub retries: u32,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_camunda(
    t: &Targets,
    args: crate::cli::ResolveCamundaArgs,
) -> Result<ResolveCamundaSettings> {
    let engine = settings(t, Some(&args.name))?
        .engines
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no camunda engine named {:?}", args.name))?;
    Ok(ResolveCamundaSettings {
        engine,
        ids: args.ids,
        retries: args.retries,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}
