//! Publishing the ids a reconcile job found missing in its topic: right before sending,
//! the topic is read again from where the first look ended (an id that appeared
//! meanwhile, or sits past a last stable offset, is left out); then batch by batch each
//! id's message is built from the source of truth by the job's republish query, checked
//! to carry the id where the job reads it, and produced through librdkafka's idempotent
//! producer, every delivery report awaited.

use super::republish::{self, Fetched, Rows, Tally, Words};
use crate::audit::record::Status;
use crate::codes;
use crate::findings::Finding;
use crate::kafka::config::ClientConfig;
use crate::kafka::librdkafka::ProducerSettings;
use crate::kafka::produce::Message;
use crate::kafka::token::Token;
use crate::pg::conninfo::ConnParams;
use crate::pg::session::{self, Session};
use crate::reconcile::ids::IdFrom;
use crate::reconcile::republish::{self as source, RepublishQuery};
use crate::reconcile::spill::Budget;
use crate::reconcile::topic::{self, Since};
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use serde_json::json;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

/// Where the messages go and how an id is read back from one.
#[derive(Clone)]
pub struct Destination {
    pub topic: String,
    pub id_from: IdFrom,
    /// As the job spells it (`json:/order_id`).
    pub id_from_text: String,
}

/// What is proposed for the job: known before anything is sent.
pub struct Missing {
    pub job: String,
    pub report_target: Target,
    pub params: ConnParams,
    pub query: String,
    pub destination: Destination,
    pub client: ClientConfig,
    pub producer: ProducerSettings,
    pub token: Option<Token>,
    /// The ids to publish, as confirmed.
    pub ids: Vec<String>,
    /// Where the look before the confirmation ended, per partition: the look right before
    /// sending starts there.
    pub looked_to: BTreeMap<i32, i64>,
    /// Ids the look right before sending found: left out, and why.
    pub appeared: Vec<(String, &'static str)>,
    pub budget: Arc<Budget>,
    pub plan: Plan,
    pub summary: Vec<Block>,
    pub timeout: Duration,
    pub kafka_timeout: Duration,
}

impl Proposal for Missing {
    fn name(&self) -> Text {
        text!["reconcile job ", self.job]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!(
            "the ids of reconcile job {} missing in topic {}",
            self.job, self.destination.topic
        )
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.job),
            exact: self.job.as_bytes(),
            called: None,
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The ids to publish.
    fn evidence(&self) -> serde_json::Value {
        json!({
            "job": self.job,
            "topic": self.destination.topic,
            "id_from": self.destination.id_from_text,
            "transactional_id": self.producer.transactional_id,
            "ids": self.ids,
        })
    }

    fn summary(&self) -> Vec<Block> {
        self.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would publish the messages of ",
            self.ids.len(),
            " id(s) to ",
            self.destination.topic,
            " (read again right before: an id that appeared meanwhile is left out): ",
            self.plan.action
        ]
    }

    fn annotate(&self, finding: Finding) -> Finding {
        finding
            .evidence("topic", self.destination.topic.clone())
            .evidence("ids", self.ids.len())
    }
}

impl Subject for Missing {
    type Proposal = Missing;

    fn proposal(&self) -> &Missing {
        self
    }

    /// Whether the principal may write to the topic shows in the first delivery reports.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// The topic read again from where the first look ended: an id it names now is not
    /// sent (published meanwhile, or past a last stable offset: maybe published).
    async fn still_valid(&mut self) -> Option<Applied> {
        let wanted: HashSet<String> = self.ids.iter().cloned().collect();
        let looked = async {
            let t = topic::open(&self.client, &self.destination.topic, self.kafka_timeout).await?;
            topic::find(
                &t,
                &self.destination.id_from,
                &Since::Offsets(self.looked_to.clone()),
                &wanted,
                self.kafka_timeout,
                &self.budget,
            )
            .await
        };
        let found = match looked.await {
            Ok(f) => f,
            Err(e) => {
                return Some(Applied::new(
                    Status::Error,
                    codes::FAILED,
                    format!(
                    "nothing sent: the topic could not be read again right before sending: {e:#}"
                ),
                ))
            }
        };
        let of = self.ids.len();
        let mut appeared = Vec::new();
        self.ids.retain(|id| {
            let why = match (found.seen.contains(id), found.past_lso.contains(id)) {
                (true, _) => "appeared in the topic since it was looked for",
                (false, true) => {
                    "named past a last stable offset (an open transaction may publish it)"
                }
                (false, false) => return true,
            };
            appeared.push((id.clone(), why));
            false
        });
        self.appeared = appeared;
        if self.ids.is_empty() {
            return Some(Applied::new(
                Status::LostRace,
                codes::LOST_RACE,
                format!("nothing sent: all {of} id(s) appeared in the topic (or past a last stable offset) since they were looked for"),
            ));
        }
        None
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let of = self.ids.len() + self.appeared.len();
        let rows = match Source::open(&self.params, &self.query, &self.destination, self.timeout)
            .await
        {
            Ok(rows) => rows,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
        };
        let producer = match republish::producer(&self.client, &self.producer, &self.token).await {
            Ok(p) => p,
            Err(e) => {
                return Applied::new(Status::Error, codes::FAILED, format!("nothing sent: {e:#}"))
            }
        };
        let mut tally = Tally::default();
        for (id, why) in &self.appeared {
            tally.done(id, *why);
        }
        let stopped = republish::publish(&rows, &self.ids, &producer, &mut tally).await;
        tally.applied(of, rows.words(), stopped)
    }
}

