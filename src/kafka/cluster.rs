//! A Kafka cluster as indoubt sees it: its metadata (brokers, topics, partition leaders),
//! read from a bootstrap broker and asked again when a leader moves, and the pool of
//! broker connections, one opened lazily per broker and shared by every request to it.
//! The requests themselves live by job: offsets.rs, transactions.rs, fetch.rs; the
//! by-leader fan-out they share in fanout.rs.

use super::config::ClientConfig;
use super::conn::{check, error_name, BrokerError, Connection};
use anyhow::{anyhow, bail, Context, Result};
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    describe_configs_request, ApiKey, DescribeConfigsRequest, DescribeConfigsResponse,
    MetadataRequest, MetadataResponse, TopicName,
};
use kafka_protocol::protocol::{
    Decodable, Encodable, HeaderVersion, Message, StrBytes, VersionRange,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// Metadata v4+ can be told not to create the topics it is asked about.
const METADATA_VERSIONS: VersionRange = VersionRange {
    min: 4,
    max: MetadataRequest::VERSIONS.max,
};
/// DescribeConfigs v1+ (v0 is gone from Kafka 4).
const DESCRIBE_CONFIGS_VERSIONS: VersionRange = VersionRange { min: 1, max: 4 };

#[derive(Debug, Clone)]
pub struct PartitionMeta {
    pub leader: i32,
    pub replicas: Vec<i32>,
    pub error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct TopicMeta {
    pub partitions: BTreeMap<i32, PartitionMeta>,
}

pub type TopicPartition = (String, i32);

/// A broker connection, shared by the requests to that broker (one at a time).
pub type Shared = Arc<Mutex<Connection>>;
type Slot = Arc<Mutex<Option<Shared>>>;

pub struct Cluster {
    config: ClientConfig,
    timeout: Duration,
    pub brokers: BTreeMap<i32, String>,
    /// The cluster's id, as the metadata names it (Metadata v2+).
    pub cluster_id: Option<String>,
    pub topics: BTreeMap<String, TopicMeta>,
    /// Topics the metadata named with an error (unknown topic, no access).
    pub topic_errors: BTreeMap<String, BrokerError>,
    /// One slot per broker: opening a connection to one broker waits for no other.
    connections: std::sync::Mutex<BTreeMap<i32, Slot>>,
    /// Brokers a later metadata read named that the first one did not.
    joined: std::sync::Mutex<BTreeMap<i32, String>>,
}

/// A failure to connect to a broker the cluster's metadata named (not a bootstrap
/// server): which broker, at the address it advertises, and the cause whole (refused,
/// TLS, SASL: its type, and a hint on it, still found along the chain). Typed, so that
/// the application can tell a wrong `advertised.listeners` from a wrong `-b`.
#[derive(Debug)]
pub struct AdvertisedBroker {
    pub id: i32,
    pub address: String,
    cause: anyhow::Error,
}

impl std::fmt::Display for AdvertisedBroker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The cause names the address; anyhow's alternate form prints it after this.
        write!(f, "broker {}", self.id)
    }
}

impl std::error::Error for AdvertisedBroker {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.cause)
    }
}

impl AdvertisedBroker {
    /// The advertised broker somewhere in `e`'s chain of causes.
    pub fn of(e: &anyhow::Error) -> Option<&AdvertisedBroker> {
        e.chain()
            .find_map(|cause| cause.downcast_ref::<AdvertisedBroker>())
    }
}

/// Metadata of `topics` (None: all), never creating one.
fn metadata_request(topics: Option<&[String]>) -> MetadataRequest {
    MetadataRequest::default()
        .with_topics(topics.map(|names| {
            names
                .iter()
                .map(|n| {
                    kafka_protocol::messages::metadata_request::MetadataRequestTopic::default()
                        .with_name(Some(TopicName(StrBytes::from_string(n.clone()))))
                })
                .collect()
        }))
        .with_allow_auto_topic_creation(false)
}

impl Cluster {
    /// Reads the cluster's metadata through the first bootstrap server that answers.
    /// `topics`: None for all topics.
    pub async fn connect(
        config: &ClientConfig,
        topics: Option<&[String]>,
        timeout: Duration,
    ) -> Result<Cluster> {
        let mut conn = Connection::open_first(config, timeout).await?;
        let response: MetadataResponse = conn
            .send(
                ApiKey::Metadata,
                &metadata_request(topics),
                METADATA_VERSIONS,
            )
            .await?;
        Ok(Self::from_metadata(response, config.clone(), timeout))
    }

