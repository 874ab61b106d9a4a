//! The pipeline the republishing resolutions share (an outbox's skipped rows, the ids a
//! reconcile job found missing in its topic): rows read from the source in batches, each
//! batch produced through librdkafka's idempotent producer while the next is read and the
//! one before is settled (the outbox marks its rows published), every delivery report
//! awaited, and what became of each row kept compactly for the outcome record.

use crate::audit::record::Status;
use crate::codes;
use crate::interrupt;
use crate::kafka::config::ClientConfig;
use crate::kafka::librdkafka::ProducerSettings;
use crate::kafka::produce::{Delivery, Message, Producer};
use crate::kafka::token::Token;
use crate::resolve::flow::Applied;
use anyhow::Result;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// Rows read, produced and settled together: the payloads of two batches are all that is
/// held (one in flight, the next read meanwhile).
pub const BATCH: usize = 5_000;

/// One row read at action time: a message to send, or why it is not sent.
pub enum Fetched {
    Send {
        id: String,
        /// What settling it checks again (the outbox row's version); empty when nothing is.
        guard: String,
        message: Message,
    },
    /// Not sent, and still to be: the row or id is left as it was.
    Left { id: String, why: Cow<'static, str> },
    /// Not sent, and no longer to be: what it was for is so already (published
    /// meanwhile, in the topic now).
    Done { id: String, why: Cow<'static, str> },
}

/// Where the rows come from and what is done with the acknowledged ones. Batches
/// alternate between two slots (0 and 1: a source that writes holds a connection for
/// each): a batch is fetched on one while the one before is in flight on the other, and
/// settled on its own slot before the slot fetches again.
#[allow(async_fn_in_trait)] // awaited in place by `publish`, never spawned
pub trait Rows {
    /// What the caller listed to publish: an outbox row's id and version, a missing id.
    type Item: Sync;

    /// The messages of `chunk` as the source has them now, in `chunk`'s order, read on
    /// `slot`. What the source holds for them there (the outbox: the rows, marked
    /// published in a transaction left open) stays held until `settle` of the slot.
    async fn fetch(&self, chunk: &[Self::Item], slot: usize) -> Result<Vec<Fetched>>;

    /// Called once for every batch fetched on `slot`, with its acknowledged rows (id,
    /// guard; none when it was not sent): the ids it settled (the outbox: those marked
    /// published). An error stops the run.
    async fn settle(
        &self,
        slot: usize,
        acknowledged: &[(String, String)],
    ) -> Result<HashSet<String>>;

    /// How the outcome names what became of the rows.
    fn words(&self) -> &'static Words;
}

/// How an outcome names the rows settled, not delivered and delivered but not settled.
pub struct Words {
    /// What is counted: "row(s)", "id(s)".
    pub of: &'static str,
    /// "delivered and marked published"
    pub settled: &'static str,
    /// "NOT delivered, left unpublished"
    pub not_delivered: &'static str,
    /// Why a delivered row may not be settled, and what follows from it.
    pub not_settled: &'static str,
}

/// The first ids of a list, and how many more.
fn first(ids: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut out = ids
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        out.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    out
}

/// Where a delivered message landed.
struct Placed {
    id: Box<str>,
    topic: u32,
    partition: i32,
    offset: i64,
}

/// What became of every row, as compactly as the outcome can be written from: a row costs
/// its id and a few numbers, not a JSON tree.
#[derive(Default)]
pub struct Tally {
    topics: Vec<String>,
    errors: Vec<(String, Option<String>)>,
    delivered: Vec<Placed>,
    /// Delivered, but not settled (changed or published meanwhile, or settling failed).
    not_settled: Vec<Placed>,
    /// Not delivered: the index of the error.
    not_delivered: Vec<(Box<str>, u32)>,
    /// Not sent: why, and whether it is done already ([`Fetched::Done`]).
    left: Vec<NotSent>,
}

/// A row or id not sent.
struct NotSent {
    id: Box<str>,
    why: Cow<'static, str>,
    done: bool,
}

impl Tally {
    fn topic(&mut self, topic: &str) -> u32 {
        match self.topics.iter().position(|t| t == topic) {
            Some(i) => i as u32,
            None => {
                self.topics.push(topic.to_string());
                (self.topics.len() - 1) as u32
            }
        }
    }

    fn error(&mut self, error: String, code: Option<String>) -> u32 {
        match self.errors.last() {
            Some((e, c)) if *e == error && *c == code => (self.errors.len() - 1) as u32,
            _ => {
                self.errors.push((error, code));
                (self.errors.len() - 1) as u32
            }
        }
    }

    /// Not sent, still to be.
    pub fn left(&mut self, id: &str, why: impl Into<Cow<'static, str>>) {
        self.not_sent(id, why.into(), false);
    }

    /// Not sent, as what it was for is so already.
    pub fn done(&mut self, id: &str, why: impl Into<Cow<'static, str>>) {
        self.not_sent(id, why.into(), true);
    }

    fn not_sent(&mut self, id: &str, why: Cow<'static, str>, done: bool) {
        self.left.push(NotSent {
            id: id.into(),
            why,
            done,
        });
    }

    /// The outcome: what was settled, delivered but not settled, not delivered and not
    /// sent, with every row in `result`.
    pub fn applied(self, of: usize, words: &Words, stopped: Option<String>) -> Applied {
        let delivered = self.delivered.len();
        let mut detail = format!("{delivered} of {of} {} {}", words.of, words.settled);
        if !self.not_settled.is_empty() {
            detail.push_str(&format!(
                "; {} {}",
                self.not_settled.len(),
                words.not_settled
            ));
        }
        let last_error = self.errors.last().cloned();
        if !self.not_delivered.is_empty() {
            detail.push_str(&format!(
                "; {} {} ({})",
                self.not_delivered.len(),
                words.not_delivered,
                last_error
                    .as_ref()
                    .map_or("no reason given", |(e, _)| e.as_str())
            ));
        }
        if !self.left.is_empty() {
            // Each reason with the first of its ids: what is left is named here, all of it
            // in the outcome record.
            let mut by_why: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
            for n in &self.left {
                by_why.entry(&n.why).or_default().push(&n.id);
            }
            let whys: Vec<String> = by_why
                .iter()
                .map(|(why, ids)| format!("{why}: {}", first(ids)))
                .collect();
            detail.push_str(&format!(
                "; {} not sent ({})",
                self.left.len(),
                whys.join("; ")
            ));
        }
        if let Some(why) = &stopped {
            detail.push_str(&format!("; {why}"));
        }
        let failed = !self.not_delivered.is_empty() || stopped.is_some();
        let result = serde_json::to_string(&self)
            .ok()
            .and_then(|text| RawValue::from_string(text).ok());
        let code = last_error.and_then(|(_, code)| code);
        // Rows still to send, or delivered but not settled: done in part.
        let undone = self.not_settled.len() + self.left.iter().filter(|n| !n.done).count();
        let applied = match (failed, delivered, undone) {
            (false, 0, _) => Applied::new(Status::LostRace, codes::LOST_RACE, detail),
            (false, _, 0) => Applied::new(Status::Ok, codes::RESOLVED, detail),
            (false, _, _) => Applied::new(Status::Partial, codes::RESOLVED, detail).advice(
                "what was left is named above: once it is as it should be, run it again (a dry run first); only what is still to send is sent",
            ),
            (true, _, _) => Applied::new(Status::Error, codes::FAILED, detail)
                .server_code(code)
                .advice("run it again once the cause is fixed: only what is still not in the topic is sent (the delivered ones carry their id, for consumers that deduplicate)"),
        };
        match result {
            Some(result) => applied.result(result),
            None => applied,
        }
    }
}

/// The outcome's `result`: `delivered` and `delivered_not_marked` ({id, topic, partition,
/// offset}), `not_delivered` ({id, error, code}), `not_sent` ({id, why}).
impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.write(serializer)
    }
}

