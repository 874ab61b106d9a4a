//! A Kafka cluster as indoubt sees it: metadata from a bootstrap broker, one lazily
//! opened connection per broker (fetching uses them too), and the admin requests, each
//! grouped per broker and sent to all brokers concurrently.

use super::config::ClientConfig;
use super::conn::{check, error_name, BrokerError, Connection};
use super::fetch;
use super::records;
use anyhow::{anyhow, bail, Context, Result};
use futures_util::future::join_all;
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    describe_configs_request, describe_producers_request, describe_transactions_response,
    list_offsets_request, write_txn_markers_request, ApiKey, BrokerId, DescribeConfigsRequest,
    DescribeConfigsResponse, DescribeProducersRequest, DescribeProducersResponse,
    DescribeTransactionsRequest, DescribeTransactionsResponse, FetchResponse,
    FindCoordinatorRequest, FindCoordinatorResponse, ListOffsetsRequest, ListOffsetsResponse,
    ListTransactionsRequest, ListTransactionsResponse, MetadataRequest, MetadataResponse,
    ProducerId, TopicName, TransactionalId, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_protocol::protocol::{
    Decodable, Encodable, HeaderVersion, Message, StrBytes, VersionRange,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// Kafka's TransactionsCommand asks DescribeProducers about 500 partitions at a time.
const DESCRIBE_PRODUCERS_BATCH: usize = 500;
/// What one Fetch past a last stable offset may bring back per partition.
const UNCOMMITTED_PARTITION_BYTES: i32 = 4 << 20;
/// Fetch v13+ names topics by id only; we name them. v4 brought read_committed.
pub const FETCH_VERSIONS: VersionRange = VersionRange { min: 4, max: 12 };
/// Metadata v4+ can be told not to create the topics it is asked about.
const METADATA_VERSIONS: VersionRange = VersionRange {
    min: 4,
    max: MetadataRequest::VERSIONS.max,
};
/// DescribeConfigs v1+ (v0 is gone from Kafka 4).
const DESCRIBE_CONFIGS_VERSIONS: VersionRange = VersionRange { min: 1, max: 4 };
/// FindCoordinator v4+ takes many keys at once.
const FIND_COORDINATOR_VERSIONS: VersionRange = VersionRange { min: 1, max: 6 };

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

/// A producer's state on one partition (DescribeProducers).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProducerState {
    pub producer_id: i64,
    pub producer_epoch: i32,
    pub coordinator_epoch: i32,
    pub last_sequence: i32,
    pub last_timestamp_ms: i64,
    /// -1 when the producer has no open transaction on the partition.
    pub current_txn_start_offset: i64,
}