    fn from_metadata(
        response: MetadataResponse,
        config: ClientConfig,
        timeout: Duration,
    ) -> Cluster {
        let brokers = response
            .brokers
            .iter()
            .map(|b| (b.node_id.0, format!("{}:{}", b.host.as_str(), b.port)))
            .collect();
        let cluster_id = response.cluster_id.as_ref().map(|c| c.to_string());
        let mut topics = BTreeMap::new();
        let mut topic_errors = BTreeMap::new();
        for t in response.topics {
            let Some(name) = t.name.map(|n| n.0.to_string()) else {
                continue;
            };
            if let Some(e) = BrokerError::from_code(t.error_code, "Metadata") {
                topic_errors.insert(name, e);
                continue;
            }
            let partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let error = ResponseError::try_from_code(p.error_code)
                        .map(|e| error_name(p.error_code, &e));
                    let meta = PartitionMeta {
                        leader: p.leader_id.0,
                        replicas: p.replica_nodes.iter().map(|r| r.0).collect(),
                        error,
                    };
                    (p.partition_index, meta)
                })
                .collect();
            topics.insert(name, TopicMeta { partitions });
        }
        Cluster {
            config,
            timeout,
            brokers,
            cluster_id,
            topics,
            topic_errors,
            connections: Default::default(),
            joined: Default::default(),
        }
    }

    /// Who leads each partition of `topic` now, asked again of the first broker that
    /// answers (those in `last` after the others): for a reader whose partition's leader
    /// moved. Partitions without a leader are left out; brokers the first metadata did
    /// not name are learned.
    pub async fn current_leaders(&self, topic: &str, last: &[i32]) -> Result<BTreeMap<i32, i32>> {
        let request = metadata_request(Some(&[topic.to_string()]));
        let (later, first): (Vec<i32>, Vec<i32>) =
            self.brokers.keys().partition(|id| last.contains(id));
        let order = first.into_iter().chain(later);
        self.ask_in_turn(order, "a metadata request", |id| {
            let request = &request;
            async move {
                let response: MetadataResponse = self
                    .send_to(id, ApiKey::Metadata, request, METADATA_VERSIONS)
                    .await?;
                Ok(self.read_leaders(id, topic, response))
            }
        })
        .await
    }

    /// The leaders a metadata answer names; brokers the first metadata did not name are
    /// learned.
    fn read_leaders(
        &self,
        id: i32,
        topic: &str,
        response: MetadataResponse,
    ) -> Result<BTreeMap<i32, i32>> {
        {
            let mut joined = self.joined.lock().unwrap_or_else(|p| p.into_inner());
            for b in &response.brokers {
                if !self.brokers.contains_key(&b.node_id.0) {
                    joined.insert(b.node_id.0, format!("{}:{}", b.host.as_str(), b.port));
                }
            }
        }
        let t = response
            .topics
            .iter()
            .find(|t| t.name.as_ref().is_some_and(|n| n.0.as_str() == topic))
            .ok_or_else(|| anyhow!("the metadata of broker {id} does not name {topic}"))?;
        check(t.error_code, &format!("Metadata of {topic}"))?;
        Ok(t.partitions
            .iter()
            .filter(|p| p.leader_id.0 >= 0)
            .map(|p| (p.partition_index, p.leader_id.0))
            .collect())
    }

    /// Asks the brokers in `order`, one after another, until one answers: a broker the
    /// metadata names may be down or out of reach. `ask` fails (outer) when the broker
    /// could not be asked; its answer (inner) may itself be an error, which ends the turn.
    pub(super) async fn ask_in_turn<T, Fut>(
        &self,
        order: impl IntoIterator<Item = i32>,
        what: &str,
        ask: impl Fn(i32) -> Fut,
    ) -> Result<T>
    where
        Fut: std::future::Future<Output = Result<Result<T>>>,
    {
        let mut failures = Vec::new();
        let mut last = None;
        for id in order {
            match ask(id).await {
                Ok(answer) => return answer,
                Err(e) => {
                    if let Some((earlier, e)) = last.replace((id, e)) {
                        failures.push(format!("broker {earlier}: {e:#}"));
                    }
                }
            }
        }
        let Some((id, e)) = last else {
            bail!("no broker to ask {what}: the cluster has none");
        };
        // The last failure is kept whole (its type, and a hint on it, still found), the
        // earlier ones as text before it: "no broker answered X: broker 1: …; broker 2: …".
        failures.push(format!("broker {id}"));
        Err(e.context(format!(
            "no broker answered {what}: {}",
            failures.join("; ")
        )))
    }

    pub fn leader(&self, tp: &TopicPartition) -> Result<i32> {
        leader_of(&self.topics, tp)
    }

    /// The connection to a broker, opened on first use.
    pub async fn broker(&self, id: i32) -> Result<Shared> {
        let slot = self
            .connections
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(id)
            .or_default()
            .clone();
        let mut slot = slot.lock().await;
        if let Some(conn) = slot.as_ref() {
            // A connection a failed exchange left out of step is replaced, not reused.
            if conn.lock().await.reusable() {
                return Ok(conn.clone());
            }
        }
        let address = match self.brokers.get(&id) {
            Some(address) => address.clone(),
            None => self
                .joined
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&id)
                .cloned()
                .ok_or_else(|| anyhow!("broker {id} is not in the cluster metadata"))?,
        };
        // The address is the cluster's word, not the operator's: said so, cause kept whole.
        let conn = Connection::open(&address, &self.config, self.timeout)
            .await
            .map_err(|cause| AdvertisedBroker {
                id,
                address: address.clone(),
                cause,
            })?;
        let conn = Arc::new(Mutex::new(conn));
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Sends one request to a broker over its shared connection, at the best common version.
    pub(super) async fn send_to<Req, Resp>(
        &self,
        id: i32,
        key: ApiKey,
        request: &Req,
        versions: VersionRange,
    ) -> Result<Resp>
    where
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        let conn = self.broker(id).await?;
        let mut conn = conn.lock().await;
        conn.send(key, request, versions).await
    }

    /// Some of a topic's configs (DescribeConfigs, asked of the first broker that answers):
    /// name → value, None where the broker keeps it secret or has none.
    pub async fn topic_config(
        &self,
        topic: &str,
        keys: &[&str],
    ) -> Result<BTreeMap<String, Option<String>>> {
        let request = DescribeConfigsRequest::default().with_resources(vec![
            describe_configs_request::DescribeConfigsResource::default()
                .with_resource_type(2) // TOPIC
                .with_resource_name(StrBytes::from_string(topic.to_string()))
                .with_configuration_keys(Some(
                    keys.iter()
                        .map(|k| StrBytes::from_string(k.to_string()))
                        .collect(),
                )),
        ]);
        let request = &request;
        self.ask_in_turn(
            self.brokers.keys().copied(),
            "DescribeConfigs",
            |id| async move {
                let response: DescribeConfigsResponse = self
                    .send_to(
                        id,
                        ApiKey::DescribeConfigs,
                        request,
                        DESCRIBE_CONFIGS_VERSIONS,
                    )
                    .await?;
                Ok(read_configs(topic, &response))
            },
        )
        .await
    }
}

