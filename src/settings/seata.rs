//! The `seata` probes' and resolutions' coordinators: each of the config (or the one
//! named), its store and tables, its clients' business databases and the tables each
//! holds, its thresholds, resolved before anything is read; and where a statement for one
//! runs.

pub use super::appdb::Db;
use crate::config::{SeataClientConfig, SeataConfig};
use crate::error::hinted;
use crate::settings::defaults;
use crate::settings::targets::Targets;
use crate::settings::{pair, Setting};
use crate::units::format_duration;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One run: the coordinators it reads.
pub struct SeataSettings {
    pub coordinators: Vec<Coordinator>,
    /// Branches, locked rows, states listed per item.
    pub show: usize,
    /// The config file, which the report names as where it looked.
    pub config_file: Option<PathBuf>,
}

/// One coordinator of the config.
pub struct Coordinator {
    pub name: String,
    /// The config's `postgres:` or `mysql:` as written.
    pub written: String,
    /// Its store's server; one that cannot be used is this coordinator's UNKNOWN.
    pub store: Db,
    pub global_table: String,
    pub branch_table: String,
    pub lock_table: String,
    pub grace: Setting<Duration>,
    pub critical_age: Setting<Duration>,
    pub reservation_age: Setting<Duration>,
    pub saga_stall: Setting<Duration>,
    pub fence_retention: Setting<Duration>,
    pub clients: Vec<Client>,
}

/// A business database of the coordinator's clients, and the Seata tables it holds.
pub struct Client {
    pub name: String,
    /// The config's `postgres:` or `mysql:` as written.
    pub written: String,
    pub db: Db,
    pub undo_log: Option<String>,
    pub tcc_fence_log: Option<String>,
    pub saga_table_prefix: Option<String>,
}

impl Client {
    fn of(t: &Targets, coordinator: &str, name: &str, c: &SeataClientConfig) -> Result<Client> {
        let (written, db) = Db::of(
            t,
            &format!("seata coordinator {coordinator} client {name}"),
            (&c.postgres, &c.mysql),
        )?;
        Ok(Client {
            name: name.to_string(),
            written,
            db,
            undo_log: c.undo_log.clone(),
            tcc_fence_log: c.tcc_fence_log.clone(),
            saga_table_prefix: c.saga_table_prefix.clone(),
        })
    }

    /// Where a statement for its database runs.
    pub fn place(&self) -> String {
        self.db.place(&self.written, "the client")
    }

    /// Which SQL its statements are in.
    pub fn dialect(&self) -> crate::appdb::Dialect {
        self.db.dialect()
    }
}

/// A coordinator's grace and critical age: the config's, else the defaults (`config
/// show` shows the same).
pub fn ages(name: &str, c: &SeataConfig) -> (Setting<Duration>, Setting<Duration>) {
    (
        Setting::duration_in(&defaults::SEATA_GRACE, name, c.grace),
        Setting::duration_in(&defaults::SEATA_CRITICAL_AGE, name, c.critical_age),
    )
}

/// A coordinator's thresholds for its clients' tables: (reservation age, saga stall,
/// fence retention).
pub fn client_ages(
    name: &str,
    c: &SeataConfig,
) -> (Setting<Duration>, Setting<Duration>, Setting<Duration>) {
    (
        Setting::duration_in(&defaults::SEATA_RESERVATION_AGE, name, c.reservation_age),
        Setting::duration_in(&defaults::SEATA_SAGA_STALL, name, c.saga_stall),
        Setting::duration_in(&defaults::SEATA_FENCE_RETENTION, name, c.fence_retention),
    )
}

pub fn coordinator(t: &Targets, name: &str, c: &SeataConfig) -> Result<Coordinator> {
    let (grace, critical_age) = ages(name, c);
    let (reservation_age, saga_stall, fence_retention) = client_ages(name, c);
    let (written, store) = Db::of(
        t,
        &format!("seata coordinator {name}"),
        (&c.postgres, &c.mysql),
    )?;
    Ok(Coordinator {
        name: name.to_string(),
        written,
        store,
        global_table: c.global_table.clone(),
        branch_table: c.branch_table.clone(),
        lock_table: c.lock_table.clone(),
        grace,
        critical_age,
        reservation_age,
        saga_stall,
        fence_retention,
        clients: c
            .clients
            .iter()
            .map(|(n, client)| Client::of(t, name, n, client))
            .collect::<Result<_>>()?,
    })
}

impl Coordinator {
    /// The store as the report names it: the config's target name, or the connection
    /// without its password.
    pub fn store_shown(&self) -> String {
        match &self.store {
            Db::Postgres(Ok(t)) => t.name.clone().unwrap_or_else(|| t.params.describe()),
            Db::Mysql(Ok(_)) => format!("mysql target {}", self.written),
            _ => "(unusable: see the finding)".into(),
        }
    }

    /// Where a statement for its store runs: a statement names no server.
    pub fn place(&self) -> String {
        self.store.place(&self.written, "the store")
    }

    /// Whether its store is PostgreSQL (else MySQL or MariaDB: its statements are in
    /// that SQL).
    pub fn on_postgres(&self) -> bool {
        matches!(self.store, Db::Postgres(_))
    }

    /// Its store's three tables, as the config names them.
    pub fn tables(&self) -> crate::seata::store::Tables<'_> {
        crate::seata::store::Tables {
            global: &self.global_table,
            branch: &self.branch_table,
            lock: &self.lock_table,
        }
    }

    pub fn subject(&self) -> String {
        format!("seata coordinator {}", self.name)
    }
}