/// What one broker's ListTransactions returned.
#[derive(Debug, Clone)]
pub struct Listings {
    pub transactions: Vec<TransactionListing>,
    /// Whether the broker applied the duration filter (ListTransactions v1+).
    pub duration_filtered: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct TransactionListing {
    pub transactional_id: String,
    pub producer_id: i64,
    pub state: String,
    pub coordinator: i32,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct TransactionDescription {
    pub transactional_id: String,
    pub coordinator: i32,
    pub state: String,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub timeout_ms: i32,
    /// -1 when no transaction is open.
    pub start_time_ms: i64,
    pub partitions: Vec<TopicPartition>,
}

pub struct Cluster {
    config: ClientConfig,
    timeout: Duration,
    pub brokers: BTreeMap<i32, String>,
    pub topics: BTreeMap<String, TopicMeta>,
    /// Topics the metadata named with an error (unknown topic, no access).
    pub topic_errors: BTreeMap<String, BrokerError>,
    /// One slot per broker: opening a connection to one broker waits for no other.
    connections: std::sync::Mutex<BTreeMap<i32, Slot>>,
    /// Brokers a later metadata read named that the first one did not.
    joined: std::sync::Mutex<BTreeMap<i32, String>>,
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
    async fn ask_in_turn<T, Fut>(
        &self,
        order: impl IntoIterator<Item = i32>,
        what: &str,
        ask: impl Fn(i32) -> Fut,
    ) -> Result<T>
    where
        Fut: std::future::Future<Output = Result<Result<T>>>,
    {
        let mut failures = Vec::new();
        for id in order {
            match ask(id).await {
                Ok(answer) => return answer,
                Err(e) => failures.push(format!("broker {id}: {e:#}")),
            }
        }
        if failures.is_empty() {
            bail!("no broker to ask {what}: the cluster has none");
        }
        Err(anyhow!(
            "no broker answered {what}: {}",
            failures.join("; ")
        ))
    }

    pub fn leader(&self, tp: &TopicPartition) -> Result<i32> {
        let partition = self
            .topics
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
            if !conn.lock().await.broken {
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
        let conn = Arc::new(Mutex::new(
            Connection::open(&address, &self.config, self.timeout).await?,
        ));
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Sends one request to a broker over its shared connection, at the best common version.
    async fn send_to<Req, Resp>(
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

    /// Groups partitions by their leader; partitions without one get their error.
    fn by_leader<T>(
        &self,
        tps: &[TopicPartition],
        errors: &mut BTreeMap<TopicPartition, Result<T>>,
    ) -> BTreeMap<i32, Vec<TopicPartition>> {
        let mut groups: BTreeMap<i32, Vec<TopicPartition>> = BTreeMap::new();
        for tp in tps {
            match self.leader(tp) {
                Ok(leader) => groups.entry(leader).or_default().push(tp.clone()),
                Err(e) => {
                    errors.insert(tp.clone(), Err(e));
                }
            }
        }
        groups
    }

    /// (high watermark, last stable offset) per partition: ListOffsets(LATEST) with both
    /// isolation levels. One request cannot ask both, so the LSO is asked first and the
    /// high watermark after it: both only grow, so the pair never has an LSO above its
    /// high watermark (asked at once, a write or marker in between could give one).
    pub async fn watermarks(
        &self,
        tps: &[TopicPartition],
    ) -> BTreeMap<TopicPartition, Result<(i64, i64)>> {
        let mut stable = self.latest_offsets(tps, fetch::READ_COMMITTED).await;
        let mut high = self.latest_offsets(tps, fetch::READ_UNCOMMITTED).await;
        tps.iter()
            .map(|tp| {
                let pair = match (high.remove(tp), stable.remove(tp)) {
                    (Some(Ok(hw)), Some(Ok(lso))) => Ok((hw, lso)),
                    (Some(Err(e)), _) | (_, Some(Err(e))) => Err(e),
                    _ => Err(anyhow!("ListOffsets: no offsets returned")),
                };
                (tp.clone(), pair)
            })
            .collect()
    }

    /// ListOffsets(LATEST) per partition: the high watermark with isolation 0
    /// (read_uncommitted), the last stable offset with isolation 1 (read_committed).
    pub async fn latest_offsets(
        &self,
        tps: &[TopicPartition],
        isolation: i8,
    ) -> BTreeMap<TopicPartition, Result<i64>> {
        self.list_offsets(tps, isolation, -1).await
    }

    /// ListOffsets per partition for `timestamp` (ms): the first offset whose timestamp is
    /// at or after it, or -1 when there is none; -1 asks for the latest offset instead.
    pub async fn list_offsets(
        &self,
        tps: &[TopicPartition],
        isolation: i8,
        timestamp: i64,
    ) -> BTreeMap<TopicPartition, Result<i64>> {
        let mut results = BTreeMap::new();
        let groups = self.by_leader(tps, &mut results);
        let requests = groups.into_iter().map(|(leader, tps)| async move {
            let outcome = async {
                let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
                for (t, p) in &tps {
                    topics.entry(t.as_str()).or_default().push(*p);
                }
                let request = ListOffsetsRequest::default()
                    .with_replica_id(BrokerId(-1))
                    .with_isolation_level(isolation)
                    .with_topics(
                        topics
                            .into_iter()
                            .map(|(t, ps)| {
                                list_offsets_request::ListOffsetsTopic::default()
                                    .with_name(TopicName(StrBytes::from_string(t.to_string())))
                                    .with_partitions(
                                        ps.into_iter()
                                            .map(|p| {
                                                list_offsets_request::ListOffsetsPartition::default(
                                                )
                                                .with_partition_index(p)
                                                .with_timestamp(timestamp)
                                            })
                                            .collect(),
                                    )
                            })
                            .collect(),
                    );
                let versions = VersionRange {
                    min: 2,
                    max: ListOffsetsRequest::VERSIONS.max,
                };
                let response: ListOffsetsResponse = self
                    .send_to(leader, ApiKey::ListOffsets, &request, versions)
                    .await?;
                Ok::<_, anyhow::Error>(response)
            }
            .await;
            (tps, outcome)
        });
        for (tps, outcome) in join_all(requests).await {
            match outcome {
                Ok(response) => {
                    for t in response.topics {
                        for p in t.partitions {
                            let tp = (t.name.0.to_string(), p.partition_index);
                            let value = check(p.error_code, "ListOffsets").map(|()| p.offset);
                            results.insert(tp, value);
                        }
                    }
                    settle(
                        &mut results,
                        tps,
                        None,
                        "ListOffsets: the broker did not answer for this partition",
                    );
                }
                Err(e) => settle(&mut results, tps, Some(&e), ""),
            }
        }
        results
    }

    /// DescribeProducers for partitions, sent to each leader in batches.
    pub async fn describe_producers(
        &self,
        tps: &[TopicPartition],
    ) -> BTreeMap<TopicPartition, Result<Vec<ProducerState>>> {
        let mut results = BTreeMap::new();
        let groups = self.by_leader(tps, &mut results);
        let batches: Vec<(i32, Vec<TopicPartition>)> = groups
            .into_iter()
            .flat_map(|(leader, tps)| {
                tps.chunks(DESCRIBE_PRODUCERS_BATCH)
                    .map(|c| (leader, c.to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let requests = batches.into_iter().map(|(leader, tps)| async move {
            let outcome = async {
                let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
                for (t, p) in &tps {
                    topics.entry(t.as_str()).or_default().push(*p);
                }
                let request = DescribeProducersRequest::default().with_topics(
                    topics
                        .into_iter()
                        .map(|(t, ps)| {
                            describe_producers_request::TopicRequest::default()
                                .with_name(TopicName(StrBytes::from_string(t.to_string())))
                                .with_partition_indexes(ps)
                        })
                        .collect(),
                );
                let response: DescribeProducersResponse = self
                    .send_to(
                        leader,
                        ApiKey::DescribeProducers,
                        &request,
                        DescribeProducersRequest::VERSIONS,
                    )
                    .await?;
                Ok::<_, anyhow::Error>(response)
            }
            .await;
            (tps, outcome)
        });
        for (tps, outcome) in join_all(requests).await {
            match outcome {
                Ok(response) => {
                    for t in response.topics {
                        for p in t.partitions {
                            let tp = (t.name.0.to_string(), p.partition_index);
                            let value = match ResponseError::try_from_code(p.error_code) {
                                Some(e) => Err(anyhow!(
                                    "DescribeProducers: {}{}",
                                    error_name(p.error_code, &e),
                                    p.error_message
                                        .map(|m| format!(": {m}"))
                                        .unwrap_or_default()
                                )),
                                None => Ok(p
                                    .active_producers
                                    .iter()
                                    .map(|s| ProducerState {
                                        producer_id: s.producer_id.0,
                                        producer_epoch: s.producer_epoch,
                                        coordinator_epoch: s.coordinator_epoch,
                                        last_sequence: s.last_sequence,
                                        last_timestamp_ms: s.last_timestamp,
                                        current_txn_start_offset: s.current_txn_start_offset,
                                    })
                                    .collect()),
                            };
                            results.insert(tp, value);
                        }
                    }
                    settle(
                        &mut results,
                        tps,
                        None,
                        "DescribeProducers: no answer for this partition",
                    );
                }
                Err(e) => settle(&mut results, tps, Some(&e), ""),
            }
        }
        results
    }

    /// The transactional id and coordinator of each producer id that has one, from
    /// ListTransactions on every broker; and the brokers that could not be asked (one of
    /// them may coordinate an id missing here).
    pub async fn transactional_ids(
        &self,
        producer_ids: &[i64],
    ) -> (BTreeMap<i64, (String, i32)>, Vec<(i32, anyhow::Error)>) {
        let (mut ids, mut failed) = (BTreeMap::new(), Vec::new());
        if producer_ids.is_empty() {
            return (ids, failed);
        }
        for (broker, listing) in self.list_transactions(&[], producer_ids, None).await {
            match listing {
                Ok(list) => ids.extend(
                    list.transactions
                        .into_iter()
                        .map(|l| (l.producer_id, (l.transactional_id, l.coordinator))),
                ),
                Err(e) => failed.push((broker, e)),
            }
        }
        (ids, failed)
    }

    /// ListTransactions on every broker (each coordinates a share of transactional ids).
    /// Per broker: its listings, or why it could not be asked. The duration filter needs
    /// ListTransactions v1 (Kafka 3.8, KIP-994): an older broker lists every transaction
    /// and says it did not filter, for the caller to filter on the start times.
    pub async fn list_transactions(
        &self,
        states: &[String],
        producer_ids: &[i64],
        min_duration: Option<Duration>,
    ) -> Vec<(i32, Result<Listings>)> {
        let requests = self.brokers.keys().map(|&broker| async move {
            let outcome = async {
                let offered = self
                    .broker(broker)
                    .await?
                    .lock()
                    .await
                    .version(ApiKey::ListTransactions, VersionRange { min: 0, max: 1 })?;
                let min_duration = min_duration.filter(|_| offered >= 1);
                let request = ListTransactionsRequest::default()
                    .with_state_filters(
                        states
                            .iter()
                            .map(|s| StrBytes::from_string(s.clone()))
                            .collect(),
                    )
                    .with_producer_id_filters(producer_ids.iter().map(|p| ProducerId(*p)).collect())
                    .with_duration_filter(
                        min_duration.map_or(-1, |d| d.as_millis().min(i64::MAX as u128) as i64),
                    );
                let versions = if min_duration.is_some() {
                    VersionRange { min: 1, max: 1 }
                } else {
                    VersionRange { min: 0, max: 1 }
                };
                let response: ListTransactionsResponse = self
                    .send_to(broker, ApiKey::ListTransactions, &request, versions)
                    .await?;
                check(response.error_code, "ListTransactions")?;
                Ok::<_, anyhow::Error>(Listings {
                    transactions: response
                        .transaction_states
                        .iter()
                        .map(|t| TransactionListing {
                            transactional_id: t.transactional_id.0.to_string(),
                            producer_id: t.producer_id.0,
                            state: t.transaction_state.to_string(),
                            coordinator: broker,
                        })
                        .collect(),
                    duration_filtered: min_duration.is_some(),
                })
            }
            .await;
            (broker, outcome)
        });
        join_all(requests).await
    }

    /// The transaction coordinator of each transactional id, asked of the brokers in turn
    /// until one answers: a broker the metadata names may be down, or out of reach.
    async fn find_coordinators(&self, ids: &[String]) -> BTreeMap<String, Result<i32>> {
        let mut results = BTreeMap::new();
        let asked = self
            .ask_in_turn(
                self.brokers.keys().copied(),
                "FindCoordinator",
                |broker| async move { self.find_coordinators_via(broker, ids).await.map(Ok) },
            )
            .await;
        match asked {
            Ok(found) => results.extend(found),
            Err(e) => settle(&mut results, ids.iter().cloned(), Some(&e), ""),
        }
        settle(
            &mut results,
            ids.iter().cloned(),
            None,
            "FindCoordinator: no answer for this id",
        );
        results
    }

    async fn find_coordinators_via(
        &self,
        broker: i32,
        ids: &[String],
    ) -> Result<Vec<(String, Result<i32>)>> {
        let conn = self.broker(broker).await?;
        let mut conn = conn.lock().await;
        let version = conn.version(ApiKey::FindCoordinator, FIND_COORDINATOR_VERSIONS)?;
        if version >= 4 {
            let request = FindCoordinatorRequest::default()
                .with_key_type(1)
                .with_coordinator_keys(
                    ids.iter()
                        .map(|i| StrBytes::from_string(i.clone()))
                        .collect(),
                );
            let response: FindCoordinatorResponse = conn
                .send(
                    ApiKey::FindCoordinator,
                    &request,
                    VersionRange {
                        min: 4,
                        max: version,
                    },
                )
                .await?;
            Ok(response
                .coordinators
                .iter()
                .map(|c| {
                    (
                        c.key.to_string(),
                        check(c.error_code, "FindCoordinator").map(|()| c.node_id.0),
                    )
                })
                .collect::<Vec<_>>())
        } else {
            let mut found = Vec::new();
            for id in ids {
                let request = FindCoordinatorRequest::default()
                    .with_key_type(1)
                    .with_key(StrBytes::from_string(id.clone()));
                let response: FindCoordinatorResponse = conn
                    .send(
                        ApiKey::FindCoordinator,
                        &request,
                        VersionRange { min: 1, max: 3 },
                    )
                    .await?;
                found.push((
                    id.clone(),
                    check(response.error_code, "FindCoordinator").map(|()| response.node_id.0),
                ));
            }
            Ok(found)
        }
    }

    /// DescribeTransactions through each id's coordinator.
    pub async fn describe_transactions(
        &self,
        ids: &[String],
    ) -> BTreeMap<String, Result<TransactionDescription>> {
        let coordinators = self.find_coordinators(ids).await;
        let mut results = BTreeMap::new();
        let mut groups: BTreeMap<i32, Vec<String>> = BTreeMap::new();
        for (id, coordinator) in coordinators {
            match coordinator {
                Ok(c) => groups.entry(c).or_default().push(id),
                Err(e) => {
                    results.insert(id, Err(e));
                }
            }
        }
        let requests = groups.into_iter().map(|(coordinator, ids)| async move {
            let outcome = async {
                let request = DescribeTransactionsRequest::default().with_transactional_ids(
                    ids.iter()
                        .map(|i| TransactionalId(StrBytes::from_string(i.clone())))
                        .collect(),
                );
                let response: DescribeTransactionsResponse = self
                    .send_to(
                        coordinator,
                        ApiKey::DescribeTransactions,
                        &request,
                        DescribeTransactionsRequest::VERSIONS,
                    )
                    .await?;
                Ok::<_, anyhow::Error>(response)
            }
            .await;
            (coordinator, ids, outcome)
        });
        for (coordinator, ids, outcome) in join_all(requests).await {
            match outcome {
                Ok(response) => {
                    for state in response.transaction_states {
                        let id = state.transactional_id.0.to_string();
                        results.insert(id, describe_one(coordinator, &state));
                    }
                }
                Err(e) => settle(&mut results, ids, Some(&e), ""),
            }
        }
        settle(
            &mut results,
            ids.iter().cloned(),
            None,
            "DescribeTransactions: no answer for this id",
        );
        results
    }

    /// The timestamp of the first record at or after `offset` (read_uncommitted Fetch):
    /// from a batch's header when the batch starts there (no codec needed), else from its
    /// records, since records before `offset` in the same batch may be long gone
    /// (DeleteRecords) and older. Batches the cleaner emptied are passed over. None when
    /// the log holds no such record.
    pub async fn record_timestamp(&self, tp: &TopicPartition, offset: i64) -> Result<Option<i64>> {
        let leader = self.leader(tp)?;
        let mut at = offset;
        loop {
            let request = fetch::request(
                &tp.0,
                std::iter::once((tp.1, at)),
                fetch::READ_UNCOMMITTED,
                0,
                // At least the batch holding the offset comes whole whatever the limit (KIP-74).
                1,
            );
            let response: FetchResponse = self
                .send_to(leader, ApiKey::Fetch, &request, FETCH_VERSIONS)
                .await?;
            check(response.error_code, "Fetch")?;
            let partition = response
                .responses
                .iter()
                .flat_map(|t| t.partitions.iter())
                .find(|p| p.partition_index == tp.1)
                .context("Fetch: no data for the partition")?;
            check(partition.error_code, "Fetch")?;
            let Some(records) = &partition.records else {
                return Ok(None);
            };
            let batches = records::batches(records)?;
            let Some(last) = batches.last().map(|b| b.last_offset) else {
                return Ok(None); // the end of the log
            };
            for batch in batches.iter().filter(|b| b.last_offset >= at) {
                if batch.base_offset >= at && batch.record_count() > 0 {
                    return Ok(Some(batch.first_timestamp()));
                }
                let mut found = None;
                batch.for_each_record(|r| {
                    if found.is_none() && r.offset >= at {
                        found = Some(r.timestamp);
                    }
                    Ok(())
                })?;
                if found.is_some() {
                    return Ok(found);
                }
            }
            // Only batches the cleaner emptied: ask again after them.
            at = last + 1;
        }
    }

    /// Every data record of `tp` from `from` up to `end` (exclusive), read with
    /// read_uncommitted from its leader a few MiB at a time, CRC checked: what lies past
    /// a last stable offset, which read_committed cannot see. Control batches (markers)
    /// are skipped.
    pub async fn read_uncommitted(
        &self,
        tp: &TopicPartition,
        from: i64,
        end: i64,
        mut each: impl FnMut(&records::Record) -> Result<()>,
    ) -> Result<()> {
        let leader = self.leader(tp)?;
        let mut at = from;
        while at < end {
            let request = fetch::request(
                &tp.0,
                std::iter::once((tp.1, at)),
                fetch::READ_UNCOMMITTED,
                0,
                UNCOMMITTED_PARTITION_BYTES,
            );
            let response: FetchResponse = self
                .send_to(leader, ApiKey::Fetch, &request, FETCH_VERSIONS)
                .await?;
            check(response.error_code, "Fetch")?;
            let partition = response
                .responses
                .iter()
                .flat_map(|t| t.partitions.iter())
                .find(|p| p.partition_index == tp.1)
                .context("Fetch: no data for the partition")?;
            check(partition.error_code, "Fetch")?;
            let batches = match &partition.records {
                Some(records) => records::batches(records)?,
                None => Vec::new(),
            };
            let Some(last) = batches.last().map(|b| b.last_offset) else {
                bail!("Fetch at offset {at} returned nothing, below the high watermark {end}");
            };
            for batch in batches.iter().filter(|b| b.last_offset >= at) {
                batch.verify_crc()?;
                if batch.is_control() {
                    continue;
                }
                batch.for_each_record(|r| {
                    if r.offset >= at && r.offset < end {
                        each(r)?;
                    }
                    Ok(())
                })?;
            }
            at = last + 1;
        }
        Ok(())
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

    /// WriteTxnMarkers(abort) for one producer's transaction on one partition, to its
    /// leader: Ok when the leader answered for the partition without an error, else the
    /// broker's error (a `BrokerError`) or why there was no answer. The one write this
    /// client sends; clippy.toml lets only the code that holds a confirmation call it.
    pub async fn write_abort_marker(
        &self,
        tp: &TopicPartition,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
    ) -> Result<()> {
        let leader = self.leader(tp)?;
        let request = WriteTxnMarkersRequest::default().with_markers(vec![
            write_txn_markers_request::WritableTxnMarker::default()
                .with_producer_id(ProducerId(producer_id))
                .with_producer_epoch(producer_epoch)
                .with_transaction_result(false)
                .with_coordinator_epoch(coordinator_epoch)
                .with_topics(vec![
                    write_txn_markers_request::WritableTxnMarkerTopic::default()
                        .with_name(TopicName(StrBytes::from_string(tp.0.clone())))
                        .with_partition_indexes(vec![tp.1]),
                ]),
        ]);
        let response: WriteTxnMarkersResponse = self
            .send_to(
                leader,
                ApiKey::WriteTxnMarkers,
                &request,
                WriteTxnMarkersRequest::VERSIONS,
            )
            .await?;
        let mut answered = false;
        for marker in response.markers {
            for topic in marker.topics {
                for p in topic.partitions {
                    check(p.error_code, "WriteTxnMarkers")?;
                    answered |= topic.name.0.as_str() == tp.0 && p.partition_index == tp.1;
                }
            }
        }
        if !answered {
            bail!(
                "WriteTxnMarkers: the leader did not answer for {}-{}: the outcome is unknown",
                tp.0,
                tp.1
            );
        }
        Ok(())
    }
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

/// Gives every key a request covered an answer: the request's failure for all of them,
/// or, after a reply, "no answer" for those the broker left out. A shared failure is
/// copied as text, so a `BrokerError` in it is no longer found by `BrokerError::of`.
fn settle<K: Ord + Clone, T>(
    results: &mut BTreeMap<K, Result<T>>,
    keys: impl IntoIterator<Item = K>,
    failure: Option<&anyhow::Error>,
    missing: &str,
) {
    for key in keys {
        match failure {
            Some(e) => {
                results.insert(key, Err(anyhow!("{e:#}")));
            }
            None => {
                results
                    .entry(key)
                    .or_insert_with(|| Err(anyhow!("{missing}")));
            }
        }
    }
}

fn describe_one(
    coordinator: i32,
    state: &describe_transactions_response::TransactionState,
) -> Result<TransactionDescription> {
    check(state.error_code, "DescribeTransactions")?;
    Ok(TransactionDescription {
        transactional_id: state.transactional_id.0.to_string(),
        coordinator,
        state: state.transaction_state.to_string(),
        producer_id: state.producer_id.0,
        producer_epoch: state.producer_epoch,
        timeout_ms: state.transaction_timeout_ms,
        start_time_ms: state.transaction_start_time_ms,
        partitions: state
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter().map(|p| (t.topic.0.to_string(), *p)))
            .collect(),
    })
}
