//! One connection to one Kafka broker: TCP, TLS and SASL as configured, version
//! negotiation with ApiVersions, and framed, bounded request/response exchanges.

use super::config::ClientConfig;
use super::oauthbearer::{self, Refusal};
use super::scram::{self, Hash, Scram};
use super::security::{Mechanism, Sasl};
use crate::peer::{self, Expected, Peer, WrongServer};
use anyhow::{bail, Context, Result};
use bytes::{Bytes, BytesMut};
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestHeader, ResponseHeader,
    SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};
use kafka_protocol::protocol::{
    Decodable, Encodable, HeaderVersion, Message, StrBytes, VersionRange,
};
use std::collections::HashMap;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest response we accept; a broker answering a metadata request for many thousands
/// of partitions stays far below it, a confused peer does not get to allocate more.
const MAX_FRAME: usize = 256 << 20;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

pub struct Connection {
    stream: Box<dyn Stream>,
    pub address: String,
    correlation: i32,
    /// The bound of each request (the command's, or request.timeout.ms when shorter).
    timeout: Duration,
    client_id: StrBytes,
    /// The broker's supported versions per API key.
    versions: HashMap<i16, VersionRange>,
    /// Set when an exchange failed half-way: the stream may be out of step.
    pub broken: bool,
    /// How it authenticated, to authenticate again when the session ends.
    sasl: Option<Sasl>,
    /// The broker's bound on the SASL session (KIP-368 session_lifetime_ms: its
    /// connections.max.reauth.ms, or what is left of an OAUTHBEARER token's life).
    session: Option<Session>,
}

#[derive(Debug, Clone, Copy)]
struct Session {
    started: std::time::Instant,
    lifetime: Duration,
}

/// The share of a session after which the connection authenticates again (the Java
/// client picks a moment between 85% and 95%).
const REAUTHENTICATE_AT: f64 = 0.85;

/// What was under way when a broker did not answer in time.
#[derive(Debug, Clone)]
pub enum Waiting {
    /// The connection's setup: TCP, TLS, ApiVersions, SASL.
    Connect,
    Request(ApiKey),
}

/// A broker did not answer within the bound: typed for its hint (the bound may be the
/// command's --timeout or a client property's, shorter one).
#[derive(Debug, Clone)]
pub struct NoAnswer {
    pub address: String,
    pub waiting: Waiting,
    pub after: Duration,
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.waiting {
            Waiting::Connect => write!(
                f,
                "connecting to Kafka broker {}: no answer within {:?}",
                self.address, self.after
            ),
            Waiting::Request(key) => write!(
                f,
                "Kafka broker {} did not answer {key:?} within {:?}",
                self.address, self.after
            ),
        }
    }
}

impl std::error::Error for NoAnswer {}

/// The broker refused the SASL credentials (SaslAuthenticate's error), in its words.
#[derive(Debug, Clone)]
pub struct AuthenticationFailed {
    pub mechanism: Mechanism,
    pub message: String,
}

impl std::fmt::Display for AuthenticationFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SASL authentication failed: {}", self.message)
    }
}

impl std::error::Error for AuthenticationFailed {}

impl Connection {
    /// Connects, negotiates versions and authenticates; every step bounded by `timeout`.
    /// The first of the bootstrap servers that answers, tried in order. With one server,
    /// its error whole (typed: a hint may depend on it); with several, every one's.
    pub async fn open_first(config: &ClientConfig, timeout: Duration) -> Result<Connection> {
        // The TLS material (CAs, keys, stores) is read and checked before any server is
        // contacted: an unreadable key is the operator's file, not a broker's silence.
        if let Some(tls) = &config.security.tls {
            super::secure::check(tls)?;
        }
        let mut failures = Vec::new();
        let mut last = None;
        for address in &config.bootstrap {
            match Connection::open(address, config, timeout).await {
                Ok(conn) => return Ok(conn),
                Err(e) => {
                    failures.push(format!("{e:#}"));
                    last = Some(e);
                }
            }
        }
        match last {
            Some(e) if failures.len() == 1 => Err(e.context("no bootstrap server answered")),
            _ => Err(anyhow::anyhow!(
                "no bootstrap server answered: {}",
                failures.join("; ")
            )),
        }
    }

