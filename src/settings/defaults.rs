//! Every default and threshold indoubt applies, defined once: its config key, its flag,
//! its value and what it means. The code, `--help`, `config show`, indoubt-config(5) and
//! the README read these entries or are tested against them.

use std::time::Duration;

/// What kind of value a setting holds: how it is written and parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `10s`, `5m`, `1h30m`.
    Duration,
    /// A count of offsets or transaction ids: `100k`, `10M`, `1.3B` (powers of 1000).
    Count,
    /// Bytes: `512MiB`, `10GiB` (powers of 1024).
    Size,
    /// A name, a column, a time or a duration back from now.
    Text,
    /// A whole number (how many rows a table shows).
    Number,
    /// true or false.
    Bool,
    /// A YAML mapping (only keys without a default: Kafka properties).
    Mapping,
    /// A YAML list of text.
    List,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Duration => "duration",
            Kind::Count => "count",
            Kind::Size => "size",
            Kind::Text => "text",
            Kind::Number => "integer",
            Kind::Bool => "boolean",
            Kind::Mapping => "mapping",
            Kind::List => "list",
        }
    }
}

/// A default value, typed so the code that applies it needs no conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Duration(Duration),
    Count(u64),
    Size(u64),
    Text(&'static str),
    Number(u64),
    Bool(bool),
}

impl Value {
    pub fn kind(self) -> Kind {
        match self {
            Value::Duration(_) => Kind::Duration,
            Value::Count(_) => Kind::Count,
            Value::Size(_) => Kind::Size,
            Value::Text(_) => Kind::Text,
            Value::Number(_) => Kind::Number,
            Value::Bool(_) => Kind::Bool,
        }
    }

    /// As it is written in the config and on the command line (`5m`, `100k`, `1GiB`), so
    /// the text parses back to the same value.
    pub fn text(self) -> String {
        match self {
            Value::Duration(d) => crate::units::format_duration(d).replace(' ', ""),
            Value::Count(n) => count_text(n),
            Value::Size(n) => size_text(n),
            Value::Text(t) => t.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
        }
    }
}

/// `100k`, `1M`, `1.3B`: the largest unit that writes the count in at most one decimal.
pub fn count_text(n: u64) -> String {
    for (unit, suffix) in [(1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")] {
        if n >= unit && n.is_multiple_of(unit / 10) {
            return match n % unit {
                0 => format!("{}{suffix}", n / unit),
                rest => format!("{}.{}{suffix}", n / unit, rest / (unit / 10)),
            };
        }
    }
    n.to_string()
}

/// `1GiB`, `512MiB`: the largest power of 1024 that divides the size, else bytes.
pub fn size_text(n: u64) -> String {
    for (shift, suffix) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{}{suffix}", n >> shift);
        }
    }
    n.to_string()
}

/// One default: where it can be set and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The config key, `*` for a name the config chooses (`outbox.*.settle`); None when
    /// only a flag sets it.
    pub config: Option<&'static str>,
    /// The command and flag that set it (`kafka lso --warning-gap`; `--timeout` for a
    /// global one); None when only the config sets it.
    pub flag: Option<&'static str>,
    pub value: Value,
    /// One line: what it bounds.
    pub doc: &'static str,
}

impl Entry {
    /// The value when it is a duration; every caller asks of an entry of its own kind,
    /// which the registry's tests check, so the zero fallback is never reached.
    pub const fn duration(&self) -> Duration {
        match self.value {
            Value::Duration(d) => d,
            _ => Duration::ZERO,
        }
    }

    /// The value of a count, size or number entry.
    pub const fn number(&self) -> u64 {
        match self.value {
            Value::Count(n) | Value::Size(n) | Value::Number(n) => n,
            _ => 0,
        }
    }

    pub const fn text(&self) -> &'static str {
        match self.value {
            Value::Text(t) => t,
            _ => "",
        }
    }

    /// The value of a true-or-false entry.
    pub const fn flag(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }

    /// The default as clap's `default_value` for the flag.
    pub fn default_text(&self) -> String {
        self.value.text()
    }
}

const fn mins(n: u64) -> Duration {
    Duration::from_secs(n * 60)
}

