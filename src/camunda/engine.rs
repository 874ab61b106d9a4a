//! The engine's tables on PostgreSQL (`ACT_RU_INCIDENT`, `ACT_RU_JOB`, `ACT_RU_EXT_TASK`
//! and what names them: `ACT_RU_EXECUTION`'s business key, `ACT_RE_PROCDEF`'s key,
//! `ACT_RU_JOBDEF`'s activity, `ACT_GE_BYTEARRAY`'s stack traces, `ACT_GE_PROPERTY`'s
//! schema version): whether they can be read, the open incidents (root causes only) by
//! process and activity, and the jobs and external tasks that still fail with retries
//! left or whose lock expired long ago — each table read in one pass (ACT_RU_JOB has no
//! index for either question), counted by group with the oldest few named.
//!
//! The engine writes its times as its JVM's local time in columns without a zone; they
//! are compared with the database's clock in the engine's zone when it is named (its
//! `user.timezone`), else with the session's `localtimestamp` (right when the engine and
//! the database keep the same zone).

use crate::appdb::Problem;
use crate::pg::session::Session;
use crate::quote;
use anyhow::{Context as _, Result};
use chrono::NaiveDateTime;
use serde::Serialize;
use std::time::Duration;

/// The rows named per group (the oldest first).
pub const NAMED: i64 = 5;

/// How much of a stack trace is read (its start says where it failed).
pub const STACK_BYTES: i32 = 2048;

/// The tables read and the columns read of each (each is in every Camunda 7.x and
/// Operaton 1.x schema), by their names without the prefix.
pub const READS: [(&str, &[&str]); 8] = [
    (
        "act_ru_incident",
        &[
            "id_",
            "incident_timestamp_",
            "incident_msg_",
            "incident_type_",
            "activity_id_",
            "proc_inst_id_",
            "proc_def_id_",
            "root_cause_incident_id_",
            "configuration_",
        ],
    ),
    (
        "act_ru_job",
        &[
            "id_",
            "lock_exp_time_",
            "lock_owner_",
            "process_instance_id_",
            "process_def_key_",
            "retries_",
            "exception_stack_id_",
            "exception_msg_",
            "duedate_",
            "job_def_id_",
        ],
    ),
    (
        "act_ru_ext_task",
        &[
            "id_",
            "worker_id_",
            "topic_name_",
            "retries_",
            "error_msg_",
            "error_details_id_",
            "lock_exp_time_",
            "proc_inst_id_",
            "proc_def_key_",
            "act_id_",
        ],
    ),
    ("act_ru_execution", &["id_", "business_key_"]),
    ("act_re_procdef", &["id_", "key_", "version_"]),
    ("act_ru_jobdef", &["id_", "act_id_"]),
    ("act_ge_bytearray", &["id_", "bytes_"]),
    ("act_ge_property", &["name_", "value_"]),
];

/// The engine's tables under a prefix (its `databaseTablePrefix`: `""`, or a schema and a
/// dot such as `camunda.`). The engine writes them unquoted, so PostgreSQL keeps them
/// lower-case.
#[derive(Debug, Clone)]
pub struct Tables {
    prefix: String,
}

impl Tables {
    pub fn new(prefix: &str) -> Tables {
        Tables {
            prefix: prefix.to_lowercase(),
        }
    }

    /// A table's name as configured (`camunda.act_ru_job`).
    pub fn name(&self, table: &str) -> String {
        format!("{}{table}", self.prefix)
    }

    /// A table's name as a statement writes it.
    fn sql(&self, table: &str) -> String {
        quote::qualified(&self.name(table))
    }
}

/// What keeps the engine's tables from being read, if anything.
pub async fn problems(session: &Session, tables: &Tables) -> Result<Vec<Problem>> {
    let names: Vec<(String, &[&str])> = READS
        .iter()
        .map(|(t, columns)| (tables.name(t), *columns))
        .collect();
    let mut problems = Vec::new();
    for (table, columns) in &names {
        let access = crate::pg::privileges::table(session, table, columns).await?;
        problems.extend(crate::appdb::problem(table, access, &[]));
    }
    Ok(problems)
}

