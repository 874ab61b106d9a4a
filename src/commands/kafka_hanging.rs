//! `indoubt kafka hanging`: kafka-transactions.sh's find-hanging, telling a hanging
//! transaction (its coordinator will never end it) from a long one it still owns.

mod settings;

use super::kafka_common::{self, format_ms, now_ms};
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::kafka::cluster::{TopicMeta, TopicPartition};
use crate::kafka::conn::BrokerError;
use crate::kafka::transactions::ProducerState;
use crate::metrics::{Family, Measure};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::kafka::HangingSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use crate::verdict::{self, Judgement, Verdict};
use anyhow::Result;
use kafka_protocol::error::ResponseError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct HangingReport {
    max_transaction_timeout_seconds: u64,
    partitions_searched: usize,
    /// Open transactions whose last write is older than the timeout: hanging or long.
    transactions: Vec<OpenTransaction>,
}

#[derive(Debug, Serialize)]
struct OpenTransaction {
    topic: String,
    partition: i32,
    producer_id: i64,
    producer_epoch: i32,
    coordinator_epoch: i32,
    start_offset: i64,
    last_timestamp_ms: i64,
    /// Minutes since the last write, as kafka-transactions.sh prints it.
    duration_minutes: i64,
    /// Since the last write, shown as every other duration is (`4s`, `3h 2m`).
    #[serde(skip)]
    since_last_write: Duration,
    transactional_id: Option<String>,
    coordinator: Option<i32>,
    /// `hanging`: the coordinator will never write a marker here; `long`: it still owns it.
    verdict: Verdict,
    reason: String,
}

/// `kafka hanging` as a probe.
pub(crate) struct KafkaHanging;

static OPEN_PAST_TIMEOUT: Family = Family {
    name: "indoubt_kafka_open_transactions_past_timeout",
    help: "Open transactions whose last write is older than the brokers' transaction.max.timeout.ms, by verdict: hanging (no coordinator will end it: abort it) or long (its coordinator still owns it).",
    labels: &["verdict"],
};
static OLDEST_PAST_TIMEOUT: Family = Family {
    name: "indoubt_kafka_oldest_open_transaction_idle_seconds",
    help: "Seconds since the last write of the oldest such transaction, by verdict; 0: none.",
    labels: &["verdict"],
};

impl Inspect for KafkaHanging {
    type Args = settings::HangingArgs;
    type Settings = HangingSettings;
    type Gathered = HangingSnapshot;
    type Data = HangingReport;
    const NAME: &'static str = "kafka hanging";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Kafka);
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every topic of a cluster", "indoubt kafka hanging -b kafka1:9092"),
            example!("One partition, with the brokers' transaction.max.timeout.ms", "indoubt kafka hanging --kafka prod --topic orders --partition 3 --max-transaction-timeout 15m"),
        ],
        see_also: &["resolve kafka"],
        codes: &[
            codes::BROKER_UNKNOWN,
            codes::HANGING,
            codes::HANGING_TRANSACTION,
            codes::LONG_TRANSACTION,
            codes::PARTITION_UNKNOWN,
            codes::PRODUCERS_UNREADABLE,
            codes::TRANSACTIONS_UNREADABLE,
            codes::TRANSACTION_UNJUDGEABLE,
        ],
    };

    const MEASURES: &'static [&'static Family] = &[&OPEN_PAST_TIMEOUT, &OLDEST_PAST_TIMEOUT];

    fn measures(data: &HangingReport) -> Vec<Measure> {
        let mut out = Vec::new();
        for (verdict, label) in [(Verdict::Hanging, "hanging"), (Verdict::Long, "long")] {
            let of = || {
                data.transactions
                    .iter()
                    .filter(move |t| t.verdict == verdict)
            };
            let oldest = of()
                .map(|t| t.since_last_write.as_secs_f64())
                .fold(0.0_f64, f64::max);
            out.push(
                OPEN_PAST_TIMEOUT
                    .at(of().count() as f64)
                    .label("verdict", label),
            );
            out.push(OLDEST_PAST_TIMEOUT.at(oldest).label("verdict", label));
        }
        out
    }

    fn settings(t: &Targets, thresholds: &Thresholds, args: Self::Args) -> Result<HangingSettings> {
        settings::hanging(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        kafka_common::on_every_cluster(config, &["kafka", "hanging"])
    }

    async fn gather(ctx: &Context, s: &HangingSettings) -> Result<HangingSnapshot> {
        read(ctx, s).await
    }

    fn report(
        ctx: &Context,
        s: &HangingSettings,
        snapshot: HangingSnapshot,
    ) -> Report<HangingReport> {
        report_of(ctx, s, snapshot)
    }
}

