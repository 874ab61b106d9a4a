//! `indoubt pg outbox`: every configured outbox and inbox — backlog, age, skipped rows, growth.

mod settings;

use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::next::{Invocation, Next, Word};
use crate::pg::outbox::{self, InboxState, OutboxState};
use crate::pg::session;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::pg::{Inbox, Outbox, OutboxSettings};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, format_size, seconds};
use anyhow::Result;
use serde::Serialize;

/// How many of the oldest unpublished rows a backlog's next statement lists.
const OLDEST_SHOWN: usize = 10;

#[derive(Debug, Serialize)]
pub(crate) struct OutboxReport {
    outboxes: Vec<OutboxEntry>,
    inboxes: Vec<InboxEntry>,
}

#[derive(Debug, Serialize)]
struct OutboxEntry {
    name: String,
    table: String,
    /// Null when it could not be read (the finding says why).
    state: Option<OutboxState>,
    /// Unpublished rows now minus at the previous check, and that check's time.
    growth_since_last_check: Option<i64>,
    last_check_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Serialize)]
struct InboxEntry {
    name: String,
    table: String,
    state: Option<InboxState>,
    /// Rows now minus at the previous check.
    growth_since_last_check: Option<i64>,
}

/// The previous check's backlog, kept per outbox in the state directory.
#[derive(serde::Serialize, serde::Deserialize)]
struct Previous {
    unpublished: i64,
    at: chrono::DateTime<chrono::Utc>,
    /// The server, database and table counted: a config that now names another one
    /// (a rebuilt environment, a moved table) has no growth to compare with.
    #[serde(default)]
    source: String,
}

static OUTBOX_UNPUBLISHED: Family = Family {
    name: "indoubt_outbox_unpublished_rows",
    help: "Outbox rows not yet published (the backlog).",
    labels: &["outbox"],
};
static OUTBOX_OLDEST_UNPUBLISHED: Family = Family {
    name: "indoubt_outbox_oldest_unpublished_age_seconds",
    help: "How long the oldest unpublished outbox row has waited (0: none).",
    labels: &["outbox"],
};
static OUTBOX_SKIPPED: Family = Family {
    name: "indoubt_outbox_skipped_rows",
    help: "Unpublished rows below the highest published id, past the settle time: skipped for good by a relay polling by id.",
    labels: &["outbox"],
};
static INBOX_ROWS: Family = Family {
    name: "indoubt_inbox_rows",
    help: "Rows of an inbox (processed message ids kept).",
    labels: &["inbox"],
};
static INBOX_OLDEST: Family = Family {
    name: "indoubt_inbox_oldest_age_seconds",
    help: "How long ago the oldest id an inbox keeps was received (0: none).",
    labels: &["inbox"],
};

/// `pg outbox` as a probe.
pub(crate) struct PgOutbox;

