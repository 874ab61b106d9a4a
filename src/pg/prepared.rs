//! Reads prepared transactions with their locks and the sessions they block, from one diagnostic session.
//!
//! Lock attribution follows reference/postgres.md: a live prepared transaction keeps the
//! preparing session's virtual xid, and only a recovered one (after a restart) shows
//! `-1/<xid>`. Both hold their own `transactionid` lock with `pid IS NULL`, so we find that
//! row first and then every lock sharing its `virtualtransaction`.

use super::conninfo::ConnParams;
use super::session::{self, Session};
use super::{Gap, Grant};
use crate::gid::{self, DecodedGid};
use crate::global_tx::{GlobalId, GlobalTransaction};
use crate::text::{RawText, Text};
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

const PREPARED_SQL: &str = "\
SELECT p.gid, p.transaction::text::bigint, p.database::text, p.owner::text, p.prepared,
       extract(epoch FROM statement_timestamp() - p.prepared)::float8,
       age(p.transaction)::bigint
FROM pg_prepared_xacts p
WHERE cardinality($1::text[]) = 0 OR p.database = ANY($1::text[])
ORDER BY p.prepared, p.gid";

/// One row of `pg_prepared_xacts`, as read: what every view of a prepared transaction
/// starts from (`pg prepared`'s, a sibling branch's).
#[derive(Debug, Clone)]
pub struct PreparedRow {
    pub gid: RawText,
    pub xid: i64,
    pub database: RawText,
    /// None when the role that prepared it has been dropped since.
    pub owner: Option<RawText>,
    pub prepared_at: DateTime<Utc>,
    /// Server clock minus `prepared`.
    pub age_seconds: f64,
    /// `age(transaction)`.
    pub age_xids: i64,
}

/// The prepared transactions of the databases named (all of them when none is), oldest
/// first.
pub async fn rows(session: &Session, databases: &[String]) -> Result<Vec<PreparedRow>> {
    let filter: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&databases];
    let rows = session.query(PREPARED_SQL, &filter).await?;
    rows.iter()
        .map(|row| {
            Ok(PreparedRow {
                gid: row.try_get(0)?,
                xid: row.try_get(1)?,
                database: row.try_get(2)?,
                owner: row.try_get(3)?,
                prepared_at: row.try_get(4)?,
                age_seconds: row.try_get(5)?,
                age_xids: row.try_get(6)?,
            })
        })
        .collect()
}

/// The role that prepared it, or that it has been dropped since (the row says NULL).
pub fn owner_text(owner: &Option<RawText>) -> Text {
    match owner {
        Some(owner) => owner.into(),
        None => "(a role since dropped)".into(),
    }
}

const SERVER_SQL: &str = "\
SELECT statement_timestamp(), current_setting('max_prepared_transactions')::int,
       (SELECT oid FROM pg_database WHERE datname = current_database())";

/// Each prepared transaction's own `transactionid` lock row, whose virtualtransaction
/// then identifies all its locks (a vxid before a restart, `-1/<xid>` after one).
const OWNER_CTE: &str = "\
owner AS (
  SELECT p.gid, p.database, l.virtualtransaction
  FROM pg_prepared_xacts p
  JOIN pg_locks l ON l.locktype = 'transactionid' AND l.transactionid = p.transaction AND l.pid IS NULL)";

/// The locks held by each prepared transaction (of the databases asked for).
fn locks_sql() -> String {
    format!(
        "WITH {OWNER_CTE}
SELECT o.gid, l.locktype, l.mode, l.granted, l.database, d.datname::text, l.relation,
       l.transactionid::text, l.virtualtransaction
FROM owner o
JOIN pg_locks l ON l.virtualtransaction = o.virtualtransaction AND l.pid IS NULL
LEFT JOIN pg_database d ON d.oid = l.database
WHERE cardinality($1::text[]) = 0 OR o.database = ANY($1::text[])
ORDER BY o.gid, l.locktype, l.mode, l.relation"
    )
}

