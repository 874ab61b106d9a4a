//! `indoubt kafka lso`: where read_committed consumers are stuck, by how much, since when, and why.

mod settings;

use super::kafka_common::{self, format_ms, now_ms};
use crate::cli::CheckKind;
use crate::codes;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Object, ObjectKind, Severity};
use crate::kafka::cluster::TopicPartition;
use crate::kafka::conn::BrokerError;
use crate::kafka::transactions::ProducerState;
use crate::metrics::{Family, Measure};
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::kafka::LsoSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::targets::Targets;
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use crate::verdict::{self, Judgement, Verdict};
use anyhow::Result;
use futures_util::future::join_all;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct LsoReport {
    thresholds: Thresholds,
    /// Partitions read; those with a gap are listed in `partitions`.
    partitions_checked: usize,
    /// Partitions whose LSO is behind the high watermark, worst first.
    partitions: Vec<PartitionLso>,
}

#[derive(Debug, Clone, Copy, Serialize)]
struct Thresholds {
    warning_age_seconds: u64,
    critical_age_seconds: u64,
    warning_gap: u64,
    critical_gap: u64,
}

#[derive(Debug, Serialize)]
struct PartitionLso {
    topic: String,
    partition: i32,
    high_watermark: i64,
    last_stable_offset: i64,
    /// Offsets read_committed consumers cannot read yet (records and markers, not messages).
    gap: i64,
    /// The open transaction that pins the LSO: its first offset and producer (DescribeProducers).
    open_txn_start_offset: Option<i64>,
    producer_id: Option<i64>,
    producer_epoch: Option<i32>,
    /// When the first unstable record was written (the batch at the LSO).
    first_unstable_at_ms: Option<i64>,
    stuck_seconds: Option<f64>,
    transactional_id: Option<String>,
    /// `kafka hanging`'s verdict on the open transaction: hanging (its coordinator will
    /// never end it) or long (the coordinator owns it); null when it could not be judged.
    verdict: Option<Verdict>,
    /// Why that verdict, or why none.
    verdict_reason: Option<String>,
    /// No verdict because the brokers are too old to give one (before Kafka 3.0): only
    /// then does `resolve kafka --force` act without one.
    #[serde(skip)]
    forcible: bool,
    /// When the first unstable record was written could not be read (not: there is none).
    #[serde(skip)]
    age_unread: bool,
    severity: Severity,
}

/// `kafka lso` as a probe.
pub(crate) struct KafkaLso;

static LSO_PARTITIONS_CHECKED: Family = Family {
    name: "indoubt_kafka_lso_partitions_checked",
    help: "Partitions whose last stable offset was read.",
    labels: &[],
};
static LSO_GAP: Family = Family {
    name: "indoubt_kafka_lso_gap_offsets",
    help: "Offsets between a partition's last stable offset and its high watermark, for partitions with a gap (none: no series).",
    labels: &["topic", "partition"],
};
static LSO_STUCK: Family = Family {
    name: "indoubt_kafka_lso_stuck_seconds",
    help: "How long ago the first unstable record of a partition with a gap was written (when it could be read).",
    labels: &["topic", "partition"],
};
static LSO_MAX_GAP: Family = Family {
    name: "indoubt_kafka_lso_max_gap_offsets",
    help: "The largest LSO gap among the partitions checked (0: none).",
    labels: &[],
};
static LSO_MAX_STUCK: Family = Family {
    name: "indoubt_kafka_lso_max_stuck_seconds",
    help: "The longest an LSO has been stuck among the partitions checked (0: none).",
    labels: &[],
};

