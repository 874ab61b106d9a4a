//! `indoubt resolve at XID --branch-id N --fix after-image|undo-log`: a Seata AT branch
//! whose rollback a dirty write holds up (its rows no longer as it left them, which
//! Seata's undo refuses), while the coordinator still retries that rollback. Either its
//! changed rows are set back to what the branch wrote (the retry then restores the before
//! image: the later change is lost), or its undo log is deleted (the retry finds nothing
//! to undo: the later change and the branch's own both stay). The evidence is the undo
//! log, the rows now, and what the coordinator's store says of the global, its branch
//! and its locks; the write goes through the one flow (dry run, confirmation, audit,
//! guards).

use super::seata_common;
use crate::appdb::Dialect;
use crate::cli::AtFix;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::quote::Sql;
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::seata_at::{AtFixing, StoreCheck, UndoLogRead};
use crate::resolve::flow::{self, Recorded};
use crate::seata::status::{decided, Decided, Stage};
use crate::seata::store::{Held, Known};
use crate::seata::undo::{self, Now, RowCheck, UndoLog};
use crate::settings::seata::ResolveAtSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::Result;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveAtReport {
    coordinator: String,
    client: String,
    undo_table: String,
    xid: String,
    branch_id: i64,
    fix: AtFix,
    /// The branch's undo log as read; null when there is none.
    undo: Option<UndoLog>,
    /// Its rows against the table now.
    rows: Vec<RowCheck>,
    /// Its global in the store; null when it has none (or it could not be read:
    /// `store_error`).
    global: Option<Known>,
    /// Whether the store names this branch an AT branch of the global.
    branch_in_store: Option<bool>,
    store_error: Option<String>,
    /// What would run (or ran).
    statements: Vec<String>,
    heuristic: bool,
    why: Option<String>,
    #[serde(flatten)]
    recorded: Recorded,
}

pub async fn run(ctx: &Context, s: &ResolveAtSettings) -> Result<Severity> {
    let client = s.client();
    let table = s.undo_table();
    let target = seata_common::client_target(client)?;
    let report_target = target.report_target();
    let mut session = seata_common::connect_client(ctx, client).await?;
    let log = undo::of_branch(&mut session, table, &s.xid, s.branch_id).await?;
    let images = log.as_ref().and_then(|l| l.images.as_ref().ok());
    let keyed = images.map(|i| undo::keyed_rows(i)).unwrap_or_default();
    // What the store says: the global's status, its AT branches, the rows it locks.
    let known = seata_common::known_globals(ctx, &s.coordinator, std::slice::from_ref(&s.xid));
    let held = seata_common::held(ctx, &s.coordinator, &s.xid, &keyed);
    let (known, held) = futures_util::join!(known, held);
    let store_error = known
        .as_ref()
        .err()
        .or(held.as_ref().err())
        .map(|e| format!("{e:#}"));
    // Only rows the store says the branch locks are read (as `seata globals` reads them).
    let rows = match (images, &held) {
        (Some(images), Ok(held)) if held.at_branches.contains(&s.branch_id) => {
            undo::check_rows(
                &mut session,
                images,
                &held.locked_by(s.branch_id),
                usize::MAX,
            )
            .await?
            .0
        }
        _ => Vec::new(),
    };
    session.close().await;
    let mut data = ResolveAtReport {
        coordinator: s.coordinator.name.clone(),
        client: client.name.clone(),
        undo_table: table.to_string(),
        xid: s.xid.clone(),
        branch_id: s.branch_id,
        fix: s.fix,
        global: known.as_ref().ok().and_then(|k| k.get(&s.xid)).cloned(),
        branch_in_store: held
            .as_ref()
            .ok()
            .map(|h: &Held| h.at_branches.contains(&s.branch_id)),
        store_error,
        undo: log,
        rows,
        statements: Vec::new(),
        heuristic: s.fix == AtFix::UndoLog,
        why: None,
        recorded: Recorded::default(),
    };
    let (statements, why) = match judge(&data, client.dialect()) {
        Ok(judged) => judged,
        Err(finding) => {
            return super::finish(ctx, "resolve at", report_target, vec![*finding], data)
        }
    };
    data.statements = statements.iter().map(|s| s.as_str().to_string()).collect();
    data.why = Some(why);
    let evidence = serde_json::json!({
        "coordinator": data.coordinator,
        "client": data.client,
        "undo_table": data.undo_table,
        "global": data.global,
        "fix": data.fix,
        "rows": data.rows,
        "why": data.why,
    });
    // The rows it writes must still be locked by the branch right before the write.
    let writes: Vec<(String, String)> = match s.fix {
        AtFix::AfterImage => data
            .rows
            .iter()
            .filter(|r| matches!(r.now, Now::Changed { .. } | Now::Reverted))
            .filter_map(|r| Some((r.table.clone(), r.read.as_ref()?.lock_key())))
            .collect(),
        AtFix::UndoLog => Vec::new(),
    };
    let store = StoreNow {
        ctx,
        settings: s,
        rows: writes,
    };
    let undo = UndoLogRead {
        table: table.to_string(),
        xid: s.xid.clone(),
        branch_id: s.branch_id,
        digest: data
            .undo
            .as_ref()
            .map(|u| u.digest.clone())
            .unwrap_or_default(),
    };
    let mut subjects = [AtFixing::new(
        target,
        report_target.clone(),
        undo,
        s.fix,
        statements,
        evidence,
        blocks(&data),
        (ctx.timeout, Box::new(store)),
    )];
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve at", report_target, findings, data)
}

