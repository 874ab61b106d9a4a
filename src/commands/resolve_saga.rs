//! `indoubt resolve saga NAME ID… --escalate|--release [--lock TABLE]`: raises stuck
//! instances of a hand-written saga in its manual queue (once: one with an open item is
//! left), or sets entities held for a saga that is done, failed, missing or overdue back
//! to their released state (guarded by the saga and version read). Each id is read first
//! and shown with what it is; a mistyped one stops everything. Compensation and forward
//! recovery are the service's: never run here.

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::saga::{SagaWrite, Write};
use crate::resolve::flow::{self, Recorded};
use crate::saga::read::{self, Held, SagaRow};
use crate::settings::saga::{ResolveSagaSettings, SagaAction, SagaEntry};
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, seconds};
use anyhow::Result;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveSagaReport {
    saga: String,
    action: &'static str,
    /// What each id was when read.
    found: Vec<serde_json::Value>,
    #[serde(flatten)]
    recorded: Recorded,
    #[serde(skip)]
    blocks: Vec<Block>,
}

pub async fn run(ctx: &Context, s: &ResolveSagaSettings) -> Result<Severity> {
    let e = &s.saga;
    let target = super::appdb_common::target(&e.db)?;
    let report_target = target.report_target();
    let mut data = ResolveSagaReport {
        saga: e.name.clone(),
        action: match s.action {
            SagaAction::Escalate => "escalate",
            SagaAction::Release => "release",
        },
        found: Vec::new(),
        recorded: Recorded::default(),
        blocks: Vec::new(),
    };
    let refuse =
        |message: String| Finding::new(Severity::Unknown, codes::NOT_THERE, e.subject(), message);
    let mut session = super::appdb_common::connect(ctx, &e.db).await?;
    let problems = read::problems(&mut session, &e.saga).await?;
    let kinds = match problems.is_empty() {
        true => read::kinds(&mut session, &e.saga).await?.ok(),
        false => None,
    };
    let Some(kinds) = kinds else {
        session.close().await;
        let finding = refuse(
            "nothing done: the saga's tables cannot be read or judged; `indoubt saga` says why"
                .into(),
        );
        return super::finish(ctx, "resolve saga", report_target, vec![finding], data);
    };
    let bump = match s.lock {
        Some(lock) => read::bump(&mut session, &e.saga.locks[lock]).await?,
        None => read::Bump::Untouched,
    };
    let mut stop = Vec::new();
    let mut done_already = Vec::new();
    let mut subjects = Vec::new();
    for id in &s.ids {
        let planned = match plan(&mut session, s, kinds, bump, id).await {
            Ok(planned) => planned,
            // An id the column cannot hold (a quoted one, text for a number): not there.
            Err(err) => Err(Box::new(refuse(format!(
                "nothing done (for any id): {id} is not an id of saga {}: {err:#}",
                e.name
            )))),
        };
        match planned {
            Err(finding) if finding.severity == Severity::Ok => done_already.push(*finding),
            Err(finding) => stop.push(*finding),
            Ok(Planned {
                found,
                block,
                write,
                statement,
            }) => {
                data.found.push(found.clone());
                data.blocks.push(block.clone());
                let evidence = serde_json::json!({"saga": e.name, "found": found});
                subjects.push(SagaWrite::new(
                    super::appdb_common::target(&e.db)?,
                    (e.name.clone(), e.saga.clone(), kinds),
                    id.clone(),
                    write,
                    statement,
                    evidence,
                    vec![block],
                    ctx.timeout,
                ));
            }
        }
    }
    session.close().await;
    if !stop.is_empty() {
        stop.extend(done_already);
        return super::finish(ctx, "resolve saga", report_target, stop, data);
    }
    if subjects.is_empty() {
        return super::finish(ctx, "resolve saga", report_target, done_already, data);
    }
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (mut findings, recorded) = Recorded::of(done);
    findings.extend(done_already);
    data.recorded = recorded;
    super::finish(ctx, "resolve saga", report_target, findings, data)
}

/// One id's write, as read and shown before anything is done.
struct Planned {
    found: serde_json::Value,
    block: Block,
    write: Write,
    statement: crate::quote::Sql,
}

