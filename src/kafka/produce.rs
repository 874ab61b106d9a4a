//! Producing messages through librdkafka's idempotent producer (acks=all): the one place
//! indoubt writes to a topic. Each message's delivery report is awaited, so the caller
//! knows exactly which were acknowledged (partition, offset) and which were not. Batches
//! can be in flight together (submit, then wait). Blocking: callers run it off the async
//! runtime's thread.

use super::config::ClientConfig;
use super::librdkafka::{self, ProducerSettings};
use super::token::Token;
use anyhow::{anyhow, Context as _, Result};
use rdkafka::client::{ClientContext, OAuthToken};
use rdkafka::error::KafkaError;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseRecord, Producer as _, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::Message as _;
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One message to produce.
#[derive(Debug, Clone)]
pub struct Message {
    pub topic: String,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Vec<u8>)>,
}

/// What became of one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// Acknowledged by every in-sync replica (and, in a transaction, committed).
    Delivered { partition: i32, offset: i64 },
    /// Not written: the broker or the client said why (a Kafka error name in `code`).
    Failed { error: String, code: Option<String> },
}

impl Delivery {
    pub fn delivered(&self) -> bool {
        matches!(self, Delivery::Delivered { .. })
    }
}

/// The delivery reports of the batches in flight, by batch and index, and the last error
/// librdkafka reported (a refused login, an unreachable broker): what a timed-out message
/// failed for. The producer's polling thread fills them; `done` wakes who waits.
struct Reports {
    batches: Mutex<InFlight>,
    done: Condvar,
    last_error: Mutex<Option<String>>,
    token: Option<Token>,
    principal: String,
}

/// The reports of every batch submitted and not yet collected.
#[derive(Default)]
struct InFlight {
    next: u32,
    open: HashMap<u32, Open>,
}

struct Open {
    slots: Vec<Option<Delivery>>,
    /// Reports still to come.
    left: usize,
}

/// Which message a delivery report is of.
struct Slot {
    batch: u32,
    index: u32,
}

impl ClientContext for Reports {
    const ENABLE_REFRESH_OAUTH_TOKEN: bool = true;

    fn error(&self, error: KafkaError, reason: &str) {
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(format!("{error}: {reason}"));
    }

    fn log(&self, _level: rdkafka::config::RDKafkaLogLevel, _fac: &str, _log_message: &str) {
        // librdkafka's own log lines are not indoubt's output: errors come through `error`.
    }

    /// The token fetched before the producer was made (indoubt's token source: an
    /// unsecured JWT, OIDC client credentials, a file or a command).
    fn generate_oauth_token(
        &self,
        _config: Option<&str>,
    ) -> Result<OAuthToken, Box<dyn std::error::Error>> {
        let token = self
            .token
            .as_ref()
            .ok_or("no OAUTHBEARER token was fetched for the producer")?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        // librdkafka asks again before this; a token of unknown life is held for a minute.
        let life = token.lifetime.unwrap_or(Duration::from_secs(60));
        Ok(OAuthToken {
            token: token.value.clone(),
            principal_name: self.principal.clone(),
            lifetime_ms: (now + life).as_millis() as i64,
        })
    }
}

impl ProducerContext for Reports {
    type DeliveryOpaque = Box<Slot>;

    fn delivery(&self, result: &rdkafka::message::DeliveryResult<'_>, slot: Box<Slot>) {
        let delivery = match result {
            Ok(m) => Delivery::Delivered {
                partition: m.partition(),
                offset: m.offset(),
            },
            Err((e, _)) => failed(e),
        };
        self.report(&slot, delivery);
    }
}

impl Reports {
    fn in_flight(&self) -> MutexGuard<'_, InFlight> {
        self.batches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A message's report (the first one counts: a message is reported once).
    fn report(&self, slot: &Slot, delivery: Delivery) {
        let mut in_flight = self.in_flight();
        if let Some(open) = in_flight.open.get_mut(&slot.batch) {
            if let Some(s @ None) = open.slots.get_mut(slot.index as usize) {
                *s = Some(delivery);
                open.left -= 1;
                if open.left == 0 {
                    self.done.notify_all();
                }
            }
        }
    }
}

fn failed(e: &KafkaError) -> Delivery {
    Delivery::Failed {
        error: e.to_string(),
        code: e.rdkafka_error_code().map(|c| format!("{c:?}")),
    }
}

/// An idempotent producer connected as a [`ClientConfig`] says; librdkafka's delivery
/// reports are served by a polling thread of its own as they come.
pub struct Producer {
    inner: ThreadedProducer<Reports>,
    transactional: bool,
    /// How long a batch may take to be acknowledged (message.timeout.ms and a margin).
    bound: Duration,
}

/// A batch handed to librdkafka whose reports are still to be collected ([`Producer::wait`]).
#[must_use = "a batch's delivery reports must be waited for"]
pub struct Submitted {
    batch: u32,
    started: Instant,
}