/// The schema's version as the engine recorded it: the newest entry of ACT_GE_SCHEMA_LOG
/// (7.11 and later; Operaton 1.0 keeps Camunda's numbers there, `7.24.0`), else
/// `schema.version` in ACT_GE_PROPERTY (which still says `fox` in a schema created new,
/// and is only a version in older ones); None when neither holds one.
pub async fn schema_version(session: &Session, tables: &Tables) -> Result<Option<String>> {
    let log = tables.name("act_ge_schema_log");
    let has_log: bool = session
        .query(
            "SELECT to_regclass($1) IS NOT NULL",
            &[&quote::qualified(&log)],
        )
        .await?
        .first()
        .and_then(|r| r.try_get(0).ok())
        .unwrap_or(false);
    if has_log {
        let sql = format!(
            "SELECT version_ FROM {} WHERE version_ IS NOT NULL ORDER BY timestamp_ DESC NULLS LAST, id_ DESC LIMIT 1",
            tables.sql("act_ge_schema_log")
        );
        if let Some(version) = session
            .query(&sql, &[])
            .await?
            .first()
            .and_then(|r| r.try_get::<_, String>(0).ok())
        {
            return Ok(Some(version));
        }
    }
    let sql = format!(
        "SELECT value_ FROM {} WHERE name_ = 'schema.version'",
        tables.sql("act_ge_property")
    );
    let rows = session.query(&sql, &[]).await?;
    Ok(rows.first().and_then(|r| r.try_get(0).ok()))
}

/// Whether indoubt knows a schema version: Camunda 7.x (Operaton 1.x writes 7.x's
/// numbers), or an Operaton 1.x that writes its own.
pub fn known_version(version: &str) -> bool {
    let major = version.split('.').next().unwrap_or("");
    matches!(major, "7" | "1")
}

/// What the engine's tables hold now.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub schema_version: String,
    /// The database session's local time when read (the engine's columns are local times).
    pub now: NaiveDateTime,
    /// Open incidents (root causes), by process, activity and type, the oldest first.
    pub incidents: Vec<IncidentGroup>,
    /// Jobs and external tasks still failing with retries left, or left locked, by
    /// process and activity, the oldest first.
    pub stalled: Vec<StalledGroup>,
    /// The server's estimate of ACT_RU_JOB's rows (statistics, not a count).
    pub job_rows: Option<i64>,
    /// Whether an index of ACT_RU_JOB leads with the lock's expiry or the retries (the
    /// engine's schema has none: the jobs are read by a scan of the table).
    pub job_scan_indexed: bool,
}

/// Open incidents of one process's activity, of one type.
#[derive(Debug, Clone, Serialize)]
pub struct IncidentGroup {
    /// The process definition's key (empty when its definition is gone).
    pub process: String,
    pub activity: String,
    /// `failedJob`, `failedExternalTask`, or a custom incident's type.
    pub incident_type: String,
    pub count: i64,
    pub oldest: Option<NaiveDateTime>,
    pub newest: Option<NaiveDateTime>,
    /// The oldest few.
    pub named: Vec<Incident>,
}

/// One open incident, with what explains it.
#[derive(Debug, Clone, Serialize)]
pub struct Incident {
    pub id: String,
    pub at: Option<NaiveDateTime>,
    pub message: Option<String>,
    /// The failed job's or external task's id (the incident's configuration).
    pub configuration: Option<String>,
    pub process_instance: Option<String>,
    pub business_key: Option<String>,
    /// The start of the job's stack trace or the external task's error details.
    pub stack_head: Option<String>,
    /// The job's or task's retries now (0 while the incident is open).
    pub retries: Option<i32>,
}

/// What holds a job or an external task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stall {
    /// It failed and is retried, retries left.
    Retrying,
    /// Its lock expired long ago and nothing took it since.
    LockExpired,
}

/// Jobs or external tasks of one process's activity held the same way.
#[derive(Debug, Clone, Serialize)]
pub struct StalledGroup {
    pub kind: crate::camunda::rest::Kind,
    pub stall: Stall,
    pub process: String,
    pub activity: String,
    /// An external task's topic.
    pub topic: Option<String>,
    pub count: i64,
    pub min_retries: Option<i32>,
    /// The earliest lock expiry, or next retry (a job's due date), among them.
    pub earliest: Option<NaiveDateTime>,
    /// The oldest few.
    pub named: Vec<Stalled>,
}

