//! The other branches of the global transaction being resolved: searched on this server
//! (all its databases) and on every `resolve.participants` target, each branch listed
//! once however many targets reach its cluster, and every target that could not be read
//! said to be unchecked, never left out.

use crate::audit::record::{Outcome, SourceAnswer};
use crate::codes;
use crate::context::{Context, PgTarget};
use crate::findings::{Finding, Severity};
use crate::gid;
use crate::global_tx::{GlobalTransaction, Recognised};
use crate::next::Next;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, Session};
use crate::pg::siblings::{self, Branch, Origin, ServerBranches, ServerIdentity};
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::decision::Proposal;
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
    /// The cluster it is in, for telling a branch from the same one read elsewhere.
    #[serde(skip)]
    cluster: String,
}

impl Sibling {
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
    /// Every target searched, checked or not.
    pub sibling_search: Vec<Searched>,
}

impl Siblings {
    /// Branches still prepared (as far as is known).
    pub fn still_prepared(&self) -> impl Iterator<Item = &Sibling> {
        self.siblings
            .iter()
            .filter(|s| s.state == BranchState::Prepared)
    }
}

/// Searches this server (through `session`) and every participants target for the
/// other branches of the transaction `gid`, prepared in `database` (None: it is gone).
pub async fn search(
    ctx: &Context,
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
    let participants = &ctx.config.config.resolve.participants;
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
    let others = join_all(participants.iter().map(|name| async {
        let result = async {
            let target = ctx.pg_target(Some(name))?;
            let read = async {
                let session = session::connect(&target.params, ctx.timeout).await?;
                siblings::find(&session, &origin).await
            }
            .await;
            anyhow::Ok((target, read))
        }
        .await;
        (name.clone(), result)
    }));
    let (mine, others) = tokio::join!(
        siblings::find_on(session, &origin, identity.clone()),
        others
    );
    let here = PgTarget {
        name: here.name.clone(),
        params: here.params.clone(),
    };
    let mut reads = vec![(THIS_SERVER.to_string(), Ok((here, mine)))];
    reads.extend(others);
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
                let detail = merge(&mut found, &name, &target, &read);
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
    if let Some(global) = found.global_transaction.as_mut() {
        global.branches = usize::from(database.is_some()) + found.siblings.len();
    }
    found
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
    for t in found.sibling_search.iter().filter(|t| !t.checked) {
        let mut b = Block::new(shown!("siblings on {}", t.target));
        b.field("UNKNOWN", shown!("{}", t.detail));
        blocks.push(b);
    }
    let untouched = found
        .still_prepared()
        .filter(|s| s.statement.is_none() || s.left_alone.is_some() || s.outcome.is_some())
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

/// How the resolution the siblings belong to went, for their findings.
pub struct Resolution<'a> {
    /// The GID named; None when it was not prepared (any more).
    pub gid: Option<&'a RawText>,
    pub all_branches: bool,
    /// The flow acted (the named branch has an outcome): a sibling handed to it that
    /// has none was not attempted.
    pub acted: bool,
    /// The next command for a GID prepared on a target (`this server` or a
    /// participants target), when one can be written.
    pub next: &'a dyn Fn(&RawText, &str) -> Option<Next>,
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
    // Still prepared, and not handed to the flow, or handed and not done.
    let untouched: Vec<&Sibling> = found
        .still_prepared()
        .filter(|s| s.left_alone.is_none())
        .filter(|s| s.statement.is_none() || s.outcome.is_some() || how.acted)
        .collect();
    if !untouched.is_empty() {
        let mut message = Text::from(mixed_outcome_risk(untouched.len(), false, how.all_branches));
        message.push_str(". Still prepared: ");
        for (i, s) in untouched.iter().enumerate() {
            if i > 0 {
                message.push_str(", ");
            }
            message.push_text(&s.place());
        }
        // Through the branch named, or, when it is gone, one still prepared.
        let (via, on) = match how.gid {
            Some(gid) => (gid, THIS_SERVER),
            None => (&untouched[0].gid, untouched[0].found_on.as_str()),
        };
        let subject = match &found.global_transaction {
            Some(g) => crate::text!["global transaction ", g.key.as_str()],
            None => crate::text!["global transaction of '", via, "'"],
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
            "resolve every branch with the same decision: resolve pg '",
            via,
            "' on ",
            on,
            " with --all-branches and --commit or --rollback"
        ]);
        if let Some(next) = (how.next)(via, on) {
            finding = finding.next(next);
        }
        out.push(finding);
    }
    out
}
