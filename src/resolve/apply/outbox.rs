//! Publishing the outbox rows a relay skipped: batch by batch, each row read again
//! (only one still unpublished and unchanged since it was first read is sent), produced
//! through librdkafka's idempotent producer with its id in the id header, every delivery
//! report awaited, and only the acknowledged rows marked published as the relay does
//! (guarded the same way). The outcome says of every row what became of it.

use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::interrupt;
use crate::kafka::config::ClientConfig;
use crate::kafka::librdkafka::ProducerSettings;
use crate::kafka::produce::{Delivery, Message, Producer};
use crate::kafka::token::Token;
use crate::pg::conninfo::ConnParams;
use crate::pg::republish::{self, ColumnTypes, Layout, Pending};
use crate::pg::session;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::settings::republish::TopicRule;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// Rows read, produced and marked together: a batch's payloads are all that is held.
const BATCH: usize = 1_000;

/// What is proposed for the outbox: known before anything is sent.
pub struct Republish {
    pub name: String,
    pub report_target: Target,
    pub params: ConnParams,
    pub layout: Layout,
    pub types: ColumnTypes,
    pub topic: TopicRule,
    pub id_header: String,
    pub client: ClientConfig,
    pub producer: ProducerSettings,
    /// The OAUTHBEARER token the producer presents, fetched before anything is confirmed.
    pub token: Option<Token>,
    /// The skipped rows as first read, in id order.
    pub pending: Vec<Pending>,
    pub plan: Plan,
    pub summary: Vec<Block>,
    pub timeout: Duration,
}

impl Proposal for Republish {
    fn name(&self) -> Text {
        text!["outbox ", self.name]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!("outbox {} table {}", self.name, self.layout.table)
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.name),
            exact: self.name.as_bytes(),
            called: None,
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The rows to publish: each id with the digest it must still have.
    fn evidence(&self) -> serde_json::Value {
        json!({
            "outbox": self.name,
            "table": self.layout.table,
            "topic": self.topic.describe(),
            "transactional_id": self.producer.transactional_id,
            "rows": self.pending.iter().map(|p| json!({"id": p.id, "digest": p.digest})).collect::<Vec<_>>(),
        })
    }

    fn summary(&self) -> Vec<Block> {
        self.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would publish ",
            self.pending.len(),
            " row(s) to ",
            self.topic.describe(),
            ", then mark the delivered ones published: ",
            self.plan.action
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding
            .evidence("source", self.layout.table.clone())
            .evidence("rows", self.pending.len())
    }
}

/// What became of the rows, as the outcome records them.
#[derive(Default)]
struct Tally {
    delivered: Vec<serde_json::Value>,
    not_delivered: Vec<serde_json::Value>,
    /// Delivered, but changed or published meanwhile: not marked by indoubt.
    not_marked: Vec<serde_json::Value>,
    /// Not sent: published, gone or changed since they were read.
    left: Vec<serde_json::Value>,
    last_error: Option<(String, Option<String>)>,
}

impl Tally {
    /// The outcome's record of every row, moved out (a copy of 100,000 rows' entries
    /// would double what a large republish holds).
    fn result(&mut self) -> serde_json::Value {
        let take = |v: &mut Vec<serde_json::Value>| serde_json::Value::Array(std::mem::take(v));
        json!({
            "delivered": take(&mut self.delivered),
            "not_delivered": take(&mut self.not_delivered),
            "delivered_not_marked": take(&mut self.not_marked),
            "not_sent": take(&mut self.left),
        })
    }

    fn applied(mut self, of: usize, stopped: Option<String>) -> Applied {
        let delivered = self.delivered.len();
        let mut detail = format!("{delivered} of {of} row(s) delivered and marked published");
        if !self.not_marked.is_empty() {
            detail.push_str(&format!(
                "; {} delivered but not marked (changed or published meanwhile: the relay may send them again, with the same id)",
                self.not_marked.len()
            ));
        }
        if !self.not_delivered.is_empty() {
            detail.push_str(&format!(
                "; {} NOT delivered, left unpublished ({})",
                self.not_delivered.len(),
                self.last_error
                    .as_ref()
                    .map_or("no reason given", |(e, _)| e.as_str())
            ));
        }
        if !self.left.is_empty() {
            detail.push_str(&format!(
                "; {} not sent: published, gone or changed since they were read",
                self.left.len()
            ));
        }
        if let Some(why) = &stopped {
            detail.push_str(&format!("; {why}"));
        }
        let result = self.result();
        let code = self.last_error.and_then(|(_, code)| code);
        let failed =
            !result["not_delivered"].as_array().is_none_or(Vec::is_empty) || stopped.is_some();
        let applied = match (failed, delivered) {
            (false, 0) => Applied::new(Status::LostRace, codes::LOST_RACE, detail),
            (false, _) => Applied::new(Status::Ok, codes::RESOLVED, detail),
            (true, _) => Applied::new(Status::Error, codes::FAILED, detail)
                .server_code(code)
                .advice("run it again once the cause is fixed: only the rows still unpublished are sent (the delivered ones carry their id, for consumers that deduplicate)"),
        };
        applied.result(result)
    }
}

