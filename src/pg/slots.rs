//! Reads replication slots with version-aware SQL (PG13–18), retained WAL on a primary or a standby.

use super::session::Session;
use super::{Gap, Grant};
use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The WAL position slots are measured against: the current insert position on a
/// primary; what has been received (else replayed) on a standby, where
/// pg_current_wal_lsn() fails.
/// (Received, or replayed when that is further: streaming may have stopped while replay
/// goes on from the archive.)
const CURRENT_LSN: &str = "CASE WHEN pg_is_in_recovery() \
     THEN greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) \
     ELSE pg_current_wal_lsn() END";

/// Columns that exist only from some version on, read as NULL before it.
const VERSIONED_COLUMNS: &[(i32, &str, &str)] = &[
    (140000, "two_phase", "boolean"),
    (160000, "conflicting", "boolean"),
    (170000, "invalidation_reason", "text"),
    (170000, "inactive_since", "timestamptz"),
    (170000, "failover", "boolean"),
    (170000, "synced", "boolean"),
];

/// An SQL condition on pg_replication_slots (aliased `alias`) that holds for a slot the
/// server has invalidated: `wal_status = 'lost'` on every version, `conflicting` on 16
/// (set for any invalidation there, WAL removal included), `invalidation_reason` from 17.
/// The server computes the horizon without invalidated slots, whatever xmin and
/// catalog_xmin they still show (seen on 14.23, 15.18, 16.14, 17.10 and 18.4).
pub fn invalidated_sql(version_num: i32, alias: &str) -> String {
    let mut any = vec![format!("{alias}.wal_status IS NOT DISTINCT FROM 'lost'")];
    if version_num >= 160000 {
        any.push(format!("{alias}.conflicting IS TRUE"));
    }
    if version_num >= 170000 {
        any.push(format!("{alias}.invalidation_reason IS NOT NULL"));
    }
    format!("({})", any.join(" OR "))
}

pub fn slots_sql(version_num: i32) -> String {
    let versioned: Vec<String> = VERSIONED_COLUMNS
        .iter()
        .map(|(since, column, ty)| {
            if version_num >= *since {
                format!("s.{column}")
            } else {
                format!("NULL::{ty} AS {column}")
            }
        })
        .collect();
    format!(
        "SELECT s.slot_name::text, s.plugin::text, s.slot_type, s.database::text, s.temporary, s.active,
       s.active_pid, s.xmin::text::bigint, age(s.xmin), s.catalog_xmin::text::bigint, age(s.catalog_xmin),
       s.restart_lsn::text, s.confirmed_flush_lsn::text, s.wal_status, s.safe_wal_size,
       pg_wal_lsn_diff({CURRENT_LSN}, s.restart_lsn)::bigint,
       {}
FROM pg_replication_slots s ORDER BY s.slot_name",
        versioned.join(", ")
    )
}

const CLUSTER_SQL: &str = "\
SELECT statement_timestamp(), pg_is_in_recovery(),
       (SELECT setting::bigint FROM pg_settings WHERE name = 'max_slot_wal_keep_size')";

/// Needs superuser or pg_monitor; a refusal is reported, not fatal.
const WAL_DIR_SQL: &str = "SELECT coalesce(sum(size), 0)::bigint, count(*) FROM pg_ls_waldir()";

#[derive(Debug, Clone, Serialize)]
pub struct Slot {
    pub name: String,
    pub plugin: Option<String>,
    pub slot_type: String,
    pub database: Option<crate::text::RawText>,
    pub temporary: bool,
    pub active: bool,
    pub active_pid: Option<i32>,
    pub xmin: Option<i64>,
    pub xmin_age: Option<i32>,
    pub catalog_xmin: Option<i64>,
    pub catalog_xmin_age: Option<i32>,
    pub restart_lsn: Option<String>,
    pub confirmed_flush_lsn: Option<String>,
    /// reserved, extended, unreserved or lost.
    pub wal_status: Option<String>,
    pub safe_wal_size: Option<i64>,
    /// WAL kept for this slot: current (or received) LSN minus restart_lsn.
    pub retained_bytes: Option<i64>,
    /// PG14+; null on older servers.
    pub two_phase: Option<bool>,
    /// PG16+.
    pub conflicting: Option<bool>,
    /// PG17+.
    pub invalidation_reason: Option<String>,
    pub inactive_since: Option<DateTime<Utc>>,
    pub failover: Option<bool>,
    pub synced: Option<bool>,
}

impl Slot {
    /// Invalidated by the server (see `invalidated_sql`): it holds back neither WAL nor
    /// any horizon, and its consumer cannot continue from it.
    pub fn invalidated(&self) -> bool {
        self.wal_status.as_deref() == Some("lost")
            || self.conflicting == Some(true)
            || self.invalidation_reason.is_some()
    }

