//! The YAML config file: named targets and thresholds. The only module that knows serde_yaml.

use crate::error::hinted;
use crate::settings::defaults;
use crate::units::{serde_count, serde_duration, serde_size};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Named PostgreSQL servers.
    #[serde(default)]
    pub postgres: BTreeMap<String, PgTargetConfig>,
    /// Named Kafka clusters.
    #[serde(default)]
    pub kafka: BTreeMap<String, KafkaTargetConfig>,
    /// Named MySQL and MariaDB servers.
    #[serde(default)]
    pub mysql: BTreeMap<String, MysqlTargetConfig>,
    #[serde(default)]
    pub thresholds: Thresholds,
    #[serde(default)]
    pub audit: AuditConfig,
    /// Named reconcile jobs.
    #[serde(default)]
    pub reconcile: BTreeMap<String, ReconcileJobConfig>,
    /// Named outbox tables to watch.
    #[serde(default)]
    pub outbox: BTreeMap<String, OutboxConfig>,
    /// Named inbox tables to watch (size and age).
    #[serde(default)]
    pub inbox: BTreeMap<String, InboxConfig>,
    /// Named Apache Seata coordinators, by their database store.
    #[serde(default)]
    pub seata: BTreeMap<String, SeataConfig>,
    /// Named Spring Modulith event publication registries, by their database.
    #[serde(default)]
    pub modulith: BTreeMap<String, ModulithConfig>,
    /// Named Camunda 7 / Operaton process engines, by their database.
    #[serde(default)]
    pub camunda: BTreeMap<String, CamundaConfig>,
    /// Named DBOS Transact applications, by their system database.
    #[serde(default)]
    pub dbos: BTreeMap<String, DbosConfig>,
    /// Named hand-written sagas: the table a service keeps its saga instances in.
    #[serde(default)]
    pub sagas: BTreeMap<String, SagaConfig>,
    #[serde(default)]
    pub resolve: ResolveConfig,
}

/// An outbox table: rows written with the business change, published later by a relay.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboxConfig {
    /// A postgres target name or conninfo (the outbox's database).
    pub postgres: String,
    /// The table, optionally schema-qualified.
    pub table: String,
    #[serde(default = "default_id_column")]
    pub id_column: String,
    #[serde(default = "default_created_at_column")]
    pub created_at_column: String,
    /// NULL until the relay published the row.
    #[serde(default = "default_published_at_column")]
    pub published_at_column: String,
    /// Unpublished rows younger than this are the relay's normal lag.
    #[serde(default, with = "serde_duration")]
    pub settle: Option<Duration>,
    /// Age of the oldest unpublished row that is a WARNING / CRITICAL (defaults 5m, 30m).
    #[serde(default, with = "serde_duration")]
    pub warning_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    /// How long published rows are kept (the relay or a job deletes older ones).
    #[serde(default, with = "serde_duration")]
    pub retention: Option<Duration>,
    /// Run by `indoubt check`.
    #[serde(default)]
    pub check: bool,
    /// How `indoubt resolve outbox` publishes the rows the relay skipped.
    pub publish: Option<OutboxPublishConfig>,
}

/// The messages a relay makes of outbox rows, for `resolve outbox` to make the same.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboxPublishConfig {
    /// A kafka target name.
    pub kafka: String,
    /// The topic; with the debezium layout, `outbox.event.` and the row's aggregatetype
    /// when not given (Debezium's outbox event router).
    pub topic: Option<String>,
    /// plain (the columns below) or debezium (aggregatetype, aggregateid, type, payload).
    #[serde(default)]
    pub layout: OutboxLayout,
    /// The message key's column (debezium: aggregateid); none: no key.
    pub key: Option<String>,
    /// The message value's column (default payload).
    pub value: Option<String>,
    /// Header name → column.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The header holding the row's id, consumers' deduplication key (default id).
    pub id_header: Option<String>,
    /// transactional.id of `resolve outbox --transactional`.
    pub transactional_id: Option<String>,
    /// How long a message may wait for its acknowledgement (default 30s).
    #[serde(default, with = "serde_duration")]
    pub message_timeout: Option<Duration>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutboxLayout {
    #[default]
    Plain,
    Debezium,
}

