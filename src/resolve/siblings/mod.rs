//! The other branches of the global transaction being resolved: searched on this server
//! (all its databases) and on every `resolve.participants` target, PostgreSQL and MySQL
//! alike, each branch listed once however many targets reach its cluster or server, and
//! every target that could not be read said to be unchecked, never left out.

use crate::audit::record::{Outcome, SourceAnswer};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::gid;
use crate::global_tx::{GlobalId, GlobalTransaction, Recognised};
use crate::mysql::params::MysqlParams;
use crate::mysql::xa::{self as mysql_xa, Age, Xid};
use crate::next::Next;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, Session};
use crate::pg::siblings::{self, Branch, Origin, ServerBranches, ServerIdentity};
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::decision::Proposal;
use crate::settings::resolution::Sources;
use crate::settings::targets::MysqlTarget;
use crate::settings::targets::PgTarget;
use crate::shown;
use crate::term::Shown;
use crate::text::{RawText, Text};
use crate::units::{format_duration, seconds};
use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use serde::Serialize;

/// How the target the transaction was found on is named in the report.
pub const THIS_SERVER: &str = "this server";

/// Where a branch stands, as last seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchState {
    /// Still prepared when it was read.
    Prepared,
    /// COMMIT PREPARED ran (`--all-branches`).
    Committed,
    /// ROLLBACK PREPARED ran (`--all-branches`).
    RolledBack,
    /// Gone when the statement was to run: another session finished it first (the
    /// outcome says which way, when that could be told).
    Gone,
    /// The statement's outcome is not known (a lost connection): check it there.
    Unknown,
}

impl BranchState {
    pub fn name(self) -> &'static str {
        match self {
            BranchState::Prepared => "still prepared",
            BranchState::Committed => "committed",
            BranchState::RolledBack => "rolled back",
            BranchState::Gone => "gone (finished by another session)",
            BranchState::Unknown => "unknown (check it there)",
        }
    }
}

/// Another branch of the same global transaction.
#[derive(Debug, Clone, Serialize)]
pub struct Sibling {
    /// `this server`, or the `resolve.participants` target it was found on.
    pub found_on: String,
    /// That target's address (never a password).
    pub address: String,
    pub database: RawText,
    pub gid: RawText,
    pub xid: i64,
    pub owner: Option<RawText>,
    pub prepared_at: DateTime<Utc>,
    pub age_seconds: f64,
    pub recognised_by: Recognised,
    /// Read on a standby: it can only be resolved on its primary.
    pub on_standby: bool,
    /// Other targets that reach the same cluster and so list this same branch.
    pub also_found_on: Vec<String>,
    pub state: BranchState,
    /// `--all-branches`: what the decision sources say about this branch.
    pub decision_sources: Vec<SourceAnswer>,
    /// `--all-branches`: the statement run (or, with --dry-run, that would be run).
    pub statement: Option<String>,
    /// `--all-branches`: what its sources' answers propose for it.
    pub proposal: Option<Proposal>,
    /// `--all-branches`: the decision is not the coordinator's for this branch.
    pub heuristic: Option<bool>,
    /// `--all-branches`: why it is left alone (nothing is run on it).
    pub left_alone: Option<String>,
    /// `--all-branches`: its recorded outcome, once acted on.
    pub outcome: Option<Outcome>,
    /// The target it was found on, as the audit log records it.
    #[serde(skip)]
    pub target: Target,
    /// The target's connection, pointed at the branch's database when it is resolved.
    #[serde(skip)]
    pub params: ConnParams,
    /// The cluster it is in, for telling a branch from the same one read elsewhere
    /// (its `system_identifier`).
    #[serde(skip)]
    cluster: String,
}

impl Sibling {
    /// Its cluster as the audit trail names it (see `ServerIdentity::key`).
    pub fn server_key(&self) -> Option<String> {
        (!self.cluster.is_empty()).then(|| format!("postgres {}", self.cluster))
    }

