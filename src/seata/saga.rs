//! The saga state machine engine's store (its `db` store, `seata_state_machine_inst`,
//! `seata_state_inst` and `seata_state_machine_def` under the configured prefix) on
//! PostgreSQL or MySQL/MariaDB: the instances that did not end — unknown, running, compensation failed,
//! unknown or running — with their business key, their machine and the states that
//! failed or did not finish. An instance's id is its global transaction's xid.

use super::store::Problem;
use crate::appdb::{local_time, mysql_xids, Dialect, Session};
use crate::mysql::session::{int, text};
use crate::quote;
use anyhow::Result;
use chrono::NaiveDateTime;
use serde::Serialize;
use std::collections::BTreeMap;

pub const INSTANCE_COLUMNS: [&str; 9] = [
    "id",
    "machine_id",
    "business_key",
    "gmt_started",
    "status",
    "compensation_status",
    "is_running",
    "gmt_updated",
    "parent_id",
];
pub const STATE_COLUMNS: [&str; 9] = [
    "id",
    "machine_inst_id",
    "name",
    "service_name",
    "service_method",
    "state_id_compensated_for",
    "state_id_retried_for",
    "status",
    "gmt_started",
];
pub const DEFINITION_COLUMNS: [&str; 2] = ["id", "name"];

/// The engine's three tables under `prefix` (its `tablePrefix`, `seata_` by default).
pub fn tables(prefix: &str) -> [String; 3] {
    [
        format!("{prefix}state_machine_inst"),
        format!("{prefix}state_inst"),
        format!("{prefix}state_machine_def"),
    ]
}

/// A status as the engine names it (`ExecutionStatus`).
pub fn status_name(status: &str) -> Option<&'static str> {
    Some(match status {
        "RU" => "running",
        "SU" => "succeeded",
        "FA" => "failed",
        "UN" => "unknown",
        "SK" => "skipped",
        _ => return None,
    })
}

/// The instances that did not end, and how many there are.
#[derive(Debug, Clone, Serialize)]
pub struct Unended {
    /// The database's local time when read (`localtimestamp`).
    pub local_now: NaiveDateTime,
    /// Oldest first, at most `limit`.
    pub instances: Vec<Instance>,
    pub total: i64,
}

/// One state machine instance.
#[derive(Debug, Clone, Serialize)]
pub struct Instance {
    /// Its id: its global transaction's xid.
    pub id: String,
    pub business_key: Option<String>,
    /// Its machine's name (from the definitions), else its id.
    pub machine: String,
    pub status: Option<String>,
    pub compensation_status: Option<String>,
    pub is_running: Option<bool>,
    pub parent_id: Option<String>,
    pub started_local: Option<NaiveDateTime>,
    pub updated_local: Option<NaiveDateTime>,
    /// Its states that did not succeed (failed, unknown, still running), in the order
    /// they started; compensating states say which state they compensate.
    pub states: Vec<State>,
}

#[derive(Debug, Clone, Serialize)]
pub struct State {
    pub name: String,
    pub service: Option<String>,
    pub method: Option<String>,
    pub status: String,
    /// The name of the state this one compensates, when it is a compensation.
    pub compensates: Option<String>,
    /// Another run of a state (a forward retry).
    pub retry: bool,
    pub started_local: Option<NaiveDateTime>,
}

/// Whether the engine's three tables can be read.
pub async fn inspect(session: &mut Session, prefix: &str) -> Result<Vec<Problem>> {
    let [inst, state, def] = tables(prefix);
    session
        .table_problems(&[
            (&inst, &INSTANCE_COLUMNS),
            (&state, &STATE_COLUMNS),
            (&def, &DEFINITION_COLUMNS),
        ])
        .await
}

/// The instances that did not end: status unknown or running, or a compensation that
/// failed, is unknown or running; oldest first. The engine's schema has no index on
/// status, so this reads the instance table once; the states are read for the listed
/// instances only.
pub async fn read(session: &mut Session, prefix: &str, limit: i64) -> Result<Unended> {
    let session = match session {
        Session::Pg(s) => s,
        Session::Mysql(s) => return read_mysql(s, prefix, limit).await,
    };
    let [inst, state, def] = tables(prefix).map(|t| quote::qualified(&t));
    let instances = format!(
        "SELECT {INSTANCE_SELECT}, count(*) OVER (), localtimestamp
FROM {inst} AS i LEFT JOIN {def} AS d ON d.id = i.machine_id
WHERE {UNENDED}
ORDER BY i.gmt_started, i.id
LIMIT $1"
    );
    let rows = session.query(&instances, &[&limit]).await?;
    let mut total = 0;
    let mut local_now = None;
    let mut listed = Vec::new();
    for r in &rows {
        total = r.try_get(9)?;
        local_now = Some(r.try_get(10)?);
        listed.push(Instance {
            id: r.try_get(0)?,
            business_key: r.try_get(1)?,
            machine: r.try_get(2)?,
            status: r.try_get(3)?,
            compensation_status: r.try_get(4)?,
            is_running: r.try_get(5)?,
            parent_id: r.try_get(6)?,
            started_local: r.try_get(7)?,
            updated_local: r.try_get(8)?,
            states: Vec::new(),
        });
    }
    let local_now = match local_now {
        Some(t) => t,
        None => session
            .query("SELECT localtimestamp", &[])
            .await?
            .first()
            .map(|r| r.try_get(0))
            .transpose()?
            .ok_or_else(|| anyhow::anyhow!("SELECT localtimestamp returned no row"))?,
    };
    if !listed.is_empty() {
        let ids: Vec<String> = listed.iter().map(|i| i.id.clone()).collect();
        let states = states_sql(&state, "= ANY($1::text[])");
        let at: BTreeMap<&str, usize> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        for r in session.query(&states, &[&ids]).await? {
            let id: String = r.try_get(0)?;
            let Some(&i) = at.get(id.as_str()) else {
                continue;
            };
            listed[i].states.push(State {
                name: r.try_get(1)?,
                service: r.try_get(2)?,
                method: r.try_get(3)?,
                status: r.try_get(4)?,
                compensates: r.try_get(5)?,
                retry: r.try_get(6)?,
                started_local: r.try_get(7)?,
            });
        }
    }
    Ok(Unended {
        local_now,
        instances: listed,
        total,
    })
}

