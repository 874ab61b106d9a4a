//! `indoubt camunda incidents`: each configured Camunda 7 or Operaton engine — its open
//! incidents with what explains them (the exception, the start of its stack trace, the
//! business key), the jobs and external tasks still failing with retries left, jobs left
//! locked by an executor that is gone, and external tasks left by a worker that is gone.

mod codes;
mod settings;

use crate::appdb::Problem;
use crate::camunda::engine::{self, Incident, IncidentGroup, Snapshot, Stall, StalledGroup};
use crate::camunda::rest::Kind;
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::camunda::{CamundaSettings, Engine};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::text;
use crate::units::format_duration;
use anyhow::{Context as _, Result};
use chrono::NaiveDateTime;
use serde::Serialize;

/// ACT_RU_JOB's size past which a read with no index for it is said.
const LARGE_JOB_TABLE: i64 = 100_000;

static CAMUNDA_INCIDENTS: Family = Family {
    name: "indoubt_camunda_open_incidents",
    help: "Open root-cause incidents of a Camunda 7 / Operaton engine.",
    labels: &[],
};
static CAMUNDA_OLDEST_INCIDENT: Family = Family {
    name: "indoubt_camunda_oldest_incident_age_seconds",
    help: "How long the oldest open incident has been open (0: none).",
    labels: &[],
};
static CAMUNDA_STALLED: Family = Family {
    name: "indoubt_camunda_stalled_jobs",
    help: "Jobs and external tasks still failing with retries left, or left locked by an executor or worker that is gone.",
    labels: &[],
};

/// `camunda incidents` as a probe.
pub(crate) struct CamundaIncidents;

