//! `indoubt kafka transactions`: what the transaction coordinators know, listed on every
//! broker and described through each id's coordinator.

mod settings;

use super::kafka_common::{self, format_ms, now_ms};
use crate::cli::CheckKind;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::transactions::TransactionDescription;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView};
use crate::settings::kafka::TransactionsSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct TransactionsReport {
    transactions: Vec<Transaction>,
}

#[derive(Debug, Serialize)]
struct Transaction {
    #[serde(flatten)]
    description: TransactionDescription,
    /// Now minus the start time, for an open (Ongoing or Prepare*) transaction.
    duration_seconds: Option<f64>,
}

/// What the coordinators said: the I/O half, which [`report_of`] judges.
pub(crate) struct TransactionsSnapshot {
    target: crate::report::Target,
    /// The brokers that could not list their transactions.
    findings: Vec<Finding>,
    described: std::collections::BTreeMap<String, Result<TransactionDescription>>,
    /// Ids a broker listed without filtering by duration (before Kafka 3.8).
    unfiltered: std::collections::BTreeSet<String>,
    read_at_ms: i64,
}

/// `kafka transactions` as a probe (`check` does not run it).
pub(crate) struct KafkaTransactions;

impl Inspect for KafkaTransactions {
    type Args = settings::TransactionsArgs;
    type Settings = TransactionsSettings;
    type Gathered = TransactionsSnapshot;
    type Data = TransactionsReport;
    const NAME: &'static str = "kafka transactions";
    const SELECTION: Option<CheckKind> = None;
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("Ongoing transactions older than 15 minutes", "indoubt kafka transactions -b kafka1:9092 --state Ongoing --min-duration 15m"),
            example!("One transactional id", "indoubt kafka transactions -b kafka1:9092 --transactional-id orders-relay-1"),
        ],
        see_also: &[],
        codes: &[
            codes::TRANSACTIONS,
            codes::TRANSACTIONS_UNREADABLE,
            codes::TRANSACTION_PAST_TIMEOUT,
            codes::TRANSACTION_UNREADABLE,
        ],
    };

    fn settings(
        t: &Targets,
        _thresholds: &Thresholds,
        args: Self::Args,
    ) -> Result<TransactionsSettings> {
        settings::transactions(t, args)
    }

    async fn gather(ctx: &Context, s: &TransactionsSettings) -> Result<TransactionsSnapshot> {
        read(ctx, s).await
    }

    fn report(
        _ctx: &Context,
        s: &TransactionsSettings,
        g: TransactionsSnapshot,
    ) -> Report<TransactionsReport> {
        report_of(
            g.target,
            g.findings,
            g.described,
            &g.unfiltered,
            s,
            g.read_at_ms,
        )
    }
}

async fn read(ctx: &Context, s: &TransactionsSettings) -> Result<TransactionsSnapshot> {
    let (target, cluster) = kafka_common::open(ctx, &s.cluster, Some(&[])).await?;
    let mut findings = Vec::new();
    // Ids from brokers that could not filter by duration (before Kafka 3.8): filtered
    // here on the start time DescribeTransactions gives.
    let mut unfiltered = std::collections::BTreeSet::new();
    let ids: Vec<String> = match &s.transactional_id {
        Some(id) => vec![id.clone()],
        None => {
            let mut ids = Vec::new();
            for (broker, listing) in cluster
                .list_transactions(&s.state, &[], s.min_duration)
                .await
            {
                match listing {
                    Ok(list) => {
                        for l in list.transactions {
                            if s.min_duration.is_some() && !list.duration_filtered {
                                unfiltered.insert(l.transactional_id.clone());
                            }
                            ids.push(l.transactional_id);
                        }
                    }
                    Err(e) => findings.push(
                        Finding::new(Severity::Unknown, codes::TRANSACTIONS_UNREADABLE, format!("broker {broker}"), format!("ListTransactions failed: {e:#}"))
                            .advice("the principal needs DESCRIBE on the TransactionalId resources (or on the cluster)"),
                    ),
                }
            }
            ids.sort();
            ids.dedup();
            ids
        }
    };
    let described = cluster.describe_transactions(&ids).await;
    Ok(TransactionsSnapshot {
        target,
        findings,
        described,
        unfiltered,
        read_at_ms: now_ms(),
    })
}

