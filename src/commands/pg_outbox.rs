//! `indoubt pg outbox`: every configured outbox and inbox — backlog, age, skipped rows, growth.

mod settings;

use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::fsafe;
use crate::next::Next;
use crate::pg::outbox::{self, InboxState, OutboxState};
use crate::pg::session;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::pg::{Outbox, OutboxSettings};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::{format_duration, seconds};
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::io::Read as _;
use std::path::Path;

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

fn state_file(name: &str) -> Option<std::path::PathBuf> {
    let audit = crate::audit::log::default_path().ok()?;
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Some(audit.with_file_name(format!("outbox-{safe}.json")))
}

/// The previous check's state: None when there is none; Err(why) when the file is
/// indoubt's but does not parse. A file that is a link, another user's or writable by
/// others is refused (the outer error): nothing is read or written then.
fn load_previous(file: &Path) -> Result<Result<Option<Previous>, String>> {
    let Some(mut f) = fsafe::open_read(file, "outbox state")? else {
        return Ok(Ok(None));
    };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .with_context(|| format!("reading the outbox state {}", file.display()))?;
    Ok(serde_json::from_slice::<Previous>(&bytes)
        .map(Some)
        .map_err(|e| e.to_string()))
}

fn save(file: &Path, now: &Previous) -> Result<()> {
    let bytes = serde_json::to_vec(now).context("encoding the outbox state")?;
    if let Some(dir) = file.parent() {
        fsafe::create_private_dir(dir)?;
    }
    fsafe::replace(file, fsafe::Kind::Private, "outbox state", |w| {
        w.write_all(&bytes)
    })
}

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
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every outbox and inbox of the config", "indoubt pg outbox"),
            example!("One outbox, listing up to 50 skipped ids", "indoubt pg outbox orders --show 50"),
        ],
        see_also: &["reconcile"],
        codes: &[
            codes::INBOX_SIZE,
            codes::INBOX_UNREADABLE,
            codes::OUTBOX_BACKLOG,
            codes::OUTBOX_SKIPPED_ROWS,
            codes::OUTBOX_STATE_UNREADABLE,
            codes::OUTBOX_STATE_UNWRITTEN,
            codes::OUTBOX_UNREADABLE,
        ],
    };

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

    fn report(_ctx: &Context, settings: &OutboxSettings, read: Read) -> Report<OutboxReport> {
        report_of(settings, read)
    }
}

/// What the outboxes and inboxes read came to, in the settings' order.
pub(crate) struct Read {
    outboxes: Vec<OutboxRead>,
    inboxes: Vec<Result<InboxState>>,
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
        if let Some(file) = state_file(&o.name) {
            let loaded = load_previous(&file)?;
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
                o.settle.value.as_secs_f64(),
                settings.show as i64,
            )
            .await?;
            Ok::<_, anyhow::Error>((state, format!("{} {}", target.params.describe(), o.table)))
        }
        .await;
        let mut growth = None;
        let mut problems = Vec::new();
        let state = match read {
            Ok((state, source)) => {
                if let Some((file, loaded)) = previous.remove(&o.name) {
                    match loaded {
                        Ok(Some(prev)) if prev.source == source => {
                            growth = Some(Growth {
                                rows: state.unpublished - prev.unpublished,
                                since: prev.at,
                            });
                        }
                        Ok(_) => {}
                        Err(why) => problems.push(StateFileProblem::Unparsed {
                            file: file.clone(),
                            why,
                        }),
                    }
                    let now = Previous {
                        unpublished: state.unpublished,
                        at: chrono::Utc::now(),
                        source,
                    };
                    if let Err(e) = save(&file, &now) {
                        problems.push(StateFileProblem::Unwritten(format!("{e:#}")));
                    }
                }
                Ok(state)
            }
            Err(e) => Err(e),
        };
        outboxes.push(OutboxRead {
            state,
            growth,
            state_file: problems,
        });
    }
    let mut inboxes = Vec::new();
    for i in &settings.inboxes {
        let read = async {
            let target = i.target.clone().map_err(anyhow::Error::msg)?;
            let session = session::connect(&target.params, ctx.timeout).await?;
            outbox::inbox(&session, &i.table, &i.created_at_column).await
        }
        .await;
        inboxes.push(read);
    }
    Ok(Read { outboxes, inboxes })
}

/// The report from what was read: pure.
fn report_of(settings: &OutboxSettings, read: Read) -> Report<OutboxReport> {
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
        for problem in read.state_file {
            findings.push(match problem {
                StateFileProblem::Unparsed { file, why } => Finding::new(
                    Severity::Warning,
                    codes::OUTBOX_STATE_UNREADABLE,
                    subject.clone(),
                    format!(
                        "the state of the previous check, {}, does not parse ({why}): the growth is not known this time; the file is replaced now",
                        file.display()
                    ),
                ),
                StateFileProblem::Unwritten(e) => Finding::new(
                    Severity::Warning,
                    codes::OUTBOX_STATE_UNWRITTEN,
                    subject.clone(),
                    format!("{e}: the next check cannot report the growth"),
                ),
            });
        }
        match read.state {
            Ok(state) => {
                findings.extend(outbox_findings(o, &state, read.growth));
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
        };
        match read {
            Ok(state) => {
                findings.push(inbox_finding(subject, &state));
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
fn outbox_findings(o: &Outbox, state: &OutboxState, growth: Option<Growth>) -> Vec<Finding> {
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
            .advice("publish them now; make the relay select WHERE published_at IS NULL (or use CDC) instead of a monotonic id cursor")
            .next(Next::sql(outbox::skipped_rows_statement(
                &o.table,
                &o.id_column,
                &o.created_at_column,
                &o.published_at_column,
                settle.as_secs(),
            )
            .placed(&place))),
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

/// An inbox's size: OK, a reminder that it grows without retention.
fn inbox_finding(subject: String, state: &InboxState) -> Finding {
    Finding::new(
        Severity::Ok,
        codes::INBOX_SIZE,
        subject,
        format!(
            "{} row(s){}: without partitioning and retention an inbox grows forever",
            state.rows,
            state
                .oldest_seconds
                .map(|s| format!(", the oldest {} old", format_duration(seconds(s))))
                .unwrap_or_default()
        ),
    )
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
