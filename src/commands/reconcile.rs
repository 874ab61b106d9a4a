//! `indoubt reconcile`: orders in the database that their events never announced, found
//! as the difference of two sets — never as an ERROR line.

use crate::settings::reconcile_args as settings;

use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::error::hinted;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::fsafe::ScratchDir;
use crate::metrics::{Family, Measure};
use crate::next::{Next, Word};
use crate::pg::session;
use crate::reconcile::compare::{self, Classes};
use crate::reconcile::db;
use crate::reconcile::spill::{Budget, Scratch};
use crate::reconcile::topic::{self, Unparseable, Unstable, Window};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::probe::{self, example, planned, Inspect, Pages, Uses};
use crate::settings::reconcile::ReconcileSettings;
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

/// The comparison's sorted runs go to a scratch directory src/fsafe.rs makes: 0700 under
/// a random name, in a parent nobody else can rename, removed at exit even on a signal.
impl Scratch for ScratchDir {
    fn path(&self) -> &std::path::Path {
        ScratchDir::path(self)
    }

    fn nameless_file(&self) -> std::io::Result<std::fs::File> {
        ScratchDir::nameless_file(self)
    }
}

fn scratch_dir(parent: &std::path::Path) -> Result<Box<dyn Scratch>> {
    Ok(Box::new(ScratchDir::create(parent, "indoubt-reconcile-")?))
}

#[derive(Debug, Serialize)]
pub(crate) struct ReconcileReport {
    job: Option<String>,
    topic: String,
    since: DateTime<Utc>,
    /// Where the comparison starts: `since`, or later when the topic no longer holds the
    /// window's first messages (then rows before it are not compared).
    compared_from: DateTime<Utc>,
    /// The partitions that lost messages from inside the window.
    retained: Retained,
    /// The partitions whose last stable offset was behind the high watermark as the run
    /// began: read with read_committed up to the LSO only, and past it (with
    /// read_uncommitted) only to find the rows whose events may lie there.
    lso_bounds: Vec<Unstable>,
    until: DateTime<Utc>,
    settle_seconds: u64,
    count_only: bool,
    database_rows: u64,
    topic_messages: u64,
    partitions: usize,
    matched: u64,
    /// Counts of each class; the ids follow unless --count-only.
    missing_count: usize,
    pending_count: usize,
    not_judged_count: usize,
    extra_count: usize,
    duplicated_count: usize,
    unparseable_count: usize,
    missing: Vec<String>,
    /// The offset of each partition the topic was read to.
    #[serde(skip)]
    read_to: BTreeMap<i32, i64>,
    /// How long ago the oldest missing row was written (by the query's time column and
    /// the server's clock); null with no time column or nothing missing.
    oldest_missing_age_seconds: Option<f64>,
    /// In the database, younger than the settle window, not yet in the topic.
    pending: Vec<String>,
    /// Not in what read_committed could read, but named by a message past a partition's
    /// last stable offset (`lso_bounds`): neither missing nor matched.
    not_judged: Vec<String>,
    extra: Vec<String>,
    duplicated: Vec<Duplicate>,
    unparseable: Vec<Unparseable>,
    /// The ids' memory budget (--memory), and the bytes of sorted runs written past it.
    memory_bytes: u64,
    spilled_bytes: u64,
    #[serde(skip)]
    show: usize,
}

#[derive(Debug, Serialize)]
struct Retained {
    /// Partition → the time no message it lost is newer than, for those later than
    /// `since` less the slack: its first kept message, or for an emptied partition now
    /// less retention.ms.
    partitions: BTreeMap<i32, DateTime<Utc>>,
    /// Partitions whose every message was deleted.
    emptied: Vec<i32>,
    /// Emptied partitions no retention.ms bounds (infinite, unknown): their lost events
    /// may be of any age.
    unbounded: Vec<i32>,
    retention_ms: Option<i64>,
    cleanup_policy: Option<String>,
}

