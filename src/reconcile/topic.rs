//! The topic side: every partition read with read_committed from the offset for the
//! window's start (less a slack) to the end offsets captured when the run starts, with no
//! consumer group and nothing committed. Raw Fetch requests bring the batches; parser
//! threads decompress them and pick the ids out.

use super::ids::{within_limit, IdFrom, IdList, IdPlace};
use super::spill::Budget;
use crate::kafka::cluster::Cluster;
use crate::kafka::config::ClientConfig;
use crate::kafka::fetch::{self, Range, Work, READ_COMMITTED};
use crate::kafka::records::Record;
use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Batches waiting for each parser. A batch is at most the topic's max.message.bytes
/// (1 MiB by default), so what waits is at most 8 of those per parser: enough to keep a
/// parser busy, and little outside the memory budget while a parser spills (64 queued
/// took 85 MiB past a 512 MiB budget at 100M ids; 8 take 34 MiB, and no time).
const QUEUED_BATCHES: usize = 8;

/// A message, for an error: "the message at partition 2 offset 17".
fn message(partition: i32, offset: i64) -> String {
    format!("the message at partition {partition} offset {offset}")
}

/// Retention deleted messages of a partition between the run's first look at its log
/// start and the search for the window's start: that start may have been among them.
#[derive(Debug)]
pub struct RetentionCut {
    pub topic: String,
    pub partition: i32,
    /// The log start when the topic was opened, and now.
    pub then: i64,
    pub now: i64,
}

impl std::fmt::Display for RetentionCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "retention deleted messages of {}-{} as the run began (log start {} → {}): the window's start may be among them",
            self.topic, self.partition, self.then, self.now
        )
    }
}

impl std::error::Error for RetentionCut {}

#[derive(Debug, Clone, Serialize)]
pub struct Unparseable {
    pub partition: i32,
    pub offset: i64,
    pub why: String,
}

pub struct TopicSide {
    /// Ids of messages timestamped inside the window.
    pub window: IdList,
    /// Ids of the other messages read (the slack before the window, and after it).
    pub outside: IdList,
    pub messages: u64,
    pub unparseable: Vec<Unparseable>,
    pub partitions: usize,
}

#[derive(Clone)]
pub struct Window {
    pub since_ms: i64,
    pub until_ms: i64,
    pub slack: Duration,
}

/// A partition whose last stable offset is behind its high watermark when the run
/// starts: the messages past the LSO cannot be read with read_committed (an open
/// transaction pins it), so the rows they name cannot be judged.
#[derive(Debug, Clone, Serialize)]
pub struct Unstable {
    pub partition: i32,
    pub last_stable_offset: i64,
    pub high_watermark: i64,
    /// The producer whose open transaction starts at the LSO (DescribeProducers), when
    /// the broker named one.
    pub producer_id: Option<i64>,
    pub producer_epoch: Option<i32>,
    /// When the first record at the LSO was written.
    pub first_unstable_at_ms: Option<i64>,
    /// Messages read (read_uncommitted) from the LSO to the high watermark.
    pub messages_past_lso: u64,
}

/// A topic opened for reading: its partitions, the end offsets captured now (last stable
/// offsets: whatever is written from here on is not ours to wait for), and what it still
/// holds of its past.
pub struct Topic {
    cluster: Cluster,
    name: String,
    tps: Vec<(String, i32)>,
    ends: BTreeMap<i32, i64>,
    /// Each partition's log start offset when the topic was opened.
    log_starts: BTreeMap<i32, i64>,
    /// (partition, time of its first kept message) for each partition whose start was
    /// deleted (retention, DeleteRecords) and that still holds messages.
    pub first_kept: Vec<(i32, i64)>,
    /// Partitions whose every message was deleted.
    pub emptied: Vec<i32>,
    /// The topic's retention.ms, retention.bytes and cleanup.policy, when DescribeConfigs
    /// answered.
    pub retention_ms: Option<i64>,
    pub retention_bytes: Option<i64>,
    pub cleanup_policy: Option<String>,
    /// Why the configs are unknown, when they are.
    pub config_error: Option<String>,
    /// Partitions whose LSO is behind the high watermark, by partition.
    pub unstable: Vec<Unstable>,
}

impl Topic {
    /// Each partition's end offset as captured when opened (its last stable offset).
    pub fn ends(&self) -> &BTreeMap<i32, i64> {
        &self.ends
    }