impl Tally {
    fn write<'a, S: Serializer>(&'a self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct At<'a> {
            id: &'a str,
            topic: &'a str,
            partition: i32,
            offset: i64,
        }
        #[derive(Serialize)]
        struct Failed<'a> {
            id: &'a str,
            error: &'a str,
            code: Option<&'a str>,
        }
        #[derive(Serialize)]
        struct Left<'a> {
            id: &'a str,
            why: &'a str,
        }
        struct Seq<I>(std::cell::Cell<Option<I>>);
        impl<I: Iterator<Item = T>, T: Serialize> Serialize for Seq<I> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.take().into_iter().flatten())
            }
        }
        fn seq<I>(i: I) -> Seq<I> {
            Seq(std::cell::Cell::new(Some(i)))
        }
        let topics = &self.topics;
        let at = move |p: &'a Placed| At {
            id: &p.id,
            topic: topics.get(p.topic as usize).map_or("", String::as_str),
            partition: p.partition,
            offset: p.offset,
        };
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("delivered", &seq(self.delivered.iter().map(at)))?;
        map.serialize_entry(
            "not_delivered",
            &seq(self.not_delivered.iter().map(|(id, e)| {
                let (error, code) = &self.errors[*e as usize];
                Failed {
                    id,
                    error,
                    code: code.as_deref(),
                }
            })),
        )?;
        map.serialize_entry(
            "delivered_not_marked",
            &seq(self.not_settled.iter().map(at)),
        )?;
        map.serialize_entry(
            "not_sent",
            &seq(self.left.iter().map(|n| Left {
                id: &n.id,
                why: &n.why,
            })),
        )?;
        map.end()
    }
}

