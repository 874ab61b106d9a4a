//! Reading offset ranges of a topic as a read_committed consumer would, with raw Fetch
//! requests to each partition's leader: aborted transactions and control batches are
//! dropped here (Kafka's own consumer algorithm), and every other batch is handed on whole
//! so that its records can be parsed on other threads.

use super::cluster::{Cluster, FETCH_VERSIONS};
use super::conn::check;
use super::records::{batches, Batch};
use anyhow::{anyhow, Context, Result};
use futures_util::future::try_join_all;
use kafka_protocol::messages::{
    fetch_request, fetch_response, ApiKey, BrokerId, FetchRequest, FetchResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Sender;

/// Per response, and per partition within it: big enough that a round trip is rare.
const MAX_BYTES: i32 = 16 << 20;
const PARTITION_MAX_BYTES: i32 = 4 << 20;
/// How long the broker may wait for data before answering an empty fetch.
const MAX_WAIT_MS: i32 = 500;
/// Fetch and ListOffsets isolation levels.
pub const READ_UNCOMMITTED: i8 = 0;
pub const READ_COMMITTED: i8 = 1;

/// Offsets `start..end` of one partition.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub partition: i32,
    pub start: i64,
    pub end: i64,
}

/// A batch of committed (or non-transactional) records and the offsets of it to read.
pub struct Work {
    pub partition: i32,
    pub batch: Batch,
    /// Records before this offset were read already (or lie before the range).
    pub from: i64,
    pub end: i64,
}