    /// A time no deleted message is newer than (assuming timestamps rise with offsets),
    /// per partition that lost messages: the first kept message's time; for an emptied
    /// partition, now − retention.ms when only time deletes (Kafka deletes a segment only
    /// once its newest message is older than that), else None: nothing bounds it.
    pub fn deleted_before(&self, now_ms: i64) -> Vec<(i32, Option<i64>)> {
        let deletes = self
            .cleanup_policy
            .as_deref()
            .is_some_and(|p| p.split(',').any(|v| v.trim() == "delete"));
        let by_time = self
            .retention_ms
            .filter(|ms| *ms >= 0 && deletes && self.retention_bytes == Some(-1))
            .map(|ms| now_ms.saturating_sub(ms));
        self.first_kept
            .iter()
            .map(|(p, ms)| (*p, Some(*ms)))
            .chain(self.emptied.iter().map(|p| (*p, by_time)))
            .collect()
    }
}

/// Connects, captures the end offsets, and learns what each partition still holds: its
/// log start and first kept message, and the topic's retention and cleanup policy.
pub async fn open(client: &ClientConfig, topic: &str, timeout: Duration) -> Result<Topic> {
    let cluster = Cluster::connect(client, Some(&[topic.to_string()]), timeout).await?;
    if let Some(error) = cluster.topic_errors.get(topic) {
        return Err(anyhow!("topic {topic} cannot be read: {}", error.name()));
    }
    let tps: Vec<(String, i32)> = cluster
        .topics
        .get(topic)
        .map(|t| {
            t.partitions
                .keys()
                .map(|p| (topic.to_string(), *p))
                .collect()
        })
        .unwrap_or_default();
    if tps.is_empty() {
        return Err(anyhow!(
            "topic {topic} does not exist or may not be described"
        ));
    }
    let (mut offsets, starts, config) = tokio::join!(
        cluster.watermarks(&tps),
        log_starts(&cluster, &tps),
        cluster.topic_config(
            topic,
            &["retention.ms", "retention.bytes", "cleanup.policy"]
        )
    );
    let log_starts = starts?;
    let mut ends = BTreeMap::new();
    let mut trimmed = Vec::new();
    let mut emptied = Vec::new();
    let mut pinned = Vec::new();
    for tp in &tps {
        // The failure kept whole: a hint on it (a broker that cannot be reached) is shown.
        let (high, stable) = offsets
            .remove(tp)
            .unwrap_or_else(|| Err(anyhow!("ListOffsets: no offsets returned")))
            .with_context(|| format!("reading the end of {topic}-{}", tp.1))?;
        ends.insert(tp.1, stable);
        if stable < high {
            pinned.push((tp.clone(), stable, high));
        }
        let start = log_starts[&tp.1];
        if start > 0 && start < high {
            trimmed.push((tp.clone(), start));
        } else if start > 0 {
            emptied.push(tp.1);
        }
    }
    let first_times = futures_util::future::join_all(
        trimmed
            .iter()
            .map(|(tp, start)| cluster.record_timestamp(tp, *start)),
    )
    .await;
    let mut first_kept = Vec::new();
    for ((tp, start), time) in trimmed.iter().zip(first_times) {
        let lost = |why: String| {
            anyhow!(
                "reading the first kept message of {topic}-{} (log start {start}): {why}; it bounds which rows can be judged",
                tp.1
            )
        };
        match time {
            Ok(Some(ms)) => first_kept.push((tp.1, ms)),
            Ok(None) => return Err(lost("the broker returned no record there".into())),
            Err(e) => return Err(lost(format!("{e:#}"))),
        }
    }
    let unstable = unstable(&cluster, pinned).await;
    let (config, config_error) = match config {
        Ok(config) => (config, None),
        Err(e) => (BTreeMap::new(), Some(format!("{e:#}"))),
    };
    let value = |key: &str| config.get(key).cloned().flatten();
    Ok(Topic {
        cluster,
        name: topic.to_string(),
        tps,
        ends,
        log_starts,
        first_kept,
        emptied,
        retention_ms: value("retention.ms").and_then(|v| v.parse().ok()),
        retention_bytes: value("retention.bytes").and_then(|v| v.parse().ok()),
        cleanup_policy: value("cleanup.policy"),
        config_error,
        unstable,
    })
}