    /// Kept by the slot sync worker of a PG17+ standby from the primary's failover slot:
    /// managed there, exempt from this server's WAL limits, its inactive_since reset at
    /// every sync cycle.
    pub fn synced(&self) -> bool {
        self.synced == Some(true)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SlotsSnapshot {
    pub server_time: DateTime<Utc>,
    pub in_recovery: bool,
    /// In MB as the server stores it; -1 means unlimited (the default).
    pub max_slot_wal_keep_size_mb: i64,
    /// Total size of pg_wal; null when the role may not list it.
    pub pg_wal_bytes: Option<i64>,
    pub pg_wal_files: Option<i64>,
    pub slots: Vec<Slot>,
    /// What the role could not see: the application words it (and puts it in the JSON).
    #[serde(skip)]
    pub visibility_gaps: Vec<Gap>,
}

pub async fn collect(session: &Session) -> Result<SlotsSnapshot> {
    let sql = slots_sql(session.info.version_num);
    let (cluster, slots, waldir) = tokio::join!(
        session.query(CLUSTER_SQL, &[]),
        session.query(&sql, &[]),
        session.query(WAL_DIR_SQL, &[]),
    );
    let (cluster, slots) = (cluster?, slots?);
    let cluster = cluster
        .first()
        .ok_or_else(|| anyhow::anyhow!("server returned no settings row"))?;
    let mut visibility_gaps = Vec::new();
    let (pg_wal_bytes, pg_wal_files) = match waldir {
        Ok(rows) => match rows.first() {
            Some(row) => (Some(row.try_get(0)?), Some(row.try_get(1)?)),
            None => (None, None),
        },
        Err(e) => {
            visibility_gaps.push(Gap::MissingPrivilege {
                what: format!("size of pg_wal not read ({e:#})").into(),
                grant: Grant::Monitor,
            });
            (None, None)
        }
    };
    let slots = slots
        .iter()
        .map(|r| {
            Ok(Slot {
                name: r.try_get(0)?,
                plugin: r.try_get(1)?,
                slot_type: r.try_get(2)?,
                database: r.try_get(3)?,
                temporary: r.try_get(4)?,
                active: r.try_get(5)?,
                active_pid: r.try_get(6)?,
                xmin: r.try_get(7)?,
                xmin_age: r.try_get(8)?,
                catalog_xmin: r.try_get(9)?,
                catalog_xmin_age: r.try_get(10)?,
                restart_lsn: r.try_get(11)?,
                confirmed_flush_lsn: r.try_get(12)?,
                wal_status: r.try_get(13)?,
                safe_wal_size: r.try_get(14)?,
                retained_bytes: r.try_get(15)?,
                two_phase: r.try_get(16)?,
                conflicting: r.try_get(17)?,
                invalidation_reason: r.try_get(18)?,
                inactive_since: r.try_get(19)?,
                failover: r.try_get(20)?,
                synced: r.try_get(21)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SlotsSnapshot {
        server_time: cluster.try_get(0)?,
        in_recovery: cluster.try_get(1)?,
        max_slot_wal_keep_size_mb: cluster.try_get(2)?,
        pg_wal_bytes,
        pg_wal_files,
        slots,
        visibility_gaps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_server_version() {
        let v13 = slots_sql(130012);
        assert!(v13.contains("NULL::boolean AS two_phase"));
        assert!(v13.contains("NULL::timestamptz AS inactive_since"));
        assert!(v13.contains("s.wal_status, s.safe_wal_size"));
        let v15 = slots_sql(150018);
        assert!(v15.contains("s.two_phase") && v15.contains("NULL::boolean AS conflicting"));
        let v16 = slots_sql(160004);
        assert!(v16.contains("s.conflicting") && v16.contains("NULL::text AS invalidation_reason"));
        for v in [170000, 180001] {
            let sql = slots_sql(v);
            for column in [
                "s.invalidation_reason",
                "s.inactive_since",
                "s.failover",
                "s.synced",
            ] {
                assert!(sql.contains(column), "{v}: {column}");
            }
            assert!(!sql.contains("NULL::"), "{v}");
        }
    }

    #[test]
    fn invalidation_follows_the_server_version() {
        assert_eq!(
            invalidated_sql(150000, "s"),
            "(s.wal_status IS NOT DISTINCT FROM 'lost')"
        );
        assert!(invalidated_sql(160000, "s").contains("s.conflicting IS TRUE"));
        assert!(!invalidated_sql(160000, "s").contains("invalidation_reason"));
        assert!(invalidated_sql(180000, "r").contains("r.invalidation_reason IS NOT NULL"));
    }

    #[test]
    fn retained_wal_is_measured_on_standbys_too() {
        assert!(slots_sql(150000)
            .contains("greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())"));
    }
}
