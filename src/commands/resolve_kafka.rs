//! `indoubt resolve kafka`: abort one hanging transaction with WriteTxnMarkers, between
//! two audit records, refusing one its coordinator still owns unless forced.

use super::kafka_common::{self, format_ms};
use crate::audit::log;
use crate::audit::record::{Action, Outcome, Record};
use crate::cli::ResolveKafkaArgs;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::cluster::{ProducerState, TopicPartition};
use crate::kafka::conn::BrokerError;
use crate::kafka::verdict::{self, Verdict};
use crate::report::table::Style;
use crate::report::{self, Report, TableView, Target};
use crate::resolve::confirm::{self, Answer};
use crate::shown;
use crate::term::Shown;
use anyhow::Result;
use kafka_protocol::error::ResponseError;
use serde::Serialize;

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
    outcome: Option<Outcome>,
    audit_log: Option<String>,
}

pub async fn run(ctx: &Context, args: &ResolveKafkaArgs) -> Result<Severity> {
    let topics = [args.topic.clone()];
    let (target, cluster) = kafka_common::open(ctx, &args.target, Some(&topics)).await?;
    let tp: TopicPartition = (args.topic.clone(), args.partition);
    let subject = format!("partition {}-{}", tp.0, tp.1);
    let mut data = ResolveKafkaReport {
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
        dry_run: args.confirm.dry_run,
        outcome: None,
        audit_log: None,
    };
    let mut errors = kafka_common::topic_errors(&cluster);
    if !errors.is_empty() {
        return finish(ctx, target, std::mem::take(&mut errors), data);
    }
    let slice = std::slice::from_ref(&tp);
    let before = cluster
        .watermarks(slice)
        .await
        .remove(&tp)
        .and_then(Result::ok);
    data.high_watermark = before.map(|(hw, _)| hw);
    data.last_stable_offset_before = before.map(|(_, lso)| lso);
    let producers: Vec<ProducerState> = match cluster.describe_producers(slice).await.remove(&tp) {
        Some(Ok(p)) => p,
        Some(Err(e)) => return Err(e),
        None => Vec::new(),
    };
    let open = producers.into_iter().find(|p| {
        p.current_txn_start_offset >= 0
            && match (args.start_offset, args.producer_id) {
                (Some(offset), _) => p.current_txn_start_offset == offset,
                (None, Some(pid)) => {
                    p.producer_id == pid
                        && Some(p.producer_epoch) == args.producer_epoch.map(i32::from)
                }
                (None, None) => false,
            }
    });
    let Some(producer) = open else {
        let finding = Finding::new(
            Severity::Ok,
            "already_resolved",
            subject,
            "no open transaction matches on this partition: already ended (or never there)",
        )
        .evidence("source", "DescribeProducers");
        return finish(ctx, target, vec![finding], data);
    };
    let judgement = verdict::judge(&cluster, vec![(tp.clone(), producer.clone())]).await;
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
        coordinator_epoch(args.coordinator_epoch, producer.coordinator_epoch);
    data.coordinator_epoch = Some(coordinator_epoch);
    data.coordinator_epoch_reported = Some(producer.coordinator_epoch);
    data.coordinator_epoch_reason = Some(why);
    data.start_offset = Some(producer.current_txn_start_offset);
    data.last_write = Some(format_ms(producer.last_timestamp_ms));
    data.transactional_id = judged.as_ref().and_then(|j| j.transactional_id.clone());
    data.verdict = judged.as_ref().map(|j| j.verdict);
    data.reason = judged
        .as_ref()
        .map(|j| j.reason.clone())
        .or(unjudgeable.clone());
    let forced = args.force && args.confirm.reason.is_some();
    if let (Some(why), false) = (&unjudgeable, forced) {
        let finding = Finding::new(
            Severity::Warning,
            "not_judged",
            subject,
            format!("nothing done: {why}; --force with --reason aborts it anyway, if you know its producer is gone"),
        );
        return finish(ctx, target, vec![finding], data);
    }
    if (judged.is_none() && unjudgeable.is_none()) || !judgement.unreadable.is_empty() {
        let why = judgement
            .unreadable
            .into_iter()
            .map(|(s, m)| format!("{s}: {m}"))
            .collect::<Vec<_>>()
            .join("; ");
        let finding = Finding::new(
            Severity::Warning,
            "not_judged",
            subject,
            format!("nothing done: cannot tell whether it hangs ({why})"),
        );
        return finish(ctx, target, vec![finding], data);
    }
    if data.verdict == Some(Verdict::Long) && !(args.force && args.confirm.reason.is_some()) {
        let finding = Finding::new(
            Severity::Warning,
            "owned_by_coordinator",
            subject,
            format!(
                "refused: {} — it will be aborted at its transaction.timeout.ms; --force with --reason aborts it now",
                data.reason.clone().unwrap_or_default()
            ),
        );
        return finish(ctx, target, vec![finding], data);
    }
    let epoch = i16::try_from(producer.producer_epoch).unwrap_or(i16::MAX);
    let request = format!(
        "WriteTxnMarkers(abort) to the leader of {}-{}: producer {} epoch {} coordinator epoch {}",
        tp.0, tp.1, producer.producer_id, epoch, coordinator_epoch
    );
    data.request = Some(request.clone());
    if args.confirm.dry_run {
        let finding = Finding::new(
            Severity::Ok,
            "dry_run",
            subject,
            format!(
                "dry run: would send {request} (coordinator epoch {})",
                data.coordinator_epoch_reason.clone().unwrap_or_default()
            ),
        );
        return finish(ctx, target, vec![finding], data);
    }
    let expected = format!("{}-{}@{}", tp.0, tp.1, producer.current_txn_start_offset);
    let summary = prompt(&subject, &producer, &data, &request);
    let token = match confirm::confirm(
        args.confirm.yes,
        args.confirm.reason.as_deref(),
        &confirm::Expected {
            shown: Shown::text(&expected),
            exact: expected.as_bytes(),
        },
        &summary,
    )
    .await?
    {
        Answer::Yes(token) => token,
        Answer::No(why) => {
            let finding = Finding::new(
                Severity::Warning,
                "not_confirmed",
                subject,
                format!("nothing done: {why}"),
            );
            return finish(ctx, target, vec![finding], data);
        }
    };
    let audit_path = ctx.audit_log(args.confirm.audit_log.as_deref())?;
    data.audit_log = Some(audit_path.display().to_string());
    // From the intent on, a signal waits for the outcome to be recorded.
    let _shield = crate::interrupt::shield();
    let intent = log::record_intent(
        &audit_path,
        Record::intent(Action {
            target: target.clone(),
            object: format!(
                "{subject} producer {} from offset {}",
                producer.producer_id, producer.current_txn_start_offset
            ),
            action: request.clone(),
            evidence: serde_json::json!({
                "high_watermark": data.high_watermark,
                "last_stable_offset": data.last_stable_offset_before,
                "producer": producer,
                "transactional_id": data.transactional_id,
                "verdict": data.verdict,
                "reason": data.reason,
            }),
            decision_sources: Vec::new(),
            decision: "abort".into(),
            // Forced over an owning coordinator, or with no verdict at all.
            heuristic: data.verdict != Some(Verdict::Hanging),
            reason: args.confirm.reason.clone(),
            ticket: args.confirm.ticket.clone(),
        }),
    )?;
    // The prompt may have taken minutes: act only if it is still the same open
    // transaction (with transaction.version 0 a producer keeps its epoch across
    // transactions, and the marker would end whichever one is open now).
    let still = match cluster.describe_producers(slice).await.remove(&tp) {
        Some(Ok(now)) => now.into_iter().any(|p| {
            p.producer_id == producer.producer_id
                && p.producer_epoch == producer.producer_epoch
                && p.current_txn_start_offset == producer.current_txn_start_offset
        }),
        _ => false,
    };
    // None: nothing was sent, because the transaction changed.
    let result = if still {
        Some(
            cluster
                .abort_transaction(&tp, producer.producer_id, epoch, coordinator_epoch, token)
                .await,
        )
    } else {
        None
    };
    let offsets_after = cluster
        .watermarks(slice)
        .await
        .remove(&tp)
        .and_then(Result::ok);
    let hw_after = offsets_after.map(|(hw, _)| hw);
    let after = offsets_after.map(|(_, lso)| lso);
    data.high_watermark_after = hw_after;
    data.last_stable_offset_after = after;
    let (severity, code, outcome) = match &result {
        Some(Ok(())) => {
            let moved = match (data.last_stable_offset_before, after, hw_after) {
                (Some(b), Some(a), Some(hw)) if a > b => format!("; LSO moved from {b} to {a} (gap now {})", (hw - a).max(0)),
                (Some(b), Some(_), _) => format!("; the LSO is still at {b}: another open transaction holds it (see `indoubt kafka lso`)"),
                _ => String::new(),
            };
            (
                Severity::Ok,
                "resolved",
                Outcome {
                    status: "ok".into(),
                    detail: format!("aborted{moved}"),
                    code: None,
                },
            )
        }
        None => (
            Severity::Warning,
            "changed_meanwhile",
            Outcome {
                status: "refused".into(),
                detail: "REFUSED: the transaction changed between the confirmation and the action (ended, or another one opened): nothing sent".into(),
                code: None,
            },
        ),
        Some(Err(e)) => {
            let message = format!("{e:#}");
            // Refusals that leave nothing written. Any other outcome (a timeout, a lost
            // connection, an error a write may follow): the marker may have been written.
            let code = BrokerError::of(e)
                .filter(|b| {
                    matches!(
                        b.error,
                        ResponseError::ClusterAuthorizationFailed
                            | ResponseError::InvalidProducerEpoch
                            | ResponseError::TransactionCoordinatorFenced
                            | ResponseError::NotLeaderOrFollower
                    )
                })
                .map(BrokerError::symbol);
            let status = if code.is_some() { "error" } else { "unknown" };
            (
                Severity::Critical,
                "failed",
                Outcome {
                    status: status.into(),
                    detail: message,
                    code,
                },
            )
        }
    };
    log::record_outcome(&audit_path, &intent, outcome.clone())?;
    data.outcome = Some(outcome.clone());
    let mut finding = Finding::new(severity, code, subject, outcome.detail.clone())
        .evidence("action_id", intent.action_id.clone());
    if outcome.code.as_deref() == Some("CLUSTER_AUTHORIZATION_FAILED") {
        finding = finding.advice("WriteTxnMarkers needs ClusterAction on the CLUSTER resource");
    }
    finish(ctx, target, vec![finding], data)
}