impl Inspect for PgOutbox {
    type Args = settings::OutboxArgs;
    type Settings = OutboxSettings;
    type Gathered = Read;
    type Data = OutboxReport;
    const NAME: &'static str = "outbox";
    const COMMAND: &'static str = "pg outbox";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Outbox);
    const MEASURES: &'static [&'static Family] = &[
        &OUTBOX_UNPUBLISHED,
        &OUTBOX_OLDEST_UNPUBLISHED,
        &OUTBOX_SKIPPED,
        &INBOX_ROWS,
        &INBOX_OLDEST,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every outbox and inbox of the config", "indoubt pg outbox"),
            example!("One outbox, listing up to 50 skipped ids", "indoubt pg outbox orders --show 50"),
        ],
        see_also: &["reconcile"],
        codes: &[
            codes::INBOX_SIZE,
            codes::INBOX_UNRETAINED,
            codes::INBOX_RETENTION_SHORT,
            codes::INBOX_UNREADABLE,
            codes::OUTBOX_BACKLOG,
            codes::OUTBOX_UNPRUNED,
            codes::OUTBOX_SKIPPED_ROWS,
            codes::OUTBOX_STATE_UNREADABLE,
            codes::OUTBOX_STATE_UNWRITTEN,
            codes::OUTBOX_UNREADABLE,
        ],
    };

    fn measures(data: &OutboxReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for o in &data.outboxes {
            let Some(state) = &o.state else { continue };
            let named = |m: Measure| m.label("outbox", crate::text::escape(&o.name));
            out.push(named(OUTBOX_UNPUBLISHED.at(state.unpublished as f64)));
            out.push(named(
                OUTBOX_OLDEST_UNPUBLISHED.at(state.oldest_unpublished_seconds.unwrap_or(0.0)),
            ));
            out.push(named(OUTBOX_SKIPPED.at(state.skipped as f64)));
        }
        for i in &data.inboxes {
            let Some(state) = &i.state else { continue };
            let named = |m: Measure| m.label("inbox", crate::text::escape(&i.name));
            out.push(named(INBOX_ROWS.at(state.rows as f64)));
            out.push(named(INBOX_OLDEST.at(state.oldest_seconds.unwrap_or(0.0))));
        }
        out
    }

    fn settings(t: &Targets, _thresholds: &Thresholds, args: Self::Args) -> Result<OutboxSettings> {
        settings::outboxes(t, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .outbox
            .iter()
            .filter(|(_, outbox)| outbox.check)
            .map(|(name, _)| planned(name, &["pg", "outbox", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        let outboxes = config.outbox.iter().map(|(name, o)| {
            Uses::pg_table(
                &format!("outbox {name}"),
                &o.postgres,
                &o.table,
                &[&o.id_column, &o.created_at_column, &o.published_at_column],
            )
        });
        let inboxes = config.inbox.iter().map(|(name, i)| {
            Uses::pg_table(
                &format!("inbox {name}"),
                &i.postgres,
                &i.table,
                &[&i.created_at_column],
            )
        });
        outboxes.chain(inboxes).collect()
    }

    async fn gather(ctx: &Context, settings: &OutboxSettings) -> Result<Read> {
        read(ctx, settings).await
    }

    fn report(ctx: &Context, settings: &OutboxSettings, read: Read) -> Report<OutboxReport> {
        report_of(settings, read, &ctx.invocation)
    }
}

/// What the outboxes and inboxes read came to, in the settings' order.
pub(crate) struct Read {
    outboxes: Vec<OutboxRead>,
    inboxes: Vec<InboxRead>,
}

/// One inbox: its state (or why it could not be read), its rows' growth since the
/// previous check, and what went wrong with its state file.
struct InboxRead {
    state: Result<InboxState>,
    growth: Option<Growth>,
    state_file: Vec<StateFileProblem>,
}

/// One outbox: its state (or why it could not be read), its growth since the previous
/// check's state file, and what went wrong with that file.
struct OutboxRead {
    state: Result<OutboxState>,
    growth: Option<Growth>,
    state_file: Vec<StateFileProblem>,
}

enum StateFileProblem {
    /// The previous check's file does not parse.
    Unparsed {
        file: std::path::PathBuf,
        why: String,
    },
    /// This check's state could not be written.
    Unwritten(String),
}

/// Reads every outbox and inbox, and keeps each outbox's state for the next check's growth.
async fn read(ctx: &Context, settings: &OutboxSettings) -> Result<Read> {
    // Every state file is checked before anything is read or written: a planted one
    // stops the command with nothing done.
    let mut previous = std::collections::BTreeMap::new();
    for o in &settings.outboxes {
        if let Some(file) = super::run_state::file("outbox", &o.name) {
            let loaded = super::run_state::load::<Previous>(&file, "outbox state")?;
            previous.insert(o.name.clone(), (file, loaded));
        }
    }
    let mut outboxes = Vec::new();
    for o in &settings.outboxes {
        let read = async {
            let target = o.target.clone().map_err(anyhow::Error::msg)?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            let state = outbox::outbox(
                &session,
                &o.table,
                &o.id_column,
                &o.created_at_column,
                &o.published_at_column,
                (
                    o.settle.value.as_secs_f64(),
                    o.retention.value.as_secs_f64(),
                ),
                settings.show as i64,
            )
            .await?;
            Ok::<_, anyhow::Error>((state, format!("{} {}", target.params.describe(), o.table)))
        }
        .await;
        let mut growth = None;
        let mut problems = Vec::new();
        let state = read.map(|(state, source)| {
            (growth, problems) = grown(
                previous.remove(&o.name),
                "outbox state",
                (state.unpublished, source),
            );
            state
        });
        outboxes.push(OutboxRead {
            state,
            growth,
            state_file: problems,
        });
    }
    let mut inbox_files = Vec::new();
    for i in &settings.inboxes {
        inbox_files.push(match super::run_state::file("inbox", &i.name) {
            Some(file) => {
                let loaded = super::run_state::load::<Previous>(&file, "inbox state")?;
                Some((file, loaded))
            }
            None => None,
        });
    }
    let mut inboxes = Vec::new();
    for (i, kept) in settings.inboxes.iter().zip(inbox_files) {
        let read = async {
            let target = i.target.clone().map_err(anyhow::Error::msg)?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            let state =
                outbox::inbox(&session, &i.table, &i.created_at_column, i.retention).await?;
            Ok::<_, anyhow::Error>((state, format!("{} {}", target.params.describe(), i.table)))
        }
        .await;
        let mut growth = None;
        let mut problems = Vec::new();
        let state = read.map(|(state, source)| {
            (growth, problems) = grown(kept, "inbox state", (state.rows, source));
            state
        });
        inboxes.push(InboxRead {
            state,
            growth,
            state_file: problems,
        });
    }
    Ok(Read { outboxes, inboxes })
}

/// The report from what was read: pure.
fn report_of(
    settings: &OutboxSettings,
    read: Read,
    invocation: &Invocation,
) -> Report<OutboxReport> {
    let mut findings = Vec::new();
    let mut outboxes = Vec::new();
    for (o, read) in settings.outboxes.iter().zip(read.outboxes) {
        let name = &o.name;
        let first_of_outbox = findings.len();
        let subject = format!("outbox {name} ({})", o.table);
        let mut entry = OutboxEntry {
            name: name.clone(),
            table: o.table.clone(),
            state: None,
            growth_since_last_check: read.growth.map(|g| g.rows),
            last_check_at: read.growth.map(|g| g.since),
        };
        findings.extend(
            read.state_file
                .into_iter()
                .map(|p| state_file_finding(&subject, p)),
        );
        match read.state {
            Ok(state) => {
                findings.extend(outbox_findings(o, &state, read.growth, invocation));
                entry.state = Some(state);
            }
            Err(e) => findings.push(unreadable(codes::OUTBOX_UNREADABLE, subject, &e)),
        }
        outboxes.push(entry);
        // Every finding of this outbox is about it: `check` shows them as one incident.
        for f in &mut findings[first_of_outbox..] {
            f.object = Some(Object::new(ObjectKind::Outbox, name.as_str()));
        }
    }
    let mut inboxes = Vec::new();
    for (i, read) in settings.inboxes.iter().zip(read.inboxes) {
        let subject = format!("inbox {} ({})", i.name, i.table);
        let mut entry = InboxEntry {
            name: i.name.clone(),
            table: i.table.clone(),
            state: None,
            growth_since_last_check: read.growth.map(|g| g.rows),
        };
        findings.extend(
            read.state_file
                .into_iter()
                .map(|p| state_file_finding(&subject, p)),
        );
        match read.state {
            Ok(state) => {
                findings.extend(inbox_findings(i, subject, &state, read.growth));
                entry.state = Some(state);
            }
            Err(e) => findings.push(unreadable(codes::INBOX_UNREADABLE, subject, &e)),
        }
        inboxes.push(entry);
    }
    let target = Target::config_file("outbox", settings.config_file.as_deref());
    Report::new(
        "pg outbox",
        target,
        findings,
        OutboxReport { outboxes, inboxes },
    )
}

/// Unpublished rows now minus at the previous check (its state file), and that check's time.
#[derive(Clone, Copy)]
struct Growth {
    rows: i64,
    since: chrono::DateTime<chrono::Utc>,
}

/// What one outbox's state comes to: its skipped rows (CRITICAL, with the statement that
/// lists them) and its backlog graded by the age of its oldest unpublished row. Pure, so
/// the golden fixture judges a state exactly as a run does.
fn outbox_findings(
    o: &Outbox,
    state: &OutboxState,
    growth: Option<Growth>,
    invocation: &Invocation,
) -> Vec<Finding> {
    let settle = o.settle.value;
    let (warning, critical) = (o.warning_age.value, o.critical_age.value);
    let subject = format!("outbox {} ({})", o.name, o.table);
    // Where its statements run: a SQL statement names no server.
    let place = super::pg_common::place(&o.target, &o.postgres);
    let mut findings = Vec::new();
    if state.skipped > 0 {
        findings.push(
            Finding::new(
                Severity::Critical,
                codes::OUTBOX_SKIPPED_ROWS,
                subject.clone(),
                format!(
                    "{} unpublished row(s) below the highest published id {} and older than {}: a relay polling by id > last_seen has skipped them for good",
                    state.skipped,
                    state.max_published_id.as_deref().unwrap_or("?"),
                    format_duration(settle)
                ),
            )
            .evidence("skipped_ids", state.skipped_ids.clone())
            .advice(match o.publish {
                true => "publish them now with their ids (the dry run shows the rows and how each message is made); make the relay select WHERE published_at IS NULL (or use CDC) instead of a monotonic id cursor",
                false => "publish them now (say how under outbox: NAME: publish:, and `indoubt resolve outbox` does, with their ids); make the relay select WHERE published_at IS NULL (or use CDC) instead of a monotonic id cursor",
            })
            .next(match o.publish {
                true => Next::indoubt(
                    invocation,
                    &[
                        Word::Lit("resolve"),
                        Word::Lit("outbox"),
                        Word::Lit("--dry-run"),
                        Word::Lit("--"),
                        Word::Value(&o.name),
                    ],
                ),
                false => Next::sql(
                    outbox::skipped_rows_statement(
                        &o.table,
                        &o.id_column,
                        &o.created_at_column,
                        &o.published_at_column,
                        settle.as_secs(),
                    )
                    .placed(&place),
                ),
            }),
        );
    }
    let age = state
        .oldest_unpublished_seconds
        .map(seconds)
        .unwrap_or_default();
    let severity = if state.unpublished > 0 {
        Severity::grade(age, warning, critical)
    } else {
        Severity::Ok
    };
    let growth = growth
        .map(|g| {
            format!(
                ", {:+} since the check at {}",
                g.rows,
                g.since.format("%H:%M:%S UTC")
            )
        })
        .unwrap_or_default();
    if state.published_past_retention > 0 {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::OUTBOX_UNPRUNED,
                subject.clone(),
                format!(
                    "{} row(s) published longer ago than the retention {} are still in {}{}{}: nothing deletes them, and the table grows without bound",
                    state.published_past_retention,
                    format_duration(o.retention.value),
                    o.table,
                    state
                        .oldest_published_seconds
                        .map(|s| format!(", the oldest published {} ago", format_duration(seconds(s))))
                        .unwrap_or_default(),
                    state
                        .bytes
                        .map(|b| format!(" (the table takes {})", format_size(b.max(0) as u64)))
                        .unwrap_or_default()
                ),
            )
            .evidence("source", o.table.clone())
            .evidence("published_past_retention", state.published_past_retention)
            .evidence("bytes", state.bytes)
            .advice(format!(
                "delete published rows older than {} on a schedule, in batches (or partition by time and drop old partitions)",
                format_duration(o.retention.value)
            )),
        );
    }
    let backlog = Finding::new(
        severity,
        codes::OUTBOX_BACKLOG,
        subject,
        format!(
            "{} unpublished of {} row(s){}{growth}",
            state.unpublished,
            state.rows,
            if state.unpublished > 0 {
                format!(", the oldest {} old", format_duration(age))
            } else {
                String::new()
            }
        ),
    )
    .evidence("source", o.table.clone())
    .evidence("warning_age_seconds", warning.as_secs())
    .evidence("critical_age_seconds", critical.as_secs());
    // The rows the relay is stuck behind, in the order it publishes them.
    findings.push(match severity {
        Severity::Ok => backlog,
        _ => backlog.next(Next::sql(
            outbox::oldest_unpublished_statement(
                &o.table,
                &o.id_column,
                &o.created_at_column,
                &o.published_at_column,
                OLDEST_SHOWN,
            )
            .placed(&place),
        )),
    });
    findings
}

/// A count now against the previous check's, from its state file when there is one (and
/// it counted the same server and table): the growth; this count is kept for the next
/// check; and what went wrong with the file.
fn grown(
    kept: Option<(std::path::PathBuf, Result<Option<Previous>, String>)>,
    what: &str,
    (count, source): (i64, String),
) -> (Option<Growth>, Vec<StateFileProblem>) {
    let Some((file, loaded)) = kept else {
        return (None, Vec::new());
    };
    let mut growth = None;
    let mut problems = Vec::new();
    match loaded {
        Ok(Some(prev)) if prev.source == source => {
            growth = Some(Growth {
                rows: count - prev.unpublished,
                since: prev.at,
            })
        }
        Ok(_) => {}
        Err(why) => problems.push(StateFileProblem::Unparsed {
            file: file.clone(),
            why,
        }),
    }
    let now = Previous {
        unpublished: count,
        at: chrono::Utc::now(),
        source,
    };
    if let Err(e) = super::run_state::save(&file, what, &now) {
        problems.push(StateFileProblem::Unwritten(format!("{e:#}")));
    }
    (growth, problems)
}

/// What went wrong with an outbox's or inbox's state file: a WARNING (the growth is not
/// known this time, or next time).
fn state_file_finding(subject: &str, problem: StateFileProblem) -> Finding {
    match problem {
        StateFileProblem::Unparsed { file, why } => Finding::new(
            Severity::Warning,
            codes::OUTBOX_STATE_UNREADABLE,
            subject.to_string(),
            format!(
                "the state of the previous check, {}, does not parse ({why}): the growth is not known this time; the file is replaced now",
                file.display()
            ),
        ),
        StateFileProblem::Unwritten(e) => Finding::new(
            Severity::Warning,
            codes::OUTBOX_STATE_UNWRITTEN,
            subject.to_string(),
            format!("{e}: the next check cannot report the growth"),
        ),
    }
}

/// A daily deleting job leaves rows up to a day past the retention.
const RETENTION_SLACK: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// An inbox: its retention against the producers' retry horizon, and whether anything
/// keeps to it; OK with its rows, size and oldest when both hold.
fn inbox_findings(
    i: &Inbox,
    subject: String,
    state: &InboxState,
    growth: Option<Growth>,
) -> Vec<Finding> {
    let mut size = format!("{} row(s)", state.rows);
    if let Some(bytes) = state.bytes {
        size.push_str(&format!(" in {}", format_size(bytes.max(0) as u64)));
    }
    if let Some(s) = state.oldest_seconds {
        size.push_str(&format!(
            ", the oldest received {} ago",
            format_duration(seconds(s))
        ));
    }
    if let Some(g) = growth {
        size.push_str(&format!(
            ", {:+} since the check at {}",
            g.rows,
            g.since.format("%H:%M:%S UTC")
        ));
    }
    let finding = |severity, code, message: String| {
        Finding::new(severity, code, subject.clone(), message)
            .evidence("source", i.table.clone())
            .evidence("rows", state.rows)
            .evidence("bytes", state.bytes)
            .evidence("oldest_seconds", state.oldest_seconds.map(f64::round))
    };
    let mut findings = Vec::new();
    if let (Some(retention), Some(horizon)) = (i.retention, i.producer_retry_horizon) {
        if retention < horizon {
            findings.push(finding(
                Severity::Warning,
                codes::INBOX_RETENTION_SHORT,
                format!(
                    "the retention configured for it, {}, is shorter than the {} a producer may deliver a message again: once an id is deleted, a duplicate arriving later is not recognised and is applied twice",
                    format_duration(retention),
                    format_duration(horizon)
                ),
            )
            .advice(format!(
                "keep ids at least {} (the deleting job and retention: in the config), or bound the producers' redelivery below {}",
                format_duration(horizon),
                format_duration(retention)
            )));
        }
    }
    let past = state.oldest_seconds.is_some_and(|s| {
        i.retention
            .is_some_and(|r| seconds(s) > r + RETENTION_SLACK)
    });
    // What a deleting job must keep: the retention, and no less than the retry horizon.
    let keep = i.retention.max(i.producer_retry_horizon);
    match i.retention {
        None => findings.push(
            finding(
                Severity::Warning,
                codes::INBOX_UNRETAINED,
                format!("{size}: no retention is configured for it, so nothing says anything deletes old ids, and an inbox nobody prunes grows for ever"),
            )
            .advice("name how long ids are kept (retention:) and how long producers may redeliver (producer_retry_horizon:) under inbox: NAME: in the config; delete older ids on a schedule"),
        ),
        Some(retention) if past => findings.push(
            finding(
                Severity::Warning,
                codes::INBOX_UNRETAINED,
                format!(
                    "{size}: {} row(s) are older than the retention {}: nothing deletes them",
                    state.past_retention,
                    format_duration(retention)
                ),
            )
            .advice(format!(
                "delete ids older than {} on a schedule, in batches (or drop old partitions){}",
                format_duration(keep.unwrap_or(retention)),
                match keep > Some(retention) {
                    true => ": no sooner than the producers' retry horizon, and set retention: to it",
                    false => "",
                }
            )),
        ),
        Some(_) => {}
    }
    if findings.is_empty() {
        findings.push(finding(Severity::Ok, codes::INBOX_SIZE, size));
    }
    findings
}

/// An outbox or inbox that could not be read: UNKNOWN, in the server's words.
fn unreadable(code: codes::Code, subject: String, e: &anyhow::Error) -> Finding {
    Finding::new(Severity::Unknown, code, subject, format!("{e:#}"))
}

#[cfg(test)]
mod golden;

impl TableView for OutboxReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "NAME",
            "TABLE",
            "ROWS",
            "UNPUBLISHED",
            "OLDEST UNPUBLISHED",
            "SKIPPED BY A CURSOR",
            "GROWTH",
        ]);
        for o in &self.outboxes {
            let Some(s) = &o.state else { continue };
            table.add_row(vec![
                Cell::new(&o.name),
                Cell::new(&o.table),
                Cell::new(s.rows),
                Cell::new(s.unpublished),
                Cell::new(
                    s.oldest_unpublished_seconds
                        .map(|x| format_duration(seconds(x)))
                        .unwrap_or_else(|| "-".into()),
                ),
                Cell::new(if s.skipped > 0 {
                    format!("{}: {}", s.skipped, s.skipped_ids.join(", "))
                } else {
                    "0".into()
                }),
                Cell::new(
                    o.growth_since_last_check
                        .map(|g| format!("{g:+}"))
                        .unwrap_or_else(|| "-".into()),
                ),
            ]);
        }
        for i in &self.inboxes {
            let Some(s) = &i.state else { continue };
            table.add_row(vec![
                Cell::new(shown!("{} (inbox)", i.name)),
                Cell::new(&i.table),
                Cell::new(s.rows),
                Cell::new("-"),
                Cell::new(
                    s.oldest_seconds
                        .map(|x| format!("oldest row {}", format_duration(seconds(x))))
                        .unwrap_or_else(|| "-".into()),
                ),
                Cell::new("-"),
                Cell::new("-"),
            ]);
        }
        table.optional(6);
        vec![table.render()]
    }
}