/// A saga a service runs by hand: one row per instance in its own table, the states it
/// moves through, the entities it holds while it runs, the queue a person works from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SagaConfig {
    /// A postgres target name or conninfo (or `mysql`: a mysql target name).
    pub postgres: Option<String>,
    pub mysql: Option<String>,
    /// The saga table, optionally schema-qualified.
    pub table: String,
    #[serde(default = "default_saga_id")]
    pub id: String,
    #[serde(default = "default_saga_state_column")]
    pub state: String,
    #[serde(default = "default_saga_updated_at_column")]
    pub updated_at: String,
    pub started_at: Option<String>,
    pub attempts: Option<String>,
    pub step: Option<String>,
    pub states: SagaStatesConfig,
    /// The order of the steps (the `step` column's values, else the running states'),
    /// for the pivot; the running states' order when not given.
    pub steps: Option<Vec<String>>,
    /// From this step on the saga is only driven forward, never compensated.
    pub pivot: Option<String>,
    #[serde(default, with = "serde_duration")]
    pub deadline: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub stalled_after: Option<Duration>,
    pub max_attempts: Option<u64>,
    #[serde(default, with = "serde_duration")]
    pub unknown_escalate_after: Option<Duration>,
    /// What a saga is about, from the columns of its row: `order {order_id}: refund {amount}`.
    pub context: Option<String>,
    pub manual_queue: Option<ManualQueueConfig>,
    #[serde(default)]
    pub locks: Vec<SagaLockConfig>,
    /// Run by `indoubt check` (a saga is configured to be watched: on unless set false).
    #[serde(default = "default_saga_check")]
    pub check: bool,
}

/// The values of a saga's state column, by what they mean.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SagaStatesConfig {
    pub running: Vec<String>,
    pub done: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub compensating: Vec<String>,
    #[serde(default)]
    pub unknown: Vec<String>,
}

/// The table a person works stuck sagas from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManualQueueConfig {
    pub table: String,
    #[serde(default = "default_saga_id_column")]
    pub saga_id: String,
    #[serde(default = "default_created_at_column")]
    pub created_at: String,
    /// NULL while the item is open.
    pub resolved_at: Option<String>,
    /// A text column `resolve saga --escalate` writes what it knows of the saga into.
    pub reason: Option<String>,
}

/// Entities a running saga holds by setting their state (a semantic lock).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SagaLockConfig {
    pub table: String,
    #[serde(default = "default_id_column")]
    pub id: String,
    #[serde(default = "default_saga_state_column")]
    pub state: String,
    pub held: Vec<String>,
    #[serde(default = "default_saga_id_column")]
    pub saga_id: String,
    /// The state `resolve saga --release` sets an orphaned entity back to.
    pub released: Option<String>,
    /// A column every write of the entity changes (a version, an updated_at): the
    /// release's guard, with its state and saga.
    pub version: Option<String>,
}

fn default_saga_check() -> bool {
    defaults::SAGA_CHECK.flag()
}

fn default_saga_id() -> String {
    defaults::SAGA_ID_COLUMN.text().into()
}

fn default_saga_state_column() -> String {
    defaults::SAGA_STATE_COLUMN.text().into()
}

fn default_saga_updated_at_column() -> String {
    defaults::SAGA_UPDATED_AT_COLUMN.text().into()
}

fn default_saga_id_column() -> String {
    "saga_id".into()
}

/// An Apache Seata coordinator (TC) with `store.mode=db`: where its store is.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeataConfig {
    /// A postgres target name or conninfo: the store's database (or `mysql:`).
    pub postgres: Option<String>,
    /// A mysql target name: the store's database on MySQL or MariaDB (or `postgres:`).
    pub mysql: Option<String>,
    /// The tables, as the coordinator's `store.db.global-table`, `branch-table` and
    /// `lock-table` name them (optionally schema-qualified).
    #[serde(default = "default_seata_global_table")]
    pub global_table: String,
    #[serde(default = "default_seata_branch_table")]
    pub branch_table: String,
    #[serde(default = "default_seata_lock_table")]
    pub lock_table: String,
    /// How long past its own timeout an unended global is still the coordinator's to
    /// end (its retry-dead-threshold).
    #[serde(default, with = "serde_duration")]
    pub grace: Option<Duration>,
    /// How long past its timeout an unended global is CRITICAL.
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    /// The business databases of its clients, by name: what each holds.
    #[serde(default)]
    pub clients: BTreeMap<String, SeataClientConfig>,
    /// How long a TCC Try may hold its reservation before it is a WARNING.
    #[serde(default, with = "serde_duration")]
    pub reservation_age: Option<Duration>,
    /// How long a saga instance may run without a change before it is a WARNING.
    #[serde(default, with = "serde_duration")]
    pub saga_stall: Option<Duration>,
    /// How old an ended fence record may grow before the fence's clean task is late.
    #[serde(default, with = "serde_duration")]
    pub fence_retention: Option<Duration>,
    /// Run by `indoubt check`.
    #[serde(default)]
    pub check: bool,
}