/// One job or external task.
#[derive(Debug, Clone, Serialize)]
pub struct Stalled {
    pub id: String,
    pub process_instance: Option<String>,
    pub business_key: Option<String>,
    pub retries: Option<i32>,
    pub message: Option<String>,
    /// The job executor's lock owner, or the external task's worker.
    pub owner: Option<String>,
    pub lock_expires: Option<NaiveDateTime>,
    pub due: Option<NaiveDateTime>,
}

/// The engine's state: `lock_age` is how long after its lock expired a job or external
/// task still untaken is called left locked; `zone` the engine's time zone, when named.
pub async fn read(
    session: &Session,
    tables: &Tables,
    schema_version: String,
    (lock_age, zone): (Duration, Option<&str>),
) -> Result<Snapshot> {
    let now_sql = match zone {
        Some(zone) => format!("(now() AT TIME ZONE {})", quote::sql_literal(zone)),
        None => "localtimestamp".to_string(),
    };
    let now: NaiveDateTime = session
        .query(&format!("SELECT {now_sql}"), &[])
        .await
        .with_context(|| format!("reading the database's clock in the engine's zone ({now_sql})"))?
        .first()
        .context("no row for the database's clock")?
        .try_get(0)?;
    let incidents = incidents(session, tables)
        .await
        .context("reading the open incidents")?;
    let cutoff = format!(
        "{now_sql} - make_interval(secs => {})",
        lock_age.as_secs_f64()
    );
    let mut stalled = jobs(session, tables, &cutoff)
        .await
        .context("reading the failing and locked jobs")?;
    stalled.extend(
        tasks(session, tables, &cutoff)
            .await
            .context("reading the failing and locked external tasks")?,
    );
    stalled.sort_by_key(|g| g.earliest);
    let (job_rows, job_scan_indexed) = job_table(session, tables).await?;
    Ok(Snapshot {
        schema_version,
        now,
        incidents,
        stalled,
        job_rows,
        job_scan_indexed,
    })
}

/// Only root causes: a failure under a call activity also opens an incident on each
/// calling process, which points at it.
const ROOT: &str = "(i.root_cause_incident_id_ IS NULL OR i.root_cause_incident_id_ = i.id_)";

async fn incidents(session: &Session, t: &Tables) -> Result<Vec<IncidentGroup>> {
    let (inc, def) = (t.sql("act_ru_incident"), t.sql("act_re_procdef"));
    let groups = format!(
        "SELECT coalesce(d.key_, ''), coalesce(i.activity_id_, ''), coalesce(i.incident_type_, ''), count(*), min(i.incident_timestamp_), max(i.incident_timestamp_)
FROM {inc} i LEFT JOIN {def} d ON d.id_ = i.proc_def_id_ WHERE {ROOT} GROUP BY 1, 2, 3 ORDER BY 5, 1, 2, 3"
    );
    let mut out = Vec::new();
    for r in session.query(&groups, &[]).await? {
        out.push(IncidentGroup {
            process: r.try_get(0)?,
            activity: r.try_get(1)?,
            incident_type: r.try_get(2)?,
            count: r.try_get(3)?,
            oldest: r.try_get(4)?,
            newest: r.try_get(5)?,
            named: Vec::new(),
        });
    }
    if out.is_empty() {
        return Ok(out);
    }
    // The oldest few of each group first, then what explains each (the stack traces are
    // read for those only).
    let named = format!(
        "SELECT n.id_, n.incident_timestamp_, n.incident_msg_, n.configuration_, n.proc_inst_id_, e.business_key_,
       substring(b.bytes_ from 1 for {STACK_BYTES}), coalesce(j.retries_, x.retries_), n.key_, n.act_, n.type_
FROM (SELECT i.*, coalesce(d.key_, '') AS key_, coalesce(i.activity_id_, '') AS act_, coalesce(i.incident_type_, '') AS type_,
             row_number() OVER (PARTITION BY d.key_, i.activity_id_, i.incident_type_ ORDER BY i.incident_timestamp_, i.id_) AS n_
      FROM {inc} i LEFT JOIN {def} d ON d.id_ = i.proc_def_id_ WHERE {ROOT}) AS n
LEFT JOIN {exe} e ON e.id_ = n.proc_inst_id_
LEFT JOIN {job} j ON n.incident_type_ = 'failedJob' AND j.id_ = n.configuration_
LEFT JOIN {ext} x ON n.incident_type_ = 'failedExternalTask' AND x.id_ = n.configuration_
LEFT JOIN {bytes} b ON b.id_ = coalesce(j.exception_stack_id_, x.error_details_id_)
WHERE n.n_ <= {NAMED} ORDER BY n.incident_timestamp_, n.id_",
        exe = t.sql("act_ru_execution"),
        job = t.sql("act_ru_job"),
        ext = t.sql("act_ru_ext_task"),
        bytes = t.sql("act_ge_bytearray"),
    );
    for r in session.query(&named, &[]).await? {
        let key: (String, String, String) = (r.try_get(8)?, r.try_get(9)?, r.try_get(10)?);
        let stack: Option<Vec<u8>> = r.try_get(6)?;
        let incident = Incident {
            id: r.try_get(0)?,
            at: r.try_get(1)?,
            message: r.try_get(2)?,
            configuration: r.try_get(3)?,
            process_instance: r.try_get(4)?,
            business_key: r.try_get(5)?,
            stack_head: stack.map(|b| String::from_utf8_lossy(&b).into_owned()),
            retries: r.try_get(7)?,
        };
        if let Some(g) = out
            .iter_mut()
            .find(|g| (&g.process, &g.activity, &g.incident_type) == (&key.0, &key.1, &key.2))
        {
            g.named.push(incident);
        }
    }
    Ok(out)
}

