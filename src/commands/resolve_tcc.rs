//! `indoubt resolve tcc XID --branch-id N --as cancelled|confirmed`: after a person did a
//! TCC Try's Cancel (or Confirm) by hand, its fence record is marked as that phase, so the
//! coordinator's next retry of the phase finds it done (Seata's fence answers a Cancel of
//! a rolled-back record with success, without calling the service) and its global can
//! end. The evidence is the record and what the coordinator's store says of its global;
//! the mark goes through the one flow (dry run, confirmation, audit, a guard).

use super::seata_common;
use crate::cli::TccPhase;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::seata::FenceMark;
use crate::resolve::flow::{self, Recorded};
use crate::seata::fence;
use crate::seata::status::{decided, Decided, Stage};
use crate::seata::store::Known;
use crate::settings::seata::ResolveTccSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveTccReport {
    coordinator: String,
    client: String,
    fence_table: String,
    xid: String,
    branch_id: i64,
    phase: TccPhase,
    /// The record's status when read; null when there is no such record.
    fence_status: Option<i16>,
    action_name: Option<String>,
    /// Its global in the store; null when it has none (or it could not be read:
    /// `global_error`).
    global: Option<Known>,
    global_error: Option<String>,
    /// What would run (or ran).
    statement: Option<String>,
    heuristic: bool,
    why: Option<String>,
    #[serde(flatten)]
    recorded: Recorded,
}

pub async fn run(ctx: &Context, s: &ResolveTccSettings) -> Result<Severity> {
    let client = s.client();
    let table = s.fence_table();
    let target = seata_common::client_target(client)?;
    let report_target = target.report_target();
    let mut session = seata_common::connect_client(ctx, client).await?;
    let record = fence::record(&mut session, table, &s.xid, s.branch_id).await;
    session.close().await;
    let record = record?;
    let known =
        seata_common::known_globals(ctx, &s.coordinator, std::slice::from_ref(&s.xid)).await;
    let mut data = ResolveTccReport {
        coordinator: s.coordinator.name.clone(),
        client: client.name.clone(),
        fence_table: table.to_string(),
        xid: s.xid.clone(),
        branch_id: s.branch_id,
        phase: s.phase,
        fence_status: record.as_ref().map(|r| r.0),
        action_name: record.as_ref().and_then(|r| r.1.clone()),
        global: known.as_ref().ok().and_then(|k| k.get(&s.xid)).cloned(),
        global_error: known.as_ref().err().map(|e| format!("{e:#}")),
        statement: None,
        heuristic: false,
        why: None,
        recorded: Recorded::default(),
    };
    let wanted: i16 = match s.phase {
        TccPhase::Cancelled => 3,
        TccPhase::Confirmed => 2,
    };
    let (heuristic, why) = match judge(&data, wanted) {
        Ok(judged) => judged,
        Err(finding) => {
            return super::finish(ctx, "resolve tcc", report_target, vec![*finding], data)
        }
    };
    let Some(plan) = fence::mark_statement(client.dialect(), table, &s.xid, s.branch_id, wanted)
    else {
        let finding = Finding::new(
            Severity::Unknown,
            codes::NOT_THERE,
            subject(&data),
            "nothing done: the fence table's name holds a character that would not show in a statement",
        );
        return super::finish(ctx, "resolve tcc", report_target, vec![finding], data);
    };
    data.statement = Some(plan.as_str().to_string());
    data.heuristic = heuristic;
    data.why = Some(why);
    let evidence = serde_json::json!({
        "coordinator": data.coordinator,
        "client": data.client,
        "fence_table": data.fence_table,
        "action_name": data.action_name,
        "fence_status": data.fence_status,
        "global": data.global,
        "global_error": data.global_error,
        "phase": data.phase,
        "why": data.why,
    });
    let mut subjects = [FenceMark::new(
        target,
        report_target.clone(),
        table.to_string(),
        (s.xid.clone(), s.branch_id),
        (wanted, plan),
        heuristic,
        evidence,
        blocks(&data),
        ctx.timeout,
    )];
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve tcc", report_target, findings, data)
}

fn subject(data: &ResolveTccReport) -> crate::text::Text {
    text!["tcc try ", data.xid, " branch ", data.branch_id]
}