/// Lock modes that conflict (PostgreSQL's table-level conflict matrix; row and
/// transactionid waits use the same modes). A waiter is blamed only on a prepared
/// transaction holding a conflicting mode on the same object.
const CONFLICTS: &[(&str, &[&str])] = &[
    ("AccessShareLock", &["AccessExclusiveLock"]),
    ("RowShareLock", &["ExclusiveLock", "AccessExclusiveLock"]),
    (
        "RowExclusiveLock",
        &[
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
    (
        "ShareUpdateExclusiveLock",
        &[
            "ShareUpdateExclusiveLock",
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
    (
        "ShareLock",
        &[
            "RowExclusiveLock",
            "ShareUpdateExclusiveLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
    (
        "ShareRowExclusiveLock",
        &[
            "RowExclusiveLock",
            "ShareUpdateExclusiveLock",
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
    (
        "ExclusiveLock",
        &[
            "RowShareLock",
            "RowExclusiveLock",
            "ShareUpdateExclusiveLock",
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
    (
        "AccessExclusiveLock",
        &[
            "AccessShareLock",
            "RowShareLock",
            "RowExclusiveLock",
            "ShareUpdateExclusiveLock",
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock",
        ],
    ),
];

fn conflicts_values() -> String {
    CONFLICTS
        .iter()
        .flat_map(|(waiter, holders)| {
            holders
                .iter()
                .map(move |holder| format!("('{waiter}','{holder}')"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The victims this report is about: those of the prepared transactions kept, and, of the
/// unmatched ones, those in the databases asked for (all when none is). Victims of a
/// prepared transaction --database left out are not this report's, nor is an unmatched
/// victim in another database (its prepared transaction ended between the server's two
/// looks, as concurrent COMMIT PREPAREDs do).
fn scope_victims(
    blocked_by: &mut BTreeMap<Option<RawText>, Vec<(BlockedSession, u32)>>,
    kept: &BTreeSet<&RawText>,
    databases: &[String],
) {
    blocked_by.retain(|gid, _| gid.as_ref().is_none_or(|g| kept.contains(g)));
    if databases.is_empty() {
        return;
    }
    if let Some(unmatched) = blocked_by.get_mut(&None) {
        unmatched.retain(|(s, _)| {
            s.database
                .as_ref()
                .is_some_and(|d| databases.iter().any(|name| d.as_bytes() == name.as_bytes()))
        });
    }
}

/// Sessions the server says a prepared transaction blocks (blocker pid 0), matched to the
/// prepared transaction holding a granted, conflicting lock on the object they wait for.
fn blocked_sql() -> String {
    format!(
        "WITH {OWNER_CTE},
conflicts(waiter_mode, holder_mode) AS (VALUES {}),
waiting AS (
  SELECT w.* FROM pg_locks w
  WHERE NOT w.granted AND w.pid IS NOT NULL AND 0 = ANY(pg_blocking_pids(w.pid)))
SELECT DISTINCT w.pid, a.datname::text, a.usename::text, a.application_name, a.state,
       a.wait_event_type || ':' || a.wait_event,
       extract(epoch FROM statement_timestamp() - a.query_start)::float8,
       a.query, w.locktype, w.mode, w.database, w.relation, o.gid
FROM waiting w
LEFT JOIN pg_stat_activity a ON a.pid = w.pid
LEFT JOIN pg_locks h ON h.pid IS NULL AND h.granted
     AND h.locktype = w.locktype
     AND h.database IS NOT DISTINCT FROM w.database
     AND h.relation IS NOT DISTINCT FROM w.relation
     AND h.page IS NOT DISTINCT FROM w.page
     AND h.tuple IS NOT DISTINCT FROM w.tuple
     AND h.virtualxid IS NOT DISTINCT FROM w.virtualxid
     AND h.transactionid IS NOT DISTINCT FROM w.transactionid
     AND h.classid IS NOT DISTINCT FROM w.classid
     AND h.objid IS NOT DISTINCT FROM w.objid
     AND h.objsubid IS NOT DISTINCT FROM w.objsubid
     AND (w.mode, h.mode) IN (SELECT waiter_mode, holder_mode FROM conflicts)
LEFT JOIN owner o ON o.virtualtransaction = h.virtualtransaction
ORDER BY w.pid",
        conflicts_values()
    )
}

const RELATION_NAMES_SQL: &str = "\
SELECT c.oid, format('%I.%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = ANY($1::oid[])";

#[derive(Debug, Clone, Serialize)]
pub struct PreparedXact {
    /// Exact: a SQL_ASCII database can prepare a GID that is not UTF-8.
    pub gid: RawText,
    pub xid: i64,
    pub database: RawText,
    /// None when the role that prepared it has been dropped since.
    pub owner: Option<RawText>,
    pub prepared_at: DateTime<Utc>,
    /// Server clock minus `prepared`, at the time the snapshot was read.
    pub age_seconds: f64,
    /// `age(transaction)`: how many xids the horizon is held back by this transaction.
    pub age_xids: i64,
    pub decoded_gid: DecodedGid,
    /// The global transaction it is a branch of (XA format id and gtrid, or a Citus
    /// distributed transaction), shared by its siblings; None for other GIDs.
    pub global_transaction: Option<GlobalTransaction>,
    pub locks_by_mode: BTreeMap<String, usize>,
    pub locks: Vec<HeldLock>,
    pub blocked_sessions: Vec<BlockedSession>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HeldLock {
    pub locktype: String,
    pub mode: String,
    pub granted: bool,
    pub database: Option<RawText>,
    pub relation_oid: Option<u32>,
    /// Schema-qualified name, resolved in the lock's own database; None when that failed.
    pub relation: Option<RawText>,
    pub transactionid: Option<String>,
    /// `-1/<xid>` after a server restart, the preparing session's vxid before it.
    pub virtualtransaction: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlockedSession {
    pub pid: i32,
    pub database: Option<RawText>,
    pub user: Option<RawText>,
    pub application: Option<RawText>,
    /// None when the role may not see it (needs pg_read_all_stats).
    pub state: Option<String>,
    pub wait_event: Option<String>,
    pub query_seconds: Option<f64>,
    pub query: Option<RawText>,
    pub waits_for: LockWait,
}

#[derive(Debug, Clone, Serialize)]
pub struct LockWait {
    pub locktype: String,
    pub mode: String,
    pub relation_oid: Option<u32>,
    pub relation: Option<RawText>,
}

#[derive(Debug, Clone)]
pub struct PreparedSnapshot {
    pub server_time: DateTime<Utc>,
    pub max_prepared_transactions: i32,
    pub prepared_transactions: Vec<PreparedXact>,
    /// Sessions blocked by a prepared transaction we could not match to one.
    pub unattributed_blocked_sessions: Vec<BlockedSession>,
    /// What we could not see, and why.
    pub visibility_gaps: Vec<Gap>,
    /// Parts of the picture that could not be read at all (each becomes an UNKNOWN finding).
    pub unreadable: Vec<String>,
}

/// Reads the transactions, their locks and their victims, then names relations per database.
pub async fn collect(
    session: &Session,
    databases: &[String],
    timeout: Duration,
) -> Result<PreparedSnapshot> {
    let filter: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&databases];
    let (locks_sql, blocked_sql) = (locks_sql(), blocked_sql());
    // Sent together on one connection (pipelined); each statement sees its own snapshot
    // of the lock table, so a transaction finishing in between may lack its locks.
    let (xacts, server, locks, blocked) = tokio::join!(
        rows(session, databases),
        session.query(SERVER_SQL, &[]),
        session.query(&locks_sql, &filter),
        session.query(&blocked_sql, &[]),
    );
    let (xacts, server) = (xacts?, server?);
    // Without locks or victims the list itself is still true; say what is missing.
    let mut unreadable = Vec::new();
    let locks = locks.unwrap_or_else(|e| {
        unreadable.push(format!(
            "locks of prepared transactions could not be read: {e:#}"
        ));
        Vec::new()
    });
    let blocked = blocked.unwrap_or_else(|e| {
        unreadable.push(format!(
            "sessions blocked by prepared transactions could not be read: {e:#}"
        ));
        Vec::new()
    });
    let server = server
        .first()
        .ok_or_else(|| anyhow::anyhow!("server returned no clock row"))?;
    let current_db_oid: u32 = server.try_get(2)?;

    let mut held: BTreeMap<RawText, Vec<(HeldLock, u32)>> = BTreeMap::new();
    for row in &locks {
        let db_oid: Option<u32> = row.try_get(4)?;
        let lock = HeldLock {
            locktype: row.try_get(1)?,
            mode: row.try_get(2)?,
            granted: row.try_get(3)?,
            database: row.try_get(5)?,
            relation_oid: row.try_get(6)?,
            relation: None,
            transactionid: row.try_get(7)?,
            virtualtransaction: row.try_get(8)?,
        };
        held.entry(row.try_get(0)?)
            .or_default()
            .push((lock, db_oid.unwrap_or(0)));
    }

    let mut blocked_by: BTreeMap<Option<RawText>, Vec<(BlockedSession, u32)>> = BTreeMap::new();
    for row in &blocked {
        let db_oid: Option<u32> = row.try_get(10)?;
        let session_row = BlockedSession {
            pid: row.try_get(0)?,
            database: row.try_get(1)?,
            user: row.try_get(2)?,
            application: row.try_get(3)?,
            state: row.try_get(4)?,
            wait_event: row.try_get(5)?,
            query_seconds: row.try_get(6)?,
            query: super::redact_query(row.try_get(7)?),
            waits_for: LockWait {
                locktype: row.try_get(8)?,
                mode: row.try_get(9)?,
                relation_oid: row.try_get(11)?,
                relation: None,
            },
        };
        blocked_by
            .entry(row.try_get(12)?)
            .or_default()
            .push((session_row, db_oid.unwrap_or(0)));
    }

    let kept: BTreeSet<&RawText> = xacts.iter().map(|r| &r.gid).collect();
    scope_victims(&mut blocked_by, &kept, databases);

    // Relation oids only mean something inside their own database (0 = shared catalogs).
    let mut wanted: BTreeMap<u32, (Option<RawText>, BTreeSet<u32>)> = BTreeMap::new();
    for (lock, db) in held.values().flatten() {
        if let Some(rel) = lock.relation_oid {
            let entry = wanted.entry(*db).or_default();
            entry.0 = lock.database.clone();
            entry.1.insert(rel);
        }
    }
    for (s, db) in blocked_by.values().flatten() {
        if let Some(rel) = s.waits_for.relation_oid {
            let entry = wanted.entry(*db).or_default();
            if entry.0.is_none() {
                entry.0 = s.database.clone();
            }
            entry.1.insert(rel);
        }
    }
    let mut gaps = Vec::new();
    let names = relation_names(session, current_db_oid, wanted, timeout, &mut gaps).await;
    let name_of = |db: u32, rel: Option<u32>| rel.and_then(|r| names.get(&(db, r)).cloned());

    let mut prepared = Vec::with_capacity(xacts.len());
    for row in xacts {
        let gid = row.gid;
        let locks: Vec<HeldLock> = held
            .remove(&gid)
            .unwrap_or_default()
            .into_iter()
            .map(|(mut lock, db)| {
                lock.relation = name_of(db, lock.relation_oid);
                lock
            })
            .collect();
        let mut locks_by_mode = BTreeMap::new();
        for lock in &locks {
            *locks_by_mode.entry(lock.mode.clone()).or_insert(0) += 1;
        }
        let blocked_sessions = named_sessions(
            blocked_by.remove(&Some(gid.clone())).unwrap_or_default(),
            &name_of,
        );
        let decoded_gid = gid::decode_raw(&gid);
        prepared.push(PreparedXact {
            global_transaction: GlobalTransaction::of(&gid, &decoded_gid),
            decoded_gid,
            gid,
            xid: row.xid,
            database: row.database,
            owner: row.owner,
            prepared_at: row.prepared_at,
            age_seconds: row.age_seconds,
            age_xids: row.age_xids,
            locks_by_mode,
            locks,
            blocked_sessions,
        });
    }
    count_branches(&mut prepared);
    // Sessions attributed to a prepared transaction that was filtered out by --database
    // are that transaction's business; only truly unmatched ones are reported here.
    let unattributed = named_sessions(blocked_by.remove(&None).unwrap_or_default(), &name_of);
    if !session.info.reads_all_stats && prepared.iter().any(|p| !p.blocked_sessions.is_empty()) {
        gaps.push(Gap::MissingPrivilege {
            what: "state and query text of other users' sessions are hidden".into(),
            grant: Grant::ReadAllStats,
        });
    }
    Ok(PreparedSnapshot {
        server_time: server.try_get(0)?,
        max_prepared_transactions: server.try_get(1)?,
        prepared_transactions: prepared,
        unattributed_blocked_sessions: unattributed,
        visibility_gaps: gaps,
        unreadable,
    })
}

/// How many of the transactions read are branches of each one's global transaction
/// (matched by the whole identity, not by the short key).
fn count_branches(prepared: &mut [PreparedXact]) {
    let ids: Vec<GlobalId> = prepared
        .iter()
        .map(|x| GlobalId::of(&x.gid, &x.decoded_gid))
        .collect();
    let mut counts: HashMap<&GlobalId, usize> = HashMap::new();
    for id in &ids {
        *counts.entry(id).or_insert(0) += 1;
    }
    for (xact, id) in prepared.iter_mut().zip(&ids) {
        if let Some(global) = xact.global_transaction.as_mut() {
            global.branches = counts.get(id).copied().unwrap_or(1);
        }
    }
}

fn named_sessions(
    sessions: Vec<(BlockedSession, u32)>,
    name_of: &impl Fn(u32, Option<u32>) -> Option<RawText>,
) -> Vec<BlockedSession> {
    sessions
        .into_iter()
        .map(|(mut s, db)| {
            s.waits_for.relation = name_of(db, s.waits_for.relation_oid);
            s
        })
        .collect()
}

/// Names relations by (database oid, relation oid), connecting to each other database
/// concurrently. A database we cannot enter leaves its names unresolved and a gap noted.
async fn relation_names(
    session: &Session,
    current_db_oid: u32,
    wanted: BTreeMap<u32, (Option<RawText>, BTreeSet<u32>)>,
    timeout: Duration,
    gaps: &mut Vec<Gap>,
) -> BTreeMap<(u32, u32), RawText> {
    let mut names = BTreeMap::new();
    let mut others = tokio::task::JoinSet::new();
    for (db_oid, (datname, oids)) in wanted {
        let oids: Vec<u32> = oids.into_iter().collect();
        if db_oid == current_db_oid || db_oid == 0 {
            match lookup(session, &oids).await {
                Ok(found) => names.extend(found.into_iter().map(|(oid, n)| ((db_oid, oid), n))),
                Err(e) => gaps.push(Gap::Unread(
                    format!("relation names not resolved: {e:#}").into(),
                )),
            }
            continue;
        }
        let Some(datname) = datname else { continue };
        // A connection names its database in UTF-8; a name that is not cannot be entered.
        let Some(utf8_name) = datname.as_str() else {
            gaps.push(Gap::Unread(crate::text![
                "relation names in database \"",
                datname,
                "\" not resolved (shown as oids): its name is not UTF-8, so indoubt cannot connect to it"
            ]));
            continue;
        };
        let params: ConnParams = session.params.with_dbname(utf8_name);
        others.spawn(async move {
            let result = async {
                let other = session::connect(&params, timeout).await?;
                lookup(&other, &oids).await
            }
            .await;
            (db_oid, datname, result)
        });
    }
    while let Some(joined) = others.join_next().await {
        match joined {
            Ok((db_oid, _, Ok(found))) => {
                names.extend(found.into_iter().map(|(oid, n)| ((db_oid, oid), n)))
            }
            Ok((_, datname, Err(e))) => gaps.push(Gap::Unread(crate::text![
                "relation names in database \"",
                datname,
                "\" not resolved (shown as oids): ",
                format!("{e:#}"),
                "; the role needs CONNECT on it"
            ])),
            Err(e) => gaps.push(Gap::Unread(
                format!("relation name lookup failed: {e}").into(),
            )),
        }
    }
    names
}

async fn lookup(session: &Session, oids: &[u32]) -> Result<Vec<(u32, RawText)>> {
    let rows = session.query(RELATION_NAMES_SQL, &[&oids]).await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn victim(pid: i32, database: &str) -> (BlockedSession, u32) {
        let session = BlockedSession {
            pid,
            database: Some(RawText::from(database)),
            user: None,
            application: None,
            state: None,
            wait_event: None,
            query_seconds: None,
            query: None,
            waits_for: LockWait {
                locktype: "transactionid".into(),
                mode: "ShareLock".into(),
                relation_oid: None,
                relation: None,
            },
        };
        (session, 0)
    }

    #[test]
    fn database_scopes_the_victims_matched_or_not() {
        let ours = RawText::from("131077_orders_4711");
        let theirs = RawText::from("other_db_gid");
        let mut blocked_by = BTreeMap::new();
        blocked_by.insert(Some(ours.clone()), vec![victim(1, "shop")]);
        blocked_by.insert(Some(theirs), vec![victim(2, "billing")]);
        blocked_by.insert(None, vec![victim(3, "shop"), victim(4, "billing")]);
        let kept: BTreeSet<&RawText> = [&ours].into_iter().collect();
        let mut scoped = blocked_by.clone();
        scope_victims(&mut scoped, &kept, &["shop".to_string()]);
        let pids = |m: &BTreeMap<Option<RawText>, Vec<(BlockedSession, u32)>>| {
            m.values().flatten().map(|(s, _)| s.pid).collect::<Vec<_>>()
        };
        assert_eq!(
            pids(&scoped),
            [3, 1],
            "billing's victims, matched or not, are not shop's"
        );
        // With no --database every unmatched victim is reported.
        scope_victims(&mut blocked_by, &kept, &[]);
        assert_eq!(pids(&blocked_by), [3, 4, 1]);
    }
}