/// A job still failing with retries left (the engine clears the lock when it records the
/// failure).
const JOB_RETRYING: &str = "(j.retries_ > 0 AND j.exception_msg_ IS NOT NULL)";

async fn jobs(session: &Session, t: &Tables, cutoff: &str) -> Result<Vec<StalledGroup>> {
    let (job, jobdef, exe) = (
        t.sql("act_ru_job"),
        t.sql("act_ru_jobdef"),
        t.sql("act_ru_execution"),
    );
    let expired = format!("(j.lock_owner_ IS NOT NULL AND j.lock_exp_time_ < {cutoff})");
    // One pass over the table (it has no index for either condition): each matching row
    // with its group's count, least retries and earliest time, and its place in the group;
    // only the oldest few of each come back.
    let sql = format!(
        "SELECT s.id_, s.process_instance_id_, e.business_key_, s.retries_, s.exception_msg_, s.lock_owner_, s.lock_exp_time_, s.duedate_,
       s.key_, s.act_, s.expired_, s.count_, s.min_retries_, s.earliest_
FROM (SELECT m.*, count(*) OVER w AS count_, min(m.retries_) OVER w AS min_retries_,
             min(coalesce(m.lock_exp_time_, m.duedate_)) OVER w AS earliest_,
             row_number() OVER (w ORDER BY coalesce(m.lock_exp_time_, m.duedate_), m.id_) AS n_
      FROM (SELECT j.id_, j.process_instance_id_, j.retries_, j.exception_msg_, j.lock_owner_, j.lock_exp_time_, j.duedate_,
                   coalesce(j.process_def_key_, '') AS key_, coalesce(d.act_id_, '') AS act_, {expired} AS expired_
            FROM {job} j LEFT JOIN {jobdef} d ON d.id_ = j.job_def_id_
            WHERE {JOB_RETRYING} OR {expired}) AS m
      WINDOW w AS (PARTITION BY m.key_, m.act_, m.expired_)) AS s
LEFT JOIN {exe} e ON e.id_ = s.process_instance_id_
WHERE s.n_ <= {NAMED} ORDER BY s.earliest_, s.key_, s.act_, s.n_"
    );
    let mut out: Vec<StalledGroup> = Vec::new();
    for r in session.query(&sql, &[]).await? {
        let stall = match r.try_get::<_, bool>(10)? {
            true => Stall::LockExpired,
            false => Stall::Retrying,
        };
        let key: (String, String) = (r.try_get(8)?, r.try_get(9)?);
        let i = match out
            .iter()
            .position(|g| g.stall == stall && (&g.process, &g.activity) == (&key.0, &key.1))
        {
            Some(i) => i,
            None => {
                out.push(StalledGroup {
                    kind: crate::camunda::rest::Kind::Job,
                    stall,
                    process: key.0,
                    activity: key.1,
                    topic: None,
                    count: r.try_get(11)?,
                    min_retries: r.try_get(12)?,
                    earliest: r.try_get(13)?,
                    named: Vec::new(),
                });
                out.len() - 1
            }
        };
        out[i].named.push(Stalled {
            id: r.try_get(0)?,
            process_instance: r.try_get(1)?,
            business_key: r.try_get(2)?,
            retries: r.try_get(3)?,
            message: r.try_get(4)?,
            owner: r.try_get(5)?,
            lock_expires: r.try_get(6)?,
            due: r.try_get(7)?,
        });
    }
    Ok(out)
}

