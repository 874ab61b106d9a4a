//! `indoubt modulith publications`: each configured Spring Modulith event publication
//! registry — the publications no listener completed (by listener, with what 2.x's
//! status says of them), listeners that complete nothing any more (renamed), poison
//! events, and completed rows never pruned.

mod codes;
mod settings;

use crate::appdb::Problem;
use crate::cli::CheckKind;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::metrics::{Family, Measure};
use crate::modulith::registry::{self, Layout, Listener, Snapshot, COUNT_CAP, RECENT};
use crate::next::{Invocation, Next, Word};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::modulith::{ModulithSettings, Registry};
use crate::settings::probe::{example, planned, Inspect, Pages, Uses};
use crate::settings::{targets::Targets, Thresholds};
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;

static MODULITH_INCOMPLETE_COUNT: Family = Family {
    name: "indoubt_modulith_incomplete_publications",
    help: "Event publications of a Spring Modulith registry no listener completed.",
    labels: &[],
};
static MODULITH_OLDEST_INCOMPLETE: Family = Family {
    name: "indoubt_modulith_oldest_incomplete_age_seconds",
    help: "How long ago the oldest incomplete publication was published (0: none).",
    labels: &[],
};
static MODULITH_UNPRUNED_COUNT: Family = Family {
    name: "indoubt_modulith_completed_past_retention_publications",
    help: "Completed publications older than the retention still in the table (counted up to 100,001).",
    labels: &[],
};

/// `modulith publications` as a probe.
pub(crate) struct ModulithPublications;