    /// One broker: its setup bounded by `timeout` (or socket.connection.setup.timeout.ms
    /// when shorter), each later request by `timeout` (or request.timeout.ms).
    pub async fn open(
        address: &str,
        config: &ClientConfig,
        timeout: Duration,
    ) -> Result<Connection> {
        let security = &config.security;
        let setup = config.connect_bound(timeout);
        let deadline = tokio::time::Instant::now() + setup;
        let attempt = async {
            let tcp = match TcpStream::connect(address).await {
                Ok(tcp) => tcp,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                    return Err(Refused {
                        address: address.to_string(),
                    }
                    .into())
                }
                Err(e) => return Err(anyhow::Error::new(e).context("TCP connect")),
            };
            let _ = tcp.set_nodelay(true);
            let stream: Box<dyn Stream> = match &security.tls {
                None => Box::new(tcp),
                Some(tls) => {
                    let budget = deadline.saturating_duration_since(tokio::time::Instant::now());
                    match super::secure::handshake(address, tls, tcp, budget).await {
                        Ok(stream) => Box::new(stream),
                        Err(e) if crate::tls::Refusal::of(&e).is_some() => return Err(e),
                        Err(e) => return Err(plain_listener(address, deadline).await.unwrap_or(e)),
                    }
                }
            };
            let mut conn = Connection {
                stream,
                address: address.to_string(),
                correlation: 0,
                timeout: config.request_bound(timeout),
                client_id: StrBytes::from_string(config.client_id.clone()),
                versions: HashMap::new(),
                broken: false,
                sasl: security.sasl.clone(),
                session: None,
            };
            conn.negotiate().await?;
            if let Some(sasl) = &security.sasl {
                conn.authenticate(sasl).await?;
            }
            Ok::<_, anyhow::Error>(conn)
        };
        match tokio::time::timeout(setup, attempt).await {
            Ok(result) => result.with_context(|| format!("connecting to Kafka broker {address}")),
            Err(_) => Err(NoAnswer {
                address: address.to_string(),
                waiting: Waiting::Connect,
                after: setup,
            }
            .into()),
        }
    }

    async fn negotiate(&mut self) -> Result<()> {
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("indoubt"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        // v3 (Kafka 2.4+): older brokers are refused clearly rather than half-spoken to.
        let response: ApiVersionsResponse =
            match self.exchange(ApiKey::ApiVersions, &request, 3).await {
                Ok(response) => response,
                // Not a broker at all: its age is beside the point.
                Err(e) if WrongServer::of(&e).is_some() => return Err(e),
                // The TLS server's alert, met by this first request (TLS 1.3): the cause.
                Err(e) if crate::tls::Refusal::of(&e).is_some() => {
                    return Err(crate::tls::Refusal::of(&e).cloned().map_or(e, Into::into))
                }
                Err(e) => {
                    return Err(e.context("ApiVersions v3 (the broker may be older than Kafka 2.4)"))
                }
            };
        check(response.error_code, "ApiVersions")?;
        self.versions = response
            .api_keys
            .iter()
            .map(|k| {
                (
                    k.api_key,
                    VersionRange {
                        min: k.min_version,
                        max: k.max_version,
                    },
                )
            })
            .collect();
        Ok(())
    }

    async fn authenticate(&mut self, sasl: &Sasl) -> Result<()> {
        let (mechanism, username, password) = (
            sasl.mechanism,
            sasl.username.as_str(),
            sasl.password.as_str(),
        );
        self.session = None;
        let handshake: SaslHandshakeResponse = self
            .exchange(
                ApiKey::SaslHandshake,
                &SaslHandshakeRequest::default()
                    .with_mechanism(StrBytes::from_static_str(mechanism.name())),
                1,
            )
            .await?;
        if handshake.error_code != 0 {
            let offered: Vec<&str> = handshake.mechanisms.iter().map(|m| m.as_str()).collect();
            bail!(
                "the broker does not accept SASL mechanism {} (it offers {})",
                mechanism.name(),
                offered.join(", ")
            );
        }
        let version = self.version(ApiKey::SaslAuthenticate, SaslAuthenticateRequest::VERSIONS)?;
        match mechanism {
            Mechanism::Plain => {
                let token = format!("\0{username}\0{password}");
                self.sasl_step(mechanism, Bytes::from(token.into_bytes()), version)
                    .await?;
            }
            Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
                let hash = if mechanism == Mechanism::ScramSha256 {
                    Hash::Sha256
                } else {
                    Hash::Sha512
                };
                let mut scram = Scram::new(hash, username, password, scram::nonce()?);
                let server_first = self
                    .sasl_step(mechanism, Bytes::from(scram.first()), version)
                    .await?;
                let client_final = scram.respond(&server_first)?;
                let server_final = self
                    .sasl_step(mechanism, Bytes::from(client_final), version)
                    .await?;
                scram.verify(&server_final)?;
            }
            Mechanism::OAuthBearer => {
                let Some(bearer) = &sasl.oauthbearer else {
                    bail!("OAUTHBEARER without a token source");
                };
                let token = bearer.token(self.timeout).await?;
                let first = oauthbearer::client_first(&token.value, &bearer.extensions);
                let response = self.sasl_exchange(Bytes::from(first), version).await?;
                if response.error_code != 0 {
                    return Err(AuthenticationFailed {
                        mechanism,
                        message: message_of(&response),
                    }
                    .into());
                }
                if !response.auth_bytes.is_empty() {
                    let mut error = self
                        .oauthbearer_refusal(&response.auth_bytes, version)
                        .await;
                    if let Some(refusal) = error.downcast_mut::<Refusal>() {
                        refusal.token_claims = super::token::describe_claims(
                            &token.value,
                            std::time::SystemTime::now(),
                        );
                    }
                    return Err(error);
                }
                self.started_session(&response);
            }
            Mechanism::Gssapi => match &sasl.kerberos {
                Some(kerberos) => self.authenticate_gssapi(kerberos, version).await?,
                None => bail!("SASL GSSAPI without Kerberos settings"),
            },
        }
        Ok(())
    }

    /// The broker answered the token with its error JSON: the separator it waits for,
    /// then its failure, both in the error.
    async fn oauthbearer_refusal(&mut self, answer: &[u8], version: i16) -> anyhow::Error {
        let after = self
            .sasl_exchange(Bytes::from(oauthbearer::error_acknowledgement()), version)
            .await;
        let broker_message = match &after {
            Ok(response) if response.error_code != 0 => Some(message_of(response)),
            _ => None,
        };
        match Refusal::from_server_message(answer) {
            Some(mut refusal) => {
                // Kafka's failure message repeats the JSON: only other words are news.
                let json = String::from_utf8_lossy(answer);
                refusal.broker_message = broker_message
                    .filter(|m| !m.is_empty() && m.trim() != json.trim());
                refusal.into()
            }
            None => anyhow::anyhow!(
                "the broker answered the OAUTHBEARER token with {} bytes that are not RFC 7628's error JSON",
                answer.len()
            ),
        }
    }

    async fn sasl_exchange(
        &mut self,
        token: Bytes,
        version: i16,
    ) -> Result<SaslAuthenticateResponse> {
        self.exchange(
            ApiKey::SaslAuthenticate,
            &SaslAuthenticateRequest::default().with_auth_bytes(token),
            version,
        )
        .await
    }

    /// Notes the session lifetime a successful SaslAuthenticate gave (0: none).
    fn started_session(&mut self, response: &SaslAuthenticateResponse) {
        self.session = u64::try_from(response.session_lifetime_ms)
            .ok()
            .filter(|ms| *ms > 0)
            .map(|ms| Session {
                started: std::time::Instant::now(),
                lifetime: Duration::from_millis(ms),
            });
    }

    /// Whether the connection can take another request: not out of step, and its SASL
    /// session (if the broker bounds it) not over. A pool replaces it otherwise.
    pub fn reusable(&self) -> bool {
        !self.broken
            && self
                .session
                .is_none_or(|s| s.started.elapsed() < s.lifetime)
    }

    /// KIP-368: once most of the session has passed, authenticate again on the same
    /// connection (a new token if the old one is due); a session already over cannot
    /// be renewed (the broker closes such a connection at its next request).
    async fn renew_session(&mut self) -> Result<()> {
        let Some(session) = self.session else {
            return Ok(());
        };
        let elapsed = session.started.elapsed();
        if elapsed >= session.lifetime {
            self.broken = true;
            bail!(
                "the SASL session with {} ended after {:?} (the broker's connections.max.reauth.ms or the token's life); a new connection is needed",
                self.address,
                session.lifetime
            );
        }
        if elapsed < session.lifetime.mul_f64(REAUTHENTICATE_AT) {
            return Ok(());
        }
        let Some(sasl) = self.sasl.clone() else {
            return Ok(());
        };
        let outcome = tokio::time::timeout(self.timeout, self.authenticate(&sasl)).await;
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.broken = true;
                Err(e.context(format!("re-authenticating with {} (KIP-368)", self.address)))
            }
            Err(_) => {
                self.broken = true;
                bail!(
                    "re-authenticating with {} (KIP-368): no answer within {:?}",
                    self.address,
                    self.timeout
                )
            }
        }
    }

    /// One SaslAuthenticate round trip of `mechanism`'s exchange.
    pub(super) async fn sasl_step(
        &mut self,
        mechanism: Mechanism,
        token: Bytes,
        version: i16,
    ) -> Result<Bytes> {
        let response = self.sasl_exchange(token, version).await?;
        if response.error_code != 0 {
            return Err(AuthenticationFailed {
                mechanism,
                message: message_of(&response),
            }
            .into());
        }
        self.started_session(&response);
        Ok(response.auth_bytes)
    }

    /// The versions of an API the broker offers (ApiVersions); None when it lacks it.
    pub fn offered(&self, key: ApiKey) -> Option<VersionRange> {
        self.versions.get(&(key as i16)).copied()
    }

    /// The highest version both we and the broker speak.
    pub fn version(&self, key: ApiKey, ours: VersionRange) -> Result<i16> {
        common_version(&self.address, key, self.versions.get(&(key as i16)), ours)
    }

    /// Sends one request at the best common version and reads its response.
    pub async fn send<Req, Resp>(
        &mut self,
        key: ApiKey,
        request: &Req,
        ours: VersionRange,
    ) -> Result<Resp>
    where
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        let version = self.version(key, ours)?;
        if self.broken {
            bail!(
                "the connection to {} failed earlier and is out of step",
                self.address
            );
        }
        self.renew_session().await?;
        let outcome =
            tokio::time::timeout(self.timeout, self.exchange(key, request, version)).await;
        // A half-finished exchange leaves the stream out of step: never reuse it.
        self.broken = !matches!(outcome, Ok(Ok(_)));
        match outcome {
            Ok(result) => result,
            Err(_) => Err(NoAnswer {
                address: self.address.clone(),
                waiting: Waiting::Request(key),
                after: self.timeout,
            }
            .into()),
        }
    }

    async fn exchange<Req, Resp>(
        &mut self,
        key: ApiKey,
        request: &Req,
        version: i16,
    ) -> Result<Resp>
    where
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        self.correlation = self.correlation.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(key as i16)
            .with_request_api_version(version)
            .with_correlation_id(self.correlation)
            .with_client_id(Some(self.client_id.clone()));
        let mut frame = BytesMut::with_capacity(256);
        frame.extend_from_slice(&[0, 0, 0, 0]);
        header.encode(&mut frame, Req::header_version(version))?;
        request.encode(&mut frame, version)?;
        let length = i32::try_from(frame.len() - 4).context("request too large")?;
        frame[..4].copy_from_slice(&length.to_be_bytes());
        self.stream
            .write_all(&frame)
            .await
            .context("writing to the broker")?;
        self.stream.flush().await.context("writing to the broker")?;

        let mut length = [0u8; 4];
        self.stream
            .read_exact(&mut length)
            .await
            .context("reading from the broker (connection closed?)")?;
        let first = length;
        let length = i32::from_be_bytes(length);
        let Some(length) = usize::try_from(length).ok().filter(|l| *l <= MAX_FRAME) else {
            // No broker sends that: the first bytes may say what did answer.
            let found = peer::answer_to_kafka_request(&first, None);
            if matches!(found, Peer::Postgres | Peer::Http | Peer::Tls | Peer::Ssh) {
                return Err(WrongServer {
                    address: self.address.clone(),
                    expected: Expected::Kafka,
                    evidence: peer::evidence(&format!("a Kafka {key:?} request"), &found),
                    found,
                }
                .into());
            }
            bail!("broker sent a frame of {length} bytes: not a Kafka response (wrong security.protocol?)");
        };
        let mut body = vec![0u8; length];
        self.stream
            .read_exact(&mut body)
            .await
            .context("reading from the broker")?;
        let mut body = Bytes::from(body);
        let response_header = ResponseHeader::decode(&mut body, Resp::header_version(version))?;
        if response_header.correlation_id != self.correlation {
            bail!(
                "broker answered request {} to request {}: connection out of step",
                response_header.correlation_id,
                self.correlation
            );
        }
        Resp::decode(&mut body, version)
            .with_context(|| format!("decoding the {key:?} v{version} response"))
    }
}