/// What the cluster said, read by `read` as kafka-transactions.sh's find-hanging reads
/// it: the I/O half, which [`report_of`] judges.
pub(crate) struct HangingSnapshot {
    pub target: Target,
    /// Topics the metadata named with an error (unknown topic, no access).
    pub topic_errors: BTreeMap<String, BrokerError>,
    pub brokers: BTreeMap<i32, String>,
    pub topics: BTreeMap<String, TopicMeta>,
    /// DescribeProducers of the partitions searched.
    pub producers: BTreeMap<TopicPartition, Result<Vec<ProducerState>>>,
    /// The judgement of the open transactions older than the maximum timeout.
    pub judgement: Judgement,
    /// When the producers were asked (ms): an open transaction's age is counted to it.
    pub read_at_ms: i64,
}

async fn read(ctx: &Context, s: &HangingSettings) -> Result<HangingSnapshot> {
    let named = s.topic.as_ref().map(|t| vec![t.clone()]);
    let (target, cluster) = kafka_common::open(ctx, &s.cluster, named.as_deref()).await?;
    let tps = searched(&cluster.topics, s);
    let read_at_ms = now_ms();
    let producers = cluster.describe_producers(&tps).await;
    // 3. Which transactional id, and 4. does its coordinator still own this partition?
    let judgement = verdict::judge(&cluster, candidates(&producers, s, read_at_ms)).await;
    Ok(HangingSnapshot {
        target,
        topic_errors: cluster.topic_errors.clone(),
        brokers: cluster.brokers.clone(),
        topics: cluster.topics.clone(),
        producers,
        judgement,
        read_at_ms,
    })
}

/// 1. The partitions to search (as the tool: a topic, one partition, or a broker's replicas).
fn searched(topics: &BTreeMap<String, TopicMeta>, s: &HangingSettings) -> Vec<TopicPartition> {
    topics
        .iter()
        .filter(|(name, _)| s.pattern.as_ref().is_none_or(|p| p.is_match(name)))
        .flat_map(|(name, topic)| {
            topic
                .partitions
                .iter()
                .map(move |(p, meta)| (name, *p, meta))
        })
        .filter(|(_, p, meta)| {
            s.partition.is_none_or(|want| want == *p)
                && s.broker_id.is_none_or(|b| meta.replicas.contains(&b))
        })
        .map(|(name, p, _)| (name.clone(), p))
        .collect()
}

