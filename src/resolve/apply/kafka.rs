//! WriteTxnMarkers(abort) of one hanging transaction on one partition: when it may be
//! sent, which coordinator epoch it carries, the re-read that the same transaction is
//! still open, the marker itself (only with a confirmation), and what each broker error
//! means for what was written.

use crate::audit::record::Status;
use crate::codes;
use crate::kafka::cluster::{Cluster, TopicPartition};
use crate::kafka::conn::BrokerError;
use crate::kafka::transactions::ProducerState;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::term::Shown;
use crate::text::Text;
use crate::verdict::Verdict;
use anyhow::Result;
use kafka_protocol::error::ResponseError;

/// What `kafka hanging` concluded about the transaction, as far as it could.
pub struct Judged<'a> {
    pub verdict: Option<Verdict>,
    /// Why the brokers cannot say whether it hangs (before Kafka 3.0).
    pub unjudgeable: Option<&'a str>,
    /// What could not be read, when that hides the verdict.
    pub unreadable: &'a [(String, String)],
    pub reason: Option<&'a str>,
}

/// Why nothing may be sent, as a finding's code and message: it cannot be told whether it
/// hangs, or its coordinator still owns it. `--force` overrides the first kind when the
/// brokers are too old to tell, and the second always: a HEURISTIC, recorded with a reason.
pub fn refusal(judged: &Judged<'_>, force: bool) -> Option<(crate::codes::Code, String)> {
    if let (Some(why), false) = (judged.unjudgeable, force) {
        return Some((
            codes::NOT_JUDGED,
            format!("nothing done: {why}; --force aborts it anyway, if you know its producer is gone (a recorded heuristic, with its reason)"),
        ));
    }
    if (judged.verdict.is_none() && judged.unjudgeable.is_none()) || !judged.unreadable.is_empty() {
        let why = judged
            .unreadable
            .iter()
            .map(|(s, m)| format!("{s}: {m}"))
            .collect::<Vec<_>>()
            .join("; ");
        return Some((
            codes::NOT_JUDGED,
            format!("nothing done: cannot tell whether it hangs ({why})"),
        ));
    }
    if judged.verdict == Some(Verdict::Long) && !force {
        return Some((
            codes::OWNED_BY_COORDINATOR,
            format!(
                "refused: {} — it will be aborted at its transaction.timeout.ms; --force aborts it now (a recorded heuristic, with its reason)",
                judged.reason.unwrap_or_default()
            ),
        ));
    }
    None
}

/// The coordinator epoch to send, and why: the one given, else the producer's latest on
/// the partition; a marker needs 0 or more, and the leader accepts any epoch not below
/// the last it saw, so -1 (none seen, as for a hanging transaction) becomes 0.
pub fn coordinator_epoch(given: Option<i32>, reported: i32) -> (i32, String) {
    match given {
        Some(epoch) if epoch >= 0 => (epoch, "as given (--coordinator-epoch)".to_string()),
        Some(epoch) => (
            0,
            format!("not {epoch} as given: a marker needs a coordinator epoch of 0 or more"),
        ),
        None if reported >= 0 => (
            reported,
            "the producer's latest coordinator epoch on this partition (DescribeProducers)".to_string(),
        ),
        None => (
            0,
            format!(
                "DescribeProducers reports {reported} (no coordinator has written a marker for this producer here), a marker needs 0 or more, and the leader accepts any epoch not below the last it saw"
            ),
        ),
    }
}

/// The producer epoch a marker carries (DescribeProducers reports an int32).
fn producer_epoch(producer: &ProducerState) -> i16 {
    i16::try_from(producer.producer_epoch).unwrap_or(i16::MAX)
}

/// The request, as shown and recorded.
pub fn request(tp: &TopicPartition, producer: &ProducerState, coordinator_epoch: i32) -> String {
    format!(
        "WriteTxnMarkers(abort) to the leader of {}-{}: producer {} epoch {} coordinator epoch {}",
        tp.0,
        tp.1,
        producer.producer_id,
        producer_epoch(producer),
        coordinator_epoch
    )
}

/// Whether the transaction read before the prompt is still the one open now: the same
/// producer, epoch and first offset (with transaction.version 0 a producer keeps its epoch
/// across transactions, so the first offset tells one transaction from the next).
fn still_open(before: &ProducerState, now: &[ProducerState]) -> bool {
    now.iter().any(|n| {
        n.producer_id == before.producer_id
            && n.producer_epoch == before.producer_epoch
            && n.current_txn_start_offset == before.current_txn_start_offset
    })
}

