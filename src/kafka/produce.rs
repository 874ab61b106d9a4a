//! Producing messages through librdkafka's idempotent producer (acks=all): the one place
//! indoubt writes to a topic. Each message's delivery report is awaited, so the caller
//! knows exactly which were acknowledged (partition, offset) and which were not. Blocking:
//! callers run it off the async runtime's thread.

use super::config::ClientConfig;
use super::librdkafka::{self, ProducerSettings};
use super::token::Token;
use anyhow::{anyhow, Context as _, Result};
use rdkafka::client::{ClientContext, OAuthToken};
use rdkafka::error::KafkaError;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer as _, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::Message as _;
use std::sync::Mutex;
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

/// The delivery reports of one batch by index, and the last error librdkafka reported
/// (a refused login, an unreachable broker): what a timed-out message failed for.
struct Reports {
    batch: Mutex<Vec<Option<Delivery>>>,
    last_error: Mutex<Option<String>>,
    token: Option<Token>,
    principal: String,
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
    type DeliveryOpaque = Box<usize>;

    fn delivery(&self, result: &rdkafka::message::DeliveryResult<'_>, index: Box<usize>) {
        let delivery = match result {
            Ok(m) => Delivery::Delivered {
                partition: m.partition(),
                offset: m.offset(),
            },
            Err((e, _)) => failed(e),
        };
        let mut batch = self.batch.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = batch.get_mut(*index) {
            *slot = Some(delivery);
        }
    }
}

fn failed(e: &KafkaError) -> Delivery {
    Delivery::Failed {
        error: e.to_string(),
        code: e.rdkafka_error_code().map(|c| format!("{c:?}")),
    }
}

/// An idempotent producer connected as a [`ClientConfig`] says.
pub struct Producer {
    inner: BaseProducer<Reports>,
    transactional: bool,
    /// How long a batch may take to be acknowledged (message.timeout.ms and a margin).
    bound: Duration,
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
            batch: Mutex::new(Vec::new()),
            last_error: Mutex::new(None),
            token: token.filter(|_| properties.oauthbearer),
            principal,
        };
        let inner: BaseProducer<Reports> = client
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

    /// Produces `batch` and waits for every delivery report: one per message, in order.
    /// In a transaction, the batch is committed whole or not at all (an abort makes every
    /// message of it failed).
    pub fn send_batch(&self, batch: &[Message]) -> Vec<Delivery> {
        *self.reports() = vec![None; batch.len()];
        if self.transactional {
            if let Err(e) = self.inner.begin_transaction() {
                return vec![failed(&e); batch.len()];
            }
        }
        let started = Instant::now();
        for (i, m) in batch.iter().enumerate() {
            let mut headers = OwnedHeaders::new_with_capacity(m.headers.len());
            for (name, value) in &m.headers {
                headers = headers.insert(Header {
                    key: name,
                    value: Some(value),
                });
            }
            let mut record: BaseRecord<'_, [u8], [u8], Box<usize>> =
                BaseRecord::with_opaque_to(&m.topic, Box::new(i)).headers(headers);
            if let Some(key) = &m.key {
                record = record.key(key.as_slice());
            }
            if let Some(value) = &m.value {
                record = record.payload(value.as_slice());
            }
            loop {
                match self.inner.send(record) {
                    Ok(()) => break,
                    // The local queue is full: serve delivery reports, then try again.
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back))
                        if started.elapsed() < self.bound =>
                    {
                        record = back;
                        self.inner.poll(Duration::from_millis(50));
                    }
                    Err((e, _)) => {
                        self.reports()[i] = Some(failed(&e));
                        break;
                    }
                }
            }
        }
        // Every report, served as it comes: rdkafka's flush polls in slices of 100 ms that
        // it always sleeps out, which made each batch of a republish cost 100 ms.
        while self.inner.in_flight_count() > 0 && started.elapsed() < self.bound {
            self.inner.poll(Duration::from_millis(1));
        }
        let flushed = self.inner.flush(Duration::ZERO);
        self.inner.poll(Duration::ZERO);
        let mut reports = std::mem::take(&mut *self.reports());
        if self.transactional {
            let sent_all = reports
                .iter()
                .all(|r| r.as_ref().is_some_and(Delivery::delivered));
            let ended = match sent_all && flushed.is_ok() {
                true => self
                    .inner
                    .commit_transaction(self.bound)
                    .map_err(|e| format!("the transaction did not commit ({e}): aborted")),
                false => Err(
                    "a message of the batch was not delivered: its transaction was aborted"
                        .to_string(),
                ),
            };
            if let Err(why) = ended {
                let _ = self.inner.abort_transaction(self.bound);
                for r in reports.iter_mut() {
                    if r.as_ref().is_none_or(Delivery::delivered) {
                        *r = Some(Delivery::Failed {
                            error: why.clone(),
                            code: None,
                        });
                    }
                }
            }
        }
        let last_error = self.last_error();
        reports
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

    /// The last error librdkafka reported (a refused login, an unreachable broker).
    pub fn last_error(&self) -> Option<String> {
        self.inner
            .context()
            .last_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn reports(&self) -> std::sync::MutexGuard<'_, Vec<Option<Delivery>>> {
        self.inner
            .context()
            .batch
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}
