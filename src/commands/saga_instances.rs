//! `indoubt saga [NAME…]`: each configured hand-written saga — instances that need a
//! person (and whether the manual queue has them), outcomes unknown too long, stalled,
//! overdue and hot-retrying instances with the pivot's advice, the queue's open and
//! finished items, entities held for sagas that no longer run, and the indexes its
//! questions lack on large tables.

mod codes;
mod settings;

use crate::appdb::Problem;
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::saga::read::{self, Held, Kinds, SagaRow, Snapshot, Unfit};
use crate::saga::Why;
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::saga::{SagaEntry, SagaSettings};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many instances a finding names (its evidence lists them, its next takes them).
const NAMED: usize = 20;

static SAGA_UNFINISHED: Family = Family {
    name: "indoubt_saga_unfinished_instances",
    help: "Unfinished instances of a saga by state (the states the config lists; any other is counted as state=\"unlisted\").",
    labels: &["state"],
};
static SAGA_STUCK: Family = Family {
    name: "indoubt_saga_stuck_instances",
    help: "Stuck instances of a saga by why: needs_human, outcome_unknown, stalled, overdue (of the oldest 1,000 stuck).",
    labels: &["reason"],
};
static SAGA_OLDEST_STUCK_IDLE: Family = Family {
    name: "indoubt_saga_oldest_stuck_idle_seconds",
    help:
        "How long the least recently updated stuck instance has made no progress (0: none stuck).",
    labels: &[],
};
static SAGA_ORPHANED_LOCKS: Family = Family {
    name: "indoubt_saga_orphaned_locks",
    help: "Entities of a lock table held for a saga that no longer runs.",
    labels: &["table"],
};
static SAGA_QUEUE_OPEN: Family = Family {
    name: "indoubt_saga_manual_queue_open_items",
    help: "Open items of the saga's manual-intervention queue.",
    labels: &[],
};
static SAGA_QUEUE_OLDEST: Family = Family {
    name: "indoubt_saga_manual_queue_oldest_open_age_seconds",
    help: "How long the oldest open item of the manual queue has waited (0: none).",
    labels: &[],
};

/// What `saga` measured, per saga (the check's target is the saga's name): its
/// unfinished instances by listed state, its stuck ones by why, its orphaned locks, its
/// queue.
fn saga_measures(data: &SagaReport) -> Vec<Measure> {
    let mut out = Vec::new();
    for e in &data.sagas {
        let Some(snap) = &e.snapshot else { continue };
        let mut by_state: BTreeMap<String, i64> = BTreeMap::new();
        for c in &snap.by_state {
            let state = match e.listed.contains(&c.state) {
                true => crate::text::escape(&c.state),
                false => "unlisted".to_string(),
            };
            *by_state.entry(state).or_default() += c.count;
        }
        out.extend(
            by_state
                .into_iter()
                .map(|(state, n)| SAGA_UNFINISHED.at(n as f64).label("state", state)),
        );
        out.extend(
            e.stuck_by_reason
                .iter()
                .map(|(why, n)| SAGA_STUCK.at(*n as f64).label("reason", *why)),
        );
        out.push(
            SAGA_OLDEST_STUCK_IDLE.at(snap
                .stuck
                .iter()
                .map(|r| r.idle_seconds)
                .fold(0.0, f64::max)),
        );
        out.extend(snap.locks.iter().map(|l| {
            SAGA_ORPHANED_LOCKS
                .at(l.orphaned.len() as f64)
                .label("table", crate::text::escape(&l.table))
        }));
        if let Some(q) = &snap.queue {
            out.push(SAGA_QUEUE_OPEN.at(q.open as f64));
            out.push(SAGA_QUEUE_OLDEST.at(q.oldest_open_seconds.unwrap_or(0.0)));
        }
    }
    out
}

/// `saga` as a probe.
pub(crate) struct SagaInstances;

