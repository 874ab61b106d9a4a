//! The one way requests about many keys (partitions, transactional ids) are sent: keys
//! grouped by the broker that must answer for them (a partition's leader, an id's
//! coordinator), one request per group, every broker asked at once, and every key given
//! an answer: its own, the failure of its group's request, or "no answer".

use super::cluster::{leader_of, Cluster, TopicMeta, TopicPartition};
use anyhow::{anyhow, Result};
use futures_util::future::join_all;
use kafka_protocol::messages::ApiKey;
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, VersionRange};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The keys of each broker, by broker; a key whose broker is not known gets that error
/// in `results` instead.
pub(super) fn group<K: Ord, T>(
    keyed: impl IntoIterator<Item = (K, Result<i32>)>,
    results: &mut BTreeMap<K, Result<T>>,
) -> BTreeMap<i32, Vec<K>> {
    let mut groups: BTreeMap<i32, Vec<K>> = BTreeMap::new();
    for (key, broker) in keyed {
        match broker {
            Ok(broker) => groups.entry(broker).or_default().push(key),
            Err(e) => {
                results.insert(key, Err(e));
            }
        }
    }
    groups
}

/// Partitions grouped by their leader as `topics` names it; partitions without one (no
/// such partition, no leader now) get their error in `results`.
pub(super) fn by_leader<T>(
    topics: &BTreeMap<String, TopicMeta>,
    tps: &[TopicPartition],
    results: &mut BTreeMap<TopicPartition, Result<T>>,
) -> BTreeMap<i32, Vec<TopicPartition>> {
    group(
        tps.iter().map(|tp| (tp.clone(), leader_of(topics, tp))),
        results,
    )
}