/// The store, asked again right before the write.
struct StoreNow<'a> {
    ctx: &'a Context,
    settings: &'a ResolveAtSettings,
    /// The rows the write changes: (table, pk).
    rows: Vec<(String, String)>,
}

impl StoreCheck for StoreNow<'_> {
    fn recheck(&self) -> LocalBoxFuture<'_, Result<Option<String>>> {
        Box::pin(async move {
            let (s, xid) = (self.settings, &self.settings.xid);
            let known =
                seata_common::known_globals(self.ctx, &s.coordinator, std::slice::from_ref(xid))
                    .await?;
            let held = seata_common::held(self.ctx, &s.coordinator, xid, &self.rows).await?;
            Ok(still_holds(known.get(xid), &held, s.branch_id, &self.rows))
        })
    }
}

/// A rollback the coordinator retries: the one whose next retry a fix lets through.
fn retried(g: &Known) -> bool {
    decided(g.status) == Decided::Rollback && matches!(g.stage, Stage::Retrying | Stage::Ending)
}

/// What no longer holds of what the fix rests on (the store's word on the global, the
/// branch and the rows it writes), or None.
fn still_holds(
    global: Option<&Known>,
    held: &Held,
    branch_id: i64,
    rows: &[(String, String)],
) -> Option<String> {
    let Some(g) = global else {
        return Some("its global is gone from the coordinator's store".into());
    };
    if !retried(g) {
        return Some(format!(
            "its global is {}: not a rollback the coordinator retries",
            g.status_name
        ));
    }
    if !held.at_branches.contains(&branch_id) {
        return Some(format!(
            "branch {branch_id} is no longer an AT branch of it in the branch table"
        ));
    }
    let locked = held.locked_by(branch_id);
    rows.iter()
        .find(|r| !locked.contains(r))
        .map(|(table, pk)| {
            format!("the lock table no longer says branch {branch_id} locks {table}:{pk}")
        })
}

fn subject(data: &ResolveAtReport) -> crate::text::Text {
    text!["at branch ", data.xid, " branch ", data.branch_id]
}