impl Inspect for SagaInstances {
    type Args = settings::SagaArgs;
    type Settings = SagaSettings;
    type Gathered = Vec<Read>;
    type Data = SagaReport;
    const NAME: &'static str = "saga";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Saga);
    const MEASURES: &'static [&'static Family] = &[
        &SAGA_UNFINISHED,
        &SAGA_STUCK,
        &SAGA_OLDEST_STUCK_IDLE,
        &SAGA_ORPHANED_LOCKS,
        &SAGA_QUEUE_OPEN,
        &SAGA_QUEUE_OLDEST,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every saga of the config", "indoubt saga"),
            example!("Two sagas, as JSON", "indoubt -o json saga order_saga refund_saga"),
        ],
        see_also: &["resolve saga", "pg outbox"],
        codes: &[
            codes::SAGA_OK,
            codes::SAGA_NEEDS_HUMAN,
            codes::SAGA_OUTCOME_UNKNOWN,
            codes::SAGA_STALLED,
            codes::SAGA_OVERDUE,
            codes::SAGA_RETRYING_HOT,
            codes::SAGA_LOCK_ORPHANED,
            codes::SAGA_QUEUE_OPEN,
            codes::SAGA_QUEUE_FINISHED,
            codes::SAGA_STATE_UNLISTED,
            codes::SAGA_INDEX_MISSING,
            codes::SAGA_UNREADABLE,
        ],
    };

    fn measures(data: &SagaReport) -> Vec<Measure> {
        saga_measures(data)
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<SagaSettings> {
        crate::settings::saga::settings(t, &args.names)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .sagas
            .iter()
            .filter(|(_, s)| s.check)
            .map(|(name, _)| planned(name, &["saga", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        let mut uses = Vec::new();
        for (name, c) in &config.sagas {
            let section = format!("sagas {name}");
            let mut tables: Vec<(String, Vec<&str>)> = vec![(
                c.table.clone(),
                vec![c.id.as_str(), c.state.as_str(), c.updated_at.as_str()],
            )];
            if let Some(q) = &c.manual_queue {
                tables.push((
                    q.table.clone(),
                    vec![q.saga_id.as_str(), q.created_at.as_str()],
                ));
            }
            for l in &c.locks {
                tables.push((
                    l.table.clone(),
                    vec![l.id.as_str(), l.state.as_str(), l.saga_id.as_str()],
                ));
            }
            for (table, columns) in tables {
                uses.push(match (&c.postgres, &c.mysql) {
                    (Some(pg), _) => Uses::pg_table(&section, pg, &table, &columns),
                    (None, my) => {
                        Uses::mysql_table(&section, my.as_deref().unwrap_or(""), &table, &columns)
                    }
                });
            }
        }
        uses
    }

    async fn gather(ctx: &Context, settings: &SagaSettings) -> Result<Vec<Read>> {
        // Every state file is checked before anything is read or written: a planted one
        // stops the command with nothing done.
        let mut previous = Vec::new();
        for s in &settings.sagas {
            previous.push(match super::run_state::file("saga", &s.name) {
                Some(file) => {
                    let loaded = super::run_state::load::<Attempts>(&file, "saga state")?;
                    Some((file, loaded))
                }
                None => None,
            });
        }
        let mut reads = Vec::new();
        for (s, previous) in settings.sagas.iter().zip(previous) {
            reads.push(read(ctx, s, previous).await);
        }
        Ok(reads)
    }

    fn report(ctx: &Context, settings: &SagaSettings, reads: Vec<Read>) -> Report<SagaReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// The attempts of the most-retried unfinished instances at one run, kept for the next.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Attempts {
    at: chrono::DateTime<chrono::Utc>,
    /// The server, database and table read: a config that now names another one has
    /// nothing to compare with.
    source: String,
    attempts: BTreeMap<String, i64>,
}

/// What one saga came to.
pub(crate) enum Read {
    Snapshot {
        snapshot: Box<Snapshot>,
        previous: Option<Attempts>,
        /// When it was read (what the previous run's time is compared with).
        read_at: chrono::DateTime<chrono::Utc>,
        /// What went wrong with the state file (the run goes on without it).
        state_file: Option<String>,
    },
    Problems(Vec<Problem>),
    Unfit(Vec<Unfit>),
    Failed(anyhow::Error),
}

async fn read(
    ctx: &Context,
    s: &SagaEntry,
    previous: Option<(std::path::PathBuf, Result<Option<Attempts>, String>)>,
) -> Read {
    let read = async {
        let mut session = match super::appdb_common::connect(ctx, &s.db).await {
            Ok(session) => session,
            Err(e) if super::appdb_common::database_denied(&e) => {
                return Ok(Read::Problems(vec![Problem::NotReadable {
                    table: s.saga.layout.table.clone(),
                }]))
            }
            Err(e) => return Err(e),
        };
        let problems = read::problems(&mut session, &s.saga).await?;
        if !problems.is_empty() {
            session.close().await;
            return Ok(Read::Problems(problems));
        }
        let kinds: Kinds = match read::kinds(&mut session, &s.saga).await? {
            Ok(kinds) => kinds,
            Err(unfit) => {
                session.close().await;
                return Ok(Read::Unfit(unfit));
            }
        };
        let snapshot = read::read(&mut session, &s.saga, kinds).await;
        session.close().await;
        Ok::<_, anyhow::Error>(Read::Snapshot {
            snapshot: Box::new(snapshot?),
            previous: None,
            read_at: chrono::Utc::now(),
            state_file: None,
        })
    };
    let mut read = read.await.unwrap_or_else(Read::Failed);
    if let (
        Read::Snapshot {
            snapshot,
            previous: kept,
            read_at,
            state_file,
        },
        Some((file, loaded)),
    ) = (&mut read, previous)
    {
        let source = format!("{} {}", s.place(), s.saga.layout.table);
        match loaded {
            Ok(Some(p)) if p.source == source => *kept = Some(p),
            Ok(_) => {}
            Err(why) => {
                *state_file = Some(format!(
                    "the previous run's state {} does not parse ({why}): attempts are compared from this run on",
                    file.display()
                ))
            }
        }
        let now = Attempts {
            at: *read_at,
            source,
            attempts: snapshot.attempts.iter().cloned().collect(),
        };
        if let Err(e) = super::run_state::save(&file, "saga state", &now) {
            *state_file = Some(format!("this run's attempts could not be kept: {e:#}"));
        }
    }
    read
}

#[derive(Debug, Serialize)]
pub(crate) struct SagaReport {
    sagas: Vec<SagaReportEntry>,
}

#[derive(Debug, Serialize)]
struct SagaReportEntry {
    name: String,
    table: String,
    stalled_after_seconds: u64,
    unknown_escalate_after_seconds: u64,
    deadline_seconds: Option<u64>,
    max_attempts: Option<u64>,
    pivot: Option<String>,
    /// Null when it could not be read (the findings say why).
    snapshot: Option<Snapshot>,
    /// The stuck instances' business context, by id.
    context: BTreeMap<String, String>,
    /// How many instances are stuck, by why (of those read: at most 1,000).
    stuck_by_reason: BTreeMap<&'static str, usize>,
    /// Every state the config lists (what the measures name; any other is "unlisted").
    #[serde(skip)]
    listed: Vec<String>,
}

fn report_of(
    invocation: &Invocation,
    settings: &SagaSettings,
    reads: Vec<Read>,
) -> Report<SagaReport> {
    let mut findings = Vec::new();
    let mut sagas = Vec::new();
    for (s, read) in settings.sagas.iter().zip(reads) {
        let mut entry = SagaReportEntry {
            name: s.name.clone(),
            table: s.saga.layout.table.clone(),
            stalled_after_seconds: s.stalled_after.value.as_secs(),
            unknown_escalate_after_seconds: s.unknown_escalate_after.value.as_secs(),
            deadline_seconds: s.saga.limits.deadline.map(|d| d.as_secs()),
            max_attempts: s.saga.limits.max_attempts,
            pivot: s.pivot.clone(),
            snapshot: None,
            context: BTreeMap::new(),
            stuck_by_reason: BTreeMap::new(),
            listed: {
                let st = &s.saga.layout.states;
                [
                    &st.running,
                    &st.done,
                    &st.failed,
                    &st.compensating,
                    &st.unknown,
                ]
                .into_iter()
                .flatten()
                .cloned()
                .collect()
            },
        };
        match read {
            Read::Snapshot {
                snapshot,
                previous,
                read_at,
                state_file,
            } => {
                let previous = previous.as_ref().map(|p| (p, read_at));
                findings.extend(assess(invocation, s, &snapshot, previous));
                if let Some(problem) = state_file {
                    findings.push(Finding::new(
                        Severity::Warning,
                        codes::SAGA_RETRYING_HOT,
                        s.subject(),
                        problem,
                    ));
                }
                entry.stuck_by_reason = Why::ALL.iter().map(|w| (w.name(), 0)).collect();
                for r in &snapshot.stuck {
                    if let Some(why) = s.saga.why(r) {
                        *entry.stuck_by_reason.entry(why.name()).or_default() += 1;
                    }
                }
                entry.context = snapshot
                    .stuck
                    .iter()
                    .filter_map(|r| Some((r.id.clone(), s.context(&r.context)?)))
                    .collect();
                entry.snapshot = Some(*snapshot);
            }
            Read::Problems(problems) => {
                findings.extend(problems.iter().map(|p| problem_finding(s, p)))
            }
            Read::Unfit(unfit) => findings.extend(unfit.iter().map(|u| unfit_finding(s, u))),
            Read::Failed(e) => findings.push(Finding::new(
                Severity::Unknown,
                codes::SAGA_UNREADABLE,
                s.subject(),
                format!("{e:#}"),
            )),
        }
        sagas.push(entry);
    }
    let target = Target::config_file("sagas", settings.config_file.as_deref());
    Report::new("saga", target, findings, SagaReport { sagas })
}

/// A table that could not be read: UNKNOWN, with what would show it.
fn problem_finding(s: &SagaEntry, problem: &Problem) -> Finding {
    super::appdb_common::Unreadable {
        code: codes::SAGA_UNREADABLE,
        subject: s.subject(),
        db: &s.db,
        place: s.place(),
        missing: (
            "is the saga's table (or its manual queue, or a lock table) named as the service names it?",
            "name the tables and columns under sagas: NAME: in the config as the service spells them",
        ),
        layout: "the saga table the config describes",
        what: None,
        grant_on: "the saga's tables",
    }
    .finding(problem)
}

/// A column of a type the reads cannot judge: UNKNOWN, naming it.
fn unfit_finding(s: &SagaEntry, u: &Unfit) -> Finding {
    Finding::new(
        Severity::Unknown,
        codes::SAGA_UNREADABLE,
        s.subject(),
        format!(
            "column {} of {} is {}, not {}: nothing is judged from the saga's rows (a time kept as text or epoch milliseconds cannot be compared with the server's clock here)",
            u.column, u.table, u.found, u.wanted
        ),
    )
    .evidence("table", u.table.clone())
    .evidence("column", u.column.clone())
    .evidence("type", u.found.clone())
    .advice("keep the saga's times in timestamp columns (and its attempts in an integer one), or name other columns in the config")
}

/// One saga, judged.
fn assess(
    invocation: &Invocation,
    s: &SagaEntry,
    snap: &Snapshot,
    previous: Option<(&Attempts, chrono::DateTime<chrono::Utc>)>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    // Stuck instances, grouped by why, whether a person has them, and the pivot's side.
    let mut groups: BTreeMap<(Why, bool, Option<bool>), Vec<&SagaRow>> = BTreeMap::new();
    for r in &snap.stuck {
        if let Some(why) = s.saga.why(r) {
            let queued = r.queue_open > 0;
            let side = s.past_pivot(r.step.as_deref().unwrap_or(&r.state));
            groups.entry((why, queued, side)).or_default().push(r);
        }
    }
    for ((why, queued, side), rows) in &groups {
        findings.push(stuck_finding(
            invocation,
            s,
            snap,
            (*why, *queued, *side),
            rows,
        ));
    }
    findings.extend(hot(s, snap, previous));
    findings.extend(unlisted(s, snap));
    for lock in &snap.locks {
        findings.extend(orphaned(invocation, s, lock));
    }
    findings.extend(queue(s, snap));
    for scan in &snap.scans {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::SAGA_INDEX_MISSING,
                s.subject(),
                format!(
                    "{} (about {} rows) is read whole to find {}: no index serves the question, so every run reads the saga's whole history",
                    scan.table, scan.estimated_rows, scan.question
                ),
            )
            .evidence("table", scan.table.clone())
            .evidence("estimated_rows", scan.estimated_rows)
            .advice("create the index below (it holds only the rows the question is about, and builds without blocking writes)")
            .next(Next::sql(scan.index.clone().placed(&s.place()))),
        );
    }
    if findings.is_empty() {
        let open: i64 = snap.by_state.iter().map(|c| c.count).sum();
        let by: Vec<String> = snap
            .by_state
            .iter()
            .map(|c| format!("{} {}", c.count, c.state))
            .collect();
        let held: i64 = snap.locks.iter().map(|l| l.held).sum();
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::SAGA_OK,
                s.subject(),
                format!(
                    "{open} unfinished instance(s){}, none stuck; {held} held entities, none for a saga that no longer runs",
                    match by.is_empty() {
                        true => String::new(),
                        false => format!(" ({})", by.join(", ")),
                    }
                ),
            )
            .evidence("source", s.saga.layout.table.clone()),
        );
    }
    findings
}

