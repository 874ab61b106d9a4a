//! Sibling branches on one server: the prepared transactions of all its databases that
//! belong to the same global transaction as a given one, and which cluster the server is,
//! so that a branch reached through two targets is known to be one branch.
//!
//! A GID is unique within a cluster, and a physical standby holds its primary's prepared
//! transactions (same system identifier, same GIDs): a branch is one branch per
//! (system identifier, GID), whichever server of the cluster it was read on.

use super::prepared::PreparedRow;
use super::session::Session;
use crate::gid;
use crate::global_tx::{GlobalId, Recognised};
use crate::text::RawText;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// pg_control_system() is executable by PUBLIC (PostgreSQL 9.6+).
const IDENTITY_SQL: &str = "\
SELECT system_identifier::text, pg_postmaster_start_time(), pg_is_in_recovery()
FROM pg_control_system()";

/// Which server a session reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerIdentity {
    /// The cluster's `system_identifier`: shared by a primary and its physical standbys.
    pub system_identifier: String,
    /// `pg_postmaster_start_time()`: tells the servers of one cluster apart.
    pub started_at: DateTime<Utc>,
    pub in_recovery: bool,
}

impl ServerIdentity {
    /// The same cluster: the same prepared transactions, whichever server of it was read.
    pub fn same_cluster(&self, other: &ServerIdentity) -> bool {
        self.system_identifier == other.system_identifier
    }

    /// The cluster as the audit trail names it: `postgres SYSTEM-IDENTIFIER` (its
    /// standbys list the same prepared transactions).
    pub fn key(&self) -> String {
        format!("postgres {}", self.system_identifier)
    }

    /// The very same server (the same cluster, and the same postmaster start).
    pub fn same_server(&self, other: &ServerIdentity) -> bool {
        self.same_cluster(other) && self.started_at == other.started_at
    }
}

/// One prepared transaction of the same global transaction.
#[derive(Debug, Clone, Serialize)]
pub struct Branch {
    pub gid: RawText,
    /// Its transaction id: the same xid is the same transaction when it is read again.
    pub xid: i64,
    pub database: RawText,
    /// None when the role that prepared it has been dropped since.
    pub owner: Option<RawText>,
    pub prepared_at: DateTime<Utc>,
    /// Server clock minus `prepared`.
    pub age_seconds: f64,
    pub recognised_by: Recognised,
}

/// The transaction whose siblings are sought, and the cluster it was prepared in.
pub struct Origin<'a> {
    pub gid: &'a RawText,
    /// None when it is no longer prepared (its database is not known any more).
    pub database: Option<&'a RawText>,
    /// Its server's `system_identifier`.
    pub cluster: &'a str,
}

/// What one server holds of the global transaction.
#[derive(Debug, Clone)]
pub struct ServerBranches {
    pub server: ServerIdentity,
    /// In `prepared` order; never the origin itself.
    pub branches: Vec<Branch>,
}

pub async fn identity(session: &Session) -> Result<ServerIdentity> {
    let rows = session
        .query(IDENTITY_SQL, &[])
        .await
        .context("reading the server's identity (pg_control_system())")?;
    let row = rows
        .first()
        .context("pg_control_system() returned no row")?;
    Ok(ServerIdentity {
        system_identifier: row.try_get(0)?,
        started_at: row.try_get(1)?,
        in_recovery: row.try_get(2)?,
    })
}

/// Every prepared transaction of the server, in any database, that belongs to the same
/// global transaction as `origin`: the same XA format id and gtrid, the same Citus
/// distributed transaction, or, for a GID of no known form, the same GID text (which
/// can only be on another cluster: a GID is unique within one). Never the origin itself:
/// the same GID in the same database of the same cluster.
pub async fn find(session: &Session, origin: &Origin<'_>) -> Result<ServerBranches> {
    let (server, rows) = tokio::join!(identity(session), super::prepared::rows(session, &[]));
    let server = server?;
    let branches = of(rows.context("reading pg_prepared_xacts")?, origin, &server);
    Ok(ServerBranches { server, branches })
}

/// The same, on a server whose identity is known already (the origin's own).
pub async fn find_on(
    session: &Session,
    origin: &Origin<'_>,
    server: ServerIdentity,
) -> Result<ServerBranches> {
    let rows = super::prepared::rows(session, &[])
        .await
        .context("reading pg_prepared_xacts")?;
    let branches = of(rows, origin, &server);
    Ok(ServerBranches { server, branches })
}

/// The rows of one server that are branches of the origin's global transaction.
fn of(rows: Vec<PreparedRow>, origin: &Origin<'_>, server: &ServerIdentity) -> Vec<Branch> {
    let wanted = GlobalId::of(origin.gid, &gid::decode_raw(origin.gid));
    let here = server.system_identifier == origin.cluster;
    let mut branches = Vec::new();
    for row in rows {
        let itself = here
            && row.gid == *origin.gid
            && origin
                .database
                .is_none_or(|origin_db| *origin_db == row.database);
        if itself {
            continue;
        }
        let id = GlobalId::of(&row.gid, &gid::decode_raw(&row.gid));
        let Some(recognised_by) = wanted.sibling(&id) else {
            continue;
        };
        branches.push(Branch {
            gid: row.gid,
            xid: row.xid,
            database: row.database,
            owner: row.owner,
            prepared_at: row.prepared_at,
            age_seconds: row.age_seconds,
            recognised_by,
        });
    }
    branches
}