const fn entry(
    config: Option<&'static str>,
    flag: Option<&'static str>,
    value: Value,
    doc: &'static str,
) -> Entry {
    Entry {
        config,
        flag,
        value,
        doc,
    }
}

pub const TIMEOUT: Entry = entry(
    None,
    Some("--timeout"),
    Value::Duration(Duration::from_secs(10)),
    "bound on every connect and every statement",
);
pub const CHECK_DEADLINE: Entry = entry(
    None,
    Some("check --deadline"),
    Value::Duration(Duration::from_secs(30)),
    "overall deadline of `indoubt check`; a check still running then is UNKNOWN",
);

pub const PREPARED_WARNING_AGE: Entry = entry(
    Some("thresholds.prepared.warning_age"),
    Some("pg prepared --warning-age"),
    Value::Duration(mins(5)),
    "age at which a prepared transaction is a WARNING",
);
pub const PREPARED_CRITICAL_AGE: Entry = entry(
    Some("thresholds.prepared.critical_age"),
    Some("pg prepared --critical-age"),
    Value::Duration(mins(30)),
    "age at which a prepared transaction is CRITICAL",
);
pub const SLOTS_WARNING_RETAINED: Entry = entry(
    Some("thresholds.slots.warning_retained"),
    Some("pg slots --warning-retained"),
    Value::Size(1 << 30),
    "WAL retained by an inactive replication slot that is a WARNING",
);
pub const SLOTS_CRITICAL_RETAINED: Entry = entry(
    Some("thresholds.slots.critical_retained"),
    Some("pg slots --critical-retained"),
    Value::Size(10 << 30),
    "WAL retained by an inactive replication slot that is CRITICAL",
);
pub const HORIZON_WARNING_AGE: Entry = entry(
    Some("thresholds.horizon.warning_age"),
    Some("pg horizon --warning-age"),
    Value::Duration(mins(60)),
    "how long one holder may hold the xmin horizon back before a WARNING",
);
pub const HORIZON_CRITICAL_AGE: Entry = entry(
    Some("thresholds.horizon.critical_age"),
    Some("pg horizon --critical-age"),
    Value::Duration(mins(360)),
    "how long one holder may hold the xmin horizon back before CRITICAL",
);
pub const HORIZON_WARNING_XIDS: Entry = entry(
    Some("thresholds.horizon.warning_xids"),
    Some("pg horizon --warning-xids"),
    Value::Count(10_000_000),
    "transactions one holder (a slot's xmin too) may hold the horizon back before a WARNING",
);
pub const HORIZON_CRITICAL_XIDS: Entry = entry(
    Some("thresholds.horizon.critical_xids"),
    Some("pg horizon --critical-xids"),
    Value::Count(100_000_000),
    "transactions one holder may hold the horizon back before CRITICAL",
);
pub const WRAPAROUND_WARNING_XIDS: Entry = entry(
    Some("thresholds.wraparound.warning_xids"),
    Some("pg horizon --wraparound-warning-xids"),
    Value::Count(1_300_000_000),
    "database age (datfrozenxid, datminmxid) that is a WARNING, as check_postgres",
);
pub const WRAPAROUND_CRITICAL_XIDS: Entry = entry(
    Some("thresholds.wraparound.critical_xids"),
    Some("pg horizon --wraparound-critical-xids"),
    Value::Count(1_400_000_000),
    "database age that is CRITICAL",
);
pub const LSO_WARNING_AGE: Entry = entry(
    Some("thresholds.lso.warning_age"),
    Some("kafka lso --warning-age"),
    Value::Duration(mins(5)),
    "age of a partition's first unstable record that is a WARNING",
);
pub const LSO_CRITICAL_AGE: Entry = entry(
    Some("thresholds.lso.critical_age"),
    Some("kafka lso --critical-age"),
    Value::Duration(mins(15)),
    "age of a partition's first unstable record that is CRITICAL",
);
pub const LSO_WARNING_GAP: Entry = entry(
    Some("thresholds.lso.warning_gap"),
    Some("kafka lso --warning-gap"),
    Value::Count(100_000),
    "offsets between the last stable offset and the high watermark that are a WARNING",
);
pub const LSO_CRITICAL_GAP: Entry = entry(
    Some("thresholds.lso.critical_gap"),
    Some("kafka lso --critical-gap"),
    Value::Count(1_000_000),
    "offsets between the last stable offset and the high watermark that are CRITICAL",
);
pub const HANGING_MAX_TRANSACTION_TIMEOUT: Entry = entry(
    Some("thresholds.hanging.max_transaction_timeout"),
    Some("kafka hanging --max-transaction-timeout"),
    Value::Duration(mins(15)),
    "open transactions idle longer than this are examined (the broker's transaction.max.timeout.ms)",
);