impl Subject for Republish {
    type Proposal = Republish;

    fn proposal(&self) -> &Republish {
        self
    }

    /// Whether the principal may write to the topic shows in the first delivery reports.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// Each row is read again batch by batch, right before it is sent.
    async fn still_valid(&mut self) -> Option<Applied> {
        None
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let mut tally = Tally::default();
        let of = self.pending.len();
        let session = match session::connect(&self.params, self.timeout).await {
            Ok(s) => s,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
        };
        let (client, settings, token) = (
            self.client.clone(),
            self.producer.clone(),
            self.token.clone(),
        );
        let producer =
            tokio::task::spawn_blocking(move || Producer::new(&client, &settings, token)).await;
        let producer = match producer {
            Ok(Ok(p)) => Arc::new(p),
            Ok(Err(e)) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e}"))
            }
        };
        let mut stopped = None;
        for chunk in self.pending.chunks(BATCH) {
            if interrupt::stop_asked() {
                stopped = Some("interrupted: the rest were not sent".to_string());
                break;
            }
            if let Err(e) = self.batch(&session, &producer, chunk, &mut tally).await {
                stopped = Some(format!("stopped: {e:#}"));
                break;
            }
            crate::resolve::flow::failpoint("after-batch");
        }
        tally.applied(of, stopped)
    }
}

impl Republish {
    /// One batch: read, produce, mark.
    async fn batch(
        &self,
        session: &session::Session,
        producer: &Arc<Producer>,
        chunk: &[Pending],
        tally: &mut Tally,
    ) -> Result<()> {
        let ids: Vec<String> = chunk.iter().map(|p| p.id.clone()).collect();
        let rows = republish::rows(session, &self.layout, &self.types, &ids).await?;
        let mut sent: Vec<(String, String, String)> = Vec::new();
        let mut messages = Vec::new();
        let mut found = rows.into_iter().peekable();
        for p in chunk {
            let row = match found.peek() {
                Some(r) if r.id == p.id => found.next(),
                _ => None,
            };
            let Some(row) = row else {
                tally
                    .left
                    .push(json!({"id": p.id, "why": "published or gone meanwhile"}));
                continue;
            };
            if row.digest != p.digest {
                tally
                    .left
                    .push(json!({"id": p.id, "why": "changed since it was read"}));
                continue;
            }
            let Some(topic) = self.topic.of(row.topic_value.as_deref()) else {
                tally
                    .left
                    .push(json!({"id": p.id, "why": "no topic: its topic column is NULL"}));
                continue;
            };
            let mut headers = vec![(self.id_header.clone(), row.id.clone().into_bytes())];
            headers.extend(row.headers);
            messages.push(Message {
                topic: topic.clone(),
                key: row.key,
                value: row.value,
                headers,
            });
            sent.push((row.id, row.digest, topic));
        }
        // A row the server returned out of the order the ids were read in would be
        // matched to nothing: the batch is refused whole rather than half-matched.
        if found.peek().is_some() {
            anyhow::bail!("the rows came back in another order than their ids were read: nothing of this batch was sent");
        }
        let batch = Arc::new(messages);
        let (p, b) = (Arc::clone(producer), Arc::clone(&batch));
        // The one place messages are produced.
        #[allow(clippy::disallowed_methods)]
        let deliveries = tokio::task::spawn_blocking(move || p.send_batch(&b))
            .await
            .map_err(|e| anyhow::anyhow!("the producer stopped: {e}"))?;
        let mut acknowledged = Vec::new();
        let mut placed = std::collections::HashMap::new();
        for ((id, digest, topic), delivery) in sent.into_iter().zip(deliveries) {
            match delivery {
                Delivery::Delivered { partition, offset } => {
                    placed.insert(
                        id.clone(),
                        json!({"id": id, "topic": topic, "partition": partition, "offset": offset}),
                    );
                    acknowledged.push((id, digest));
                }
                Delivery::Failed { error, code } => {
                    tally
                        .not_delivered
                        .push(json!({"id": id, "error": error, "code": code}));
                    tally.last_error = Some((error, code));
                }
            }
        }
        if acknowledged.is_empty() {
            return Ok(());
        }
        #[allow(clippy::disallowed_methods)] // the one place that marks rows published
        let marked = republish::mark(session, &self.layout, &self.types, &acknowledged).await;
        let marked: std::collections::HashSet<String> = match marked {
            Ok(m) => m.into_iter().collect(),
            Err(e) => {
                for (id, _) in &acknowledged {
                    tally
                        .not_marked
                        .push(placed.remove(id).unwrap_or(json!({"id": id})));
                }
                return Err(e.context("marking the delivered rows published"));
            }
        };
        for (id, _) in acknowledged {
            let entry = placed.remove(&id).unwrap_or(json!({"id": id}));
            match marked.contains(&id) {
                true => tally.delivered.push(entry),
                false => tally.not_marked.push(entry),
            }
        }
        Ok(())
    }
}
