//! Reading offset ranges of a topic as a read_committed consumer would, with raw Fetch
//! requests to each partition's leader: aborted transactions and control batches are
//! dropped here (Kafka's own consumer algorithm), and every other batch is handed on whole
//! so that its records can be parsed on other threads. Also the single-partition reads
//! with read_uncommitted: a record's timestamp, and what lies past a last stable offset.

use super::cluster::{Cluster, TopicPartition};
use super::conn::{check, BrokerError};
use super::records::{self, batches, Batch};
use anyhow::{anyhow, bail, Context, Result};
use futures_util::stream::{FuturesUnordered, StreamExt};
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    fetch_request, fetch_response, ApiKey, BrokerId, FetchRequest, FetchResponse, TopicName,
};
use kafka_protocol::protocol::{StrBytes, VersionRange};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Sender;

/// Per response, and per partition within it: big enough that a round trip is rare.
const MAX_BYTES: i32 = 16 << 20;
const PARTITION_MAX_BYTES: i32 = 4 << 20;
/// How long the broker may wait for data before answering an empty fetch.
const MAX_WAIT_MS: i32 = 500;
/// Fetch v13+ names topics by id only; we name them. v4 brought read_committed.
pub const FETCH_VERSIONS: VersionRange = VersionRange { min: 4, max: 12 };
/// What one Fetch past a last stable offset may bring back per partition.
const UNCOMMITTED_PARTITION_BYTES: i32 = 4 << 20;
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

/// The log start of a partition passed the next offset to read while it was being read
/// (retention, DeleteRecords, or a truncated log): the broker's OFFSET_OUT_OF_RANGE.
#[derive(Debug)]
pub struct LogStartMoved {
    pub topic: String,
    pub partition: i32,
    /// The offset the read had reached.
    pub next: i64,
    pub error: BrokerError,
}

impl std::fmt::Display for LogStartMoved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the log start of {}-{} moved past offset {} before it was read (retention, DeleteRecords), or the log was truncated",
            self.topic, self.partition, self.next
        )
    }
}