pub const RECONCILE_ID_FROM: Entry = entry(
    Some("reconcile.*.id_from"),
    Some("reconcile --id-from"),
    Value::Text("key"),
    "where a message's id is: key, header:NAME or json:/pointer",
);
pub const RECONCILE_SINCE: Entry = entry(
    Some("reconcile.*.since"),
    Some("reconcile --since"),
    Value::Text("24h"),
    "the window's start: an RFC 3339 time or a duration back from now",
);
pub const RECONCILE_UNTIL: Entry = entry(
    Some("reconcile.*.until"),
    Some("reconcile --until"),
    Value::Text("0s"),
    "the window's end (exclusive): a time or a duration back from now (0s: now)",
);
pub const RECONCILE_SETTLE: Entry = entry(
    Some("reconcile.*.settle"),
    Some("reconcile --settle"),
    Value::Duration(mins(5)),
    "rows younger than this are not yet expected in the topic (relay lag)",
);
pub const RECONCILE_SLACK: Entry = entry(
    Some("reconcile.*.slack"),
    Some("reconcile --slack"),
    Value::Duration(mins(1)),
    "the topic is read from this much before the window's start (producer clock skew)",
);
pub const RECONCILE_QUERY_TIMEOUT: Entry = entry(
    None,
    Some("reconcile --query-timeout"),
    Value::Duration(mins(60)),
    "bound on the reconcile database query, which may stream millions of rows",
);
pub const SERVE_LISTEN: Entry = entry(
    None,
    Some("serve --listen"),
    Value::Text("127.0.0.1:9985"),
    "where `indoubt serve` answers /metrics, /healthz and /-/ready",
);
pub const SERVE_INTERVAL: Entry = entry(
    None,
    Some("serve --interval"),
    Value::Duration(Duration::from_secs(60)),
    "how often `indoubt serve` runs the checks",
);
pub const RECONCILE_MEMORY: Entry = entry(
    None,
    Some("reconcile --memory"),
    Value::Size(512 << 20),
    "memory the ids of both sides may take (at most 1GiB); past it, sorted runs spill to --spill-dir",
);
pub const RECONCILE_SHOW: Entry = entry(
    None,
    Some("reconcile --show"),
    Value::Number(20),
    "how many ids of each class the table shows",
);
pub const RECONCILE_CHECK: Entry = entry(
    Some("reconcile.*.check"),
    None,
    Value::Bool(false),
    "run the job in `indoubt check`",
);

