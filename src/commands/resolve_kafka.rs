//! `indoubt resolve kafka`: the partition's evidence and `kafka hanging`'s verdict, then
//! the abort (WriteTxnMarkers) through the resolution flow, refusing a transaction its
//! coordinator still owns unless forced.

use super::kafka_common::{self, format_ms};
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::cluster::{Cluster, TopicPartition};
use crate::kafka::conn::BrokerError;
use crate::kafka::transactions::ProducerState;
use crate::report::evidence::{self, Block};
use crate::report::table::Style;
use crate::report::{self, Report, TableView, Target};
use crate::resolve::absent::{Absent, Named};
use crate::resolve::apply::kafka::{self, Abort, Marker, Open};
use crate::resolve::flow::{self, Recorded};
use crate::settings::resolution::ResolveKafkaSettings;
use crate::shown;
use crate::term::Shown;
use crate::verdict::{self, Judgement, Verdict};
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Serialize)]
struct ResolveKafkaReport {
    topic: String,
    partition: i32,
    high_watermark: Option<i64>,
    last_stable_offset_before: Option<i64>,
    /// Both read after the abort, the LSO first: never an LSO above the high watermark.
    high_watermark_after: Option<i64>,
    last_stable_offset_after: Option<i64>,
    producer_id: Option<i64>,
    producer_epoch: Option<i32>,
    /// The coordinator epoch the marker carries.
    coordinator_epoch: Option<i32>,
    /// The producer's latest coordinator epoch on the partition, as DescribeProducers
    /// reports it (-1: no coordinator ever wrote a marker for it there).
    coordinator_epoch_reported: Option<i32>,
    /// Why `coordinator_epoch` is what it is.
    coordinator_epoch_reason: Option<String>,
    start_offset: Option<i64>,
    last_write: Option<String>,
    transactional_id: Option<String>,
    verdict: Option<Verdict>,
    reason: Option<String>,
    /// The request sent (or, with --dry-run, that would be sent).
    request: Option<String>,
    dry_run: bool,
    #[serde(flatten)]
    recorded: Recorded,
}

impl ResolveKafkaReport {
    fn new(tp: &TopicPartition, dry_run: bool) -> ResolveKafkaReport {
        ResolveKafkaReport {
            topic: tp.0.clone(),
            partition: tp.1,
            high_watermark: None,
            last_stable_offset_before: None,
            high_watermark_after: None,
            last_stable_offset_after: None,
            producer_id: None,
            producer_epoch: None,
            coordinator_epoch: None,
            coordinator_epoch_reported: None,
            coordinator_epoch_reason: None,
            start_offset: None,
            last_write: None,
            transactional_id: None,
            verdict: None,
            reason: None,
            request: None,
            dry_run,
            recorded: Recorded::default(),
        }
    }
}

/// What the cluster said about the partition and the open transaction asked about: the
/// I/O half, which [`proposal_of`] turns into a proposal or a refusal.
pub(crate) struct ResolveKafkaSnapshot {
    pub target: Target,
    /// `kafka CLUSTER-ID`, when the metadata named it.
    pub server: Option<String>,
    /// Topics the metadata named with an error (nothing else is read then).
    pub topic_errors: BTreeMap<String, BrokerError>,
    /// (high watermark, LSO) before anything is done; None when not read.
    pub watermarks: Option<(i64, i64)>,
    /// The partition's producers (DescribeProducers).
    pub producers: Vec<ProducerState>,
    /// `kafka hanging`'s judgement of the open transaction asked about (empty when none
    /// matches).
    pub judgement: Judgement,
}

/// What comes of the evidence: a report with nothing to do, or an abort to propose.
enum Proposed {
    Finished(Vec<Finding>, ResolveKafkaReport),
    /// No open transaction matches: what is there instead, for [`absent`].
    Absent(ResolveKafkaReport, Vec<String>),
    Abort(Box<ResolveKafkaReport>, Abort),
}

