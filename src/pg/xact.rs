//! What resolving one prepared transaction reads around its statement: whether it is still
//! prepared, who the session acts as, and how its transaction id ended.

use super::session::Session;
use crate::text::RawText;
use anyhow::{Context, Result};

/// Every prepared transaction's GID and xid (the cluster's, from any database).
const PREPARED_SQL: &str = "SELECT gid, transaction::text::bigint FROM pg_prepared_xacts";

/// The role COMMIT/ROLLBACK PREPARED would run as (`GetUserId()`: current_user) and
/// whether it is a superuser.
const ROLE_SQL: &str = "SELECT current_user::text, \
     coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false)";

/// The status of a 32-bit xid read earlier. Its full (64-bit) xid is the one nearest the
/// snapshot's xmax, 2^31 either way, as the server itself widens xids (a prepared
/// transaction's xid may lie above xmax, which only counts completed ones).
/// `pg_current_snapshot` assigns no xid, so this runs in a read-only session.
const STATUS_SQL: &str = "\
WITH s AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax),
f AS (SELECT xmax + ((($1::bigint - (xmax & 4294967295)) % 4294967296 + 6442450944) % 4294967296
                     - 2147483648) AS full_xid FROM s)
SELECT CASE WHEN full_xid < 0 THEN NULL ELSE pg_xact_status(full_xid::text::xid8) END FROM f";

/// Whether the prepared transaction read earlier is still there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    /// Still prepared, with the same xid.
    Prepared,
    /// Gone. `reprepared`: the xid of a new prepared transaction that has the same GID.
    Gone { reprepared: Option<i64> },
}

/// Looks for the transaction with `xid` (xids of live transactions are unique), and for
/// another one that took its GID since.
pub async fn presence(session: &Session, gid: &RawText, xid: i64) -> Result<Presence> {
    let rows = session
        .query(PREPARED_SQL, &[])
        .await
        .context("reading pg_prepared_xacts")?;
    let mut reprepared = None;
    for row in rows {
        let (other_gid, other_xid): (RawText, i64) = (row.try_get(0)?, row.try_get(1)?);
        if other_xid == xid {
            return Ok(Presence::Prepared);
        }
        if other_gid == *gid {
            reprepared = Some(other_xid);
        }
    }
    Ok(Presence::Gone { reprepared })
}

/// The role the session acts as, and whether it is a superuser.
pub async fn acting_role(session: &Session) -> Result<(RawText, bool)> {
    let rows = session
        .query(ROLE_SQL, &[])
        .await
        .context("reading the session's role")?;
    let row = rows.first().context("no row for the session's role")?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// How the transaction with this (32-bit) xid ended, as `pg_xact_status` says:
/// `committed`, `aborted` or `in progress`; None once the server no longer keeps it.
pub async fn status(session: &Session, xid: i64) -> Result<Option<String>> {
    let rows = session
        .query(STATUS_SQL, &[&xid])
        .await
        .context("reading pg_xact_status")?;
    let row = rows.first().context("no row for pg_xact_status")?;
    Ok(row.try_get(0)?)
}
