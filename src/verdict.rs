//! Whether an open transaction on a partition is hanging (its coordinator will never end
//! it) or merely long (the coordinator owns it and will abort it at its timeout) — the
//! last two steps of kafka-transactions.sh's find-hanging. Application logic on top of
//! the Kafka client: what its answers mean for an operator.

use crate::kafka::cluster::{Cluster, TopicPartition};
use crate::kafka::conn::{BrokerError, Unsupported};
use crate::kafka::transactions::ProducerState;
use crate::units::format_duration;
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::ApiKey;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Hanging,
    Long,
}

/// Whether the principal may DESCRIBE a transactional id no ACL names: ListTransactions
/// leaves out the ids it may not, so an unlisted producer is hanging only if it may.
enum Describe {
    Allowed,
    Denied,
    Unknown(String),
}

/// DescribeTransactions of an id no producer uses: the broker checks DESCRIBE first, so
/// TRANSACTIONAL_ID_NOT_FOUND means allowed.
async fn may_describe_unnamed_ids(cluster: &Cluster) -> Describe {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let probe = format!("indoubt-describe-probe-{}-{nanos:x}", std::process::id());
    let answers = cluster
        .describe_transactions(std::slice::from_ref(&probe))
        .await;
    match answers.get(&probe) {
        Some(Ok(_)) => Describe::Allowed,
        Some(Err(e)) => match BrokerError::of(e).map(|b| &b.error) {
            Some(ResponseError::TransactionalIdNotFound) => Describe::Allowed,
            Some(ResponseError::TransactionalIdAuthorizationFailed) => Describe::Denied,
            _ => Describe::Unknown(format!("{e:#}")),
        },
        None => Describe::Unknown("DescribeTransactions gave no answer for it".to_string()),
    }
}