/// The statements that fix the branch, and why they let its rollback go on; else the
/// refusal. Pure: it judges what was read.
fn judge(data: &ResolveAtReport, dialect: Dialect) -> Result<(Vec<Sql>, String), Box<Finding>> {
    let refuse = |severity, code, message: String| {
        Err(Box::new(
            Finding::new(severity, code, subject(data), message)
                .evidence("source", data.undo_table.clone()),
        ))
    };
    let Some(log) = &data.undo else {
        return refuse(
            Severity::Unknown,
            codes::NOT_THERE,
            format!(
                "nothing done: {} holds no undo log of branch {} of this xid (is it the right client and branch? `indoubt seata globals` names each AT branch's undo log)",
                data.undo_table, data.branch_id
            ),
        );
    };
    if log.log_status == 1 {
        return refuse(
            Severity::Ok,
            codes::AT_NOTHING_TO_FIX,
            "nothing done: it is a defense record (the rollback came before the branch's local commit): there is nothing to undo".into(),
        );
    }
    let images = match &log.images {
        Ok(images) => images,
        Err(why) => {
            return refuse(
                Severity::Unknown,
                codes::FAILED,
                format!("nothing done: its undo log cannot be read: {why}"),
            )
        }
    };
    if let Some(e) = &data.store_error {
        return refuse(
            Severity::Unknown,
            codes::FAILED,
            format!(
                "nothing done: what the coordinator's store says of its global is not known ({e})"
            ),
        );
    }
    let Some(g) = &data.global else {
        return refuse(
            Severity::Warning,
            codes::AT_NOT_RETRIED,
            "REFUSED: its global transaction is no longer in the coordinator's store: no retry will come".into(),
        );
    };
    if !retried(g) {
        let what = match (g.stage, decided(g.status)) {
            (Stage::GaveUp, _) => "the coordinator has given it up and retries it no more",
            (Stage::Open, _) => "the coordinator has not decided it yet",
            (_, Decided::Commit) => "it commits, and a commit reads no row",
            _ => "the coordinator is not rolling it back",
        };
        return refuse(
            Severity::Warning,
            codes::AT_NOT_RETRIED,
            format!("REFUSED: its global is {}: {what}", g.status_name),
        );
    }
    if data.branch_in_store != Some(true) {
        return refuse(
            Severity::Critical,
            codes::NOT_THERE,
            format!(
                "REFUSED: branch {} is not an AT branch of this global in the coordinator's branch table",
                data.branch_id
            ),
        );
    }
    // Every row of the undo log is among the rows read (no sample): one not compared
    // leaves the fix unproven.
    let unread = data
        .rows
        .iter()
        .filter(|r| matches!(r.now, Now::NotCompared { .. }))
        .count();
    if unread > 0 {
        return refuse(
            Severity::Critical,
            codes::AT_NOT_FIXABLE,
            format!(
                "REFUSED: {unread} of its {} row(s) could not be compared with the table now (the report's rows say why)",
                data.rows.len()
            ),
        );
    }
    let dirty: Vec<&RowCheck> = data
        .rows
        .iter()
        .filter(|r| matches!(r.now, Now::Changed { .. } | Now::Deleted | Now::Reverted))
        .collect();
    if dirty.is_empty() {
        return refuse(
            Severity::Ok,
            codes::AT_NOTHING_TO_FIX,
            "nothing done: every row of the branch is as it left it (or already as before it): the coordinator's next retry can roll it back as it is".into(),
        );
    }
    match data.fix {
        AtFix::UndoLog => {
            let Some(delete) = undo::delete_statement(
                dialect,
                &data.undo_table,
                &data.xid,
                data.branch_id,
                &log.digest,
            ) else {
                return refuse(
                    Severity::Unknown,
                    codes::AT_NOT_FIXABLE,
                    "nothing done: the undo log table's name holds a character that would not show in a statement".into(),
                );
            };
            Ok((
            vec![delete],
            format!(
                "its global is {}: the coordinator retries the rollback, which {} changed row(s) refuse; with no undo log the next retry finds nothing to undo and ends the branch, keeping those rows as they are now and what the branch wrote to the others",
                g.status_name,
                dirty.len()
            ),
        ))
        }
        AtFix::AfterImage => {
            let mut statements = Vec::new();
            for check in &dirty {
                let fail = |why: String| {
                    refuse(
                        Severity::Critical,
                        codes::AT_NOT_FIXABLE,
                        format!("REFUSED: row {} {}: {why}", check.table, check.key),
                    )
                };
                if check.now == Now::Deleted {
                    return fail(
                        "it was deleted since: set it back by hand (an INSERT of the after image)"
                            .into(),
                    );
                }
                let after = images
                    .get(check.statement)
                    .and_then(|t| t.after.iter().find(|a| undo::key_text(a) == check.key));
                let (Some(after), Some(read)) = (after, &check.read) else {
                    return fail("its after image or its row as read is missing".into());
                };
                match undo::restore_statement(dialect, &check.table, after, read) {
                    Ok(sql) => statements.push(sql),
                    Err(why) => return fail(why),
                }
            }
            Ok((
                statements,
                format!(
                    "its global is {}: the coordinator retries the rollback, which {} changed row(s) refuse; set back to what the branch wrote, the next retry restores the before image (what was written to them since is lost)",
                    g.status_name,
                    dirty.len()
                ),
            ))
        }
    }
}