/// librdkafka's producer, made off the runtime's thread (it connects nothing yet, but
/// initializing transactions waits for the coordinator).
pub async fn producer(
    client: &ClientConfig,
    settings: &ProducerSettings,
    token: &Option<Token>,
) -> Result<Arc<Producer>> {
    let (client, settings, token) = (client.clone(), settings.clone(), token.clone());
    let made = tokio::task::spawn_blocking(move || Producer::new(&client, &settings, token))
        .await
        .map_err(|e| anyhow::anyhow!("the producer stopped: {e}"))??;
    Ok(Arc::new(made))
}

/// A batch handed to the producer: its slot, its rows (id, guard, topic) in message
/// order and the task awaiting its delivery reports.
struct InFlight {
    slot: usize,
    rows: Vec<(String, String, u32)>,
    reports: JoinHandle<Vec<Delivery>>,
}

/// Publishes `items` batch by batch, three at a time in different stages: while batch
/// N is in flight on one slot, N-1 is settled and N+1 fetched on the other. The batch
/// before is acknowledged (or failed) before the next is handed over: a transactional
/// producer commits each batch first, and a stop between batches is clean. Every batch
/// fetched is settled, sent or not. Returns why it stopped early, if it did.
pub async fn publish<R: Rows>(
    rows: &R,
    items: &[R::Item],
    producer: &Arc<Producer>,
    tally: &mut Tally,
) -> Option<String> {
    let mut chunks = items.chunks(BATCH);
    let mut slot = 0;
    let mut in_flight: Option<InFlight> = None;
    // Batches done (acknowledged, failed or not sent) and not yet settled: each slot's
    // are settled before the slot fetches again.
    let mut to_settle: Vec<(usize, Vec<(Placed, String)>)> = Vec::new();
    let mut stopped = None;
    loop {
        let mut next = chunks.next();
        if next.is_some() && interrupt::stop_asked() {
            stopped = Some("interrupted: the rest were not sent".to_string());
            next = None;
        }
        // On this slot, while the batch before is in flight on the other: what it held
        // settled, then the next batch fetched.
        let (here, other): (Vec<_>, Vec<_>) = to_settle.drain(..).partition(|(s, _)| *s == slot);
        to_settle = other;
        let (settled, fetched) = async {
            let mut settled = Vec::new();
            for (s, acked) in here {
                settled.push(settle(rows, s, acked).await);
            }
            let fetched = match next {
                Some(chunk) => Some(rows.fetch(chunk, slot).await),
                None => None,
            };
            (settled, fetched)
        }
        .await;
        for s in settled {
            if let Err(e) = tally.settled(s) {
                stopped = stopped.or(Some(e));
            }
        }
        let fetched = match fetched {
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => {
                stopped = stopped.or(Some(format!("stopped: {e:#}")));
                // Whatever the failed fetch holds on its slot is let go.
                to_settle.push((slot, Vec::new()));
                None
            }
            None => None,
        };
        if let Some(f) = in_flight.take() {
            let of = f.slot;
            match collect(f, tally).await {
                Ok(acked) => to_settle.push((of, acked)),
                Err(e) => {
                    stopped = stopped.or(Some(e));
                    to_settle.push((of, Vec::new()));
                }
            }
            crate::resolve::flow::failpoint("after-batch");
        }
        let Some(fetched) = fetched else {
            break;
        };
        if stopped.is_some() {
            // Fetched but not sent: what the source holds for it is let go.
            if let Err(e) = tally.settled(settle(rows, slot, Vec::new()).await) {
                stopped = stopped.or(Some(e));
            }
            break;
        }
        let mut batch = Vec::with_capacity(fetched.len());
        let mut sent = Vec::with_capacity(fetched.len());
        for f in fetched {
            match f {
                Fetched::Send { id, guard, message } => {
                    sent.push((id, guard, tally.topic(&message.topic)));
                    batch.push(message);
                }
                Fetched::Left { id, why } => tally.left(&id, why),
                Fetched::Done { id, why } => tally.done(&id, why),
            }
        }
        if batch.is_empty() {
            to_settle.push((slot, Vec::new()));
        } else {
            let p = Arc::clone(producer);
            // The one place messages are produced.
            #[allow(clippy::disallowed_methods)]
            let reports = tokio::task::spawn_blocking(move || match p.transactional() {
                true => p.send_batch(&batch),
                false => {
                    let submitted = p.submit(&batch);
                    p.wait(submitted)
                }
            });
            in_flight = Some(InFlight {
                slot,
                rows: sent,
                reports,
            });
        }
        slot = 1 - slot;
    }
    // What was delivered before the stop is still settled: it is in the topic.
    for (s, acked) in to_settle {
        if let Err(e) = tally.settled(settle(rows, s, acked).await) {
            stopped = stopped.or(Some(e));
        }
    }
    stopped
}