/// What the LSO did after the marker, from the LSO before and the (high watermark, LSO)
/// after: moved on, or still held (by another open transaction); nothing when either
/// read is missing.
fn lso_moved(before: Option<i64>, after: Option<(i64, i64)>) -> String {
    match (before, after) {
        (Some(b), Some((hw, a))) if a > b => {
            format!("; LSO moved from {b} to {a} (gap now {})", (hw - a).max(0))
        }
        (Some(b), Some(_)) => format!("; the LSO is still at {b}: another open transaction holds it (see `indoubt kafka lso`)"),
        _ => String::new(),
    }
}

/// The open transaction as read with the evidence, and how it is to be aborted.
pub struct Open {
    pub target: Target,
    /// `kafka CLUSTER-ID`, when the metadata named it (the audit trail's `server`).
    pub server: Option<String>,
    pub tp: TopicPartition,
    pub producer: ProducerState,
    pub coordinator_epoch: i32,
    /// Why the coordinator epoch is what it is (the dry run says it).
    pub coordinator_epoch_reason: String,
    /// Not judged hanging: forced over an owning coordinator, or with no verdict at all.
    pub heuristic: bool,
    pub last_stable_offset_before: Option<i64>,
    pub evidence: serde_json::Value,
    /// The evidence as the operator confirms it.
    pub summary: Vec<Block>,
}

/// The abort proposed for one open transaction: what is shown, confirmed and recorded of
/// it, all known before anything is sent (a dry run ends here).
pub struct Abort {
    pub open: Open,
    plan: Plan,
    /// `T-P@N`, what may be typed instead of the token.
    id: String,
}

impl Abort {
    pub fn new(open: Open) -> Abort {
        let plan = Plan {
            decision: "abort",
            heuristic: open.heuristic,
            action: request(&open.tp, &open.producer, open.coordinator_epoch),
        };
        let id = format!(
            "{}-{}@{}",
            open.tp.0, open.tp.1, open.producer.current_txn_start_offset
        );
        Abort { open, plan, id }
    }
}

impl Proposal for Abort {
    fn server(&self) -> Option<String> {
        self.open.server.clone()
    }

    fn name(&self) -> Text {
        format!("partition {}-{}", self.open.tp.0, self.open.tp.1).into()
    }

    fn target(&self) -> Target {
        self.open.target.clone()
    }

    fn object(&self) -> String {
        format!(
            "{} producer {} from offset {}",
            self.name().plain(),
            self.open.producer.producer_id,
            self.open.producer.current_txn_start_offset
        )
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.id),
            exact: self.id.as_bytes(),
            called: None,
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    fn evidence(&self) -> serde_json::Value {
        self.open.evidence.clone()
    }

    fn summary(&self) -> Vec<Block> {
        self.open.summary.clone()
    }

    fn dry_run(&self) -> Text {
        // Not in backticks: a description of the request, wrapped between words. The
        // coordinator epoch's reason is the summary's own field (and JSON's), not repeated.
        format!("dry run: would send {}", self.plan.action).into()
    }
}

/// A proposed abort handed to the flow, with the cluster to send it to.
pub struct Marker<'c> {
    cluster: &'c Cluster,
    abort: Abort,
    /// The high watermark and LSO read after the action (or after finding it changed).
    pub after: Option<(i64, i64)>,
}

impl<'c> Marker<'c> {
    pub fn new(cluster: &'c Cluster, abort: Abort) -> Marker<'c> {
        Marker {
            cluster,
            abort,
            after: None,
        }
    }

    /// The partition's high watermark and LSO now, read as a pair (the LSO first: never
    /// an LSO above the high watermark).
    async fn read_after(&mut self) {
        let tp = &self.abort.open.tp;
        self.after = self
            .cluster
            .watermarks(std::slice::from_ref(tp))
            .await
            .remove(tp)
            .and_then(Result::ok);
    }

    fn outcome(&self, sent: Result<()>) -> Applied {
        match sent {
            Ok(()) => {
                let moved = lso_moved(self.abort.open.last_stable_offset_before, self.after);
                Applied::new(Status::Ok, codes::RESOLVED, format!("aborted{moved}"))
            }
            Err(e) => {
                let message = format!("{e:#}");
                // Refusals that leave nothing written. Any other outcome (a timeout, a lost
                // connection, an error a write may follow): the marker may have been written.
                let refused = BrokerError::of(&e)
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
                match refused {
                    Some(code) if code == "CLUSTER_AUTHORIZATION_FAILED" => {
                        Applied::new(Status::Error, codes::FAILED, message)
                            .server_code(Some(code))
                            .advice("WriteTxnMarkers needs ClusterAction on the CLUSTER resource")
                    }
                    Some(code) => {
                        Applied::new(Status::Error, codes::FAILED, message).server_code(Some(code))
                    }
                    None => Applied::new(Status::Unknown, codes::FAILED, message),
                }
            }
        }
    }
}

impl Subject for Marker<'_> {
    type Proposal = Abort;