/// The coordinators a `seata` probe reads: the one named, else every one of the config.
pub fn settings(t: &Targets, name: Option<&str>, show: usize) -> Result<SeataSettings> {
    let config = &t.config.config;
    if config.seata.is_empty() {
        return Err(hinted(
            "no seata coordinator in the config",
            "name each under seata: with the postgres target of its store (see `man 5 indoubt-config`)",
        ));
    }
    if let Some(n) = name {
        if !config.seata.contains_key(n) {
            let names: Vec<&str> = config.seata.keys().map(String::as_str).collect();
            return Err(hinted(
                format!("no seata coordinator named {n:?} in the config"),
                format!("the config names: {}", names.join(", ")),
            ));
        }
    }
    let name_asked = name;
    let mut coordinators = Vec::new();
    for (name, c) in &config.seata {
        if name_asked.is_some_and(|n| n != name) {
            continue;
        }
        let c = coordinator(t, name, c)?;
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
    Ok(SeataSettings {
        coordinators,
        show,
        config_file: t.config.path.clone(),
    })
}

/// `resolve tcc`: the Try named, its coordinator and the client whose fence holds it.
pub struct ResolveTccSettings {
    pub coordinator: Coordinator,
    /// Which of `coordinator.clients`.
    pub client: usize,
    pub xid: String,
    pub branch_id: i64,
    pub phase: crate::cli::TccPhase,
    pub confirm: super::resolution::Confirm,
}

impl ResolveTccSettings {
    pub fn client(&self) -> &Client {
        &self.coordinator.clients[self.client]
    }

    /// The client's fence table (a client is chosen only with one).
    pub fn fence_table(&self) -> &str {
        self.client().tcc_fence_log.as_deref().unwrap_or_default()
    }
}

pub fn resolve_tcc(t: &Targets, args: crate::cli::ResolveTccArgs) -> Result<ResolveTccSettings> {
    let (coordinator, client) = coordinator_and_client(
        t,
        (args.coordinator.as_deref(), args.client.as_deref()),
        ("tcc_fence_log", |k| k.tcc_fence_log.is_some()),
    )?;
    Ok(ResolveTccSettings {
        coordinator,
        client,
        xid: args.xid,
        branch_id: args.branch_id,
        phase: args.phase,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}

/// `resolve at`: the AT branch named, its coordinator and the client whose undo log
/// holds it.
pub struct ResolveAtSettings {
    pub coordinator: Coordinator,
    /// Which of `coordinator.clients`.
    pub client: usize,
    pub xid: String,
    pub branch_id: i64,
    pub fix: crate::cli::AtFix,
    pub confirm: super::resolution::Confirm,
}

impl ResolveAtSettings {
    pub fn client(&self) -> &Client {
        &self.coordinator.clients[self.client]
    }

    /// The client's undo log table (a client is chosen only with one).
    pub fn undo_table(&self) -> &str {
        self.client().undo_log.as_deref().unwrap_or_default()
    }
}

pub fn resolve_at(t: &Targets, args: crate::cli::ResolveAtArgs) -> Result<ResolveAtSettings> {
    let (coordinator, client) = coordinator_and_client(
        t,
        (args.coordinator.as_deref(), args.client.as_deref()),
        ("undo_log", |k| k.undo_log.is_some()),
    )?;
    Ok(ResolveAtSettings {
        coordinator,
        client,
        xid: args.xid,
        branch_id: args.branch_id,
        fix: args.fix,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}

/// The coordinator a resolution names (else the config's only one) and which of its
/// clients holds the table (`holds`, named `table` in messages): the one named, else the
/// only one that holds it.
fn coordinator_and_client(
    t: &Targets,
    (coordinator_asked, client_asked): (Option<&str>, Option<&str>),
    (table, holds): (&str, fn(&Client) -> bool),
) -> Result<(Coordinator, usize)> {
    let config = &t.config.config;
    let names = |keys: Vec<&String>| {
        keys.iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (name, c) = match coordinator_asked {
        Some(n) => config.seata.get_key_value(n).ok_or_else(|| {
            hinted(
                format!("no seata coordinator named {n:?} in the config"),
                format!("the config names: {}", names(config.seata.keys().collect())),
            )
        })?,
        None if config.seata.len() == 1 => {
            config.seata.iter().next().unwrap_or_else(|| unreachable!())
        }
        None => {
            return Err(hinted(
                "which seata coordinator? the config names none or several",
                format!(
                    "name it with --coordinator (the config names: {})",
                    names(config.seata.keys().collect())
                ),
            ))
        }
    };
    let coordinator = coordinator(t, name, c)?;
    let holding: Vec<usize> = coordinator
        .clients
        .iter()
        .enumerate()
        .filter(|(_, k)| holds(k))
        .map(|(i, _)| i)
        .collect();
    let client = match client_asked {
        Some(n) => *holding
            .iter()
            .find(|i| coordinator.clients[**i].name == n)
            .ok_or_else(|| {
                hinted(
                    format!("coordinator {name} has no client {n:?} with a {table}"),
                    format!("name the client's {table} under seata: NAME: clients: in the config"),
                )
            })?,
        None if holding.len() == 1 => holding[0],
        None => {
            return Err(hinted(
                format!(
                    "which client? coordinator {name} has {} clients with a {table}",
                    holding.len()
                ),
                "name it with --client (`indoubt config show` lists them)",
            ))
        }
    };
    Ok((coordinator, client))
}