impl Inspect for CamundaIncidents {
    type Args = settings::CamundaArgs;
    type Settings = CamundaSettings;
    type Gathered = Vec<Read>;
    type Data = CamundaReport;
    const NAME: &'static str = "camunda incidents";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Camunda);
    const MEASURES: &'static [&'static Family] = &[
        &CAMUNDA_INCIDENTS,
        &CAMUNDA_OLDEST_INCIDENT,
        &CAMUNDA_STALLED,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every engine of the config", "indoubt camunda incidents"),
            example!("One engine, as JSON (every incident's evidence)", "indoubt -o json camunda incidents billing"),
        ],
        see_also: &["modulith publications"],
        codes: &[
            codes::CAMUNDA_ENGINE,
            codes::CAMUNDA_INCIDENT,
            codes::CAMUNDA_RETRYING,
            codes::CAMUNDA_LOCK_EXPIRED,
            codes::CAMUNDA_WORKER_GONE,
            codes::CAMUNDA_UNREADABLE,
        ],
    };

    fn measures(data: &CamundaReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for e in &data.engines {
            let Some(s) = &e.snapshot else { continue };
            let oldest = s
                .incidents
                .iter()
                .filter_map(|i| i.oldest)
                .min()
                .map_or(0.0, |t| {
                    (s.now - t).num_milliseconds().max(0) as f64 / 1000.0
                });
            out.push(CAMUNDA_INCIDENTS.at(s.incidents.iter().map(|i| i.count).sum::<i64>() as f64));
            out.push(CAMUNDA_OLDEST_INCIDENT.at(oldest));
            out.push(CAMUNDA_STALLED.at(s.stalled.iter().map(|g| g.count).sum::<i64>() as f64));
        }
        out
    }

    fn settings(
        t: &Targets,
        _thresholds: &Thresholds,
        args: Self::Args,
    ) -> Result<CamundaSettings> {
        crate::settings::camunda::settings(t, args.name.as_deref())
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .camunda
            .iter()
            .filter(|(_, c)| c.check)
            .map(|(name, _)| planned(name, &["camunda", "incidents", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        config
            .camunda
            .iter()
            .flat_map(|(name, c)| {
                let section = format!("camunda {name}");
                let (prefix, ..) = crate::settings::camunda::thresholds(name, c);
                let tables = engine::Tables::new(&prefix.value);
                engine::READS
                    .iter()
                    .map(|(table, columns)| {
                        Uses::pg_table(&section, &c.postgres, &tables.name(table), columns)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    async fn gather(ctx: &Context, settings: &CamundaSettings) -> Result<Vec<Read>> {
        let mut reads = Vec::new();
        for e in &settings.engines {
            reads.push(read(ctx, e).await);
        }
        Ok(reads)
    }

    fn report(
        ctx: &Context,
        settings: &CamundaSettings,
        reads: Vec<Read>,
    ) -> Report<CamundaReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// What one engine's tables came to.
pub(crate) enum Read {
    Snapshot(Snapshot),
    Problems(Vec<Problem>),
    /// The tables are there but the schema's version is none indoubt knows (or missing).
    UnknownVersion(Option<String>),
    Failed(anyhow::Error),
}

async fn read(ctx: &Context, e: &Engine) -> Read {
    let read = async {
        let session = super::appdb_common::connect_pg(ctx, &e.target()).await?;
        let tables = e.tables();
        let problems = engine::problems(&session, &tables).await?;
        if !problems.is_empty() {
            return Ok(Read::Problems(problems));
        }
        let version = engine::schema_version(&session, &tables).await?;
        let version = match version {
            Some(v) if engine::known_version(&v) => v,
            other => return Ok(Read::UnknownVersion(other)),
        };
        let snapshot = engine::read(
            &session,
            &tables,
            version,
            (e.lock_age.value, e.time_zone.as_deref()),
        )
        .await
        .with_context(|| format!("reading engine {}'s tables", e.name))?;
        Ok::<_, anyhow::Error>(Read::Snapshot(snapshot))
    };
    read.await.unwrap_or_else(Read::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct CamundaReport {
    engines: Vec<EngineEntry>,
}

#[derive(Debug, Serialize)]
struct EngineEntry {
    name: String,
    table_prefix: String,
    critical_age_seconds: u64,
    lock_age_seconds: u64,
    rest: Option<String>,
    /// Null when it could not be read (the findings say why).
    snapshot: Option<Snapshot>,
}

fn report_of(
    invocation: &Invocation,
    settings: &CamundaSettings,
    reads: Vec<Read>,
) -> Report<CamundaReport> {
    let mut findings = Vec::new();
    let mut engines = Vec::new();
    for (e, read) in settings.engines.iter().zip(reads) {
        let mut entry = EngineEntry {
            name: e.name.clone(),
            table_prefix: e.table_prefix.value.clone(),
            critical_age_seconds: e.critical_age.value.as_secs(),
            lock_age_seconds: e.lock_age.value.as_secs(),
            rest: e.rest.as_ref().map(|r| r.url.clone()),
            snapshot: None,
        };
        let unknown = |message: crate::text::Text| {
            Finding::new(
                Severity::Unknown,
                codes::CAMUNDA_UNREADABLE,
                e.subject(),
                message,
            )
        };
        match read {
            Read::Snapshot(s) => {
                findings.extend(assess(invocation, e, &s));
                entry.snapshot = Some(s);
            }
            Read::Problems(problems) => {
                findings.extend(problems.iter().map(|p| problem_finding(e, p)))
            }
            Read::UnknownVersion(version) => findings.push(match version {
                Some(v) => unknown(text![
                    "the engine's schema is version ",
                    v,
                    " (as ",
                    e.tables().name("act_ge_schema_log"),
                    " or ",
                    e.tables().name("act_ge_property"),
                    " record it), which indoubt does not know (Camunda 7.x, Operaton 1.x): nothing is judged from it"
                ]),
                None => unknown(text![
                    "no schema version in ",
                    e.tables().name("act_ge_schema_log"),
                    " or ",
                    e.tables().name("act_ge_property"),
                    ": these tables are not an engine schema indoubt knows, so nothing is judged from them"
                ]),
            }),
            Read::Failed(err) => findings.push(unknown(text![format!("{err:#}")])),
        }
        engines.push(entry);
    }
    let target = Target::config_file("camunda", settings.config_file.as_deref());
    Report::new(
        "camunda incidents",
        target,
        findings,
        CamundaReport { engines },
    )
}

/// Tables that could not be read: UNKNOWN, with the GRANT that would show them.
fn problem_finding(e: &Engine, problem: &Problem) -> Finding {
    super::appdb_common::Unreadable {
        code: codes::CAMUNDA_UNREADABLE,
        subject: e.subject(),
        db: &e.db,
        place: e.place(),
        missing: (
            "is the engine's schema there, under another table_prefix?",
            "name the engine's databaseTablePrefix under camunda: NAME: table_prefix: in the config",
        ),
        layout: "a Camunda 7 or Operaton schema",
        what: None,
        grant_on: "the engine's tables",
    }
    .finding(problem)
}

/// How long ago, as an operator reads it.
fn ago(now: NaiveDateTime, t: NaiveDateTime) -> String {
    format_duration((now - t).to_std().unwrap_or_default())
}

/// How long until, as an operator reads it ("now" when past).
fn until(now: NaiveDateTime, t: NaiveDateTime) -> String {
    match (t - now).to_std() {
        Ok(d) if d.as_secs() > 0 => format!("in {}", format_duration(d)),
        _ => "now".into(),
    }
}

/// A finding's objects: the jobs or external tasks it names (the first its object, the
/// rest related), so `check` joins two findings only when they name the same one.
fn jobs(ids: &[&str]) -> (Option<Object>, Vec<Object>) {
    let mut objects = ids.iter().map(|id| Object::new(ObjectKind::Job, *id));
    (objects.next(), objects.collect())
}

/// The first frame of a stack trace (`at com.example.Charge.execute(Charge.java:12)`).
fn first_frame(stack: &str) -> Option<&str> {
    stack.lines().map(str::trim).find(|l| l.starts_with("at "))
}

/// The dry run of `resolve camunda` for these ids.
fn resolve_next(
    invocation: &Invocation,
    e: &Engine,
    ids: &[&str],
    retries: Option<&str>,
) -> Option<Next> {
    if ids.is_empty() {
        return None;
    }
    let mut words = vec![Word::Lit("resolve"), Word::Lit("camunda")];
    if let Some(r) = retries {
        words.extend([Word::Lit("--retries"), Word::Value(r)]);
    }
    words.extend([
        Word::Lit("--dry-run"),
        Word::Lit("--"),
        Word::Value(&e.name),
    ]);
    words.extend(ids.iter().map(|id| Word::Value(id)));
    Some(Next::indoubt(invocation, &words))
}

/// One engine, judged.
fn assess(invocation: &Invocation, e: &Engine, s: &Snapshot) -> Vec<Finding> {
    let mut findings: Vec<Finding> = s
        .incidents
        .iter()
        .map(|g| incident_finding(invocation, e, s, g))
        .collect();
    findings.extend(s.stalled.iter().map(|g| stalled_finding(e, s, g)));
    let large = s.job_rows.is_some_and(|n| n >= LARGE_JOB_TABLE) && !s.job_scan_indexed;
    if findings.is_empty() || large {
        let mut message = match findings.is_empty() {
            true => format!(
                "no open incident, no job or external task failing or left locked (schema {})",
                s.schema_version
            ),
            false => format!("schema {}", s.schema_version),
        };
        if large {
            message.push_str(&format!(
                "; {} holds about {} jobs and no index leads with lock_exp_time_ or retries_: each read scans it whole (blocking none of the engine's writes); CREATE INDEX CONCURRENTLY ON {} (lock_exp_time_) WHERE lock_owner_ IS NOT NULL would make the locks' read an index read",
                e.tables().name("act_ru_job"),
                s.job_rows.unwrap_or_default(),
                e.tables().name("act_ru_job"),
            ));
        }
        findings.push(
            Finding::new(Severity::Ok, codes::CAMUNDA_ENGINE, e.subject(), message)
                .evidence("schema_version", s.schema_version.clone())
                .evidence("job_rows", s.job_rows),
        );
    }
    findings
}

/// Open incidents of one activity.
fn incident_finding(
    invocation: &Invocation,
    e: &Engine,
    s: &Snapshot,
    g: &IncidentGroup,
) -> Finding {
    let age = g
        .oldest
        .map(|t| (s.now - t).to_std().unwrap_or_default())
        .unwrap_or_default();
    let severity = match age >= e.critical_age.value {
        true => Severity::Critical,
        false => Severity::Warning,
    };
    let what = match g.incident_type.as_str() {
        "failedJob" => "a job that ran out of retries",
        "failedExternalTask" => "an external task failed with no retries left",
        _ => "incident type",
    };
    let what = match what {
        "incident type" => format!("incident type {}", g.incident_type),
        w => w.to_string(),
    };
    let newest: Option<&Incident> = g.named.last();
    let mut message = format!(
        "{} open incident(s) at activity {} of process {} ({what}), the oldest {} ago",
        g.count,
        g.activity,
        g.process,
        format_duration(age)
    );
    if let Some(i) = g.named.first() {
        if let Some(m) = &i.message {
            message.push_str(&format!(": {m}"));
        }
        if let Some(frame) = i.stack_head.as_deref().and_then(first_frame) {
            message.push_str(&format!(" ({frame})"));
        }
        if let Some(key) = &i.business_key {
            message.push_str(&format!("; business key {key}"));
        }
    }
    let kind = engine::incident_kind(&g.incident_type);
    message.push_str(match kind {
        Some(Kind::Job) => ": each instance stands still there until its job gets its retries back",
        Some(Kind::ExternalTask) => {
            ": each instance stands still there until its external task gets its retries back"
        }
        None => ": each instance stands still there until the incident is resolved",
    });
    let ids: Vec<&str> = g
        .named
        .iter()
        .filter_map(|i| i.configuration.as_deref())
        .collect();
    let advice = match (kind, g.count as usize > ids.len()) {
        (None, _) => "a custom incident: resolve it as the code that raised it says".to_string(),
        (Some(_), more) => format!(
            "read the failure (the engine's log has the whole stack trace), fix its cause, then give {} its retries back through the engine{} — never UPDATE retries_ in SQL, which bypasses the engine's optimistic locking and leaves the incident open",
            match kind {
                Some(Kind::Job) => "the job",
                _ => "the external task",
            },
            match more {
                true => format!(" (the command names the oldest {}; {} more)", ids.len(), g.count as usize - ids.len()),
                false => String::new(),
            }
        ),
    };
    let incidents: Vec<serde_json::Value> = g
        .named
        .iter()
        .map(|i| serde_json::to_value(i).unwrap_or_default())
        .collect();
    let (object, related) = jobs(&ids);
    let mut finding = Finding::new(severity, codes::CAMUNDA_INCIDENT, e.subject(), message)
        .evidence("process", g.process.clone())
        .evidence("activity", g.activity.clone())
        .evidence("incident_type", g.incident_type.clone())
        .evidence("count", g.count)
        .evidence("incidents", incidents)
        .evidence("newest_message", newest.and_then(|i| i.message.clone()))
        .advice(advice)
        .related(related)
        .next_if(kind.and_then(|_| resolve_next(invocation, e, &ids, None)));
    finding.object = object;
    finding
}

/// Jobs or external tasks of one activity still failing, or left locked.
fn stalled_finding(e: &Engine, s: &Snapshot, g: &StalledGroup) -> Finding {
    let things = match g.kind {
        Kind::Job => "job(s)",
        Kind::ExternalTask => "external task(s)",
    };
    let topic = g
        .topic
        .as_deref()
        .map(|t| format!(" (topic {t})"))
        .unwrap_or_default();
    let first = g.named.first();
    let failure = first
        .and_then(|j| j.message.as_deref())
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    let owners: Vec<&str> = {
        let mut o: Vec<&str> = g.named.iter().filter_map(|j| j.owner.as_deref()).collect();
        o.dedup();
        o
    };
    let (code, message, advice) = match (g.stall, g.kind) {
        (Stall::Retrying, _) => (
            codes::CAMUNDA_RETRYING,
            format!(
                "{} {things} at activity {}{topic} of process {} failed and are being retried, {} retries left at least (next try {}){failure}",
                g.count,
                g.activity,
                g.process,
                g.min_retries.unwrap_or_default(),
                g.earliest.map(|t| until(s.now, t)).unwrap_or_else(|| "not known".into()),
            ),
            "at 0 retries each becomes an incident and its instance stops: if the failure will not pass by itself, fix its cause now".to_string(),
        ),
        (Stall::LockExpired, Kind::Job) => (
            codes::CAMUNDA_LOCK_EXPIRED,
            format!(
                "{} {things} at activity {} of process {} are locked by {}, a lock that expired {} ago, and no job executor took them since; their retries ({} at least) are unchanged",
                g.count,
                g.activity,
                g.process,
                owners.join(", "),
                g.earliest.map(|t| ago(s.now, t)).unwrap_or_default(),
                g.min_retries.unwrap_or_default(),
            ),
            format!(
                "check that a job executor runs for this engine (a deployment-aware one takes only its deployments' jobs) and read the log of {}: an executor that died running a job leaves exactly this, and the next one that takes it runs it again without counting down a retry (camunda-bpm-platform issue 2858); to stop a job that kills its executor, set its retries to 0 through the engine (resolve camunda with --retries 0)",
                owners.join(", "),
            ),
        ),
        (Stall::LockExpired, Kind::ExternalTask) => (
            codes::CAMUNDA_WORKER_GONE,
            format!(
                "{} {things} at activity {}{topic} of process {} were locked by worker {}, whose lock expired {} ago, and no worker fetched them since: it neither completed nor failed them (gone?), and no worker of that topic is fetching",
                g.count,
                g.activity,
                g.process,
                owners.join(", "),
                g.earliest.map(|t| ago(s.now, t)).unwrap_or_default(),
            ),
            format!(
                "start (or mend) the workers of topic {}: they fetch these again by themselves; what the gone worker did before it stopped may have happened, so check before they run again",
                g.topic.as_deref().unwrap_or("")
            ),
        ),
    };
    let named: Vec<serde_json::Value> = g
        .named
        .iter()
        .map(|j| serde_json::to_value(j).unwrap_or_default())
        .collect();
    let ids: Vec<&str> = g.named.iter().map(|j| j.id.as_str()).collect();
    let (object, related) = jobs(&ids);
    let mut finding = Finding::new(Severity::Warning, code, e.subject(), message)
        .evidence("kind", serde_json::to_value(g.kind).unwrap_or_default())
        .evidence("process", g.process.clone())
        .evidence("activity", g.activity.clone())
        .evidence("topic", g.topic.clone())
        .evidence("count", g.count)
        .evidence("named", named)
        .advice(advice)
        .related(related);
    finding.object = object;
    finding
}

#[cfg(test)]
mod golden;

impl TableView for CamundaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "ENGINE",
            "ACTIVITY",
            "WHAT",
            "ID",
            "BUSINESS KEY",
            "SINCE",
            "FAILURE",
        ]);
        for e in &self.engines {
            let Some(s) = &e.snapshot else { continue };
            for g in &s.incidents {
                for i in &g.named {
                    table.add_row(vec![
                        Cell::new(&e.name),
                        Cell::new(format!("{}/{}", g.process, g.activity)),
                        Cell::new(format!("incident ({})", g.incident_type)),
                        Cell::new(i.configuration.as_deref().unwrap_or(&i.id)),
                        Cell::new(i.business_key.as_deref().unwrap_or("-")),
                        Cell::new(i.at.map(|t| ago(s.now, t)).unwrap_or_else(|| "-".into())),
                        Cell::new(i.message.as_deref().unwrap_or("-")),
                    ]);
                }
            }
            for g in &s.stalled {
                let what = match (g.stall, g.kind) {
                    (Stall::Retrying, _) => "retrying",
                    (Stall::LockExpired, Kind::Job) => "lock expired",
                    (Stall::LockExpired, Kind::ExternalTask) => "worker gone",
                };
                for j in &g.named {
                    let when = match (g.stall, j.lock_expires, j.due) {
                        (Stall::Retrying, _, Some(due)) => format!("retry {}", until(s.now, due)),
                        (_, Some(lock), _) => ago(s.now, lock),
                        _ => "-".into(),
                    };
                    table.add_row(vec![
                        Cell::new(&e.name),
                        Cell::new(format!("{}/{}", g.process, g.activity)),
                        Cell::new(what),
                        Cell::new(&j.id),
                        Cell::new(j.business_key.as_deref().unwrap_or("-")),
                        Cell::new(when),
                        Cell::new(j.message.as_deref().unwrap_or("-")),
                    ]);
                }
            }
        }
        // An id is copied whole into resolve camunda.
        table.keep_whole(3);
        table.rendered_unless_empty()
    }
}