pub async fn run(ctx: &Context, s: &ResolveKafkaSettings) -> Result<Severity> {
    let (cluster, snapshot) = gather(ctx, s).await?;
    let target = snapshot.target.clone();
    let server = snapshot.server.clone();
    let (mut data, abort) = match proposal_of(s, snapshot) {
        Proposed::Finished(findings, data) => return finish(ctx, target, findings, data),
        Proposed::Absent(data, present) => {
            let lister = kafka_common::cluster_next(ctx, &s.cluster, &target, "transactions");
            let finding = absent(s, server, &target, present, lister);
            return finish(ctx, target, vec![finding], data);
        }
        Proposed::Abort(data, abort) => (data, abort),
    };
    let mut marker = [Marker::new(&cluster, abort)];
    let done = flow::run(ctx, &s.confirm, &mut marker).await?;
    let [marker] = marker;
    data.high_watermark_after = marker.after.map(|(hw, _)| hw);
    data.last_stable_offset_after = marker.after.map(|(_, lso)| lso);
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    finish(ctx, target, findings, *data)
}

async fn gather(
    ctx: &Context,
    s: &ResolveKafkaSettings,
) -> Result<(std::sync::Arc<Cluster>, ResolveKafkaSnapshot)> {
    let topics = [s.topic.clone()];
    let (target, cluster) = kafka_common::open(ctx, &s.cluster, Some(&topics)).await?;
    let mut snapshot = ResolveKafkaSnapshot {
        target,
        server: cluster.cluster_id.as_ref().map(|id| format!("kafka {id}")),
        topic_errors: cluster.topic_errors.clone(),
        watermarks: None,
        producers: Vec::new(),
        judgement: Judgement::default(),
    };
    if !snapshot.topic_errors.is_empty() {
        return Ok((cluster, snapshot));
    }
    let tp: TopicPartition = (s.topic.clone(), s.partition);
    let slice = std::slice::from_ref(&tp);
    snapshot.watermarks = cluster
        .watermarks(slice)
        .await
        .remove(&tp)
        .and_then(Result::ok);
    snapshot.producers = match cluster.describe_producers(slice).await.remove(&tp) {
        Some(Ok(p)) => p,
        Some(Err(e)) => return Err(e),
        None => Vec::new(),
    };
    if let Some(producer) = matching(&snapshot.producers, s) {
        snapshot.judgement = verdict::judge(&cluster, vec![(tp, producer.clone())]).await;
    }
    Ok((cluster, snapshot))
}

/// The open transaction the command names: by its start offset, or by producer id and epoch.
fn matching<'a>(
    producers: &'a [ProducerState],
    s: &ResolveKafkaSettings,
) -> Option<&'a ProducerState> {
    producers.iter().find(|p| {
        p.current_txn_start_offset >= 0
            && match (s.start_offset, s.producer_id) {
                (Some(offset), _) => p.current_txn_start_offset == offset,
                (None, Some(pid)) => {
                    p.producer_id == pid
                        && Some(p.producer_epoch) == s.producer_epoch.map(i32::from)
                }
                (None, None) => false,
            }
    })
}