pub const OUTBOX_ID_COLUMN: Entry = entry(
    Some("outbox.*.id_column"),
    None,
    Value::Text("id"),
    "the outbox table's id column",
);
pub const OUTBOX_CREATED_AT_COLUMN: Entry = entry(
    Some("outbox.*.created_at_column"),
    None,
    Value::Text("created_at"),
    "when the row was written",
);
pub const OUTBOX_PUBLISHED_AT_COLUMN: Entry = entry(
    Some("outbox.*.published_at_column"),
    None,
    Value::Text("published_at"),
    "NULL until the relay published the row",
);
pub const OUTBOX_SETTLE: Entry = entry(
    Some("outbox.*.settle"),
    None,
    Value::Duration(mins(5)),
    "unpublished rows younger than this are the relay's normal lag",
);
pub const OUTBOX_WARNING_AGE: Entry = entry(
    Some("outbox.*.warning_age"),
    None,
    Value::Duration(mins(5)),
    "age of the oldest unpublished row that is a WARNING",
);
pub const OUTBOX_CRITICAL_AGE: Entry = entry(
    Some("outbox.*.critical_age"),
    None,
    Value::Duration(mins(30)),
    "age of the oldest unpublished row that is CRITICAL",
);
pub const OUTBOX_CHECK: Entry = entry(
    Some("outbox.*.check"),
    None,
    Value::Bool(false),
    "watch the outbox in `indoubt check`",
);
pub const OUTBOX_SHOW: Entry = entry(
    None,
    Some("pg outbox --show"),
    Value::Number(20),
    "how many skipped ids the table lists",
);
pub const OUTBOX_RETENTION: Entry = entry(
    Some("outbox.*.retention"),
    None,
    Value::Duration(Duration::from_secs(7 * 24 * 3600)),
    "how long published rows may be kept: one published longer ago means nothing deletes them",
);
pub const OUTBOX_PUBLISH_LAYOUT: Entry = entry(
    Some("outbox.*.publish.layout"),
    None,
    Value::Text("plain"),
    "plain (the columns named) or debezium (aggregatetype, aggregateid, type, payload)",
);
pub const OUTBOX_PUBLISH_VALUE: Entry = entry(
    Some("outbox.*.publish.value"),
    None,
    Value::Text("payload"),
    "the column that is the message's value",
);
pub const OUTBOX_PUBLISH_ID_HEADER: Entry = entry(
    Some("outbox.*.publish.id_header"),
    None,
    Value::Text("id"),
    "the header holding the row's id: the consumers' deduplication key",
);
pub const OUTBOX_PUBLISH_MESSAGE_TIMEOUT: Entry = entry(
    Some("outbox.*.publish.message_timeout"),
    None,
    Value::Duration(Duration::from_secs(30)),
    "how long a republished message may wait for its acknowledgement (message.timeout.ms)",
);
pub const SAGA_ID_COLUMN: Entry = entry(
    Some("sagas.*.id"),
    None,
    Value::Text("id"),
    "the saga table's id column",
);
pub const SAGA_STATE_COLUMN: Entry = entry(
    Some("sagas.*.state"),
    None,
    Value::Text("state"),
    "the saga table's state column (its values named under states:)",
);
pub const SAGA_UPDATED_AT_COLUMN: Entry = entry(
    Some("sagas.*.updated_at"),
    None,
    Value::Text("updated_at"),
    "the column the service sets at every step (a timestamp): its progress",
);
pub const SAGA_STALLED_AFTER: Entry = entry(
    Some("sagas.*.stalled_after"),
    None,
    Value::Duration(mins(10)),
    "how long an unfinished saga may go without progress (updated_at) before it is stalled",
);
pub const SAGA_UNKNOWN_ESCALATE_AFTER: Entry = entry(
    Some("sagas.*.unknown_escalate_after"),
    None,
    Value::Duration(mins(15)),
    "how long a saga may wait in an unknown state (an external call's outcome not known) before a person must establish it",
);
pub const SAGA_CHECK: Entry = entry(
    Some("sagas.*.check"),
    None,
    Value::Bool(true),
    "watch the saga in `indoubt check` (a saga is configured to be watched: set false to leave it to `indoubt saga`)",
);
pub const SEATA_GLOBAL_TABLE: Entry = entry(
    Some("seata.*.global_table"),
    None,
    Value::Text("global_table"),
    "the coordinator's global table (store.db.global-table)",
);
pub const SEATA_BRANCH_TABLE: Entry = entry(
    Some("seata.*.branch_table"),
    None,
    Value::Text("branch_table"),
    "the coordinator's branch table (store.db.branch-table)",
);
pub const SEATA_LOCK_TABLE: Entry = entry(
    Some("seata.*.lock_table"),
    None,
    Value::Text("lock_table"),
    "the coordinator's lock table (store.db.lock-table)",
);
pub const SEATA_GRACE: Entry = entry(
    Some("seata.*.grace"),
    None,
    Value::Duration(Duration::from_secs(130)),
    "how long past its timeout an unended global is still the coordinator's to end (Seata's retry-dead-threshold)",
);
pub const SEATA_CRITICAL_AGE: Entry = entry(
    Some("seata.*.critical_age"),
    None,
    Value::Duration(mins(30)),
    "how long past its timeout an unended global is CRITICAL",
);
pub const SEATA_RESERVATION_AGE: Entry = entry(
    Some("seata.*.reservation_age"),
    None,
    Value::Duration(mins(10)),
    "how long a TCC Try may hold its reservation with no Confirm or Cancel before it is a WARNING",
);
pub const SEATA_SAGA_STALL: Entry = entry(
    Some("seata.*.saga_stall"),
    None,
    Value::Duration(mins(10)),
    "how long a running saga instance may go without a change before it is a WARNING",
);
pub const SEATA_FENCE_RETENTION: Entry = entry(
    Some("seata.*.fence_retention"),
    None,
    Value::Duration(Duration::from_secs(2 * 24 * 3600)),
    "how old an ended TCC fence record may grow before the fence's clean task is late (Seata deletes them after a day)",
);
pub const SEATA_CHECK: Entry = entry(
    Some("seata.*.check"),
    None,
    Value::Bool(false),
    "watch the coordinator in `indoubt check`",
);
pub const MODULITH_TABLE: Entry = entry(
    Some("modulith.*.table"),
    None,
    Value::Text("event_publication"),
    "the registry's table, optionally schema-qualified (on MySQL and MariaDB Spring Modulith creates EVENT_PUBLICATION: the name is case-sensitive there)",
);
pub const MODULITH_INCOMPLETE_AGE: Entry = entry(
    Some("modulith.*.incomplete_age"),
    None,
    Value::Duration(mins(5)),
    "how long a publication may stay incomplete before it is a WARNING (a listener runs right after its transaction commits)",
);
pub const MODULITH_CRITICAL_AGE: Entry = entry(
    Some("modulith.*.critical_age"),
    None,
    Value::Duration(mins(60)),
    "how long a publication may stay incomplete before it is CRITICAL",
);
pub const MODULITH_POISON_ATTEMPTS: Entry = entry(
    Some("modulith.*.poison_attempts"),
    None,
    Value::Number(3),
    "how many completion attempts (Spring Modulith 2.x: 1 + resubmissions) an incomplete publication may reach before it is a poison event",
);
pub const MODULITH_RETENTION: Entry = entry(
    Some("modulith.*.retention"),
    None,
    Value::Duration(Duration::from_secs(7 * 24 * 3600)),
    "how long completed publications may be kept before the registry counts as unpruned",
);
pub const MODULITH_CHECK: Entry = entry(
    Some("modulith.*.check"),
    None,
    Value::Bool(false),
    "watch the registry in `indoubt check`",
);
pub const CAMUNDA_TABLE_PREFIX: Entry = entry(
    Some("camunda.*.table_prefix"),
    None,
    Value::Text(""),
    "the engine's databaseTablePrefix: a schema and a dot (camunda.) when its tables are not on the role's search_path",
);
pub const CAMUNDA_CRITICAL_AGE: Entry = entry(
    Some("camunda.*.critical_age"),
    None,
    Value::Duration(mins(60)),
    "how long an incident may stay open before it is CRITICAL (a WARNING before)",
);
pub const CAMUNDA_LOCK_AGE: Entry = entry(
    Some("camunda.*.lock_age"),
    None,
    Value::Duration(mins(10)),
    "how long after its lock expired a job or external task nothing took again is called left locked (a running job executor takes an expired job within seconds)",
);
pub const CAMUNDA_REST: Entry = entry(
    Some("camunda.*.rest"),
    None,
    Value::Text(""),
    "the engine's REST API (http://HOST:8080/engine-rest), where resolve camunda sets retries; without it the call is printed, never made in SQL",
);
pub const CAMUNDA_CHECK: Entry = entry(
    Some("camunda.*.check"),
    None,
    Value::Bool(false),
    "watch the engine in `indoubt check`",
);
pub const DBOS_SCHEMA: Entry = entry(
    Some("dbos.*.schema"),
    None,
    Value::Text("dbos"),
    "the schema of DBOS's system tables (the application's dbos_system_schema)",
);
pub const DBOS_PENDING_AGE: Entry = entry(
    Some("dbos.*.pending_age"),
    None,
    Value::Duration(mins(10)),
    "how long a PENDING workflow may go without a status change (DBOS writes none while its steps run) before it is a WARNING, and an ENQUEUED one may wait",
);
pub const DBOS_CRITICAL_AGE: Entry = entry(
    Some("dbos.*.critical_age"),
    None,
    Value::Duration(mins(60)),
    "how long before a stalled PENDING workflow or a starved queue is CRITICAL",
);
pub const DBOS_ERROR_WINDOW: Entry = entry(
    Some("dbos.*.error_window"),
    None,
    Value::Duration(Duration::from_secs(24 * 3600)),
    "how far back workflows that ended in ERROR are counted",
);
pub const DBOS_CHECK: Entry = entry(
    Some("dbos.*.check"),
    None,
    Value::Bool(false),
    "watch the application in `indoubt check`",
);
pub const SEATA_SHOW: Entry = entry(
    None,
    Some("seata globals --show"),
    Value::Number(5),
    "how many branches and locked rows of each global the report lists",
);
pub const INBOX_CREATED_AT_COLUMN: Entry = entry(
    Some("inbox.*.created_at_column"),
    None,
    Value::Text("created_at"),
    "when the message was received",
);