/// An instance as a message names it: its id, state, step, attempts, context.
fn described(s: &SagaEntry, r: &SagaRow) -> String {
    let mut d = format!("{} ({}", r.id, r.state);
    if let Some(step) = r.step.as_ref().filter(|step| **step != r.state) {
        d.push_str(&format!(" at step {step}"));
    }
    if let Some(n) = r.attempts {
        d.push_str(&format!(", {n} attempt(s)"));
    }
    d.push_str(&format!(
        ", no progress for {}",
        format_duration(seconds(r.idle_seconds))
    ));
    if let Some(age) = r.age_seconds {
        d.push_str(&format!(", started {} ago", format_duration(seconds(age))));
    }
    d.push(')');
    if let Some(context) = s.context(&r.context) {
        d.push_str(&format!(": {context}"));
    }
    d
}

/// What the pivot says of a group: the advice's clause.
fn pivot_advice(s: &SagaEntry, side: Option<bool>) -> Option<String> {
    let pivot = s.pivot.as_ref()?;
    Some(match side {
        Some(true) => format!("they are at or past the pivot {pivot}: drive them forward only (finish their remaining steps through the service); never compensate them"),
        Some(false) => format!("they are before the pivot {pivot}: they may be compensated (their steps undone through the service) or resumed"),
        None => format!("their step is not among the steps, so whether they are past the pivot {pivot} is not known: find it out before compensating anything"),
    })
}