impl Inspect for ModulithPublications {
    type Args = settings::ModulithArgs;
    type Settings = ModulithSettings;
    type Gathered = Vec<Read>;
    type Data = ModulithReport;
    const NAME: &'static str = "modulith publications";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Modulith);
    const MEASURES: &'static [&'static Family] = &[
        &MODULITH_INCOMPLETE_COUNT,
        &MODULITH_OLDEST_INCOMPLETE,
        &MODULITH_UNPRUNED_COUNT,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every registry of the config", "indoubt modulith publications"),
            example!("One registry, as JSON", "indoubt -o json modulith publications orders"),
        ],
        see_also: &["pg outbox"],
        codes: &[
            codes::MODULITH_REGISTRY,
            codes::MODULITH_INCOMPLETE,
            codes::MODULITH_LISTENER_GONE,
            codes::MODULITH_POISON,
            codes::MODULITH_UNPRUNED,
            codes::MODULITH_UNREADABLE,
        ],
    };

    fn measures(data: &ModulithReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for r in &data.registries {
            let Some(s) = &r.snapshot else { continue };
            let oldest = s
                .listeners
                .iter()
                .filter_map(|l| l.oldest)
                .min()
                .map_or(0.0, |t| {
                    (s.now - t).num_milliseconds().max(0) as f64 / 1000.0
                });
            out.push(MODULITH_INCOMPLETE_COUNT.at(s.incomplete_total as f64));
            out.push(MODULITH_OLDEST_INCOMPLETE.at(oldest));
            out.push(MODULITH_UNPRUNED_COUNT.at(s.completed.past_retention as f64));
        }
        out
    }

    fn settings(
        t: &Targets,
        _thresholds: &Thresholds,
        args: Self::Args,
    ) -> Result<ModulithSettings> {
        crate::settings::modulith::settings(t, args.name.as_deref())
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .modulith
            .iter()
            .filter(|(_, m)| m.check)
            .map(|(name, _)| planned(name, &["modulith", "publications", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        config
            .modulith
            .iter()
            .map(|(name, m)| {
                let section = format!("modulith {name}");
                let (table, ..) = crate::settings::modulith::thresholds(name, m);
                match (&m.postgres, &m.mysql) {
                    (Some(pg), _) => {
                        Uses::pg_table(&section, pg, &table.value, &registry::V1_COLUMNS)
                    }
                    (None, my) => Uses::mysql_table(
                        &section,
                        my.as_deref().unwrap_or(""),
                        &table.value,
                        &registry::V1_COLUMNS,
                    ),
                }
            })
            .collect()
    }

    async fn gather(ctx: &Context, settings: &ModulithSettings) -> Result<Vec<Read>> {
        let mut reads = Vec::new();
        for r in &settings.registries {
            reads.push(read(ctx, r).await);
        }
        Ok(reads)
    }

    fn report(
        ctx: &Context,
        settings: &ModulithSettings,
        reads: Vec<Read>,
    ) -> Report<ModulithReport> {
        report_of(&ctx.invocation, settings, reads)
    }
}

/// What one registry came to.
pub(crate) enum Read {
    Snapshot(Snapshot),
    Problems(Vec<Problem>),
    Failed(anyhow::Error),
}

async fn read(ctx: &Context, r: &Registry) -> Read {
    let table = &r.table.value;
    let read = async {
        let mut session = match super::appdb_common::connect(ctx, &r.db).await {
            Ok(session) => session,
            // MySQL refuses the connection to a database the account has no privilege
            // on: the table is as unreadable as one it may not SELECT, and one GRANT mends
            // both.
            Err(e) if super::appdb_common::database_denied(&e) => {
                return Ok(Read::Problems(vec![Problem::NotReadable {
                    table: table.clone(),
                }]))
            }
            Err(e) => return Err(e),
        };
        let read = match registry::layout(&mut session, table).await? {
            Err(problems) => Read::Problems(problems),
            Ok(layout) => Read::Snapshot(
                registry::read(
                    &mut session,
                    table,
                    layout,
                    (r.incomplete_age.value, r.retention.value),
                )
                .await
                // Its columns are named as Spring Modulith names them, but a type that
                // is not (a date kept as text) fails the read: say which table and why.
                .with_context(|| {
                    format!("reading {table}, whose columns are named as a Spring Modulith registry's but whose types may not be")
                })?,
            ),
        };
        session.close().await;
        Ok::<_, anyhow::Error>(read)
    };
    read.await.unwrap_or_else(Read::Failed)
}

#[derive(Debug, Serialize)]
pub(crate) struct ModulithReport {
    registries: Vec<RegistryEntry>,
}

#[derive(Debug, Serialize)]
struct RegistryEntry {
    name: String,
    table: String,
    incomplete_age_seconds: u64,
    critical_age_seconds: u64,
    poison_attempts: u64,
    retention_seconds: u64,
    /// Null when it could not be read (the findings say why).
    snapshot: Option<Snapshot>,
}

fn report_of(
    invocation: &Invocation,
    settings: &ModulithSettings,
    reads: Vec<Read>,
) -> Report<ModulithReport> {
    let mut findings = Vec::new();
    let mut registries = Vec::new();
    for (r, read) in settings.registries.iter().zip(reads) {
        let mut entry = RegistryEntry {
            name: r.name.clone(),
            table: r.table.value.clone(),
            incomplete_age_seconds: r.incomplete_age.value.as_secs(),
            critical_age_seconds: r.critical_age.value.as_secs(),
            poison_attempts: r.poison_attempts.value,
            retention_seconds: r.retention.value.as_secs(),
            snapshot: None,
        };
        match read {
            Read::Snapshot(s) => {
                findings.extend(assess(invocation, r, &s));
                entry.snapshot = Some(s);
            }
            Read::Problems(problems) => {
                findings.extend(problems.iter().map(|p| problem_finding(r, p)))
            }
            Read::Failed(e) => findings.push(Finding::new(
                Severity::Unknown,
                codes::MODULITH_UNREADABLE,
                r.subject(),
                format!("{e:#}"),
            )),
        }
        registries.push(entry);
    }
    let target = Target::config_file("modulith", settings.config_file.as_deref());
    Report::new(
        "modulith publications",
        target,
        findings,
        ModulithReport { registries },
    )
}

/// A registry that could not be read: UNKNOWN, with what would show it.
fn problem_finding(r: &Registry, problem: &Problem) -> Finding {
    super::appdb_common::Unreadable {
        code: codes::MODULITH_UNREADABLE,
        subject: r.subject(),
        db: &r.db,
        place: r.place(),
        missing: (
            "is it the registry's table (EVENT_PUBLICATION on MySQL and MariaDB)?",
            "name the registry's table under modulith: NAME: table: in the config",
        ),
        layout: "a Spring Modulith 1.x or 2.x registry",
        what: None,
        grant_on: "it",
    }
    .finding(problem)
}

/// A duration as Java's `java.time.Duration` spells it, in the largest whole unit.
fn java_duration(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    match secs {
        s if s > 0 && s % 86400 == 0 => format!("Duration.ofDays({})", s / 86400),
        s if s > 0 && s % 3600 == 0 => format!("Duration.ofHours({})", s / 3600),
        s if s > 0 && s % 60 == 0 => format!("Duration.ofMinutes({})", s / 60),
        s => format!("Duration.ofSeconds({s})"),
    }
}

/// How long ago, as an operator reads it.
fn ago(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    format_duration((now - t).to_std().unwrap_or_default())
}

/// One registry, judged.
fn assess(invocation: &Invocation, r: &Registry, s: &Snapshot) -> Vec<Finding> {
    let mut findings = Vec::new();
    for l in &s.listeners {
        findings.extend(assess_listener(r, s, l));
        findings.extend(dated_ahead(r, s, l));
    }
    if s.completed.past_retention > 0 {
        let count = match s.completed.past_retention > COUNT_CAP {
            true => format!("more than {COUNT_CAP}"),
            false => s.completed.past_retention.to_string(),
        };
        let mut message = format!(
            "{count} completed publication(s) older than {} are still in {}",
            format_duration(r.retention.value),
            r.table.value
        );
        if let Some(oldest) = s.completed.oldest {
            message.push_str(&format!(
                ", the oldest completed {} ago",
                ago(s.now, oldest)
            ));
        }
        if let (Some(rows), Some(bytes)) = (s.completed.estimated_rows, s.completed.bytes) {
            message.push_str(&format!(
                "; the table holds about {rows} rows in {} with its indexes",
                crate::units::format_size(bytes.max(0) as u64)
            ));
        }
        message.push_str(": completion mode UPDATE keeps every one unless the application deletes them, and a table nobody prunes grows without bound");
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::MODULITH_UNPRUNED,
                r.subject(),
                message,
            )
            .evidence("source", r.table.value.clone())
            .evidence("past_retention", s.completed.past_retention)
            .evidence("estimated_rows", s.completed.estimated_rows)
            .evidence("bytes", s.completed.bytes)
            .advice(format!(
                "delete them from inside the application on a schedule: call deletePublicationsOlderThan({}) on its CompletedEventPublications, or use completion mode DELETE or ARCHIVE; until then the command below deletes them in batches (a dry run first)",
                java_duration(r.retention.value)
            ))
            .next(Next::indoubt(
                invocation,
                &[
                    Word::Lit("resolve"),
                    Word::Lit("modulith"),
                    Word::Value(&r.name),
                    Word::Lit("--dry-run"),
                ],
            )),
        );
    }
    if findings.is_empty() {
        let layout = match s.layout {
            Layout::V1 => "Spring Modulith 1.x layout",
            Layout::V2 => "Spring Modulith 2.x layout",
        };
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::MODULITH_REGISTRY,
                r.subject(),
                format!(
                    "{} incomplete publication(s), none older than {} ({layout})",
                    s.incomplete_total,
                    format_duration(r.incomplete_age.value)
                ),
            )
            .evidence("source", r.table.value.clone()),
        );
    }
    findings
}

