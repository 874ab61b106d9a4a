//! DBOS's system tables on PostgreSQL (`dbos.workflow_status`, the steps in
//! `dbos.operation_outputs`, the versions in `dbos.application_versions`, the queues in
//! `dbos.queues`, the schema's migration in `dbos.dbos_migrations`): the workflows DBOS
//! gave up recovering and those that ended in error (through its index on failed
//! statuses), the PENDING ones not moved for a while with their last step (through its
//! index on PENDING rows), the ENQUEUED ones waiting long by queue and version, the
//! newest application version of each application, and how many of DBOS's connections
//! are open.
//!
//! DBOS keeps no liveness of its executors in the database: whether the process of a
//! PENDING workflow is alive is not here, only what the rows and the connections show.

use crate::appdb::Problem;
use crate::pg::session::Session;
use crate::quote;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The columns read of `workflow_status` (every DBOS Transact 1.x to 3.x has them).
pub const WORKFLOW_COLUMNS: [&str; 9] = [
    "workflow_uuid",
    "status",
    "name",
    "executor_id",
    "application_version",
    "recovery_attempts",
    "queue_name",
    "created_at",
    "updated_at",
];

/// The columns read of `operation_outputs`.
pub const STEP_COLUMNS: [&str; 4] = ["workflow_uuid", "function_id", "function_name", "output"];

/// The statuses DBOS gives a workflow it stopped recovering (RETRIES_EXCEEDED before 1.8).
pub const DEAD_LETTERED: [&str; 2] = ["MAX_RECOVERY_ATTEMPTS_EXCEEDED", "RETRIES_EXCEEDED"];

/// The stalled PENDING workflows listed (the oldest first); the rest are counted.
pub const LISTED: i64 = 500;

/// The ids named per group.
pub const IDS_NAMED: usize = 10;

/// The name DBOS's own connections give themselves (`application_name`).
pub const PROCESS_APPLICATION: &str = "dbos_transact";

/// DBOS's tables under their schema (`dbos` unless the application set
/// `dbos_system_schema`).
#[derive(Debug, Clone)]
pub struct Schema {
    schema: String,
}

impl Schema {
    pub fn new(schema: &str) -> Schema {
        Schema {
            schema: schema.to_string(),
        }
    }

    /// A table's name as configured (`dbos.workflow_status`).
    pub fn name(&self, table: &str) -> String {
        format!("{}.{table}", self.schema)
    }

    fn sql(&self, table: &str) -> String {
        quote::qualified(&self.name(table))
    }
}

/// What keeps the workflow and step tables from being read, if anything.
pub async fn problems(session: &Session, s: &Schema) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for (table, columns) in [
        ("workflow_status", &WORKFLOW_COLUMNS[..]),
        ("operation_outputs", &STEP_COLUMNS[..]),
    ] {
        let name = s.name(table);
        let access = crate::pg::privileges::table(session, &name, columns).await?;
        problems.extend(crate::appdb::problem(&name, access, &[]));
    }
    Ok(problems)
}

/// The schema's migration (`dbos_migrations.version`: 125 for DBOS Transact 3.4); None
/// when the table is not there or the role may not read it.
pub async fn migration(session: &Session, s: &Schema) -> Result<Option<i64>> {
    if !exists(session, &s.name("dbos_migrations")).await? {
        return Ok(None);
    }
    let sql = format!(
        "SELECT max(version)::bigint FROM {}",
        s.sql("dbos_migrations")
    );
    Ok(match session.query(&sql, &[]).await {
        Ok(rows) => rows.first().and_then(|r| r.try_get(0).ok()).flatten(),
        Err(_) => None,
    })
}

async fn exists(session: &Session, table: &str) -> Result<bool> {
    Ok(session
        .query(
            "SELECT to_regclass($1) IS NOT NULL AND has_table_privilege(to_regclass($1), 'SELECT')",
            &[&quote::qualified(table)],
        )
        .await?
        .first()
        .and_then(|r| r.try_get(0).ok())
        .unwrap_or(false))
}

/// What the system tables hold now.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub migration: Option<i64>,
    /// The database's time when read, in epoch milliseconds (DBOS's times are).
    pub now_ms: i64,
    /// The newest application version DBOS registered, by the application that owns it
    /// (`""`: unclaimed, or DBOS before 3.x's owners); empty before 3.x.
    pub latest_versions: BTreeMap<String, String>,
    /// DBOS's connections to this database now (a process holds several).
    pub connections: Option<i64>,
    /// Given up by DBOS, by workflow name and version.
    pub dead_lettered: Vec<Group>,
    /// Ended in ERROR within the window asked about, by name and version.
    pub errors: Vec<Group>,
    /// PENDING and not moved since the age asked about, the oldest first (at most
    /// `LISTED`).
    pub stalled: Vec<Workflow>,
    pub stalled_total: i64,
    /// ENQUEUED longer than the age, by queue and version.
    pub enqueued: Vec<Enqueued>,
}