pub const AUDIT_PATH: Entry = entry(
    Some("audit.path"),
    Some("--audit-log"),
    Value::Text("$XDG_STATE_HOME/indoubt/audit.jsonl"),
    "the audit log of resolutions (JSON Lines, hash-chained)",
);

pub const DECISION_SOURCE_KIND: Entry = entry(
    Some("resolve.decision_sources[].kind"),
    None,
    Value::Text("sql"),
    "sql, narayana_object_store, narayana_jdbc_store, atomikos_log or seata_store",
);
pub const DECISION_SOURCE_KEY: Entry = entry(
    Some("resolve.decision_sources[].key"),
    None,
    Value::Text("gid"),
    "sql: what $1 is: gid, gtrid, narayana_uid or atomikos_tid",
);
pub const DECISION_SOURCE_AUTHORITATIVE: Entry = entry(
    Some("resolve.decision_sources[].authoritative"),
    None,
    Value::Bool(false),
    "sql: the coordinator's own log, whose \"no record\" can justify presumed abort",
);
pub const DECISION_SOURCE_TABLE: Entry = entry(
    Some("resolve.decision_sources[].table"),
    None,
    Value::Text("jbosststxtable"),
    "narayana_jdbc_store: the store's table (seata_store: the global table, default global_table)",
);
/// Past Narayana's default transaction timeout (60 s) and two of its recovery periods,
/// and Atomikos' default max_timeout (300 s).
pub const DECISION_SOURCE_IN_DOUBT_AFTER: Entry = entry(
    Some("resolve.decision_sources[].in_doubt_after"),
    None,
    Value::Duration(mins(5)),
    "\"no record\" means presumed abort only for a transaction prepared longer ago than this",
);