/// What the topic lost of the window, and where the comparison can start: `since`, or
/// just after the newest time a lost message may have (plus the slack: a row's event
/// may be timestamped up to the slack before the row).
fn retained(
    topic: &topic::Topic,
    since: DateTime<Utc>,
    slack: Duration,
) -> (Retained, DateTime<Utc>) {
    let slack_ms = slack.as_millis().min(i64::MAX as u128) as i64;
    let since_ms = since.timestamp_millis();
    let bounds = topic.deleted_before(Utc::now().timestamp_millis());
    let partitions: BTreeMap<i32, DateTime<Utc>> = bounds
        .iter()
        .filter_map(|(p, ms)| ms.map(|ms| (*p, ms)))
        .filter(|(_, ms)| ms.saturating_add(slack_ms) >= since_ms)
        .filter_map(|(p, ms)| DateTime::from_timestamp_millis(ms).map(|t| (p, t)))
        .collect();
    let compared_from = partitions
        .values()
        .max()
        .and_then(|t| {
            DateTime::from_timestamp_millis(
                t.timestamp_millis()
                    .saturating_add(slack_ms)
                    .saturating_add(1),
            )
        })
        .filter(|from| *from > since)
        .unwrap_or(since);
    let retained = Retained {
        partitions,
        emptied: topic.emptied.clone(),
        unbounded: bounds
            .iter()
            .filter(|(_, ms)| ms.is_none())
            .map(|(p, _)| *p)
            .collect(),
        retention_ms: topic.retention_ms,
        cleanup_policy: topic.cleanup_policy.clone(),
    };
    (retained, compared_from)
}

#[derive(Debug, Serialize)]
struct Duplicate {
    id: String,
    count: u32,
}

/// `reconcile` as a probe: gather is the streaming comparison (and the ids file it
/// writes), report judges the classes it came to.
pub(crate) struct Reconcile;

static RECONCILE_OLDEST_MISSING: Family = Family {
    name: "indoubt_reconcile_oldest_missing_age_seconds",
    help: "How long ago the oldest missing id's row was written (the query's time column; absent without one, or past 1,000,000 missing ids); 0: nothing missing.",
    labels: &[],
};
static RECONCILE_IDS: Family = Family {
    name: "indoubt_reconcile_ids",
    help: "Ids of one reconcile run by class: matched, missing (in the database, not in the topic, past the settle time), pending (younger), not_judged, extra (in the topic only), duplicated, unparseable.",
    labels: &["class"],
};

impl Inspect for Reconcile {
    type Args = settings::ReconcileArgs;
    type Settings = ReconcileSettings;
    type Gathered = (Target, ReconcileReport);
    type Data = ReconcileReport;
    const NAME: &'static str = "reconcile";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Reconcile);
    const MEASURES: &'static [&'static Family] = &[&RECONCILE_IDS, &RECONCILE_OLDEST_MISSING];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("The config's only reconcile job", "indoubt reconcile"),
            example!("A month in at most 1GiB (sorted runs past it on /var/tmp), every id to a file", "indoubt reconcile orders --since 30d --memory 1GiB --spill-dir /var/tmp --ids-out orders.ids"),
            example!("No config: the query, the topic and where the id is", "indoubt reconcile --pg postgres://monitor@db1/shop --query 'SELECT id, ts FROM orders WHERE ts >= $1 AND ts < $2' -b kafka1:9092 --topic orders --id-from json:/id"),
        ],
        see_also: &["pg outbox", "kafka lso"],
        codes: &[
            codes::DUPLICATED_IN_TOPIC,
            codes::MISSING_IN_DATABASE,
            codes::MISSING_IN_TOPIC,
            codes::NOT_JUDGED_PAST_LSO,
            codes::PARTITIONS_EMPTIED,
            codes::RECONCILED,
            codes::TOPIC_COMPACTED,
            codes::UNPARSEABLE_MESSAGES,
            codes::WINDOW_PAST_RETENTION,
        ],
    };

    fn measures(data: &ReconcileReport) -> Vec<Measure> {
        let oldest = match (data.missing_count, data.oldest_missing_age_seconds) {
            (0, _) => Some(0.0),
            (_, age) => age,
        };
        let oldest = oldest.map(|age| RECONCILE_OLDEST_MISSING.at(age));
        [
            ("matched", data.matched as usize),
            ("missing", data.missing_count),
            ("pending", data.pending_count),
            ("not_judged", data.not_judged_count),
            ("extra", data.extra_count),
            ("duplicated", data.duplicated_count),
            ("unparseable", data.unparseable_count),
        ]
        .into_iter()
        .map(|(class, n)| RECONCILE_IDS.at(n as f64).label("class", class))
        .chain(oldest)
        .collect()
    }

    fn settings(
        t: &Targets,
        _thresholds: &Thresholds,
        args: Self::Args,
    ) -> Result<ReconcileSettings> {
        settings::reconcile(t, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        config
            .reconcile
            .iter()
            .filter(|(_, job)| job.check)
            .map(|(name, _)| planned(name, &["reconcile", "--no-progress", "--", name]))
            .collect()
    }

    fn reads(config: &Config) -> Vec<Uses> {
        // A job that names no target uses the config's only one of that kind.
        let only = |names: Vec<&String>| (names.len() == 1).then(|| names[0].clone());
        let only_pg = only(config.postgres.keys().collect());
        let only_kafka = only(config.kafka.keys().collect());
        let mut reads = Vec::new();
        for (job, j) in &config.reconcile {
            let section = format!("reconcile job {job}");
            if let (Some(postgres), Some(query)) =
                (j.postgres.clone().or(only_pg.clone()), &j.query)
            {
                reads.push(Uses {
                    section: section.clone(),
                    read: probe::Read::PgQuery {
                        postgres,
                        job: job.clone(),
                        query: query.clone(),
                    },
                });
            }
            if let (Some(kafka), Some(topic)) = (j.kafka.clone().or(only_kafka.clone()), &j.topic) {
                reads.push(Uses {
                    section,
                    read: probe::Read::KafkaTopic {
                        kafka,
                        job: job.clone(),
                        topic: topic.clone(),
                    },
                });
            }
        }
        reads
    }

    async fn gather(
        ctx: &Context,
        settings: &ReconcileSettings,
    ) -> Result<(Target, ReconcileReport)> {
        compare_sides(ctx, settings).await
    }

    fn report(
        ctx: &Context,
        settings: &ReconcileSettings,
        (target, data): (Target, ReconcileReport),
    ) -> Report<ReconcileReport> {
        let findings = assess(&data, &nexts(ctx, settings, &data));
        Report::new("reconcile", target, findings, data)
    }
}

