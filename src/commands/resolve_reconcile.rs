//! `indoubt resolve reconcile JOB`: publishes the ids the job finds missing in its topic
//! (a comparison now, or the `missing` lines of an `--ids-out` file) with the messages its
//! republish query builds from the source of truth, through librdkafka's idempotent
//! producer. Before the confirmation every id's message is built once and checked to
//! carry the id where the job reads it, and the topic is read for the ids (one that is
//! there now is left out); right before sending it is read again from there.

use crate::codes;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::reconcile::topic::{self, Found, Since};
use crate::report::evidence::Block;
use crate::report::table::Style;
use crate::report::TableView;
use crate::resolve::apply::reconcile::{Destination, Missing, Source};
use crate::resolve::apply::republish::{Fetched, Rows, BATCH};
use crate::resolve::flow::{self, Plan, Recorded};
use crate::settings::republish::ResolveReconcileSettings;
use crate::shown;
use crate::term::Shown;
use crate::text;
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

/// How many ids the confirmation and the report name.
const FIRST: usize = 10;

/// The largest --ids-from file read: 100,000,000 ids of 10 bytes, a memory bound.
const IDS_FROM_LIMIT: u64 = 1 << 30;

#[derive(Debug, Serialize)]
pub(crate) struct ResolveReconcileReport {
    job: String,
    topic: String,
    /// Where the ids came from: the comparison now, or the file.
    ids_from: String,
    /// The ids found missing (or listed), and those of them left out before the
    /// confirmation, by why.
    candidates: usize,
    left_out: BTreeMap<String, usize>,
    /// The ids to publish, and the first of them.
    ids: usize,
    first_ids: Vec<String>,
    #[serde(flatten)]
    recorded: Recorded,
    #[serde(skip)]
    blocks: Vec<Block>,
}