/// A business database of a coordinator's clients: the Seata tables it holds, each
/// named as the client's settings name it; one not named is not read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeataClientConfig {
    /// A postgres target name or conninfo (or `mysql`: a mysql target name).
    pub postgres: Option<String>,
    pub mysql: Option<String>,
    /// AT mode's undo log (`client.undo.log-table`, usually `undo_log`).
    pub undo_log: Option<String>,
    /// TCC's fence table (`tcc.fence.log-table-name`, usually `tcc_fence_log`).
    pub tcc_fence_log: Option<String>,
    /// The saga engine's table prefix (`tablePrefix`, usually `seata_`).
    pub saga_table_prefix: Option<String>,
}

/// A Spring Modulith application's JDBC event publication registry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModulithConfig {
    /// A postgres target name or conninfo (or `mysql`: a mysql target name).
    pub postgres: Option<String>,
    pub mysql: Option<String>,
    /// The registry's table, optionally schema-qualified.
    pub table: Option<String>,
    #[serde(default, with = "serde_duration")]
    pub incomplete_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    pub poison_attempts: Option<u64>,
    #[serde(default, with = "serde_duration")]
    pub retention: Option<Duration>,
    /// Run by `indoubt check`.
    #[serde(default)]
    pub check: bool,
}

/// A Camunda 7 or Operaton process engine: its database, and its REST API for the fixes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CamundaConfig {
    /// A postgres target name or conninfo (the engine's database).
    pub postgres: String,
    /// The engine's `databaseTablePrefix` (a schema and a dot, `camunda.`).
    pub table_prefix: Option<String>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub lock_age: Option<Duration>,
    /// The engine's JVM time zone (`user.timezone`, e.g. `Europe/Berlin`), when it is not
    /// the database session's: the engine writes its times as local times without a zone.
    pub time_zone: Option<String>,
    /// The engine's REST API (`http://HOST:8080/engine-rest`): where `resolve camunda` sets
    /// retries. Without it the call is printed.
    pub rest: Option<String>,
    pub rest_user: Option<String>,
    /// A file holding the REST user's password (only the owner may read it).
    pub rest_password_file: Option<std::path::PathBuf>,
    /// Plain http to a host that is not loopback.
    #[serde(default)]
    pub rest_allow_http: bool,
    /// Run by `indoubt check`.
    #[serde(default)]
    pub check: bool,
}

/// A DBOS Transact application: its system database, and DBOS's CLI for the fixes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbosConfig {
    /// A postgres target name or conninfo (the application's system database).
    pub postgres: String,
    /// The schema of DBOS's tables (`dbos_system_schema`).
    pub schema: Option<String>,
    #[serde(default, with = "serde_duration")]
    pub pending_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub error_window: Option<Duration>,
    /// DBOS's CLI as a command line (`[/srv/app/.venv/bin/dbos]`): what `resolve dbos`
    /// runs. Without it the command is printed.
    pub cli: Option<Vec<String>>,
    /// Run by `indoubt check`.
    #[serde(default)]
    pub check: bool,
}

fn default_seata_global_table() -> String {
    defaults::SEATA_GLOBAL_TABLE.text().into()
}

fn default_seata_branch_table() -> String {
    defaults::SEATA_BRANCH_TABLE.text().into()
}

fn default_seata_lock_table() -> String {
    defaults::SEATA_LOCK_TABLE.text().into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InboxConfig {
    pub postgres: String,
    pub table: String,
    #[serde(default = "default_inbox_created_at_column")]
    pub created_at_column: String,
    /// How long processed message ids are kept (older ones are deleted).
    #[serde(default, with = "serde_duration")]
    pub retention: Option<Duration>,
    /// The longest a producer may deliver a message again.
    #[serde(default, with = "serde_duration")]
    pub producer_retry_horizon: Option<Duration>,
}

fn default_id_column() -> String {
    defaults::OUTBOX_ID_COLUMN.text().into()
}

fn default_created_at_column() -> String {
    defaults::OUTBOX_CREATED_AT_COLUMN.text().into()
}

fn default_inbox_created_at_column() -> String {
    defaults::INBOX_CREATED_AT_COLUMN.text().into()
}

fn default_published_at_column() -> String {
    defaults::OUTBOX_PUBLISHED_AT_COLUMN.text().into()
}

/// A reconcile job: a database query against a topic; every field can be a flag too.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReconcileJobConfig {
    /// A postgres target.
    pub postgres: Option<String>,
    /// Takes $1 = since and $2 = until (timestamptz); returns the id and the row's time.
    pub query: Option<String>,
    /// A kafka target.
    pub kafka: Option<String>,
    pub topic: Option<String>,
    /// key, header:NAME or json:/pointer.
    pub id_from: Option<String>,
    /// A time or a duration back from now.
    pub since: Option<String>,
    pub until: Option<String>,
    #[serde(default, with = "serde_duration")]
    pub settle: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub slack: Option<Duration>,
    /// Run by `indoubt check` (it reads the window's ids from both sides: size it for the deadline).
    #[serde(default)]
    pub check: bool,
    /// How `indoubt resolve reconcile` publishes the ids missing in the topic again.
    pub republish: Option<ReconcileRepublishConfig>,
}