/// The ids the job's comparison finds missing in its topic now, and the offsets of each
/// partition it read to (`resolve reconcile` looks again from there before sending).
pub(crate) async fn missing_ids(
    ctx: &Context,
    settings: &ReconcileSettings,
) -> Result<(Vec<String>, BTreeMap<i32, i64>)> {
    let (_, data) = compare_sides(ctx, settings).await?;
    Ok((data.missing, data.read_to))
}

/// The memory budget of one comparison's ids (and of a look for ids in the topic).
pub(crate) fn budget(settings: &ReconcileSettings) -> Result<Arc<Budget>> {
    ScratchDir::check_parent(&settings.spill_dir, "--spill-dir")?;
    Ok(Budget::new(
        settings.memory,
        settings.spill_dir.clone(),
        scratch_dir,
    ))
}

/// The two sides read and compared, streaming: the classes of ids, not yet judged.
async fn compare_sides(
    ctx: &Context,
    args: &ReconcileSettings,
) -> Result<(Target, ReconcileReport)> {
    let (since, until, settle, slack) = (args.since, args.until, args.settle, args.slack);
    let (pg, kafka, id_from) = (&args.pg, &args.kafka.client, &args.id_from);
    let topic_name = &args.topic;
    let query = &args.query;
    let job_name = args.job.clone();
    let budget = budget(args)?;
    let progress = Progress::new(args.progress, budget.clone());
    let query_timeout = args.query_timeout;
    let kafka_timeout = ctx.timeout.max(Duration::from_secs(30));
    let connect = async {
        let mut session = session::connect(&pg.params, ctx.timeout).await?;
        session.allow_long_statements(query_timeout).await?;
        Ok::<_, anyhow::Error>(session)
    };
    let open = async {
        topic::open(kafka, topic_name, kafka_timeout)
            .await
            .context("reading the topic side")
    };
    let (session, topic) = tokio::try_join!(connect, open)?;
    if let Some(why) = &topic.config_error {
        ctx.note(format!(
            "the retention and cleanup policy of {topic_name} are unknown: {why}"
        ));
    }
    let (retained, compared_from) = retained(&topic, since, slack);
    if compared_from >= until {
        let kept = retained
            .partitions
            .values()
            .max()
            .copied()
            .unwrap_or(compared_from);
        return Err(hinted(
            format!(
                "topic {topic_name} may have lost messages up to {} (retention or DeleteRecords): none of the window [{}, {}) can be compared",
                kept.format("%Y-%m-%d %H:%M:%S UTC"),
                since.format("%Y-%m-%d %H:%M:%S"),
                until.format("%Y-%m-%d %H:%M:%S")
            ),
            "choose a window the topic's retention still covers",
        ));
    }
    let settle_from = crate::units::time_before(until, settle);
    if !topic.unstable.is_empty() {
        ctx.note(format!(
            "{} partition(s) of {topic_name} have messages past their last stable offset: read to the LSO with read_committed, past it only to find the rows not to judge",
            topic.unstable.len()
        ));
    }
    let window = Window {
        since_ms: compared_from.timestamp_millis(),
        until_ms: until.timestamp_millis(),
        slack,
    };
    // Both sides at once: the database streamed, the topic fetched (and parsed on the
    // blocking pool).
    let (on_messages, on_rows) = (|n| progress.messages(n), |n| progress.rows(n));
    let on_note = |message: String| ctx.note(message);
    let topic_read = topic::read(
        &topic,
        id_from,
        &window,
        kafka_timeout,
        &budget,
        &on_messages,
        &on_note,
    );
    let db_read = db::read(
        &session,
        query,
        compared_from,
        until,
        settle_from,
        &budget,
        &on_rows,
    );
    let past_read = topic::read_past_lso(&topic, id_from, &budget);
    let (db_side, topic_side, past) = tokio::join!(db_read, topic_read, past_read);
    let db_side = db_side.context("reading the database side")?;
    let topic_side = topic_side.context("reading the topic side")?;
    let mut past = past.context("reading the topic side")?;
    let mut unparseable = topic_side.unparseable;
    unparseable.append(&mut past.unparseable);

    let mut data = ReconcileReport {
        job: job_name,
        topic: topic_name.clone(),
        since,
        compared_from,
        retained,
        lso_bounds: past.partitions,
        until,
        settle_seconds: settle.as_secs(),
        count_only: args.count_only,
        database_rows: db_side.rows,
        topic_messages: topic_side.messages,
        partitions: topic_side.partitions,
        matched: 0,
        missing_count: 0,
        pending_count: 0,
        not_judged_count: 0,
        extra_count: 0,
        duplicated_count: 0,
        unparseable_count: unparseable.len(),
        missing: Vec::new(),
        read_to: topic.ends().clone(),
        oldest_missing_age_seconds: None,
        pending: Vec::new(),
        not_judged: Vec::new(),
        extra: Vec::new(),
        duplicated: Vec::new(),
        unparseable,
        memory_bytes: 0,
        spilled_bytes: 0,
        show: args.show,
    };
    // Sorting millions of ids takes seconds: off the runtime's thread, so a signal is
    // still answered meanwhile.
    let (db_ids, young) = (db_side.ids, db_side.young);
    let (window, outside) = (topic_side.window, topic_side.outside);
    let past_ids = past.ids;
    let classes: Classes = tokio::task::spawn_blocking(move || {
        compare::compare(db_ids, &young, window, outside, past_ids)
    })
    .await
    .context("comparing the two sides")??;
    progress.finish();
    data.memory_bytes = args.memory;
    data.spilled_bytes = budget.spilled();
    if data.spilled_bytes > 0 {
        ctx.note(format!(
            "the ids outgrew --memory {}: {} of sorted runs were spilled to {} and merged",
            crate::settings::defaults::size_text(args.memory),
            crate::units::format_size(data.spilled_bytes),
            args.spill_dir.display()
        ));
    }
    // At most this many missing ids are looked up again for the oldest one's time.
    const AGED: usize = 1_000_000;
    if !classes.missing.is_empty() && classes.missing.len() <= AGED {
        match db::oldest_age_seconds(&session, query, compared_from, until, &classes.missing).await
        {
            Ok(age) => data.oldest_missing_age_seconds = age,
            Err(e) => ctx.note(format!("{e:#}")),
        }
    }
    data.matched = classes.matched;
    data.missing_count = classes.missing.len();
    data.pending_count = classes.pending.len();
    data.not_judged_count = classes.not_judged.len();
    data.extra_count = classes.extra.len();
    data.duplicated_count = classes.duplicated.len();
    if let Some(path) = &args.ids_out {
        write_ids(path, &classes, &data.unparseable)?;
    }
    if !args.count_only {
        data.missing = classes.missing;
        data.pending = classes.pending;
        data.not_judged = classes.not_judged;
        data.extra = classes.extra;
        data.duplicated = classes
            .duplicated
            .into_iter()
            .map(|(id, count)| Duplicate { id, count })
            .collect();
    } else {
        data.unparseable.clear();
    }
    let target = Target {
        name: pg.name.clone(),
        kind: "reconcile".into(),
        address: format!(
            "{} ⇄ {} topic {topic_name}",
            pg.params.describe(),
            kafka.bootstrap.join(",")
        ),
    };
    Ok((target, data))
}