    /// Where it is, for a line of text: `'gid' in db on this server`.
    pub fn place(&self) -> Text {
        crate::text![
            "'",
            self.gid,
            "' in ",
            self.database,
            " on ",
            self.found_on.as_str()
        ]
    }
}

/// Another branch, prepared on a MySQL or MariaDB server.
#[derive(Debug, Clone, Serialize)]
pub struct MysqlSibling {
    /// `this server`, or the `resolve.participants` target it was found on.
    pub found_on: String,
    pub address: String,
    pub xid: Xid,
    pub age: Age,
    /// A session that still holds it, when performance_schema shows one.
    pub attached_session: Option<u64>,
    /// Other targets that reach the same server and so list this same branch.
    pub also_found_on: Vec<String>,
    pub state: BranchState,
    pub decision_sources: Vec<SourceAnswer>,
    pub statement: Option<String>,
    pub proposal: Option<Proposal>,
    pub heuristic: Option<bool>,
    pub left_alone: Option<String>,
    pub outcome: Option<Outcome>,
    #[serde(skip)]
    pub target: Target,
    #[serde(skip)]
    pub params: MysqlParams,
    #[serde(skip)]
    server: mysql_xa::Identity,
}

impl MysqlSibling {
    /// Where it is, for a line of text: `XA branch X'…',X'…',N on lab_mysql`.
    pub fn place(&self) -> Text {
        crate::text!["XA branch ", self.xid.sql(), " on ", self.found_on.as_str()]
    }

    /// The server as the audit trail names it.
    pub fn server_key(&self) -> String {
        self.server.key()
    }

    /// Why it cannot be resolved on the server it was read on (a replica, read_only).
    pub fn not_resolvable_there(&self) -> Option<String> {
        self.server.not_resolvable_here()
    }
}

/// One target searched for siblings.
#[derive(Debug, Clone, Serialize)]
pub struct Searched {
    /// `this server`, or a `resolve.participants` target.
    pub target: String,
    /// Its address; null when the target is not one the config names.
    pub address: Option<String>,
    /// False: it could not be read, so what it holds of the transaction is UNKNOWN.
    pub checked: bool,
    /// What was found there, or why it could not be read.
    pub detail: String,
    pub server: Option<ServerIdentity>,
}

/// Everything known about the transaction's siblings.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Siblings {
    /// The global transaction it is a branch of; null for a GID of no known global form.
    pub global_transaction: Option<GlobalTransaction>,
    /// Every other branch found, once each.
    pub siblings: Vec<Sibling>,
    /// Every other branch found on a MySQL or MariaDB server, once each.
    pub mysql_siblings: Vec<MysqlSibling>,
    /// Every target searched, checked or not.
    pub sibling_search: Vec<Searched>,
}

/// What the findings and the prompt need of a sibling on either engine.
struct Other<'a> {
    place: Text,
    state: BranchState,
    planned: bool,
    left_alone: Option<&'a str>,
    acted: bool,
}

impl Siblings {
    /// Every sibling, PostgreSQL's then MySQL's, as the findings see them.
    fn others(&self) -> Vec<Other<'_>> {
        let pg = self.siblings.iter().map(|s| Other {
            place: s.place(),
            state: s.state,
            planned: s.statement.is_some(),
            left_alone: s.left_alone.as_deref(),
            acted: s.outcome.is_some(),
        });
        let mysql = self.mysql_siblings.iter().map(|s| Other {
            place: s.place(),
            state: s.state,
            planned: s.statement.is_some(),
            left_alone: s.left_alone.as_deref(),
            acted: s.outcome.is_some(),
        });
        pg.chain(mysql).collect()
    }
}

/// The XA identity a MySQL branch must share (None for a GID of no XA form).
fn wanted_xa(gid: &RawText) -> Option<GlobalId> {
    match GlobalId::of(gid, &gid::decode_raw(gid)) {
        id @ GlobalId::Xa { .. } => Some(id),
        _ => None,
    }
}

