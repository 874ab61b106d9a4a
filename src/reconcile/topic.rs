//! The topic side: every partition read with read_committed from the offset for the
//! window's start (less a slack) to the end offsets captured when the run starts, with no
//! consumer group and nothing committed.

use super::ids::{IdFrom, IdList};
use crate::kafka::target::KafkaTarget;
use anyhow::{anyhow, Context, Result};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Serialize)]
pub struct Unparseable {
    pub partition: i32,
    pub offset: i64,
    pub why: String,
}

pub struct TopicSide {
    /// Ids of messages timestamped inside the window.
    pub window: IdList,
    /// Ids of every message read (window and slack).
    pub all: IdList,
    pub messages: u64,
    pub unparseable: Vec<Unparseable>,
    pub partitions: usize,
}

pub struct Window {
    pub since_ms: i64,
    pub until_ms: i64,
    pub slack: Duration,
}

fn consumer(target: &KafkaTarget) -> Result<BaseConsumer> {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", target.bootstrap.join(","))
        // assign() joins no group; the id only satisfies librdkafka, and nothing is committed.
        .set(
            "group.id",
            format!("indoubt-reconcile-{}", std::process::id()),
        )
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("isolation.level", "read_committed")
        .set("enable.partition.eof", "true")
        // Bounded prefetch: librdkafka's defaults queue up to 64 MB and 100k messages.
        .set("queued.max.messages.kbytes", "16384")
        .set("queued.min.messages", "20000");
    for (k, v) in &target.properties {
        config.set(k, v);
    }
    config.create().context("creating the Kafka consumer")
}

/// Reads the window's messages from every partition; `progress` gets the running count.
pub fn read(
    target: &KafkaTarget,
    topic: &str,
    id_from: &IdFrom,
    window: &Window,
    timeout: Duration,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TopicSide> {
    let consumer = consumer(target)?;
    let metadata = consumer
        .fetch_metadata(Some(topic), timeout)
        .with_context(|| format!("reading the metadata of topic {topic}"))?;
    let partitions: Vec<i32> = metadata
        .topics()
        .first()
        .filter(|t| t.error().is_none())
        .map(|t| t.partitions().iter().map(|p| p.id()).collect())
        .ok_or_else(|| anyhow!("topic {topic} does not exist or may not be described"))?;
    if partitions.is_empty() {
        return Err(anyhow!(
            "topic {topic} does not exist or may not be described"
        ));
    }
    // Ends first: whatever is written while we read is not ours to wait for.
    let mut ends = BTreeMap::new();
    for p in &partitions {
        let (_, lso) = consumer
            .fetch_watermarks(topic, *p, timeout)
            .with_context(|| format!("reading the end of {topic}-{p}"))?;
        ends.insert(*p, lso);
    }
    let start_ms = window.since_ms - window.slack.as_millis() as i64;
    let mut wanted = TopicPartitionList::new();
    for p in &partitions {
        wanted
            .add_partition_offset(topic, *p, Offset::Offset(start_ms))
            .map_err(|e| anyhow!("{e}"))?;
    }
    let starts = consumer
        .offsets_for_times(wanted, timeout)
        .context("finding the offsets for the window's start")?;
    let mut ranges = Vec::new();
    for element in starts.elements() {
        let end = ends.get(&element.partition()).copied().unwrap_or(0);
        let start = match element.offset() {
            Offset::Offset(o) => o,
            _ => end, // no message at or after the time: nothing to read here
        };
        if start < end {
            ranges.push((element.partition(), start, end));
        }
    }
    drop(consumer);
    // Two consumers, each with its own share of the partitions: the id work and
    // librdkafka's own work then use both cores.
    let total = std::sync::atomic::AtomicU64::new(0);
    let shares: Vec<Vec<(i32, i64, i64)>> = (0..2)
        .map(|k| ranges.iter().skip(k).step_by(2).copied().collect())
        .collect();
    let results: Vec<Result<TopicSide>> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .iter()
            .filter(|share| !share.is_empty())
            .map(|share| {
                let total = &total;
                scope.spawn(move || {
                    consume(target, topic, share, id_from, window, timeout, &|delta| {
                        progress(
                            total.fetch_add(delta, std::sync::atomic::Ordering::Relaxed) + delta,
                        )
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("a topic reader thread panicked")))
            })
            .collect()
    });
    let mut side = TopicSide {
        window: IdList::default(),
        all: IdList::default(),
        messages: 0,
        unparseable: Vec::new(),
        partitions: partitions.len(),
    };
    for part in results {
        let part = part?;
        side.window.append(part.window);
        side.all.append(part.all);
        side.messages += part.messages;
        side.unparseable.extend(part.unparseable);
    }
    side.unparseable.sort_by_key(|u| (u.partition, u.offset));
    Ok(side)
}

/// Reads `ranges` (partition, first offset, end offset) with a consumer of its own;
/// `progress` gets the messages read since its last call.
fn consume(
    target: &KafkaTarget,
    topic: &str,
    ranges: &[(i32, i64, i64)],
    id_from: &IdFrom,
    window: &Window,
    timeout: Duration,
    progress: &dyn Fn(u64),
) -> Result<TopicSide> {
    let consumer = consumer(target)?;
    let mut assignment = TopicPartitionList::new();
    let mut remaining = BTreeMap::new();
    for &(partition, start, end) in ranges {
        assignment
            .add_partition_offset(topic, partition, Offset::Offset(start))
            .map_err(|e| anyhow!("{e}"))?;
        remaining.insert(partition, end);
    }
    let mut side = TopicSide {
        window: IdList::default(),
        all: IdList::default(),
        messages: 0,
        unparseable: Vec::new(),
        partitions: ranges.len(),
    };
    let mut reported = 0;
    consumer
        .assign(&assignment)
        .context("assigning the partitions")?;
    let mut last_progress = Instant::now();
    let mut idle_since = Instant::now();
    while !remaining.is_empty() {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(message)) => {
                idle_since = Instant::now();
                let partition = message.partition();
                let offset = message.offset();
                let Some(&end) = remaining.get(&partition) else {
                    continue;
                };
                if offset >= end {
                    remaining.remove(&partition);
                    continue;
                }
                side.messages += 1;
                let header = |name: &str| {
                    message
                        .headers()
                        .and_then(|h| h.iter().find(|h| h.key == name).and_then(|h| h.value))
                };
                match id_from.extract(message.key(), header, message.payload()) {
                    Ok(id) => {
                        let at = message.timestamp().to_millis().unwrap_or(window.since_ms);
                        if at >= window.since_ms && at < window.until_ms {
                            side.window.push(&id);
                        }
                        side.all.push(&id);
                    }
                    Err(why) => side.unparseable.push(Unparseable {
                        partition,
                        offset,
                        why,
                    }),
                }
                if offset + 1 >= end {
                    remaining.remove(&partition);
                }
                if last_progress.elapsed() > Duration::from_millis(200) {
                    progress(side.messages - reported);
                    reported = side.messages;
                    last_progress = Instant::now();
                }
            }
            Some(Err(rdkafka::error::KafkaError::PartitionEOF(p))) => {
                // read_committed stops at the LSO: aborted records and markers fill the rest.
                remaining.remove(&p);
            }
            Some(Err(e)) => return Err(anyhow!("consuming {topic}: {e}")),
            None => {
                if idle_since.elapsed() > timeout {
                    return Err(anyhow!(
                        "no message from {topic} within {} while {} partition(s) were not at their end",
                        crate::units::format_duration(timeout),
                        remaining.len()
                    ));
                }
            }
        }
    }
    progress(side.messages - reported);
    Ok(side)
}
