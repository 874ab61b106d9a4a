//! The resolved settings of `reconcile`: the job in force, its fields with flags over
//! them (each with its source, as `config show` reports a job's), both targets, the window.

use super::kafka::{self, Cluster};
use super::targets::{PgTarget, Targets};
use super::{defaults, Setting, Source};
use crate::cli::ReconcileArgs;
use crate::config::ReconcileJobConfig;
use crate::error::hinted;
use crate::reconcile::ids::IdFrom;
use crate::units::parse_duration;
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use std::path::PathBuf;
use std::time::Duration;

/// A job's fields that have a default: the flag, else the job's, else the default.
pub struct Parameters {
    pub id_from: Setting<String>,
    pub since: Setting<String>,
    pub until: Setting<String>,
    pub settle: Setting<Duration>,
    pub slack: Setting<Duration>,
}

/// The flags over a job's fields that have a default (`reconcile --id-from`, `--since`,
/// `--until`, `--settle`, `--slack`).
pub struct Overrides {
    pub id_from: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub settle: Option<Duration>,
    pub slack: Option<Duration>,
}

/// Everything one comparison needs, resolved.
pub struct ReconcileSettings {
    pub job: Option<String>,
    /// The job exactly as the config has it: no flag overrides what it compares (its
    /// query, topic, ids, targets, settle or slack), so a next command naming the job
    /// (with a window of its own) compares the same.
    pub job_as_configured: bool,
    pub pg: PgTarget,
    pub kafka: Cluster,
    pub query: String,
    pub topic: String,
    pub id_from: IdFrom,
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub settle: Duration,
    pub slack: Duration,
    pub query_timeout: Duration,
    pub count_only: bool,
    pub ids_out: Option<PathBuf>,
    pub show: usize,
    /// Bytes the ids may take in memory, and where the runs past them go.
    pub memory: u64,
    pub spill_dir: PathBuf,
    /// Draw the spinner (on a terminal, below -vv).
    pub progress: bool,
}

/// The fields of job `name` (None: a comparison of the command line's own) with the
/// flags given over them; `config show` asks with no flags.
pub fn parameters(
    name: Option<&str>,
    job: Option<&ReconcileJobConfig>,
    flags: Option<&Overrides>,
) -> Parameters {
    let flag = |f: fn(&Overrides) -> &Option<String>| flags.and_then(|a| f(a).clone());
    let section = name.unwrap_or_default();
    let text = |entry: &'static defaults::Entry,
                field: Option<&String>,
                flag: Option<String>,
                flag_name: &'static str| {
        let setting = Setting::in_section(entry, section, field.cloned(), entry.text().to_string());
        match flag {
            Some(value) => Setting {
                value,
                source: Source::Flag(flag_name),
                entry,
            },
            None => setting,
        }
    };
    Parameters {
        id_from: text(
            &defaults::RECONCILE_ID_FROM,
            job.and_then(|j| j.id_from.as_ref()),
            flag(|a| &a.id_from),
            "--id-from",
        ),
        since: text(
            &defaults::RECONCILE_SINCE,
            job.and_then(|j| j.since.as_ref()),
            flag(|a| &a.since),
            "--since",
        ),
        until: text(
            &defaults::RECONCILE_UNTIL,
            job.and_then(|j| j.until.as_ref()),
            flag(|a| &a.until),
            "--until",
        ),
        settle: Setting::duration_in(
            &defaults::RECONCILE_SETTLE,
            section,
            job.and_then(|j| j.settle),
        )
        .over(flags.and_then(|a| a.settle), "--settle"),
        slack: Setting::duration_in(
            &defaults::RECONCILE_SLACK,
            section,
            job.and_then(|j| j.slack),
        )
        .over(flags.and_then(|a| a.slack), "--slack"),
    }
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
    let kafka = kafka::cluster(t, &args.kafka, job.and_then(|j| j.kafka.as_deref()))?;
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
