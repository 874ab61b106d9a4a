//! Publishing the outbox rows a relay skipped: batch by batch, each row read again
//! (only one still unpublished and unchanged since it was first read is sent), produced
//! through librdkafka's idempotent producer with its id in the id header, every delivery
//! report awaited, and only the acknowledged rows marked published as the relay does
//! (guarded the same way). The outcome says of every row what became of it.

use super::republish::{self, Fetched, Rows, Tally, Words};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::kafka::config::ClientConfig;
use crate::kafka::librdkafka::ProducerSettings;
use crate::kafka::produce::Message;
use crate::kafka::token::Token;
use crate::pg::conninfo::ConnParams;
use crate::pg::republish::{self as pg_republish, ColumnTypes, Layout, Pending};
use crate::pg::session;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::settings::republish::TopicRule;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::{Context as _, Result};
use serde_json::json;
use std::collections::HashSet;
use std::time::Duration;

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

    /// The rows to publish: each id with the digest (md5 of the row) it must still have.
    fn evidence(&self) -> serde_json::Value {
        json!({
            "outbox": self.name,
            "table": self.layout.table,
            "topic": self.topic.describe(),
            "transactional_id": self.producer.transactional_id,
            // [id, digest] pairs: a map per row would make the intent of a large republish
            // several times the size in memory.
            "rows": self.pending.iter().map(|p| json!([p.id, p.digest])).collect::<Vec<_>>(),
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
        let of = self.pending.len();
        // One connection reads the next batch while the other marks the one before.
        let sessions = tokio::try_join!(
            session::connect(&self.params, self.timeout),
            session::connect(&self.params, self.timeout)
        );
        let (reader, marker) = match sessions {
            Ok(s) => s,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
        };
        let producer = match super::republish::producer(&self.client, &self.producer, &self.token)
            .await
        {
            Ok(p) => p,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
        };
        let rows = OutboxRows {
            reader,
            marker,
            layout: &self.layout,
            types: &self.types,
            topic: &self.topic,
            id_header: &self.id_header,
        };
        let mut tally = Tally::default();
        let stopped = republish::publish(&rows, &self.pending, &producer, &mut tally).await;
        tally.applied(of, rows.words(), stopped)
    }
}

/// The outbox's rows: read again by id (sent only if still unpublished and unchanged),
/// marked published once acknowledged.
struct OutboxRows<'a> {
    reader: session::Session,
    marker: session::Session,
    layout: &'a Layout,
    types: &'a ColumnTypes,
    topic: &'a TopicRule,
    id_header: &'a str,
}

impl Rows for OutboxRows<'_> {
    type Item = Pending;

    async fn fetch(&self, chunk: &[Pending]) -> Result<Vec<Fetched>> {
        let ids: Vec<String> = chunk.iter().map(|p| p.id.clone()).collect();
        let rows = pg_republish::rows(&self.reader, self.layout, self.types, &ids).await?;
        let mut out = Vec::with_capacity(chunk.len());
        let mut found = rows.into_iter().peekable();
        for p in chunk {
            let row = match found.peek() {
                Some(r) if r.id == p.id => found.next(),
                _ => None,
            };
            let left = |why: &'static str| Fetched::Left {
                id: p.id.clone(),
                why: why.into(),
            };
            let Some(row) = row else {
                out.push(left("published or gone meanwhile"));
                continue;
            };
            if row.digest != p.digest {
                out.push(left("changed since it was read"));
                continue;
            }
            let Some(topic) = self.topic.of(row.topic_value.as_deref()) else {
                out.push(left("no topic: its topic column is NULL"));
                continue;
            };
            let mut headers = vec![(self.id_header.to_string(), row.id.clone().into_bytes())];
            headers.extend(row.headers);
            out.push(Fetched::Send {
                id: row.id,
                guard: row.digest,
                message: Message {
                    topic,
                    key: row.key,
                    value: row.value,
                    headers,
                },
            });
        }
        // A row the server returned out of the order the ids were read in would be
        // matched to nothing: the batch is refused whole rather than half-matched.
        if found.peek().is_some() {
            anyhow::bail!("the rows came back in another order than their ids were read: nothing of this batch was sent");
        }
        Ok(out)
    }

    async fn settle(&self, acknowledged: &[(String, String)]) -> Result<HashSet<String>> {
        #[allow(clippy::disallowed_methods)] // the one place that marks rows published
        let marked = pg_republish::mark(&self.marker, self.layout, self.types, acknowledged)
            .await
            .context("marking the delivered rows published")?;
        Ok(marked.into_iter().collect())
    }

    fn words(&self) -> &'static Words {
        &Words {
            of: "row(s)",
            settled: "delivered and marked published",
            not_delivered: "NOT delivered, left unpublished",
            not_settled: "delivered but not marked (changed or published meanwhile, or marking failed: the relay may send them again, with the same id)",
        }
    }
}