pub async fn run(ctx: &Context, s: &ResolveReconcileSettings) -> Result<Severity> {
    let c = &s.compare;
    let report_target = c.pg.report_target();
    let mut data = ResolveReconcileReport {
        job: s.job.clone(),
        topic: c.topic.clone(),
        ids_from: s.ids_from.as_ref().map_or_else(
            || "the job's comparison now".to_string(),
            |p| p.display().to_string(),
        ),
        candidates: 0,
        left_out: BTreeMap::new(),
        ids: 0,
        first_ids: Vec::new(),
        recorded: Recorded::default(),
        blocks: Vec::new(),
    };
    let subject = text!["reconcile job ", s.job];
    let destination = Destination {
        topic: c.topic.clone(),
        id_from: c.id_from.clone(),
        id_from_text: s.id_from_text.clone(),
    };
    // The query's shape is checked before anything else is read.
    let source = Source::open(&c.pg.params, &s.query, &destination, ctx.timeout)
        .await
        .map_err(|e| {
            crate::error::hinted(
                format!("reconcile job {}: {e:#}", s.job),
                "republish: query: takes $1 = the ids (text[]) and returns columns id and value (key and headers optional; see `man 5 indoubt-config`)",
            )
        })?;
    // A comparison run now looked for its ids in the topic, to where it read: that look
    // is the one the send starts from. A file's ids are looked for below.
    let (candidates, compared_to) = match &s.ids_from {
        Some(path) => {
            let bytes = crate::fsafe::read_input(path, "--ids-from file", IDS_FROM_LIMIT)?;
            let ids = super::reconcile::missing_in_ids_file(&bytes)
                .with_context(|| format!("reading --ids-from {}", path.display()))?;
            (ids, None)
        }
        None => {
            let (ids, read_to) = super::reconcile::missing_ids(ctx, c).await?;
            (ids, Some(read_to))
        }
    };
    data.candidates = candidates.len();
    if candidates.is_empty() {
        let finding = Finding::new(
            Severity::Ok,
            codes::ALREADY_RESOLVED,
            subject,
            match &s.ids_from {
                Some(path) => format!("nothing to publish: {} lists no missing id", path.display()),
                None => format!(
                    "nothing to publish: every id of the window [{}, {}) is in {}",
                    c.since.format("%Y-%m-%d %H:%M:%S"),
                    c.until.format("%Y-%m-%d %H:%M:%S"),
                    c.topic
                ),
            },
        );
        return super::finish(ctx, "resolve reconcile", report_target, vec![finding], data);
    }
    let kafka_timeout = ctx.timeout.max(Duration::from_secs(30));
    let budget = super::reconcile::budget(c)?;
    let found = match compared_to {
        Some(ends) => Found {
            ends,
            ..Found::default()
        },
        // Read for these ids from the window's start (less the slack) to now.
        None => {
            let wanted: HashSet<String> = candidates.iter().cloned().collect();
            let opened = topic::open(&c.kafka.client, &c.topic, kafka_timeout)
                .await
                .with_context(|| format!("reading topic {}", c.topic))?;
            let from = crate::units::time_before(c.since, c.slack).timestamp_millis();
            topic::find(
                &opened,
                &c.id_from,
                &Since::Time(from),
                &wanted,
                kafka_timeout,
                &budget,
            )
            .await
            .with_context(|| format!("reading topic {} for the ids", c.topic))?
        }
    };
    // Each remaining id's message built once: what cannot be sent is known now.
    let mut ids = Vec::new();
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    for id in candidates {
        let why = match (found.seen.contains(&id), found.past_lso.contains(&id)) {
            (true, _) => "in the topic now",
            (false, true) => "named past a last stable offset (an open transaction may publish it)",
            (false, false) => {
                ids.push(id);
                continue;
            }
        };
        *left_out.entry(why.to_string()).or_default() += 1;
    }
    let mut sendable = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(BATCH) {
        // The source writes nothing: its slots are the same read.
        for f in source.fetch(chunk, 0).await? {
            match f {
                Fetched::Send { id, .. } => sendable.push(id),
                Fetched::Left { why, .. } | Fetched::Done { why, .. } => {
                    *left_out.entry(why.into_owned()).or_default() += 1
                }
            }
        }
    }
    data.left_out = left_out.clone();
    data.ids = sendable.len();
    data.first_ids = sendable.iter().take(FIRST).cloned().collect();
    let left_text = left_out
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect::<Vec<_>>()
        .join("; ");
    if sendable.is_empty() {
        let finding = Finding::new(
            Severity::Unknown,
            codes::NOT_JUDGED,
            subject,
            format!(
                "nothing sent: none of the {} id(s) can be published: {left_text}",
                data.candidates
            ),
        )
        .advice("an id in the topic now needs nothing; for the others fix the republish query (its message must carry the id where the job reads it) or the source");
        return super::finish(ctx, "resolve reconcile", report_target, vec![finding], data);
    }
    let token = super::kafka_common::producer_login(ctx, &c.kafka.client, &s.producer).await?;
    let query = source.query();
    let transactional = s
        .producer
        .transactional_id
        .as_deref()
        .map_or(String::new(), |id| format!(", transactional.id {id}"));
    let plan = Plan {
        decision: "publish",
        heuristic: false,
        action: format!(
            "produce {} message(s) built by the job's republish query to {} (idempotent, acks=all{transactional}), each carrying its id where the job reads it ({})",
            sendable.len(),
            c.topic,
            destination.id_from_text
        ),
    };
    let mut block = Block::new(shown!("reconcile job {} → {}", s.job, c.topic));
    block
        .field(
            "ids",
            shown!(
                "{} to publish, of {} found missing ({}): {}",
                sendable.len(),
                data.candidates,
                data.ids_from,
                super::first_ids(&sendable, FIRST)
            ),
        )
        .field(
            "message",
            shown!(
                "value, {}, headers {}; the id where the job reads it ({})",
                if query.has_key() {
                    "key"
                } else {
                    "no key column"
                },
                match query.header_names() {
                    h if h.is_empty() => "(none)".to_string(),
                    h => h.join(", "),
                },
                destination.id_from_text
            ),
        )
        .field(
            "producer",
            shown!(
                "{} as {}, idempotent, acks=all{}",
                c.kafka.client.bootstrap.join(","),
                c.kafka.client.security.protocol(),
                transactional
            ),
        )
        .field(
            "guard",
            shown!("the topic is read again right before sending: an id in it by then is left out"),
        );
    if !left_text.is_empty() {
        block.field("left out", shown!("{}", left_text));
    }
    data.blocks.push(block.clone());
    drop(source);
    let mut subjects = vec![Missing {
        job: s.job.clone(),
        report_target: report_target.clone(),
        params: c.pg.params.clone(),
        query: s.query.clone(),
        destination,
        client: c.kafka.client.clone(),
        producer: s.producer.clone(),
        token,
        ids: sendable,
        looked_to: found.ends,
        appeared: Vec::new(),
        budget,
        plan,
        summary: vec![block],
        timeout: ctx.timeout,
        kafka_timeout,
    }];
    let done = flow::run(ctx, &s.confirm, &mut subjects).await?;
    let (findings, recorded) = Recorded::of(done);
    data.recorded = recorded;
    super::finish(ctx, "resolve reconcile", report_target, findings, data)
}

impl TableView for ResolveReconcileReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.recorded.lines(&self.blocks, style)
    }
}