/// How many missing ids the finding's message names (the report has them all, unless
/// --count-only).
const FIRST_IDS: usize = 5;

/// The `--ids-out` file a next command writes, in the working directory.
const IDS_OUT_FILE: &str = "reconcile-ids.tsv";

/// The next commands over this comparison's window: the one that writes every id to a
/// file (for the ids missing in the database, and in the topic when the job cannot
/// republish), and the dry run of publishing the missing ones again when it can.
struct Nexts {
    ids_out: Option<Next>,
    republish: Option<Next>,
}

/// The same job over the same window (its bounds as absolute times), followed by
/// `words`. Only for a job run as the config has it: flags that override its fields are
/// not repeated, so a next command would compare something else.
fn window_next(
    ctx: &Context,
    s: &ReconcileSettings,
    d: &ReconcileReport,
    command: &[Word],
    tail: &[Word],
) -> Option<Next> {
    if !s.job_as_configured {
        return None;
    }
    let job = d.job.as_deref()?;
    // Nanoseconds kept: the window is the same to the instant.
    let at = |t: &DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
    let (since, until) = (at(&d.since), at(&d.until));
    let mut words = command.to_vec();
    words.extend([
        Word::Lit("--since"),
        Word::Value(&since),
        Word::Lit("--until"),
        Word::Value(&until),
    ]);
    words.extend_from_slice(tail);
    words.extend([Word::Lit("--"), Word::Value(job)]);
    Some(Next::indoubt(&ctx.invocation, &words))
}