/// Incomplete publications dated ahead of the database's clock (the application writes the
/// date from its own): their age is not known, so none of them is judged by it.
fn dated_ahead(r: &Registry, s: &Snapshot, l: &Listener) -> Option<Finding> {
    let ahead = (l.newest? - s.now).to_std().ok()?;
    if ahead < std::time::Duration::from_secs(60) {
        return None;
    }
    Some(
        Finding::new(
            Severity::Warning,
            codes::MODULITH_INCOMPLETE,
            r.subject(),
            format!(
                "incomplete publication(s) to listener {} are dated up to {} ahead of the database's clock: how long those have waited is not known, and they are not judged by their age (is the application's clock or time zone off?)",
                l.listener_id,
                format_duration(ahead)
            ),
        )
        .evidence("source", r.table.value.clone())
        .evidence("listener_id", l.listener_id.clone())
        .object(Object::new(ObjectKind::Listener, l.listener_id.as_str())),
    )
}

/// One listener's incomplete publications, judged: listener gone, poison, or incomplete
/// past the age; nothing when none is past it.
fn assess_listener(r: &Registry, s: &Snapshot, l: &Listener) -> Option<Finding> {
    if l.past_age == 0 {
        return None;
    }
    let oldest = l.oldest?;
    let age = (s.now - oldest).to_std().unwrap_or_default();
    let by_age = match age >= r.critical_age.value {
        true => Severity::Critical,
        false => Severity::Warning,
    };
    let events = l.event_types.join(", ");
    // Completed nothing since its oldest open row, as far as the newest completed rows
    // show.
    // With no completed row kept (completion mode DELETE or ARCHIVE) nothing shows it.
    let kept = s.recent.rows > 0;
    let silent = kept && l.last_completion.is_none_or(|t| t < oldest) && s.recent.covers(oldest);
    let successor = successor(s, l);
    let poisoned = l
        .max_attempts
        .is_some_and(|n| n >= r.poison_attempts.value as i64);
    let statuses = l.by_status.as_ref().map(|by| {
        by.iter()
            .map(|(status, n)| format!("{n} {status}"))
            .collect::<Vec<_>>()
            .join(", ")
    });
    let mut message = format!(
        "{} publication(s) of {events} to listener {} incomplete, the oldest published {} ago",
        l.incomplete,
        l.listener_id,
        format_duration(age)
    );
    if let Some(statuses) = statuses.as_ref().filter(|s| !s.is_empty()) {
        message.push_str(&format!(" ({statuses})"));
    }
    let (code, severity) = match (silent, &successor, poisoned) {
        (true, Some(now), _) => {
            message.push_str(&format!(
                ": it has completed nothing since and gets no new publications, while {now}, which appeared after, completes {events}: the listener id these rows name is gone (renamed?), and resubmission matches ids exactly"
            ));
            (codes::MODULITH_LISTENER_GONE, Severity::Critical)
        }
        (_, _, true) => {
            message.push_str(&format!(
                ": one was attempted {} times: it fails on that event every time",
                l.max_attempts.unwrap_or_default()
            ));
            (codes::MODULITH_POISON, Severity::Critical)
        }
        (silent, _, _) => {
            match (silent, l.last_completion) {
                _ if !kept => message.push_str("; the table keeps no completed publication (completion mode DELETE or ARCHIVE?), so whether it completes others is not known here"),
                (true, _) => message.push_str("; it has completed nothing since"),
                (false, Some(t)) => {
                    message.push_str(&format!("; its last completion was {} ago", ago(s.now, t)))
                }
                (false, None) => message.push_str(&format!(
                    "; no completion of it among the newest {RECENT} completed rows"
                )),
            }
            if l.by_status
                .as_ref()
                .is_some_and(|b| b.contains_key("PROCESSING"))
            {
                message.push_str(": PROCESSING ones were cut off mid-run, and nothing marks them failed or runs them again unless the application resubmits them");
            } else {
                message.push_str(": nothing runs them again unless the application resubmits them");
            }
            (codes::MODULITH_INCOMPLETE, by_age)
        }
    };
    if l.by_status.as_ref().is_some_and(|b| b.contains_key("none")) {
        message.push_str("; those with no status (rows of the 1.x layout) are never resubmitted by Spring Modulith 2.0");
    }
    let ids: Vec<&str> = l
        .oldest_ids
        .iter()
        .filter(|id| uuid_like(id))
        .map(String::as_str)
        .collect();
    let advice = match code {
        c if c == codes::MODULITH_LISTENER_GONE => format!(
            "if {} took over from it, give that listener the old id (@ApplicationModuleListener(id = {})) and resubmit them; else deliver them by hand and delete those rows",
            successor.as_deref().unwrap_or("the listener that handles them now"),
            java_string(&l.listener_id)
        ),
        c if c == codes::MODULITH_POISON => "read the event and the listener's log: fix the listener or the data, or deliver it by hand and delete the row; resubmitting it again changes nothing".to_string(),
        _ if ids.is_empty() => "fix why the listener does not complete (its log), then resubmit them from inside the application: incompleteEventPublications.resubmitIncompletePublications(p -> ids.contains(p.getIdentifier())), with the ids the statement below lists".to_string(),
        _ => format!(
            "fix why the listener does not complete (its log), then resubmit them from inside the application: incompleteEventPublications.resubmitIncompletePublications(p -> ids.contains(p.getIdentifier())) with ids = Set.of({}){}",
            ids.iter()
                .map(|id| format!("UUID.fromString(\"{id}\")"))
                .collect::<Vec<_>>()
                .join(", "),
            match (l.incomplete as usize).saturating_sub(ids.len()) {
                0 => String::new(),
                more => format!(" (the oldest; {more} more: the statement below lists them all)"),
            }
        ),
    };
    Some(
        Finding::new(severity, code, r.subject(), message)
            .evidence("source", r.table.value.clone())
            .evidence("listener_id", l.listener_id.clone())
            .evidence("incomplete", l.incomplete)
            .evidence("oldest_ids", l.oldest_ids.clone())
            .evidence("successor", successor)
            .advice(advice)
            .object(Object::new(ObjectKind::Listener, l.listener_id.as_str()))
            .next_if(
                registry::incomplete_statement(
                    r.db.dialect(),
                    &r.table.value,
                    s.layout,
                    &l.listener_id,
                )
                .map(|sql| Next::sql(sql.placed(&r.place()))),
            ),
    )
}