    fn proposal(&self) -> &Abort {
        &self.abort
    }

    async fn preflight(&mut self) -> Result<Option<crate::findings::Finding>> {
        // Whether the principal has ClusterAction shows only in the answer to the marker,
        // which leaves nothing written when it is refused.
        Ok(None)
    }

    /// The prompt may have taken minutes: act only if it is still the same open
    /// transaction (with transaction.version 0 a producer keeps its epoch across
    /// transactions, and the marker would end whichever one is open now).
    async fn still_valid(&mut self) -> Option<Applied> {
        let tp = self.abort.open.tp.clone();
        let p = &self.abort.open.producer;
        let now = self
            .cluster
            .describe_producers(std::slice::from_ref(&tp))
            .await
            .remove(&tp);
        let applied = match now {
            Some(Ok(now)) => {
                if still_open(p, &now) {
                    return None;
                }
                Applied::new(
                    Status::Refused,
                    codes::CHANGED_MEANWHILE,
                    "REFUSED: the transaction changed between the confirmation and the action (ended, or another one opened): nothing sent",
                )
            }
            Some(Err(e)) => Applied::new(
                Status::Error,
                codes::FAILED,
                format!("nothing sent: the partition's producers could not be read again before acting: {e:#}"),
            ),
            None => Applied::new(
                Status::Error,
                codes::FAILED,
                "nothing sent: the partition's producers could not be read again before acting (no answer for it)",
            ),
        };
        self.read_after().await;
        Some(applied)
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let open = &self.abort.open;
        #[allow(clippy::disallowed_methods)] // the one place a marker is written
        let sent = self
            .cluster
            .write_abort_marker(
                &open.tp,
                open.producer.producer_id,
                producer_epoch(&open.producer),
                open.coordinator_epoch,
            )
            .await;
        self.read_after().await;
        self.outcome(sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lso_after_the_marker_moved_on_or_is_still_held() {
        assert_eq!(
            lso_moved(Some(100), Some((130, 120))),
            "; LSO moved from 100 to 120 (gap now 10)"
        );
        assert_eq!(
            lso_moved(Some(100), Some((130, 130))),
            "; LSO moved from 100 to 130 (gap now 0)"
        );
        assert!(lso_moved(Some(100), Some((130, 100)))
            .starts_with("; the LSO is still at 100: another open transaction holds it"));
        assert_eq!(lso_moved(None, Some((130, 120))), "");
        assert_eq!(lso_moved(Some(100), None), "");
    }

    #[test]
    fn only_the_same_producer_epoch_and_first_offset_is_still_the_transaction_confirmed() {
        let p = |id: i64, epoch: i32, start: i64| ProducerState {
            producer_id: id,
            producer_epoch: epoch,
            coordinator_epoch: 0,
            last_sequence: 0,
            last_timestamp_ms: 0,
            current_txn_start_offset: start,
        };
        let confirmed = p(7, 2, 40);
        assert!(still_open(&confirmed, &[p(8, 0, 10), p(7, 2, 40)]));
        assert!(
            !still_open(&confirmed, &[p(7, 2, 55)]),
            "its next transaction"
        );
        assert!(!still_open(&confirmed, &[p(7, 3, 40)]), "a new epoch");
        assert!(!still_open(&confirmed, &[p(7, 2, -1)]), "ended");
        assert!(!still_open(&confirmed, &[]));
    }

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
    fn a_transaction_its_coordinator_owns_or_that_cannot_be_judged_needs_force() {
        let long = Judged {
            verdict: Some(Verdict::Long),
            unjudgeable: None,
            unreadable: &[],
            reason: Some("its coordinator lists it (Ongoing)"),
        };
        assert_eq!(
            refusal(&long, false).map(|r| r.0.name()),
            Some("owned_by_coordinator")
        );
        assert_eq!(refusal(&long, true), None);
        let old = Judged {
            verdict: None,
            unjudgeable: Some("cannot tell whether it hangs: Kafka 2.8"),
            unreadable: &[],
            reason: None,
        };
        assert_eq!(refusal(&old, false).map(|r| r.0.name()), Some("not_judged"));
        assert_eq!(refusal(&old, true), None);
        let unread = [("broker 1".to_string(), "timed out".to_string())];
        let blind = Judged {
            verdict: Some(Verdict::Hanging),
            unjudgeable: None,
            unreadable: &unread,
            reason: None,
        };
        assert!(refusal(&blind, true).is_some_and(|r| r.1.contains("broker 1: timed out")));
        let hanging = Judged {
            unreadable: &[],
            ..blind
        };
        assert_eq!(refusal(&hanging, false), None);
    }
}