fn nexts(ctx: &Context, s: &ReconcileSettings, d: &ReconcileReport) -> Nexts {
    Nexts {
        // None when this run wrote the file already.
        ids_out: match s.ids_out {
            Some(_) => None,
            None => window_next(
                ctx,
                s,
                d,
                &[Word::Lit("reconcile")],
                &[Word::Lit("--ids-out"), Word::Lit(IDS_OUT_FILE)],
            ),
        },
        republish: match s.republish {
            true => window_next(
                ctx,
                s,
                d,
                &[Word::Lit("resolve"), Word::Lit("reconcile")],
                &[Word::Lit("--dry-run")],
            ),
            false => None,
        },
    }
}

/// The findings of one comparison; the next commands go to those whose ids an operator
/// acts on (missing either way: republish, or compensate).
fn assess(d: &ReconcileReport, next: &Nexts) -> Vec<Finding> {
    let window = format!(
        "[{}, {})",
        d.compared_from.format("%Y-%m-%d %H:%M:%S"),
        d.until.format("%Y-%m-%d %H:%M:%S")
    );
    let mut findings = Vec::new();
    let evidence = |f: Finding| {
        f.evidence(
            "source",
            "the reconcile query; the topic read with read_committed",
        )
        .evidence("database_rows", d.database_rows)
        .evidence("topic_messages", d.topic_messages)
        .evidence("matched", d.matched)
    };
    if d.missing_count > 0 {
        // The first few ids in the message, so a one-line report (check, nagios) names them.
        let oldest = d.oldest_missing_age_seconds.map_or(String::new(), |age| {
            format!(
                "; the oldest written {} ago",
                format_duration(Duration::from_secs_f64(age.max(0.0)))
            )
        });
        let named = match d.missing.len() {
            0 => String::new(),
            n => format!(
                ": {}{}",
                d.missing[..n.min(FIRST_IDS)].join(", "),
                if n > FIRST_IDS { ", …" } else { "" }
            ),
        };
        let mut missing = evidence(Finding::new(
            Severity::Critical,
            codes::MISSING_IN_TOPIC,
            format!("topic {}", d.topic),
            format!(
                "{} row(s) of {window} never reached the topic (older than the settle window of {}{oldest}){named}",
                d.missing_count,
                format_duration(Duration::from_secs(d.settle_seconds))
            ),
        ))
        .advice(match next.republish {
            Some(_) => "publish them again from the source of truth (the job's republish: query); then find why the publish was lost",
            None => "republish them from the source of truth (the outbox, or the ids in --ids-out); then find why the publish was lost",
        });
        missing.next = next.republish.clone().or_else(|| next.ids_out.clone());
        findings.push(missing);
    }
    if d.not_judged_count > 0 {
        findings.push(not_judged_finding(d));
    }
    for (count, code, message) in [
        (
            d.extra_count,
            codes::MISSING_IN_DATABASE,
            "message(s) in the window name ids the database does not have",
        ),
        (
            d.duplicated_count,
            codes::DUPLICATED_IN_TOPIC,
            "id(s) were published more than once: consumers must deduplicate",
        ),
        (
            d.unparseable_count,
            codes::UNPARSEABLE_MESSAGES,
            "message(s) carry no readable id",
        ),
    ] {
        if count > 0 {
            let mut finding = evidence(Finding::new(
                Severity::Warning,
                code,
                format!("topic {}", d.topic),
                format!("{count} {message}"),
            ));
            if code == codes::MISSING_IN_DATABASE {
                finding.next = next.ids_out.clone();
            }
            findings.push(finding);
        }
    }
    if findings.is_empty() {
        findings.push(evidence(Finding::new(
            Severity::Ok,
            codes::RECONCILED,
            format!("topic {}", d.topic),
            format!(
                "{} row(s) of {window} all in the topic ({} pending in the settle window)",
                d.database_rows, d.pending_count
            ),
        )));
    }
    let topic = format!("topic {}", d.topic);
    if d.compared_from > d.since {
        let partitions: Vec<String> = d
            .retained
            .partitions
            .iter()
            .map(|(p, at)| format!("{p} up to {}", at.format("%Y-%m-%d %H:%M:%S")))
            .collect();
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::WINDOW_PAST_RETENTION,
                topic.clone(),
                format!(
                    "the topic may have lost messages from inside the window (partition {}): rows are compared from {}, not from {}; older rows are not judged",
                    partitions.join(", partition "),
                    d.compared_from.format("%Y-%m-%d %H:%M:%S"),
                    d.since.format("%Y-%m-%d %H:%M:%S"),
                ),
            )
            .evidence("source", "ListOffsets (log starts), the first kept record of each partition, DescribeConfigs (retention.ms)")
            .advice("retention (or DeleteRecords) removed them: compare older rows against another copy of the events, or narrow --since"),
        );
    }
    if !d.retained.unbounded.is_empty() {
        let emptied: Vec<String> = d.retained.unbounded.iter().map(i32::to_string).collect();
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::PARTITIONS_EMPTIED,
                topic.clone(),
                format!(
                    "partition(s) {} hold no message any more, and no retention.ms tells when they were deleted (DeleteRecords, retention.bytes): rows whose events went there may be reported missing",
                    emptied.join(", ")
                ),
            )
            .evidence("source", "ListOffsets (log start = high watermark > 0), DescribeConfigs"),
        );
    }
    if d.retained
        .cleanup_policy
        .as_deref()
        .is_some_and(|p| p.contains("compact"))
    {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::TOPIC_COMPACTED,
                topic,
                "cleanup.policy includes compact: Kafka keeps only the newest message of each key (and drops tombstones after delete.retention.ms), so duplicates are undercounted, and ids not taken from the key may be reported missing".to_string(),
            )
            .evidence("source", "DescribeConfigs (cleanup.policy)"),
        );
    }
    // All about one comparison: `check` shows them as one incident.
    let job = Object::new(
        ObjectKind::ReconcileJob,
        d.job.as_deref().unwrap_or(&d.topic),
    );
    for f in &mut findings {
        f.object = Some(job.clone());
    }
    findings
}