fn xa_id(xid: &Xid) -> Option<GlobalId> {
    Some(GlobalId::Xa {
        format_id: i32::try_from(xid.format_id).ok()?,
        gtrid: xid.gtrid.clone(),
    })
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

type PgRead = (
    String,
    anyhow::Result<(PgTarget, anyhow::Result<ServerBranches>)>,
);
type MysqlRead = (
    String,
    anyhow::Result<(MysqlTarget, anyhow::Result<mysql_xa::Snapshot>)>,
);

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

/// Adds what each MySQL server holds of the global transaction `wanted`: every branch
/// with its format id and gtrid, once per server, never the origin itself.
fn merge_mysql_reads(
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
                state: BranchState::Prepared,
                decision_sources: Vec::new(),
                statement: None,
                proposal: None,
                heuristic: None,
                left_alone: None,
                outcome: None,
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
fn merge_pg_reads(found: &mut Siblings, reads: Vec<PgRead>) {
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

fn unchecked(target: &str, address: Option<String>, why: String) -> Searched {
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
        state: BranchState::Prepared,
        decision_sources: Vec::new(),
        statement: None,
        proposal: None,
        heuristic: None,
        left_alone: None,
        outcome: None,
        target: target.report_target(),
        params: target.params.clone(),
        cluster: server.system_identifier.clone(),
    }
}

/// Blocks for the evidence and the confirmation: the global transaction, each sibling
/// with its state, each target that could not be read, and the risk of resolving one.
pub fn summary(found: &Siblings, all_branches: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(global) = &found.global_transaction {
        let mut b = Block::new(shown!("global transaction {}", global.key));
        b.field("manager", global.manager_and_node())
            .field("branches", shown!("{} found", global.branches));
        blocks.push(b);
    }
    for s in &found.siblings {
        let mut b = Block::new(shown!("sibling in {} on {}", s.database, s.found_on));
        b.whole("GID", shown!("'{}'", s.gid))
            .field(
                "owner",
                Shown::from(&crate::pg::prepared::owner_text(&s.owner)),
            )
            .field(
                "prepared",
                shown!("{} ago", format_duration(seconds(s.age_seconds))),
            )
            .field("state", Shown::lit(s.state.name()));
        if !s.also_found_on.is_empty() {
            b.field("also on", Shown::text(&s.also_found_on.join(", ")));
        }
        if s.on_standby {
            b.field(
                "standby",
                Shown::lit("on a standby: resolve it on its primary"),
            );
        }
        if !s.recognised_by.established() {
            b.field(
                "matched",
                Shown::lit("by the same GID text only: its format does not say it is the same global transaction"),
            );
        }
        if let Some(why) = &s.left_alone {
            b.field("left alone", shown!("{}", why));
        } else if s.outcome.is_none() && s.statement.is_some() {
            b.field("plan", Shown::lit("resolved with it (--all-branches)"));
        }
        if let Some(o) = &s.outcome {
            b.field("outcome", shown!("{} — {}", o.status.name(), o.detail));
        }
        blocks.push(b);
    }
    for s in &found.mysql_siblings {
        let mut b = Block::new(shown!("sibling XA branch on {}", s.found_on));
        b.whole("XID", Shown::text(&s.xid.sql()))
            .field("age", Shown::text(&s.age.text()))
            .field("state", Shown::lit(s.state.name()));
        if let Some(id) = s.attached_session {
            b.field("held by", shown!("session {}", id));
        }
        if !s.also_found_on.is_empty() {
            b.field("also on", Shown::text(&s.also_found_on.join(", ")));
        }
        if let Some(why) = &s.left_alone {
            b.field("left alone", shown!("{}", why));
        } else if s.outcome.is_none() && s.statement.is_some() {
            b.field("plan", Shown::lit("resolved with it (--all-branches)"));
        }
        if let Some(o) = &s.outcome {
            b.field("outcome", shown!("{} — {}", o.status.name(), o.detail));
        }
        blocks.push(b);
    }
    for t in found.sibling_search.iter().filter(|t| !t.checked) {
        let mut b = Block::new(shown!("siblings on {}", t.target));
        b.field("UNKNOWN", shown!("{}", t.detail));
        blocks.push(b);
    }
    let untouched = found
        .others()
        .iter()
        .filter(|s| s.state == BranchState::Prepared)
        .filter(|s| !s.planned || s.left_alone.is_some() || s.acted)
        .count();
    if untouched > 0 {
        let mut b = Block::untitled();
        b.alarm(
            "WARNING",
            Shown::text(&mixed_outcome_risk(untouched, all_branches, all_branches)),
        );
        blocks.push(b);
    }
    blocks
}

/// What `n` other branches still prepared risk: the prompt's warning and the finding's
/// message say it in the same words.
fn mixed_outcome_risk(n: usize, left_alone: bool, all_branches: bool) -> String {
    let (branches, are) = match n {
        1 => ("branch", "is"),
        _ => ("branches", "are"),
    };
    format!(
        "{n} other {branches} of this global transaction {are} still prepared{}: resolving only this one risks a mixed outcome (one branch committed, another rolled back) unless each gets the same decision{}",
        if left_alone { " and left alone" } else { "" },
        if all_branches { "" } else { "; --all-branches applies it to every branch" }
    )
}

/// A branch through which every branch can be resolved together, and where it is.
pub enum Via<'a> {
    Pg(&'a RawText, &'a str),
    Mysql(&'a Xid, &'a str),
}

impl Via<'_> {
    /// `resolve pg 'GID' on TARGET`, `resolve mysql X'…',X'…',N on TARGET`.
    fn command(&self) -> Text {
        match self {
            Via::Pg(gid, on) => crate::text!["resolve pg '", *gid, "' on ", *on],
            Via::Mysql(xid, on) => crate::text!["resolve mysql ", xid.sql(), " on ", *on],
        }
    }
}

