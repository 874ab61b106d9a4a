//! The readings of the targets searched, merged into the siblings: each branch listed
//! once however many targets reach its cluster or server (the primary's copy kept to
//! resolve), and each target said to be checked, the same as another, or unchecked.

use super::{Handling, MysqlSibling, Searched, Sibling, Siblings};
use crate::global_tx::GlobalId;
use crate::mysql::xa::{self as mysql_xa, Xid};
use crate::pg::siblings::{Branch, ServerBranches, ServerIdentity};
use crate::settings::targets::{MysqlTarget, PgTarget};

/// What one PostgreSQL target gave: its name, then the target (or why it has none) and
/// its branches (or why they could not be read).
pub(super) type PgRead = (
    String,
    anyhow::Result<(PgTarget, anyhow::Result<ServerBranches>)>,
);
/// What one MySQL target gave, likewise.
pub(super) type MysqlRead = (
    String,
    anyhow::Result<(MysqlTarget, anyhow::Result<mysql_xa::Snapshot>)>,
);

/// The global transaction an XID is a branch of, as a PostgreSQL GID names it too (None
/// when its format id is beyond int32, as no GID's is).
pub(super) fn xa_id(xid: &Xid) -> Option<GlobalId> {
    Some(GlobalId::Xa {
        format_id: i32::try_from(xid.format_id).ok()?,
        gtrid: xid.gtrid.clone(),
    })
}

/// Adds what each MySQL server holds of the global transaction `wanted`: every branch
/// with its format id and gtrid, once per server, never the origin itself.
pub(super) fn merge_mysql_reads(
    found: &mut Siblings,
    reads: Vec<MysqlRead>,
    wanted: Option<&GlobalId>,
    origin: Option<(&mysql_xa::Identity, &Xid)>,
) {
    let mut seen: Vec<(String, mysql_xa::Identity)> = Vec::new();
    for (name, result) in reads {
        let (target, snapshot) = match result {
            Err(e) => {
                found
                    .sibling_search
                    .push(unchecked(&name, None, format!("{e:#}")));
                continue;
            }
            Ok((target, Err(e))) => {
                found.sibling_search.push(unchecked(
                    &name,
                    Some(target.params.describe()),
                    format!("{e:#}"),
                ));
                continue;
            }
            Ok((target, Ok(snapshot))) => (target, snapshot),
        };
        let same_as = seen
            .iter()
            .find(|(_, server)| server.same_server(&snapshot.server))
            .map(|(other, _)| other.clone());
        seen.push((name.clone(), snapshot.server.clone()));
        let mut new = 0;
        for b in &snapshot.branches {
            let itself = origin
                .is_some_and(|(server, xid)| server.same_server(&snapshot.server) && *xid == b.xid);
            if itself || wanted.is_none() || xa_id(&b.xid).as_ref() != wanted {
                continue;
            }
            if let Some(seen) = found
                .mysql_siblings
                .iter_mut()
                .find(|s| s.server.same_server(&snapshot.server) && s.xid == b.xid)
            {
                seen.also_found_on.push(name.clone());
                continue;
            }
            new += 1;
            found.mysql_siblings.push(MysqlSibling {
                found_on: name.clone(),
                address: target.params.describe(),
                xid: b.xid.clone(),
                age: b.age.clone(),
                attached_session: b.attached_session,
                also_found_on: Vec::new(),
                handling: Handling::default(),
                target: target.report_target(),
                params: target.params.clone(),
                server: snapshot.server.clone(),
            });
        }
        let detail = match (same_as, new) {
            (Some(other), _) => format!(
                "the same server as {other} ({}): its branches already listed",
                snapshot.server.host_port
            ),
            (None, 0) => "no other branch of it".to_string(),
            (None, n) => format!("{n} branch(es) of it"),
        };
        found.sibling_search.push(Searched {
            target: name,
            address: Some(target.params.describe()),
            checked: true,
            detail,
            server: None,
        });
    }
}

/// Adds each PostgreSQL target's reading to the search.
pub(super) fn merge_pg_reads(found: &mut Siblings, reads: Vec<PgRead>) {
    for (name, result) in reads {
        match result {
            Err(e) => found
                .sibling_search
                .push(unchecked(&name, None, format!("{e:#}"))),
            Ok((target, Err(e))) => found.sibling_search.push(unchecked(
                &name,
                Some(target.params.describe()),
                format!("{e:#}"),
            )),
            Ok((target, Ok(read))) => {
                let detail = merge(found, &name, &target, &read);
                found.sibling_search.push(Searched {
                    target: name,
                    address: Some(target.params.describe()),
                    checked: true,
                    detail,
                    server: Some(read.server),
                });
            }
        }
    }
}

/// A target that could not be read: what it holds of the transaction is UNKNOWN.
pub(super) fn unchecked(target: &str, address: Option<String>, why: String) -> Searched {
    Searched {
        target: target.to_string(),
        address,
        checked: false,
        detail: format!("not checked: {why}"),
        server: None,
    }
}

/// Adds one target's branches, each branch once: one already listed through another
/// target of the same cluster is noted there (and its primary's copy kept as the one
/// to resolve). Returns what the target held, for the search list.
fn merge(found: &mut Siblings, name: &str, target: &PgTarget, read: &ServerBranches) -> String {
    let mut new = 0;
    let mut known = 0;
    for branch in &read.branches {
        let existing = found
            .siblings
            .iter_mut()
            .find(|s| s.cluster == read.server.system_identifier && s.gid == branch.gid);
        match existing {
            Some(seen) => {
                known += 1;
                if seen.on_standby && !read.server.in_recovery {
                    let earlier = std::mem::replace(&mut seen.found_on, name.to_string());
                    seen.also_found_on.push(earlier);
                    seen.address = target.params.describe();
                    seen.target = target.report_target();
                    seen.params = target.params.clone();
                    seen.on_standby = false;
                } else {
                    seen.also_found_on.push(name.to_string());
                }
            }
            None => {
                new += 1;
                found
                    .siblings
                    .push(sibling(branch, name, target, &read.server));
            }
        }
    }
    let same_as = found.sibling_search.iter().find_map(|s| {
        let server = s.server.as_ref()?;
        let how = if server.same_server(&read.server) {
            "the same server as "
        } else if server.same_cluster(&read.server) {
            "the same cluster as "
        } else {
            return None;
        };
        Some(format!(
            "{how}{} (system identifier {})",
            s.target, read.server.system_identifier
        ))
    });
    let standby = if read.server.in_recovery {
        ", a standby"
    } else {
        ""
    };
    match (same_as, new, known) {
        (Some(same), _, _) => format!(
            "{same}{standby}: {} branch(es) of it, already listed",
            new + known
        ),
        (None, 0, _) => format!("no other branch of it{standby}"),
        (None, n, _) => format!("{n} branch(es) of it{standby}"),
    }
}

fn sibling(branch: &Branch, name: &str, target: &PgTarget, server: &ServerIdentity) -> Sibling {
    Sibling {
        found_on: name.to_string(),
        address: target.params.describe(),
        database: branch.database.clone(),
        gid: branch.gid.clone(),
        xid: branch.xid,
        owner: branch.owner.clone(),
        prepared_at: branch.prepared_at,
        age_seconds: branch.age_seconds,
        recognised_by: branch.recognised_by,
        on_standby: server.in_recovery,
        also_found_on: Vec::new(),
        handling: Handling::default(),
        target: target.report_target(),
        params: target.params.clone(),
        cluster: server.system_identifier.clone(),
    }
}
