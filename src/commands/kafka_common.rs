//! What the Kafka commands share: opening the cluster for a target (once per check run),
//! the findings for topics the cluster refused to describe, and the producer's login
//! checked before a republish is confirmed.

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::cluster::Cluster;
use crate::kafka::conn::BrokerError;
use crate::next::{Next, Word};
use crate::report::Target;
use crate::settings::kafka::Cluster as Settings;
use crate::settings::probe::planned;
use anyhow::Result;
use kafka_protocol::error::ResponseError;
use std::collections::BTreeMap;

/// What librdkafka's producer will be told, checked now (a keytab it cannot use, TLS
/// material that does not load: refused before the confirmation, not after the intent),
/// and the OAUTHBEARER token it presents, fetched now.
pub async fn producer_login(
    ctx: &Context,
    client: &crate::kafka::config::ClientConfig,
    producer: &crate::kafka::librdkafka::ProducerSettings,
) -> Result<Option<crate::kafka::token::Token>> {
    use crate::kafka::security::Mechanism;
    crate::kafka::librdkafka::producer(client, producer).map_err(|e| {
        crate::error::hinted(
            format!("the producer cannot connect as configured: {e:#}"),
            "the producer is librdkafka's: the connection settings that refuse it are named above",
        )
    })?;
    Ok(match client.security.sasl.as_ref() {
        Some(sasl) if sasl.mechanism == Mechanism::OAuthBearer => match &sasl.oauthbearer {
            Some(bearer) => Some(bearer.token(ctx.timeout).await?),
            None => None,
        },
        _ => None,
    })
}

/// The cluster of a target, with the metadata of `topics` (None: every topic); in a
/// check run opened once for the target's checks that ask the same of it.
pub async fn open(
    ctx: &Context,
    settings: &Settings,
    topics: Option<&[String]>,
) -> Result<(Target, std::sync::Arc<Cluster>)> {
    let (name, client) = (settings.name.clone(), &settings.client);
    let address = format!(
        "{} ({})",
        client.bootstrap.join(","),
        client.security.protocol()
    );
    // The target's own checks share it: two targets' settings may differ only in what
    // Debug does not show (a password, a Kerberos credential).
    let key = format!("kafka|{:?}|{client:?}|{topics:?}", settings.name);
    let cluster = super::shared::once_shared(ctx, key, || async {
        ctx.note(format!("connecting to Kafka at {address}"));
        let cluster = Cluster::connect(client, topics, ctx.timeout).await?;
        ctx.note(format!(
            "metadata: {} broker(s), {} topic(s)",
            cluster.brokers.len(),
            cluster.topics.len()
        ));
        Ok(cluster)
    })
    .await?;
    Ok((
        Target {
            name,
            kind: "kafka".into(),
            address,
        },
        cluster,
    ))
}

/// `indoubt resolve kafka … --dry-run` for the open transaction of `topic`-`partition`
/// from `start_offset` (with `--force` where only that acts: brokers too old to judge
/// it), addressed as this run addressed the cluster.
pub fn resolve_next(
    ctx: &Context,
    cluster: &Settings,
    target: &Target,
    (topic, partition, start_offset): (&str, i32, i64),
    forced: bool,
) -> Next {
    let (partition, start_offset) = (partition.to_string(), start_offset.to_string());
    let mut words = vec![Word::Lit("resolve"), Word::Lit("kafka")];
    words.extend(addressing(cluster, target));
    words.extend([
        Word::Lit("--topic"),
        Word::Value(topic),
        Word::Lit("--partition"),
        Word::Value(&partition),
        Word::Lit("--start-offset"),
        Word::Value(&start_offset),
    ]);
    if forced {
        words.push(Word::Lit("--force"));
    }
    words.push(Word::Lit("--dry-run"));
    Next::indoubt(&ctx.invocation, &words)
}

/// `indoubt kafka COMMAND --topic T --partition P` (hanging, producers: read only),
/// addressed as this run addressed the cluster.
pub fn partition_next(
    ctx: &Context,
    cluster: &Settings,
    target: &Target,
    command: &'static str,
    (topic, partition): (&str, i32),
) -> Next {
    let partition = partition.to_string();
    let mut words = vec![Word::Lit("kafka"), Word::Lit(command)];
    words.extend(addressing(cluster, target));
    words.extend([
        Word::Lit("--topic"),
        Word::Value(topic),
        Word::Lit("--partition"),
        Word::Value(&partition),
    ]);
    Next::indoubt(&ctx.invocation, &words)
}

/// `indoubt kafka COMMAND` of the whole cluster (transactions: read only), addressed as
/// this run addressed the cluster.
pub fn cluster_next(
    ctx: &Context,
    cluster: &Settings,
    target: &Target,
    command: &'static str,
) -> Next {
    let mut words = vec![Word::Lit("kafka"), Word::Lit(command)];
    words.extend(addressing(cluster, target));
    Next::indoubt(&ctx.invocation, &words)
}

/// The cluster as this run addressed it: its config name, or its -b and
/// --command-config (-X settings are not repeated: they may hold secrets).
fn addressing<'a>(cluster: &'a Settings, target: &'a Target) -> Vec<Word<'a>> {
    let mut words = Vec::new();
    match (&target.name, &cluster.bootstrap) {
        (Some(name), _) => words.extend([Word::Lit("--kafka"), Word::Value(name)]),
        (None, Some(bootstrap)) => words.extend([Word::Lit("-b"), Word::Value(bootstrap)]),
        (None, None) => {}
    }
    if let Some(file) = cluster.command_config.as_deref().and_then(|p| p.to_str()) {
        words.extend([Word::Lit("--command-config"), Word::Value(file)]);
    }
    words
}

/// Unknown topics and refused describes are UNKNOWN for that topic; the rest still reports.
pub fn topic_errors(topic_errors: &BTreeMap<String, BrokerError>) -> Vec<Finding> {
    topic_errors
        .iter()
        .map(|(topic, error)| {
            let advice = if error.error == ResponseError::TopicAuthorizationFailed {
                format!("the principal needs DESCRIBE (and READ for offsets) on TOPIC {topic}")
            } else {
                "check the topic name".to_string()
            };
            Finding::new(
                Severity::Unknown,
                codes::TOPIC_UNREADABLE,
                format!("topic {topic}"),
                format!("not described: {}", error.name()),
            )
            .evidence("source", "Metadata")
            .advice(advice)
        })
        .collect()
}

pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub fn format_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// A probe's runs in `check`: one on every `kafka` target of the config, addressed as
/// `--kafka=NAME`, with the target's `check_topic_regex` when it has one.
pub fn on_every_cluster(
    config: &crate::config::Config,
    command: &[&str],
) -> Vec<(String, Vec<String>)> {
    config
        .kafka
        .iter()
        .map(|(name, target)| {
            let kafka = format!("--kafka={name}");
            let topics = target
                .check_topic_regex
                .as_ref()
                .map(|regex| format!("--topic-regex={regex}"));
            let mut words = [command, &[kafka.as_str()]].concat();
            words.extend(topics.as_deref());
            planned(name, &words)
        })
        .collect()
}