/// A batch's delivery reports: the failed ones tallied, the delivered ones returned with
/// their guard.
async fn collect(f: InFlight, tally: &mut Tally) -> Result<Vec<(Placed, String)>, String> {
    let deliveries = f
        .reports
        .await
        .map_err(|e| format!("stopped: the producer stopped: {e}"))?;
    let mut acked = Vec::new();
    for ((id, guard, topic), delivery) in f.rows.into_iter().zip(deliveries) {
        match delivery {
            Delivery::Delivered { partition, offset } => acked.push((
                Placed {
                    id: id.into(),
                    topic,
                    partition,
                    offset,
                },
                guard,
            )),
            Delivery::Failed { error, code } => {
                let e = tally.error(error, code);
                tally.not_delivered.push((id.into(), e));
            }
        }
    }
    Ok(acked)
}

/// The batch of `slot` handed to the source to settle, with its acknowledged rows, and
/// its answer.
async fn settle<R: Rows>(
    rows: &R,
    slot: usize,
    acked: Vec<(Placed, String)>,
) -> (Vec<Placed>, Result<HashSet<String>>) {
    let (placed, guards): (Vec<Placed>, Vec<String>) = acked.into_iter().unzip();
    let pairs: Vec<(String, String)> = placed
        .iter()
        .zip(guards)
        .map(|(p, guard)| (p.id.to_string(), guard))
        .collect();
    let settled = rows.settle(slot, &pairs).await;
    (placed, settled)
}

impl Tally {
    /// The source's answer on delivered rows: those it settled, and those it did not
    /// (all of them when it failed, with why).
    fn settled(
        &mut self,
        (placed, settled): (Vec<Placed>, Result<HashSet<String>>),
    ) -> Result<(), String> {
        match settled {
            Ok(settled) => {
                for p in placed {
                    match settled.contains(&*p.id) {
                        true => self.delivered.push(p),
                        false => self.not_settled.push(p),
                    }
                }
                Ok(())
            }
            Err(e) => {
                self.not_settled.extend(placed);
                Err(format!("stopped: {e:#}"))
            }
        }
    }
}