/// The evidence of the instances a finding names.
fn instances(s: &SagaEntry, rows: &[&SagaRow]) -> serde_json::Value {
    rows.iter()
        .take(NAMED)
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "state": r.state,
                "step": r.step,
                "attempts": r.attempts,
                "idle_seconds": r.idle_seconds.round(),
                "age_seconds": r.age_seconds.map(f64::round),
                "queue_open": r.queue_open,
                "context": s.context(&r.context),
            })
        })
        .collect()
}

/// `indoubt resolve saga NAME ID… --escalate --dry-run` for these instances.
fn escalate_next(invocation: &Invocation, s: &SagaEntry, ids: &[&str]) -> Next {
    // Flags first, then `--`: an id that starts with `-` stays an id.
    let mut words = vec![
        Word::Lit("resolve"),
        Word::Lit("saga"),
        Word::Lit("--escalate"),
        Word::Lit("--dry-run"),
        Word::Lit("--"),
        Word::Value(&s.name),
    ];
    words.extend(ids.iter().map(|id| Word::Value(id)));
    Next::indoubt(invocation, &words)
}

/// The statement that lists these instances, where the saga table is.
fn list_next(s: &SagaEntry, ids: &[&str]) -> Next {
    let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    Next::sql(read::list_statement(s.db.dialect(), &s.saga, &ids).placed(&s.place()))
}