/// Workflows of one name and version in one status.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub status: String,
    pub name: String,
    pub version: Option<String>,
    pub count: i64,
    pub oldest_ms: i64,
    pub newest_ms: i64,
    pub max_attempts: Option<i64>,
    /// The oldest ones' ids (at most `IDS_NAMED`).
    pub ids: Vec<String>,
    /// The oldest one's last completed step.
    pub last_step: Option<Step>,
}

/// One workflow.
#[derive(Debug, Clone, Serialize)]
pub struct Workflow {
    pub id: String,
    pub name: String,
    /// The application that owns it (`workflow_status.application_name`, 3.x).
    pub application: Option<String>,
    pub executor: Option<String>,
    pub version: Option<String>,
    pub recovery_attempts: Option<i64>,
    pub queue: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub last_step: Option<Step>,
}

/// A workflow's last recorded step (DBOS records a step once it completes).
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub function_id: i32,
    pub name: String,
    /// `DBOS.sleep`'s wake-up (its output: epoch seconds), in epoch milliseconds.
    pub wakes_ms: Option<i64>,
}

impl Snapshot {
    /// The newest version DBOS registered for this application (else the unclaimed ones').
    pub fn latest_for(&self, application: Option<&str>) -> Option<&String> {
        latest_for(&self.latest_versions, application)
    }
}

/// Of `latest_versions`' answer, the newest version of this application (else the
/// unclaimed ones').
pub fn latest_for<'a>(
    versions: &'a BTreeMap<String, String>,
    application: Option<&str>,
) -> Option<&'a String> {
    versions
        .get(application.unwrap_or(""))
        .or_else(|| versions.get(""))
}

impl Step {
    /// A sleep (or a receive's timeout) that has not ended: the workflow waits.
    pub fn waits(&self, now_ms: i64) -> bool {
        self.name == "DBOS.sleep" && self.wakes_ms.is_some_and(|w| w > now_ms)
    }
}

/// ENQUEUED workflows of one queue, version and application.
#[derive(Debug, Clone, Serialize)]
pub struct Enqueued {
    pub queue: String,
    pub version: Option<String>,
    pub application: Option<String>,
    pub count: i64,
    /// The longest waiting one's enqueueing (its status's last change).
    pub oldest_ms: i64,
    /// PENDING workflows of the queue now, of any age (those running take its slots).
    pub pending_in_queue: i64,
    /// The queue's concurrency, as the application registered it (3.x).
    pub concurrency: Option<i32>,
    pub ids: Vec<String>,
}

