//! The resolved settings of `reconcile`: the job in force, its fields with flags over
//! them (each with its source, as `config show` reports a job's), both targets, the window.
//! `reconcile` resolves its arguments into them in its folder (`settings.rs`).

use super::kafka::Cluster;
use super::targets::PgTarget;
use super::{defaults, Setting, Source};
use crate::config::ReconcileJobConfig;
use crate::reconcile::ids::IdFrom;
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
    /// The job has a republish: query (`resolve reconcile` can publish its missing ids).
    pub republish: bool,
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