impl Inspect for KafkaLso {
    type Args = settings::LsoArgs;
    type Settings = LsoSettings;
    type Gathered = LsoSnapshot;
    type Data = LsoReport;
    const NAME: &'static str = "kafka lso";
    const SELECTION: Option<CheckKind> = Some(CheckKind::Kafka);
    const MEASURES: &'static [&'static Family] = &[
        &LSO_PARTITIONS_CHECKED,
        &LSO_GAP,
        &LSO_STUCK,
        &LSO_MAX_GAP,
        &LSO_MAX_STUCK,
    ];
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Every partition of a cluster", "indoubt kafka lso -b kafka1:9092"),
            example!("One topic of a config target, another gap threshold", "indoubt kafka lso --kafka prod --topic orders --critical-gap 500k"),
            example!("SASL over TLS, the secrets in a properties file", "indoubt kafka lso -b kafka1:9094 --command-config client.properties"),
        ],
        see_also: &["resolve kafka"],
        codes: &[
            codes::LSO,
            codes::LSO_GAP,
            codes::LSO_GAP_UNEXPLAINED,
            codes::LSO_UNREADABLE,
            codes::TRANSACTIONS_UNREADABLE,
        ],
    };

    fn measures(data: &LsoReport) -> Vec<Measure> {
        let mut out = vec![
            LSO_PARTITIONS_CHECKED.at(data.partitions_checked as f64),
            LSO_MAX_GAP.at(data.partitions.iter().map(|p| p.gap).max().unwrap_or(0) as f64),
            LSO_MAX_STUCK.at(data
                .partitions
                .iter()
                .filter_map(|p| p.stuck_seconds)
                .fold(0.0, f64::max)),
        ];
        for p in &data.partitions {
            let named = |m: Measure| {
                m.label("topic", crate::text::escape(&p.topic))
                    .label("partition", p.partition.to_string())
            };
            out.push(named(LSO_GAP.at(p.gap as f64)));
            if let Some(stuck) = p.stuck_seconds {
                out.push(named(LSO_STUCK.at(stuck)));
            }
        }
        out
    }

    fn settings(
        t: &Targets,
        thresholds: &crate::settings::Thresholds,
        args: Self::Args,
    ) -> Result<LsoSettings> {
        settings::lso(t, thresholds, args)
    }

    fn plan(config: &Config) -> Vec<(String, Vec<String>)> {
        kafka_common::on_every_cluster(config, &["kafka", "lso"])
    }

    async fn gather(ctx: &Context, s: &LsoSettings) -> Result<LsoSnapshot> {
        read(ctx, s).await
    }

    fn report(ctx: &Context, s: &LsoSettings, snapshot: LsoSnapshot) -> Report<LsoReport> {
        report_of(ctx, s, snapshot)
    }
}

/// What the cluster said about the partitions `kafka lso` reads: the I/O half, which
/// [`report_of`] judges.
pub(crate) struct LsoSnapshot {
    pub target: Target,
    /// Topics the metadata named with an error (unknown topic, no access).
    pub topic_errors: BTreeMap<String, BrokerError>,
    /// The partitions read: the named topics' or the pattern's.
    pub partitions: Vec<TopicPartition>,
    /// (high watermark, LSO) of each partition read.
    pub watermarks: BTreeMap<TopicPartition, Result<(i64, i64)>>,
    /// DescribeProducers of the partitions with a gap.
    pub producers: BTreeMap<TopicPartition, Result<Vec<ProducerState>>>,
    /// When the record at each gap's LSO was written (Fetch; None: no such record).
    pub first_unstable_at_ms: BTreeMap<TopicPartition, Result<Option<i64>>>,
    /// `kafka hanging`'s judgement of the producers holding an LSO.
    pub judgement: Judgement,
    /// When it was read (ms): how long each gap is stuck is counted to it.
    pub read_at_ms: i64,
}

