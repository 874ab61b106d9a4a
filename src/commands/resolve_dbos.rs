//! `indoubt resolve dbos NAME ID… --resume|--cancel [--executor-gone]`: resumes or
//! cancels DBOS workflows through DBOS's own CLI. Each id is first found in DBOS's tables
//! (a mistyped one stops the run: DBOS's `cancel` of an unknown id says nothing); what
//! DBOS would ignore (a workflow in SUCCESS or ERROR) or what would run twice (resuming a
//! PENDING workflow while DBOS processes are connected, unless the operator says its
//! executor is gone) is refused; the rest goes through the one flow (dry run,
//! confirmation, audit). Without a CLI configured, the command is printed.

use crate::codes;
use crate::context::Context;
use crate::dbos::cli;
use crate::dbos::system::{self, Found};
use crate::findings::{Finding, Severity};
use crate::next::{Next, Word};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::dbos::DbosCall;
use crate::resolve::flow::{self, Recorded};
use crate::settings::dbos::{Action, App, ResolveDbosSettings};
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveDbosReport {
    application: String,
    action: Action,
    /// DBOS's connections open on the database when read (a process holds several).
    connections: i64,
    /// Each workflow, as read from DBOS's tables.
    found: Vec<Found>,
    #[serde(flatten)]
    recorded: Recorded,
    /// What was confirmed (shown unless the prompt showed it).
    #[serde(skip)]
    blocks: Vec<Block>,
}

pub async fn run(ctx: &Context, s: &ResolveDbosSettings) -> Result<Severity> {
    let a = &s.app;
    let target = a.target().map_err(anyhow::Error::msg)?;
    let report_target = target.report_target();
    let session = super::appdb_common::connect_pg(ctx, &a.target()).await?;
    let tables = a.tables();
    let mut data = ResolveDbosReport {
        application: a.name.clone(),
        action: s.action,
        connections: 0,
        found: Vec::new(),
        recorded: Recorded::default(),
        blocks: Vec::new(),
    };
    if !system::problems(&session, &tables).await?.is_empty() {
        let finding = Finding::new(
            Severity::Unknown,
            codes::NOT_THERE,
            a.subject(),
            "nothing done: DBOS's tables cannot be read; `indoubt dbos workflows` says why",
        );
        return super::finish(ctx, "resolve dbos", report_target, vec![finding], data);
    }
    data.connections = system::connections(&session).await?;
    let mut refusals = Vec::new();
    for id in &s.ids {
        match system::find(&session, &tables, id).await? {
            Some(found) => {
                refusals.extend(refusal(a, s, data.connections, &found));
                data.found.push(found);
            }
            None => refusals.push(
                Finding::new(
                    Severity::Unknown,
                    codes::NOT_THERE,
                    a.subject(),
                    text![
                        "nothing done: application ",
                        a.name,
                        " has no workflow ",
                        id.as_str(),
                        " (mistyped? DBOS's own cancel of an unknown id would say nothing)"
                    ],
                )
                .advice("`indoubt dbos workflows` names the ids of what is stuck"),
            ),
        }
    }
    // What each is, as the operator reads it before anything runs (or why nothing does):
    // the command is DBOS's CLI as configured, else as printed.
    let versions = system::latest_versions(&session, &tables).await?;
    let program = a.cli.clone().unwrap_or_else(|| vec!["dbos".to_string()]);
    let calls: Vec<(cli::Call, Option<String>)> = data
        .found
        .iter()
        .map(|f| {
            let call = cli::call(
                &program,
                &target.params,
                &a.schema.value,
                s.action.word(),
                &f.id,
            );
            (
                call,
                system::latest_for(&versions, f.application.as_deref()).cloned(),
            )
        })
        .collect();
    data.blocks = data
        .found
        .iter()
        .zip(&calls)
        .map(|(f, (call, latest))| {
            block(
                f,
                s,
                (data.connections, latest.as_deref()),
                Next::argv(&call.argv),
            )
        })
        .collect();
    if !refusals.is_empty() {
        return super::finish(ctx, "resolve dbos", report_target, refusals, data);
    }
    if a.cli.is_none() {
        let findings = data
            .found
            .iter()
            .map(|f| printed(a, &target.params, f, s))
            .collect();
        return super::finish(ctx, "resolve dbos", report_target, findings, data);
    }
    let mut subjects: Vec<DbosCall> = Vec::new();
    for ((f, (call, latest)), summary) in data.found.iter().zip(calls).zip(&data.blocks) {
        let evidence = serde_json::json!({
            "application": a.name,
            "found": f,
            "connections": data.connections,
            "latest_version": latest,
            "executor_gone": s.executor_gone,
        });
        subjects.push(DbosCall::new(
            call,
            (target.params.clone(), tables.clone()),
            report_target.clone(),
            (a.name.clone(), f.clone(), s.action, latest),
            (evidence, vec![summary.clone()]),
            ctx.timeout,
        ));
    }
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve dbos", report_target, findings, data)
}

