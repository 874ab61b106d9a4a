//! The search for the other branches of a transaction: this server (all its databases)
//! and every `resolve.participants` target read at once, PostgreSQL and MySQL alike, each
//! reading then merged into the siblings (merge).

use super::merge::{merge_mysql_reads, merge_pg_reads, unchecked, xa_id, MysqlRead, PgRead};
use super::{Siblings, THIS_SERVER};
use crate::context::Context;
use crate::gid;
use crate::global_tx::{GlobalId, GlobalTransaction};
use crate::mysql::xa::{self as mysql_xa, Xid};
use crate::pg::session::{self, Session};
use crate::pg::siblings::{self, Origin};
use crate::settings::resolution::Sources;
use crate::settings::targets::{MysqlTarget, PgTarget};
use crate::text::RawText;
use futures_util::future::join_all;

/// The XA identity a MySQL branch must share (None for a GID of no XA form).
fn wanted_xa(gid: &RawText) -> Option<GlobalId> {
    match GlobalId::of(gid, &gid::decode_raw(gid)) {
        id @ GlobalId::Xa { .. } => Some(id),
        _ => None,
    }
}

/// Searches this server (through `session`) and every participants target for the
/// other branches of the transaction `gid`, prepared in `database` (None: it is gone).
pub async fn search(
    ctx: &Context,
    configured: &Sources,
    here: &PgTarget,
    session: &Session,
    gid: &RawText,
    database: Option<&RawText>,
) -> Siblings {
    let decoded = gid::decode_raw(gid);
    let mut found = Siblings {
        global_transaction: GlobalTransaction::of(gid, &decoded),
        ..Siblings::default()
    };
    let participants = &configured.participants;
    let identity = match siblings::identity(session).await {
        Ok(identity) => identity,
        Err(e) => {
            // Without it, a target that is this very server could not be told apart.
            let why = format!("{e:#}");
            found.sibling_search.push(unchecked(
                THIS_SERVER,
                Some(here.params.describe()),
                why.clone(),
            ));
            for name in participants {
                found.sibling_search.push(unchecked(
                    name,
                    None,
                    format!("this server's identity could not be read ({why}), so whether {name} is the same server could not be told"),
                ));
            }
            return found;
        }
    };
    let origin = Origin {
        gid,
        database,
        cluster: &identity.system_identifier,
    };
    let (mine, others, mysql) = tokio::join!(
        siblings::find_on(session, &origin, identity.clone()),
        pg_participants(ctx, configured, &origin),
        mysql_participants(ctx, configured)
    );
    let here = PgTarget {
        name: here.name.clone(),
        params: here.params.clone(),
    };
    let mut reads = vec![(THIS_SERVER.to_string(), Ok((here, mine)))];
    reads.extend(others);
    merge_pg_reads(&mut found, reads);
    let wanted = wanted_xa(gid);
    merge_mysql_reads(&mut found, mysql, wanted.as_ref(), None);
    if let Some(global) = found.global_transaction.as_mut() {
        global.branches =
            usize::from(database.is_some()) + found.siblings.len() + found.mysql_siblings.len();
    }
    found
}

/// Every PostgreSQL participant's branches of the origin's global transaction, at once.
async fn pg_participants(ctx: &Context, configured: &Sources, origin: &Origin<'_>) -> Vec<PgRead> {
    let names = configured
        .participants
        .iter()
        .filter(|name| configured.mysql_target(name).is_none());
    join_all(names.map(|name| async {
        let result = async {
            let target = configured.target(name)?;
            let read = async {
                let session = session::connect(&target.params, ctx.timeout).await?;
                siblings::find(&session, origin).await
            }
            .await;
            anyhow::Ok((target, read))
        }
        .await;
        (name.clone(), result)
    }))
    .await
}

/// Every MySQL participant's prepared branches, at once.
async fn mysql_participants(ctx: &Context, configured: &Sources) -> Vec<MysqlRead> {
    let names = configured
        .participants
        .iter()
        .filter_map(|name| Some((name, configured.mysql_target(name)?)));
    join_all(names.map(|(name, target)| async move {
        let result = async {
            let target = target?;
            let read = async {
                let mut session = crate::mysql::session::connect(
                    &target.params,
                    ctx.timeout,
                    crate::mysql::session::Mode::ReadOnly,
                )
                .await?;
                let snapshot = mysql_xa::collect(&mut session).await;
                session.close().await;
                snapshot
            }
            .await;
            anyhow::Ok((target, read))
        }
        .await;
        (name.clone(), result)
    }))
    .await
}

/// The siblings of an XA branch prepared on a MySQL or MariaDB server (`here`, read as
/// `snapshot`): its other branches there, and on every participant.
pub async fn search_from_mysql(
    ctx: &Context,
    configured: &Sources,
    here: &MysqlTarget,
    snapshot: &mysql_xa::Snapshot,
    xid: &Xid,
) -> Siblings {
    let in_range = i32::try_from(xid.format_id).ok();
    let as_gid = gid::pgjdbc_gid(in_range.unwrap_or(0), &xid.gtrid, &xid.bqual);
    let decoded = gid::decode_raw(&as_gid);
    let mut found = Siblings {
        global_transaction: xa_id(xid).and_then(|_| GlobalTransaction::of(&as_gid, &decoded)),
        ..Siblings::default()
    };
    // No PostgreSQL cluster is the origin's: none of their branches is it.
    let origin = Origin {
        gid: &as_gid,
        database: None,
        cluster: "",
    };
    let pg = async {
        match in_range {
            Some(_) => pg_participants(ctx, configured, &origin).await,
            // No PostgreSQL XID has a format id outside int32: none of theirs can share it.
            None => Vec::new(),
        }
    };
    let (others, mysql) = tokio::join!(pg, mysql_participants(ctx, configured));
    merge_pg_reads(&mut found, others);
    let mut reads: Vec<MysqlRead> = vec![(
        THIS_SERVER.to_string(),
        Ok((here.clone(), Ok(snapshot.clone()))),
    )];
    reads.extend(mysql);
    let wanted = xa_id(xid);
    merge_mysql_reads(
        &mut found,
        reads,
        wanted.as_ref(),
        Some((&snapshot.server, xid)),
    );
    if let Some(global) = found.global_transaction.as_mut() {
        let here = usize::from(snapshot.branches.iter().any(|b| b.xid == *xid));
        global.branches = here + found.siblings.len() + found.mysql_siblings.len();
    }
    found
}