async fn tasks(session: &Session, t: &Tables, cutoff: &str) -> Result<Vec<StalledGroup>> {
    let (ext, exe) = (t.sql("act_ru_ext_task"), t.sql("act_ru_execution"));
    let retrying = "(x.retries_ > 0 AND x.error_msg_ IS NOT NULL)";
    // Locked by a worker that neither completed, failed nor extended it, and nothing
    // fetched it since; one that failed with no retries left is an incident instead.
    let expired = format!(
        "(x.worker_id_ IS NOT NULL AND x.lock_exp_time_ < {cutoff} AND x.error_msg_ IS NULL)"
    );
    let sql = format!(
        "SELECT x.id_, x.proc_inst_id_, e.business_key_, x.retries_, x.error_msg_, x.worker_id_, x.lock_exp_time_,
       coalesce(x.proc_def_key_, ''), coalesce(x.act_id_, ''), coalesce(x.topic_name_, ''), {expired},
       count(*) OVER w, min(x.retries_) OVER w, min(x.lock_exp_time_) OVER w, row_number() OVER (w ORDER BY x.lock_exp_time_, x.id_)
FROM {ext} x LEFT JOIN {exe} e ON e.id_ = x.proc_inst_id_
WHERE {retrying} OR {expired}
WINDOW w AS (PARTITION BY x.proc_def_key_, x.act_id_, x.topic_name_, {expired})
ORDER BY x.lock_exp_time_, x.id_"
    );
    let mut out: Vec<StalledGroup> = Vec::new();
    for r in session.query(&sql, &[]).await? {
        let stall = match r.try_get::<_, bool>(10)? {
            true => Stall::LockExpired,
            false => Stall::Retrying,
        };
        let key: (String, String, String) = (r.try_get(7)?, r.try_get(8)?, r.try_get(9)?);
        let n: i64 = r.try_get(14)?;
        let i = match out.iter().position(|g| {
            g.stall == stall
                && (&g.process, &g.activity, g.topic.as_deref()) == (&key.0, &key.1, Some(&*key.2))
        }) {
            Some(i) => i,
            None => {
                out.push(StalledGroup {
                    kind: crate::camunda::rest::Kind::ExternalTask,
                    stall,
                    process: key.0,
                    activity: key.1,
                    topic: Some(key.2),
                    count: r.try_get(11)?,
                    min_retries: r.try_get(12)?,
                    earliest: r.try_get(13)?,
                    named: Vec::new(),
                });
                out.len() - 1
            }
        };
        if n <= NAMED {
            out[i].named.push(Stalled {
                id: r.try_get(0)?,
                process_instance: r.try_get(1)?,
                business_key: r.try_get(2)?,
                retries: r.try_get(3)?,
                message: r.try_get(4)?,
                owner: r.try_get(5)?,
                lock_expires: r.try_get(6)?,
                due: None,
            });
        }
    }
    Ok(out)
}