/// The broker's error message of a failed SaslAuthenticate, control characters dropped.
fn message_of(response: &SaslAuthenticateResponse) -> String {
    response
        .error_message
        .as_ref()
        .map(|m| m.chars().filter(|c| !c.is_control()).take(500).collect())
        .unwrap_or_default()
}

/// Nothing accepted a TCP connection at the address: typed for its hint.
#[derive(Debug, Clone)]
pub struct Refused {
    pub address: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "connection refused at {}", self.address)
    }
}

impl std::error::Error for Refused {}

/// After a failed TLS handshake: whether the port speaks something in plain text (a
/// broker's PLAINTEXT listener, PostgreSQL, HTTP), asked before `deadline`. None when it
/// does not, or says nothing: then the handshake's own error stands.
async fn plain_listener(address: &str, deadline: tokio::time::Instant) -> Option<anyhow::Error> {
    let budget = deadline.saturating_duration_since(tokio::time::Instant::now());
    let (found, evidence) = peer::identify(address, budget).await;
    matches!(found, Peer::Kafka | Peer::Postgres | Peer::Http | Peer::Ssh).then(|| {
        WrongServer {
            address: address.to_string(),
            expected: Expected::KafkaTls,
            found,
            evidence: format!("the TLS handshake failed, and {evidence}"),
        }
        .into()
    })
}