async fn read(ctx: &Context, s: &LsoSettings) -> Result<LsoSnapshot> {
    let pattern = &s.pattern;
    let named = (!s.topics.is_empty()).then_some(s.topics.as_slice());
    let (target, cluster) = kafka_common::open(ctx, &s.cluster, named).await?;
    let partitions: Vec<TopicPartition> = cluster
        .topics
        .iter()
        .filter(|(name, _)| pattern.as_ref().is_none_or(|p| p.is_match(name)))
        .flat_map(|(name, topic)| topic.partitions.keys().map(move |p| (name.clone(), *p)))
        .collect();
    let watermarks = cluster.watermarks(&partitions).await;
    let gaps = gaps(&watermarks);
    let tps: Vec<TopicPartition> = gaps.iter().map(|(tp, _, _)| tp.clone()).collect();
    let producers = cluster.describe_producers(&tps).await;
    let timestamps = join_all(
        gaps.iter()
            .map(|(tp, _, lso)| cluster.record_timestamp(tp, *lso)),
    )
    .await;
    let holders: Vec<(TopicPartition, ProducerState)> = gaps
        .iter()
        .filter_map(|(tp, _, lso)| Some((tp.clone(), holder(&producers, tp, *lso)?.clone())))
        .collect();
    // The same judgement as `kafka hanging`, so the advice says whether it ends by itself.
    let judgement = verdict::judge(&cluster, holders).await;
    Ok(LsoSnapshot {
        target,
        topic_errors: cluster.topic_errors.clone(),
        partitions,
        watermarks,
        producers,
        first_unstable_at_ms: tps.into_iter().zip(timestamps).collect(),
        judgement,
        read_at_ms: now_ms(),
    })
}

/// The partitions whose LSO is behind the high watermark: (partition, high watermark, LSO).
fn gaps(
    watermarks: &BTreeMap<TopicPartition, Result<(i64, i64)>>,
) -> Vec<(TopicPartition, i64, i64)> {
    watermarks
        .iter()
        .filter_map(|(tp, w)| match w {
            Ok((hw, lso)) if hw > lso => Some((tp.clone(), *hw, *lso)),
            _ => None,
        })
        .collect()
}

/// Only the producer whose open transaction starts at the LSO pins it.
fn holder<'a>(
    producers: &'a BTreeMap<TopicPartition, Result<Vec<ProducerState>>>,
    tp: &TopicPartition,
    lso: i64,
) -> Option<&'a ProducerState> {
    producers
        .get(tp)
        .and_then(|r| r.as_ref().ok())
        .and_then(|ps| ps.iter().find(|p| p.current_txn_start_offset == lso))
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(ctx: &Context, s: &LsoSettings, snapshot: LsoSnapshot) -> Report<LsoReport> {
    let ((warning_age, critical_age), (warning_gap, critical_gap)) = (s.age, s.gap);
    let t = Thresholds {
        warning_age_seconds: warning_age.as_secs(),
        critical_age_seconds: critical_age.as_secs(),
        warning_gap,
        critical_gap,
    };
    let mut findings = kafka_common::topic_errors(&snapshot.topic_errors);
    for (tp, offsets) in &snapshot.watermarks {
        if let Err(e) = offsets {
            findings.push(unreadable(tp, e));
        }
    }
    let partitions = explain(&snapshot, &t, &mut findings);
    for p in &partitions {
        if p.severity > Severity::Ok {
            let finding = gap_finding(p, &t);
            let (cluster, target) = (&s.cluster, &snapshot.target);
            let tp = (p.topic.as_str(), p.partition);
            let next = match (p.verdict, p.open_txn_start_offset) {
                (Some(Verdict::Hanging), Some(start)) => Some(kafka_common::resolve_next(
                    ctx,
                    cluster,
                    target,
                    (tp.0, tp.1, start),
                    false,
                )),
                (None, Some(start)) if p.forcible => Some(kafka_common::resolve_next(
                    ctx,
                    cluster,
                    target,
                    (tp.0, tp.1, start),
                    true,
                )),
                (None, Some(_)) => Some(kafka_common::partition_next(
                    ctx, cluster, target, "hanging", tp,
                )),
                (Some(Verdict::Long), _) => None,
                (_, None) => Some(kafka_common::partition_next(
                    ctx,
                    cluster,
                    target,
                    "producers",
                    tp,
                )),
            };
            findings.push(match next {
                Some(next) => finding.next(next),
                None => finding,
            });
        }
    }
    if findings.is_empty() {
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::LSO,
                "last stable offsets",
                format!(
                    "{} partition(s), none with an LSO gap over a threshold",
                    snapshot.partitions.len()
                ),
            )
            .evidence(
                "source",
                "ListOffsets (read_uncommitted and read_committed)",
            )
            .evidence("gaps", partitions.len()),
        );
    }
    Report::new(
        "kafka lso",
        snapshot.target,
        findings,
        LsoReport {
            thresholds: t,
            partitions_checked: snapshot.partitions.len(),
            partitions,
        },
    )
}