/// The messages of missing ids, built from the source of truth, for `resolve reconcile`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReconcileRepublishConfig {
    /// Takes $1 = the ids (text[]); returns a row per id it finds: column `id`, `value`
    /// and optionally `key`; every other column is a header of that name. The message
    /// must carry the id where the job's id_from reads it.
    pub query: String,
    /// transactional.id of `resolve reconcile --transactional`.
    pub transactional_id: Option<String>,
    /// How long a message may wait for its acknowledgement (default 30s).
    #[serde(default, with = "serde_duration")]
    pub message_timeout: Option<Duration>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    /// The audit log (JSON Lines); default `$XDG_STATE_HOME/indoubt/audit.jsonl`.
    pub path: Option<PathBuf>,
}

/// Where `resolve pg` looks for the coordinator's decision.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveConfig {
    /// Queries that answer commit, rollback or nothing for a transaction.
    #[serde(default)]
    pub decision_sources: Vec<DecisionSourceConfig>,
    /// The postgres target of the Citus coordinator, for `citus_…` GIDs.
    pub citus_coordinator: Option<String>,
    /// Other participants (postgres targets) where the same global transaction may be prepared.
    #[serde(default)]
    pub participants: Vec<String>,
}

/// One place that knows the coordinator's decision: a query, or a transaction manager's
/// own log read in place. Checked into a [`DecisionSource`] when the config loads.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionSourceConfig {
    pub name: String,
    /// `sql` (the default), `narayana_object_store`, `narayana_jdbc_store`, `atomikos_log`
    /// or `seata_store`.
    #[serde(default)]
    pub kind: Option<SourceKind>,
    /// sql, narayana_jdbc_store and seata_store: a postgres target from this config.
    pub target: Option<String>,
    /// sql: takes the key as $1; returns one row whose first column says what the
    /// coordinator decided (commit/committing/committed, rollback/rolling_back/aborted, or
    /// an in-progress state), or no row when it has no record.
    pub query: Option<String>,
    /// sql: what $1 is: the whole GID, the XA gtrid (its text form), the Narayana Uid
    /// (`0:ffff7f000001:b2a3:6b0e7a9f:2`) or the Atomikos tid.
    #[serde(default)]
    pub key: DecisionKey,
    /// sql only: true for the coordinator's own log, where "no record" justifies presumed
    /// abort. A transaction manager's log read in place is always authoritative.
    pub authoritative: Option<bool>,
    /// narayana_object_store: the ObjectStore directory; atomikos_log: its log directory.
    pub path: Option<PathBuf>,
    /// narayana_jdbc_store: the store's table (default `jbosststxtable`); seata_store: the
    /// coordinator's global table (default `global_table`).
    pub table: Option<String>,
    /// Narayana kinds: the node identifier (xaNodeName) whose log this is; atomikos_log:
    /// its tm_unique_name. Another coordinator's transactions are then not looked up here,
    /// and "no record" can justify presumed abort. Without it a record found still
    /// proves commit, but "no record" proves nothing (the transaction may be another
    /// coordinator's).
    pub coordinator: Option<String>,
    /// "No record" means presumed abort only for a transaction prepared longer ago than
    /// this (default 5m): a live coordinator may still be deciding.
    #[serde(default, with = "serde_duration")]
    pub in_doubt_after: Option<Duration>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Sql,
    NarayanaObjectStore,
    NarayanaJdbcStore,
    AtomikosLog,
    SeataStore,
}

/// A decision source as configured, checked: each kind with exactly what it needs.
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionSource {
    Sql {
        target: String,
        query: String,
        key: DecisionKey,
        authoritative: bool,
    },
    NarayanaObjectStore {
        path: PathBuf,
        node: Option<String>,
    },
    NarayanaJdbcStore {
        target: String,
        table: String,
        node: Option<String>,
    },
    AtomikosLog {
        path: PathBuf,
        tm_unique_name: Option<String>,
    },
    /// An Apache Seata coordinator's database store: its global table's row for the
    /// branch's global transaction.
    SeataStore {
        target: String,
        table: String,
    },
}