/// Whether the record may be marked `wanted`, and why (the heuristic flag: without the
/// coordinator's decision); else the refusal. Pure: it judges what was read.
fn judge(data: &ResolveTccReport, wanted: i16) -> Result<(bool, String), Box<Finding>> {
    let refuse = |severity, code, message: String| {
        Err(Box::new(
            Finding::new(severity, code, subject(data), message)
                .evidence("source", data.fence_table.clone()),
        ))
    };
    match data.fence_status {
        None => {
            return refuse(
                Severity::Unknown,
                codes::NOT_THERE,
                format!(
                    "nothing done: {} holds no record of branch {} of this xid (is it the right client and branch? `indoubt seata tcc` lists the open Trys)",
                    data.fence_table, data.branch_id
                ),
            )
        }
        Some(s) if s == wanted => {
            return refuse(
                Severity::Ok,
                codes::ALREADY_RESOLVED,
                format!(
                    "nothing done: its fence already says {}",
                    fence::status_name(s).unwrap_or("?")
                ),
            )
        }
        Some(1) => {}
        Some(s) => {
            return refuse(
                Severity::Warning,
                codes::CHANGED_MEANWHILE,
                format!(
                    "nothing done: its fence says {}, not tried: its phase two already ran",
                    fence::status_name(s).unwrap_or("an unknown status")
                ),
            )
        }
    }
    let phase = match wanted {
        2 => "Confirm",
        _ => "Cancel",
    };
    if let Some(e) = &data.global_error {
        return refuse(
            Severity::Unknown,
            codes::FAILED,
            format!("nothing done: what the coordinator says of its global is not known ({e})"),
        );
    }
    let Some(g) = &data.global else {
        return Ok((
            true,
            format!("its global transaction is no longer in the coordinator's store: nothing will call its {phase}; marked by a person's decision"),
        ));
    };
    let agrees = matches!(
        (decided(g.status), wanted),
        (Decided::Rollback, 3) | (Decided::Commit, 2)
    );
    match (g.stage, decided(g.status)) {
        (Stage::Open, _) => refuse(
            Severity::Warning,
            codes::TCC_UNDECIDED,
            format!(
                "nothing done: its global is {}: the coordinator has not decided between Confirm and Cancel",
                g.status_name
            ),
        ),
        (_, Decided::Commit | Decided::Rollback) if !agrees => refuse(
            Severity::Critical,
            codes::TCC_PHASE_CONFLICT,
            format!(
                "REFUSED: its global is {}: the coordinator runs the other phase, not its {phase}",
                g.status_name
            ),
        ),
        (Stage::GaveUp | Stage::Ended, _) | (_, Decided::Unclear) => Ok((
            true,
            format!(
                "its global is {}: nothing will call its {phase}; marked by a person's decision",
                g.status_name
            ),
        )),
        _ => Ok((
            false,
            format!(
                "its global is {}: the coordinator retries its {phase}; the first retry a client of the service takes finds it done in the fence, and the branch ends",
                g.status_name
            ),
        )),
    }
}

/// What the operator confirms: the record, its global, the statement.
fn blocks(data: &ResolveTccReport) -> Vec<Block> {
    let mut b = Block::new(shown!("tcc try, fence {}", data.fence_table));
    b.whole("xid", Shown::text(&data.xid))
        .field("branch", shown!("{}", data.branch_id))
        .field(
            "action",
            Shown::text(data.action_name.as_deref().unwrap_or("?")),
        )
        .field(
            "global",
            match (&data.global, &data.global_error) {
                (Some(g), _) => shown!("{} (status {})", g.status_name, g.status),
                (None, Some(e)) => shown!("not known: {}", e),
                (None, None) => Shown::lit("gone from the coordinator's store"),
            },
        );
    if let Some(why) = &data.why {
        b.field("why", shown!("{}", why));
    }
    if let Some(statement) = &data.statement {
        // Exactly as it runs (it was built by Sql: it shows as itself).
        let sql = crate::next::Next::sql(crate::quote::Sql::assembled(statement.clone()));
        b.whole("will run", sql.shown());
    }
    if data.heuristic {
        b.alarm(
            "HEURISTIC",
            Shown::lit("without the coordinator's decision: recorded with the reason given; do the phase by hand first"),
        );
    }
    vec![b]
}

impl TableView for ResolveTccReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut lines = self.recorded.evidence(&blocks(self), style);
        lines.extend(self.recorded.recorded_in());
        lines
    }
}
