//! `indoubt resolve mysql XID`: the evidence of one prepared XA branch of MySQL or
//! MariaDB (its age as far as it is known, locks, sessions behind it, decoded XID), what
//! every decision source says, its siblings on PostgreSQL and MySQL participants, and the
//! XA COMMIT or XA ROLLBACK the flow confirms, records and runs (`--all-branches`: for
//! every branch of its global transaction).

use super::mysql_xa::{branch_rows, holder_advice, holder_text, subject};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::gid::DecodedGid;
use crate::mysql::session::{self, Mode};
use crate::mysql::xa::{self, decoded, Branch, Xid};
use crate::report::evidence::Block;
use crate::resolve::apply::{self, mysql::XaBranch, AnyBranch};
use crate::resolve::branch_report::{BranchReport, NamedBranch};
use crate::resolve::decision;
use crate::resolve::siblings::{self, Via};
use crate::resolve::sources;
use crate::settings::resolution::ResolveMysqlSettings;
use crate::shown;
use crate::term::Shown;
use crate::text::{self, RawText};
use anyhow::Result;
use serde::Serialize;

/// The XA branch named, as read: its fields lead the report.
#[derive(Debug, Serialize)]
struct Xa {
    xid: Xid,
    /// The branch as read; null when XA RECOVER does not list it (any more).
    branch: Option<Branch>,
    decoded_xid: DecodedGid,
}

type ResolveMysqlReport = BranchReport<Xa>;

pub async fn run(ctx: &Context, s: &ResolveMysqlSettings) -> Result<Severity> {
    let how = &s.resolution;
    let target = &s.target;
    let mut session = session::connect(&target.params, ctx.timeout, Mode::ReadOnly).await?;
    let snapshot = xa::collect(&mut session).await;
    session.close().await;
    let snapshot = snapshot?;
    let xid = s.xid.clone();
    let named = Xa {
        decoded_xid: decoded(&xid),
        xid: xid.clone(),
        branch: None,
    };
    let mut data = ResolveMysqlReport::new(named, how);
    data.siblings = siblings::search_from_mysql(ctx, &how.sources, target, &snapshot, &xid).await;
    let Some(branch) = snapshot.branches.iter().find(|b| b.xid == xid).cloned() else {
        let finding = crate::resolve::absent::finding(
            how.confirm.audit_log.path().ok(),
            crate::resolve::absent::Absent {
                subject: subject(&xid),
                missing: "XA RECOVER lists no prepared branch with this XID",
                source: "XA RECOVER",
                server: Some(snapshot.server.key()),
                key: text::escape_bytes(xid.sql().as_bytes()),
                named: crate::resolve::absent::Named::Key,
                target: &target.report_target(),
                present: snapshot
                    .branches
                    .iter()
                    .map(|b| text::escape_bytes(b.xid.sql().as_bytes()))
                    .collect(),
                lister: crate::resolve::absent::lister(&how.addressing, &["mysql", "xa"]),
            },
        );
        return data.finish(ctx, target.report_target(), how, vec![finding]);
    };
    data.named.branch = Some(branch.clone());
    let xid_text = RawText::from(xid.sql());
    data.decision_sources =
        sources::ask_sources(ctx, &how.sources, &xid_text, &data.named.decoded_xid).await;
    let proposal = decision::propose_aged(
        &data.decision_sources,
        branch.age.lower_bound(),
        branch.age.at_least(),
    );
    data.proposal = Some(proposal.clone());
    if let Some(why) = snapshot.server.not_resolvable_here() {
        let finding = Finding::new(
            Severity::Warning,
            codes::BRANCH_LEFT_ALONE,
            subject(&xid),
            format!("nothing done: {why}"),
        )
        .evidence("source", "SHOW REPLICA STATUS, @@read_only");
        return data.finish(ctx, target.report_target(), how, vec![finding]);
    }
    if let Some(id) = branch.attached_session {
        let holder = match &branch.holder {
            Some(h) => h.text(),
            None => format!("session {id}"),
        };
        let finding = Finding::new(
            Severity::Warning,
            codes::BUSY,
            subject(&xid),
            format!("nothing done: {holder} still holds it (its transaction manager may be finishing it); a branch is resolved once no session holds it"),
        )
        .evidence("source", "performance_schema.events_transactions_current, performance_schema.threads")
        .evidence("attached_session", id)
        .evidence("holder", serde_json::to_value(&branch.holder).unwrap_or_default())
        .advice(holder_advice(&branch).unwrap_or_default());
        return data.finish(ctx, target.report_target(), how, vec![finding]);
    }
    let chosen = match data.decide(&proposal, how, subject(&xid)) {
        Ok(chosen) => chosen,
        Err(refusal) => return data.finish(ctx, target.report_target(), how, vec![*refusal]),
    };
    data.plan(ctx, how, chosen, apply::mysql::statement(chosen, &xid))
        .await;
    let evidence = serde_json::json!({
        "xid": xid,
        "age": branch.age,
        "rows_locked": branch.rows_locked,
        "rows_modified": branch.rows_modified,
        "rows_modified_between": branch.rows_modified_between,
        "blocked_sessions": branch.blocked_sessions.iter().map(|w| w.session).collect::<Vec<_>>(),
        "decoded_xid": data.named.decoded_xid,
        "global_transaction": data.siblings.global_transaction,
        "siblings": data.siblings.siblings,
        "mysql_siblings": data.siblings.mysql_siblings,
        "all_branches": how.all_branches,
        "proposal": proposal.why,
    });
    let server = Some(snapshot.server.key());
    let decided = data.decided(ctx, target.report_target(), chosen, evidence, server);
    let xa_branch = XaBranch::new(target.params.clone(), xid);
    let named = AnyBranch::Mysql(apply::Branch::new(xa_branch, decided));
    let findings = data.resolve(ctx, how, named, chosen).await?;
    data.finish(ctx, target.report_target(), how, findings)
}

impl NamedBranch for Xa {
    const COMMAND: &'static str = "resolve mysql";

    /// The branch, its decoded XID; None when XA RECOVER does not list it.
    fn block(&self) -> Option<Block> {
        let b = self.branch.as_ref()?;
        let mut block = Block::new(Shown::lit("prepared XA branch"));
        block
            .whole("XID", Shown::text(&self.xid.sql()))
            .field("age", shown!("{} ({})", b.age.text(), b.age.source))
            .field("session", Shown::text(&holder_text(b)))
            .field(
                "locks",
                match branch_rows(b) {
                    Some(rows) => shown!("{}, locked until it ends", rows),
                    None => Shown::lit("unknown"),
                },
            )
            .field(
                "blocks",
                match b.blocked_sessions.len() {
                    0 => Shown::lit("no session"),
                    _ => Shown::join(
                        b.blocked_sessions
                            .iter()
                            .map(|w| shown!("session {}", w.session)),
                        ", ",
                    ),
                },
            )
            .field("decoded", self.decoded_xid.summary());
        Some(block)
    }

    fn via(&self) -> Option<Via<'_>> {
        self.branch
            .is_some()
            .then_some(Via::Mysql(&self.xid, siblings::THIS_SERVER))
    }

    /// Through this branch while a session holds it, resolve refuses (busy).
    fn held(&self) -> bool {
        self.branch
            .as_ref()
            .is_some_and(|b| b.attached_session.is_some())
    }
}

#[cfg(test)]
mod golden;
