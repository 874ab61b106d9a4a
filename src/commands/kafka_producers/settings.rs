//! `kafka producers`' arguments, resolved into its settings: the cluster and the one
//! partition, or everything it lacks said at once.

use crate::cli::{KafkaTargetArgs, EXIT_CODES_HELP};
use crate::settings::kafka::{cluster, ProducersSettings};
use crate::settings::targets::Targets;
use anyhow::Result;
use clap::Args;

/// Active producers of one partition (DescribeProducers)
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct ProducersArgs {
    #[command(flatten)]
    pub target: KafkaTargetArgs,

    /// The topic of the partition (required)
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,

    /// The partition whose producers to describe (required)
    #[arg(long, value_name = "PARTITION")]
    pub partition: Option<i32>,
}

pub fn producers(t: &Targets, args: ProducersArgs) -> Result<ProducersSettings> {
    let named = args.target.bootstrap.is_some() || args.target.kafka.is_some();
    let cluster = cluster(t, &args.target, None);
    let (Some(topic), Some(partition)) = (args.topic, args.partition) else {
        // Everything it lacks said at once, rather than clap's bare usage line.
        let mut lacks = vec!["the partition (--topic TOPIC --partition N)"];
        if cluster.is_err() && !named {
            lacks.push("the cluster (-b HOST:PORT, or --kafka NAME of a config target)");
        }
        return Err(crate::error::hinted(
            format!(
                "kafka producers describes the producers of one partition: it needs {}",
                lacks.join(" and ")
            ),
            "for example: indoubt kafka producers -b kafka-1:9092 --topic orders --partition 3 (indoubt kafka lso -b kafka-1:9092 lists the partitions an open transaction holds back)",
        ));
    };
    Ok(ProducersSettings {
        cluster: cluster?,
        topic,
        partition,
    })
}