/// Rows whose events lie past a stuck LSO: a WARNING pointing to `kafka lso`, never
/// "missing" and never "republish" (following that would duplicate them).
fn not_judged_finding(d: &ReconcileReport) -> Finding {
    let partitions: Vec<String> = d
        .lso_bounds
        .iter()
        .map(|u| {
            let holder = match (u.producer_id, u.producer_epoch) {
                (Some(pid), Some(epoch)) => format!(", held by producer {pid} epoch {epoch}"),
                _ => String::new(),
            };
            let since = u
                .first_unstable_at_ms
                .and_then(DateTime::from_timestamp_millis)
                .map(|t| format!(" since {}", t.format("%Y-%m-%d %H:%M:%S")))
                .unwrap_or_default();
            format!(
                "{}-{} at offset {} (high watermark {}{holder}{since})",
                d.topic, u.partition, u.last_stable_offset, u.high_watermark
            )
        })
        .collect();
    Finding::new(
        Severity::Warning,
        codes::NOT_JUDGED_PAST_LSO,
        format!("topic {}", d.topic),
        format!(
            "{} row(s) not judged: their events lie beyond the LSO of {}, which read_committed cannot read (committed or not cannot be told until the LSO moves)",
            d.not_judged_count,
            partitions.join(", ")
        ),
    )
    .evidence("source", "ListOffsets (high watermark and LSO), Fetch past the LSO (read_uncommitted), DescribeProducers")
    .evidence(
        "partitions",
        d.lso_bounds.iter().map(|u| u.partition).collect::<Vec<_>>(),
    )
    .evidence(
        "last_stable_offsets",
        d.lso_bounds.iter().map(|u| u.last_stable_offset).collect::<Vec<_>>(),
    )
    .advice(format!(
        "do not republish them: they may be in the topic. `indoubt kafka lso --topic {}` names the open transaction pinning the LSO; once it ends, run reconcile again",
        d.topic
    ))
}

/// The `--ids-out` file: one `class<TAB>id` line per id (duplicated ids add `<TAB>count`,
/// unparseable messages are `unparseable<TAB>partition:offset<TAB>why`), every field
/// escaped by `ids_field` so an id holding a tab or a line break cannot forge a line.
/// Written whole or not at all, never through a link.
fn write_ids(path: &std::path::Path, classes: &Classes, unparseable: &[Unparseable]) -> Result<()> {
    crate::fsafe::replace(path, crate::fsafe::Kind::Shared, "--ids-out file", |out| {
        for (class, ids) in [
            ("missing", &classes.missing),
            ("pending", &classes.pending),
            ("not_judged", &classes.not_judged),
            ("extra", &classes.extra),
        ] {
            for id in ids {
                writeln!(out, "{class}\t{}", ids_field(id))?;
            }
        }
        for (id, count) in &classes.duplicated {
            writeln!(out, "duplicated\t{}\t{count}", ids_field(id))?;
        }
        for u in unparseable {
            writeln!(
                out,
                "unparseable\t{}:{}\t{}",
                u.partition,
                u.offset,
                ids_field(&u.why)
            )?;
        }
        Ok(())
    })
}