/// The instance columns both dialects read, then the total and the database's local time.
const INSTANCE_SELECT: &str = "i.id, i.business_key, coalesce(d.name, i.machine_id), i.status,
       i.compensation_status, i.is_running, i.parent_id, i.gmt_started, i.gmt_updated";
/// Which instances did not end.
const UNENDED: &str = "i.status IN ('UN', 'RU') OR i.compensation_status IN ('FA', 'UN', 'RU')";

/// The states that did not succeed of the instances `of_instances` picks (one pass over
/// the states of all of them: the key is (id, machine_inst_id), no index starts with the
/// instance). A compensation's name for the state it compensates comes from the same
/// instance's rows.
fn states_sql(state: &str, of_instances: &str) -> String {
    format!(
        "SELECT s.machine_inst_id, s.name, s.service_name, s.service_method, s.status,
       c.name, s.state_id_retried_for IS NOT NULL, s.gmt_started
FROM {state} AS s
LEFT JOIN {state} AS c ON c.machine_inst_id = s.machine_inst_id AND c.id = s.state_id_compensated_for
WHERE s.machine_inst_id {of_instances} AND s.status <> 'SU'
ORDER BY s.machine_inst_id, s.gmt_started, s.id"
    )
}

/// `read` in MySQL's SQL.
async fn read_mysql(
    session: &mut crate::mysql::session::Session,
    prefix: &str,
    limit: i64,
) -> Result<Unended> {
    let [inst, state, def] = tables(prefix).map(|t| crate::mysql::tables::qualified(&t));
    let rows = session
        .rows(&format!(
            "SELECT {INSTANCE_SELECT}, count(*) OVER (), NOW(3)
FROM {inst} AS i LEFT JOIN {def} AS d ON d.id = i.machine_id
WHERE {UNENDED}
ORDER BY i.gmt_started, i.id
LIMIT {limit}"
        ))
        .await?;
    let mut total = 0;
    let mut listed = Vec::new();
    for r in &rows {
        total = int(r, 9).unwrap_or(0);
        listed.push(Instance {
            id: text(r, 0).unwrap_or_default(),
            business_key: text(r, 1),
            machine: text(r, 2).unwrap_or_default(),
            status: text(r, 3),
            compensation_status: text(r, 4),
            is_running: int(r, 5).map(|n| n != 0),
            parent_id: text(r, 6),
            started_local: local_time(r, 7),
            updated_local: local_time(r, 8),
            states: Vec::new(),
        });
    }
    let now = session.rows("SELECT NOW(3)").await?;
    let local_now = now
        .first()
        .and_then(|r| local_time(r, 0))
        .ok_or_else(|| anyhow::anyhow!("SELECT NOW(3) gave no time"))?;
    if !listed.is_empty() {
        let ids: Vec<String> = listed.iter().map(|i| i.id.clone()).collect();
        let states = states_sql(&state, &format!("IN ({})", mysql_xids(&ids)));
        let at: BTreeMap<String, usize> =
            ids.into_iter().enumerate().map(|(i, id)| (id, i)).collect();
        for r in session.rows(&states).await? {
            let Some(&i) = text(&r, 0).and_then(|id| at.get(&id)) else {
                continue;
            };
            listed[i].states.push(State {
                name: text(&r, 1).unwrap_or_default(),
                service: text(&r, 2),
                method: text(&r, 3),
                status: text(&r, 4).unwrap_or_default(),
                compensates: text(&r, 5),
                retry: int(&r, 6) == Some(1),
                started_local: local_time(&r, 7),
            });
        }
    }
    Ok(Unended {
        local_now,
        instances: listed,
        total,
    })
}

/// The statement that shows one instance's states: read-only, to paste where the saga
/// store is.
pub fn instance_statement(dialect: Dialect, prefix: &str, id: &str) -> Option<quote::Sql> {
    let [_, state, _] = tables(prefix);
    if dialect == Dialect::Mysql {
        // excep (a serialized Java exception) is left out: the mysql client prints a
        // blob's bytes as they are, control bytes and all, to the terminal.
        return Some(
            quote::Sql::new("SELECT id, name, status, state_id_compensated_for, state_id_retried_for, gmt_started FROM ")
                .mysql_qualified(&state)?
                .push(" WHERE machine_inst_id = ")
                .mysql_text(id)
                .push(" ORDER BY gmt_started;"),
        );
    }
    // excep is bytea (a serialized Java exception): its text as escaped bytes, not hex.
    Some(
        quote::Sql::new("SELECT id, name, status, state_id_compensated_for, state_id_retried_for, gmt_started, encode(excep, 'escape') AS excep FROM ")
        .qualified(&state)
        .push(" WHERE machine_inst_id = ")
        .literal(id.as_bytes())
        .push(" ORDER BY gmt_started;"),
    )
}