fn stuck_finding(
    invocation: &Invocation,
    s: &SagaEntry,
    snap: &Snapshot,
    (why, queued, side): (Why, bool, Option<bool>),
    rows: &[&SagaRow],
) -> Finding {
    let n = rows.len();
    let more = match snap.stuck_more {
        true => format!(" (of the oldest {} stuck read)", read::STUCK_CAP),
        false => String::new(),
    };
    let oldest = described(s, rows[0]);
    let ids: Vec<&str> = rows.iter().take(NAMED).map(|r| r.id.as_str()).collect();
    let has_queue = s.saga.queue.is_some();
    let (code, severity, mut message, advice) = match why {
        Why::NeedsHuman => {
            let told = match (has_queue, queued) {
                (true, true) => "each has an open item in the manual queue: a person has it".to_string(),
                (true, false) => "none has an open item in the manual queue: the failure was logged, not escalated, and nobody is told".to_string(),
                (false, _) => "the config names no manual queue, so whether a person was told is not known".to_string(),
            };
            (
                codes::SAGA_NEEDS_HUMAN,
                match (has_queue, queued) {
                    (true, true) => Severity::Warning,
                    _ => Severity::Critical,
                },
                format!("{n} instance(s){more} failed or at their attempts, which no retry will finish: the oldest {oldest}; {told}"),
                match (has_queue, queued) {
                    (true, false) => "raise each in the manual queue (the command below, a dry run first), then deal with it as the pivot allows".to_string(),
                    (false, _) => "name the table a person works stuck sagas from under manual_queue: in the config, and deal with each as the pivot allows".to_string(),
                    (true, true) => "work the queue's items; each saga is dealt with as the pivot allows".to_string(),
                },
            )
        }
        Why::OutcomeUnknown => (
            codes::SAGA_OUTCOME_UNKNOWN,
            // A person has them (the queue's items) once raised.
            match queued {
                true => Severity::Warning,
                false => Severity::Critical,
            },
            format!(
                "{n} instance(s){more} have waited on an external outcome longer than {}: the oldest {oldest}",
                format_duration(s.unknown_escalate_after.value)
            ),
            "establish each outcome first (ask the external system by the call's own key): only then retry with the same key, or compensate; a retry with a new key may charge twice, a blind compensation refund what was never charged".to_string(),
        ),
        Why::Overdue => (
            codes::SAGA_OVERDUE,
            Severity::Warning,
            format!(
                "{n} instance(s){more} not done {} after they started: the oldest {oldest}",
                format_duration(s.saga.limits.deadline.unwrap_or_default())
            ),
            "find in the service's log what keeps each going".to_string(),
        ),
        Why::Stalled => (
            codes::SAGA_STALLED,
            Severity::Warning,
            format!(
                "{n} instance(s){more} made no progress for {} or more: the oldest {oldest}",
                format_duration(s.stalled_after.value)
            ),
            "find in the service's log why each stopped (its process died, or its message was lost)".to_string(),
        ),
    };
    if queued && why != Why::NeedsHuman {
        message.push_str("; each has an open item in the manual queue");
    }
    let advice = match pivot_advice(s, side) {
        Some(pivot) => format!("{advice}; {pivot}"),
        None => advice,
    };
    let next = match (why, has_queue, queued) {
        (Why::NeedsHuman | Why::OutcomeUnknown, true, false) => escalate_next(invocation, s, &ids),
        _ => list_next(s, &ids),
    };
    let objects = rows
        .iter()
        .take(NAMED)
        .map(|r| Object::new(ObjectKind::Saga, format!("{} {}", s.name, r.id)));
    Finding::new(severity, code, s.subject(), message)
        .evidence("source", s.saga.layout.table.clone())
        .evidence("count", n)
        .evidence("past_pivot", side)
        .evidence("instances", instances(s, rows))
        .object(Object::new(
            ObjectKind::Saga,
            format!("{} {}", s.name, rows[0].id),
        ))
        .related(objects.skip(1))
        .advice(advice)
        .next(next)
}

