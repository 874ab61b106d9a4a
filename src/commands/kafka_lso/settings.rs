//! `kafka lso`'s arguments, resolved into its settings: the cluster, the topic selection
//! compiled, the age and gap pairs checked.

use crate::cli::{KafkaTargetArgs, EXIT_CODES_HELP};
use crate::settings::kafka::{cluster, topic_pattern, LsoSettings};
use crate::settings::targets::Targets;
use crate::settings::{Note, Thresholds};
use crate::units::{parse_count, parse_duration};
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// Per partition: high watermark, last stable offset, the gap, and the open transaction pinning it
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct LsoArgs {
    #[command(flatten)]
    pub target: KafkaTargetArgs,

    /// Only this topic (repeatable) [default: every topic, internal ones included]
    #[arg(long, value_name = "TOPIC", conflicts_with = "topic_regex")]
    pub topic: Vec<String>,

    /// Only topics whose name matches this regular expression
    #[arg(long, value_name = "REGEX")]
    pub topic_regex: Option<String>,

    /// Age of the first unstable record that is a WARNING [config: thresholds.lso.warning_age; default 5m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warning_age: Option<Duration>,

    /// … CRITICAL [config: thresholds.lso.critical_age; default 15m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub critical_age: Option<Duration>,

    /// Offsets between LSO and high watermark that are a WARNING [config: thresholds.lso.warning_gap; default 100k]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub warning_gap: Option<u64>,

    /// … CRITICAL [config: thresholds.lso.critical_gap; default 1M]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub critical_gap: Option<u64>,
}

pub fn lso(t: &Targets, thresholds: &Thresholds, args: LsoArgs) -> Result<LsoSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.lso_age((args.warning_age, args.critical_age), note)?;
    let gap = thresholds.lso_gap((args.warning_gap, args.critical_gap), note)?;
    let pattern = topic_pattern(args.topic_regex.as_deref())?;
    Ok(LsoSettings {
        cluster: cluster(t, &args.target, None)?,
        topics: args.topic,
        pattern,
        age,
        gap,
    })
}