/// What is to be done for one id, or the finding that says why nothing is (OK: nothing
/// to do; else a refusal that stops every id).
async fn plan(
    session: &mut crate::appdb::Session,
    s: &ResolveSagaSettings,
    kinds: read::Kinds,
    bump: read::Bump,
    id: &str,
) -> Result<Result<Planned, Box<Finding>>> {
    let e = &s.saga;
    let missing = |what: String| {
        Box::new(Finding::new(
            Severity::Unknown,
            codes::NOT_THERE,
            e.subject(),
            format!("nothing done (for any id): {what} (mistyped?); `indoubt saga {}` names what is stuck", e.name),
        ))
    };
    let dialect = e.db.dialect();
    Ok(match s.lock {
        None => match read::instance(session, &e.saga, kinds, id).await? {
            None => Err(missing(format!("saga {} has no instance {id}", e.name))),
            // MySQL compares loosely ('4701x' = 4701, 'ABC' = 'abc'): only the id itself.
            Some(r) if r.id != id => Err(missing(format!(
                "saga {} has no instance {id} (the server matched it to {}, another id)",
                e.name, r.id
            ))),
            Some(r) => escalation(e, &r).and_then(|reason| {
                // Whoever reads the queue reads it in a terminal: it is written in the escape
                // grammar, as the confirmation shows it (escaped once, there by shown!).
                let written = crate::text::escape(&reason);
                let statement = crate::saga::write::escalate(dialect, &e.saga, &r.id, &written)
                    .ok_or_else(|| missing("the config names no manual queue".into()))?;
                Ok(Planned {
                    found: serde_json::json!({"id": r.id, "state": r.state, "step": r.step, "attempts": r.attempts, "idle_seconds": r.idle_seconds.round(), "queue_open": r.queue_open, "context": e.context(&r.context)}),
                    block: escalate_block(e, &r, &reason),
                    write: Write::Escalate,
                    statement,
                })
            }),
        },
        Some(lock) => {
            let config = &e.saga.locks[lock];
            match read::entity(session, &e.saga, kinds, config, id).await? {
                None => Err(missing(format!("{} has no entity {id}", config.table))),
                Some((_, held)) if held.id != id => Err(missing(format!(
                    "{} has no entity {id} (the server matched it to {}, another id)",
                    config.table, held.id
                ))),
                Some((state, held)) => release_check(e, lock, &state, &held).and_then(|why| {
                    let statement = crate::saga::write::release(
                        dialect,
                        config,
                        &held.id,
                        (held.saga_id.as_deref(), held.version.as_deref()),
                        bump,
                    )
                    .ok_or_else(|| missing("the lock names no released state".into()))?;
                    Ok(Planned {
                        found: serde_json::json!({"id": held.id, "state": state, "saga_id": held.saga_id, "saga_state": held.saga_state, "version": held.version, "why": why}),
                        block: release_block(e, lock, &state, &held, (&why, bump)),
                        write: Write::Release { lock, held },
                        statement,
                    })
                }),
            }
        }
    })
}

/// How long ago, from seconds.
fn ago(secs: Option<f64>) -> String {
    secs.map_or("unknown".into(), |s| format_duration(seconds(s)))
}

/// The reason written into the queue, or why the saga is not raised.
fn escalation(e: &SagaEntry, r: &SagaRow) -> Result<String, Box<Finding>> {
    let st = &e.saga.layout.states;
    if st.done.contains(&r.state) {
        return Err(Box::new(Finding::new(
            Severity::Warning,
            codes::NOT_JUDGED,
            e.subject(),
            format!(
                "nothing done: saga {} is {} (done): nothing needs a person",
                r.id, r.state
            ),
        )));
    }
    if r.queue_open > 0 {
        return Err(Box::new(Finding::new(
            Severity::Ok,
            codes::ALREADY_RESOLVED,
            e.subject(),
            format!(
                "nothing to do: saga {} has an open item in the manual queue, waiting {}",
                r.id,
                ago(r.queued_seconds)
            ),
        )));
    }
    let Some(why) = e.saga.why(r) else {
        return Err(Box::new(Finding::new(
            Severity::Warning,
            codes::NOT_JUDGED,
            e.subject(),
            format!(
                "nothing done: saga {} is {} and not stuck (progress {} ago): nothing needs a person yet",
                r.id,
                r.state,
                format_duration(seconds(r.idle_seconds))
            ),
        )));
    };
    let mut reason = format!("indoubt: saga {} {} is {}", e.name, r.id, r.state);
    if let Some(step) = &r.step {
        reason.push_str(&format!(" at step {step}"));
    }
    if let Some(n) = r.attempts {
        reason.push_str(&format!(" after {n} attempt(s)"));
    }
    reason.push_str(&format!(
        ", no progress for {}",
        format_duration(seconds(r.idle_seconds))
    ));
    let side = e.past_pivot(r.step.as_deref().unwrap_or(&r.state));
    reason.push_str(match (why, side) {
        (crate::saga::Why::OutcomeUnknown, _) => "; its external outcome is not known: establish it before anything is retried or compensated",
        (_, Some(true)) => "; past the pivot: drive it forward only, never compensate",
        (_, Some(false)) => "; before the pivot: it may be compensated",
        (_, None) => "",
    });
    if let Some(context) = e.context(&r.context) {
        reason.push_str(&format!(": {context}"));
    }
    Ok(reason)
}