/// `indoubt resolve pg|mysql … --all-branches --dry-run` through a branch: on the server
/// of this run addressed as it was (`this server`), else on a participant by its name.
pub fn next_through(
    addressing: &crate::settings::addressing::Addressing,
    via: &Via<'_>,
) -> Option<Next> {
    use crate::next::Word;
    match via {
        Via::Pg(gid, on) => {
            // After `--`: a GID starting with `-` is not read as a flag.
            let tail = [
                Word::Lit("--all-branches"),
                Word::Lit("--dry-run"),
                Word::Lit("--"),
                Word::Raw(gid),
            ];
            let resolve = [Word::Lit("resolve"), Word::Lit("pg")];
            Some(match *on {
                THIS_SERVER => addressing.indoubt(&resolve, &tail),
                participant => addressing
                    .of_config_target(participant)
                    .indoubt(&resolve, &tail),
            })
        }
        Via::Mysql(xid, on) => {
            let arg = xid.arg();
            let resolve = [Word::Lit("resolve"), Word::Lit("mysql"), Word::Value(&arg)];
            let tail = [Word::Lit("--all-branches"), Word::Lit("--dry-run")];
            Some(match *on {
                THIS_SERVER => addressing.indoubt(&resolve, &tail),
                participant => addressing
                    .of_mysql_target(participant)
                    .indoubt(&resolve, &tail),
            })
        }
    }
}

/// How the resolution the siblings belong to went, for their findings.
pub struct Resolution<'a> {
    /// The branch named, while it is prepared; None when it was not (any more).
    pub named: Option<Via<'a>>,
    pub all_branches: bool,
    /// The flow acted (the named branch has an outcome): a sibling handed to it that
    /// has none was not attempted.
    pub acted: bool,
    /// The next command through a branch, when one can be written.
    pub next: &'a dyn Fn(&Via<'_>) -> Option<Next>,
}

