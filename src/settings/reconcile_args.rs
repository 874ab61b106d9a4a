//! `reconcile`'s arguments (its clap struct), resolved into its settings: the job in force, its fields with
//! the flags over them (`settings::reconcile::parameters`, which `config show` shares),
//! both targets, the window, the memory budget.

use crate::cli::{KafkaTargetArgs, PgConn, EXIT_CODES_HELP};
use crate::config::ReconcileJobConfig;
use crate::error::hinted;
use crate::reconcile::ids::IdFrom;
use crate::settings::kafka::cluster;
use crate::settings::reconcile::{parameters, Overrides, ReconcileSettings};
use crate::settings::targets::Targets;
use crate::settings::{defaults, Setting};
use crate::units::{parse_duration, parse_size};
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Compare the ids in a database window with the ids in a topic (dual-write gaps)
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct ReconcileArgs {
    /// A reconcile job from the config; flags override its fields [default: the config's
    /// only job, unless --query and --topic are given]
    pub job: Option<String>,

    /// Never draw the progress spinner on stderr (it is drawn only on a terminal anyway)
    #[arg(long)]
    pub no_progress: bool,

    /// The database: a target name, a postgres:// URL or conninfo
    #[arg(long, value_name = "TARGET")]
    pub pg: Option<PgConn>,

    /// Returns the id (text or integer) and optionally the row's time, for rows in [$1,
    /// $2); an id longer than 4096 bytes is refused (exit 3, naming the row)
    #[arg(long, value_name = "SQL")]
    pub query: Option<String>,

    #[command(flatten)]
    pub kafka: KafkaTargetArgs,

    /// The topic the rows are published to [default: the job's topic]
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,

    /// Where a message's id is: key, header:NAME or json:/pointer [default: key]; an id
    /// longer than 4096 bytes is refused (exit 3, naming the partition and offset)
    #[arg(long, value_name = "WHERE")]
    pub id_from: Option<String>,

    /// The window's start: an RFC 3339 time or a duration back from now, e.g. 3h [default: 24h]
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// The window's end (exclusive): a time or a duration back from now [default: 0s, now]
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// Rows younger than this are not yet expected in the topic (relay lag) [default: 5m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub settle: Option<Duration>,

    /// Read the topic from this much before the window's start (producer clock skew) [default: 1m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub slack: Option<Duration>,

    /// Compare counts only, without keeping ids
    #[arg(long)]
    pub count_only: bool,

    /// Write every id of every class to this file (`class<TAB>id` lines), each field
    /// escaped: \\ \t \n \r, \xHH for other ASCII control bytes, \u{HHHH} for C1
    /// controls and U+2028/U+2029
    #[arg(long, value_name = "FILE")]
    pub ids_out: Option<PathBuf>,

    /// How many ids of each class the table shows
    #[arg(long, value_name = "N", default_value_t = crate::settings::defaults::RECONCILE_SHOW.number() as usize)]
    pub show: usize,

    /// Memory the ids of both sides may take, at most 1GiB; past it they are sorted into
    /// runs on disk and merged, with the same result [default: 512MiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,

    /// Where the runs past --memory go: a private directory is made there and removed on
    /// exit [default: $TMPDIR, else /tmp]
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,

    /// Bound on the database query (it may stream millions of rows) [default: 1h]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub query_timeout: Option<Duration>,
}

/// A time: RFC 3339, or a duration back from now.
fn parse_time(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    let back = parse_duration(text).map_err(|e| {
        hinted(
            format!("invalid time {text:?}: {e}"),
            "an RFC 3339 time (2026-05-11T02:00:00Z) or a duration back from now (3h)",
        )
    })?;
    Ok(crate::units::time_before(now, back))
}

/// The job in force: the one named; with none named, the config's only job (flags
/// override its fields), unless the command line is a comparison of its own (--query and
/// --topic). Several jobs and none named is refused with their names.
fn job_in_force<'a>(
    t: &Targets<'a>,
    args: &ReconcileArgs,
) -> Result<Option<(String, &'a ReconcileJobConfig)>> {
    let jobs = &t.config.config.reconcile;
    let names = || jobs.keys().cloned().collect::<Vec<_>>().join(", ");
    match &args.job {
        Some(name) => match jobs.get(name) {
            Some(job) => Ok(Some((name.clone(), job))),
            None => Err(hinted(
                format!("no reconcile job named {name:?} in the config"),
                if jobs.is_empty() {
                    "jobs live under reconcile: in the config file, which names none".to_string()
                } else {
                    format!("the config's reconcile jobs are: {}", names())
                },
            )),
        },
        None if args.query.is_some() && args.topic.is_some() => Ok(None),
        None if jobs.len() == 1 => {
            let (name, job) = jobs.iter().next().context("config jobs vanished")?;
            t.ctx
                .note(format!("reconcile job {name:?}, the config's only one"));
            Ok(Some((name.clone(), job)))
        }
        None if jobs.len() > 1 => Err(hinted(
            format!("which reconcile job? The config names several: {}", names()),
            "name one: indoubt reconcile NAME (flags override its fields), or give --query and --topic for a comparison of its own",
        )),
        None => Ok(None),
    }
}