/// The system tables' state: `age` is how long a PENDING workflow may go unmoved (and an
/// ENQUEUED one wait), `error_window` how far back ERROR ones are counted.
pub async fn read(
    session: &Session,
    s: &Schema,
    migration: Option<i64>,
    (age, error_window): (Duration, Duration),
) -> Result<Snapshot> {
    let now_ms: i64 = session
        .query("SELECT (extract(epoch FROM now()) * 1000)::bigint", &[])
        .await?
        .first()
        .map(|r| r.try_get(0))
        .transpose()?
        .unwrap_or_default();
    let cutoff = now_ms - age.as_millis() as i64;
    let ws = s.sql("workflow_status");
    // The statuses as literals: the planner matches them to the partial index on failed
    // statuses only so.
    let dead = DEAD_LETTERED
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let dead_lettered = groups(session, s, &format!("status IN ({dead})"), None).await?;
    let errors = groups(
        session,
        s,
        "status = 'ERROR' AND created_at >= $1",
        Some(now_ms - error_window.as_millis() as i64),
    )
    .await?;
    let stale = "w.status = 'PENDING' AND w.created_at < $1 AND w.updated_at < $1";
    let stalled_total: i64 = session
        .query(
            &format!("SELECT count(*) FROM {ws} w WHERE {stale}"),
            &[&cutoff],
        )
        .await?
        .first()
        .map(|r| r.try_get(0))
        .transpose()?
        .unwrap_or_default();
    let app = match has_column(session, &s.name("workflow_status"), "application_name").await? {
        true => "w.application_name",
        false => "NULL::text",
    };
    let sql = format!(
        "SELECT w.workflow_uuid, coalesce(w.name, ''), w.executor_id, w.application_version, w.recovery_attempts::bigint, w.queue_name,
       w.created_at::bigint, w.updated_at::bigint, st.function_id, st.function_name, st.output, {app}
FROM {ws} w LEFT JOIN LATERAL (SELECT o.function_id, o.function_name, o.output FROM {oo} o
                               WHERE o.workflow_uuid = w.workflow_uuid ORDER BY o.function_id DESC LIMIT 1) st ON true
WHERE {stale} ORDER BY w.created_at, w.workflow_uuid LIMIT {LISTED}",
        oo = s.sql("operation_outputs")
    );
    let mut stalled = Vec::new();
    for r in session.query(&sql, &[&cutoff]).await? {
        stalled.push(Workflow {
            id: r.try_get(0)?,
            name: r.try_get(1)?,
            executor: r.try_get(2)?,
            version: r.try_get(3)?,
            recovery_attempts: r.try_get(4)?,
            queue: r.try_get(5)?,
            created_ms: r.try_get(6)?,
            updated_ms: r.try_get(7)?,
            last_step: step(r.try_get(8)?, r.try_get(9)?, r.try_get(10)?),
            application: r.try_get(11)?,
        });
    }
    let concurrency = queues(session, s).await?;
    // Waiting since their status last changed (a resumed workflow keeps its creation
    // time); the creation time bounds it for the index on in-flight rows.
    let app = app.trim_start_matches("w.");
    let sql = format!(
        "SELECT coalesce(q.queue_name, ''), q.application_version, q.{app}, count(*), min(q.updated_at)::bigint,
       (array_agg(q.workflow_uuid ORDER BY q.updated_at, q.workflow_uuid))[1:{IDS_NAMED}],
       (SELECT count(*) FROM {ws} p WHERE p.status = 'PENDING' AND p.queue_name = q.queue_name)
FROM {ws} q WHERE q.status = 'ENQUEUED' AND q.created_at < $1 AND q.updated_at < $1 GROUP BY 1, 2, 3, q.queue_name ORDER BY 5"
    );
    let mut enqueued = Vec::new();
    for r in session.query(&sql, &[&cutoff]).await? {
        let queue: String = r.try_get(0)?;
        enqueued.push(Enqueued {
            concurrency: concurrency
                .iter()
                .find(|(name, _)| *name == queue)
                .and_then(|(_, c)| *c),
            queue,
            version: r.try_get(1)?,
            application: r.try_get(2)?,
            count: r.try_get(3)?,
            oldest_ms: r.try_get(4)?,
            ids: r.try_get(5)?,
            pending_in_queue: r.try_get(6)?,
        });
    }
    let latest_versions = latest_versions(session, s).await?;
    let connections = connections(session).await.ok();
    Ok(Snapshot {
        migration,
        now_ms,
        latest_versions,
        connections,
        dead_lettered,
        errors,
        stalled,
        stalled_total,
        enqueued,
    })
}

/// A last step from its columns; a sleep's output is its wake-up in epoch seconds.
fn step(id: Option<i32>, name: Option<String>, output: Option<String>) -> Option<Step> {
    let (function_id, name) = (id?, name?);
    let wakes_ms = match name.as_str() {
        "DBOS.sleep" => output
            .as_deref()
            .map(|o| o.trim().trim_matches('"'))
            .and_then(|o| o.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| (s * 1000.0) as i64),
        _ => None,
    };
    Some(Step {
        function_id,
        name,
        wakes_ms,
    })
}

/// Workflows meeting `condition` (over `$1`, the time since, when given), by status,
/// name and version, with the oldest one's last step.
async fn groups(
    session: &Session,
    s: &Schema,
    condition: &str,
    since: Option<i64>,
) -> Result<Vec<Group>> {
    let sql = format!(
        "SELECT g.status, g.name, g.application_version, g.n, g.oldest, g.newest, g.attempts, g.ids, st.function_id, st.function_name, st.output
FROM (SELECT status, coalesce(name, '') AS name, application_version, count(*) AS n, min(created_at)::bigint AS oldest,
             max(updated_at)::bigint AS newest, max(recovery_attempts)::bigint AS attempts,
             (array_agg(workflow_uuid ORDER BY created_at, workflow_uuid))[1:{IDS_NAMED}] AS ids
      FROM {ws} WHERE {condition} GROUP BY 1, 2, 3) g
LEFT JOIN LATERAL (SELECT o.function_id, o.function_name, o.output FROM {oo} o
                   WHERE o.workflow_uuid = g.ids[1] ORDER BY o.function_id DESC LIMIT 1) st ON true
ORDER BY g.oldest",
        ws = s.sql("workflow_status"),
        oo = s.sql("operation_outputs")
    );
    let rows = match since {
        Some(t) => session.query(&sql, &[&t]).await?,
        None => session.query(&sql, &[]).await?,
    };
    let mut out = Vec::new();
    for r in rows {
        out.push(Group {
            status: r.try_get(0)?,
            name: r.try_get(1)?,
            version: r.try_get(2)?,
            count: r.try_get(3)?,
            oldest_ms: r.try_get(4)?,
            newest_ms: r.try_get(5)?,
            max_attempts: r.try_get(6)?,
            ids: r.try_get(7)?,
            last_step: step(r.try_get(8)?, r.try_get(9)?, r.try_get(10)?),
        });
    }
    Ok(out)
}

