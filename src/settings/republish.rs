//! `resolve outbox` and `resolve reconcile`: the outbox of the config, the messages its
//! relay makes of a row (topic, key, value, headers, the id header), or the reconcile job
//! and its republish query; the cluster and producer they publish with, resolved and
//! checked for sense before anything is read.

use super::kafka::{cluster, Cluster};
use super::pg::{outbox, Outbox};
use super::reconcile::ReconcileSettings;
use super::reconcile_args::ReconcileArgs;
use super::targets::Targets;
use crate::config::OutboxLayout;
use crate::error::hinted;
use crate::kafka::librdkafka::ProducerSettings;
use crate::pg::republish::Layout;
use crate::settings::defaults;
use anyhow::Result;
use std::path::PathBuf;

/// Where a row's message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicRule {
    /// One topic for every row.
    Fixed(String),
    /// A prefix and the row's value of a column (Debezium: `outbox.event.` and aggregatetype).
    Column { prefix: String, column: String },
}

impl TopicRule {
    /// The topic of a row whose topic column holds `value`.
    pub fn of(&self, value: Option<&str>) -> Option<String> {
        match self {
            TopicRule::Fixed(topic) => Some(topic.clone()),
            TopicRule::Column { prefix, .. } => value.map(|v| format!("{prefix}{v}")),
        }
    }

    /// As the confirmation shows it.
    pub fn describe(&self) -> String {
        match self {
            TopicRule::Fixed(topic) => topic.clone(),
            TopicRule::Column { prefix, column } => format!("{prefix}<{column}>"),
        }
    }
}

/// The producer of `name` (an outbox, a job): with `--transactional`, the configured
/// transactional.id or indoubt-republish-NAME; the configured message timeout or 30s.
fn producer(
    name: &str,
    transactional: bool,
    transactional_id: &Option<String>,
    message_timeout: Option<std::time::Duration>,
) -> ProducerSettings {
    ProducerSettings {
        message_timeout: message_timeout
            .unwrap_or(defaults::OUTBOX_PUBLISH_MESSAGE_TIMEOUT.duration()),
        transactional_id: transactional.then(|| {
            transactional_id
                .clone()
                .unwrap_or_else(|| format!("indoubt-republish-{name}"))
        }),
    }
}

