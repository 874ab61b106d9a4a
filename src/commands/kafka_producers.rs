//! `indoubt kafka producers`: DescribeProducers for one partition.

use super::kafka_common::{self, format_ms, now_ms};
use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::kafka::transactions::ProducerState;
use crate::report::table::{Cell, Style};
use crate::report::{self, Report, TableView};
use crate::settings::kafka::ProducersSettings;
use crate::shown;
use crate::term::Shown;
use crate::units::format_duration;
use anyhow::Result;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Serialize)]
struct ProducersReport {
    topic: String,
    partition: i32,
    leader: Option<i32>,
    producers: Vec<ProducerState>,
}

pub async fn run(ctx: &Context, s: &ProducersSettings) -> Result<Severity> {
    let topics = [s.topic.clone()];
    let (target, cluster) = kafka_common::open(ctx, &s.cluster, Some(&topics)).await?;
    let tp = (s.topic.clone(), s.partition);
    let mut findings = kafka_common::topic_errors(&cluster);
    let leader = cluster.leader(&tp).ok();
    let producers = match cluster
        .describe_producers(std::slice::from_ref(&tp))
        .await
        .remove(&tp)
    {
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
    let report = Report::new(
        "kafka producers",
        target,
        findings,
        ProducersReport {
            topic: tp.0,
            partition: tp.1,
            leader,
            producers,
        },
    );
    report::emit(&report, ctx.output, &ctx.style)?;
    Ok(report.status)
}

impl TableView for ProducersReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        if self.producers.is_empty() {
            return Vec::new();
        }
        let now = now_ms();
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