pub fn reconcile(t: &Targets, args: ReconcileArgs) -> Result<ReconcileSettings> {
    let (job_name, job) = match job_in_force(t, &args)? {
        Some((name, job)) => (Some(name), Some(job)),
        None => (None, None),
    };
    let pick = |flag: &Option<String>, field: fn(&ReconcileJobConfig) -> &Option<String>| {
        flag.clone().or_else(|| job.and_then(|j| field(j).clone()))
    };
    let need = |value: Option<String>, what: &str| {
        value.ok_or_else(|| {
            let hint = match &t.config.path {
                Some(_) => "give it as a flag or in a reconcile job of the config".to_string(),
                None => format!(
                    "give it as a flag, or in a reconcile job of a config file (none was found: {})",
                    crate::config::where_looked()
                ),
            };
            hinted(format!("reconcile needs {what}"), hint)
        })
    };
    let query = need(pick(&args.query, |j| &j.query), "--query")?;
    let topic = need(pick(&args.topic, |j| &j.topic), "--topic")?;
    let p = parameters(
        job_name.as_deref(),
        job,
        Some(&Overrides {
            id_from: args.id_from.clone(),
            since: args.since.clone(),
            until: args.until.clone(),
            settle: args.settle,
            slack: args.slack,
        }),
    );
    let id_from = IdFrom::parse(&p.id_from.value).ok_or_else(|| {
        anyhow::anyhow!(
            "invalid --id-from {:?}: use key, header:NAME or json:/pointer",
            p.id_from.value
        )
    })?;
    let now = Utc::now();
    let since = parse_time(&p.since.value, now)?;
    let until = parse_time(&p.until.value, now)?;
    if since >= until {
        return Err(hinted(
            "the window is empty: --since must be before --until",
            "e.g. --since 3h --until 0s",
        ));
    }
    let pg_flag = args.pg.as_ref().map(|p| p.0.clone());
    let pg = t.pg_target(pick(&pg_flag, |j| &j.postgres).as_deref())?;
    let kafka = cluster(t, &args.kafka, job.and_then(|j| j.kafka.as_deref()))?;
    let k = &args.kafka;
    let overridden = args.query.is_some()
        || args.topic.is_some()
        || args.id_from.is_some()
        || args.pg.is_some()
        || args.settle.is_some()
        || args.slack.is_some()
        || k.bootstrap.is_some()
        || k.kafka.is_some()
        || k.command_config.is_some()
        || !k.properties.is_empty();
    Ok(ReconcileSettings {
        job_as_configured: job_name.is_some() && !overridden,
        republish: job.is_some_and(|j| j.republish.is_some()),
        job: job_name,
        pg,
        kafka,
        query,
        topic,
        id_from,
        since,
        until,
        settle: p.settle.value,
        slack: p.slack.value,
        query_timeout: Setting::of(&defaults::RECONCILE_QUERY_TIMEOUT)
            .over(args.query_timeout, "--query-timeout")
            .value,
        count_only: args.count_only,
        ids_out: args.ids_out,
        show: args.show,
        memory: memory(args.memory)?,
        spill_dir: args.spill_dir.unwrap_or_else(std::env::temp_dir),
        progress: !args.no_progress && t.ctx.verbose < 2,
    })
}

/// The most `--memory` may be: past it the comparison is meant to spill, not to need a
/// larger machine.
const MAX_MEMORY: u64 = 1 << 30;
/// The least: below it each list's one chunk would be most of the budget.
const MIN_MEMORY: u64 = 1 << 20;

fn memory(flag: Option<u64>) -> Result<u64> {
    let memory = flag.unwrap_or(defaults::RECONCILE_MEMORY.number());
    if !(MIN_MEMORY..=MAX_MEMORY).contains(&memory) {
        return Err(hinted(
            format!(
                "--memory {} is out of range: it must be between 1MiB and 1GiB",
                defaults::size_text(memory)
            ),
            "past the budget reconcile spills sorted runs to --spill-dir, so a larger budget is never needed; the default is 512MiB",
        ));
    }
    Ok(memory)
}