/// The highest version in both ranges, or an UnsupportedVersion error naming both.
fn common_version(
    address: &str,
    key: ApiKey,
    theirs: Option<&VersionRange>,
    ours: VersionRange,
) -> Result<i16> {
    let Some(theirs) = theirs else {
        return Err(Unsupported {
            address: address.to_string(),
            api: key,
            offered: None,
            ours,
        }
        .into());
    };
    let common = theirs.intersect(&ours);
    if common.is_empty() {
        return Err(Unsupported {
            address: address.to_string(),
            api: key,
            offered: Some(*theirs),
            ours,
        }
        .into());
    }
    Ok(common.max)
}

/// A broker that does not speak an API (or none of its versions indoubt needs): typed,
/// so callers can tell a broker too old for a question from a failure to ask it.
#[derive(Debug, Clone)]
pub struct Unsupported {
    address: String,
    pub api: ApiKey,
    /// The versions the broker offers; None when it lacks the API altogether.
    pub offered: Option<VersionRange>,
    ours: VersionRange,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.offered {
            None => write!(
                f,
                "broker {} does not offer the {:?} API (UnsupportedVersion)",
                self.address, self.api
            ),
            Some(theirs) => write!(
                f,
                "broker {} speaks {:?} versions {}..{}, indoubt {}..{} (UnsupportedVersion)",
                self.address, self.api, theirs.min, theirs.max, self.ours.min, self.ours.max
            ),
        }
    }
}