/// The leader of a partition as `topics` (the metadata) names it, or why there is none.
pub(super) fn leader_of(topics: &BTreeMap<String, TopicMeta>, tp: &TopicPartition) -> Result<i32> {
    let partition = topics
        .get(&tp.0)
        .and_then(|t| t.partitions.get(&tp.1))
        .ok_or_else(|| {
            anyhow!(
                "partition {}-{} does not exist (UNKNOWN_TOPIC_OR_PARTITION)",
                tp.0,
                tp.1
            )
        })?;
    if partition.leader < 0 {
        bail!(
            "partition {}-{} has no leader ({})",
            tp.0,
            tp.1,
            partition.error.as_deref().unwrap_or("LEADER_NOT_AVAILABLE")
        );
    }
    Ok(partition.leader)
}

/// The configs a DescribeConfigs answer holds for `topic`, or the error it gives.
fn read_configs(
    topic: &str,
    response: &DescribeConfigsResponse,
) -> Result<BTreeMap<String, Option<String>>> {
    let result = response
        .results
        .first()
        .context("DescribeConfigs: no result")?;
    check(result.error_code, &format!("DescribeConfigs of {topic}"))?;
    Ok(result
        .configs
        .iter()
        .map(|c| (c.name.to_string(), c.value.as_ref().map(|v| v.to_string())))
        .collect())
}
