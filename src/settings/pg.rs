//! The resolved settings of the PostgreSQL commands: the server, the next commands'
//! addressing, and each threshold pair checked; the outboxes and inboxes of the config.

use super::addressing::Addressing;
use super::targets::{PgTarget, Referenced, Targets};
use super::{defaults, pair, Note, Setting, Thresholds};
use crate::cli::{HorizonArgs, OutboxArgs, PreparedArgs, SlotsArgs};
use crate::config::{InboxConfig, OutboxConfig};
use crate::error::hinted;
use crate::units::format_duration;
use anyhow::Result;
use std::time::Duration;

/// `pg prepared`.
pub struct PreparedSettings {
    pub target: PgTarget,
    pub addressing: Addressing,
    pub databases: Vec<String>,
    /// Age: warning, critical.
    pub age: (Duration, Duration),
}

/// `pg slots`.
pub struct SlotsSettings {
    pub target: PgTarget,
    /// Retained WAL in bytes: warning, critical.
    pub retained: (u64, u64),
    /// Slot xmin / catalog_xmin ages, shared with `pg horizon`.
    pub xids: (u64, u64),
}

/// `pg horizon`.
pub struct HorizonSettings {
    pub target: PgTarget,
    pub addressing: Addressing,
    pub age: (Duration, Duration),
    pub xids: (u64, u64),
    pub wraparound: (u64, u64),
}

/// `pg outbox`: the outboxes and inboxes it reads (all, or the one named).
pub struct OutboxSettings {
    pub outboxes: Vec<Outbox>,
    pub inboxes: Vec<Inbox>,
    /// How many skipped ids to list.
    pub show: usize,
    /// The config file that names them, as the report's target.
    pub config_file: Option<std::path::PathBuf>,
}

/// One outbox of the config, its fields in force with their sources.
pub struct Outbox {
    pub name: String,
    /// The config's `postgres:` as written (config show resolves it for display).
    pub postgres: String,
    /// Its server; one that cannot be used is this outbox's UNKNOWN finding.
    pub target: Referenced,
    pub table: String,
    pub id_column: String,
    pub created_at_column: String,
    pub published_at_column: String,
    pub settle: Setting<Duration>,
    pub warning_age: Setting<Duration>,
    pub critical_age: Setting<Duration>,
    pub check: bool,
}

/// One inbox of the config.
pub struct Inbox {
    pub name: String,
    pub postgres: String,
    pub target: Referenced,
    pub table: String,
    pub created_at_column: String,
}

pub fn prepared(
    t: &Targets,
    thresholds: &Thresholds,
    args: PreparedArgs,
) -> Result<PreparedSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.prepared((args.warning_age, args.critical_age), note)?;
    let target = t.pg_for_server(&args.target)?;
    Ok(PreparedSettings {
        addressing: Addressing::new(&t.ctx.invocation, &args.target, &target),
        target,
        databases: args.databases,
        age,
    })
}

pub fn slots(t: &Targets, thresholds: &Thresholds, args: SlotsArgs) -> Result<SlotsSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let retained = thresholds.slots((args.warning_retained, args.critical_retained), note)?;
    let xids = thresholds.horizon_xids((None, None), note)?;
    Ok(SlotsSettings {
        target: t.pg_for_server(&args.target)?,
        retained,
        xids,
    })
}

pub fn horizon(t: &Targets, thresholds: &Thresholds, args: HorizonArgs) -> Result<HorizonSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.horizon_age((args.warning_age, args.critical_age), note)?;
    let xids = thresholds.horizon_xids((args.warning_xids, args.critical_xids), note)?;
    let wraparound = thresholds.wraparound(
        (args.wraparound_warning_xids, args.wraparound_critical_xids),
        note,
    )?;
    let target = t.pg_for_server(&args.target)?;
    Ok(HorizonSettings {
        addressing: Addressing::new(&t.ctx.invocation, &args.target, &target),
        target,
        age,
        xids,
        wraparound,
    })
}

/// An outbox's fields with their defaults and sources (its age pair unchecked: `config
/// show` reports what is configured; `pg outbox` refuses a warning above the critical).
pub fn outbox(t: &Targets, name: &str, o: &OutboxConfig) -> Outbox {
    Outbox {
        name: name.to_string(),
        postgres: o.postgres.clone(),
        target: t.referenced(&o.postgres),
        table: o.table.clone(),
        id_column: o.id_column.clone(),
        created_at_column: o.created_at_column.clone(),
        published_at_column: o.published_at_column.clone(),
        settle: Setting::duration_in(&defaults::OUTBOX_SETTLE, name, o.settle),
        warning_age: Setting::duration_in(&defaults::OUTBOX_WARNING_AGE, name, o.warning_age),
        critical_age: Setting::duration_in(&defaults::OUTBOX_CRITICAL_AGE, name, o.critical_age),
        check: o.check,
    }
}

pub fn inbox(t: &Targets, name: &str, i: &InboxConfig) -> Inbox {
    Inbox {
        name: name.to_string(),
        postgres: i.postgres.clone(),
        target: t.referenced(&i.postgres),
        table: i.table.clone(),
        created_at_column: i.created_at_column.clone(),
    }
}

pub fn outboxes(t: &Targets, args: OutboxArgs) -> Result<OutboxSettings> {
    let config = &t.config.config;
    if config.outbox.is_empty() && config.inbox.is_empty() {
        return Err(hinted(
            "no outbox or inbox in the config",
            "name them under outbox: and inbox: (see README.md)",
        ));
    }
    if let Some(n) = &args.name {
        if !config.outbox.contains_key(n) && !config.inbox.contains_key(n) {
            return Err(hinted(
                format!("no outbox or inbox named {n:?} in the config"),
                "see outbox: and inbox: in the config",
            ));
        }
    }
    let wanted = |name: &str| args.name.as_deref().is_none_or(|n| n == name);
    let mut outboxes = Vec::new();
    for (name, o) in config.outbox.iter().filter(|(n, _)| wanted(n)) {
        let outbox = outbox(t, name, o);
        pair(
            &format!("outbox {name} age"),
            (None, None),
            (&outbox.warning_age, &outbox.critical_age),
            format_duration,
        )?;
        outboxes.push(outbox);
    }
    let inboxes = config
        .inbox
        .iter()
        .filter(|(n, _)| wanted(n))
        .map(|(name, i)| inbox(t, name, i))
        .collect();
    Ok(OutboxSettings {
        outboxes,
        inboxes,
        show: args.show,
        config_file: t.config.path.clone(),
    })
}