/// The partition's offsets could not be read: why, and the hint the failure carries (a
/// refused connection to the broker the metadata names, say) as the advice.
fn unreadable(tp: &TopicPartition, e: &anyhow::Error) -> Finding {
    let finding = Finding::new(
        Severity::Unknown,
        codes::LSO_UNREADABLE,
        format!("partition {}-{}", tp.0, tp.1),
        format!("offsets not read: {e:#}"),
    )
    .evidence("source", "ListOffsets");
    match crate::hints::hint_for(e) {
        Some(hint) => finding.advice(hint),
        None => finding,
    }
}

/// For each gap: the producer whose open transaction starts at the LSO, when that first
/// unstable record was written, and its transactional id where the coordinators know it.
fn explain(snapshot: &LsoSnapshot, t: &Thresholds, unseen: &mut Vec<Finding>) -> Vec<PartitionLso> {
    let gaps = gaps(&snapshot.watermarks);
    let first_unstable = |tp: &TopicPartition| snapshot.first_unstable_at_ms.get(tp);
    // The gap itself is known; what is not (holder, age) is said, not silently left out.
    for (tp, _, _) in &gaps {
        let mut missing = Vec::new();
        if let Some(Err(e)) = snapshot.producers.get(tp) {
            missing.push(format!("its open transaction (DescribeProducers: {e:#})"));
        }
        if let Some(Err(e)) = first_unstable(tp) {
            missing.push(format!("when it began (Fetch: {e:#})"));
        }
        if !missing.is_empty() {
            unseen.push(
                Finding::new(
                    Severity::Unknown,
                    codes::LSO_GAP_UNEXPLAINED,
                    format!("partition {}-{}", tp.0, tp.1),
                    format!(
                        "has an LSO gap, but {} could not be read",
                        missing.join(" and ")
                    ),
                )
                .advice("DescribeProducers and Fetch need READ on the topic"),
            );
        }
    }
    let mut rows: Vec<PartitionLso> = gaps
        .into_iter()
        .map(|(tp, hw, lso)| {
            let holder = holder(&snapshot.producers, &tp, lso);
            let first = first_unstable(&tp)
                .and_then(|r| r.as_ref().ok())
                .copied()
                .flatten();
            PartitionLso {
                high_watermark: hw,
                last_stable_offset: lso,
                gap: hw - lso,
                open_txn_start_offset: holder.map(|h| h.current_txn_start_offset),
                producer_id: holder.map(|h| h.producer_id),
                producer_epoch: holder.map(|h| h.producer_epoch),
                first_unstable_at_ms: first,
                stuck_seconds: first
                    .map(|f| snapshot.read_at_ms.saturating_sub(f).max(0) as f64 / 1000.0),
                transactional_id: None,
                verdict: None,
                verdict_reason: None,
                forcible: false,
                age_unread: matches!(first_unstable(&tp), Some(Err(_))),
                severity: Severity::Ok,
                topic: tp.0,
                partition: tp.1,
            }
        })
        .collect();
    let judgement = &snapshot.judgement;
    for row in &mut rows {
        let tp = (row.topic.clone(), row.partition);
        if let Some(j) = judgement.judged.iter().find(|j| j.tp == tp) {
            row.transactional_id = j.transactional_id.clone();
            row.verdict = Some(j.verdict);
            row.verdict_reason = Some(j.reason.clone());
        } else if let Some((_, _, why)) = judgement
            .unjudgeable
            .iter()
            .find(|(t, p, _)| *t == tp && Some(p.producer_id) == row.producer_id)
        {
            // Kafka before 3.0: the gap is known and graded; only the id is not.
            row.verdict_reason = Some(why.clone());
            row.forcible = true;
        } else if let Some((_, why)) = row.producer_id.and_then(|pid| {
            let subject = format!("producer {pid} on {}-{}", row.topic, row.partition);
            judgement.unreadable.iter().find(|(s, _)| *s == subject)
        }) {
            row.verdict_reason = Some(why.clone());
        }
    }
    for (subject, why) in &judgement.unreadable {
        if subject.starts_with("broker ") {
            unseen.push(
                Finding::new(
                    Severity::Unknown,
                    codes::TRANSACTIONS_UNREADABLE,
                    subject.clone(),
                    format!("a transaction it coordinates is not named: {why}"),
                )
                .evidence("source", "ListTransactions"),
            );
        }
    }
    for row in &mut rows {
        let by_gap = Severity::grade(row.gap.max(0) as u64, t.warning_gap, t.critical_gap);
        // An age that could not be read is not an age under the thresholds.
        let by_age = match (row.stuck_seconds, row.age_unread) {
            (Some(s), _) => {
                Severity::grade(s as u64, t.warning_age_seconds, t.critical_age_seconds)
            }
            (None, true) => Severity::Unknown,
            (None, false) => Severity::Ok,
        };
        row.severity = by_gap.max(by_age);
    }
    rows.sort_by(|a, b| b.severity.cmp(&a.severity).then(b.gap.cmp(&a.gap)));
    rows
}