fn escalate_block(e: &SagaEntry, r: &SagaRow, reason: &str) -> Block {
    let mut b = Block::new(shown!("saga {} instance {}", e.name, r.id));
    b.field("state", shown!("{}", r.state))
        .field("step", shown!("{}", r.step.as_deref().unwrap_or("-")))
        .field(
            "attempts",
            shown!("{}", r.attempts.map_or("-".into(), |n| n.to_string())),
        )
        .field(
            "no progress for",
            shown!("{}", format_duration(seconds(r.idle_seconds))),
        )
        .field("manual queue", shown!("no open item"))
        .field("queue item text", shown!("{}", reason));
    b
}

/// Why the entity may be released (its saga no longer runs), or why not.
fn release_check(
    e: &SagaEntry,
    lock: usize,
    state: &str,
    h: &Held,
) -> Result<String, Box<Finding>> {
    let config = &e.saga.locks[lock];
    let st = &e.saga.layout.states;
    if !config.held.iter().any(|s| s == state) {
        return Err(Box::new(Finding::new(
            Severity::Ok,
            codes::ALREADY_RESOLVED,
            e.subject(),
            format!(
                "nothing to do: {} {} is {state}, not held",
                config.table, h.id
            ),
        )));
    }
    let saga = h.saga_id.as_deref().unwrap_or("(none)");
    match &h.saga_state {
        None => Ok(format!("saga {saga} is not in the saga table")),
        Some(s) if st.done.contains(s) => Ok(format!("saga {saga} is {s} (done)")),
        Some(s) if st.failed.contains(s) => Ok(format!("saga {saga} is {s} (failed)")),
        Some(s) => {
            let lim = &e.saga.limits;
            // Overdue and no longer moving (stalled, without a deadline): one past its
            // deadline that still makes progress still uses what it holds.
            let stalled = seconds(h.saga_idle_seconds.unwrap_or(0.0)) >= lim.stalled_after;
            let overdue = match (lim.deadline, h.saga_age_seconds) {
                (Some(d), Some(age)) => seconds(age) >= d && stalled,
                _ => stalled,
            };
            match overdue {
                true => Ok(format!(
                    "saga {saga} is {s}, started {} ago and no progress for {}: overdue",
                    ago(h.saga_age_seconds),
                    ago(h.saga_idle_seconds)
                )),
                false => Err(Box::new(Finding::new(
                    Severity::Warning,
                    codes::NOT_JUDGED,
                    e.subject(),
                    format!(
                        "nothing done: {} {} is held by saga {saga}, which is {s} and still moving (progress {} ago): releasing it would let another saga take what this one still uses",
                        config.table, h.id, ago(h.saga_idle_seconds)
                    ),
                ))),
            }
        }
    }
}

fn release_block(
    e: &SagaEntry,
    lock: usize,
    state: &str,
    h: &Held,
    (why, bump): (&str, read::Bump),
) -> Block {
    let config = &e.saga.locks[lock];
    let mut b = Block::new(shown!("{} entity {}", config.table, h.id));
    b.field("state", shown!("{}", state))
        .field(
            "held by",
            shown!("saga {}", h.saga_id.as_deref().unwrap_or("(none)")),
        )
        .field("why free", shown!("{}", why))
        .field(
            "guard",
            match (&config.version, &h.version) {
                (Some(c), Some(v)) => shown!("still {} by that saga, {} = {}", state, c, v),
                (Some(c), None) => shown!("still {} by that saga, {} NULL", state, c),
                (None, _) => shown!(
                    "still {} by that saga (no version column: name one under version:)",
                    state
                ),
            },
        )
        .field(
            "set to",
            match (&config.version, bump) {
                (Some(v), read::Bump::Counter) => shown!(
                    "{}, saga_id NULL, {} + 1",
                    config.released.as_deref().unwrap_or("?"),
                    v
                ),
                (Some(v), read::Bump::Clock(_)) => shown!(
                    "{}, saga_id NULL, {} now",
                    config.released.as_deref().unwrap_or("?"),
                    v
                ),
                (Some(v), read::Bump::Untouched) => shown!(
                    "{}, saga_id NULL ({} left as it is: neither a counter nor a time)",
                    config.released.as_deref().unwrap_or("?"),
                    v
                ),
                (None, _) => shown!(
                    "{}, saga_id NULL",
                    config.released.as_deref().unwrap_or("?")
                ),
            },
        );
    b
}

impl TableView for ResolveSagaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.recorded.lines(&self.blocks, style)
    }
}