impl DecisionSourceConfig {
    /// The checked source, or what is missing or does not belong to its kind.
    pub fn source(&self) -> Result<DecisionSource> {
        let kind = self.kind.unwrap_or(SourceKind::Sql);
        let name = &self.name;
        let need = |field: Option<&String>, what: &str| -> Result<String> {
            field.cloned().with_context(|| {
                format!(
                    "decision source {name:?}: kind {} needs {what}",
                    kind.name()
                )
            })
        };
        let path = || -> Result<PathBuf> {
            self.path.clone().with_context(|| {
                format!("decision source {name:?}: kind {} needs path", kind.name())
            })
        };
        let allowed: &[&str] = match kind {
            SourceKind::Sql => &["target", "query", "key", "authoritative"],
            SourceKind::NarayanaObjectStore => &["path", "coordinator"],
            SourceKind::NarayanaJdbcStore => &["target", "table", "coordinator"],
            SourceKind::AtomikosLog => &["path", "coordinator"],
            SourceKind::SeataStore => &["target", "table"],
        };
        let given = [
            ("target", self.target.is_some()),
            ("query", self.query.is_some()),
            ("key", self.key != DecisionKey::Gid),
            ("authoritative", self.authoritative.is_some()),
            ("path", self.path.is_some()),
            ("table", self.table.is_some()),
            ("coordinator", self.coordinator.is_some()),
        ];
        if let Some((field, _)) = given.iter().find(|(f, set)| *set && !allowed.contains(f)) {
            anyhow::bail!(
                "decision source {name:?}: {field} does not apply to kind {}",
                kind.name()
            );
        }
        Ok(match kind {
            SourceKind::Sql => DecisionSource::Sql {
                target: need(self.target.as_ref(), "target")?,
                query: need(self.query.as_ref(), "query")?,
                key: self.key,
                authoritative: self.authoritative.unwrap_or(false),
            },
            SourceKind::NarayanaObjectStore => DecisionSource::NarayanaObjectStore {
                path: path()?,
                node: self.coordinator.clone(),
            },
            SourceKind::NarayanaJdbcStore => {
                let table = self
                    .table
                    .clone()
                    .unwrap_or_else(|| defaults::DECISION_SOURCE_TABLE.text().into());
                if !is_sql_name(&table) {
                    anyhow::bail!(
                        "decision source {name:?}: table {table:?} is not a plain [schema.]name"
                    );
                }
                DecisionSource::NarayanaJdbcStore {
                    target: need(self.target.as_ref(), "target")?,
                    table,
                    node: self.coordinator.clone(),
                }
            }
            SourceKind::AtomikosLog => DecisionSource::AtomikosLog {
                path: path()?,
                tm_unique_name: self.coordinator.clone(),
            },
            SourceKind::SeataStore => {
                let table = self
                    .table
                    .clone()
                    .unwrap_or_else(|| defaults::SEATA_GLOBAL_TABLE.text().into());
                if !is_sql_name(&table) {
                    anyhow::bail!(
                        "decision source {name:?}: table {table:?} is not a plain [schema.]name"
                    );
                }
                DecisionSource::SeataStore {
                    target: need(self.target.as_ref(), "target")?,
                    table,
                }
            }
        })
    }
}

impl SourceKind {
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Sql => "sql",
            SourceKind::NarayanaObjectStore => "narayana_object_store",
            SourceKind::NarayanaJdbcStore => "narayana_jdbc_store",
            SourceKind::AtomikosLog => "atomikos_log",
            SourceKind::SeataStore => "seata_store",
        }
    }
}

/// `name` or `schema.name`, each an unquoted SQL identifier (lower case, digits, _).
fn is_sql_name(text: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    match text.split_once('.') {
        Some((schema, table)) => part(schema) && part(table),
        None => part(text),
    }
}

#[derive(Debug, Default, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKey {
    #[default]
    Gid,
    Gtrid,
    NarayanaUid,
    AtomikosTid,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KafkaTargetConfig {
    /// `host:port[,host:port…]`, as kafka tools' --bootstrap-server.
    pub bootstrap_servers: String,
    /// Client properties passed through (librdkafka names: security.protocol, sasl.mechanism, …).
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    /// A Java-style properties file, like kafka tools' --command-config; `properties` win.
    #[serde(default)]
    pub properties_file: Option<PathBuf>,
    /// The topics `indoubt check` inspects on this cluster (kafka lso and hanging), as a
    /// regular expression; every topic when absent.
    #[serde(default, deserialize_with = "regex_text")]
    pub check_topic_regex: Option<String>,
}

/// A regular expression that must compile, kept as its text; a bad one fails at its line.
fn regex_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(d)?;
    regex::Regex::new(&text)
        .map_err(|e| serde::de::Error::custom(format!("not a regular expression: {e}")))?;
    Ok(Some(text))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PgTargetConfig {
    /// A postgres:// URL or a key=value conninfo string; PG* variables and ~/.pgpass fill the gaps.
    pub conninfo: String,
}

