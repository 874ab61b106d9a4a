//! Who holds back the xmin horizon, how close each database is to wraparound, and where dead tuples pile up.

use super::session::{self, Session};
use super::{Gap, Grant};
use crate::text::RawText;
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::time::Duration;

/// Databases whose dead tuples are read at the same time (each is a connection).
const DEAD_TUPLE_CONCURRENCY: usize = 8;
/// Tables listed per database.
const DEAD_TUPLE_TOP: i64 = 5;

/// Every holder of an xmin, in one statement (so all ages are against one snapshot).
/// Walsenders are taken from pg_stat_replication only (physical ones: the server ignores
/// a logical walsender's xmin), parallel workers through their leader, and autovacuum's
/// VACUUM is left out (the server ignores it).
/// Where each xmin counts (`pins`) follows ComputeXidHorizons (procarray.c, 14+): a
/// backend's or prepared transaction's only in its own database (and the shared
/// catalogs), a backend with no database's only in the shared catalogs, a slot's xmin and
/// a physical walsender's feedback in every database, a slot's catalog_xmin in the
/// catalogs of every database. A standby runs no vacuum: there everything counts together
/// and reaches the primary's every database only through hot_standby_feedback.
/// Ties in age go to the likelier root cause (`rank`): a slot's or a standby's xmin is
/// often a copy of the prepared transaction or session that was oldest when it was taken.
/// indoubt's own sessions mid-statement (`check` runs its checks side by side) hold an
/// xmin for milliseconds and are never the answer.
/// Invalidated slots are no holders: the server leaves them out of the horizon, though
/// they still show their xmin and catalog_xmin (`pg slots` reports them as lost). A slot
/// synced to a PG17+ standby is `synced`, and has no age in time: its inactive_since
/// restarts at every sync cycle.
fn holders_sql(version_num: i32) -> String {
    let (slot_since, slot_state) = if version_num >= 170000 {
        (
            "CASE WHEN synced THEN NULL ELSE inactive_since END",
            "CASE WHEN synced THEN 'synced' WHEN active THEN 'active' ELSE 'inactive' END",
        )
    } else {
        (
            "NULL::timestamptz",
            "CASE WHEN active THEN 'active' ELSE 'inactive' END",
        )
    };
    // On a standby nothing is vacuumed: an xmin counts only as the feedback it sends.
    let pins = |on_primary: &str, with_feedback: &str| {
        format!(
            "CASE WHEN NOT pg_is_in_recovery() THEN {on_primary} \
             WHEN current_setting('hot_standby_feedback')::bool THEN '{with_feedback}' ELSE 'nothing' END"
        )
    };
    let session_pins = pins(
        "CASE WHEN a.datid IS NULL THEN 'shared_catalogs' ELSE 'own_database' END",
        "all_databases",
    );
    let prepared_pins = pins("'own_database'", "all_databases");
    let all_pins = pins("'all_databases'", "all_databases");
    let catalog_pins = pins("'catalogs_of_all_databases'", "catalogs_of_all_databases");
    let valid = format!(
        "NOT {}",
        super::slots::invalidated_sql(version_num, "pg_replication_slots")
    );
    format!(
        "WITH h AS (
  SELECT CASE WHEN a.state LIKE 'idle in transaction%' THEN 'idle_in_transaction' ELSE 'session' END AS kind,
         a.pid::text AS id, a.datname::text AS database, a.usename::text AS who, a.application_name AS application,
         a.client_addr::text AS client, a.state, a.backend_type, a.xact_start AS since, a.query_start,
         left(a.query, 300) AS query, a.backend_xid AS xid, a.backend_xmin AS xmin,
         {session_pins} AS pins, 3 AS rank
  FROM pg_stat_activity a
  WHERE a.pid <> pg_backend_pid() AND coalesce(a.backend_xid, a.backend_xmin) IS NOT NULL
    AND a.pid NOT IN (SELECT pid FROM pg_stat_replication) AND a.leader_pid IS NULL
    AND NOT (a.application_name = 'indoubt' AND a.state = 'active')
    AND NOT (a.backend_type IS NOT DISTINCT FROM 'autovacuum worker' AND a.query LIKE 'autovacuum: VACUUM%')
  UNION ALL
  SELECT 'prepared', gid, database::text, owner::text, NULL, NULL, NULL, NULL, prepared, NULL, NULL,
         transaction, NULL, {prepared_pins}, 1
  FROM pg_prepared_xacts
  UNION ALL
  SELECT 'slot_xmin', slot_name::text, database::text, NULL, slot_type, NULL,
         {slot_state}, NULL, {slot_since}, NULL, NULL, NULL, xmin, {all_pins}, 4
  FROM pg_replication_slots WHERE xmin IS NOT NULL AND {valid}
  UNION ALL
  SELECT 'slot_catalog_xmin', slot_name::text, database::text, NULL, slot_type, NULL,
         {slot_state}, NULL, {slot_since}, NULL, NULL, NULL, catalog_xmin, {catalog_pins}, 5
  FROM pg_replication_slots WHERE catalog_xmin IS NOT NULL AND {valid}
  UNION ALL
    SELECT 'standby_feedback', r.pid::text, NULL, r.usename::text, r.application_name, r.client_addr::text, r.state,
         NULL, NULL::timestamptz, NULL, NULL, NULL, r.backend_xmin, {all_pins}, 6
  FROM pg_stat_replication r
  WHERE r.backend_xmin IS NOT NULL
    AND r.pid IN (SELECT pid FROM pg_stat_activity WHERE datid IS NULL))
SELECT kind, id, database, who, application, client, state, backend_type, since, query_start, query,
       xid::text::bigint, xmin::text::bigint, greatest(age(xid), age(xmin)),
       extract(epoch FROM statement_timestamp() - since)::float8, pins,
       (CASE WHEN xid IS NOT NULL AND (xmin IS NULL OR age(xid) >= age(xmin)) THEN xid ELSE xmin END)::text::bigint
FROM h ORDER BY 14 DESC NULLS LAST, rank, since NULLS LAST, 2"
    )
}

