//! The documented JSON schema (README "JSON output"), as strict structs: an unknown or missing field fails the test.
#![allow(dead_code)] // deserializing checks every field (none missing, none unknown), also those no test reads

use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// For fields that are always written, possibly as null: unlike a plain `Option`, a
/// missing field is an error (serde only defaults a field without `deserialize_with`).
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    #[serde(deserialize_with = "present")]
    pub name: Option<String>,
    pub kind: String,
    pub address: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub severity: String,
    pub code: String,
    pub subject: String,
    pub message: String,
    pub evidence: serde_json::Map<String, serde_json::Value>,
    pub advice: Option<String>,
    pub next: Option<String>,
    /// What the finding is about, as `check` groups by.
    pub object: Option<Object>,
    #[serde(default)]
    pub related: Vec<Object>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Object {
    pub kind: String,
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreparedReport {
    pub schema_version: u32,
    pub indoubt_version: String,
    pub command: String,
    pub generated_at: String,
    pub target: Target,
    pub status: String,
    pub exit_code: u8,
    pub findings: Vec<Finding>,
    pub thresholds: Thresholds,
    pub server_time: String,
    pub max_prepared_transactions: i32,
    pub prepared_transactions: Vec<PreparedXact>,
    pub unattributed_blocked_sessions: Vec<BlockedSession>,
    pub visibility_gaps: Vec<String>,
    pub unreadable: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    pub warning_age_seconds: u64,
    pub critical_age_seconds: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreparedXact {
    pub gid: String,
    pub xid: i64,
    pub database: String,
    #[serde(deserialize_with = "present")]
    pub owner: Option<String>,
    pub prepared_at: String,
    pub age_seconds: f64,
    pub age_xids: i64,
    pub decoded_gid: DecodedGid,
    #[serde(deserialize_with = "present")]
    pub global_transaction: Option<GlobalTransaction>,
    pub locks_by_mode: BTreeMap<String, usize>,
    pub locks: Vec<HeldLock>,
    pub blocked_sessions: Vec<BlockedSession>,
}

/// The global transaction a prepared transaction is a branch of.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GlobalTransaction {
    pub key: String,
    #[serde(deserialize_with = "present")]
    pub transaction_manager: Option<String>,
    #[serde(deserialize_with = "present")]
    pub coordinator_node: Option<String>,
    pub branches: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldLock {
    pub locktype: String,
    pub mode: String,
    pub granted: bool,
    #[serde(deserialize_with = "present")]
    pub database: Option<String>,
    #[serde(deserialize_with = "present")]
    pub relation_oid: Option<u32>,
    #[serde(deserialize_with = "present")]
    pub relation: Option<String>,
    #[serde(deserialize_with = "present")]
    pub transactionid: Option<String>,
    pub virtualtransaction: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockedSession {
    pub pid: i32,
    #[serde(deserialize_with = "present")]
    pub database: Option<String>,
    #[serde(deserialize_with = "present")]
    pub user: Option<String>,
    #[serde(deserialize_with = "present")]
    pub application: Option<String>,
    #[serde(deserialize_with = "present")]
    pub state: Option<String>,
    #[serde(deserialize_with = "present")]
    pub wait_event: Option<String>,
    #[serde(deserialize_with = "present")]
    pub query_seconds: Option<f64>,
    #[serde(deserialize_with = "present")]
    pub query: Option<String>,
    pub waits_for: LockWait,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockWait {
    pub locktype: String,
    pub mode: String,
    #[serde(deserialize_with = "present")]
    pub relation_oid: Option<u32>,
    #[serde(deserialize_with = "present")]
    pub relation: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[allow(clippy::large_enum_variant)] // a schema pin, read once per test
pub enum DecodedGid {
    Xa {
        format_id: i32,
        #[serde(deserialize_with = "present")]
        transaction_manager: Option<String>,
        gtrid_hex: String,
        gtrid_text: String,
        bqual_hex: String,
        bqual_text: String,
        narayana: Option<NarayanaXid>,
        atomikos: Option<AtomikosXid>,
    },
    Citus {
        initiator_group_id: i64,
        initiator_pid: i64,
        transaction_number: i64,
        connection_number: i64,
    },
    LogicalReplication {
        subscription_oid: u32,
        remote_xid: u64,
    },
    Opaque {
        note: Option<String>,
    },
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NarayanaXid {
    pub transaction_uid: String,
    #[serde(deserialize_with = "present")]
    pub coordinator_started_at: Option<String>,
    pub coordinator_node: String,
    pub branch_uid: Option<String>,
    pub eis_name: Option<i32>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AtomikosXid {
    pub tid: String,
    #[serde(deserialize_with = "present")]
    pub tm_unique_name: Option<String>,
    #[serde(deserialize_with = "present")]
    pub begun_at: Option<String>,
}

/// A report struct: the header every command shares, then the command's own fields.
macro_rules! report {
    ($name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            pub schema_version: u32,
            pub indoubt_version: String,
            pub command: String,
            pub generated_at: String,
            pub target: Target,
            pub status: String,
            pub exit_code: u8,
            pub findings: Vec<Finding>,
            $(pub $field: $ty,)*
        }
    };
}

report!(HorizonReport {
    culprit: Option<String>,
    thresholds: HorizonThresholds,
    server_time: String,
    in_recovery: bool,
    settings: HorizonSettings,
    holders: Vec<Holder>,
    vacuum_waits_for: Vec<DatabaseWait>,
    databases: Vec<DatabaseAge>,
    visibility_gaps: Vec<String>,
});

/// Whose xmin one database's vacuum waits for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseWait {
    pub database: String,
    #[serde(deserialize_with = "present")]
    pub tables: Option<Front>,
    #[serde(deserialize_with = "present")]
    pub catalogs: Option<Front>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Front {
    #[serde(deserialize_with = "present")]
    pub held_xid: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub age_xids: Option<i32>,
    pub held_by: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldsBack {
    pub tables_of: Vec<String>,
    pub catalogs_of: Vec<String>,
    pub shared_catalogs: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HorizonThresholds {
    pub warning_age_seconds: u64,
    pub critical_age_seconds: u64,
    pub warning_xids: u64,
    pub critical_xids: u64,
    pub wraparound_warning_xids: u64,
    pub wraparound_critical_xids: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HorizonSettings {
    pub autovacuum_freeze_max_age: i64,
    pub autovacuum_multixact_freeze_max_age: i64,
    #[serde(deserialize_with = "present")]
    pub vacuum_failsafe_age: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub vacuum_multixact_failsafe_age: Option<i64>,
    pub stop_margin_xids: i64,
    pub hot_standby_feedback: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Holder {
    pub kind: String,
    pub id: String,
    #[serde(deserialize_with = "present")]
    pub database: Option<String>,
    pub pins: String,
    #[serde(deserialize_with = "present")]
    pub user: Option<String>,
    #[serde(deserialize_with = "present")]
    pub application: Option<String>,
    #[serde(deserialize_with = "present")]
    pub client: Option<String>,
    #[serde(deserialize_with = "present")]
    pub state: Option<String>,
    #[serde(deserialize_with = "present")]
    pub backend_type: Option<String>,
    #[serde(deserialize_with = "present")]
    pub since: Option<String>,
    #[serde(deserialize_with = "present")]
    pub query_start: Option<String>,
    #[serde(deserialize_with = "present")]
    pub query: Option<String>,
    #[serde(deserialize_with = "present")]
    pub xid: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub xmin: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub held_xid: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub age_xids: Option<i32>,
    #[serde(deserialize_with = "present")]
    pub age_seconds: Option<f64>,
    pub holds_back: HoldsBack,
    pub jointly_with: Vec<String>,
    pub behind: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseAge {
    pub database: String,
    pub allows_connections: bool,
    pub datfrozenxid_age: i32,
    pub datminmxid_age: i32,
    pub xids_left: i64,
    pub percent_of_autovacuum_freeze_max_age: f64,
    #[serde(deserialize_with = "present")]
    pub failsafe_reached: Option<bool>,
    pub dead_tuples: Vec<DeadTuples>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadTuples {
    pub table: String,
    pub n_dead_tup: i64,
    pub n_live_tup: i64,
    #[serde(deserialize_with = "present")]
    pub last_vacuum: Option<String>,
    #[serde(deserialize_with = "present")]
    pub last_autovacuum: Option<String>,
}

report!(SlotsReport {
    thresholds: SlotThresholds,
    server_time: String,
    in_recovery: bool,
    max_slot_wal_keep_size_mb: i64,
    pg_wal_bytes: Option<i64>,
    pg_wal_files: Option<i64>,
    slots: Vec<Slot>,
    visibility_gaps: Vec<String>,
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotThresholds {
    pub warning_retained_bytes: u64,
    pub critical_retained_bytes: u64,
    pub warning_xids: u64,
    pub critical_xids: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slot {
    pub name: String,
    #[serde(deserialize_with = "present")]
    pub plugin: Option<String>,
    pub slot_type: String,
    #[serde(deserialize_with = "present")]
    pub database: Option<String>,
    pub temporary: bool,
    pub active: bool,
    #[serde(deserialize_with = "present")]
    pub active_pid: Option<i32>,
    #[serde(deserialize_with = "present")]
    pub xmin: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub xmin_age: Option<i32>,
    #[serde(deserialize_with = "present")]
    pub catalog_xmin: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub catalog_xmin_age: Option<i32>,
    #[serde(deserialize_with = "present")]
    pub restart_lsn: Option<String>,
    #[serde(deserialize_with = "present")]
    pub confirmed_flush_lsn: Option<String>,
    #[serde(deserialize_with = "present")]
    pub wal_status: Option<String>,
    #[serde(deserialize_with = "present")]
    pub safe_wal_size: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub retained_bytes: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub two_phase: Option<bool>,
    #[serde(deserialize_with = "present")]
    pub conflicting: Option<bool>,
    #[serde(deserialize_with = "present")]
    pub invalidation_reason: Option<String>,
    #[serde(deserialize_with = "present")]
    pub inactive_since: Option<String>,
    #[serde(deserialize_with = "present")]
    pub failover: Option<bool>,
    #[serde(deserialize_with = "present")]
    pub synced: Option<bool>,
}

report!(LsoReport {
    thresholds: LsoThresholds,
    partitions_checked: usize,
    partitions: Vec<PartitionLso>,
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LsoThresholds {
    pub warning_age_seconds: u64,
    pub critical_age_seconds: u64,
    pub warning_gap: u64,
    pub critical_gap: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionLso {
    pub topic: String,
    pub partition: i32,
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    pub gap: i64,
    #[serde(deserialize_with = "present")]
    pub open_txn_start_offset: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub producer_id: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub producer_epoch: Option<i32>,
    #[serde(deserialize_with = "present")]
    pub first_unstable_at_ms: Option<i64>,
    #[serde(deserialize_with = "present")]
    pub stuck_seconds: Option<f64>,
    #[serde(deserialize_with = "present")]
    pub transactional_id: Option<String>,
    #[serde(deserialize_with = "present")]
    pub verdict: Option<String>,
    #[serde(deserialize_with = "present")]
    pub verdict_reason: Option<String>,
    pub severity: String,
}

report!(HangingReport {
    max_transaction_timeout_seconds: u64,
    partitions_searched: usize,
    transactions: Vec<OpenTransaction>,
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenTransaction {
    pub topic: String,
    pub partition: i32,
    pub producer_id: i64,
    pub producer_epoch: i32,
    pub coordinator_epoch: i32,
    pub start_offset: i64,
    pub last_timestamp_ms: i64,
    pub duration_minutes: i64,
    #[serde(deserialize_with = "present")]
    pub transactional_id: Option<String>,
    #[serde(deserialize_with = "present")]
    pub coordinator: Option<i32>,
    pub verdict: String,
    pub reason: String,
}

report!(ProducersReport {
    topic: String,
    partition: i32,
    leader: Option<i32>,
    producers: Vec<ProducerState>,
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerState {
    pub producer_id: i64,
    pub producer_epoch: i32,
    pub coordinator_epoch: i32,
    pub last_sequence: i32,
    pub last_timestamp_ms: i64,
    pub current_txn_start_offset: i64,
}

report!(TransactionsReport {
    transactions: Vec<Transaction>,
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transaction {
    pub transactional_id: String,
    pub coordinator: i32,
    pub state: String,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub timeout_ms: i32,
    pub start_time_ms: i64,
    pub partitions: Vec<(String, i32)>,
    #[serde(deserialize_with = "present")]
    pub duration_seconds: Option<f64>,
}

/// `indoubt check -o json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    pub schema_version: u32,
    pub indoubt_version: String,
    pub command: String,
    pub generated_at: String,
    pub target: Target,
    pub status: String,
    pub exit_code: u8,
    pub findings: Vec<Finding>,
    pub deadline_seconds: f64,
    pub elapsed_seconds: f64,
    pub checks_run: usize,
    pub checks: Vec<CheckOutcome>,
    pub incidents: Vec<Incident>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckOutcome {
    pub check: String,
    pub target: String,
    pub status: String,
    pub elapsed_seconds: f64,
    pub error: Option<String>,
    pub findings: BTreeMap<String, usize>,
    pub address: Option<String>,
}

/// Findings about one object on one target, grouped by `check`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Incident {
    pub severity: String,
    #[serde(deserialize_with = "present")]
    pub object: Option<IncidentObject>,
    pub title: String,
    /// Indexes into the report's findings, the worst first.
    pub findings: Vec<usize>,
    pub next: Option<String>,
}

#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncidentObject {
    pub kind: String,
    pub target: String,
    pub name: String,
}

report!(ConfigCheckReport {
    config_file: Option<String>,
    targets: Vec<CheckedTarget>,
});

/// One target of `config show --check`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckedTarget {
    pub kind: String,
    pub name: String,
    #[serde(deserialize_with = "present")]
    pub address: Option<String>,
    /// The other targets of the same server and role (cluster and settings), checked with it.
    pub also: Vec<AlsoChecked>,
    pub used_by: Vec<String>,
    pub status: String,
    pub checks: Vec<TargetCheck>,
}

/// A target checked with another of the same server (or cluster) and identity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlsoChecked {
    pub name: String,
    #[serde(deserialize_with = "present")]
    pub address: Option<String>,
}

/// One check of a target: a row of its table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetCheck {
    pub what: String,
    pub status: String,
    /// The finding code, for a check that did not pass.
    pub code: Option<String>,
    pub detail: String,
    pub next: Option<String>,
}
