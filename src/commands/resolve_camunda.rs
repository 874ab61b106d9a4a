//! `indoubt resolve camunda NAME ID… [--retries N]`: gives jobs or external tasks (named
//! by their ids or their incidents') their retries back through the engine's REST API,
//! which resolves their incidents the engine's way. Each id is first found in the engine's
//! tables (a mistyped one stops the run: nothing is done); the calls go through the one
//! flow (dry run, confirmation, audit). Without a REST API configured, the calls are
//! printed, never made in SQL.

use crate::camunda::engine::{self, Found};
use crate::camunda::rest::Kind;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::next::{Next, Word};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::camunda::{call_line, SetRetries};
use crate::resolve::flow::{self, Recorded};
use crate::settings::camunda::{Engine, ResolveCamundaSettings};
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::Result;
use serde::Serialize;

/// Where the call goes when no API is configured: the operator fills in its host.
const UNCONFIGURED_API: &str = "http://HOST:8080/engine-rest";

#[derive(Debug, Serialize)]
pub(crate) struct ResolveCamundaReport {
    engine: String,
    rest: Option<String>,
    retries: u32,
    /// What each id named, as read from the engine's tables.
    found: Vec<Found>,
    #[serde(flatten)]
    recorded: Recorded,
}

pub async fn run(ctx: &Context, s: &ResolveCamundaSettings) -> Result<Severity> {
    let e = &s.engine;
    let target = e.target().map_err(anyhow::Error::msg)?;
    let report_target = target.report_target();
    let mut data = ResolveCamundaReport {
        engine: e.name.clone(),
        rest: e.rest.as_ref().map(|r| r.url.clone()),
        retries: s.retries,
        found: Vec::new(),
        recorded: Recorded::default(),
    };
    let session = super::appdb_common::connect_pg(ctx, &e.target()).await?;
    let tables = e.tables();
    let problems = engine::problems(&session, &tables).await?;
    if !problems.is_empty() {
        let finding = Finding::new(
            Severity::Unknown,
            codes::NOT_THERE,
            e.subject(),
            "nothing done: the engine's tables cannot be read; `indoubt camunda incidents` says why",
        );
        return super::finish(ctx, "resolve camunda", report_target, vec![finding], data);
    }
    let mut missing = Vec::new();
    for id in &s.ids {
        match engine::find(&session, &tables, id).await? {
            Some(found) => data.found.push(found),
            None => missing.push(id.clone()),
        }
    }
    // Retries left and no incident: nothing to give back (it runs again at its due
    // date); only stopping it (--retries 0) is a change the evidence calls for.
    let refusals: Vec<Finding> = data
        .found
        .iter()
        .filter(|f| f.open_incident.is_none() && f.retries.is_some_and(|r| r > 0) && s.retries > 0)
        .map(|f| {
            Finding::new(
                Severity::Warning,
                codes::NOT_JUDGED,
                e.subject(),
                format!(
                    "nothing done: {} {} has {} retries left and no open incident: the engine runs it again by itself, and setting its retries would only change the count (--retries 0 stops it: it becomes an incident)",
                    kind_name(f.kind),
                    f.id,
                    f.retries.unwrap_or_default()
                ),
            )
        })
        .collect();
    if missing.is_empty() && !refusals.is_empty() {
        return super::finish(ctx, "resolve camunda", report_target, refusals, data);
    }
    if !missing.is_empty() {
        let findings = missing
            .iter()
            .map(|id| {
                Finding::new(
                    Severity::Unknown,
                    codes::NOT_THERE,
                    e.subject(),
                    text![
                        "nothing done: engine ",
                        e.name,
                        " has no job, external task or open incident ",
                        id.as_str(),
                        " (mistyped? already completed?)"
                    ],
                )
                .advice("`indoubt camunda incidents` names the ids of what is stuck")
            })
            .collect();
        return super::finish(ctx, "resolve camunda", report_target, findings, data);
    }
    let Some(api) = &e.rest else {
        let findings = data
            .found
            .iter()
            .map(|f| printed(e, f, s.retries))
            .collect();
        return super::finish(ctx, "resolve camunda", report_target, findings, data);
    };
    let mut subjects: Vec<SetRetries> = data
        .found
        .iter()
        .map(|f| {
            let evidence = serde_json::json!({
                "engine": e.name,
                "found": f,
                "retries": s.retries,
            });
            SetRetries::new(
                api.clone(),
                report_target.clone(),
                (e.name.clone(), f.clone(), s.retries),
                (evidence, vec![block(f, &api.url, s.retries)]),
                ctx.timeout,
            )
        })
        .collect();
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve camunda", report_target, findings, data)
}

/// Without a REST API: the call to make, as a command line (nothing is sent), a WARNING
/// on a dry run too: nothing was done, and an OK finding carries no command.
fn printed(e: &Engine, f: &Found, retries: u32) -> Finding {
    let url = format!(
        "{UNCONFIGURED_API}/{}/{}/retries",
        f.kind.path(),
        crate::camunda::rest::segment(&f.id)
    );
    let body = format!("{{\"retries\":{retries}}}");
    let call = Next::tool(
        "curl",
        &[
            Word::Lit("-fsS"),
            Word::Lit("-X"),
            Word::Lit("PUT"),
            Word::Lit("-H"),
            Word::Lit("Content-Type: application/json"),
            Word::Lit("--data"),
            Word::Value(&body),
            Word::Value(&url),
        ],
    );
    Finding::new(
        Severity::Warning,
        codes::CALL_ONLY,
        e.subject(),
        text![
            "nothing sent: no REST API is configured for engine ",
            e.name,
            "; the engine sets ",
            kind_name(f.kind),
            " ",
            f.id,
            "'s retries through the call below (HOST: where its REST API runs)"
        ],
    )
    .advice("or name the API under camunda: NAME: rest: in the config, and indoubt makes the call after confirmation, with an audit record")
    .next(call)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Job => "job",
        Kind::ExternalTask => "external task",
    }
}

/// What the operator confirms: what the id named, its failure, its instance, the call.
fn block(f: &Found, url: &str, retries: u32) -> Block {
    let mut b = Block::new(shown!(
        "{} {} at activity {} of process {}",
        kind_name(f.kind),
        f.id,
        f.activity,
        f.process
    ));
    if let Some(incident) = &f.incident {
        b.field("named by incident", shown!("{}", incident));
    }
    b.field(
        "retries now",
        shown!(
            "{}",
            f.retries
                .map(|r| r.to_string())
                .unwrap_or_else(|| "not set".into())
        ),
    );
    if let Some(open) = &f.open_incident {
        b.field("open incident", shown!("{}", open));
    }
    if let Some(m) = &f.message {
        b.field("failure", shown!("{}", m));
    }
    if let Some(key) = &f.business_key {
        b.field("business key", shown!("{}", key));
    }
    if let Some(instance) = &f.process_instance {
        b.field("process instance", shown!("{}", instance));
    }
    b.field("call", shown!("{}", call_line(url, f.kind, &f.id, retries)));
    b
}

impl TableView for ResolveCamundaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        // Without an API the call is the printed one's, to the engine's REST API wherever
        // it runs.
        let url = self.rest.as_deref().unwrap_or(UNCONFIGURED_API);
        let blocks: Vec<Block> = self
            .found
            .iter()
            .map(|f| block(f, url, self.retries))
            .collect();
        let mut lines = match blocks.is_empty() {
            true => Vec::new(),
            false => self.recorded.evidence(&blocks, style),
        };
        lines.extend(self.recorded.recorded_in());
        lines
    }
}