/// The `missing` ids of an `--ids-out` file (its fields unescaped), each once, in file
/// order; a line with no tab is an id by itself (a list made some other way).
pub(crate) fn missing_in_ids_file(bytes: &[u8]) -> Result<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    let mut ids = Vec::new();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let at = || format!("line {}", n + 1);
        let line = std::str::from_utf8(line).map_err(|_| anyhow::anyhow!("{}: not UTF-8", at()))?;
        // A file saved with CRLF line ends (a tab in an id is written escaped, so is \r).
        let line = line.strip_suffix('\r').unwrap_or(line);
        let id = match line.split_once('\t') {
            Some(("missing", field)) => unescape_field(field).with_context(at)?,
            Some(_) => continue,
            None if line.trim().is_empty() => continue,
            None => line.to_string(),
        };
        if id.is_empty() {
            anyhow::bail!("{}: an empty id", at());
        }
        // PostgreSQL's text holds no NUL: the query would fail for the whole batch.
        if id.contains('\0') {
            anyhow::bail!(
                "{}: an id holding a NUL byte (\\x00), which no database id can be",
                at()
            );
        }
        if seen.insert(id.clone()) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// An `--ids-out` field back to its text: what `ids_field` escaped.
fn unescape_field(field: &str) -> Result<String> {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let code = u8::from_str_radix(&hex, 16)
                    .map_err(|_| anyhow::anyhow!("\\x{hex} is no escape of --ids-out"))?;
                out.push(code as char);
            }
            Some('u') => {
                let rest: String = chars.by_ref().take_while(|c| *c != '}').collect();
                let code = rest
                    .strip_prefix('{')
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                    .ok_or_else(|| anyhow::anyhow!("\\u{rest}}} is no escape of --ids-out"))?;
                out.push(code);
            }
            other => anyhow::bail!(
                "\\{} is no escape of --ids-out",
                other.map_or(String::new(), String::from)
            ),
        }
    }
    Ok(out)
}

/// One field of an `--ids-out` line: backslash, tab, line feed and carriage return as
/// `\\`, `\t`, `\n`, `\r`; any other ASCII control byte (0x00-0x1f, 0x7f) as `\xHH`;
/// the C1 controls and the Unicode line and paragraph separators (U+0080-U+009F,
/// U+2028, U+2029), which some readers also take for line breaks, as `\u{HHHH}`.
/// Everything else is kept as it is (UTF-8). Plain ids come out unchanged.
fn ids_field(text: &str) -> std::borrow::Cow<'_, str> {
    let special = |c: char| c == '\\' || c.is_control() || c == '\u{2028}' || c == '\u{2029}';
    if !text.contains(special) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if special(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Rows and messages read so far, and the bytes spilled past the memory budget, on
/// stderr when it is a terminal.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    counts: std::sync::Mutex<(u64, u64)>,
    budget: std::sync::Arc<Budget>,
}