/// 2. Open transactions whose last write is older than the maximum transaction timeout.
fn candidates(
    producers: &BTreeMap<TopicPartition, Result<Vec<ProducerState>>>,
    s: &HangingSettings,
    now: i64,
) -> Vec<(TopicPartition, ProducerState)> {
    let max_ms = s.max_transaction_timeout.as_millis().min(i64::MAX as u128) as i64;
    producers
        .iter()
        .filter_map(|(tp, ps)| Some((tp, ps.as_ref().ok()?)))
        .flat_map(|(tp, ps)| {
            ps.iter()
                .filter(|p| {
                    p.current_txn_start_offset >= 0
                        && now.saturating_sub(p.last_timestamp_ms) > max_ms
                })
                .map(|p| (tp.clone(), p.clone()))
        })
        .collect()
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(
    ctx: &Context,
    s: &HangingSettings,
    snapshot: HangingSnapshot,
) -> Report<HangingReport> {
    let max_transaction_timeout = s.max_transaction_timeout;
    let now = snapshot.read_at_ms;
    let target = snapshot.target;
    let mut findings = kafka_common::topic_errors(&snapshot.topic_errors);
    if let Some(b) = s.broker_id {
        if !snapshot.brokers.contains_key(&b) {
            findings.push(Finding::new(
                Severity::Unknown,
                codes::BROKER_UNKNOWN,
                format!("broker {b}"),
                "not in the cluster metadata",
            ));
        }
    }
    let tps = searched(&snapshot.topics, s);
    if let (Some(topic), Some(p)) = (&s.topic, s.partition) {
        if snapshot.topics.contains_key(topic) && tps.is_empty() {
            findings.push(Finding::new(
                Severity::Unknown,
                codes::PARTITION_UNKNOWN,
                format!("partition {topic}-{p}"),
                "does not exist",
            ));
        }
    }
    for (tp, producers) in &snapshot.producers {
        if let Err(e) = producers {
            let finding = Finding::new(
                Severity::Unknown,
                codes::PRODUCERS_UNREADABLE,
                format!("partition {}-{}", tp.0, tp.1),
                format!("{e:#}"),
            );
            // The ACL only when the broker said so: a partition without a leader is not
            // a missing grant.
            let denied = BrokerError::of(e)
                .is_some_and(|b| b.error == ResponseError::TopicAuthorizationFailed);
            findings.push(match denied {
                true => finding.advice("DescribeProducers needs READ on the topic"),
                false => finding,
            });
        }
    }
    let judgement = snapshot.judgement;
    for (subject, message) in judgement.unreadable {
        findings.push(Finding::new(
            Severity::Unknown,
            codes::TRANSACTIONS_UNREADABLE,
            subject,
            message,
        ));
    }
    // Brokers before Kafka 3.0: open past the timeout, and no way to tell more. Graded,
    // not UNKNOWN: asking again would tell no more.
    for (tp, p, why) in &judgement.unjudgeable {
        findings.push(
            Finding::new(
                Severity::Warning,
                codes::TRANSACTION_UNJUDGEABLE,
                format!("partition {}-{}", tp.0, tp.1),
                format!(
                    "producer {} (epoch {}) has a transaction open since offset {}, last write {}: {why}",
                    p.producer_id,
                    p.producer_epoch,
                    p.current_txn_start_offset,
                    format_ms(p.last_timestamp_ms)
                ),
            )
            .evidence("source", "DescribeProducers")
            .evidence("producer_id", p.producer_id)
            .evidence("start_offset", p.current_txn_start_offset)
            .advice("if its producer is gone for good, `indoubt resolve kafka` with --force (next) aborts it: a heuristic, recorded with its reason")
            .next(kafka_common::resolve_next(
                ctx,
                &s.cluster,
                &target,
                (&tp.0, tp.1, p.current_txn_start_offset),
                true,
            )),
        );
    }
    let transactions: Vec<OpenTransaction> = judgement
        .judged
        .into_iter()
        .map(|j| OpenTransaction {
            topic: j.tp.0,
            partition: j.tp.1,
            producer_id: j.producer.producer_id,
            producer_epoch: j.producer.producer_epoch,
            coordinator_epoch: j.producer.coordinator_epoch,
            start_offset: j.producer.current_txn_start_offset,
            last_timestamp_ms: j.producer.last_timestamp_ms,
            duration_minutes: now.saturating_sub(j.producer.last_timestamp_ms).max(0) / 60_000,
            since_last_write: Duration::from_millis(
                now.saturating_sub(j.producer.last_timestamp_ms).max(0) as u64,
            ),
            transactional_id: j.transactional_id,
            coordinator: j.coordinator,
            verdict: j.verdict,
            reason: j.reason,
        })
        .collect();
    for t in &transactions {
        let (severity, code, advice) = match t.verdict {
            Verdict::Hanging => (
                Severity::Critical,
                codes::HANGING_TRANSACTION,
                "no coordinator will end it: abort it with `indoubt resolve kafka` (next; its --dry-run shows the marker it would send, as kafka-transactions.sh abort would)".to_string(),
            ),
            Verdict::Long => (
                Severity::Warning,
                codes::LONG_TRANSACTION,
                "its coordinator will end it at transaction.timeout.ms; find the producer that left it open".to_string(),
            ),
        };
        let finding =
            Finding::new(
                severity,
                code,
                format!("partition {}-{}", t.topic, t.partition),
                format!(
                    "producer {} (epoch {}) has a transaction open since offset {}, last write {} ({} ago): {}",
                    t.producer_id,
                    t.producer_epoch,
                    t.start_offset,
                    format_ms(t.last_timestamp_ms),
                    format_duration(t.since_last_write),
                    t.reason
                ),
            )
                        .evidence("source", "DescribeProducers, ListTransactions, DescribeTransactions")
            .evidence("topic", t.topic.clone())
            .evidence("partition", t.partition)
            .evidence("producer_id", t.producer_id)
            .evidence("producer_epoch", t.producer_epoch)
            .evidence("coordinator_epoch", t.coordinator_epoch)
            .evidence("start_offset", t.start_offset)
            .evidence("transactional_id", t.transactional_id.clone())
            .object(Object::new(ObjectKind::Partition, format!("{}-{}", t.topic, t.partition)))
            .advice(advice);
        findings.push(match t.verdict {
            Verdict::Hanging => finding.next(kafka_common::resolve_next(
                ctx,
                &s.cluster,
                &target,
                (&t.topic, t.partition, t.start_offset),
                false,
            )),
            Verdict::Long => finding,
        });
    }
    if findings.is_empty() {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::HANGING,
                "transactions",
                format!(
                    "no open transaction older than {} in {} partition(s)",
                    format_duration(max_transaction_timeout),
                    tps.len()
                ),
            )
            .evidence("source", "DescribeProducers"),
        );
    }
    Report::new(
        "kafka hanging",
        target,
        findings,
        HangingReport {
            max_transaction_timeout_seconds: max_transaction_timeout.as_secs(),
            partitions_searched: tps.len(),
            transactions,
        },
    )
}

