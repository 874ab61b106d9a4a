//! Offsets of partitions, asked of their leaders with ListOffsets: the high watermark,
//! the last stable offset, the log start, and the first offset at or after a time.

use super::cluster::{Cluster, TopicPartition};
use super::conn::check;
use super::fanout::{by_leader, Ask};
use super::fetch::{READ_COMMITTED, READ_UNCOMMITTED};
use anyhow::{anyhow, Result};
use kafka_protocol::messages::{
    list_offsets_request, ApiKey, BrokerId, ListOffsetsRequest, ListOffsetsResponse, TopicName,
};
use kafka_protocol::protocol::{Message, StrBytes, VersionRange};
use std::collections::BTreeMap;

/// ListOffsets v2+: v2 brought the isolation level.
const LIST_OFFSETS_VERSIONS: VersionRange = VersionRange {
    min: 2,
    max: ListOffsetsRequest::VERSIONS.max,
};

impl Cluster {
    /// (high watermark, last stable offset) per partition: ListOffsets(LATEST) with both
    /// isolation levels. One request cannot ask both, so the LSO is asked first and the
    /// high watermark after it: both only grow, so the pair never has an LSO above its
    /// high watermark (asked at once, a write or marker in between could give one).
    pub async fn watermarks(
        &self,
        tps: &[TopicPartition],
    ) -> BTreeMap<TopicPartition, Result<(i64, i64)>> {
        let stable = self.latest_offsets(tps, READ_COMMITTED).await;
        let high = self.latest_offsets(tps, READ_UNCOMMITTED).await;
        pairs(tps, high, stable)
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
        let groups = by_leader(&self.topics, tps, &mut results);
        self.fan_out(
            &mut results,
            groups,
            Ask {
                api: ApiKey::ListOffsets,
                versions: LIST_OFFSETS_VERSIONS,
                missing: "ListOffsets: the broker did not answer for this partition",
            },
            |tps| request(tps, isolation, timestamp),
            |_, response: ListOffsetsResponse| {
                response
                    .topics
                    .into_iter()
                    .flat_map(|t| {
                        let name = t.name.0.to_string();
                        t.partitions.into_iter().map(move |p| {
                            let value = check(p.error_code, "ListOffsets").map(|()| p.offset);
                            ((name.clone(), p.partition_index), value)
                        })
                    })
                    .collect()
            },
        )
        .await;
        results
    }
}

/// One ListOffsets request for partitions of one leader.
fn request(tps: &[TopicPartition], isolation: i8, timestamp: i64) -> ListOffsetsRequest {
    let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (t, p) in tps {
        topics.entry(t.as_str()).or_default().push(*p);
    }
    ListOffsetsRequest::default()
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
                                    list_offsets_request::ListOffsetsPartition::default()
                                        .with_partition_index(p)
                                        .with_timestamp(timestamp)
                                })
                                .collect(),
                        )
                })
                .collect(),
        )
}

/// The (high watermark, LSO) pair of each partition, or the error of whichever read failed.
fn pairs(
    tps: &[TopicPartition],
    mut high: BTreeMap<TopicPartition, Result<i64>>,
    mut stable: BTreeMap<TopicPartition, Result<i64>>,
) -> BTreeMap<TopicPartition, Result<(i64, i64)>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watermarks_pair_each_partitions_reads_or_give_the_read_that_failed() {
        let tp = |p: i32| ("t".to_string(), p);
        let tps = [tp(0), tp(1), tp(2), tp(3)];
        let high = BTreeMap::from([
            (tp(0), Ok(10)),
            (tp(1), Err(anyhow!("high watermark failed"))),
            (tp(2), Ok(7)),
        ]);
        let stable = BTreeMap::from([
            (tp(0), Ok(4)),
            (tp(1), Ok(3)),
            (tp(2), Err(anyhow!("LSO failed"))),
        ]);
        let pairs = pairs(&tps, high, stable);
        assert_eq!(*pairs[&tp(0)].as_ref().unwrap(), (10, 4));
        let why = |p: i32| pairs[&tp(p)].as_ref().unwrap_err().to_string();
        assert_eq!(why(1), "high watermark failed");
        assert_eq!(why(2), "LSO failed");
        assert_eq!(why(3), "ListOffsets: no offsets returned");
    }
}