/// Each queue's concurrency, as the application registered it (3.x's `queues`).
async fn queues(session: &Session, s: &Schema) -> Result<Vec<(String, Option<i32>)>> {
    if !exists(session, &s.name("queues")).await? {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT name, concurrency FROM {}", s.sql("queues"));
    let mut out = Vec::new();
    for r in session.query(&sql, &[]).await? {
        out.push((r.try_get(0)?, r.try_get(1)?));
    }
    Ok(out)
}

/// The newest application version DBOS registered for each application that owns some
/// (`""`: unclaimed): the one its processes call latest.
pub async fn latest_versions(session: &Session, s: &Schema) -> Result<BTreeMap<String, String>> {
    let table = s.name("application_versions");
    if !exists(session, &table).await? {
        return Ok(BTreeMap::new());
    }
    let owner = match has_column(session, &table, "application_name").await? {
        true => "coalesce(application_name, '')",
        false => "''",
    };
    let sql = format!(
        "SELECT DISTINCT ON ({owner}) {owner}, version_name FROM {} ORDER BY {owner}, version_timestamp DESC",
        s.sql("application_versions")
    );
    let mut out = BTreeMap::new();
    for r in session.query(&sql, &[]).await? {
        out.insert(r.try_get(0)?, r.try_get(1)?);
    }
    Ok(out)
}

/// Whether a table has a column (DBOS added columns over its versions).
async fn has_column(session: &Session, table: &str, column: &str) -> Result<bool> {
    Ok(session
        .query(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped)",
            &[&quote::qualified(table), &column],
        )
        .await?
        .first()
        .and_then(|r| r.try_get(0).ok())
        .unwrap_or(false))
}

/// One workflow as a resolution reads it before and after acting.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub id: String,
    pub status: String,
    pub name: String,
    /// The application that owns it (3.x).
    pub application: Option<String>,
    pub executor: Option<String>,
    pub version: Option<String>,
    pub recovery_attempts: Option<i64>,
    pub queue: Option<String>,
    pub updated_ms: i64,
    pub last_step: Option<Step>,
}

/// The workflow `id`, or None when there is none (DBOS's `cancel` of an unknown id says
/// nothing and exits 0: a mistyped id must be caught here).
pub async fn find(session: &Session, s: &Schema, id: &str) -> Result<Option<Found>> {
    let app = match has_column(session, &s.name("workflow_status"), "application_name").await? {
        true => "w.application_name",
        false => "NULL::text",
    };
    let sql = format!(
        "SELECT w.workflow_uuid, coalesce(w.status, ''), coalesce(w.name, ''), w.executor_id, w.application_version,
       w.recovery_attempts::bigint, w.queue_name, w.updated_at::bigint, st.function_id, st.function_name, st.output, {app}
FROM {ws} w LEFT JOIN LATERAL (SELECT o.function_id, o.function_name, o.output FROM {oo} o
                               WHERE o.workflow_uuid = w.workflow_uuid ORDER BY o.function_id DESC LIMIT 1) st ON true
WHERE w.workflow_uuid = $1",
        ws = s.sql("workflow_status"),
        oo = s.sql("operation_outputs")
    );
    let rows = session.query(&sql, &[&id]).await?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    Ok(Some(Found {
        id: r.try_get(0)?,
        status: r.try_get(1)?,
        name: r.try_get(2)?,
        executor: r.try_get(3)?,
        version: r.try_get(4)?,
        recovery_attempts: r.try_get(5)?,
        queue: r.try_get(6)?,
        updated_ms: r.try_get(7)?,
        last_step: step(r.try_get(8)?, r.try_get(9)?, r.try_get(10)?),
        application: r.try_get(11)?,
    }))
}

/// How many of DBOS's connections are open on the database now (a DBOS process holds
/// several; none means no DBOS process is connected).
pub async fn connections(session: &Session) -> Result<i64> {
    Ok(session
        .query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
            &[&PROCESS_APPLICATION],
        )
        .await?
        .first()
        .map(|r| r.try_get(0))
        .transpose()?
        .unwrap_or_default())
}
