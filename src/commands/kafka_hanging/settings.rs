//! `kafka hanging`'s arguments, resolved into its settings: the cluster, what to search,
//! the topic selection compiled, the transaction timeout in force.

use crate::cli::{KafkaTargetArgs, EXIT_CODES_HELP};
use crate::settings::kafka::{cluster, topic_pattern, HangingSettings};
use crate::settings::targets::Targets;
use crate::settings::Thresholds;
use crate::units::parse_duration;
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// Find hanging transactions: open on a partition, but never to be ended by their coordinator
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct HangingArgs {
    #[command(flatten)]
    pub target: KafkaTargetArgs,

    /// Search this topic [default: every topic]
    #[arg(long, value_name = "TOPIC", conflicts_with_all = ["broker_id", "topic_regex"])]
    pub topic: Option<String>,

    /// Search the topics whose name matches this regular expression
    #[arg(long, value_name = "REGEX")]
    pub topic_regex: Option<String>,

    /// … only this partition of it
    #[arg(long, value_name = "PARTITION", requires = "topic")]
    pub partition: Option<i32>,

    /// Search the partitions with a replica on this broker
    #[arg(long, value_name = "ID")]
    pub broker_id: Option<i32>,

    /// Transactions whose last write is older than this are examined, as kafka-transactions.sh [config: thresholds.hanging.max_transaction_timeout; default 15m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_transaction_timeout: Option<Duration>,
}

pub fn hanging(t: &Targets, thresholds: &Thresholds, args: HangingArgs) -> Result<HangingSettings> {
    let max_transaction_timeout = thresholds.hanging(args.max_transaction_timeout);
    let pattern = topic_pattern(args.topic_regex.as_deref())?;
    Ok(HangingSettings {
        cluster: cluster(t, &args.target, None)?,
        topic: args.topic,
        pattern,
        partition: args.partition,
        broker_id: args.broker_id,
        max_transaction_timeout,
    })
}