/// `resolve outbox NAME`.
pub struct ResolveOutboxSettings {
    pub outbox: Outbox,
    pub cluster: Cluster,
    pub topic: TopicRule,
    pub layout: Layout,
    /// The header holding the row's id.
    pub id_header: String,
    pub producer: ProducerSettings,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_outbox(
    t: &Targets,
    args: crate::cli::ResolveOutboxArgs,
) -> Result<ResolveOutboxSettings> {
    let Some(config) = t.config.config.outbox.get(&args.name) else {
        return Err(hinted(
            format!("no outbox named {:?} in the config", args.name),
            "name an outbox of the config (outbox: NAME:); `indoubt config show` lists them",
        ));
    };
    let Some(publish) = &config.publish else {
        return Err(hinted(
            format!("outbox {} has no publish: section", args.name),
            "say how its relay publishes a row under outbox: NAME: publish: (kafka, topic, key, value, headers; see `man 5 indoubt-config`)",
        ));
    };
    let ob = outbox(t, &args.name, config);
    let debezium = publish.layout == OutboxLayout::Debezium;
    let topic = match (&publish.topic, debezium) {
        (Some(topic), _) if !topic.is_empty() => TopicRule::Fixed(topic.clone()),
        (None, true) => TopicRule::Column {
            prefix: "outbox.event.".into(),
            column: "aggregatetype".into(),
        },
        _ => {
            return Err(hinted(
                format!("outbox {}: publish: names no topic", args.name),
                "give publish: topic: (or layout: debezium, whose topic is outbox.event.<aggregatetype>)",
            ))
        }
    };
    let key = publish
        .key
        .clone()
        .or_else(|| debezium.then(|| "aggregateid".to_string()));
    let value = publish
        .value
        .clone()
        .unwrap_or_else(|| defaults::OUTBOX_PUBLISH_VALUE.text().to_string());
    let id_header = publish
        .id_header
        .clone()
        .unwrap_or_else(|| defaults::OUTBOX_PUBLISH_ID_HEADER.text().to_string());
    if publish.headers.contains_key(&id_header) {
        return Err(hinted(
            format!(
                "outbox {}: header {id_header:?} is both the id header and a column's",
                args.name
            ),
            "the id header carries the row's id (consumers deduplicate on it): name another header for the column, or another id_header",
        ));
    }
    let layout = Layout {
        table: ob.table.clone(),
        id: ob.id_column.clone(),
        created_at: ob.created_at_column.clone(),
        published_at: ob.published_at_column.clone(),
        topic: match &topic {
            TopicRule::Column { column, .. } => Some(column.clone()),
            TopicRule::Fixed(_) => None,
        },
        key,
        value,
        headers: publish
            .headers
            .iter()
            .map(|(h, c)| (h.clone(), c.clone()))
            .collect(),
    };
    let producer = producer(
        &args.name,
        args.transactional,
        &publish.transactional_id,
        publish.message_timeout,
    );
    Ok(ResolveOutboxSettings {
        cluster: cluster(t, &args.kafka, Some(&publish.kafka))?,
        outbox: ob,
        topic,
        layout,
        id_header,
        producer,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}

/// `resolve reconcile JOB`: the comparison that finds the missing ids (the job's, its
/// window as given), where the ids come from, and how they are published again.
pub struct ResolveReconcileSettings {
    pub compare: ReconcileSettings,
    pub job: String,
    /// The ids from an `--ids-out` file instead of a comparison now.
    pub ids_from: Option<PathBuf>,
    /// Takes $1 = the ids (text[]); a row per id: id, value, optionally key, headers.
    pub query: String,
    /// Where the job reads a message's id, as it spells it (`json:/order_id`).
    pub id_from_text: String,
    pub producer: ProducerSettings,
    pub confirm: super::resolution::Confirm,
}

pub fn resolve_reconcile(
    t: &Targets,
    args: crate::cli::ResolveReconcileArgs,
) -> Result<ResolveReconcileSettings> {
    let Some(job) = t.config.config.reconcile.get(&args.job) else {
        return Err(hinted(
            format!("no reconcile job named {:?} in the config", args.job),
            "name a job of the config (reconcile: NAME:); `indoubt config show` lists them",
        ));
    };
    let Some(republish) = &job.republish else {
        return Err(hinted(
            format!("reconcile job {} has no republish: section", args.job),
            "give it a query that builds the messages from the source of truth under reconcile: NAME: republish: query: (takes $1 = the ids as text[]; see `man 5 indoubt-config`)",
        ));
    };
    let compare = super::reconcile_args::reconcile(
        t,
        ReconcileArgs {
            job: Some(args.job.clone()),
            no_progress: true,
            pg: None,
            query: None,
            kafka: args.kafka,
            topic: None,
            id_from: None,
            since: args.since,
            until: args.until,
            settle: None,
            slack: None,
            count_only: false,
            ids_out: None,
            show: defaults::RECONCILE_SHOW.number() as usize,
            memory: None,
            spill_dir: None,
            query_timeout: None,
        },
    )?;

    let id_from_text = super::reconcile::parameters(Some(&args.job), Some(job), None)
        .id_from
        .value;
    let producer = producer(
        &args.job,
        args.transactional,
        &republish.transactional_id,
        republish.message_timeout,
    );
    Ok(ResolveReconcileSettings {
        compare,
        id_from_text,
        job: args.job,
        ids_from: args.ids_from,
        query: republish.query.clone(),
        producer,
        confirm: super::resolution::confirm(t, args.confirm),
    })
}