/// The listener that took over this one's event type, as a rename leaves it: publications
/// to this listener's id stopped (its newest is older than any of the other's), and the
/// other, of the same event type, appeared after that and completes. A listener that is
/// still there but fails keeps getting publications and has none. None when the newest
/// completed rows do not reach back that far.
fn successor(s: &Snapshot, l: &Listener) -> Option<String> {
    let mine = s.recent.by_listener.get(&l.listener_id);
    let newest = [l.newest, mine.map(|r| r.last_published)]
        .into_iter()
        .flatten()
        .max()?;
    if !s.recent.covers(newest) {
        return None;
    }
    s.recent
        .by_listener
        .iter()
        .filter(|(id, r)| {
            **id != l.listener_id
                && l.event_types.contains(&r.event_type)
                && r.first_published > newest
                // Its incomplete ones, if any, are after it too.
                && s
                    .listeners
                    .iter()
                    .find(|other| other.listener_id == **id)
                    .is_none_or(|other| other.oldest.is_some_and(|o| o > newest))
        })
        .max_by_key(|(_, r)| r.last_completion)
        .map(|(id, _)| id.clone())
}

/// A Java string literal of `s`: quotes and backslashes escaped, and every character that
/// is not printable ASCII as `\uXXXX` (UTF-16), so that an id planted in the table stays
/// one string in the snippet an operator pastes into the application.
fn java_string(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Whether an id is a UUID's text (Spring Modulith's ids are; on MySQL the column is a
/// VARCHAR anyone who can write it may fill): only such are named in advice.
fn uuid_like(id: &str) -> bool {
    id.len() == 36
        && id.chars().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod golden;

impl TableView for ModulithReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&[
            "REGISTRY",
            "LISTENER",
            "INCOMPLETE",
            "OLDEST",
            "STATUS",
            "LAST DONE",
        ]);
        for r in &self.registries {
            let Some(s) = &r.snapshot else { continue };
            for l in &s.listeners {
                table.add_row(vec![
                    Cell::new(&r.name),
                    Cell::new(&l.listener_id),
                    Cell::new(l.incomplete.to_string()),
                    Cell::new(
                        l.oldest
                            .map(|t| ago(s.now, t))
                            .unwrap_or_else(|| "-".into()),
                    ),
                    Cell::new(
                        l.by_status
                            .as_ref()
                            .map(|by| {
                                by.iter()
                                    .map(|(status, n)| format!("{n} {status}"))
                                    .collect::<Vec<_>>()
                                    .join("\n")
                            })
                            .unwrap_or_else(|| "-".into()),
                    ),
                    Cell::new(
                        l.last_completion
                            .map(|t| format!("{} ago", ago(s.now, t)))
                            .unwrap_or_else(|| "-".into()),
                    ),
                ]);
            }
        }
        // A listener id is copied as a whole (into an id = … annotation).
        table.keep_whole(1);
        table.rendered_unless_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::java_string;

    /// An id planted in the table stays one Java string: its quote cannot end the
    /// literal, and what is not printable ASCII is a \u escape.
    #[test]
    fn a_listener_id_is_one_java_string_whatever_it_holds() {
        assert_eq!(
            java_string(r#"com.ex.Old.on(E)"); Runtime.getRuntime().exec("x"); //"#),
            r#""com.ex.Old.on(E)\"); Runtime.getRuntime().exec(\"x\"); //""#
        );
        assert_eq!(java_string("a\\b\u{202e}\u{1b}"), r#""a\\b\u202e\u001b""#);
        assert_eq!(java_string("\u{1F600}"), r#""\ud83d\ude00""#);
    }
}