/// For each partition whose LSO is behind its high watermark: the producer holding it,
/// where the broker says (evidence only: what bounds the comparison is the offsets).
async fn unstable(cluster: &Cluster, pinned: Vec<((String, i32), i64, i64)>) -> Vec<Unstable> {
    if pinned.is_empty() {
        return Vec::new();
    }
    let tps: Vec<(String, i32)> = pinned.iter().map(|(tp, _, _)| tp.clone()).collect();
    let producers = cluster.describe_producers(&tps).await;
    pinned
        .into_iter()
        .map(|(tp, lso, high)| {
            // Only the producer whose open transaction starts at the LSO pins it.
            let holder = producers
                .get(&tp)
                .and_then(|r| r.as_ref().ok())
                .and_then(|ps| ps.iter().find(|p| p.current_txn_start_offset == lso));
            Unstable {
                partition: tp.1,
                last_stable_offset: lso,
                high_watermark: high,
                producer_id: holder.map(|h| h.producer_id),
                producer_epoch: holder.map(|h| h.producer_epoch),
                first_unstable_at_ms: None,
                messages_past_lso: 0,
            }
        })
        .collect()
}

/// What lies past the last stable offsets: the ids of every message from each unstable
/// partition's LSO to its high watermark, read with read_uncommitted. Committed, aborted
/// or still open, they cannot be told apart until the LSO moves; the rows they name are
/// neither missing nor matched. Messages without an id are unparseable, as before the LSO.
pub struct PastLso {
    pub ids: IdList,
    pub partitions: Vec<Unstable>,
    pub unparseable: Vec<Unparseable>,
}

pub async fn read_past_lso(
    topic: &Topic,
    id_from: &IdFrom,
    budget: &Arc<Budget>,
) -> Result<PastLso> {
    let mut past = PastLso {
        ids: IdList::new(budget),
        partitions: Vec::new(),
        unparseable: Vec::new(),
    };
    for unstable in &topic.unstable {
        let mut partition = unstable.clone();
        let tp = (topic.name.clone(), unstable.partition);
        topic
            .cluster
            .read_uncommitted(
                &tp,
                unstable.last_stable_offset,
                unstable.high_watermark,
                |record: &Record| {
                    partition.first_unstable_at_ms.get_or_insert(record.timestamp);
                    partition.messages_past_lso += 1;
                    match id_from.extract(record.key, |name| record.header(name), record.value) {
                        Ok(id) => {
                            within_limit(&id, || IdPlace::Message {
                                which: message(tp.1, record.offset),
                            })?;
                            past.ids.push(&id)?
                        }
                        Err(why) => past.unparseable.push(Unparseable {
                            partition: tp.1,
                            offset: record.offset,
                            why,
                        }),
                    }
                    Ok(())
                },
            )
            .await
            .with_context(|| {
                format!(
                    "reading {}-{} past its last stable offset {} (to the high watermark {}): the rows it names cannot be judged without it",
                    tp.0, tp.1, unstable.last_stable_offset, unstable.high_watermark
                )
            })?;
        past.partitions.push(partition);
    }
    Ok(past)
}

/// Each partition's log start offset (ListOffsets with timestamp -2).
async fn log_starts(cluster: &Cluster, tps: &[(String, i32)]) -> Result<BTreeMap<i32, i64>> {
    cluster
        .list_offsets(tps, READ_COMMITTED, -2)
        .await
        .into_iter()
        .map(|(tp, start)| {
            start
                .map(|s| (tp.1, s))
                .with_context(|| format!("reading the log start of {}-{}", tp.0, tp.1))
        })
        .collect()
}