/// Instances whose attempts climbed since the previous run.
fn hot(
    s: &SagaEntry,
    snap: &Snapshot,
    previous: Option<(&Attempts, chrono::DateTime<chrono::Utc>)>,
) -> Option<Finding> {
    let (previous, read_at) = previous?;
    let climbed: Vec<(&str, i64, i64)> = snap
        .attempts
        .iter()
        .filter_map(|(id, now)| {
            let before = *previous.attempts.get(id)?;
            (*now > before).then_some((id.as_str(), before, *now))
        })
        .collect();
    let (id, before, now) = *climbed.first()?;
    let since = (read_at - previous.at).to_std().unwrap_or_default();
    let ids: Vec<&str> = climbed.iter().take(NAMED).map(|c| c.0).collect();
    Some(
        Finding::new(
            Severity::Warning,
            codes::SAGA_RETRYING_HOT,
            s.subject(),
            format!(
                "{} unfinished instance(s) retried since the previous run {} ago: {id} went from {before} to {now} attempt(s){}",
                climbed.len(),
                format_duration(since),
                match s.saga.limits.max_attempts {
                    Some(max) => format!(" (max_attempts {max})"),
                    None => String::new(),
                }
            ),
        )
        .evidence("source", s.saga.layout.table.clone())
        .evidence(
            "climbed",
            climbed
                .iter()
                .take(NAMED)
                .map(|(id, before, now)| serde_json::json!({"id": id, "before": before, "now": now}))
                .collect::<serde_json::Value>(),
        )
        .object(Object::new(ObjectKind::Saga, format!("{} {id}", s.name)))
        .advice("read the service's log for these ids and fix the failing step's cause; if it cannot succeed, stop retrying and raise it with resolve saga --escalate")
        .next(list_next(s, &ids)),
    )
}