fn gap_finding(p: &PartitionLso, t: &Thresholds) -> Finding {
    let since = match (p.first_unstable_at_ms, p.stuck_seconds) {
        (Some(at), Some(s)) => format!(
            ", stuck since {} ({})",
            format_ms(at),
            format_duration(Duration::from_secs_f64(s))
        ),
        _ => String::new(),
    };
    let holder = match (p.producer_id, &p.transactional_id) {
        (Some(pid), Some(id)) => format!(
            "; held by transactional id '{id}' (producer {pid}, epoch {})",
            p.producer_epoch.unwrap_or(-1)
        ),
        (Some(pid), None) => format!(
            "; held by producer {pid} (epoch {}), no transactional id known{}",
            p.producer_epoch.unwrap_or(-1),
            p.verdict_reason
                .as_deref()
                .filter(|_| p.verdict.is_none())
                .map(|why| format!(" ({why})"))
                .unwrap_or_default()
        ),
        _ => String::new(),
    };
    Finding::new(
        p.severity,
        codes::LSO_GAP,
        format!("partition {}-{}", p.topic, p.partition),
        format!(
            "LSO {} is {} offsets behind the high watermark {}{since}{holder}; thresholds: age {}/{}, gap {}/{}",
            p.last_stable_offset,
            p.gap,
            p.high_watermark,
            format_duration(Duration::from_secs(t.warning_age_seconds)),
            format_duration(Duration::from_secs(t.critical_age_seconds)),
            t.warning_gap,
            t.critical_gap
        ),
    )
        .evidence("source", "ListOffsets, DescribeProducers, Fetch (batch header), ListTransactions")
    .evidence("topic", p.topic.clone())
    .evidence("partition", p.partition)
    .object(Object::new(ObjectKind::Partition, format!("{}-{}", p.topic, p.partition)))
    .evidence("high_watermark", p.high_watermark)
    .evidence("last_stable_offset", p.last_stable_offset)
    .evidence("open_txn_start_offset", p.open_txn_start_offset)
    .evidence("producer_id", p.producer_id)
    .evidence("transactional_id", p.transactional_id.clone())
    .evidence("first_unstable_at_ms", p.first_unstable_at_ms)
    .evidence(
        "verdict",
        serde_json::to_value(p.verdict).unwrap_or(serde_json::Value::Null),
    )
    .evidence("verdict_reason", p.verdict_reason.clone())
    .advice(gap_advice(p))
}

