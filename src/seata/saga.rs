//! The saga state machine engine's store (its `db` store, `seata_state_machine_inst`,
//! `seata_state_inst` and `seata_state_machine_def` under the configured prefix) on
//! PostgreSQL: the instances that did not end — unknown, running, compensation failed,
//! unknown or running — with their business key, their machine and the states that
//! failed or did not finish. An instance's id is its global transaction's xid.

use super::store::{self, Problem};
use crate::pg::session::Session;
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
pub async fn inspect(session: &Session, prefix: &str) -> Result<Vec<Problem>> {
    let [inst, state, def] = tables(prefix);
    store::table_problems(
        session,
        &[
            (&inst, &INSTANCE_COLUMNS),
            (&state, &STATE_COLUMNS),
            (&def, &DEFINITION_COLUMNS),
        ],
    )
    .await
}

/// The instances that did not end: status unknown or running, or a compensation that
/// failed, is unknown or running; oldest first. The engine's schema has no index on
/// status, so this reads the instance table once; the states are read for the listed
/// instances only.
pub async fn read(session: &Session, prefix: &str, limit: i64) -> Result<Unended> {
    let [inst, state, def] = tables(prefix).map(|t| quote::qualified(&t));
    let instances = format!(
        "SELECT i.id, i.business_key, coalesce(d.name, i.machine_id), i.status,
       i.compensation_status, i.is_running, i.parent_id, i.gmt_started, i.gmt_updated,
       count(*) OVER (), localtimestamp
FROM {inst} AS i LEFT JOIN {def} AS d ON d.id = i.machine_id
WHERE i.status IN ('UN', 'RU') OR i.compensation_status IN ('FA', 'UN', 'RU')
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
        // One pass over the states of all listed instances (the key is (id,
        // machine_inst_id): no index starts with the instance). A compensation's name
        // for the state it compensates comes from the same instance's rows.
        let states = format!(
            "SELECT s.machine_inst_id, s.name, s.service_name, s.service_method, s.status,
       c.name, s.state_id_retried_for IS NOT NULL, s.gmt_started
FROM {state} AS s
LEFT JOIN {state} AS c ON c.machine_inst_id = s.machine_inst_id AND c.id = s.state_id_compensated_for
WHERE s.machine_inst_id = ANY($1::text[]) AND s.status <> 'SU'
ORDER BY s.machine_inst_id, s.gmt_started, s.id"
        );
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

/// The statement that shows one instance's states: read-only, to paste where the saga
/// store is.
pub fn instance_statement(prefix: &str, id: &str) -> quote::Sql {
    let [_, state, _] = tables(prefix);
    // excep is bytea (a serialized Java exception): its text as escaped bytes, not hex.
    quote::Sql::new("SELECT id, name, status, state_id_compensated_for, state_id_retried_for, gmt_started, encode(excep, 'escape') AS excep FROM ")
        .qualified(&state)
        .push(" WHERE machine_inst_id = ")
        .literal(id.as_bytes())
        .push(" ORDER BY gmt_started;")
}
