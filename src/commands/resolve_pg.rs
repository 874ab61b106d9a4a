//! `indoubt resolve pg <gid>`: the transaction's evidence and what the decision sources
//! say, the decision, then COMMIT/ROLLBACK PREPARED through the resolution flow.

use crate::audit::record::Outcome;
use crate::codes;
use crate::context::Context;
use crate::error::hinted;
use crate::findings::{Finding, Severity};
use crate::gid::{self, DecodedGid};
use crate::pg::{prepared, session};
use crate::report::evidence::Block;
use crate::report::layout;
use crate::report::table::Style;
use crate::resolve::absent;
use crate::resolve::apply::{self, pg::Xact, AnyBranch, Branch};
use crate::resolve::branch_report::{BranchReport, NamedBranch};
use crate::resolve::decision;
use crate::resolve::siblings::{self, Via};
use crate::resolve::sources;
use crate::settings::resolution::ResolvePgSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use crate::text::RawText;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// The prepared transaction named, as read: its fields lead the report.
#[derive(Debug, Serialize)]
struct Transaction {
    /// The GID resolved, exactly (the argument read as written, or in indoubt's escaped form).
    gid: RawText,
    /// Null when no such prepared transaction exists (any more).
    database: Option<RawText>,
    owner: Option<RawText>,
    age_seconds: Option<f64>,
    age_xids: Option<i64>,
    locks_by_mode: BTreeMap<String, usize>,
    blocked_pids: Vec<i32>,
    decoded_gid: DecodedGid,
}

type ResolveReport = BranchReport<Transaction>;

impl Transaction {
    fn new(gid: RawText) -> Transaction {
        Transaction {
            decoded_gid: gid::decode_raw(&gid),
            gid,
            database: None,
            owner: None,
            age_seconds: None,
            age_xids: None,
            locks_by_mode: BTreeMap::new(),
            blocked_pids: Vec::new(),
        }
    }
}

pub async fn run(ctx: &Context, s: &ResolvePgSettings) -> Result<Severity> {
    let how = &s.resolution;
    let target = &s.target;
    let session = session::connect(&target.params, ctx.timeout).await?;
    let snapshot = prepared::collect(&session, &[], ctx.timeout).await?;
    let gid = which_gid(&s.gid, &snapshot.prepared_transactions)?;
    // The cluster's identity: the audit trail knows it by that, whatever address.
    let server = crate::pg::siblings::identity(&session)
        .await
        .ok()
        .map(|i| i.key());
    let mut data = ResolveReport::new(Transaction::new(gid.clone()), how);
    let subject = text!["prepared transaction '", gid, "'"];
    let present: Vec<String> = snapshot
        .prepared_transactions
        .iter()
        .map(|x| text::escape_bytes(x.gid.as_bytes()))
        .collect();
    let Some(xact) = snapshot
        .prepared_transactions
        .into_iter()
        .find(|x| x.gid == gid)
    else {
        // Gone here, but its siblings may not be.
        data.siblings = siblings::search(ctx, &how.sources, target, &session, &gid, None).await;
        let finding = absent::finding(
            how.confirm.audit_log.path().ok(),
            absent::Absent {
                subject,
                missing: "no prepared transaction has this GID",
                source: "pg_prepared_xacts",
                server,
                key: text::escape_bytes(gid.as_bytes()),
                named: absent::Named::Key,
                target: &target.report_target(),
                present,
                lister: absent::lister(&how.addressing, &["pg", "prepared"]),
            },
        );
        return data.finish(ctx, target.report_target(), how, vec![finding]);
    };
    let named = &mut data.named;
    named.database = Some(xact.database.clone());
    named.owner = xact.owner.clone();
    named.age_seconds = Some(xact.age_seconds);
    named.age_xids = Some(xact.age_xids);
    named.locks_by_mode = xact.locks_by_mode.clone();
    named.blocked_pids = xact.blocked_sessions.iter().map(|s| s.pid).collect();
    let subject = text![subject, " in ", xact.database];

    data.decision_sources =
        sources::ask_sources(ctx, &how.sources, &gid, &data.named.decoded_gid).await;
    data.siblings = siblings::search(
        ctx,
        &how.sources,
        target,
        &session,
        &gid,
        Some(&xact.database),
    )
    .await;
    let proposal = decision::propose(&data.decision_sources, xact.age_seconds);
    data.proposal = Some(proposal.clone());
    let chosen = match data.decide(&proposal, how, subject.clone()) {
        Ok(chosen) => chosen,
        Err(refusal) => return data.finish(ctx, target.report_target(), how, vec![*refusal]),
    };
    // The statement runs in the transaction's own database, which a connection can only
    // name in UTF-8.
    let Some(xact_database) = xact.database.as_str() else {
        let finding = Finding::new(
            Severity::Warning,
            codes::DATABASE_NOT_UTF8,
            subject,
            "nothing done: the transaction's database has a name that is not UTF-8, so indoubt cannot connect to it; run the statement there with psql",
        );
        return data.finish(ctx, target.report_target(), how, vec![finding]);
    };
    data.plan(ctx, how, chosen, apply::pg::statement(chosen, &gid))
        .await;
    let evidence = serde_json::json!({
        "database": xact.database,
        "owner": xact.owner,
        "prepared_at": xact.prepared_at,
        "age_seconds": xact.age_seconds,
        "age_xids": xact.age_xids,
        "locks_by_mode": xact.locks_by_mode,
        "blocked_pids": data.named.blocked_pids,
        "decoded_gid": data.named.decoded_gid,
        "global_transaction": data.siblings.global_transaction,
        "siblings": data.siblings.siblings,
        "all_branches": how.all_branches,
        "proposal": proposal.why,
    });
    let xact_branch = Xact {
        params: target.params.with_dbname(xact_database),
        gid,
        xid: xact.xid,
        database: xact.database.clone(),
        owner: xact.owner.clone(),
    };
    let decided = data.decided(ctx, target.report_target(), chosen, evidence, server);
    let named = AnyBranch::Pg(Branch::new(xact_branch, decided));
    // --all-branches: every sibling planned, under the same confirmation.
    let findings = data.resolve(ctx, how, named, chosen).await?;
    data.finish(ctx, target.report_target(), how, findings)
}

