//! The siblings as the operator reads them before confirming, and in the report: the
//! global transaction, each sibling with its state and plan, each target that could not
//! be read, and the risk of resolving one branch alone.

use super::{mixed_outcome_risk, BranchState, Handling, MysqlSibling, Sibling, Siblings};
use crate::report::evidence::Block;
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, seconds};

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
        let mut b = s.block(shown!("sibling in {} on {}", s.database, s.found_on));
        b.field("state", Shown::lit(s.handling.state.name()));
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
        handled(&mut b, &s.handling);
        blocks.push(b);
    }
    for s in &found.mysql_siblings {
        let mut b = s.block(shown!("sibling XA branch on {}", s.found_on));
        b.field("state", Shown::lit(s.handling.state.name()));
        if let Some(id) = s.attached_session {
            b.field("held by", shown!("session {}", id));
        }
        if !s.also_found_on.is_empty() {
            b.field("also on", Shown::text(&s.also_found_on.join(", ")));
        }
        handled(&mut b, &s.handling);
        blocks.push(b);
    }
    for t in found.sibling_search.iter().filter(|t| !t.checked) {
        let mut b = Block::new(shown!("siblings on {}", t.target));
        b.field("UNKNOWN", shown!("{}", t.detail));
        blocks.push(b);
    }
    // Still prepared, and not handed to the flow, left alone, or acted on.
    let untouched = found
        .others()
        .iter()
        .filter(|(_, h)| h.state == BranchState::Prepared)
        .filter(|(_, h)| h.statement.is_none() || h.left_alone.is_some() || h.outcome.is_some())
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

impl Sibling {
    /// Its block under `title`, as the evidence and the confirmation show it: its GID
    /// (whole), owner and age.
    pub fn block(&self, title: Shown) -> Block {
        let mut b = Block::new(title);
        b.whole("GID", shown!("'{}'", self.gid))
            .field(
                "owner",
                Shown::from(&crate::pg::prepared::owner_text(&self.owner)),
            )
            .field(
                "prepared",
                shown!("{} ago", format_duration(seconds(self.age_seconds))),
            );
        b
    }
}

impl MysqlSibling {
    /// Its block under `title`, as the evidence and the confirmation show it: its XID
    /// (whole) and age.
    pub fn block(&self, title: Shown) -> Block {
        let mut b = Block::new(title);
        b.whole("XID", Shown::text(&self.xid.sql()))
            .field("age", Shown::text(&self.age.text()));
        b
    }
}

/// A sibling's block, finished with what `--all-branches` made of it: why it is left
/// alone, or that it is resolved with the branch named; its outcome.
fn handled(b: &mut Block, h: &Handling) {
    if let Some(why) = &h.left_alone {
        b.field("left alone", shown!("{}", why));
    } else if h.outcome.is_none() && h.statement.is_some() {
        b.field("plan", Shown::lit("resolved with it (--all-branches)"));
    }
    if let Some(o) = &h.outcome {
        b.field("outcome", shown!("{} — {}", o.status.name(), o.detail));
    }
}