#[derive(Debug, Clone)]
pub struct Judged {
    pub tp: TopicPartition,
    pub producer: ProducerState,
    pub transactional_id: Option<String>,
    pub coordinator: Option<i32>,
    pub verdict: Verdict,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Judgement {
    pub judged: Vec<Judged>,
    /// (subject, what could not be read): the transactions these hide are not judged.
    pub unreadable: Vec<(String, String)>,
    /// Open transactions that cannot be judged on these brokers, and why: brokers before
    /// Kafka 3.0 have no ListTransactions (nor DescribeTransactions), so no transactional
    /// id can be named. Not a failure to ask: asking again tells no more.
    pub unjudgeable: Vec<(TopicPartition, ProducerState, String)>,
}

/// ListTransactions (by producer id) on every broker, then DescribeTransactions through
/// each id's coordinator: no id, an unknown id, another producer, or a transaction
/// without this partition is hanging; anything else its coordinator still owns.
pub async fn judge(
    cluster: &Cluster,
    candidates: Vec<(TopicPartition, ProducerState)>,
) -> Judgement {
    let mut out = Judgement::default();
    let pids: Vec<i64> = candidates.iter().map(|(_, p)| p.producer_id).collect();
    let (ids, failed) = cluster.transactional_ids(&pids).await;
    // Brokers too old to list transactions, apart from those that failed to answer.
    let (too_old, failed): (Vec<_>, Vec<_>) = failed.into_iter().partition(|(_, e)| {
        Unsupported::of(e).is_some_and(|u| u.api == ApiKey::ListTransactions && u.offered.is_none())
    });
    let too_old: Vec<String> = too_old.iter().map(|(b, _)| b.to_string()).collect();
    // A broker that could not be asked may coordinate the very id we would call missing.
    let listing_failed = !failed.is_empty();
    for (broker, e) in failed {
        out.unreadable.push((
            format!("broker {broker}"),
            format!("ListTransactions failed, so a transaction it coordinates could look hanging: {e:#}"),
        ));
    }
    let txn_ids: Vec<String> = ids.values().map(|(id, _)| id.clone()).collect();
    let descriptions = cluster.describe_transactions(&txn_ids).await;
    // A producer no broker lists may only be hidden: asked only when one is unlisted.
    let unlisted = candidates
        .iter()
        .any(|(_, p)| !ids.contains_key(&p.producer_id));
    let describe = match unlisted && !listing_failed && too_old.is_empty() {
        true => Some(may_describe_unnamed_ids(cluster).await),
        false => None,
    };
    for (tp, producer) in candidates {
        let listed = ids.get(&producer.producer_id);
        let (verdict, reason) = match listed {
            None if !listing_failed && !too_old.is_empty() => {
                out.unjudgeable.push((
                    tp,
                    producer,
                    format!(
                        "cannot tell whether it hangs: broker(s) {} have no ListTransactions (Kafka before 3.0), so its transactional id and its coordinator's view are unknown",
                        too_old.join(", ")
                    ),
                ));
                continue;
            }
            None if listing_failed => {
                out.unreadable.push((
                    format!("producer {} on {}-{}", producer.producer_id, tp.0, tp.1),
                    "not judged: a broker could not be asked for its transactions".to_string(),
                ));
                continue;
            }
            None => match &describe {
                Some(Describe::Allowed) => (
                    Verdict::Hanging,
                    "no coordinator lists a transactional id for this producer (and this principal may DESCRIBE transactional ids, so none is hidden from it, unless an ACL denies it one by name or prefix)".to_string(),
                ),
                Some(Describe::Denied) => {
                    out.unreadable.push((
                        format!("producer {} on {}-{}", producer.producer_id, tp.0, tp.1),
                        "not judged: this principal may not DESCRIBE transactional ids (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and the brokers list none it may not describe, so its coordinator's view is unknown and a live transaction would look hanging; allow it: kafka-acls.sh --add --allow-principal User:NAME --operation Describe --transactional-id '*'".to_string(),
                    ));
                    continue;
                }
                Some(Describe::Unknown(why)) => {
                    out.unreadable.push((
                        format!("producer {} on {}-{}", producer.producer_id, tp.0, tp.1),
                        format!("not judged: no broker lists its transactional id, and whether this principal may DESCRIBE transactional ids (which the listing needs) could not be told: {why}"),
                    ));
                    continue;
                }
                // Not asked: only when a listing failed or a broker is too old, which
                // the arms above report.
                None => continue,
            },
            Some((id, _)) => match descriptions.get(id) {
                Some(Ok(d)) if d.producer_id != producer.producer_id => (
                    Verdict::Hanging,
                    format!("transactional id {id} now belongs to producer {}", d.producer_id),
                ),
                Some(Ok(d)) if !d.partitions.contains(&tp) => (
                    Verdict::Hanging,
                    format!(
                        "the coordinator's transaction of {id} ({}) does not include this partition: it will never write a marker here",
                        d.state
                    ),
                ),
                Some(Ok(d)) => (
                    Verdict::Long,
                    format!(
                        "the coordinator still owns it ({}, timeout {})",
                        d.state,
                        format_duration(Duration::from_millis(d.timeout_ms.max(0) as u64))
                    ),
                ),
                Some(Err(e)) if BrokerError::of(e).is_some_and(|b| b.error == ResponseError::TransactionalIdNotFound) => {
                    (Verdict::Hanging, format!("the coordinator does not know transactional id {id}"))
                }
                Some(Err(e)) => {
                    out.unreadable.push((format!("transactional id {id}"), format!("DescribeTransactions failed: {e:#}")));
                    continue;
                }
                // Not asked: only when a listing failed or a broker is too old, which
                // the arms above report.
                None => continue,
            },
        };
        out.judged.push(Judged {
            tp,
            transactional_id: listed.map(|(id, _)| id.clone()),
            coordinator: listed.map(|(_, c)| *c),
            producer,
            verdict,
            reason,
        });
    }
    out
}