/// Unfinished instances in states the config does not list.
fn unlisted(s: &SagaEntry, snap: &Snapshot) -> Vec<Finding> {
    snap.by_state
        .iter()
        .filter(|c| !s.saga.layout.states.listed(&c.state))
        .map(|c| {
            Finding::new(
                Severity::Unknown,
                codes::SAGA_STATE_UNLISTED,
                s.subject(),
                format!(
                    "{} unfinished instance(s) in state {}, which the config's states: do not list: they are not judged",
                    c.count, c.state
                ),
            )
            .evidence("state", c.state.clone())
            .evidence("count", c.count)
            .advice(format!(
                "list {} under the right group of sagas: {}: states: (running, done, failed, compensating or unknown)",
                c.state, s.name
            ))
        })
        .collect()
}

/// Why an entity's saga no longer runs, as said.
fn gone(s: &SagaEntry, h: &Held) -> String {
    let st = &s.saga.layout.states;
    match &h.saga_state {
        None => match &h.saga_id {
            Some(id) => format!("saga {id} is not in the saga table"),
            None => "it names no saga".into(),
        },
        Some(state) if st.done.contains(state) => format!(
            "saga {} is {state} (done)",
            h.saga_id.as_deref().unwrap_or("?")
        ),
        Some(state) if st.failed.contains(state) => format!(
            "saga {} is {state} (failed)",
            h.saga_id.as_deref().unwrap_or("?")
        ),
        Some(state) => {
            let idle = format_duration(seconds(h.saga_idle_seconds.unwrap_or(0.0)));
            let by = match (s.saga.limits.deadline, h.saga_age_seconds) {
                (Some(d), Some(age)) => format!(
                    "started {} ago, past its deadline {}, and no progress for {idle}",
                    format_duration(seconds(age)),
                    format_duration(d)
                ),
                _ => format!(
                    "no progress for {}",
                    format_duration(seconds(h.saga_idle_seconds.unwrap_or(0.0)))
                ),
            };
            format!(
                "saga {} is {state}, {by}",
                h.saga_id.as_deref().unwrap_or("?")
            )
        }
    }
}

/// The entities a finding names, grouped by why their saga no longer runs, in order:
/// `17, 18 — saga 4690 is COMPENSATED (done); 20 — saga 9999 is not in the saga table`.
fn by_reason(s: &SagaEntry, held: &[Held]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for h in held.iter().take(NAMED) {
        let why = gone(s, h);
        match groups.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ids)) => ids.push(&h.id),
            None => groups.push((why, vec![&h.id])),
        }
    }
    let mut said: Vec<String> = groups
        .into_iter()
        .map(|(why, ids)| format!("{} — {why}", ids.join(", ")))
        .collect();
    if held.len() > NAMED {
        said.push(format!("and {} more", held.len() - NAMED));
    }
    said.join("; ")
}