/// Percona's and the MySQL manual's rule of thumb: a history list in the hundreds of
/// thousands slows reads that walk old versions; millions is an incident.
pub const PURGE_WARNING_HISTORY_LENGTH: Entry = entry(
    Some("thresholds.purge.warning_history_length"),
    Some("mysql xa --warning-history-length"),
    Value::Count(100_000),
    "InnoDB history list length (undo purge has not removed) that is a WARNING",
);
pub const PURGE_CRITICAL_HISTORY_LENGTH: Entry = entry(
    Some("thresholds.purge.critical_history_length"),
    Some("mysql xa --critical-history-length"),
    Value::Count(1_000_000),
    "InnoDB history list length that is CRITICAL",
);

/// Every entry, in the order `config show` and indoubt-config(5) list them.
pub const ALL: &[Entry] = &[
    TIMEOUT,
    CHECK_DEADLINE,
    PREPARED_WARNING_AGE,
    PREPARED_CRITICAL_AGE,
    SLOTS_WARNING_RETAINED,
    SLOTS_CRITICAL_RETAINED,
    HORIZON_WARNING_AGE,
    HORIZON_CRITICAL_AGE,
    HORIZON_WARNING_XIDS,
    HORIZON_CRITICAL_XIDS,
    WRAPAROUND_WARNING_XIDS,
    WRAPAROUND_CRITICAL_XIDS,
    LSO_WARNING_AGE,
    LSO_CRITICAL_AGE,
    LSO_WARNING_GAP,
    LSO_CRITICAL_GAP,
    HANGING_MAX_TRANSACTION_TIMEOUT,
    PURGE_WARNING_HISTORY_LENGTH,
    PURGE_CRITICAL_HISTORY_LENGTH,
    RECONCILE_ID_FROM,
    RECONCILE_SINCE,
    RECONCILE_UNTIL,
    RECONCILE_SETTLE,
    RECONCILE_SLACK,
    RECONCILE_QUERY_TIMEOUT,
    RECONCILE_MEMORY,
    RECONCILE_SHOW,
    SERVE_LISTEN,
    SERVE_INTERVAL,
    RECONCILE_CHECK,
    OUTBOX_ID_COLUMN,
    OUTBOX_CREATED_AT_COLUMN,
    OUTBOX_PUBLISHED_AT_COLUMN,
    OUTBOX_SETTLE,
    OUTBOX_WARNING_AGE,
    OUTBOX_CRITICAL_AGE,
    OUTBOX_CHECK,
    OUTBOX_SHOW,
    OUTBOX_RETENTION,
    OUTBOX_PUBLISH_LAYOUT,
    OUTBOX_PUBLISH_VALUE,
    OUTBOX_PUBLISH_ID_HEADER,
    OUTBOX_PUBLISH_MESSAGE_TIMEOUT,
    INBOX_CREATED_AT_COLUMN,
    SEATA_GLOBAL_TABLE,
    SEATA_BRANCH_TABLE,
    SEATA_LOCK_TABLE,
    SEATA_GRACE,
    SEATA_CRITICAL_AGE,
    SEATA_RESERVATION_AGE,
    SEATA_SAGA_STALL,
    SEATA_FENCE_RETENTION,
    SEATA_CHECK,
    SEATA_SHOW,
    MODULITH_TABLE,
    MODULITH_INCOMPLETE_AGE,
    MODULITH_CRITICAL_AGE,
    MODULITH_POISON_ATTEMPTS,
    MODULITH_RETENTION,
    MODULITH_CHECK,
    CAMUNDA_TABLE_PREFIX,
    CAMUNDA_CRITICAL_AGE,
    CAMUNDA_LOCK_AGE,
    CAMUNDA_REST,
    CAMUNDA_CHECK,
    DBOS_SCHEMA,
    DBOS_PENDING_AGE,
    DBOS_CRITICAL_AGE,
    DBOS_ERROR_WINDOW,
    DBOS_CHECK,
    SAGA_ID_COLUMN,
    SAGA_STATE_COLUMN,
    SAGA_UPDATED_AT_COLUMN,
    SAGA_STALLED_AFTER,
    SAGA_UNKNOWN_ESCALATE_AFTER,
    SAGA_CHECK,
    AUDIT_PATH,
    DECISION_SOURCE_KIND,
    DECISION_SOURCE_KEY,
    DECISION_SOURCE_AUTHORITATIVE,
    DECISION_SOURCE_TABLE,
    DECISION_SOURCE_IN_DOUBT_AFTER,
];