/// The coordinator epoch to send, and why: the one given, else the producer's latest on
/// the partition; a marker needs 0 or more, and the leader accepts any epoch not below
/// the last it saw, so -1 (none seen, as for a hanging transaction) becomes 0.
fn coordinator_epoch(given: Option<i32>, reported: i32) -> (i32, String) {
    match given {
        Some(epoch) if epoch >= 0 => (epoch, "as given (--coordinator-epoch)".to_string()),
        Some(epoch) => (
            0,
            format!("0, not {epoch} as given: a marker needs a coordinator epoch of 0 or more"),
        ),
        None if reported >= 0 => (
            reported,
            "the producer's latest coordinator epoch on this partition (DescribeProducers)".to_string(),
        ),
        None => (
            0,
            format!(
                "0: DescribeProducers reports {reported} (no coordinator has written a marker for this producer here), a marker needs 0 or more, and the leader accepts any epoch not below the last it saw"
            ),
        ),
    }
}

/// What the operator confirms: the transaction, the partition's offsets, the verdict,
/// and the exact request with the coordinator epoch's reason.
fn prompt(
    subject: &str,
    producer: &ProducerState,
    data: &ResolveKafkaReport,
    request: &str,
) -> Shown {
    shown!(
        "{}: open transaction of producer {} (epoch {}) from offset {}, LSO {} of high watermark {}, last write {}, transactional id {}\n  verdict: {}\n  will send: {}\n  coordinator epoch: {}",
        subject,
        producer.producer_id,
        producer.producer_epoch,
        producer.current_txn_start_offset,
        shown_opt(&data.last_stable_offset_before),
        shown_opt(&data.high_watermark),
        shown_opt(&data.last_write),
        shown_opt(&data.transactional_id),
        shown_opt(&data.reason),
        request,
        shown_opt(&data.coordinator_epoch_reason)
    )
}

