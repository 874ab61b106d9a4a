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
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
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

    /// The rows to publish: each id with the version (xmin) it must still have.
    fn evidence(&self) -> serde_json::Value {
        json!({
            "outbox": self.name,
            "table": self.layout.table,
            "topic": self.topic.describe(),
            "transactional_id": self.producer.transactional_id,
            // [id, version] pairs: a map per row would make the intent of a large republish
            // several times the size in memory.
            "rows": self.pending.iter().map(|p| json!([p.id, p.version])).collect::<Vec<_>>(),
        })
    }

    fn summary(&self) -> Vec<Block> {
        self.summary.clone()
    }

    fn dry_run(&self) -> Text {
        // The statement itself is shown above (`then`); the plan records it whole.
        text![
            "dry run: would publish ",
            self.pending.len(),
            " row(s) to ",
            self.topic.describe(),
            " and mark the delivered ones published by the UPDATE shown, each batch committed once every row of it is acknowledged"
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
        // A connection per slot: one claims the next batch while the other holds the
        // batch in flight.
        let sessions = tokio::try_join!(
            session::connect(&self.params, self.timeout),
            session::connect(&self.params, self.timeout)
        );
        let sessions = match sessions {
            Ok((a, b)) => [a, b],
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
            sessions,
            claimed: Default::default(),
            layout: &self.layout,
            types: &self.types,
            topic: &self.topic,
            id_header: &self.id_header,
            hold: hold(self.producer.message_timeout, self.timeout),
        };
        let mut tally = Tally::default();
        let stopped = republish::publish(&rows, &self.pending, &producer, &mut tally).await;
        tally.applied(of, rows.words(), stopped)
    }
}

/// How long a batch's claim may stay open before the server ends it: longer than a
/// batch is ever held by a live run — its delivery (a transactional producer: the
/// messages, the commit and perhaps an abort, each bounded by the message timeout and
/// 5 s), while the other connection settles and claims (four statements of `--timeout`
/// at most) — plus a margin; so only a run that is gone leaves it to the server.
fn hold(message_timeout: Duration, statement_timeout: Duration) -> Duration {
    3 * (message_timeout + Duration::from_secs(5)) + 4 * statement_timeout + Duration::from_secs(30)
}

/// The outbox's rows: claimed batch by batch — marked published in a transaction left
/// open, only while still unpublished and unchanged (their version) — and sent; the claim
/// is committed when every row of it was acknowledged, else rolled back and only the
/// acknowledged rows marked, guarded the same way.
struct OutboxRows<'a> {
    sessions: [session::Session; 2],
    /// The ids each slot's open transaction marked.
    claimed: Mutex<[Vec<String>; 2]>,
    layout: &'a Layout,
    types: &'a ColumnTypes,
    topic: &'a TopicRule,
    id_header: &'a str,
    hold: Duration,
}

impl Rows for OutboxRows<'_> {
    type Item = Pending;

    async fn fetch(&self, chunk: &[Pending], slot: usize) -> Result<Vec<Fetched>> {
        let session = &self.sessions[slot];
        #[allow(clippy::disallowed_methods)] // the one place that claims rows
        let rows = pg_republish::claim(session, self.layout, self.types, chunk, self.hold)
            .await
            .context("reading and marking the batch")?;
        // Known before anything else can fail: settle then rolls back whatever this
        // transaction marked unless every row of it was delivered.
        let claimed: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        self.claimed.lock().unwrap_or_else(|e| e.into_inner())[slot] = claimed;
        let mut found: HashMap<String, pg_republish::Row> = HashMap::with_capacity(rows.len());
        for row in rows {
            let id = row.id.clone();
            if found.insert(id.clone(), row).is_some() {
                // One message for two rows: the id is not unique. The batch is let go.
                anyhow::bail!(
                    "{} has two rows of id {id}: an outbox's id must be unique",
                    self.layout.table
                );
            }
        }
        // Why a row was not claimed, read only when one was not.
        let missing: Vec<&str> = chunk
            .iter()
            .filter(|p| !found.contains_key(&p.id))
            .map(|p| p.id.as_str())
            .collect();
        let published = match missing.is_empty() {
            true => HashMap::new(),
            false => pg_republish::unclaimed(session, self.layout, self.types, &missing).await?,
        };
        let mut out = Vec::with_capacity(chunk.len());
        for p in chunk {
            let left = |why: &'static str| Fetched::Left {
                id: p.id.clone(),
                why: why.into(),
            };
            let Some(row) = found.remove(&p.id) else {
                out.push(match published.get(&p.id) {
                    Some(false) => left("changed since it was read"),
                    _ => Fetched::Done {
                        id: p.id.clone(),
                        why: "published or gone meanwhile".into(),
                    },
                });
                continue;
            };
            let Some(topic) = self.topic.of(row.topic_value.as_deref()) else {
                out.push(left("no topic: its topic column is NULL"));
                continue;
            };
            let mut headers = vec![(self.id_header.to_string(), row.id.clone().into_bytes())];
            headers.extend(row.headers);
            out.push(Fetched::Send {
                id: row.id,
                guard: p.version.clone(),
                message: Message {
                    topic,
                    key: row.key,
                    value: row.value,
                    headers,
                },
            });
        }
        Ok(out)
    }

    /// Every claimed row acknowledged: the claim committed. Otherwise it is rolled back
    /// (no row the topic lacks stays marked) and the acknowledged rows are marked alone.
    async fn settle(
        &self,
        slot: usize,
        acknowledged: &[(String, String)],
    ) -> Result<HashSet<String>> {
        let session = &self.sessions[slot];
        let claimed =
            std::mem::take(&mut self.claimed.lock().unwrap_or_else(|e| e.into_inner())[slot]);
        let acked: HashSet<&str> = acknowledged.iter().map(|(id, _)| id.as_str()).collect();
        // Committed only with something delivered: a batch not sent (or whose fetch
        // failed) is rolled back, whatever it holds.
        let whole = !acknowledged.is_empty()
            && claimed.len() == acked.len()
            && claimed.iter().all(|id| acked.contains(id.as_str()));
        #[allow(clippy::disallowed_methods)] // the one place that ends a claim
        session.end_held(whole).await.context(match whole {
            true => "marking the delivered rows published",
            false => "letting go of the rows not all delivered",
        })?;
        if whole {
            return Ok(claimed.into_iter().collect());
        }
        if acknowledged.is_empty() {
            return Ok(HashSet::new());
        }
        #[allow(clippy::disallowed_methods)] // the one place that marks rows published
        let marked = pg_republish::mark(session, self.layout, self.types, acknowledged)
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