/// What to do, by `kafka hanging`'s verdict on the holder: only a transaction its
/// coordinator owns ends by itself.
fn gap_advice(p: &PartitionLso) -> String {
    let stuck = format!(
        "read_committed consumers of {}-{} are stuck at offset {}",
        p.topic, p.partition, p.last_stable_offset
    );
    let reason = p.verdict_reason.as_deref().unwrap_or("");
    match (p.verdict, p.open_txn_start_offset) {
        (Some(Verdict::Hanging), Some(start)) => format!(
            "{stuck}: hanging, {reason}: its coordinator will never end it; abort it with `indoubt resolve kafka` (next) from offset {start}"
        ),
        (Some(Verdict::Long), _) => format!(
            "{stuck}: not hanging, {reason}: it ends when its producer ends it, or is aborted at its transaction.timeout.ms; see `indoubt kafka transactions`"
        ),
        // Only brokers too old to judge it let --force act; a judgement that failed
        // (a broker not answering) makes resolve kafka refuse, forced or not.
        (None, Some(start)) if p.forcible => format!(
            "{stuck}: whether the transaction hangs cannot be told ({reason}); if its producer is gone for good, `indoubt resolve kafka` with --force (next) aborts it from offset {start}: a heuristic, recorded with its reason"
        ),
        (None, Some(_)) => format!(
            "{stuck}: whether the transaction hangs is not known ({}), and `indoubt resolve kafka` refuses to abort it until it is; ask `indoubt kafka hanging` (next) again once every broker answers",
            if reason.is_empty() { "not judged" } else { reason },
        ),
        _ => format!(
            "{stuck}: the producer holding it was not named; see the partition's producers with `indoubt kafka producers` (next)"
        ),
    }
}

impl TableView for LsoReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.partitions.is_empty() {
            return vec![shown!(
                "{} partition(s) checked, none with an LSO gap",
                self.partitions_checked
            )];
        }
        let mut table = style.table(&[
            "STATUS",
            "PARTITION",
            "HIGH WATERMARK",
            "LSO",
            "GAP",
            "STUCK SINCE",
            "OPEN TRANSACTION",
        ]);
        for p in &self.partitions {
            let since = match (p.first_unstable_at_ms, p.stuck_seconds) {
                (Some(at), Some(s)) => shown!(
                    "{}\n{} ago",
                    format_ms(at),
                    format_duration(Duration::from_secs_f64(s))
                ),
                _ => Shown::lit("?"),
            };
            let holder = match p.producer_id {
                Some(pid) => shown!(
                    "producer {} epoch {}\nfrom offset {}{}",
                    pid,
                    p.producer_epoch.unwrap_or(-1),
                    p.open_txn_start_offset.unwrap_or(-1),
                    p.transactional_id
                        .as_deref()
                        .map(|i| shown!("\n{}", i))
                        .unwrap_or_default()
                ),
                None => Shown::lit("-"),
            };
            table.add_row(vec![
                style.severity_cell(p.severity),
                Cell::new(shown!("{}-{}", p.topic, p.partition)),
                Cell::new(p.high_watermark),
                Cell::new(p.last_stable_offset),
                Cell::new(p.gap),
                Cell::new(since),
                Cell::new(holder),
            ]);
        }
        vec![
            table.render(),
            shown!("{} partition(s) checked", self.partitions_checked),
        ]
    }
}

#[cfg(test)]
mod golden;