/// ACT_RU_JOB's estimated rows, and whether an index leads with the lock's expiry or the
/// retries (the columns the stalled jobs are found by).
async fn job_table(session: &Session, t: &Tables) -> Result<(Option<i64>, bool)> {
    let sql = "SELECT c.reltuples::bigint,
       EXISTS (SELECT 1 FROM pg_index x JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
               WHERE x.indrelid = c.oid AND a.attname IN ('lock_exp_time_', 'retries_', 'exception_msg_'))
FROM pg_class c WHERE c.oid = to_regclass($1)";
    let name = t.sql("act_ru_job");
    let rows = session.query(sql, &[&name]).await?;
    Ok(match rows.first() {
        Some(r) => {
            let estimate: i64 = r.try_get(0)?;
            ((estimate >= 0).then_some(estimate), r.try_get(1)?)
        }
        None => (None, false),
    })
}

/// The external task's or job's kind from the incident's type.
pub fn incident_kind(incident_type: &str) -> Option<crate::camunda::rest::Kind> {
    match incident_type {
        "failedJob" => Some(crate::camunda::rest::Kind::Job),
        "failedExternalTask" => Some(crate::camunda::rest::Kind::ExternalTask),
        _ => None,
    }
}

/// What an id names in the engine's tables: a job, an external task, or an incident (and
/// then the job or task it is about), with the retries it has now.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub kind: crate::camunda::rest::Kind,
    /// The job's or external task's id.
    pub id: String,
    /// The incident the id named, if it named one.
    pub incident: Option<String>,
    pub retries: Option<i32>,
    pub message: Option<String>,
    pub process: String,
    pub activity: String,
    pub process_instance: Option<String>,
    pub business_key: Option<String>,
    /// An open incident on it.
    pub open_incident: Option<String>,
}

/// Looks `id` up as a job, an external task, then an incident; None when it is none of
/// them (a mistyped id is not "already resolved").
pub async fn find(session: &Session, t: &Tables, id: &str) -> Result<Option<Found>> {
    let sql = format!(
        "WITH asked AS (
  SELECT 'job' AS kind_, j.id_, NULL::varchar AS incident_ FROM {job} j WHERE j.id_ = $1
  UNION ALL SELECT 'external_task', x.id_, NULL FROM {ext} x WHERE x.id_ = $1
  UNION ALL SELECT CASE i.incident_type_ WHEN 'failedJob' THEN 'job' WHEN 'failedExternalTask' THEN 'external_task' END, i.configuration_, i.id_
    FROM {inc} i WHERE i.id_ = $1)
SELECT a.kind_, a.id_, a.incident_, coalesce(j.retries_, x.retries_), coalesce(j.exception_msg_, x.error_msg_),
       coalesce(j.process_def_key_, x.proc_def_key_, ''), coalesce(d.act_id_, x.act_id_, ''),
       coalesce(j.process_instance_id_, x.proc_inst_id_), e.business_key_,
       (SELECT min(i.id_) FROM {inc} i WHERE i.configuration_ = a.id_ AND i.incident_type_ IN ('failedJob', 'failedExternalTask'))
FROM asked a
LEFT JOIN {job} j ON a.kind_ = 'job' AND j.id_ = a.id_
LEFT JOIN {jobdef} d ON d.id_ = j.job_def_id_
LEFT JOIN {ext} x ON a.kind_ = 'external_task' AND x.id_ = a.id_
LEFT JOIN {exe} e ON e.id_ = coalesce(j.process_instance_id_, x.proc_inst_id_)
WHERE a.kind_ IS NOT NULL AND (j.id_ IS NOT NULL OR x.id_ IS NOT NULL)
LIMIT 1",
        job = t.sql("act_ru_job"),
        ext = t.sql("act_ru_ext_task"),
        inc = t.sql("act_ru_incident"),
        jobdef = t.sql("act_ru_jobdef"),
        exe = t.sql("act_ru_execution"),
    );
    let rows = session.query(&sql, &[&id]).await?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    let kind: String = r.try_get(0)?;
    Ok(Some(Found {
        kind: match kind.as_str() {
            "job" => crate::camunda::rest::Kind::Job,
            _ => crate::camunda::rest::Kind::ExternalTask,
        },
        id: r.try_get(1)?,
        incident: r.try_get(2)?,
        retries: r.try_get(3)?,
        message: r.try_get(4)?,
        process: r.try_get(5)?,
        activity: r.try_get(6)?,
        process_instance: r.try_get(7)?,
        business_key: r.try_get(8)?,
        open_incident: r.try_get(9)?,
    }))
}