impl NamedBranch for Transaction {
    const COMMAND: &'static str = "resolve pg";

    /// The transaction, its decoded GID; None when it is not prepared (any more).
    fn block(&self) -> Option<Block> {
        let (Some(database), Some(age_seconds)) = (&self.database, self.age_seconds) else {
            return None;
        };
        // The GID on a line of its own, whole, to be copied; the title stays short.
        let mut xact = Block::new(shown!("prepared transaction in {}", database));
        xact.whole("GID", shown!("'{}'", self.gid))
            .field(
                "owner",
                Shown::from(&crate::pg::prepared::owner_text(&self.owner)),
            )
            .field(
                "age",
                shown!(
                    "{} ({} xids held back)",
                    format_duration(seconds(age_seconds)),
                    self.age_xids.unwrap_or(0)
                ),
            )
            .field("locks", locks_text(&self.locks_by_mode))
            .field("blocks", blocked_text(&self.blocked_pids))
            .field("decoded", self.decoded_gid.summary());
        Some(xact)
    }

    fn via(&self) -> Option<Via<'_>> {
        self.database
            .is_some()
            .then_some(Via::Pg(&self.gid, siblings::THIS_SERVER))
    }

    /// Wrapped to the width under its label, the statement it names kept whole.
    fn outcome_line(outcome: &Outcome, statement: Option<&str>, style: &Style) -> Shown {
        let label = format!("outcome: {} — ", outcome.status.name());
        let detail = Shown::text(&outcome.detail);
        let keep = statement.map(Shown::text).unwrap_or_default();
        let room = usize::from(style.width)
            .saturating_sub(layout::width(&label))
            .max(20);
        let indent = format!("\n{}", " ".repeat(layout::width(&label)));
        let text = layout::wrap_keeping(detail.as_str(), keep.as_str(), room).join(&indent);
        // Escaped text re-broken at its spaces, after a program label: still escaped.
        #[allow(clippy::disallowed_methods)]
        Shown::__from_format(format_args!("{label}{text}"))
    }
}

/// Locks by mode, most held first: `2 RowExclusiveLock, 1 ExclusiveLock`.
fn locks_text(by_mode: &BTreeMap<String, usize>) -> Shown {
    let mut modes: Vec<_> = by_mode.iter().collect();
    modes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    match modes.is_empty() {
        true => Shown::lit("none"),
        false => Shown::join(
            modes.iter().map(|(m, n)| shown!("{} {}", n, m.as_str())),
            ", ",
        ),
    }
}

/// The sessions waiting on its locks: `session 471`, `sessions 471, 502`, or none.
fn blocked_text(pids: &[i32]) -> Shown {
    let list = Shown::join(pids.iter().map(|p| shown!("{}", p)), ", ");
    match pids.len() {
        0 => Shown::lit("no session"),
        1 => shown!("session {}", list),
        _ => shown!("sessions {}", list),
    }
}

/// Which GID the argument names. It is read two ways: as written, and in the escaped
/// form tables show (`\xff` for a byte that is not UTF-8, `\\` for a backslash), so a
/// GID copied from either psql or indoubt works. When both readings name a prepared
/// transaction, and not the same one, nothing is guessed: the error says how to write each.
fn which_gid(arg: &[u8], xacts: &[prepared::PreparedXact]) -> Result<RawText> {
    let as_written = RawText::from(arg.to_vec());
    // Bytes that are not UTF-8 are the GID itself: the escaped form is text.
    let Ok(arg) = std::str::from_utf8(arg) else {
        return Ok(as_written);
    };
    let Ok(unescaped) = crate::text::unescape(arg).map(RawText::from) else {
        return Ok(as_written);
    };
    if unescaped == as_written {
        return Ok(as_written);
    }
    let exists = |g: &RawText| xacts.iter().any(|x| x.gid == *g);
    Ok(match (exists(&as_written), exists(&unescaped)) {
        (true, true) => {
            // Spelled with its first byte as \xHH, the escaped reading names nothing else.
            let bytes = unescaped.as_bytes();
            let other = format!(
                "\\x{:02x}{}",
                bytes[0],
                crate::text::escape_bytes(&bytes[1..])
            );
            return Err(hinted(
                format!(
                    "the GID argument names two prepared transactions: '{}' as written, and '{}' in indoubt's escaped form",
                    crate::text::escape(arg),
                    crate::text::escape_bytes(bytes)
                ),
                format!(
                    "for the first pass {}, for the second {}",
                    crate::text::escape_bytes(as_written.as_bytes()),
                    other
                ),
            ));
        }
        (true, false) => as_written,
        // Neither: "already resolved" holds for both readings.
        (false, _) => unescaped,
    })
}

#[cfg(test)]
mod golden;