/// What the operator confirms: the branch, its global, each changed row, the statements.
fn blocks(data: &ResolveAtReport) -> Vec<Block> {
    let mut b = Block::new(shown!("at branch, undo log {}", data.undo_table));
    b.whole("xid", Shown::text(&data.xid))
        .field("branch", shown!("{}", data.branch_id))
        .field(
            "global",
            match (&data.global, &data.store_error) {
                (Some(g), _) => shown!("{} (status {})", g.status_name, g.status),
                (None, Some(e)) => shown!("not known: {}", e),
                (None, None) => Shown::lit("gone from the coordinator's store"),
            },
        );
    for row in &data.rows {
        let now = Shown::text(&seata_common::row_now(&row.now));
        b.field("row", shown!("{} {}: {}", row.table, row.key, now));
    }
    if let Some(why) = &data.why {
        b.field("why", shown!("{}", why));
    }
    for statement in &data.statements {
        // Exactly as it runs (it was built by Sql: it shows as itself).
        let sql = crate::next::Next::sql(crate::quote::Sql::assembled(statement.clone()));
        b.whole("will run", sql.shown());
    }
    if data.heuristic && data.why.is_some() {
        b.alarm(
            "HEURISTIC",
            Shown::lit("the branch's own change stays, which the rollback would have undone: recorded with the reason given"),
        );
    }
    vec![b]
}

impl TableView for ResolveAtReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = self.recorded.evidence(&blocks(self), style);
        lines.extend(self.recorded.recorded_in());
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(status: i16) -> Known {
        let (status_name, stage) = crate::seata::status::global(status);
        Known {
            status,
            status_name,
            stage,
            begun_at: None,
            timeout_ms: None,
        }
    }

    /// Read again right before the write (the prompt may have taken minutes), the store
    /// must still say what the fix rests on; any change refuses it.
    #[test]
    fn the_write_waits_on_the_store_still_saying_what_the_fix_rests_on() {
        let rows = vec![("accounts".to_string(), "1001".to_string())];
        let mut held = Held::default();
        held.at_branches.insert(7);
        held.rows.insert((7, "accounts".into(), "1001".into()));
        assert_eq!(still_holds(Some(&known(6)), &held, 7, &rows), None);
        let given_up = still_holds(Some(&known(12)), &held, 7, &rows);
        assert!(given_up.is_some_and(|w| w.contains("RollbackFailed")));
        assert!(still_holds(None, &held, 7, &rows).is_some_and(|w| w.contains("gone")));
        assert!(still_holds(Some(&known(6)), &held, 8, &rows).is_some());
        let mut other = Held::default();
        other.at_branches.insert(7);
        other.rows.insert((9, "accounts".into(), "1001".into()));
        let unlocked = still_holds(Some(&known(6)), &other, 7, &rows);
        assert!(unlocked.is_some_and(|w| w.contains("accounts:1001")));
    }
}
