//! The resolved settings of the Kafka commands: the cluster (its properties checked), how
//! a next command addresses it again, the topic selection compiled, each threshold checked.
//! Each command resolves its arguments into them in its own folder (`settings.rs`).

use super::targets::Targets;
use crate::cli::KafkaTargetArgs;
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