fn settings_sql(version_num: i32) -> String {
    let failsafe = if version_num >= 140000 {
        "current_setting('vacuum_failsafe_age')::bigint, current_setting('vacuum_multixact_failsafe_age')::bigint"
    } else {
        "NULL::bigint, NULL::bigint"
    };
    format!(
        "SELECT statement_timestamp(), pg_is_in_recovery(),
       current_setting('autovacuum_freeze_max_age')::bigint,
       current_setting('autovacuum_multixact_freeze_max_age')::bigint, {failsafe},
       current_setting('hot_standby_feedback')::bool"
    )
}

const DATABASES_SQL: &str = "\
SELECT datname::text, datallowconn, coalesce(has_database_privilege(oid, 'CONNECT'), false),
       age(datfrozenxid), mxid_age(datminmxid)
FROM pg_database ORDER BY 4 DESC, 1";

const DEAD_TUPLES_SQL: &str = "\
SELECT schemaname::text, relname::text, n_dead_tup, n_live_tup, last_vacuum, last_autovacuum
FROM pg_stat_user_tables WHERE n_dead_tup > 0
ORDER BY n_dead_tup DESC, 1, 2 LIMIT $1";

#[derive(Debug, Clone, Serialize)]
pub struct Holder {
    /// session, idle_in_transaction, prepared, slot_xmin, slot_catalog_xmin, standby_feedback.
    pub kind: String,
    /// pid, gid or slot name.
    pub id: RawText,
    pub database: Option<RawText>,
    /// Where its xmin counts when vacuum computes what it may remove.
    pub pins: Pins,
    pub user: Option<RawText>,
    /// Application name; for slots the slot type.
    pub application: Option<RawText>,
    pub client: Option<String>,
    pub state: Option<String>,
    pub backend_type: Option<String>,
    /// Transaction start, prepare time, slot inactive_since (PG17+), walsender start.
    pub since: Option<DateTime<Utc>>,
    pub query_start: Option<DateTime<Utc>>,
    pub query: Option<RawText>,
    pub xid: Option<i64>,
    pub xmin: Option<i64>,
    /// The older of xid and xmin: what it holds the horizon at.
    pub held_xid: Option<i64>,
    pub age_xids: Option<i32>,
    pub age_seconds: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pins {
    /// Tables and catalogs of its own database (and the shared catalogs).
    OwnDatabase,
    /// Every database.
    AllDatabases,
    /// The system catalogs of every database (a logical slot's catalog_xmin).
    CatalogsOfAllDatabases,
    /// Only the catalogs shared by all databases (a backend connected to no database).
    SharedCatalogs,
    /// Nothing: on a standby with hot_standby_feedback off, no xmin reaches the primary.
    Nothing,
}

impl Pins {
    fn parse(text: &str) -> Result<Pins> {
        Ok(match text {
            "own_database" => Pins::OwnDatabase,
            "all_databases" => Pins::AllDatabases,
            "catalogs_of_all_databases" => Pins::CatalogsOfAllDatabases,
            "shared_catalogs" => Pins::SharedCatalogs,
            "nothing" => Pins::Nothing,
            other => anyhow::bail!("unexpected holder scope {other:?}"),
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DatabaseAge {
    pub database: RawText,
    /// false for template0: nobody connects, so nothing there holds or is vacuumed.
    pub allows_connections: bool,
    pub datfrozenxid_age: i32,
    pub datminmxid_age: i32,
    /// Transactions that can still be assigned before the server stops accepting them.
    pub xids_left: i64,
    pub percent_of_autovacuum_freeze_max_age: f64,
    /// Null before PG14 (no failsafe).
    pub failsafe_reached: Option<bool>,
    pub dead_tuples: Vec<DeadTuples>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeadTuples {
    /// `schema.table`.
    pub table: RawText,
    pub n_dead_tup: i64,
    pub n_live_tup: i64,
    pub last_vacuum: Option<DateTime<Utc>>,
    pub last_autovacuum: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    pub autovacuum_freeze_max_age: i64,
    pub autovacuum_multixact_freeze_max_age: i64,
    pub vacuum_failsafe_age: Option<i64>,
    pub vacuum_multixact_failsafe_age: Option<i64>,
    /// Margin at which xid assignment stops (3M since PG14, 1M before).
    pub stop_margin_xids: i64,
    /// On a standby: whether its xmin reaches the primary.
    pub hot_standby_feedback: bool,
}

#[derive(Debug, Clone)]
pub struct HorizonSnapshot {
    pub server_time: DateTime<Utc>,
    pub in_recovery: bool,
    pub settings: Settings,
    /// Ranked by age, oldest (the culprit) first.
    pub holders: Vec<Holder>,
    pub databases: Vec<DatabaseAge>,
    pub visibility_gaps: Vec<Gap>,
}

pub async fn collect(session: &Session, timeout: Duration) -> Result<HorizonSnapshot> {
    let version = session.info.version_num;
    let (holders_sql, settings_sql) = (holders_sql(version), settings_sql(version));
    let (holders, settings, databases) = tokio::try_join!(
        session.query(&holders_sql, &[]),
        session.query(&settings_sql, &[]),
        session.query(DATABASES_SQL, &[]),
    )?;
    let settings_row = settings
        .first()
        .ok_or_else(|| anyhow::anyhow!("server returned no settings row"))?;
    let settings = Settings {
        autovacuum_freeze_max_age: settings_row.try_get(2)?,
        autovacuum_multixact_freeze_max_age: settings_row.try_get(3)?,
        vacuum_failsafe_age: settings_row.try_get(4)?,
        vacuum_multixact_failsafe_age: settings_row.try_get(5)?,
        hot_standby_feedback: settings_row.try_get(6)?,
        stop_margin_xids: if version >= 140000 {
            3_000_000
        } else {
            1_000_000
        },
    };
    let mut visibility_gaps = Vec::new();
    let holders = holders
        .iter()
        .map(|r| {
            let pins: String = r.try_get(15)?;
            Ok(Holder {
                kind: r.try_get(0)?,
                pins: Pins::parse(&pins)?,
                id: r.try_get(1)?,
                database: r.try_get(2)?,
                user: r.try_get(3)?,
                application: r.try_get(4)?,
                client: r.try_get(5)?,
                state: r.try_get(6)?,
                backend_type: r.try_get(7)?,
                since: r.try_get(8)?,
                query_start: r.try_get(9)?,
                query: super::redact_query(r.try_get(10)?),
                xid: r.try_get(11)?,
                xmin: r.try_get(12)?,
                held_xid: r.try_get(16)?,
                age_xids: r.try_get(13)?,
                age_seconds: r.try_get(14)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if !session.info.reads_all_stats
        && holders
            .iter()
            .any(|h| h.kind == "session" && h.state.is_none())
    {
        visibility_gaps.push(Gap::MissingPrivilege {
            what: "state, transaction start and query of other users' sessions are hidden, so idle-in-transaction \
                   sessions (and autovacuum workers) show as plain sessions without an age in time"
                .into(),
            grant: Grant::ReadAllStats,
        });
    }

    let mut ages = Vec::with_capacity(databases.len());
    let mut readable = Vec::new();
    for row in &databases {
        let database: RawText = row.try_get(0)?;
        let allow_conn: bool = row.try_get(1)?;
        let may_connect: bool = row.try_get(2)?;
        let frozen_age: i32 = row.try_get(3)?;
        let mxid_age: i32 = row.try_get(4)?;
        // As vacuum.c: strictly past the larger of the setting and 105% of the freeze max age.
        let past = |age: i32, failsafe: Option<i64>, freeze_max: i64| {
            failsafe.map(|f| i64::from(age) > f.max(freeze_max * 105 / 100))
        };
        let failsafe_reached = match (
            past(
                frozen_age,
                settings.vacuum_failsafe_age,
                settings.autovacuum_freeze_max_age,
            ),
            past(
                mxid_age,
                settings.vacuum_multixact_failsafe_age,
                settings.autovacuum_multixact_freeze_max_age,
            ),
        ) {
            (Some(xid), Some(mxid)) => Some(xid || mxid),
            _ => None,
        };
        ages.push(DatabaseAge {
            xids_left: i64::from(i32::MAX) - i64::from(frozen_age) - settings.stop_margin_xids,
            percent_of_autovacuum_freeze_max_age: f64::from(frozen_age) * 100.0
                / settings.autovacuum_freeze_max_age.max(1) as f64,
            failsafe_reached,
            datfrozenxid_age: frozen_age,
            datminmxid_age: mxid_age,
            dead_tuples: Vec::new(),
            database: database.clone(),
            allows_connections: allow_conn,
        });
        if !allow_conn {
            continue; // template0: nobody may connect, nothing to report
        }
        if !may_connect {
            visibility_gaps.push(Gap::MissingPrivilege {
                what: crate::text!["dead tuples of database \"", database, "\" not read"],
                grant: Grant::Connect(database.clone()),
            });
        } else if let Some(name) = database.as_str() {
            readable.push(name.to_string());
        } else {
            // A connection names its database in UTF-8.
            visibility_gaps.push(Gap::Unread(crate::text![
                "dead tuples of database \"",
                database,
                "\" not read: its name is not UTF-8, so indoubt cannot connect to it"
            ]));
        }
    }

    for (database, result) in dead_tuples(session, readable, timeout).await {
        match result {
            Ok(tables) => {
                if let Some(age) = ages.iter_mut().find(|a| a.database == database.as_str()) {
                    age.dead_tuples = tables;
                }
            }
            Err(e) => visibility_gaps.push(Gap::Unread(
                format!("dead tuples of database \"{database}\" not read: {e:#}").into(),
            )),
        }
    }
    Ok(HorizonSnapshot {
        server_time: settings_row.try_get(0)?,
        in_recovery: settings_row.try_get(1)?,
        settings,
        holders,
        databases: ages,
        visibility_gaps,
    })
}

/// Reads pg_stat_user_tables of each database, a bounded number at a time.
async fn dead_tuples(
    session: &Session,
    databases: Vec<String>,
    timeout: Duration,
) -> Vec<(String, Result<Vec<DeadTuples>>)> {
    let mut results = Vec::with_capacity(databases.len());
    let mut pending = databases.into_iter();
    let mut running = tokio::task::JoinSet::new();
    loop {
        while running.len() < DEAD_TUPLE_CONCURRENCY {
            let Some(database) = pending.next() else {
                break;
            };
            let params = session.params.with_dbname(&database);
            running.spawn(async move {
                let result = async {
                    let db = session::connect(&params, timeout).await?;
                    let rows = db.query(DEAD_TUPLES_SQL, &[&DEAD_TUPLE_TOP]).await?;
                    rows.iter()
                        .map(|r| {
                            let schema: RawText = r.try_get(0)?;
                            let table: RawText = r.try_get(1)?;
                            let mut name = schema.as_bytes().to_vec();
                            name.push(b'.');
                            name.extend_from_slice(table.as_bytes());
                            Ok(DeadTuples {
                                table: RawText::from(name),
                                n_dead_tup: r.try_get(2)?,
                                n_live_tup: r.try_get(3)?,
                                last_vacuum: r.try_get(4)?,
                                last_autovacuum: r.try_get(5)?,
                            })
                        })
                        .collect::<Result<Vec<_>>>()
                }
                .await;
                (database, result)
            });
        }
        match running.join_next().await {
            Some(Ok(done)) => results.push(done),
            Some(Err(e)) => {
                results.push((String::from("?"), Err(anyhow::anyhow!("task failed: {e}"))))
            }
            None => break,
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_specific_parts() {
        assert!(holders_sql(130000).contains("NULL::timestamptz, NULL, NULL, NULL, xmin"));
        assert!(holders_sql(170000).contains("ELSE inactive_since END, NULL, NULL, NULL, xmin"));
        assert!(holders_sql(170000).contains("WHEN synced THEN 'synced'"));
        assert!(holders_sql(140000)
            .contains("xmin IS NOT NULL AND NOT (pg_replication_slots.wal_status"));
        assert!(settings_sql(130000).contains("NULL::bigint, NULL::bigint"));
        assert!(settings_sql(140000).contains("vacuum_failsafe_age"));
    }

    #[test]
    fn holders_exclude_noise_the_server_ignores() {
        let sql = holders_sql(150000);
        assert!(sql.contains("NOT IN (SELECT pid FROM pg_stat_replication)"));
        assert!(sql.contains("'autovacuum: VACUUM%'"));
        assert!(sql.contains("pg_backend_pid()"));
    }
}