/// The entry of a config key, e.g. `thresholds.lso.warning_gap`.
pub fn by_config(key: &str) -> Option<&'static Entry> {
    ALL.iter().find(|e| e.config == Some(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{parse_count, parse_duration, parse_size};

    #[test]
    fn every_default_is_written_so_it_parses_back_to_itself() {
        for e in ALL {
            let text = e.value.text();
            let back = match e.value {
                Value::Duration(d) => parse_duration(&text).map(|p| p == d),
                Value::Count(n) => parse_count(&text).map(|p| p == n),
                Value::Size(n) => parse_size(&text).map(|p| p == n),
                Value::Number(n) => Ok(text.parse::<u64>().ok() == Some(n)),
                Value::Text(_) | Value::Bool(_) => Ok(true),
            };
            assert_eq!(back, Ok(true), "{e:?} written {text:?}");
        }
        assert_eq!(LSO_WARNING_GAP.value.text(), "100k");
        assert_eq!(WRAPAROUND_WARNING_XIDS.value.text(), "1.3B");
        assert_eq!(SLOTS_CRITICAL_RETAINED.value.text(), "10GiB");
        assert_eq!(HORIZON_CRITICAL_AGE.value.text(), "6h");
        assert_eq!(count_text(1_234), "1234");
    }

    #[test]
    fn each_key_and_flag_is_defined_once_and_each_entry_is_settable() {
        for (i, e) in ALL.iter().enumerate() {
            assert!(e.config.is_some() || e.flag.is_some(), "{e:?}");
            assert!(!e.doc.is_empty(), "{e:?}");
            for other in &ALL[i + 1..] {
                assert!(e.config.is_none() || e.config != other.config, "{e:?}");
                assert!(e.flag.is_none() || e.flag != other.flag, "{e:?}");
            }
        }
        // The typed accessors answer for the kinds the code asks them of.
        assert_eq!(LSO_WARNING_GAP.number(), 100_000);
        assert_eq!(TIMEOUT.duration(), Duration::from_secs(10));
        assert_eq!(DECISION_SOURCE_TABLE.text(), "jbosststxtable");
    }

    /// `kafka lso --warning-gap` → the args of that command named `warning-gap`; a flag
    /// without a command (`--audit-log`) → every arg of that name in any command.
    fn args_of(flag: &str) -> Vec<(String, clap::Arg)> {
        let mut words: Vec<&str> = flag.split(' ').collect();
        let long = words.pop().and_then(|w| w.strip_prefix("--")).unwrap_or("");
        let mut found = Vec::new();
        fn walk(
            cmd: &clap::Command,
            path: String,
            long: &str,
            found: &mut Vec<(String, clap::Arg)>,
        ) {
            for arg in cmd.get_arguments() {
                if arg.get_long() == Some(long) {
                    found.push((path.clone(), arg.clone()));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, format!("{path} {}", sub.get_name()), long, found);
            }
        }
        let mut cmd = crate::help::command(&crate::commands::probes::REGISTRY);
        cmd.build();
        let mut at = &cmd;
        for word in &words {
            match at.find_subcommand(word) {
                Some(sub) => at = sub,
                None => return found,
            }
        }
        if words.is_empty() {
            walk(at, String::new(), long, &mut found);
        } else {
            found.extend(
                at.get_arguments()
                    .filter(|a| a.get_long() == Some(long))
                    .map(|a| (words.join(" "), a.clone())),
            );
        }
        found
    }

    /// What an arg says its default is: clap's default value, else the help's
    /// `[…default: V]` / `[config: KEY; default V]` (`else V` when the config comes first).
    fn stated_default(arg: &clap::Arg) -> Option<String> {
        if let Some(v) = arg.get_default_values().first() {
            return Some(v.to_string_lossy().into_owned());
        }
        let help = arg.get_long_help().or(arg.get_help())?.to_string();
        let at = help.rfind("default")? + "default".len();
        let rest = help[at..].trim_start_matches(':').trim_start();
        let stated = &rest[..rest.find(']')?];
        Some(match stated.split_once(", else ") {
            Some((_, last)) => last.to_string(),
            None => stated.split(", ").next().unwrap_or(stated).to_string(),
        })
    }

    #[test]
    fn every_flag_states_the_registry_default_and_names_its_config_key() {
        for e in ALL.iter().filter(|e| e.flag.is_some()) {
            let flag = e.flag.unwrap_or_default();
            let args = args_of(flag);
            assert!(!args.is_empty(), "no flag {flag}");
            for (path, arg) in args {
                assert_eq!(
                    stated_default(&arg).as_deref(),
                    Some(e.value.text().as_str()),
                    "{path} --{}: its help and the registry disagree",
                    arg.get_long().unwrap_or_default()
                );
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                if let Some(key) = help
                    .split("[config: ")
                    .nth(1)
                    .and_then(|r| r.split(';').next())
                {
                    assert_eq!(Some(key), e.config, "{path}: {help}");
                }
            }
        }
    }

    #[test]
    fn every_default_a_help_text_states_is_in_the_registry() {
        fn walk(cmd: &clap::Command, path: &str) {
            for arg in cmd.get_arguments() {
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                if let Some(key) = help
                    .split("[config: ")
                    .nth(1)
                    .and_then(|r| r.split(';').next())
                {
                    let e = by_config(key)
                        .unwrap_or_else(|| panic!("{path}: {key} is not in the registry"));
                    let long = arg.get_long().unwrap_or_default();
                    assert!(
                        e.flag.is_some_and(|f| f.ends_with(&format!("--{long}"))),
                        "{path} --{long}: the registry names {:?}",
                        e.flag
                    );
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        walk(
            &crate::help::command(&crate::commands::probes::REGISTRY),
            "",
        );
    }
}