/// The evidence, the verdict and the refusal or the abort to propose, from what was read:
/// pure, so the golden tests build it as a run does.
fn proposal_of(s: &ResolveKafkaSettings, snapshot: ResolveKafkaSnapshot) -> Proposed {
    let tp: TopicPartition = (s.topic.clone(), s.partition);
    let subject = format!("partition {}-{}", tp.0, tp.1);
    let mut data = ResolveKafkaReport::new(&tp, s.confirm.dry_run);
    let errors = kafka_common::topic_errors(&snapshot.topic_errors);
    if !errors.is_empty() {
        return Proposed::Finished(errors, data);
    }
    data.high_watermark = snapshot.watermarks.map(|(hw, _)| hw);
    data.last_stable_offset_before = snapshot.watermarks.map(|(_, lso)| lso);
    let Some(producer) = matching(&snapshot.producers, s).cloned() else {
        let present = snapshot
            .producers
            .iter()
            .filter(|p| p.current_txn_start_offset >= 0)
            .map(|p| key(&tp, p.current_txn_start_offset))
            .collect();
        return Proposed::Absent(data, present);
    };
    let judgement = snapshot.judgement;
    let judged = judgement.judged.into_iter().next();
    // Brokers before Kafka 3.0 cannot say whether it hangs: only --force acts then.
    let unjudgeable = judgement
        .unjudgeable
        .into_iter()
        .next()
        .map(|(_, _, why)| why);
    data.producer_id = Some(producer.producer_id);
    data.producer_epoch = Some(producer.producer_epoch);
    let (coordinator_epoch, why) =
        kafka::coordinator_epoch(s.coordinator_epoch, producer.coordinator_epoch);
    data.coordinator_epoch = Some(coordinator_epoch);
    data.coordinator_epoch_reported = Some(producer.coordinator_epoch);
    data.coordinator_epoch_reason = Some(why.clone());
    data.start_offset = Some(producer.current_txn_start_offset);
    data.last_write = Some(format_ms(producer.last_timestamp_ms));
    data.transactional_id = judged.as_ref().and_then(|j| j.transactional_id.clone());
    data.verdict = judged.as_ref().map(|j| j.verdict);
    data.reason = judged
        .as_ref()
        .map(|j| j.reason.clone())
        .or(unjudgeable.clone());
    let refused = kafka::refusal(
        &kafka::Judged {
            verdict: data.verdict,
            unjudgeable: unjudgeable.as_deref(),
            unreadable: &judgement.unreadable,
            reason: data.reason.as_deref(),
        },
        s.force,
    );
    if let Some((code, message)) = refused {
        let finding = Finding::new(Severity::Warning, code, subject, message);
        return Proposed::Finished(vec![finding], data);
    }
    let request = kafka::request(&tp, &producer, coordinator_epoch);
    data.request = Some(request.clone());
    let evidence = serde_json::json!({
        "high_watermark": data.high_watermark,
        "last_stable_offset": data.last_stable_offset_before,
        "producer": producer,
        "transactional_id": data.transactional_id,
        "verdict": data.verdict,
        "reason": data.reason,
    });
    // Forced over an owning coordinator, or with no verdict at all.
    let heuristic = data.verdict != Some(Verdict::Hanging);
    let summary = evidence_blocks(&data);
    let abort = Abort::new(Open {
        target: snapshot.target,
        server: snapshot.server,
        tp,
        producer,
        coordinator_epoch,
        coordinator_epoch_reason: why,
        heuristic,
        last_stable_offset_before: data.last_stable_offset_before,
        evidence,
        summary,
    });
    Proposed::Abort(Box::new(data), abort)
}

/// The audit trail's key of the open transaction at `start` (`T-P@N`, as `Abort`'s id).
fn key(tp: &TopicPartition, start: i64) -> String {
    format!("{}-{}@{}", tp.0, tp.1, start)
}

/// No open transaction matches: resolved earlier by indoubt (the audit trail's record),
/// else not there, with the open transactions that are.
fn absent(
    s: &ResolveKafkaSettings,
    server: Option<String>,
    target: &Target,
    present: Vec<String>,
    lister: crate::next::Next,
) -> Finding {
    let tp: TopicPartition = (s.topic.clone(), s.partition);
    let partition = format!("{}-{}", tp.0, tp.1);
    // The trail keeps a transaction by its start offset; asked for by its producer, it is
    // found by the producer its record's evidence names.
    let (asked, named) = match (s.start_offset, s.producer_id) {
        (Some(offset), _) => (key(&tp, offset), Named::Key),
        (None, Some(pid)) => (
            format!("{partition} producer {pid}"),
            Named::Producer {
                partition: partition.clone(),
                id: pid,
                epoch: s.producer_epoch.map(i32::from),
            },
        ),
        (None, None) => (partition.clone(), Named::Key),
    };
    crate::resolve::absent::finding(
        s.confirm.audit_log.path().ok(),
        Absent {
            subject: format!("partition {partition}").into(),
            missing: "no open transaction matches on this partition",
            source: "DescribeProducers",
            server,
            key: asked,
            named,
            target,
            present,
            lister,
        },
    )
}

