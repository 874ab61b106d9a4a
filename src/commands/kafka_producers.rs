//! `indoubt kafka producers`: DescribeProducers for one partition.

mod settings;

use super::kafka_common::{self, format_ms, now_ms};
use crate::cli::CheckKind;
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::conn::BrokerError;
use crate::kafka::transactions::ProducerState;
use crate::report::table::{Cell, Style};
use crate::report::{Report, TableView, Target};
use crate::settings::kafka::ProducersSettings;
use crate::settings::probe::{example, Inspect, Pages};
use crate::settings::{targets::Targets, Thresholds};
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Serialize)]
pub(crate) struct ProducersReport {
    topic: String,
    partition: i32,
    leader: Option<i32>,
    producers: Vec<ProducerState>,
    /// When the producers were read (ms): the table's "ago" counts to it.
    #[serde(skip)]
    read_at_ms: i64,
}

/// What the cluster said about the partition: the I/O half, which [`report_of`] reports.
pub(crate) struct ProducersSnapshot {
    pub target: Target,
    /// Topics the metadata named with an error (unknown topic, no access).
    pub topic_errors: BTreeMap<String, BrokerError>,
    /// The partition's leader, when the metadata names one.
    pub leader: Option<i32>,
    /// DescribeProducers of the partition (None: no answer for it).
    pub producers: Option<Result<Vec<ProducerState>>>,
    pub read_at_ms: i64,
}

/// `kafka producers` as a probe (`check` does not run it: it needs a partition).
pub(crate) struct KafkaProducers;

impl Inspect for KafkaProducers {
    type Args = settings::ProducersArgs;
    type Settings = ProducersSettings;
    type Gathered = ProducersSnapshot;
    type Data = ProducersReport;
    const NAME: &'static str = "kafka producers";
    const SELECTION: Option<CheckKind> = None;
    const PAGES: Pages = Pages {
        #[rustfmt::skip]
        examples: &[
            example!("The active producers of one partition", "indoubt kafka producers -b kafka1:9092 --topic orders --partition 0"),
            example!("The same, as JSON", "indoubt -o json kafka producers --kafka prod --topic orders --partition 3"),
        ],
        see_also: &[],
        codes: &[codes::PRODUCERS, codes::PRODUCERS_UNREADABLE],
    };

    fn settings(
        t: &Targets,
        _thresholds: &Thresholds,
        args: Self::Args,
    ) -> Result<ProducersSettings> {
        settings::producers(t, args)
    }

    async fn gather(ctx: &Context, s: &ProducersSettings) -> Result<ProducersSnapshot> {
        let topics = [s.topic.clone()];
        let (target, cluster) = kafka_common::open(ctx, &s.cluster, Some(&topics)).await?;
        let tp = (s.topic.clone(), s.partition);
        let leader = cluster.leader(&tp).ok();
        let producers = cluster
            .describe_producers(std::slice::from_ref(&tp))
            .await
            .remove(&tp);
        Ok(ProducersSnapshot {
            target,
            topic_errors: cluster.topic_errors.clone(),
            leader,
            producers,
            read_at_ms: now_ms(),
        })
    }

    fn report(
        _ctx: &Context,
        s: &ProducersSettings,
        snapshot: ProducersSnapshot,
    ) -> Report<ProducersReport> {
        report_of(s, snapshot)
    }
}

/// The report from what was read: pure, so the golden tests build it as a run does.
fn report_of(s: &ProducersSettings, snapshot: ProducersSnapshot) -> Report<ProducersReport> {
    let tp = (s.topic.clone(), s.partition);
    let leader = snapshot.leader;
    let mut findings = kafka_common::topic_errors(&snapshot.topic_errors);
    let producers = match snapshot.producers {
        Some(Ok(producers)) => {
            let open = producers
                .iter()
                .filter(|p| p.current_txn_start_offset >= 0)
                .count();
            findings.push(
                Finding::new(
                    Severity::Ok,
                    codes::PRODUCERS,
                    format!("partition {}-{}", tp.0, tp.1),
                    format!(
                        "{} active producer(s), {open} with an open transaction",
                        producers.len()
                    ),
                )
                .evidence("source", "DescribeProducers")
                .evidence("leader", leader),
            );
            producers
        }
        Some(Err(e)) => {
            findings.push(Finding::new(
                Severity::Unknown,
                codes::PRODUCERS_UNREADABLE,
                format!("partition {}-{}", tp.0, tp.1),
                format!("{e:#}"),
            ));
            Vec::new()
        }
        None => Vec::new(),
    };
    Report::new(
        "kafka producers",
        snapshot.target,
        findings,
        ProducersReport {
            topic: tp.0,
            partition: tp.1,
            leader,
            producers,
            read_at_ms: snapshot.read_at_ms,
        },
    )
}

impl TableView for ProducersReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.producers.is_empty() {
            return Vec::new();
        }
        let now = self.read_at_ms;
        let mut table = style.table(&[
            "PRODUCER ID",
            "EPOCH",
            "COORDINATOR EPOCH",
            "LAST SEQUENCE",
            "LAST WRITE",
            "OPEN TXN START OFFSET",
        ]);
        for p in &self.producers {
            let ago = Duration::from_millis(now.saturating_sub(p.last_timestamp_ms).max(0) as u64);
            table.add_row(vec![
                Cell::new(p.producer_id),
                Cell::new(p.producer_epoch),
                Cell::new(p.coordinator_epoch),
                Cell::new(p.last_sequence),
                Cell::new(shown!(
                    "{}\n{} ago",
                    format_ms(p.last_timestamp_ms),
                    format_duration(ago)
                )),
                Cell::new(if p.current_txn_start_offset >= 0 {
                    Shown::from(p.current_txn_start_offset)
                } else {
                    Shown::lit("-")
                }),
            ]);
        }
        // What resolve kafka takes (producer, epoch, open offset) first; sequence detail on -o wide.
        table.optional(2);
        table.optional(3);
        vec![
            shown!(
                "{}-{} (leader {})",
                self.topic,
                self.partition,
                self.leader.map_or("?".into(), |l| l.to_string())
            ),
            table.render(),
        ]
    }
}

#[cfg(test)]
mod golden;