/// Each group split into requests of at most `size` keys (brokers and Kafka's own tools
/// bound some requests so).
pub(super) fn batches<K: Clone>(groups: BTreeMap<i32, Vec<K>>, size: usize) -> Vec<(i32, Vec<K>)> {
    groups
        .into_iter()
        .flat_map(|(broker, keys)| {
            keys.chunks(size.max(1))
                .map(|c| (broker, c.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One request's failure, shared by every key it covered. Each key gets an error of its
/// own that shows the same text and whose chain of causes goes on into the one failure,
/// so its types (a `BrokerError`, a refused connection) and any hint on them are still
/// found. The failure's outermost layer is shown, not matched: the fan-out puts the
/// API on top (`ListOffsets: broker 2: connection refused at …`), so no typed cause is
/// ever outermost.
#[derive(Debug, Clone)]
pub struct SharedFailure(Arc<anyhow::Error>);

impl std::fmt::Display for SharedFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The outermost message only: anyhow's alternate form prints the causes after it.
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for SharedFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.chain().nth(1)
    }
}

impl SharedFailure {
    pub fn new(e: anyhow::Error) -> SharedFailure {
        SharedFailure(Arc::new(e))
    }

    /// An error of its own for one key.
    pub fn error(&self) -> anyhow::Error {
        anyhow::Error::new(self.clone())
    }
}

/// Gives every key a request covered an answer: the request's failure for all of them,
/// or, after a reply, `missing` for those the broker left out.
pub(super) fn settle<K: Ord, T>(
    results: &mut BTreeMap<K, Result<T>>,
    keys: impl IntoIterator<Item = K>,
    failure: Option<&SharedFailure>,
    missing: &str,
) {
    for key in keys {
        match failure {
            Some(e) => {
                results.insert(key, Err(e.error()));
            }
            None => {
                results
                    .entry(key)
                    .or_insert_with(|| Err(anyhow!("{missing}")));
            }
        }
    }
}

/// What one fan-out asks: the API, the versions indoubt speaks of it, and what a key
/// the broker left out of its answer is told.
pub(super) struct Ask<'a> {
    pub api: ApiKey,
    pub versions: VersionRange,
    pub missing: &'a str,
}

impl Cluster {
    /// Sends `request(keys)` for each (broker, keys) group to its broker, all brokers at
    /// once, and puts each key's answer into `results`: what `answers` reads from the
    /// broker's response, else the failure of the request (whole, shared by its keys),
    /// else `ask.missing`.
    pub(super) async fn fan_out<K, T, Req, Resp>(
        &self,
        results: &mut BTreeMap<K, Result<T>>,
        groups: impl IntoIterator<Item = (i32, Vec<K>)>,
        ask: Ask<'_>,
        request: impl Fn(&[K]) -> Req,
        answers: impl Fn(i32, Resp) -> Vec<(K, Result<T>)>,
    ) where
        K: Ord,
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        let (api, versions) = (ask.api, ask.versions);
        let requests = groups.into_iter().map(|(broker, keys)| {
            let request = request(&keys);
            async move {
                let outcome: Result<Resp> = self.send_to(broker, api, &request, versions).await;
                (broker, keys, outcome)
            }
        });
        for (broker, keys, outcome) in join_all(requests).await {
            match outcome {
                Ok(response) => {
                    for (key, answer) in answers(broker, response) {
                        results.insert(key, answer);
                    }
                    settle(results, keys, None, ask.missing);
                }
                Err(e) => {
                    // Named by its API on top, so that no typed cause is the shared layer.
                    let failure = SharedFailure::new(e.context(format!("{api:?}")));
                    settle(results, keys, Some(&failure), "");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::cluster::PartitionMeta;
    use crate::kafka::conn::{BrokerError, Refused};

    fn topics(partitions: &[(&str, i32, i32)]) -> BTreeMap<String, TopicMeta> {
        let mut topics: BTreeMap<String, TopicMeta> = BTreeMap::new();
        for (topic, partition, leader) in partitions {
            topics
                .entry(topic.to_string())
                .or_insert_with(|| TopicMeta {
                    partitions: BTreeMap::new(),
                })
                .partitions
                .insert(
                    *partition,
                    PartitionMeta {
                        leader: *leader,
                        replicas: vec![],
                        error: (*leader < 0).then(|| "LEADER_NOT_AVAILABLE (5)".to_string()),
                    },
                );
        }
        topics
    }

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        (topic.to_string(), partition)
    }

    #[test]
    fn partitions_are_grouped_by_leader_and_those_without_one_get_why() {
        let meta = topics(&[
            ("a", 0, 1),
            ("a", 1, 2),
            ("a", 2, 1),
            ("b", 0, 1),
            ("b", 1, -1),
        ]);
        let asked = [
            tp("a", 0),
            tp("a", 1),
            tp("a", 2),
            tp("b", 0),
            tp("b", 1),
            tp("c", 0),
        ];
        let mut results: BTreeMap<TopicPartition, Result<()>> = BTreeMap::new();
        let groups = by_leader(&meta, &asked, &mut results);
        assert_eq!(
            groups,
            BTreeMap::from([
                (1, vec![tp("a", 0), tp("a", 2), tp("b", 0)]),
                (2, vec![tp("a", 1)]),
            ])
        );
        let why = |tp: &TopicPartition| format!("{:#}", results[tp].as_ref().unwrap_err());
        assert_eq!(
            why(&tp("b", 1)),
            "partition b-1 has no leader (LEADER_NOT_AVAILABLE (5))"
        );
        assert_eq!(
            why(&tp("c", 0)),
            "partition c-0 does not exist (UNKNOWN_TOPIC_OR_PARTITION)"
        );
        assert_eq!(results.len(), 2, "only the partitions without a leader");
    }

    #[test]
    fn a_leaders_partitions_are_split_into_requests_of_a_bounded_size() {
        let groups = BTreeMap::from([(1, (0..5).collect::<Vec<i32>>()), (2, vec![9])]);
        assert_eq!(
            batches(groups, 2),
            [(1, vec![0, 1]), (1, vec![2, 3]), (1, vec![4]), (2, vec![9])]
        );
    }

    #[test]
    fn every_key_gets_an_answer_its_own_the_shared_failure_or_no_answer() {
        let mut results: BTreeMap<i32, Result<i64>> = BTreeMap::from([(1, Ok(10))]);
        settle(&mut results, [1, 2], None, "no answer for this partition");
        assert_eq!(*results[&1].as_ref().unwrap(), 10, "an answer stays");
        assert_eq!(
            results[&2].as_ref().unwrap_err().to_string(),
            "no answer for this partition"
        );
        // A failed request: each of its keys gets the failure, whole.
        let cause = anyhow::Error::new(Refused {
            address: "127.0.0.1:9".to_string(),
        })
        .context("ListOffsets");
        settle(&mut results, [1, 3], Some(&SharedFailure::new(cause)), "");
        for key in [1, 3] {
            let e = results[&key].as_ref().unwrap_err();
            assert_eq!(
                format!("{e:#}"),
                "ListOffsets: connection refused at 127.0.0.1:9"
            );
            let refused = e.chain().find_map(|c| c.downcast_ref::<Refused>());
            assert_eq!(refused.map(|r| r.address.as_str()), Some("127.0.0.1:9"));
        }
    }

    #[test]
    fn a_shared_broker_error_is_still_found_by_its_type() {
        let cause = anyhow::Error::new(BrokerError::from_code(53, "DescribeTransactions").unwrap())
            .context("DescribeTransactions");
        let shared = SharedFailure::new(cause);
        let (one, other) = (shared.error(), shared.error());
        for e in [&one, &other] {
            let b = BrokerError::of(e).unwrap();
            assert_eq!(b.symbol(), "TRANSACTIONAL_ID_AUTHORIZATION_FAILED");
        }
    }

    #[test]
    fn keys_whose_broker_is_unknown_get_the_error_and_the_rest_are_grouped() {
        let keyed = vec![
            ("t1".to_string(), Ok(3)),
            (
                "t2".to_string(),
                Err(anyhow!("FindCoordinator: COORDINATOR_NOT_AVAILABLE (15)")),
            ),
            ("t3".to_string(), Ok(3)),
            ("t4".to_string(), Ok(1)),
        ];
        let mut results: BTreeMap<String, Result<()>> = BTreeMap::new();
        let groups = group(keyed, &mut results);
        assert_eq!(
            groups,
            BTreeMap::from([
                (1, vec!["t4".to_string()]),
                (3, vec!["t1".to_string(), "t3".to_string()])
            ])
        );
        assert!(results["t2"].is_err() && results.len() == 1);
    }
}