/// The source of truth as the job's republish query reads it.
pub struct Source {
    session: Session,
    query: RepublishQuery,
    destination: Destination,
}

impl Source {
    /// Connects and prepares the query (its shape checked).
    pub async fn open(
        params: &ConnParams,
        query: &str,
        destination: &Destination,
        timeout: Duration,
    ) -> Result<Source> {
        let session = session::connect(params, timeout).await?;
        let query = source::prepare(&session, query).await?;
        Ok(Source {
            session,
            query,
            destination: destination.clone(),
        })
    }

    pub fn query(&self) -> &RepublishQuery {
        &self.query
    }
}

impl Rows for Source {
    type Item = String;

    /// Each id's message as the query builds it, sent only if it carries the id where
    /// the job reads it: otherwise the next comparison would find it missing again.
    async fn fetch(&self, chunk: &[String], _slot: usize) -> Result<Vec<Fetched>> {
        let built = source::build(&self.session, &self.query, chunk).await?;
        let asked: HashSet<&str> = chunk.iter().map(String::as_str).collect();
        let mut by_id: HashMap<String, source::Built> = HashMap::new();
        let mut twice = HashSet::new();
        for b in built {
            // A row of an id not asked for means the query's id is not the id as the job
            // names it ('0042' for 42): nothing of it could be matched safely.
            if !asked.contains(b.id.as_str()) {
                anyhow::bail!(
                    "the republish query returned a row for id {:?}, which was not asked for: its id column must be the id as the reconcile query names it",
                    b.id
                );
            }
            if by_id.contains_key(&b.id) {
                twice.insert(b.id.clone());
            }
            by_id.insert(b.id.clone(), b);
        }
        let d = &self.destination;
        Ok(chunk
            .iter()
            .map(|id| {
                let left = |why: Cow<'static, str>| Fetched::Left {
                    id: id.clone(),
                    why,
                };
                if twice.contains(id) {
                    return left("the republish query returned more than one row for it: which is the event cannot be told".into());
                }
                let Some(b) = by_id.remove(id) else {
                    return left("no row in the source (the republish query returned none)".into());
                };
                if b.value.is_none() {
                    return left("its value is NULL: a tombstone, which deletes the key on a compacted topic, is not an event".into());
                }
                let mut message = Message {
                    topic: d.topic.clone(),
                    key: b.key,
                    value: b.value,
                    headers: b.headers,
                };
                // Where the job reads the id and the query gave nothing there, the id goes.
                match &d.id_from {
                    IdFrom::Key if message.key.is_none() => {
                        message.key = Some(id.clone().into_bytes())
                    }
                    IdFrom::Header(name) if !message.headers.iter().any(|(h, _)| h == name) => {
                        message.headers.push((name.clone(), id.clone().into_bytes()))
                    }
                    _ => {}
                }
                let carried = d.id_from.extract(
                    message.key.as_deref(),
                    |name| {
                        message
                            .headers
                            .iter()
                            .find(|(h, _)| h == name)
                            .map(|(_, v)| v.as_slice())
                    },
                    message.value.as_deref(),
                );
                // One reason for every such id (the dry run counts ids by reason).
                match carried {
                    Ok(found) if found == id.as_str() => Fetched::Send {
                        id: id.clone(),
                        guard: String::new(),
                        message,
                    },
                    _ => left(
                        format!(
                            "its message would not carry the id where the job reads it ({}): the next comparison would find it missing again",
                            d.id_from_text
                        )
                        .into(),
                    ),
                }
            })
            .collect())
    }

    /// Nothing in the source records a publish: a delivered message is done.
    async fn settle(
        &self,
        _slot: usize,
        acknowledged: &[(String, String)],
    ) -> Result<HashSet<String>> {
        Ok(acknowledged.iter().map(|(id, _)| id.clone()).collect())
    }

    fn words(&self) -> &'static Words {
        &Words {
            of: "id(s)",
            settled: "delivered",
            not_delivered: "NOT delivered",
            not_settled: "delivered but not counted",
        }
    }
}