impl Progress {
    fn new(wanted: bool, budget: std::sync::Arc<Budget>) -> Progress {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let target = indicatif::ProgressDrawTarget::term_like_with_hz(
                Box::new(Narrowed(console::Term::buffered_stderr())),
                20,
            );
            let bar = indicatif::ProgressBar::with_draw_target(None, target)
                .with_style(indicatif::ProgressStyle::default_spinner());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            counts: Default::default(),
            budget,
        }
    }

    fn update(&self, f: impl FnOnce(&mut (u64, u64))) {
        if let Some(bar) = &self.bar {
            let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut counts);
            let elapsed = bar.elapsed().as_secs_f64().max(0.001);
            let spilled = match self.budget.spilled() {
                0 => String::new(),
                n => format!(", spilled {}", crate::units::format_size(n)),
            };
            bar.set_message(format!(
                "rows {} ({:.0}/s), messages {} ({:.0}/s){spilled}",
                counts.0,
                counts.0 as f64 / elapsed,
                counts.1,
                counts.1 as f64 / elapsed
            ));
        }
    }

    fn rows(&self, n: u64) {
        self.update(|c| c.0 = n);
    }

    fn messages(&self, n: u64) {
        self.update(|c| c.1 = n);
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// stderr as two columns narrower than it is. indicatif pads its line to the full width,
/// leaving the cursor past the last column, where the terminal's echo of Ctrl-C (`^C`)
/// wraps onto a new line; the spinner's clearing would then erase that line and leave
/// the spinner on the screen. With two columns spare the echo stays on the spinner's line.
#[derive(Debug)]
struct Narrowed(console::Term);

impl indicatif::TermLike for Narrowed {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(2).max(1)
    }
    fn height(&self) -> u16 {
        self.0.size().0
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_up(n)
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_down(n)
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_right(n)
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_left(n)
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.0.write_line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.write_str(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.0.clear_line()
    }
    fn flush(&self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Also when the command is dropped half way (an interrupt, an error): indicatif would
/// leave the last spinner line on the terminal.
impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

impl TableView for ReconcileReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        let mut table = style.table(&["CLASS", "COUNT", "IDS"]);
        let first = |ids: &mut dyn Iterator<Item = Shown>, count: usize| {
            let mut shown: Vec<Shown> = ids.take(self.show).collect();
            if count > self.show {
                shown.push(shown!(
                    "… and {} more (all in -o json or --ids-out)",
                    count - self.show
                ));
            }
            Shown::join(shown, ", ")
        };
        let ids = |ids: &[String]| first(&mut ids.iter().map(Shown::from), ids.len());
        let mut row = |class: &'static str, count: Shown, ids: Shown| {
            table.add_row(vec![
                Cell::new(Shown::lit(class)),
                Cell::new(count),
                Cell::new(ids),
            ]);
        };
        row(
            "rows in the database",
            Shown::from(self.database_rows),
            Shown::default(),
        );
        row(
            "messages in the topic",
            Shown::from(self.topic_messages),
            shown!("{} partition(s)", self.partitions),
        );
        row("matched", Shown::from(self.matched), Shown::default());
        row(
            "missing in the topic",
            Shown::from(self.missing_count),
            ids(&self.missing),
        );
        row(
            "pending (settle window)",
            Shown::from(self.pending_count),
            ids(&self.pending),
        );
        row(
            "not judged (past a stuck LSO)",
            Shown::from(self.not_judged_count),
            ids(&self.not_judged),
        );
        row(
            "in the topic, not in the database",
            Shown::from(self.extra_count),
            ids(&self.extra),
        );
        let dups = first(
            &mut self
                .duplicated
                .iter()
                .map(|d| shown!("{}×{}", d.id, d.count)),
            self.duplicated.len(),
        );
        row(
            "duplicated in the topic",
            Shown::from(self.duplicated_count),
            dups,
        );
        let bad = first(
            &mut self
                .unparseable
                .iter()
                .map(|u| shown!("{}@{} ({})", u.partition, u.offset, u.why)),
            self.unparseable.len(),
        );
        row(
            "unparseable messages",
            Shown::from(self.unparseable_count),
            bad,
        );
        vec![table.render()]
    }
}

#[cfg(test)]
mod golden;

#[cfg(test)]
mod tests {
    use super::{ids_field, missing_in_ids_file};

    #[test]
    fn an_ids_out_file_reads_back_to_the_same_missing_ids() {
        let ids = [
            "4711",
            "a\tb\nmissing\tforged",
            "c:\\x\r",
            "\u{1}\u{7f}\u{85}\u{2028}заказ",
        ];
        let mut file: String = ids
            .iter()
            .map(|id| format!("missing\t{}\n", ids_field(id)))
            .collect();
        file.push_str("extra\t9\nduplicated\t4711\t2\nmissing\t4711\n\n5000\n");
        let mut expected: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        expected.push("5000".into());
        assert_eq!(missing_in_ids_file(file.as_bytes()).unwrap(), expected);
        for bad in [
            &b"missing\tbad\\q\n"[..],
            b"missing\t\n",
            b"4711\n\xff\n",
            b"missing\ta\\x00b\n",
        ] {
            assert!(missing_in_ids_file(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ids_out_fields_cannot_forge_lines_or_fields() {
        assert_eq!(ids_field("4711"), "4711");
        assert_eq!(ids_field("заказ 4711"), "заказ 4711");
        assert_eq!(
            ids_field("a\tb\nmissing\tforged"),
            "a\\tb\\nmissing\\tforged"
        );
        assert_eq!(ids_field("c:\\x\r"), "c:\\\\x\\r");
        assert_eq!(ids_field("\u{1b}[2J\u{0}\u{7f}"), "\\x1b[2J\\x00\\x7f");
        assert_eq!(ids_field("a\u{85}b\u{2028}c"), "a\\u{0085}b\\u{2028}c");
    }
}