fn finish(
    ctx: &Context,
    target: Target,
    findings: Vec<Finding>,
    data: ResolveKafkaReport,
) -> Result<Severity> {
    let report = Report::new("resolve kafka", target, findings, data);
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

/// A value that may be unknown, `?` then; escaped like any value.
fn shown_opt<T: std::fmt::Display>(value: &Option<T>) -> Shown {
    value
        .as_ref()
        .map_or_else(|| Shown::lit("?"), |v| shown!("{}", v))
}

impl TableView for ResolveKafkaReport {
    fn tables(&self, _style: &Style) -> Vec<Shown> {
        let arrow = |after: &Option<i64>| after.map(|a| format!(" → {a}")).unwrap_or_default();
        let mut lines = vec![shown!(
            "{}-{}: high watermark {}{}, LSO {}{}",
            self.topic,
            self.partition,
            shown_opt(&self.high_watermark),
            arrow(&self.high_watermark_after),
            shown_opt(&self.last_stable_offset_before),
            arrow(&self.last_stable_offset_after)
        )];
        if let (Some(pid), Some(start)) = (self.producer_id, self.start_offset) {
            lines.push(shown!(
                "open transaction: producer {} epoch {} from offset {}, last write {}, transactional id {}",
                pid,
                shown_opt(&self.producer_epoch),
                start,
                shown_opt(&self.last_write),
                shown_opt(&self.transactional_id)
            ));
        }
        if let Some(reason) = &self.reason {
            lines.push(shown!("verdict: {}", reason));
        }
        if let Some(request) = &self.request {
            lines.push(shown!("request: {}", request));
        }
        if let Some(why) = &self.coordinator_epoch_reason {
            lines.push(shown!("coordinator epoch: {}", why));
        }
        if let Some(path) = &self.audit_log {
            lines.push(shown!("recorded in {}", path));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coordinator_epoch_sent_says_why() {
        let (epoch, why) = coordinator_epoch(None, -1);
        assert_eq!(epoch, 0);
        assert!(why.contains("DescribeProducers reports -1"), "{why}");
        assert_eq!(coordinator_epoch(None, 3).0, 3);
        assert_eq!(
            coordinator_epoch(Some(7), -1),
            (7, "as given (--coordinator-epoch)".into())
        );
        assert_eq!(coordinator_epoch(Some(-1), 2).0, 0);
    }

    #[test]
    fn the_prompt_reads_as_text_not_rust() {
        let producer = ProducerState {
            producer_id: 1001,
            producer_epoch: 0,
            coordinator_epoch: -1,
            last_sequence: 0,
            last_timestamp_ms: 0,
            current_txn_start_offset: 0,
        };
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
            coordinator_epoch_reason: Some(coordinator_epoch(None, -1).1),
            start_offset: Some(0),
            last_write: Some("2026-01-01 00:00:00 UTC".into()),
            transactional_id: None,
            verdict: Some(Verdict::Hanging),
            reason: Some("no coordinator lists a transactional id for this producer".into()),
            request: None,
            dry_run: false,
            outcome: None,
            audit_log: None,
        };
        let text = prompt(
            "partition payments-7",
            &producer,
            &data,
            "WriteTxnMarkers(abort)",
        );
        let text = text.as_str();
        assert!(text.contains("LSO 0 of high watermark 3"), "{text}");
        assert!(
            text.contains("coordinator epoch: 0: DescribeProducers reports -1"),
            "{text}"
        );
        assert!(!text.contains("Some("), "{text}");
        data.high_watermark = None;
        assert!(prompt("p", &producer, &data, "r")
            .as_str()
            .contains("of high watermark ?"));
    }
}