impl std::error::Error for Unsupported {}

impl Unsupported {
    /// The unsupported API somewhere in `e`'s chain of causes.
    pub fn of(e: &anyhow::Error) -> Option<&Unsupported> {
        e.chain()
            .find_map(|cause| cause.downcast_ref::<Unsupported>())
    }
}

/// An error code a broker answered `what` with: kept typed, so callers match the error
/// itself (through any context added on the way up), never its text.
#[derive(Debug, Clone)]
pub struct BrokerError {
    pub error: ResponseError,
    code: i16,
    what: String,
}

impl std::fmt::Display for BrokerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.what, self.name())
    }
}

impl std::error::Error for BrokerError {}

impl BrokerError {
    /// None for 0 (no error).
    pub fn from_code(code: i16, what: &str) -> Option<BrokerError> {
        ResponseError::try_from_code(code).map(|error| BrokerError {
            error,
            code,
            what: what.to_string(),
        })
    }

    /// `TOPIC_AUTHORIZATION_FAILED (29)`.
    pub fn name(&self) -> String {
        error_name(self.code, &self.error)
    }

    /// `TOPIC_AUTHORIZATION_FAILED`.
    pub fn symbol(&self) -> String {
        error_symbol(&self.error)
    }

    /// The broker error somewhere in `e`'s chain of causes.
    pub fn of(e: &anyhow::Error) -> Option<&BrokerError> {
        e.chain()
            .find_map(|cause| cause.downcast_ref::<BrokerError>())
    }
}

