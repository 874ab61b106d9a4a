//! The other branches of the global transaction being resolved: searched on this server
//! (all its databases) and on every `resolve.participants` target, PostgreSQL and MySQL
//! alike, each branch listed once however many targets reach its cluster or server, and
//! every target that could not be read said to be unchecked, never left out.
//!
//! This module holds what is known of them; the search is search's, the merging of what
//! each target held merge's, the blocks the operator confirms evidence's, the findings of
//! a resolution findings'.

mod evidence;
mod findings;
mod merge;
mod search;

pub use evidence::summary;
pub use findings::{findings, next_through, Resolution, Via};
pub use search::{search, search_from_mysql};

use crate::audit::record::{Outcome, SourceAnswer};
use crate::global_tx::{GlobalTransaction, Recognised};
use crate::mysql::params::MysqlParams;
use crate::mysql::xa::{self as mysql_xa, Age, Xid};
use crate::pg::conninfo::ConnParams;
use crate::pg::siblings::ServerIdentity;
use crate::report::Target;
use crate::resolve::decision::Proposal;
use crate::text::{RawText, Text};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// How the target the transaction was found on is named in the report.
pub const THIS_SERVER: &str = "this server";

/// Where a branch stands, as last seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchState {
    /// Still prepared when it was read.
    #[default]
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

/// Where a sibling stands, and what `--all-branches` made of it: the same on either
/// engine.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Handling {
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
    #[serde(flatten)]
    pub handling: Handling,
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
    #[serde(flatten)]
    pub handling: Handling,
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

impl Handling {
    /// Still prepared, and not left alone: it can be resolved with the others.
    fn resolvable(&self) -> bool {
        self.state == BranchState::Prepared && self.left_alone.is_none()
    }
}

impl Siblings {
    /// Every sibling, PostgreSQL's then MySQL's: where it is, and how it is handled.
    fn others(&self) -> Vec<(Text, &Handling)> {
        let pg = self.siblings.iter().map(|s| (s.place(), &s.handling));
        let mysql = self.mysql_siblings.iter().map(|s| (s.place(), &s.handling));
        pg.chain(mysql).collect()
    }
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