/// A MySQL or MariaDB server, named the mysql client's way.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MysqlTargetConfig {
    /// `mysql://USER@HOST:PORT/DB` (keep the password out: `option_file` or MYSQL_PWD).
    pub url: String,
    /// An option file whose `[client]` group gives the password (and what the URL leaves
    /// out), like the client's --defaults-file; else `~/.my.cnf` when there is one.
    #[serde(default)]
    pub option_file: Option<PathBuf>,
    /// As the mysql client's --ssl-mode: DISABLED, PREFERRED (default), REQUIRED, VERIFY_CA, VERIFY_IDENTITY.
    #[serde(default)]
    pub ssl_mode: Option<String>,
    /// The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server's against.
    #[serde(default)]
    pub ssl_ca: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    #[serde(default)]
    pub prepared: AgeThresholds,
    #[serde(default)]
    pub slots: SlotThresholds,
    #[serde(default)]
    pub horizon: HorizonThresholds,
    #[serde(default)]
    pub wraparound: WraparoundThresholds,
    #[serde(default)]
    pub lso: LsoThresholds,
    #[serde(default)]
    pub hanging: HangingThresholds,
    #[serde(default)]
    pub purge: PurgeThresholds,
}

/// InnoDB's history list: undo purge has not removed yet (`mysql xa`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PurgeThresholds {
    #[serde(default, with = "serde_count")]
    pub warning_history_length: Option<u64>,
    #[serde(default, with = "serde_count")]
    pub critical_history_length: Option<u64>,
}

/// When an open transaction is old enough for `kafka hanging` to examine it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HangingThresholds {
    #[serde(default, with = "serde_duration")]
    pub max_transaction_timeout: Option<Duration>,
}

/// How old the first unstable record may be, and how many offsets may wait behind the LSO.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LsoThresholds {
    #[serde(default, with = "serde_duration")]
    pub warning_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    #[serde(default, with = "serde_count")]
    pub warning_gap: Option<u64>,
    #[serde(default, with = "serde_count")]
    pub critical_gap: Option<u64>,
}

/// WAL retained by an inactive replication slot.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotThresholds {
    #[serde(default, with = "serde_size")]
    pub warning_retained: Option<u64>,
    #[serde(default, with = "serde_size")]
    pub critical_retained: Option<u64>,
}

/// How long and by how many transactions one holder may hold the xmin horizon back.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HorizonThresholds {
    #[serde(default, with = "serde_duration")]
    pub warning_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
    #[serde(default, with = "serde_count")]
    pub warning_xids: Option<u64>,
    #[serde(default, with = "serde_count")]
    pub critical_xids: Option<u64>,
}

/// age(datfrozenxid) and mxid_age(datminmxid) of a database.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WraparoundThresholds {
    #[serde(default, with = "serde_count")]
    pub warning_xids: Option<u64>,
    #[serde(default, with = "serde_count")]
    pub critical_xids: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgeThresholds {
    #[serde(default, with = "serde_duration")]
    pub warning_age: Option<Duration>,
    #[serde(default, with = "serde_duration")]
    pub critical_age: Option<Duration>,
}

/// A config and the file it came from (for messages).
#[derive(Debug, Default)]
pub struct Loaded {
    pub path: Option<PathBuf>,
    pub config: Config,
}

/// Finds and reads the config: `--config`, else `$INDOUBT_CONFIG`, else
/// `~/.config/indoubt/config.yaml`. Only the default location may be absent.
pub fn load(flag: Option<&Path>) -> Result<Loaded> {
    let explicit = flag.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("INDOUBT_CONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let path = match explicit {
        Some(path) => path,
        None => match default_path() {
            Some(path) if path.exists() => path,
            _ => return Ok(Loaded::default()),
        },
    };
    let file = crate::fsafe::read_settings(&path, "config file")
        .with_context(|| format!("reading config file {}", path.display()))?;
    let config = parse(&file.text, &path)?;
    if holds_inline_secret(&file.text) {
        file.warn_if_others_can_read();
    }
    Ok(Loaded {
        path: Some(path),
        config,
    })
}

