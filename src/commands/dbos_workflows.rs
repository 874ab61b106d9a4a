//! `indoubt dbos workflows`: each configured DBOS Transact application — the workflows
//! DBOS gave up recovering, those that ended in error, PENDING ones stranded under an
//! application version no process runs or unmoved past the age (told apart from those
//! only waiting in a sleep or a receive, by their last step), and queues whose head holds
//! the rest.

mod codes;
mod settings;

use crate::appdb::Problem;
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::dbos::system::{self, Enqueued, Group, Snapshot, Workflow};
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::dbos::{App, DbosSettings};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::time::Duration;

static DBOS_WORKFLOWS: Family = Family {
    name: "indoubt_dbos_stuck_workflows",
    help: "DBOS workflows by how they are stuck: dead_lettered (past max_recovery_attempts), error (in ERROR within the error window), pending (unmoved past pending_age, not waiting), enqueued (waiting behind a queue's stuck heads).",
    labels: &["kind"],
};

/// `dbos workflows` as a probe.
pub(crate) struct DbosWorkflows;

impl Inspect for DbosWorkflows {
    type Args = settings::DbosArgs;
    type Settings = DbosSettings;
    type Gathered = Vec<Read>;
    type Data = DbosReport;
    const NAME: &'static str = "dbos workflows";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Dbos);
    const MEASURES: &'static [&'static Family] = &[&DBOS_WORKFLOWS];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every application of the config", "indoubt dbos workflows"),
            example!("One application, as JSON (every stalled workflow and its last step)", "indoubt -o json dbos workflows orders"),
        ],
        see_also: &["camunda incidents"],
        codes: &[
            codes::DBOS_SYSTEM,
            codes::DBOS_DEAD_LETTERED,
            codes::DBOS_ERROR,
            codes::DBOS_STRANDED,
            codes::DBOS_PENDING,
            codes::DBOS_QUEUE_STARVED,
            codes::DBOS_UNREADABLE,
        ],
    };

    fn measures(data: &DbosReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for a in &data.applications {
            let Some(s) = &a.snapshot else { continue };
            let sum =
                |groups: &[crate::dbos::system::Group]| groups.iter().map(|g| g.count).sum::<i64>();
            for (kind, n) in [
                ("dead_lettered", sum(&s.dead_lettered)),
                ("error", sum(&s.errors)),
                ("pending", s.stalled_total),
                ("enqueued", s.enqueued.iter().map(|e| e.count).sum::<i64>()),
            ] {
                out.push(DBOS_WORKFLOWS.at(n as f64).label("kind", kind));
            }
        }
        out
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<DbosSettings> {
        crate::settings::dbos::settings(t, args.name.as_deref())
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .dbos
            .iter()
            .filter(|(_, c)| c.check)
            .map(|(name, _)| planned(name, &["dbos", "workflows", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        config
            .dbos
            .iter()
            .flat_map(|(name, c)| {
                let section = format!("dbos {name}");
                let (schema, ..) = crate::settings::dbos::thresholds(name, c);
                let s = system::Schema::new(&schema.value);
                [
                    Uses::pg_table(
                        &section,
                        &c.postgres,
                        &s.name("workflow_status"),
                        &system::WORKFLOW_COLUMNS,
                    ),
                    Uses::pg_table(
                        &section,
                        &c.postgres,
                        &s.name("operation_outputs"),
                        &system::STEP_COLUMNS,
                    ),
                ]
            })
            .collect()
    }

    async fn gather(ctx: &Context, settings: &DbosSettings) -> Result<Vec<Read>> {
        let mut reads = Vec::new();
        for a in &settings.apps {
            reads.push(read(ctx, a).await);
        }
        Ok(reads)
    }

    fn report(ctx: &Context, settings: &DbosSettings, reads: Vec<Read>) -> Report<DbosReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// What one application's system tables came to.
pub(crate) enum Read {
    Snapshot(Snapshot),
    Problems(Vec<Problem>),
    Failed(anyhow::Error),
}

async fn read(ctx: &Context, a: &App) -> Read {
    let read = async {
        let session = super::appdb_common::connect_pg(ctx, &a.target()).await?;
        let tables = a.tables();
        let problems = system::problems(&session, &tables).await?;
        if !problems.is_empty() {
            return Ok(Read::Problems(problems));
        }
        let migration = system::migration(&session, &tables).await?;
        let snapshot = system::read(
            &session,
            &tables,
            migration,
            (a.pending_age.value, a.error_window.value),
        )
        .await
        .with_context(|| format!("reading application {}'s DBOS tables", a.name))?;
        Ok::<_, anyhow::Error>(Read::Snapshot(snapshot))
    };
    read.await.unwrap_or_else(Read::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct DbosReport {
    applications: Vec<AppEntry>,
}

#[derive(Debug, Serialize)]
struct AppEntry {
    name: String,
    schema: String,
    pending_age_seconds: u64,
    critical_age_seconds: u64,
    error_window_seconds: u64,
    /// Null when it could not be read (the findings say why).
    snapshot: Option<Snapshot>,
}

fn report_of(
    invocation: &Invocation,
    settings: &DbosSettings,
    reads: Vec<Read>,
) -> Report<DbosReport> {
    let mut findings = Vec::new();
    let mut applications = Vec::new();
    for (a, read) in settings.apps.iter().zip(reads) {
        let mut entry = AppEntry {
            name: a.name.clone(),
            schema: a.schema.value.clone(),
            pending_age_seconds: a.pending_age.value.as_secs(),
            critical_age_seconds: a.critical_age.value.as_secs(),
            error_window_seconds: a.error_window.value.as_secs(),
            snapshot: None,
        };
        match read {
            Read::Snapshot(s) => {
                findings.extend(assess(invocation, a, &s));
                entry.snapshot = Some(s);
            }
            Read::Problems(problems) => {
                findings.extend(problems.iter().map(|p| problem_finding(a, p)))
            }
            Read::Failed(e) => findings.push(Finding::new(
                Severity::Unknown,
                codes::DBOS_UNREADABLE,
                a.subject(),
                format!("{e:#}"),
            )),
        }
        applications.push(entry);
    }
    let target = Target::config_file("dbos", settings.config_file.as_deref());
    Report::new(
        "dbos workflows",
        target,
        findings,
        DbosReport { applications },
    )
}

/// Tables that could not be read: UNKNOWN, with the GRANT that would show them.
fn problem_finding(a: &App, problem: &Problem) -> Finding {
    super::appdb_common::Unreadable {
        code: codes::DBOS_UNREADABLE,
        subject: a.subject(),
        db: &a.db,
        place: a.place(),
        missing: (
            "is it the application's system database, and DBOS's schema (dbos_system_schema) the one configured?",
            "name DBOS's schema under dbos: NAME: schema: in the config",
        ),
        layout: "a DBOS Transact layout",
        what: None,
        grant_on: "DBOS's tables",
    }
    .finding(problem)
}

/// How long ago an epoch-milliseconds time was.
fn ago(now_ms: i64, t_ms: i64) -> String {
    format_duration(Duration::from_millis((now_ms - t_ms).max(0) as u64))
}

fn age(now_ms: i64, t_ms: i64) -> Duration {
    Duration::from_millis((now_ms - t_ms).max(0) as u64)
}

/// The dry run of `resolve dbos` for these ids.
fn resolve_next(
    invocation: &Invocation,
    a: &App,
    action: &'static str,
    gone: bool,
    ids: &[&str],
) -> Option<Next> {
    if ids.is_empty() {
        return None;
    }
    let mut words = vec![Word::Lit("resolve"), Word::Lit("dbos"), Word::Lit(action)];
    if gone {
        words.push(Word::Lit("--executor-gone"));
    }
    words.extend([
        Word::Lit("--dry-run"),
        Word::Lit("--"),
        Word::Value(&a.name),
    ]);
    words.extend(ids.iter().map(|id| Word::Value(id)));
    Some(Next::indoubt(invocation, &words))
}

/// A finding about these workflows, its objects set: the first its object, the rest
/// related, so `check` joins two findings only when they name the same workflow.
fn about(finding: Finding, ids: &[&str]) -> Finding {
    let mut objects = ids.iter().map(|id| Object::new(ObjectKind::Workflow, *id));
    let first = objects.next();
    let mut finding = finding.related(objects);
    finding.object = first;
    finding
}

fn by_age(a: &App, age: Duration) -> Severity {
    match age >= a.critical_age.value {
        true => Severity::Critical,
        false => Severity::Warning,
    }
}

fn version_text(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "(none)".into())
}

/// What a workflow's last step says of where it stopped (DBOS records a step when it
/// completes or fails for good).
fn last_step_text(w_step: &Option<system::Step>) -> String {
    match w_step {
        Some(s) => format!("its last recorded step is {} (#{})", s.name, s.function_id),
        None => "no step of it recorded".into(),
    }
}

/// One application, judged.
fn assess(invocation: &Invocation, a: &App, s: &Snapshot) -> Vec<Finding> {
    let mut findings: Vec<Finding> = s
        .dead_lettered
        .iter()
        .map(|g| dead_finding(invocation, a, s, g))
        .collect();
    findings.extend(s.errors.iter().map(|g| error_finding(a, s, g)));
    let (waiting, stalled): (Vec<&Workflow>, Vec<&Workflow>) = s
        .stalled
        .iter()
        .partition(|w| w.last_step.as_ref().is_some_and(|st| st.waits(s.now_ms)));
    // A queue's starved ENQUEUED rows, with the heads that hold them.
    let mut heads_named: Vec<&str> = Vec::new();
    for q in &s.enqueued {
        let heads: Vec<&&Workflow> = stalled
            .iter()
            .filter(|w| w.queue.as_deref() == Some(q.queue.as_str()))
            .collect();
        heads_named.extend(heads.iter().map(|w| w.id.as_str()));
        findings.push(queue_finding(invocation, a, s, q, &heads));
    }
    let mut stranded: Vec<&Workflow> = Vec::new();
    let mut pending: Vec<&Workflow> = Vec::new();
    for w in stalled {
        if heads_named.contains(&w.id.as_str()) {
            continue;
        }
        match (s.latest_for(w.application.as_deref()), &w.version) {
            (Some(latest), Some(v)) if latest != v => stranded.push(w),
            _ => pending.push(w),
        }
    }
    findings.extend(
        group_by_name(&stranded)
            .into_iter()
            .map(|ws| stranded_finding(invocation, a, s, &ws)),
    );
    findings.extend(
        group_by_name(&pending)
            .into_iter()
            .map(|ws| pending_finding(invocation, a, s, &ws)),
    );
    if findings.is_empty() {
        let mut message = format!(
            "no workflow given up, none in ERROR in the last {}, no PENDING one unmoved for {} (DBOS migration {})",
            format_duration(a.error_window.value),
            format_duration(a.pending_age.value),
            s.migration.map(|m| m.to_string()).unwrap_or_else(|| "not known".into())
        );
        if !waiting.is_empty() {
            message.push_str(&format!(
                "; {} waiting in a sleep or a receive, as designed",
                waiting.len()
            ));
        }
        findings.push(
            Finding::new(Severity::Ok, codes::DBOS_SYSTEM, a.subject(), message)
                .evidence("migration", s.migration)
                .evidence("waiting", waiting.len()),
        );
    }
    findings
}

/// Workflows by name, in order of their oldest.
fn group_by_name<'a>(ws: &[&'a Workflow]) -> Vec<Vec<&'a Workflow>> {
    let mut groups: Vec<Vec<&Workflow>> = Vec::new();
    for w in ws {
        match groups
            .iter_mut()
            .find(|g| g[0].name == w.name && g[0].version == w.version)
        {
            Some(g) => g.push(w),
            None => groups.push(vec![w]),
        }
    }
    groups
}

fn connections_text(s: &Snapshot) -> String {
    match s.connections {
        Some(0) => "no DBOS process is connected to this database".into(),
        Some(n) => format!(
            "{n} DBOS connection(s) are open on this database (DBOS keeps no liveness of its executors, so whether the one that ran these is alive is not known)"
        ),
        None => "whether any DBOS process is connected is not known".into(),
    }
}

fn dead_finding(invocation: &Invocation, a: &App, s: &Snapshot, g: &Group) -> Finding {
    let ids: Vec<&str> = g.ids.iter().map(String::as_str).collect();
    let message = format!(
        "{} workflow(s) {} (version {}) were given up by DBOS ({}), the oldest started {} ago, after {} attempt(s): {}, and its process died in the step after it every time",
        g.count,
        g.name,
        version_text(&g.version),
        g.status,
        ago(s.now_ms, g.oldest_ms),
        g.max_attempts.unwrap_or_default(),
        last_step_text(&g.last_step),
    );
    let finding = Finding::new(Severity::Critical, codes::DBOS_DEAD_LETTERED, a.subject(), message)
        .evidence("status", g.status.clone())
        .evidence("workflow", g.name.clone())
        .evidence("version", g.version.clone())
        .evidence("count", g.count)
        .evidence("ids", g.ids.clone())
        .evidence("last_step", serde_json::to_value(&g.last_step).unwrap_or_default())
        .advice("find what kills the process in that step (out of memory? a crash in native code?) and fix it, then resume them (DBOS runs them again from their last completed step) or cancel them and make up for their remaining steps by hand")
        .next_if(resolve_next(invocation, a, "--resume", false, &ids));
    about(finding, &ids)
}

fn error_finding(a: &App, s: &Snapshot, g: &Group) -> Finding {
    let message = format!(
        "{} workflow(s) {} (version {}) ended in ERROR in the last {}, the newest {} ago; {}",
        g.count,
        g.name,
        version_text(&g.version),
        format_duration(a.error_window.value),
        ago(s.now_ms, g.newest_ms),
        last_step_text(&g.last_step),
    );
    let ids: Vec<&str> = g.ids.iter().map(String::as_str).collect();
    let finding = Finding::new(Severity::Warning, codes::DBOS_ERROR, a.subject(), message)
        .evidence("workflow", g.name.clone())
        .evidence("count", g.count)
        .evidence("ids", g.ids.clone())
        .advice("read each one's error with DBOS's CLI (dbos workflow get, with its id); resume does nothing for a workflow in ERROR: dbos workflow fork with its id and --step N starts it again from step N, running that step's side effects again");
    about(finding, &ids)
}

fn stranded_finding(invocation: &Invocation, a: &App, s: &Snapshot, ws: &[&Workflow]) -> Finding {
    let w = ws[0];
    let latest = s
        .latest_for(w.application.as_deref())
        .cloned()
        .unwrap_or_default();
    let message = format!(
        "{} PENDING workflow(s) {} of application version {}, the oldest unmoved for {} (executor {}; {}), while the newest version is {}: DBOS recovers a workflow only in a process of its own version, so unless one of version {} still runs, nothing ever runs them; {}",
        ws.len(),
        w.name,
        version_text(&w.version),
        ago(s.now_ms, w.updated_ms),
        w.executor.as_deref().unwrap_or("(none)"),
        last_step_text(&w.last_step),
        latest,
        version_text(&w.version),
        connections_text(s),
    );
    let ids: Vec<&str> = ws
        .iter()
        .take(system::IDS_NAMED)
        .map(|w| w.id.as_str())
        .collect();
    let finding = Finding::new(by_age(a, age(s.now_ms, w.updated_ms)), codes::DBOS_STRANDED, a.subject(), message)
        .evidence("workflow", w.name.clone())
        .evidence("version", w.version.clone())
        .evidence("latest_version", latest.clone())
        .evidence("ids", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>())
        .advice("start a process of their version (it recovers them), or cancel them and make up for their steps; resume keeps their version, and DBOS's fork onto the newest version (dbos workflow fork with --application-version) re-runs their steps' side effects")
        .next_if(resolve_next(invocation, a, "--cancel", false, &ids));
    about(finding, &ids)
}

fn pending_finding(invocation: &Invocation, a: &App, s: &Snapshot, ws: &[&Workflow]) -> Finding {
    let w = ws[0];
    let executors: Vec<&str> = {
        let mut e: Vec<&str> = ws.iter().filter_map(|w| w.executor.as_deref()).collect();
        e.sort();
        e.dedup();
        e
    };
    let message = format!(
        "{} PENDING workflow(s) {} (version {}) unmoved, the oldest for {} ({}; not waiting in a sleep or a receive), on executor(s) {}: its process may be running a long step, or be gone — DBOS recovers them only when a process with that executor id and version starts; {}",
        ws.len(),
        w.name,
        version_text(&w.version),
        ago(s.now_ms, w.updated_ms),
        last_step_text(&w.last_step),
        executors.join(", "),
        connections_text(s),
    );
    let ids: Vec<&str> = ws
        .iter()
        .take(system::IDS_NAMED)
        .map(|w| w.id.as_str())
        .collect();
    let gone = s.connections == Some(0);
    let finding = Finding::new(by_age(a, age(s.now_ms, w.updated_ms)), codes::DBOS_PENDING, a.subject(), message)
        .evidence("workflow", w.name.clone())
        .evidence("executors", executors.iter().map(|e| e.to_string()).collect::<Vec<_>>())
        .evidence("connections", s.connections)
        .evidence("ids", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>())
        .advice(format!(
            "restart the application with executor id {} (it recovers its own); once its process is known gone, resuming runs them again from their last completed step (resuming one whose process is alive runs it twice)",
            executors.join(", ")
        ))
        .next_if(resolve_next(invocation, a, "--resume", gone, &ids));
    about(finding, &ids)
}

fn queue_finding(
    invocation: &Invocation,
    a: &App,
    s: &Snapshot,
    q: &Enqueued,
    heads: &[&&Workflow],
) -> Finding {
    let waited = age(s.now_ms, q.oldest_ms);
    let concurrency = q
        .concurrency
        .map(|c| format!(" (concurrency {c})"))
        .unwrap_or_default();
    let queue = match q.queue.as_str() {
        "" => "(none)".to_string(),
        name => name.to_string(),
    };
    let waiting = format!(
        "{} workflow(s) of version {} ENQUEUED on queue {queue}{concurrency} waited up to {}",
        q.count,
        version_text(&q.version),
        format_duration(waited)
    );
    let latest = s.latest_for(q.application.as_deref());
    let (code, severity, message, next) = match (heads.first(), latest) {
        (Some(head), _) => {
            let ids: Vec<&str> = heads.iter().map(|w| w.id.as_str()).collect();
            (
                codes::DBOS_QUEUE_STARVED,
                by_age(a, waited),
                format!(
                    "{waiting}, behind {} PENDING head(s) of the same queue unmoved for {} ({} {}, executor {}; {}): nothing is dequeued while they hold the slots; {}",
                    heads.len(),
                    ago(s.now_ms, head.updated_ms),
                    head.name,
                    head.id,
                    head.executor.as_deref().unwrap_or("(none)"),
                    last_step_text(&head.last_step),
                    connections_text(s),
                ),
                resolve_next(invocation, a, "--resume", s.connections == Some(0), &ids),
            )
        }
        (None, _) if q.pending_in_queue > 0 => (
            codes::DBOS_QUEUE_STARVED,
            Severity::Warning,
            format!(
                "{waiting}, while {} PENDING workflow(s) of the queue are moving (each changed within {}): the queue runs slower than work arrives",
                q.pending_in_queue,
                format_duration(a.pending_age.value)
            ),
            None,
        ),
        (None, Some(latest)) if Some(latest) != q.version.as_ref() => (
            codes::DBOS_STRANDED,
            by_age(a, waited),
            format!(
                "{waiting}, and none of the queue is PENDING: only a process of version {} dequeues them, and the newest version is {latest}",
                version_text(&q.version)
            ),
            None,
        ),
        (None, _) => (
            codes::DBOS_QUEUE_STARVED,
            by_age(a, waited),
            format!(
                "{waiting}, and none of the queue is PENDING: no process of version {} dequeued them (is one running?); {}",
                version_text(&q.version),
                connections_text(s)
            ),
            None,
        ),
    };
    let mut named: Vec<&str> = heads.iter().map(|w| w.id.as_str()).collect();
    named.extend(q.ids.iter().map(String::as_str));
    let advice = match heads.is_empty() {
        false => "free the slot: once the head's process is known gone, resume it (it moves to DBOS's internal queue) or cancel it",
        true => "start (or scale) the processes of the waiting workflows' version: DBOS dequeues a workflow only in a process of its own version",
    };
    let finding = Finding::new(severity, code, a.subject(), message)
        .evidence("queue", q.queue.clone())
        .evidence("version", q.version.clone())
        .evidence("enqueued", q.count)
        .evidence("ids", q.ids.clone())
        .evidence(
            "heads",
            heads.iter().map(|w| w.id.clone()).collect::<Vec<_>>(),
        )
        .evidence("pending_in_queue", q.pending_in_queue)
        .advice(advice)
        .next_if(next);
    about(finding, &named)
}

#[cfg(test)]
mod golden;

impl TableView for DbosReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "APPLICATION",
            "WORKFLOW",
            "ID",
            "COUNT",
            "STATUS",
            "VERSION",
            "EXECUTOR",
            "LAST CHANGE",
            "LAST STEP",
        ]);
        let step = |st: &Option<system::Step>| {
            st.as_ref()
                .map(|st| st.name.clone())
                .unwrap_or_else(|| "-".into())
        };
        for app in &self.applications {
            let Some(s) = &app.snapshot else { continue };
            // A group is one row: its oldest's id and last step, how many, its latest change.
            for g in s.dead_lettered.iter().chain(&s.errors) {
                table.add_row(vec![
                    Cell::new(&app.name),
                    Cell::new(&g.name),
                    Cell::new(g.ids.first().map(String::as_str).unwrap_or("-")),
                    Cell::new(g.count.to_string()),
                    Cell::new(&g.status),
                    Cell::new(version_text(&g.version)),
                    Cell::new("-"),
                    Cell::new(format!("{} ago", ago(s.now_ms, g.newest_ms))),
                    Cell::new(step(&g.last_step)),
                ]);
            }
            for w in &s.stalled {
                let waits = w.last_step.as_ref().is_some_and(|st| st.waits(s.now_ms));
                table.add_row(vec![
                    Cell::new(&app.name),
                    Cell::new(&w.name),
                    Cell::new(&w.id),
                    Cell::new("1"),
                    Cell::new(match waits {
                        true => "PENDING (waiting)",
                        false => "PENDING",
                    }),
                    Cell::new(version_text(&w.version)),
                    Cell::new(w.executor.as_deref().unwrap_or("-")),
                    Cell::new(format!("{} ago", ago(s.now_ms, w.updated_ms))),
                    Cell::new(step(&w.last_step)),
                ]);
            }
        }
        // An id is copied whole into resolve dbos.
        table.keep_whole(2);
        table.rendered_unless_empty()
    }
}