impl std::error::Error for LogStartMoved {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl Cluster {
    /// One read_uncommitted Fetch of `tp` at `at` from its leader, up to `max_bytes`: the
    /// batches it returned (none at the end of the log).
    async fn fetch_uncommitted(
        &self,
        leader: i32,
        tp: &TopicPartition,
        at: i64,
        max_bytes: i32,
    ) -> Result<Vec<Batch>> {
        let request = request(
            &tp.0,
            std::iter::once((tp.1, at)),
            READ_UNCOMMITTED,
            0,
            max_bytes,
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
        match &partition.records {
            Some(records) => batches(records),
            None => Ok(Vec::new()),
        }
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
            // At least the batch holding the offset comes whole whatever the limit (KIP-74).
            let batches = self.fetch_uncommitted(leader, tp, at, 1).await?;
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
            let batches = self
                .fetch_uncommitted(leader, tp, at, UNCOMMITTED_PARTITION_BYTES)
                .await?;
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
}

/// Partition errors after which another broker may lead the partition: whoever leads it
/// now is asked of the cluster again, as Kafka's consumer does for these. (The leader
/// epoch errors cannot come back: no epoch is sent.)
fn leader_moved(error: ResponseError) -> bool {
    matches!(
        error,
        ResponseError::NotLeaderOrFollower
            | ResponseError::UnknownTopicOrPartition // no longer hosted by this broker
            | ResponseError::ReplicaNotAvailable
            | ResponseError::KafkaStorageError
            | ResponseError::OffsetNotAvailable // a new leader catching up its high watermark
    )
}
/// The pause before asking who leads a partition now: the controller needs a moment to
/// elect a new leader (Kafka's clients wait `retry.backoff.ms`, 100ms, and back off).
const REROUTE_BACKOFF: Duration = Duration::from_millis(250);

/// A partition a leader's reader gave back, to be read on from wherever it is led now.
struct Handoff {
    range: Range,
    leader: i32,
    /// Why it was given back; empty for the partitions merely read by the same reader.
    why: String,
    last_progress: Instant,
}

/// Partitions to read from one leader, and when any of them last made progress.
type Placement = BTreeMap<i32, (Vec<Range>, Instant)>;

/// Reads every range to its end and sends each batch worth reading to one of `sinks`
/// (in turn). A partition whose leader moves, or cannot be reached, is read on from its
/// new leader (`on_move` hears of it). Fails when none of the partitions read from one
/// broker has made progress for `idle_timeout`.
pub async fn read_committed(
    cluster: &Cluster,
    topic: &str,
    ranges: &[Range],
    idle_timeout: Duration,
    sinks: &[Sender<Work>],
    on_response: &(dyn Fn() + Sync),
    on_move: &(dyn Fn(String) + Sync),
) -> Result<()> {
    let mut placement = Placement::new();
    let now = Instant::now();
    for range in ranges.iter().filter(|r| r.start < r.end) {
        let leader = cluster.leader(&(topic.to_string(), range.partition))?;
        placement
            .entry(leader)
            .or_insert((Vec::new(), now))
            .0
            .push(*range);
    }
    let parsers = sinks.len().max(1);
    // While a dead broker is still named the leader, the same retry comes round every
    // 250ms: it is told once.
    let told = std::sync::Mutex::new(HashSet::new());
    let on_move = |message: String| {
        if told
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(message.clone())
        {
            on_move(message);
        }
    };
    let on_move = &on_move;
    // Each reader reads from one leader and then places what it gave back anew; the
    // placing runs inside the reader's future, so the other readers go on meanwhile.
    let reader = |leader: i32, ranges: Vec<Range>, since: Instant, first_sink: usize| async move {
        let handoffs = read_from_leader(
            cluster,
            topic,
            leader,
            ranges,
            since,
            idle_timeout,
            sinks,
            first_sink,
            on_response,
        )
        .await?;
        place_again(cluster, topic, handoffs, idle_timeout, on_move).await
    };
    let mut readers = FuturesUnordered::new();
    let mut started = 0;
    loop {
        for (leader, (ranges, since)) in std::mem::take(&mut placement) {
            // Each leader starts on a different sink, so two leaders do not queue on one parser.
            readers.push(reader(leader, ranges, since, started % parsers));
            started += 1;
        }
        match readers.next().await {
            Some(placed) => placement = placed?,
            None => return Ok(()),
        }
    }
}

/// Where each handed-off partition is led now: asked of the cluster after a pause, again
/// until each has a leader, or one has made no progress for `idle_timeout` (a partition
/// moving to another broker starts a new budget there; one whose broker keeps failing
/// does not).
async fn place_again(
    cluster: &Cluster,
    topic: &str,
    mut handoffs: Vec<Handoff>,
    idle_timeout: Duration,
    on_move: &(dyn Fn(String) + Sync),
) -> Result<Placement> {
    let mut placement = Placement::new();
    // The brokers just given up on are asked last: one that stopped answering would
    // cost a whole timeout before the others are asked.
    let failed: Vec<i32> = handoffs.iter().map(|h| h.leader).collect();
    while !handoffs.is_empty() {
        tokio::time::sleep(REROUTE_BACKOFF).await;
        match cluster.current_leaders(topic, &failed).await {
            Ok(leaders) => handoffs.retain_mut(|h| {
                let Some(&leader) = leaders.get(&h.range.partition) else {
                    h.why = "no broker leads it now (LEADER_NOT_AVAILABLE)".to_string();
                    return true;
                };
                let (p, at) = (h.range.partition, h.range.start);
                let since = if leader != h.leader {
                    on_move(format!(
                        "{topic}-{p} moved from broker {} to broker {leader}{}; reading on from offset {at}",
                        h.leader,
                        if h.why.is_empty() { String::new() } else { format!(" ({})", h.why) }
                    ));
                    // A new leader gets the whole budget (it may need a moment to serve).
                    Instant::now()
                } else if h.why.is_empty() {
                    h.last_progress
                } else if h.last_progress.elapsed() > idle_timeout {
                    return true; // the same broker failing again after the budget: give up
                } else {
                    on_move(format!(
                        "{topic}-{p}: asking broker {leader} again from offset {at} ({})",
                        h.why
                    ));
                    h.last_progress
                };
                let (ranges, oldest) = placement.entry(leader).or_insert((Vec::new(), since));
                ranges.push(h.range);
                *oldest = (*oldest).min(since);
                false
            }),
            Err(e) => {
                let why = format!("{e:#}");
                handoffs.iter_mut().for_each(|h| h.why.clone_from(&why));
            }
        }
        // Given up only after the cluster was asked at least once: a broker that went
        // silent may have used the whole budget before its readers gave up on it.
        // The partitions carried along with one that failed have no reason of their own.
        if let Some(stuck) = handoffs
            .iter()
            .filter(|h| h.last_progress.elapsed() > idle_timeout)
            .max_by_key(|h| !h.why.is_empty())
        {
            bail!(
                "no progress on {topic}-{} for {idle_timeout:?}: {}",
                stuck.range.partition,
                stuck.why
            );
        }
    }
    Ok(placement)
}

/// Reads `ranges` from `leader` until each is done, or until the broker gives one up or
/// cannot be reached: then every partition still open is handed back to be placed anew.
#[allow(clippy::too_many_arguments)]
async fn read_from_leader(
    cluster: &Cluster,
    topic: &str,
    leader: i32,
    ranges: Vec<Range>,
    mut last_progress: Instant,
    idle_timeout: Duration,
    sinks: &[Sender<Work>],
    mut turn: usize,
    on_response: &(dyn Fn() + Sync),
) -> Result<Vec<Handoff>> {
    // partition → (next offset to read, end)
    let mut open: BTreeMap<i32, (i64, i64)> = ranges
        .iter()
        .map(|r| (r.partition, (r.start, r.end)))
        .collect();
    let conn = match cluster.broker(leader).await {
        Ok(conn) => conn,
        Err(e) => {
            return Ok(hand_back(&open, leader, last_progress, |_| {
                format!("{e:#}")
            }))
        }
    };
    let mut throttled_until = None;
    for round in 0.. {
        if open.is_empty() {
            break;
        }
        if let Some(until) = throttled_until.take() {
            // A quota: the broker answered and asked us to wait before the next request.
            tokio::time::sleep_until(until).await;
            last_progress = Instant::now();
        }
        let request = next_request(topic, &open, round);
        let sent = conn
            .lock()
            .await
            .send(ApiKey::Fetch, &request, FETCH_VERSIONS)
            .await
            .with_context(|| format!("Fetch from broker {leader}"));
        let response: FetchResponse = match sent {
            Ok(response) => response,
            // The connection failed (the broker stopped, or did not answer in time).
            Err(e) if conn.lock().await.broken => {
                return Ok(hand_back(&open, leader, last_progress, |_| {
                    format!("{e:#}")
                }))
            }
            Err(e) => return Err(e),
        };
        check(response.error_code, "Fetch")?;
        on_response();
        if response.throttle_time_ms > 0 {
            throttled_until = Some(
                tokio::time::Instant::now()
                    + Duration::from_millis(response.throttle_time_ms as u64),
            );
        }
        let mut progressed = false;
        let mut moved = BTreeMap::new();
        for partition in response.responses.iter().flat_map(|t| t.partitions.iter()) {
            let id = partition.partition_index;
            let Some(&(next, end)) = open.get(&id) else {
                continue;
            };
            if partition.error_code != 0 {
                let what = format!("Fetch {topic}-{id}");
                if let Some(e) = BrokerError::from_code(partition.error_code, &what) {
                    if leader_moved(e.error) {
                        moved.insert(id, e.to_string());
                        continue;
                    }
                    if e.error == ResponseError::OffsetOutOfRange {
                        return Err(LogStartMoved {
                            topic: topic.to_string(),
                            partition: id,
                            next,
                            error: e,
                        }
                        .into());
                    }
                    return Err(e.into());
                }
            }
            let Some(records) = &partition.records else {
                continue;
            };
            let found = batches(records).with_context(|| format!("reading {topic}-{id}"))?;
            let mut filter = AbortFilter::of(partition);
            let mut at = next;
            for batch in found {
                if batch.last_offset < at {
                    continue; // the first batch may begin before the offset asked for
                }
                let keep = filter
                    .keeps(&batch)
                    .with_context(|| format!("reading {topic}-{id}"))?;
                if !keep {
                    // Dropped on its header's word: damage there must not make ids vanish.
                    batch
                        .verify_crc()
                        .with_context(|| format!("reading {topic}-{id}"))?;
                }
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
        }
        if !moved.is_empty() {
            // Led elsewhere now: the cluster is asked again about all of them at once.
            return Ok(hand_back(&open, leader, last_progress, |p| {
                moved.get(&p).cloned().unwrap_or_default()
            }));
        }
        if last_progress.elapsed() > idle_timeout {
            let stuck: Vec<String> = open.keys().map(|p| format!("{topic}-{p}")).collect();
            return Err(anyhow!(
                "no progress on {} for {idle_timeout:?}: each stopped before the end offset it had when the run began",
                stuck.join(", ")
            ));
        }
    }
    Ok(Vec::new())
}

/// The partitions still `open`, given back with `why(partition)`.
fn hand_back(
    open: &BTreeMap<i32, (i64, i64)>,
    leader: i32,
    last_progress: Instant,
    why: impl Fn(i32) -> String,
) -> Vec<Handoff> {
    open.iter()
        .map(|(&partition, &(start, end))| Handoff {
            range: Range {
                partition,
                start,
                end,
            },
            leader,
            why: why(partition),
            last_progress,
        })
        .collect()
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
    /// For the aborted transactions a partition's Fetch response lists.
    fn of(partition: &fetch_response::PartitionData) -> AbortFilter {
        AbortFilter::new(
            partition
                .aborted_transactions
                .iter()
                .flatten()
                .map(|a| (a.first_offset, a.producer_id.0)),
        )
    }

    /// For aborted transactions given as (first offset, producer id).
    fn new(aborted: impl IntoIterator<Item = (i64, i64)>) -> AbortFilter {
        AbortFilter {
            pending: aborted.into_iter().collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use kafka_protocol::records::{
        Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
    };

    /// What a batch holds: data records, or one COMMIT or ABORT marker.
    enum Kind {
        Data(i64),
        Commit,
        Abort,
    }

    /// One batch from `base` of `producer` (-1: no producer), encoded by kafka-protocol.
    fn batch(base: i64, producer: i64, transactional: bool, kind: Kind) -> Vec<u8> {
        let record = |offset: i64, key: Vec<u8>, value: Vec<u8>, control: bool| Record {
            transactional,
            control,
            delete_horizon: false,
            partition_leader_epoch: -1,
            producer_id: producer,
            producer_epoch: if producer < 0 { -1 } else { 0 },
            timestamp_type: TimestampType::Creation,
            offset,
            // offset − sequence constant: the encoder keeps the records in one batch.
            sequence: (offset - base) as i32,
            timestamp: 1_000 + offset,
            key: Some(Bytes::from(key)),
            value: Some(Bytes::from(value)),
            headers: Default::default(),
        };
        let records: Vec<Record> = match kind {
            Kind::Data(count) => (0..count)
                .map(|i| record(base + i, b"k".to_vec(), b"v".to_vec(), false))
                .collect(),
            // A control record's key: version 0, then type 0 (ABORT) or 1 (COMMIT); its
            // value: version 0 and the coordinator epoch.
            Kind::Commit => vec![record(base, vec![0, 0, 0, 1], vec![0; 6], true)],
            Kind::Abort => vec![record(base, vec![0, 0, 0, 0], vec![0; 6], true)],
        };
        let mut buf = bytes::BytesMut::new();
        RecordBatchEncoder::encode(
            &mut buf,
            &records,
            &RecordEncodeOptions {
                version: 2,
                compression: Compression::None,
            },
        )
        .unwrap();
        buf.to_vec()
    }

    /// The base offsets of the batches the filter keeps, read in order as a fetch does.
    fn kept(aborted: &[(i64, i64)], log: Vec<Vec<u8>>) -> Vec<i64> {
        let found = batches(&Bytes::from(log.concat())).unwrap();
        let mut filter = AbortFilter::new(aborted.iter().copied());
        found
            .into_iter()
            .filter(|b| filter.keeps(b).unwrap())
            .map(|b| b.base_offset)
            .collect()
    }

    #[test]
    fn an_aborted_transaction_is_dropped_up_to_its_marker_and_markers_are_never_records() {
        let log = vec![
            batch(0, 7, true, Kind::Data(2)), // producer 7's transaction, aborted
            batch(2, 8, true, Kind::Data(1)), // producer 8's, committed, interleaved
            batch(3, 7, true, Kind::Data(1)),
            batch(4, 7, true, Kind::Abort),
            batch(5, 8, true, Kind::Commit),
            batch(6, -1, false, Kind::Data(3)), // not transactional
            batch(9, 7, true, Kind::Data(1)),   // producer 7's next transaction, committed
            batch(10, 7, true, Kind::Commit),
        ];
        assert_eq!(kept(&[(0, 7)], log), [2, 6, 9]);
    }

    #[test]
    fn a_transaction_aborted_after_the_range_read_drops_nothing_before_it() {
        // Producer 7 commits offsets 0-2; the response also lists its transaction aborted
        // from offset 20, past every batch read: nothing here is that transaction's.
        let log = vec![
            batch(0, 7, true, Kind::Data(2)),
            batch(2, 7, true, Kind::Commit),
            batch(3, 7, true, Kind::Data(1)), // its next transaction, still open here
        ];
        assert_eq!(kept(&[(20, 7)], log), [0, 3]);
    }

    #[test]
    fn an_aborted_transaction_of_another_producer_drops_only_that_producers_batches() {
        let log = vec![
            batch(0, 7, true, Kind::Data(1)),
            batch(1, 9, true, Kind::Data(1)),
            batch(2, 9, true, Kind::Abort),
            batch(3, 7, true, Kind::Commit),
        ];
        // The abort of 9 begins at 1: 7's batch before it and the markers are untouched.
        assert_eq!(kept(&[(1, 9)], log), [0]);
    }
}