/// The report from what the coordinators said, read at `now` (ms): the open
/// transactions' durations, those past their timeout as findings.
fn report_of(
    target: crate::report::Target,
    mut findings: Vec<Finding>,
    described: std::collections::BTreeMap<String, Result<TransactionDescription>>,
    unfiltered: &std::collections::BTreeSet<String>,
    s: &TransactionsSettings,
    now: i64,
) -> Report<TransactionsReport> {
    let mut transactions = Vec::new();
    for (id, described) in described {
        match described {
            Ok(d) => {
                // Only an open transaction has a running duration; a completed one keeps its old start time.
                let open = matches!(
                    d.state.as_str(),
                    "Ongoing" | "PrepareCommit" | "PrepareAbort" | "PrepareEpochFence"
                );
                let duration = (open && d.start_time_ms >= 0)
                    .then(|| now.saturating_sub(d.start_time_ms).max(0) as f64 / 1000.0);
                // As the broker filters (TransactionStateManager): now minus the start
                // time must exceed it, whatever the state.
                if let (true, Some(min)) = (unfiltered.contains(&id), s.min_duration) {
                    let min_ms = min.as_millis().min(i64::MAX as u128) as i64;
                    if now.saturating_sub(d.start_time_ms) <= min_ms {
                        continue;
                    }
                }
                if let Some(seconds) = duration.filter(|s| *s * 1000.0 > f64::from(d.timeout_ms)) {
                    findings.push(
                        Finding::new(
                            Severity::Warning,
                            codes::TRANSACTION_PAST_TIMEOUT,
                            format!("transactional id {id}"),
                            format!(
                                "{} for {}, past its transaction.timeout.ms of {}: the coordinator should have aborted it",
                                d.state,
                                format_duration(Duration::from_secs_f64(seconds)),
                                format_duration(Duration::from_millis(d.timeout_ms.max(0) as u64))
                            ),
                        )
                        .evidence("source", "DescribeTransactions")
                        .evidence("coordinator", d.coordinator)
                        .evidence("start_time_ms", d.start_time_ms),
                    );
                }
                transactions.push(Transaction {
                    description: d,
                    duration_seconds: duration,
                });
            }
            Err(e) => findings.push(Finding::new(
                Severity::Unknown,
                codes::TRANSACTION_UNREADABLE,
                format!("transactional id {id}"),
                format!("DescribeTransactions failed: {e:#}"),
            )),
        }
    }
    // Open transactions first, the longest running first: those are what holds an LSO
    // back; completed ones (which keep an old start time) after them.
    transactions.sort_by(|a, b| {
        b.duration_seconds
            .is_some()
            .cmp(&a.duration_seconds.is_some())
            .then(
                b.duration_seconds
                    .unwrap_or(0.0)
                    .total_cmp(&a.duration_seconds.unwrap_or(0.0)),
            )
            .then_with(|| {
                a.description
                    .transactional_id
                    .cmp(&b.description.transactional_id)
            })
    });
    if findings.is_empty() {
        let open: Vec<String> = transactions
            .iter()
            .filter_map(|t| {
                let seconds = t.duration_seconds?;
                Some(format!(
                    "{} ({} for {})",
                    t.description.transactional_id,
                    t.description.state,
                    format_duration(Duration::from_secs_f64(seconds))
                ))
            })
            .collect();
        const NAMED: usize = 5;
        let named = match open.len() {
            0 => "none open".to_string(),
            n if n <= NAMED => format!("{n} open: {}", open.join(", ")),
            n => format!("{n} open, the longest: {}, …", open[..NAMED].join(", ")),
        };
        findings.push(
            Finding::new(
                Severity::Ok,
                codes::TRANSACTIONS,
                "transactions",
                format!(
                    "{} transaction(s), {named}; none past its timeout",
                    transactions.len()
                ),
            )
            .evidence("source", "ListTransactions, DescribeTransactions")
            .evidence("open", open.len()),
        );
    }
    Report::new(
        "kafka transactions",
        target,
        findings,
        TransactionsReport { transactions },
    )
}

impl TableView for TransactionsReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.transactions.is_empty() {
            return Vec::new();
        }
        let mut table = style.table(&[
            "TRANSACTIONAL ID",
            "COORDINATOR",
            "STATE",
            "PRODUCER",
            "TIMEOUT",
            "STARTED",
            "PARTITIONS",
        ]);
        for t in &self.transactions {
            let d = &t.description;
            let started = match t.duration_seconds {
                Some(s) => shown!(
                    "{}\n{} ago",
                    format_ms(d.start_time_ms),
                    format_duration(Duration::from_secs_f64(s))
                ),
                None => Shown::lit("-"),
            };
            let partitions = d.partitions.iter().map(|(t, p)| shown!("{}-{}", t, p));
            table.add_row(vec![
                Cell::new(&d.transactional_id),
                Cell::new(d.coordinator),
                Cell::new(&d.state),
                Cell::new(shown!("{} epoch {}", d.producer_id, d.producer_epoch)),
                Cell::new(format_duration(Duration::from_millis(
                    d.timeout_ms.max(0) as u64
                ))),
                Cell::new(started),
                // An empty cell would read as "not known".
                Cell::new(match d.partitions.is_empty() {
                    true => Shown::lit("-"),
                    false => Shown::join(partitions, "\n"),
                }),
            ]);
        }
        table.optional(1);
        table.optional(4);
        vec![table.render()]
    }
}

#[cfg(test)]
mod golden;
