//! Producers and transactions: DescribeProducers on partition leaders, ListTransactions
//! on every broker, FindCoordinator and DescribeTransactions through each transactional
//! id's coordinator, and the one write, WriteTxnMarkers(abort).

use super::cluster::{Cluster, TopicPartition};
use super::conn::{check, error_name};
use super::fanout::{batches, by_leader, group, settle, Ask, SharedFailure};
use anyhow::{anyhow, bail, Result};
use futures_util::future::join_all;
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    describe_producers_request, describe_transactions_response, write_txn_markers_request, ApiKey,
    DescribeProducersRequest, DescribeProducersResponse, DescribeTransactionsRequest,
    DescribeTransactionsResponse, FindCoordinatorRequest, FindCoordinatorResponse,
    ListTransactionsRequest, ListTransactionsResponse, ProducerId, TopicName, TransactionalId,
    WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_protocol::protocol::{Message, StrBytes, VersionRange};
use std::collections::BTreeMap;
use std::time::Duration;

/// Kafka's TransactionsCommand asks DescribeProducers about 500 partitions at a time.
const DESCRIBE_PRODUCERS_BATCH: usize = 500;
/// FindCoordinator v4+ takes many keys at once.
const FIND_COORDINATOR_VERSIONS: VersionRange = VersionRange { min: 1, max: 6 };

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

impl Cluster {
    /// DescribeProducers for partitions, sent to each leader in batches.
    pub async fn describe_producers(
        &self,
        tps: &[TopicPartition],
    ) -> BTreeMap<TopicPartition, Result<Vec<ProducerState>>> {
        let mut results = BTreeMap::new();
        let groups = by_leader(&self.topics, tps, &mut results);
        self.fan_out(
            &mut results,
            batches(groups, DESCRIBE_PRODUCERS_BATCH),
            Ask {
                api: ApiKey::DescribeProducers,
                versions: DescribeProducersRequest::VERSIONS,
                missing: "DescribeProducers: no answer for this partition",
            },
            describe_producers_request,
            |_, response: DescribeProducersResponse| read_producers(response),
        )
        .await;
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
            Err(e) => settle(
                &mut results,
                ids.iter().cloned(),
                Some(&SharedFailure::new(e)),
                "",
            ),
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
        let groups = group(coordinators, &mut results);
        self.fan_out(
            &mut results,
            groups,
            Ask {
                api: ApiKey::DescribeTransactions,
                versions: DescribeTransactionsRequest::VERSIONS,
                missing: "DescribeTransactions: no answer for this id",
            },
            |ids| {
                DescribeTransactionsRequest::default().with_transactional_ids(
                    ids.iter()
                        .map(|i| TransactionalId(StrBytes::from_string(i.clone())))
                        .collect(),
                )
            },
            |coordinator, response: DescribeTransactionsResponse| {
                response
                    .transaction_states
                    .iter()
                    .map(|state| {
                        let id = state.transactional_id.0.to_string();
                        (id, describe_one(coordinator, state))
                    })
                    .collect()
            },
        )
        .await;
        settle(
            &mut results,
            ids.iter().cloned(),
            None,
            "DescribeTransactions: no answer for this id",
        );
        results
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

/// One DescribeProducers request for partitions of one leader.
fn describe_producers_request(tps: &[TopicPartition]) -> DescribeProducersRequest {
    let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (t, p) in tps {
        topics.entry(t.as_str()).or_default().push(*p);
    }
    DescribeProducersRequest::default().with_topics(
        topics
            .into_iter()
            .map(|(t, ps)| {
                describe_producers_request::TopicRequest::default()
                    .with_name(TopicName(StrBytes::from_string(t.to_string())))
                    .with_partition_indexes(ps)
            })
            .collect(),
    )
}

/// Each partition's producers as a DescribeProducers answer gives them, or its error.
fn read_producers(
    response: DescribeProducersResponse,
) -> Vec<(TopicPartition, Result<Vec<ProducerState>>)> {
    let mut out = Vec::new();
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
            out.push((tp, value));
        }
    }
    out
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