/// Whether the config writes a secret out: a password in a connection string or URL,
/// or a secret Kafka property that is not a `${provider:…}` reference.
fn holds_inline_secret(text: &str) -> bool {
    fn walk(value: &serde_yaml::Value) -> bool {
        use serde_yaml::Value;
        match value {
            Value::String(text) => {
                crate::pg::conninfo::redact_password(text).is_some()
                    || url::Url::parse(text).is_ok_and(|u| u.password().is_some())
            }
            Value::Sequence(items) => items.iter().any(walk),
            Value::Mapping(map) => map.iter().any(|(key, value)| {
                let secret_property = match (key, value) {
                    (Value::String(k), Value::String(v)) => {
                        crate::settings::kafka_client::properties::holds_inline_secret(k, v)
                    }
                    _ => false,
                };
                secret_property || walk(value)
            }),
            Value::Tagged(tagged) => walk(&tagged.value),
            _ => false,
        }
    }
    serde_yaml::from_str::<serde_yaml::Value>(text).is_ok_and(|v| walk(&v))
}

/// Where `load` looked when it found no config file, for messages: "no --config,
/// INDOUBT_CONFIG is not set, and /root/.config/indoubt/config.yaml does not exist".
pub fn where_looked() -> String {
    let default = match default_path() {
        Some(path) => format!("{} does not exist", path.display()),
        None => "there is no HOME (or XDG_CONFIG_HOME) to find ~/.config/indoubt/config.yaml in"
            .to_string(),
    };
    format!("no --config, INDOUBT_CONFIG is not set, and {default}")
}

fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("indoubt").join("config.yaml"))
}

/// Parses config text; errors name `file:line:column` so an editor can jump there.
pub fn parse(text: &str, path: &Path) -> Result<Config> {
    if text.trim().is_empty() {
        return Ok(Config::default());
    }
    let config: Config = serde_yaml::from_str::<UniqueKeys>(text)
        .and_then(|_| serde_yaml::from_str(text))
        .map_err(|err| located(err, path))?;
    for source in &config.resolve.decision_sources {
        source.source().map_err(|e| {
            hinted(
                format!("invalid config {}: resolve: {e:#}", path.display()),
                "see DECISION SOURCES in indoubt-resolve(1)",
            )
        })?;
    }
    Ok(config)
}

/// A YAML error as `file:line:column: message`.
fn located(err: serde_yaml::Error, path: &Path) -> anyhow::Error {
    let message = err.to_string();
    let (location, message) = match err.location() {
        Some(loc) => {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            let message = message
                .strip_suffix(&suffix)
                .unwrap_or(&message)
                .to_string();
            (
                format!("{}:{}:{}", path.display(), loc.line(), loc.column()),
                message,
            )
        }
        None => (path.display().to_string(), message),
    };
    hinted(
        format!("invalid config {location}: {message}"),
        "indoubt-config(5) lists every key",
    )
}

/// Any YAML document in which no mapping repeats a key. serde keeps the last of two
/// equal keys in a map without a word (two targets of one name: the first silently
/// gone), so the document is walked once for that before it is read: the error is
/// raised while the repeated key is read, so it carries that key's line and column.
struct UniqueKeys;

impl<'de> serde::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while map.next_key_seed(Key(&mut seen))?.is_some() {
            map.next_value::<UniqueKeys>()?;
        }
        Ok(UniqueKeys)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    /// A tagged value (`!tag value`).
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Self, A::Error> {
        use serde::de::VariantAccess;
        let (serde::de::IgnoredAny, value) = data.variant()?;
        value.newtype_variant::<UniqueKeys>()
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeys)
    }

    fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeys)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_i128<E>(self, _: i128) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_u128<E>(self, _: u128) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(UniqueKeys)
    }

    fn visit_none<E>(self) -> Result<Self, E> {
        Ok(UniqueKeys)
    }
}

/// A mapping's key, by its text (`1` and `"1"` name the same target), refused when the
/// mapping had it already.
struct Key<'a>(&'a mut std::collections::HashSet<String>);