impl TableView for HangingReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.transactions.is_empty() {
            return vec![shown!("{} partition(s) searched", self.partitions_searched)];
        }
        let mut table = style.table(&[
            "VERDICT",
            "PARTITION",
            "PRODUCER",
            "START OFFSET",
            "LAST WRITE",
            "TRANSACTIONAL ID",
            "WHY",
        ]);
        for t in &self.transactions {
            table.add_row(vec![
                Cell::new(match t.verdict {
                    Verdict::Hanging => "HANGING",
                    Verdict::Long => "long",
                }),
                Cell::new(shown!("{}-{}", t.topic, t.partition)),
                Cell::new(shown!(
                    "{} epoch {}\ncoordinator epoch {}",
                    t.producer_id,
                    t.producer_epoch,
                    t.coordinator_epoch
                )),
                Cell::new(t.start_offset),
                Cell::new(shown!(
                    "{}\n{} ago",
                    format_ms(t.last_timestamp_ms),
                    format_duration(t.since_last_write)
                )),
                Cell::new(t.transactional_id.as_deref().unwrap_or("-")),
                Cell::new(&t.reason),
            ]);
        }
        vec![
            table.render(),
            shown!("{} partition(s) searched", self.partitions_searched),
        ]
    }
}

#[cfg(test)]
mod golden;