/// The findings the siblings add to a resolution (the flow reports each branch it acted
/// on): UNKNOWN for each target that could not be read; with `--all-branches` one for
/// each sibling left alone, and why; a WARNING
/// while other branches stay prepared that nothing was done about, naming how to
/// resolve them together (through a branch still prepared, if the one named is gone).
pub fn findings(found: &Siblings, how: &Resolution<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in found.sibling_search.iter().filter(|t| !t.checked) {
        out.push(
            Finding::new(
                Severity::Unknown,
                codes::SIBLINGS_UNCHECKED,
                crate::text!["siblings on ", t.target.as_str()],
                format!(
                    "{}: whether branches of this global transaction are prepared there is UNKNOWN",
                    t.detail
                ),
            )
            .evidence("source", "pg_prepared_xacts"),
        );
    }
    for s in &found.siblings {
        if let Some(why) = &s.left_alone {
            out.push(Finding::new(
                Severity::Warning,
                codes::BRANCH_LEFT_ALONE,
                crate::text![
                    "prepared transaction '",
                    s.gid,
                    "' in ",
                    s.database,
                    " on ",
                    s.found_on.as_str()
                ],
                format!("not resolved: {why}"),
            ));
        }
    }
    for s in &found.mysql_siblings {
        if let Some(why) = &s.left_alone {
            out.push(Finding::new(
                Severity::Warning,
                codes::BRANCH_LEFT_ALONE,
                s.place(),
                format!("not resolved: {why}"),
            ));
        }
    }
    // Still prepared, and not handed to the flow, or handed and not done.
    let others = found.others();
    let untouched: Vec<&Other> = others
        .iter()
        .filter(|s| s.state == BranchState::Prepared && s.left_alone.is_none())
        .filter(|s| !s.planned || s.acted || how.acted)
        .collect();
    if !untouched.is_empty() {
        let mut message = Text::from(mixed_outcome_risk(untouched.len(), false, how.all_branches));
        message.push_str(". Still prepared: ");
        for (i, s) in untouched.iter().enumerate() {
            if i > 0 {
                message.push_str(", ");
            }
            message.push_text(&s.place);
        }
        // Through the branch named, or, when it is gone, one still prepared.
        let prepared_pg = found
            .siblings
            .iter()
            .find(|s| s.state == BranchState::Prepared && s.left_alone.is_none());
        let prepared_mysql = found
            .mysql_siblings
            .iter()
            .find(|s| s.state == BranchState::Prepared && s.left_alone.is_none());
        let via = match (&how.named, prepared_pg, prepared_mysql) {
            (Some(Via::Pg(gid, on)), _, _) => Via::Pg(gid, on),
            (Some(Via::Mysql(xid, on)), _, _) => Via::Mysql(xid, on),
            (None, Some(s), _) => Via::Pg(&s.gid, s.found_on.as_str()),
            (None, None, Some(s)) => Via::Mysql(&s.xid, s.found_on.as_str()),
            (None, None, None) => return out,
        };
        let subject = match &found.global_transaction {
            Some(g) => crate::text!["global transaction ", g.key.as_str()],
            None => crate::text!["global transaction of ", via.command()],
        };
        let mut finding = Finding::new(
            Severity::Warning,
            codes::OTHER_BRANCHES_PREPARED,
            subject,
            message,
        )
        .evidence("source", "pg_prepared_xacts")
        .evidence(
            "global_transaction",
            found.global_transaction.as_ref().map(|g| g.key.clone()),
        )
        .advice(crate::text![
            "resolve every branch with the same decision: ",
            via.command(),
            " with --all-branches and --commit or --rollback"
        ]);
        if let Some(next) = (how.next)(&via) {
            finding = finding.next(next);
        }
        out.push(finding);
    }
    out
}
