//! The resolved settings of the PostgreSQL commands: the server, the next commands'
//! addressing, and each threshold pair checked; the outboxes and inboxes of the config.
//! Each command resolves its arguments into them in its own folder (`settings.rs`).

use super::addressing::Addressing;
use super::targets::{PgTarget, Referenced, Targets};
use super::{defaults, Setting};
use crate::config::{InboxConfig, OutboxConfig};
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
    pub retention: Setting<Duration>,
    pub check: bool,
    /// Whether `resolve outbox` can publish its skipped rows (a publish: section).
    pub publish: bool,
}

/// One inbox of the config.
pub struct Inbox {
    pub name: String,
    pub postgres: String,
    pub target: Referenced,
    pub table: String,
    pub created_at_column: String,
    pub retention: Option<Duration>,
    pub producer_retry_horizon: Option<Duration>,
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
        retention: Setting::duration_in(&defaults::OUTBOX_RETENTION, name, o.retention),
        check: o.check,
        publish: o.publish.is_some(),
    }
}

pub fn inbox(t: &Targets, name: &str, i: &InboxConfig) -> Inbox {
    Inbox {
        name: name.to_string(),
        postgres: i.postgres.clone(),
        target: t.referenced(&i.postgres),
        table: i.table.clone(),
        created_at_column: i.created_at_column.clone(),
        retention: i.retention,
        producer_retry_horizon: i.producer_retry_horizon,
    }
}
