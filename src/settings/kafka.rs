//! The resolved settings of the Kafka commands: the cluster (its properties checked), how
//! a next command addresses it again, the topic selection compiled, each threshold checked.

use super::targets::Targets;
use super::{Note, Thresholds};
use crate::cli::{HangingArgs, KafkaTargetArgs, LsoArgs, ProducersArgs, TransactionsArgs};
use crate::error::hinted;
use crate::kafka::config::ClientConfig;
use crate::settings::kafka_client::KafkaTarget;
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// A Kafka cluster to look at: its config name (None for `-b`), its connection, and
/// what a next command repeats to reach it (-X settings are not repeated: they may hold
/// secrets).
pub struct Cluster {
    pub name: Option<String>,
    /// The properties as given (shown masked).
    pub target: KafkaTarget,
    /// What the client connects with, read once from the properties.
    pub client: ClientConfig,
    /// `-b` as given.
    pub bootstrap: Option<String>,
    /// `--command-config` as given.
    pub command_config: Option<PathBuf>,
}

/// `kafka lso`.
pub struct LsoSettings {
    pub cluster: Cluster,
    /// Only these topics (empty: every topic).
    pub topics: Vec<String>,
    pub pattern: Option<regex::Regex>,
    pub age: (Duration, Duration),
    pub gap: (u64, u64),
}

/// `kafka producers`.
pub struct ProducersSettings {
    pub cluster: Cluster,
    pub topic: String,
    pub partition: i32,
}

/// `kafka transactions`.
pub struct TransactionsSettings {
    pub cluster: Cluster,
    pub state: Vec<String>,
    pub min_duration: Option<Duration>,
    pub transactional_id: Option<String>,
}

/// `kafka hanging`.
pub struct HangingSettings {
    pub cluster: Cluster,
    pub topic: Option<String>,
    pub pattern: Option<regex::Regex>,
    pub partition: Option<i32>,
    pub broker_id: Option<i32>,
    pub max_transaction_timeout: Duration,
}

/// The cluster `args` name (`default`: a reconcile job's target name).
pub fn cluster(t: &Targets, args: &KafkaTargetArgs, default: Option<&str>) -> Result<Cluster> {
    let (name, target, client) = t.kafka_target(args, default)?;
    Ok(Cluster {
        name,
        target,
        client,
        bootstrap: args.bootstrap.clone(),
        command_config: args.command_config.clone(),
    })
}

/// `--topic-regex`, compiled.
pub fn topic_pattern(flag: Option<&str>) -> Result<Option<regex::Regex>> {
    flag.map(|r| {
        regex::Regex::new(r).map_err(|e| {
            hinted(
                format!("invalid --topic-regex: {e}"),
                "a Rust regex, e.g. '^payments(-.*)?$'",
            )
        })
    })
    .transpose()
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

pub fn transactions(t: &Targets, args: TransactionsArgs) -> Result<TransactionsSettings> {
    Ok(TransactionsSettings {
        cluster: cluster(t, &args.target, None)?,
        state: args.state,
        min_duration: args.min_duration,
        transactional_id: args.transactional_id,
    })
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