/// Reads every range to its end and sends each batch worth reading to one of `sinks`
/// (in turn). Fails when no partition of a leader makes progress for `idle_timeout`.
pub async fn read_committed(
    cluster: &Cluster,
    topic: &str,
    ranges: &[Range],
    idle_timeout: Duration,
    sinks: &[Sender<Work>],
    on_response: &(dyn Fn() + Sync),
) -> Result<()> {
    let mut by_leader: BTreeMap<i32, Vec<Range>> = BTreeMap::new();
    for range in ranges.iter().filter(|r| r.start < r.end) {
        let leader = cluster.leader(&(topic.to_string(), range.partition))?;
        by_leader.entry(leader).or_default().push(*range);
    }
    let parsers = sinks.len().max(1);
    try_join_all(
        by_leader
            .into_iter()
            .enumerate()
            .map(|(i, (leader, ranges))| {
                // Each leader starts on a different sink, so two leaders do not queue on one parser.
                let first_sink = i % parsers;
                read_from_leader(
                    cluster,
                    topic,
                    leader,
                    ranges,
                    idle_timeout,
                    sinks,
                    first_sink,
                    on_response,
                )
            }),
    )
    .await?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn read_from_leader(
    cluster: &Cluster,
    topic: &str,
    leader: i32,
    ranges: Vec<Range>,
    idle_timeout: Duration,
    sinks: &[Sender<Work>],
    mut turn: usize,
    on_response: &(dyn Fn() + Sync),
) -> Result<()> {
    // partition → (next offset to read, end)
    let mut open: BTreeMap<i32, (i64, i64)> = ranges
        .iter()
        .map(|r| (r.partition, (r.start, r.end)))
        .collect();
    let conn = cluster.broker(leader).await?;
    let mut last_progress = Instant::now();
    for round in 0.. {
        if open.is_empty() {
            break;
        }
        let request = next_request(topic, &open, round);
        let response: FetchResponse = conn
            .lock()
            .await
            .send(ApiKey::Fetch, &request, FETCH_VERSIONS)
            .await
            .with_context(|| format!("Fetch from broker {leader}"))?;
        check(response.error_code, "Fetch")?;
        on_response();
        if response.throttle_time_ms > 0 {
            // A quota: the broker answered (perhaps with nothing) and asks us to wait.
            tokio::time::sleep(Duration::from_millis(response.throttle_time_ms as u64)).await;
            last_progress = Instant::now();
        }
        let mut progressed = false;
        for partition in response.responses.iter().flat_map(|t| t.partitions.iter()) {
            let id = partition.partition_index;
            let Some(&(next, end)) = open.get(&id) else {
                continue;
            };
            check(partition.error_code, &format!("Fetch {topic}-{id}"))?;
            let Some(records) = &partition.records else {
                continue;
            };
            let found = batches(records).with_context(|| format!("reading {topic}-{id}"))?;
            let mut filter = AbortFilter::new(partition);
            let mut at = next;
            for batch in found {
                if batch.last_offset < at {
                    continue; // the first batch may begin before the offset asked for
                }
                let keep = filter
                    .keeps(&batch)
                    .with_context(|| format!("reading {topic}-{id}"))?;
                let next_at = batch.last_offset + 1;
                if keep && batch.base_offset < end {
                    // A copy: a queued slice would keep its whole response in memory.
                    let work = Work {
                        partition: id,
                        batch: batch.detached(),
                        from: at,
                        end,
                    };
                    sinks[turn % sinks.len()]
                        .send(work)
                        .await
                        .map_err(|_| anyhow!("a record parser stopped"))?;
                    turn += 1;
                }
                at = next_at;
                if at >= end {
                    break;
                }
            }
            if at > next {
                progressed = true;
            }
            if at >= end {
                open.remove(&id);
            } else {
                open.insert(id, (at, end));
            }
        }
        if progressed {
            last_progress = Instant::now();
        } else if last_progress.elapsed() > idle_timeout {
            let stuck: Vec<String> = open.keys().map(|p| format!("{topic}-{p}")).collect();
            return Err(anyhow!(
                "no progress on {} for {}: each stopped before the end offset it had when the run began",
                stuck.join(", "),
                crate::units::format_duration(idle_timeout)
            ));
        }
    }
    Ok(())
}

/// The open partitions, starting one further each round: only the first partition with
/// data is sure to get a batch larger than its share (KIP-74), so each gets to be first.
fn next_request(topic: &str, open: &BTreeMap<i32, (i64, i64)>, round: usize) -> FetchRequest {
    let first = round % open.len();
    let partitions = open
        .iter()
        .skip(first)
        .chain(open.iter().take(first))
        .map(|(p, (next, _))| (*p, *next));
    request(
        topic,
        partitions,
        READ_COMMITTED,
        MAX_WAIT_MS,
        PARTITION_MAX_BYTES,
    )
}

/// A Fetch of `topic`'s (partition, offset) pairs, outside any fetch session.
pub fn request(
    topic: &str,
    partitions: impl Iterator<Item = (i32, i64)>,
    isolation: i8,
    max_wait_ms: i32,
    partition_max_bytes: i32,
) -> FetchRequest {
    FetchRequest::default()
        .with_replica_id(BrokerId(-1))
        .with_max_wait_ms(max_wait_ms)
        .with_min_bytes(1)
        .with_max_bytes(MAX_BYTES)
        .with_isolation_level(isolation)
        .with_session_epoch(-1)
        .with_topics(vec![fetch_request::FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partitions(
                partitions
                    .map(|(p, offset)| {
                        fetch_request::FetchPartition::default()
                            .with_partition(p)
                            .with_fetch_offset(offset)
                            .with_partition_max_bytes(partition_max_bytes)
                    })
                    .collect(),
            )])
}

/// Kafka's read_committed rule for one partition of one response: a producer's batches
/// are dropped from the first offset of its aborted transaction (the response lists them)
/// until its ABORT marker; control batches are never records.
struct AbortFilter {
    /// (first offset, producer id), by first offset; taken as batches reach them.
    pending: BTreeSet<(i64, i64)>,
    aborting: HashSet<i64>,
}

impl AbortFilter {
    fn new(partition: &fetch_response::PartitionData) -> AbortFilter {
        AbortFilter {
            pending: partition
                .aborted_transactions
                .iter()
                .flatten()
                .map(|a| (a.first_offset, a.producer_id.0))
                .collect(),
            aborting: HashSet::new(),
        }
    }

    fn keeps(&mut self, batch: &Batch) -> Result<bool> {
        if batch.producer_id >= 0 {
            while let Some(&(first, producer)) = self.pending.first() {
                if first > batch.last_offset {
                    break;
                }
                self.aborting.insert(producer);
                self.pending.pop_first();
            }
            if batch.is_abort_marker()? {
                self.aborting.remove(&batch.producer_id);
            } else if batch.is_transactional() && self.aborting.contains(&batch.producer_id) {
                return Ok(false);
            }
        }
        Ok(!batch.is_control())
    }
}