/// A Kafka error code as an error naming it, or Ok for 0.
pub fn check(code: i16, what: &str) -> Result<()> {
    match BrokerError::from_code(code, what) {
        None => Ok(()),
        Some(e) => Err(e.into()),
    }
}

/// `TOPIC_AUTHORIZATION_FAILED (29)` style names, as kafka tools and broker logs print them.
pub fn error_name(code: i16, error: &ResponseError) -> String {
    match error {
        ResponseError::Unknown(_) => format!("error code {code}"),
        known => format!("{} ({code})", error_symbol(known)),
    }
}

/// `TOPIC_AUTHORIZATION_FAILED`: Kafka's name of the error, without its code.
fn error_symbol(error: &ResponseError) -> String {
    if let ResponseError::Unknown(code) = error {
        return format!("ERROR_CODE_{code}");
    }
    let camel = error.to_string();
    let mut snake = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_uppercase());
    }
    snake
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_negotiated_or_refused_by_name() {
        let range = |min, max| VersionRange { min, max };
        assert_eq!(
            common_version(
                "b:9092",
                ApiKey::ListOffsets,
                Some(&range(0, 7)),
                range(2, 10)
            )
            .unwrap(),
            7
        );
        let old = common_version("b:9092", ApiKey::DescribeProducers, None, range(0, 0))
            .unwrap_err()
            .to_string();
        assert!(
            old.contains("does not offer the DescribeProducers API (UnsupportedVersion)"),
            "{old}"
        );
        let apart = common_version(
            "b:9092",
            ApiKey::ListTransactions,
            Some(&range(0, 0)),
            range(1, 1),
        )
        .unwrap_err()
        .to_string();
        assert!(
            apart.contains("versions 0..0, indoubt 1..1 (UnsupportedVersion)"),
            "{apart}"
        );
    }

    #[test]
    fn error_names_read_like_kafka_tools() {
        let e = ResponseError::try_from_code(29).unwrap();
        assert_eq!(error_name(29, &e), "TOPIC_AUTHORIZATION_FAILED (29)");
        assert!(check(0, "x").is_ok());
        let wrapped = check(105, "DescribeTransactions")
            .context("asking the coordinator")
            .unwrap_err();
        let found = BrokerError::of(&wrapped).unwrap();
        assert_eq!(found.error, ResponseError::TransactionalIdNotFound);
        assert_eq!(found.symbol(), "TRANSACTIONAL_ID_NOT_FOUND");
        assert_eq!(found.name(), "TRANSACTIONAL_ID_NOT_FOUND (105)");
        assert!(BrokerError::of(&anyhow::anyhow!("TRANSACTIONAL_ID_NOT_FOUND")).is_none());
        assert_eq!(
            check(3, "ListOffsets").unwrap_err().to_string(),
            "ListOffsets: UNKNOWN_TOPIC_OR_PARTITION (3)"
        );
    }
}