/// Why DBOS would not do what is asked, or would do harm: a finding, and nothing runs.
fn refusal(a: &App, s: &ResolveDbosSettings, connections: i64, f: &Found) -> Option<Finding> {
    let refuse =
        |code, severity, message: String| Some(Finding::new(severity, code, a.subject(), message));
    match (s.action, f.status.as_str()) {
        (_, "SUCCESS") => refuse(
            codes::ALREADY_RESOLVED,
            Severity::Ok,
            format!("nothing to do: workflow {} succeeded", f.id),
        ),
        (Action::Cancel, "CANCELLED") => refuse(
            codes::ALREADY_RESOLVED,
            Severity::Ok,
            format!("nothing to do: workflow {} is already cancelled", f.id),
        ),
        (_, "ERROR") => refuse(
            codes::NOT_JUDGED,
            Severity::Warning,
            format!(
                "nothing done: workflow {} ended in ERROR, and DBOS's resume and cancel do nothing for it; DBOS's fork (dbos workflow fork with its id and --step N) starts it again from step N, running that step's side effects again: run it yourself if that is wanted",
                f.id
            ),
        ),
        (Action::Resume, "PENDING") if connections > 0 && !s.executor_gone => refuse(
            codes::NOT_JUDGED,
            Severity::Warning,
            format!(
                "nothing done: workflow {} is PENDING on executor {}, and {connections} DBOS connection(s) are open on this database; DBOS keeps no liveness of its executors, and resuming a workflow whose process is alive runs it twice. Restart executor {} (it recovers its own), or, if you know its process is gone, add --executor-gone (recorded with the resolution)",
                f.id,
                f.executor.as_deref().unwrap_or("(none)"),
                f.executor.as_deref().unwrap_or("(none)"),
            ),
        ),
        _ => None,
    }
}

/// Without a CLI: the command to run (nothing is run), a WARNING: nothing was done.
fn printed(
    a: &App,
    params: &crate::pg::conninfo::ConnParams,
    f: &Found,
    s: &ResolveDbosSettings,
) -> Finding {
    let url = cli::url(params);
    let next = Next::tool(
        "dbos",
        &[
            Word::Lit("workflow"),
            Word::Lit(s.action.word()),
            Word::Lit("--sys-db-url"),
            Word::Value(&url),
            Word::Lit("--schema"),
            Word::Value(&a.schema.value),
            Word::Lit("--"),
            Word::Value(&f.id),
        ],
    );
    // A WARNING on a dry run too: what would be done is not something indoubt can do,
    // and an OK finding carries no command.
    Finding::new(
        Severity::Warning,
        codes::CALL_ONLY,
        a.subject(),
        text![
            "nothing run: no DBOS CLI is configured for application ",
            a.name,
            "; DBOS ",
            s.action.word(),
            "s workflow ",
            f.id,
            " through the command below (its password in PGPASSWORD)"
        ],
    )
    .advice("or name DBOS's CLI under dbos: NAME: cli: in the config, and indoubt runs it after confirmation, with an audit record")
    .next(next)
}

/// What the operator confirms: the workflow, its state, who may still run it, the command.
fn block(
    f: &Found,
    s: &ResolveDbosSettings,
    (connections, latest): (i64, Option<&str>),
    command: Next,
) -> Block {
    let mut b = Block::new(shown!("workflow {} ({})", f.id, f.name));
    b.field("status", shown!("{}", f.status))
        .field(
            "version",
            shown!("{}", f.version.as_deref().unwrap_or("(none)")),
        )
        .field(
            "executor",
            shown!("{}", f.executor.as_deref().unwrap_or("(none)")),
        )
        .field(
            "last step",
            shown!(
                "{}",
                f.last_step
                    .as_ref()
                    .map(|st| format!("{} (#{})", st.name, st.function_id))
                    .unwrap_or_else(|| "none completed".into())
            ),
        )
        .field(
            "DBOS connections open",
            shown!(
                "{}{}",
                connections,
                match (s.executor_gone, f.status.as_str()) {
                    (true, "PENDING") => " (its executor is gone, says the operator)",
                    _ => "",
                }
            ),
        );
    if s.action == Action::Resume {
        let version = f.version.as_deref().unwrap_or("(none)");
        b.field(
            "runs it",
            match latest {
                Some(latest) if latest != version => shown!(
                    "a process of version {} only, and the newest version is {}: none may run it",
                    version,
                    latest
                ),
                _ => shown!("a process of version {} only", version),
            },
        );
    }
    // As typed: its words show as themselves (escaping would double a quote's backslash).
    b.whole("command", command.shown());
    b
}

impl TableView for ResolveDbosReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.recorded.lines(&self.blocks, style)
    }
}