impl<'de> serde::de::DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<(), E> {
        if self.0.insert(key.to_string()) {
            Ok(())
        } else {
            Err(E::custom(format!(
                "duplicate key {key:?}: it appears earlier in the same mapping, and only one can be in force"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Config> {
        parse(text, Path::new("c.yaml"))
    }

    #[test]
    fn reads_targets_and_thresholds() {
        let c = parse_str(
            "postgres:\n  db1:\n    conninfo: host=db1 user=monitor\nthresholds:\n  prepared:\n    warning_age: 2m\n    critical_age: 1h\n",
        )
        .unwrap();
        assert_eq!(c.postgres["db1"].conninfo, "host=db1 user=monitor");
        assert_eq!(
            c.thresholds.prepared.warning_age,
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            c.thresholds.prepared.critical_age,
            Some(Duration::from_secs(3600))
        );
    }

    #[test]
    fn unknown_keys_name_line_column_and_the_expected_keys() {
        let err = parse_str("postgres:\n  db1:\n    connifo: x\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("c.yaml:3:5"), "{err}");
        assert!(err.contains("conninfo"), "{err}");
    }

    #[test]
    fn bad_durations_are_located() {
        let err = parse_str("thresholds:\n  prepared:\n    warning_age: 5 minutes\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("c.yaml:3:"), "{err}");
        assert!(err.contains("unknown unit"), "{err}");
    }

    #[test]
    fn sizes_and_counts_as_text_or_numbers() {
        let c = parse_str(
            "thresholds:\n  slots:\n    warning_retained: 512MiB\n    critical_retained: 2147483648\n  horizon:\n    warning_xids: 10M\n    critical_age: 6h\n  wraparound:\n    critical_xids: 1.4B\n",
        )
        .unwrap();
        assert_eq!(c.thresholds.slots.warning_retained, Some(512 << 20));
        assert_eq!(c.thresholds.slots.critical_retained, Some(2 << 30));
        assert_eq!(c.thresholds.horizon.warning_xids, Some(10_000_000));
        assert_eq!(
            c.thresholds.horizon.critical_age,
            Some(Duration::from_secs(6 * 3600))
        );
        assert_eq!(c.thresholds.wraparound.critical_xids, Some(1_400_000_000));
        let err = parse_str("thresholds:\n  slots:\n    warning_retained: lots\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("c.yaml:3:") && err.contains("invalid size"),
            "{err}"
        );
    }

    #[test]
    fn kafka_targets_with_properties() {
        let c = parse_str(
            "kafka:\n  prod:\n    bootstrap_servers: k1:9092,k2:9092\n    properties:\n      security.protocol: SASL_SSL\n    properties_file: /etc/kafka/client.properties\n",
        )
        .unwrap();
        let prod = &c.kafka["prod"];
        assert_eq!(prod.bootstrap_servers, "k1:9092,k2:9092");
        assert_eq!(prod.properties["security.protocol"], "SASL_SSL");
        assert_eq!(
            prod.properties_file.as_deref(),
            Some(Path::new("/etc/kafka/client.properties"))
        );
        let err = parse_str(
            "kafka:\n  prod:\n    bootstrap_servers: k1:9092\n    check_topic_regex: '(payments'\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("c.yaml:3:5: kafka.prod: not a regular expression")
                && err.contains("unclosed group"),
            "{err}"
        );
        let err = parse_str("kafka:\n  prod:\n    bootstrap: k1:9092\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("c.yaml:3:5") && err.contains("bootstrap_servers"),
            "{err}"
        );
    }

    #[test]
    fn duplicate_keys_are_refused_at_the_repeat_on_every_level() {
        for (yaml, at, key) in [
            // Two targets of one name: the first would silently vanish.
            ("postgres:\n  db1:\n    conninfo: host=a\n  db1:\n    conninfo: host=b\n", "c.yaml:4:3", "db1"),
            // A field twice in one target.
            ("postgres:\n  db1:\n    conninfo: host=a\n    conninfo: host=b\n", "c.yaml:4:5", "conninfo"),
            ("kafka:\n  k:\n    bootstrap_servers: a:9092\n    properties:\n      security.protocol: SSL\n      security.protocol: PLAINTEXT\n", "c.yaml:6:7", "security.protocol"),
            ("reconcile:\n  orders:\n    topic: a\n  orders:\n    topic: b\n", "c.yaml:4:3", "orders"),
            ("reconcile:\n  orders:\n    query: SELECT 1\n    topic: a\n    query: SELECT 2\n", "c.yaml:5:5", "query"),
            ("resolve:\n  decision_sources:\n    - name: tm\n      target: db1\n      query: SELECT 1\n      target: db2\n", "c.yaml:6:7", "target"),
            ("thresholds:\n  prepared:\n    warning_age: 1m\nthresholds:\n  slots: {}\n", "c.yaml:4:1", "thresholds"),
            // The same name spelt as a number and as text is the same target.
            ("reconcile:\n  1:\n    topic: a\n  \"1\":\n    topic: b\n", "c.yaml:4:3", "1"),
        ] {
            let err = parse_str(yaml).unwrap_err().to_string();
            assert!(err.contains(at), "{yaml}: {err}");
            assert!(err.contains(&format!("duplicate key {key:?}")), "{yaml}: {err}");
        }
        // Equal keys in different mappings are not duplicates.
        let c = parse_str("postgres:\n  a:\n    conninfo: host=a\n  b:\n    conninfo: host=b\n")
            .unwrap();
        assert_eq!(c.postgres.len(), 2);
    }

    #[test]
    fn empty_file_is_an_empty_config() {
        assert!(parse_str("\n").unwrap().postgres.is_empty());
    }
}
