//! `kafka transactions`' arguments, resolved into its settings: the cluster and the
//! filters.

use crate::cli::{KafkaTargetArgs, EXIT_CODES_HELP};
use crate::settings::kafka::{cluster, TransactionsSettings};
use crate::settings::targets::Targets;
use crate::units::parse_duration;
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// Transactions known to the coordinators (ListTransactions, DescribeTransactions)
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct TransactionsArgs {
    #[command(flatten)]
    pub target: KafkaTargetArgs,

    /// Only transactions in this state (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, …); repeatable
    #[arg(long, value_name = "STATE", conflicts_with = "transactional_id")]
    pub state: Vec<String>,

    /// Only transactions started longer ago than this (the broker filters from Kafka 3.8; before, indoubt filters on the start times)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "transactional_id")]
    pub min_duration: Option<Duration>,

    /// Describe this transactional id only
    #[arg(long, value_name = "ID")]
    pub transactional_id: Option<String>,
}

pub fn transactions(t: &Targets, args: TransactionsArgs) -> Result<TransactionsSettings> {
    Ok(TransactionsSettings {
        cluster: cluster(t, &args.target, None)?,
        state: args.state,
        min_duration: args.min_duration,
        transactional_id: args.transactional_id,
    })
}
