//! `indoubt resolve outbox NAME`: publishes the rows the outbox's relay skipped for good
//! (the `outbox_skipped_rows` set, read again now) with the message its relay would have
//! made, the row's id in the id header, through librdkafka's idempotent producer; marks
//! the acknowledged ones published as the relay does. What cannot be sent is found
//! before anything is: a NULL value or key, a column of no usable type, a topic the
//! cluster does not have.

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::pg::republish::{self, Skipped};
use crate::pg::session;
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::outbox::Republish;
use crate::resolve::flow::{self, Plan, Recorded};
use crate::settings::republish::{ResolveOutboxSettings, TopicRule};
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::{Context as _, Result};
use serde::Serialize;

/// How many ids the confirmation and the report name.
const FIRST: usize = 10;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveOutboxReport {
    outbox: String,
    table: String,
    topic: String,
    /// The skipped rows found, and the first of their ids.
    rows: usize,
    first_ids: Vec<String>,
    #[serde(flatten)]
    recorded: Recorded,
    #[serde(skip)]
    blocks: Vec<Block>,
}

pub async fn run(ctx: &Context, s: &ResolveOutboxSettings) -> Result<Severity> {
    let o = &s.outbox;
    let target = o.target.clone().map_err(anyhow::Error::msg)?;
    let report_target = target.report_target();
    let mut data = ResolveOutboxReport {
        outbox: o.name.clone(),
        table: o.table.clone(),
        topic: s.topic.describe(),
        rows: 0,
        first_ids: Vec::new(),
        recorded: Recorded::default(),
        blocks: Vec::new(),
    };
    let subject = text!["outbox ", o.name];
    let session = session::connect(&target.params, ctx.timeout).await?;
    let types = republish::check_columns(&session, &s.layout)
        .await
        .map_err(|e| {
            crate::error::hinted(
                format!("outbox {}: {e:#}", o.name),
                "name the columns its relay makes the message of under outbox: NAME: publish: (see `man 5 indoubt-config`)",
            )
        })?;
    let skipped: Skipped = republish::skipped(&session, &s.layout, o.settle.value.as_secs_f64())
        .await
        .with_context(|| format!("reading the skipped rows of {}", o.table))?;
    drop(session);
    data.rows = skipped.rows.len();
    data.first_ids = skipped
        .rows
        .iter()
        .take(FIRST)
        .map(|p| p.id.clone())
        .collect();
    if skipped.rows.is_empty() {
        let finding = Finding::new(
            Severity::Ok,
            codes::ALREADY_RESOLVED,
            subject,
            format!(
                "nothing to publish: no unpublished row of {} lies below the highest published id and is older than {}",
                o.table,
                crate::units::format_duration(o.settle.value)
            ),
        );
        return super::finish(ctx, "resolve outbox", report_target, vec![finding], data);
    }
    let refuse = |message: String, advice: String| {
        Finding::new(
            Severity::Unknown,
            codes::NOT_JUDGED,
            subject.clone(),
            message,
        )
        .advice(advice)
    };
    // Every kind said at once: fixing one should not reveal another only on a rerun.
    let nulls: Vec<Finding> = [
        (&skipped.null_value, "value", Some(&s.layout.value)),
        (&skipped.null_key, "key", s.layout.key.as_ref()),
    ]
    .into_iter()
    .filter(|(ids, _, _)| !ids.is_empty())
    .map(|(ids, what, column)| {
        refuse(
            format!(
                "nothing sent: {} skipped row(s) have a NULL {what} ({}: {}): no relay publishes those",
                ids.len(),
                column.map_or("?", String::as_str),
                super::first_ids(ids, FIRST)
            ),
            "look at those rows in the service that wrote them; publish or delete them there".into(),
        )
    })
    .collect();
    let mut refusals = nulls;
    if !skipped.duplicate_ids.is_empty() {
        refusals.push(refuse(
            format!(
                "nothing sent: {} id(s) are each on more than one skipped row ({}: {}): one message with that id would stand for several rows",
                skipped.duplicate_ids.len(),
                s.layout.id,
                super::first_ids(&skipped.duplicate_ids, FIRST)
            ),
            "an outbox's id must be unique (a primary key): tell the rows apart in the service that wrote them".into(),
        ));
    }
    if !refusals.is_empty() {
        return super::finish(ctx, "resolve outbox", report_target, refusals, data);
    }
    let topics: Vec<String> = match &s.topic {
        TopicRule::Fixed(t) => vec![t.clone()],
        TopicRule::Column { prefix, .. } => skipped
            .topic_values
            .iter()
            .map(|v| format!("{prefix}{v}"))
            .collect(),
    };
    let (_, cluster) = super::kafka_common::open(ctx, &s.cluster, Some(&topics)).await?;
    let missing: Vec<String> = topics
        .iter()
        .filter(|t| !cluster.topics.contains_key(*t) || cluster.topic_errors.contains_key(*t))
        .map(|t| match cluster.topic_errors.get(t) {
            Some(e) => format!("{t} ({e})"),
            None => t.clone(),
        })
        .collect();
    if !missing.is_empty() {
        let finding = refuse(
            format!(
                "nothing sent: the cluster has no topic {} (or does not let this principal describe it)",
                missing.join(", ")
            ),
            "create the topic the relay publishes to, or fix publish: topic: in the config".into(),
        );
        return super::finish(ctx, "resolve outbox", report_target, vec![finding], data);
    }
    let token = super::kafka_common::producer_login(ctx, &s.cluster.client, &s.producer).await?;
    let claim = republish::claim_statement(&s.layout, &types);
    let plan = Plan {
        decision: "publish",
        heuristic: false,
        action: format!(
            "produce {} message(s) to {} (idempotent, acks=all{}), the row id in header {}, each batch's rows read and marked published by {claim} in a transaction committed once every row of it is acknowledged (otherwise rolled back, and the acknowledged rows marked by the same UPDATE returning their ids only)",
            skipped.rows.len(),
            s.topic.describe(),
            s.producer
                .transactional_id
                .as_deref()
                .map_or(String::new(), |id| format!(", transactional.id {id}")),
            s.id_header
        ),
    };
    let mut block = Block::new(shown!("outbox {} ({})", o.name, o.table));
    block
        .field(
            "rows",
            shown!(
                "{} skipped (unpublished below the highest published id, older than {}): {}",
                skipped.rows.len(),
                crate::units::format_duration(o.settle.value),
                super::first_ids(&skipped.rows.iter().map(|p| p.id.clone()).collect::<Vec<_>>(), FIRST)
            ),
        )
        .field("topic", shown!("{}", s.topic.describe()))
        .field(
            "message",
            shown!(
                "key {}, value {}, headers {}{}",
                s.layout.key.as_deref().unwrap_or("(none)"),
                s.layout.value,
                s.id_header,
                s.layout
                    .headers
                    .iter()
                    .map(|(h, c)| format!(", {h} ({c})"))
                    .collect::<String>()
            ),
        )
        .field(
            "producer",
            shown!(
                "{} as {}, idempotent, acks=all{}",
                s.cluster.client.bootstrap.join(","),
                s.cluster.client.security.protocol(),
                s.producer
                    .transactional_id
                    .as_deref()
                    .map_or(String::new(), |id| format!(", transactional.id {id}"))
            ),
        )
        .whole("then", shown!("{}", claim))
        .field(
            "guard",
            shown!("a row is sent only if still unpublished and unchanged since read; each batch is read and marked by the statement above in one transaction, committed only once every row of it is acknowledged (else rolled back, and the acknowledged rows marked alone)"),
        );
    data.blocks.push(block.clone());
    let mut subjects = vec![Republish {
        name: o.name.clone(),
        report_target: report_target.clone(),
        params: target.params.clone(),
        layout: s.layout.clone(),
        types,
        topic: s.topic.clone(),
        id_header: s.id_header.clone(),
        client: s.cluster.client.clone(),
        producer: s.producer.clone(),
        token,
        pending: skipped.rows,
        plan,
        summary: vec![block],
        timeout: ctx.timeout,
    }];
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve outbox", report_target, findings, data)
}

impl TableView for ResolveOutboxReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.recorded.lines(&self.blocks, style)
    }
}