/// Reads the window's messages from every partition; `progress` gets the running count.
pub async fn read(
    topic: &Topic,
    id_from: &IdFrom,
    window: &Window,
    timeout: Duration,
    budget: &Arc<Budget>,
    progress: &(dyn Fn(u64) + Sync),
    note: &(dyn Fn(String) + Sync),
) -> Result<TopicSide> {
    let (cluster, tps, name) = (&topic.cluster, &topic.tps, topic.name.as_str());
    // Never below 0: -1, -2 and -3 ask ListOffsets for other things than a time.
    let start_ms = (window.since_ms - window.slack.as_millis() as i64).max(0);
    // The log starts after the window's starts: a start found at a log start that then
    // stays put was not cut (asked at once, a move in between would go unseen).
    let mut starts = cluster.list_offsets(tps, READ_COMMITTED, start_ms).await;
    let log_starts_now = log_starts(cluster, tps).await?;
    let mut ranges = Vec::new();
    for tp in tps {
        let end = topic.ends[&tp.1];
        let start = starts
            .remove(tp)
            .unwrap_or_else(|| Err(anyhow!("ListOffsets: no offset returned")))
            .with_context(|| {
                format!(
                    "finding the offset for the window's start in {name}-{}",
                    tp.1
                )
            })?;
        let (then, now) = (topic.log_starts[&tp.1], log_starts_now[&tp.1]);
        // -1: no message at or after the time, so nothing to read here (nor to lose).
        let cut = start >= 0 && now > then && start <= now;
        let start = if start < 0 { end } else { start };
        if cut {
            return Err(RetentionCut {
                topic: name.to_string(),
                partition: tp.1,
                then,
                now,
            }
            .into());
        }
        ranges.push(Range {
            partition: tp.1,
            start,
            end,
        });
    }

    read_ranges(
        topic, id_from, window, ranges, timeout, budget, progress, note,
    )
    .await
}

/// Reads `ranges` of the topic's partitions (read_committed), the ids sorted into the
/// window's and the others by `window`.
#[allow(clippy::too_many_arguments)]
async fn read_ranges(
    topic: &Topic,
    id_from: &IdFrom,
    window: &Window,
    ranges: Vec<Range>,
    timeout: Duration,
    budget: &Arc<Budget>,
    progress: &(dyn Fn(u64) + Sync),
    note: &(dyn Fn(String) + Sync),
) -> Result<TopicSide> {
    let (cluster, tps, name) = (&topic.cluster, &topic.tps, topic.name.as_str());
    // Parsers on the blocking pool, one per core; past 8 the fetches, not the parsing,
    // set the pace. The fetches stay on this task.
    let parsers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let read = Arc::new(AtomicU64::new(0));
    let mut sinks = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..parsers {
        let (sink, mut queue) = tokio::sync::mpsc::channel::<Work>(QUEUED_BATCHES);
        sinks.push(sink);
        let (id_from, window, read) = (id_from.clone(), window.clone(), read.clone());
        let budget = budget.clone();
        handles.push(tokio::task::spawn_blocking(move || {
            let mut side = TopicSide::empty(0, &budget);
            while let Some(work) = queue.blocking_recv() {
                let before = side.messages;
                side.take(&work, &id_from, &window)?;
                read.fetch_add(side.messages - before, Ordering::Relaxed);
            }
            Ok::<_, anyhow::Error>(side)
        }));
    }
    note(format!(
        "reading {} partition(s) of {name} from broker(s) {}",
        ranges.len(),
        leaders_of(cluster, name)
    ));
    let fetched = fetch::read_committed(
        cluster,
        name,
        &ranges,
        timeout,
        &sinks,
        &|| progress(read.load(Ordering::Relaxed)),
        note,
    )
    .await;
    drop(sinks);
    let mut side = TopicSide::empty(tps.len(), budget);
    // A parser's own error first: the fetch side then only knows that a parser stopped.
    let mut failure = None;
    for handle in handles {
        match handle
            .await
            .map_err(|e| anyhow!("a record parser panicked: {e}"))?
        {
            Ok(part) => side.merge(part),
            Err(e) => failure = failure.or(Some(e)),
        }
    }
    if let Some(e) = failure.or(fetched.err()) {
        return Err(e.context(format!("reading {name}")));
    }
    progress(side.messages);
    side.unparseable.sort_by_key(|u| (u.partition, u.offset));
    Ok(side)
}