fn orphaned(invocation: &Invocation, s: &SagaEntry, lock: &read::LockState) -> Option<Finding> {
    lock.orphaned.first()?;
    let config = s.saga.locks.iter().find(|l| l.table == lock.table)?;
    let n = lock.orphaned.len();
    let ids: Vec<&str> = lock
        .orphaned
        .iter()
        .take(NAMED)
        .map(|h| h.id.as_str())
        .collect();
    let next = match &config.released {
        Some(_) => {
            let mut words = vec![
                Word::Lit("resolve"),
                Word::Lit("saga"),
                Word::Lit("--release"),
            ];
            if s.saga.locks.len() > 1 {
                words.extend([Word::Lit("--lock"), Word::Value(&config.table)]);
            }
            words.extend([
                Word::Lit("--dry-run"),
                Word::Lit("--"),
                Word::Value(&s.name),
            ]);
            words.extend(ids.iter().map(|id| Word::Value(id)));
            Next::indoubt(invocation, &words)
        }
        None => {
            Next::sql(read::entities_statement(s.db.dialect(), config, &ids).placed(&s.place()))
        }
    };
    let sagas = lock
        .orphaned
        .iter()
        .take(NAMED)
        .filter_map(|h| h.saga_id.as_ref())
        .map(|id| Object::new(ObjectKind::Saga, format!("{} {id}", s.name)));
    Some(
        Finding::new(
            Severity::Critical,
            codes::SAGA_LOCK_ORPHANED,
            s.subject(),
            format!(
                "{n}{} {} of {} still held ({}) for a saga that no longer runs: {}; nothing will release them, and every saga that wants them waits",
                match lock.orphaned_more {
                    true => " or more",
                    false => "",
                },
                match n {
                    1 => "entity",
                    _ => "entities",
                },
                lock.table,
                config.held.join(", "),
                by_reason(s, &lock.orphaned)
            ),
        )
        .evidence("table", lock.table.clone())
        .evidence("held", lock.held)
        .evidence(
            "entities",
            lock.orphaned
                .iter()
                .take(NAMED)
                .map(|h| {
                    serde_json::json!({
                        "id": h.id, "saga_id": h.saga_id, "saga_state": h.saga_state,
                        "why": gone(s, h), "version": h.version,
                    })
                })
                .collect::<serde_json::Value>(),
        )
        .related(sagas)
        .advice(match config.released {
            Some(_) => "release them (the command below, a dry run first): each is set back only while the same saga still holds it at the version read",
            None => "set each back to its free state through the service (name the state under locks: - released: and indoubt can do it, guarded)",
        })
        .next(next),
    )
}

/// The manual queue: its open items, and those whose saga has finished.
fn queue(s: &SagaEntry, snap: &Snapshot) -> Vec<Finding> {
    let (Some(q), Some(config)) = (&snap.queue, &s.saga.queue) else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    if q.open > 0 {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::SAGA_QUEUE_OPEN,
                s.subject(),
                format!(
                    "{} open item(s) in the manual queue {}{}",
                    q.open,
                    config.table,
                    q.oldest_open_seconds
                        .map(|age| format!(
                            ", the oldest waiting {}",
                            format_duration(seconds(age))
                        ))
                        .unwrap_or_default()
                ),
            )
            .evidence("table", config.table.clone())
            .evidence("open", q.open)
            .advice(
                "work the queue: close an item (set its resolved_at) once its saga is dealt with",
            )
            .next(Next::sql(
                read::queue_statement(s.db.dialect(), config, &[]).placed(&s.place()),
            )),
        );
    }
    if let Some((id, state, _)) = q.finished.first() {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::SAGA_QUEUE_FINISHED,
                s.subject(),
                format!(
                    "{}{} open item(s) in the manual queue {} are for sagas that have since finished: {id} is {state}",
                    q.finished.len(),
                    match q.finished_count > q.finished.len() as i64 {
                        true => " or more",
                        false => "",
                    },
                    config.table
                ),
            )
            .evidence("table", config.table.clone())
            .evidence(
                "finished",
                q.finished
                    .iter()
                    .map(|(id, state, _)| serde_json::json!({"saga_id": id, "state": state}))
                    .collect::<serde_json::Value>(),
            )
            .object(Object::new(ObjectKind::Saga, format!("{} {id}", s.name)))
            .advice("check each saga's end is right, then close its item (set resolved_at): nobody should act on a saga that needs nothing")
            .next(Next::sql(
                read::queue_statement(
                    s.db.dialect(),
                    config,
                    &q.finished.iter().map(|(id, _, _)| id.as_str()).collect::<Vec<_>>(),
                )
                .placed(&s.place()),
            )),
        );
    }
    findings
}

#[cfg(test)]
mod golden;

impl TableView for SagaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&["SAGA", "ID", "STATE", "TRIES", "IDLE", "CONTEXT"]);
        for s in &self.sagas {
            let Some(snap) = &s.snapshot else { continue };
            for r in snap.stuck.iter().take(NAMED) {
                table.add_row(vec![
                    Cell::new(&s.name),
                    Cell::new(&r.id),
                    Cell::new(&r.state),
                    Cell::new(r.attempts.map_or("-".into(), |n| n.to_string())),
                    // To the minute: the finding's message says it to the second.
                    Cell::new(format_duration(seconds(
                        (r.idle_seconds / 60.0).floor() * 60.0,
                    ))),
                    Cell::new(s.context.get(&r.id).map_or("-", String::as_str)),
                ]);
            }
        }
        // An id is copied whole into resolve saga.
        table.keep_whole(1);
        table.rendered_unless_empty()
    }
}