/// What the operator confirms, and what the report shows unless the prompt did: the open
/// transaction, the partition's offsets, the verdict, the exact request with the
/// coordinator epoch's reason, and the risk when it is not judged hanging.
fn evidence_blocks(data: &ResolveKafkaReport) -> Vec<Block> {
    let mut b = Block::new(shown!("partition {}-{}", data.topic, data.partition));
    if let (Some(pid), Some(start)) = (data.producer_id, data.start_offset) {
        b.field(
            "open transaction",
            shown!(
                "producer {} epoch {} from offset {}",
                pid,
                shown_opt(&data.producer_epoch),
                start
            ),
        );
    }
    b.field(
        "offsets",
        shown!(
            "LSO {} of high watermark {}",
            shown_opt(&data.last_stable_offset_before),
            shown_opt(&data.high_watermark)
        ),
    );
    if data.producer_id.is_some() {
        b.field("last write", shown_opt(&data.last_write))
            .field("transactional id", shown_opt(&data.transactional_id));
    }
    if let Some(reason) = &data.reason {
        b.field("verdict", shown!("{}", reason));
    }
    if let Some(request) = &data.request {
        // A request described, not a command to copy: wrapped between words (the
        // partition in it stays whole), where SQL is kept on one line.
        b.field("will send", shown!("{}", request));
        if data.verdict != Some(Verdict::Hanging) {
            b.alarm(
                "HEURISTIC",
                Shown::lit("not judged hanging: the abort is recorded with the reason given, and a producer still writing loses its transaction"),
            );
        }
    }
    // The value sent, then why it is that one.
    if let (Some(epoch), Some(why)) = (data.coordinator_epoch, &data.coordinator_epoch_reason) {
        b.field("coordinator epoch", shown!("{}: {}", epoch, why));
    }
    vec![b]
}

fn finish(
    ctx: &Context,
    target: Target,
    findings: Vec<Finding>,
    data: ResolveKafkaReport,
) -> Result<Severity> {
    let report = report_of(target, findings, data);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

fn report_of(
    target: Target,
    findings: Vec<Finding>,
    data: ResolveKafkaReport,
) -> Report<ResolveKafkaReport> {
    Report::new("resolve kafka", target, findings, data)
}

/// A value that may be unknown, `?` then; escaped like any value.
fn shown_opt<T: std::fmt::Display>(value: &Option<T>) -> Shown {
    value
        .as_ref()
        .map_or_else(|| Shown::lit("?"), |v| shown!("{}", v))
}

impl TableView for ResolveKafkaReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        // Shown once: not again after the prompt showed it.
        let mut lines = self.recorded.evidence(&evidence_blocks(self), style);
        if let (Some(hw), Some(lso)) = (self.high_watermark_after, self.last_stable_offset_after) {
            let mut after = Block::untitled();
            after.field(
                "after",
                shown!(
                    "high watermark {} → {}, LSO {} → {}",
                    shown_opt(&self.high_watermark),
                    hw,
                    shown_opt(&self.last_stable_offset_before),
                    lso
                ),
            );
            lines.push(evidence::render(&[after], style));
        }
        lines.extend(self.recorded.recorded_in());
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_reads_as_text_not_rust() {
        let mut data = ResolveKafkaReport {
            topic: "payments".into(),
            partition: 7,
            high_watermark: Some(3),
            last_stable_offset_before: Some(0),
            high_watermark_after: None,
            last_stable_offset_after: None,
            producer_id: Some(1001),
            producer_epoch: Some(0),
            coordinator_epoch: Some(0),
            coordinator_epoch_reported: Some(-1),
            coordinator_epoch_reason: Some(kafka::coordinator_epoch(None, -1).1),
            start_offset: Some(0),
            last_write: Some("2026-01-01 00:00:00 UTC".into()),
            transactional_id: None,
            verdict: Some(Verdict::Hanging),
            reason: Some("no coordinator lists a transactional id for this producer".into()),
            request: Some("WriteTxnMarkers(abort)".into()),
            dry_run: false,
            recorded: Recorded::default(),
        };
        let style = Style {
            color: false,
            width: 80,
            frame: crate::report::layout::Frame::Plain,
            wide: false,
        };
        let shown = |data: &ResolveKafkaReport| {
            evidence::render(&evidence_blocks(data), &style).into_string()
        };
        let text = shown(&data);
        assert!(text.contains("LSO 0 of high watermark 3"), "{text}");
        assert!(
            text.contains("coordinator epoch  0: DescribeProducers reports -1"),
            "{text}"
        );
        assert!(
            text.contains("\n  will send          WriteTxnMarkers(abort)\n"),
            "{text}"
        );
        assert!(
            !text.contains("Some(") && !text.contains("HEURISTIC"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        data.high_watermark = None;
        data.verdict = Some(Verdict::Long);
        let forced = shown(&data);
        assert!(forced.contains("of high watermark ?"), "{forced}");
        assert!(
            forced.contains("\n  HEURISTIC          not judged hanging"),
            "{forced}"
        );
    }
}

#[cfg(test)]
mod golden;