/// The leaders of the topic's partitions, as the first metadata named them: "1, 2".
fn leaders_of(cluster: &Cluster, topic: &str) -> String {
    let leaders: std::collections::BTreeSet<i32> = cluster
        .topics
        .get(topic)
        .map(|t| t.partitions.values().map(|p| p.leader).collect())
        .unwrap_or_default();
    leaders
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl TopicSide {
    fn empty(partitions: usize, budget: &Arc<Budget>) -> TopicSide {
        TopicSide {
            window: IdList::new(budget),
            outside: IdList::new(budget),
            messages: 0,
            unparseable: Vec::new(),
            partitions,
        }
    }

    fn merge(&mut self, part: TopicSide) {
        self.window.append(part.window);
        self.outside.append(part.outside);
        self.messages += part.messages;
        self.unparseable.extend(part.unparseable);
    }

    /// The records of one batch that lie in `from..end`.
    fn take(&mut self, work: &Work, id_from: &IdFrom, window: &Window) -> Result<()> {
        work.batch
            .for_each_record(|record: &Record| {
                if record.offset < work.from || record.offset >= work.end {
                    return Ok(());
                }
                self.messages += 1;
                match id_from.extract(record.key, |name| record.header(name), record.value) {
                    Ok(id) => {
                        within_limit(&id, || IdPlace::Message {
                            which: message(work.partition, record.offset),
                        })?;
                        if record.timestamp >= window.since_ms && record.timestamp < window.until_ms
                        {
                            self.window.push(&id)?;
                        } else {
                            self.outside.push(&id)?;
                        }
                    }
                    Err(why) => self.unparseable.push(Unparseable {
                        partition: work.partition,
                        offset: record.offset,
                        why,
                    }),
                }
                Ok(())
            })
            .with_context(|| format!("partition {}", work.partition))
    }
}

/// Where a look for ids starts in each partition.
#[derive(Debug, Clone)]
pub enum Since {
    /// The first message at or after this time (ms).
    Time(i64),
    /// These offsets (where an earlier look ended); a partition not named from its start.
    Offsets(BTreeMap<i32, i64>),
}

/// Which of some ids a topic names.
#[derive(Debug, Default)]
pub struct Found {
    /// Named by a message up to a last stable offset (read_committed): published.
    pub seen: std::collections::HashSet<String>,
    /// Named by a message past a last stable offset (a transaction still open, or not yet
    /// known to be decided): neither published nor not.
    pub past_lso: std::collections::HashSet<String>,
    /// Where this look ended in each partition (the last stable offsets it read to).
    pub ends: BTreeMap<i32, i64>,
}

/// Which of `ids` the topic names from `since` to its last stable offsets now, and which
/// are named past them. What it reads is bounded by `budget` as a comparison's ids are.
pub async fn find(
    topic: &Topic,
    id_from: &IdFrom,
    since: &Since,
    ids: &std::collections::HashSet<String>,
    timeout: Duration,
    budget: &Arc<Budget>,
) -> Result<Found> {
    let everything = Window {
        since_ms: 0,
        until_ms: i64::MAX,
        slack: Duration::ZERO,
    };
    let quiet = |_: u64| {};
    let no_note = |_: String| {};
    let side = match since {
        Since::Time(ms) => {
            let window = Window {
                since_ms: *ms,
                ..everything.clone()
            };
            read(topic, id_from, &window, timeout, budget, &quiet, &no_note).await?
        }
        Since::Offsets(starts) => {
            let ranges = topic
                .tps
                .iter()
                .map(|(_, p)| Range {
                    partition: *p,
                    // Past what retention deleted since: that part was read before.
                    start: starts
                        .get(p)
                        .copied()
                        .unwrap_or(0)
                        .max(topic.log_starts[p])
                        .min(topic.ends[p]),
                    end: topic.ends[p],
                })
                .collect();
            read_ranges(
                topic,
                id_from,
                &everything,
                ranges,
                timeout,
                budget,
                &quiet,
                &no_note,
            )
            .await?
        }
    };
    let past = read_past_lso(topic, id_from, budget).await?;
    let mut found = Found {
        ends: topic.ends.clone(),
        ..Found::default()
    };
    for list in [side.window, side.outside] {
        members(list, ids, &mut found.seen)?;
    }
    members(past.ids, ids, &mut found.past_lso)?;
    Ok(found)
}

/// Adds to `out` the members of `ids` that `list` holds.
fn members(
    list: IdList,
    ids: &std::collections::HashSet<String>,
    out: &mut std::collections::HashSet<String>,
) -> Result<()> {
    let (mut numbers, mut texts) = list.into_sorted()?;
    while let Some(n) = numbers.pop()? {
        let n = n.to_string();
        if ids.contains(&n) {
            out.insert(n);
        }
    }
    while let Some(t) = texts.pop()? {
        if ids.contains(&*t) {
            out.insert(t.into());
        }
    }
    Ok(())
}