impl Producer {
    /// `token`: the OAUTHBEARER token, fetched by the caller, when the mechanism is.
    pub fn new(
        config: &ClientConfig,
        settings: &ProducerSettings,
        token: Option<Token>,
    ) -> Result<Producer> {
        let properties = librdkafka::producer(config, settings)?;
        let mut client = rdkafka::ClientConfig::new();
        for (key, value) in &properties.entries {
            client.set(*key, value);
        }
        let principal = token
            .as_ref()
            .and_then(|t| super::token::jwt_claims(&t.value))
            .and_then(|c| c.get("sub").and_then(|s| s.as_str().map(String::from)))
            .unwrap_or_else(|| config.client_id.clone());
        let context = Reports {
            batches: Mutex::new(InFlight::default()),
            done: Condvar::new(),
            last_error: Mutex::new(None),
            token: token.filter(|_| properties.oauthbearer),
            principal,
        };
        let inner: ThreadedProducer<Reports> = client
            .create_with_context(context)
            .context("setting up librdkafka's producer")?;
        let bound = settings.message_timeout + Duration::from_secs(5);
        if settings.transactional_id.is_some() {
            inner
                .init_transactions(bound)
                .map_err(|e| anyhow!("initializing the producer's transactions: {e}"))?;
        }
        Ok(Producer {
            inner,
            transactional: settings.transactional_id.is_some(),
            bound,
        })
    }

    /// Whether every batch is a transaction of its own ([`Producer::send_batch`] only).
    pub fn transactional(&self) -> bool {
        self.transactional
    }

    /// Hands every message of `batch` to librdkafka without waiting for its
    /// acknowledgement, so the next batch can be read meanwhile; [`Producer::wait`]
    /// collects the reports. Not for a transactional producer: its batches are
    /// transactions, sent by [`Producer::send_batch`].
    pub fn submit(&self, batch: &[Message]) -> Submitted {
        let reports = self.inner.context();
        let number = {
            let mut in_flight = reports.in_flight();
            let number = in_flight.next;
            in_flight.next = in_flight.next.wrapping_add(1);
            in_flight.open.insert(
                number,
                Open {
                    slots: vec![None; batch.len()],
                    left: batch.len(),
                },
            );
            number
        };
        let started = Instant::now();
        for (i, m) in batch.iter().enumerate() {
            let mut headers = OwnedHeaders::new_with_capacity(m.headers.len());
            for (name, value) in &m.headers {
                headers = headers.insert(Header {
                    key: name,
                    value: Some(value),
                });
            }
            let slot = Box::new(Slot {
                batch: number,
                index: i as u32,
            });
            let mut record: BaseRecord<'_, [u8], [u8], Box<Slot>> =
                BaseRecord::with_opaque_to(&m.topic, slot).headers(headers);
            if let Some(key) = &m.key {
                record = record.key(key.as_slice());
            }
            if let Some(value) = &m.value {
                record = record.payload(value.as_slice());
            }
            loop {
                match self.inner.send(record) {
                    Ok(()) => break,
                    // The local queue is full: the polling thread drains it; try again.
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back))
                        if started.elapsed() < self.bound =>
                    {
                        record = back;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err((e, back)) => {
                        reports.report(&back.delivery_opaque, failed(&e));
                        break;
                    }
                }
            }
        }
        Submitted {
            batch: number,
            started,
        }
    }

    /// The delivery report of every message of a submitted batch, in order: waits until
    /// each came or the bound passed (a message with none by then is failed, with the
    /// last error the client reported).
    pub fn wait(&self, submitted: Submitted) -> Vec<Delivery> {
        let reports = self.inner.context();
        let deadline = submitted.started + self.bound;
        let mut in_flight = reports.in_flight();
        loop {
            let left = in_flight.open.get(&submitted.batch).map_or(0, |o| o.left);
            let now = Instant::now();
            if left == 0 || now >= deadline {
                break;
            }
            in_flight = reports
                .done
                .wait_timeout(in_flight, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        let slots = in_flight
            .open
            .remove(&submitted.batch)
            .map(|o| o.slots)
            .unwrap_or_default();
        drop(in_flight);
        let last_error = self.last_error();
        slots
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| Delivery::Failed {
                    error: format!(
                        "no delivery report within {:?}{}",
                        self.bound,
                        last_error
                            .as_deref()
                            .map_or(String::new(), |e| format!(" (the client said: {e})"))
                    ),
                    code: None,
                })
            })
            .collect()
    }

    /// Produces `batch` and waits for every delivery report: one per message, in order.
    /// In a transaction, the batch is committed whole or not at all (an abort makes every
    /// message of it failed).
    pub fn send_batch(&self, batch: &[Message]) -> Vec<Delivery> {
        if !self.transactional {
            #[allow(clippy::disallowed_methods)] // send_batch is itself the write
            let submitted = self.submit(batch);
            return self.wait(submitted);
        }
        if let Err(e) = self.inner.begin_transaction() {
            return vec![failed(&e); batch.len()];
        }
        #[allow(clippy::disallowed_methods)] // send_batch is itself the write
        let submitted = self.submit(batch);
        let mut reports = self.wait(submitted);
        let sent_all = reports.iter().all(Delivery::delivered);
        let ended = match sent_all {
            true => self
                .inner
                .commit_transaction(self.bound)
                .map_err(|e| format!("the transaction did not commit ({e}): aborted")),
            false => Err(
                "a message of the batch was not delivered: its transaction was aborted".to_string(),
            ),
        };
        if let Err(why) = ended {
            let _ = self.inner.abort_transaction(self.bound);
            for r in reports.iter_mut().filter(|r| r.delivered()) {
                *r = Delivery::Failed {
                    error: why.clone(),
                    code: None,
                };
            }
        }
        reports
    }

    /// The last error librdkafka reported (a refused login, an unreachable broker).
    pub fn last_error(&self) -> Option<String> {
        self.inner
            .context()
            .last_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
