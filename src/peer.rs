//! Which kind of server answers on a port, told by the first bytes it sends back: PostgreSQL,
//! a Kafka broker, HTTP, TLS or SSH. Used when a connection fails or stalls, so a port
//! mix-up is named at once instead of waiting out the timeout.
//!
//! Two probes, each answered at once by the protocol it speaks and by no other:
//! PostgreSQL answers an SSLRequest with one byte, `S` or `N`; a Kafka broker answers an
//! ApiVersions request with a frame that echoes the request's correlation id. A broker
//! waits in silence after an SSLRequest (it reads it as an incomplete frame), which is
//! why the second probe exists. HTTP, TLS and SSH servers give themselves away with their
//! first bytes to either.

use std::fmt;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// What answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    Postgres,
    Kafka,
    Http,
    Tls,
    Ssh,
    /// Accepted the connection and closed it without a byte.
    Closed,
    /// Accepted the connection and said nothing within the time given.
    Silent,
    /// The TCP connection itself failed or was not accepted in time.
    Unreachable,
    /// Answered with bytes no known protocol starts with (the first few kept).
    Other(Vec<u8>),
}

impl Peer {
    /// "a Kafka broker": what the server is, for "X looks like …".
    pub fn name(&self) -> &'static str {
        match self {
            Peer::Postgres => "a PostgreSQL server",
            Peer::Kafka => "a Kafka broker",
            Peer::Http => "an HTTP server",
            Peer::Tls => "a TLS server",
            Peer::Ssh => "an SSH server",
            Peer::Closed | Peer::Silent | Peer::Unreachable | Peer::Other(_) => "an unknown server",
        }
    }
}

/// The protocol a connection expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    Postgres,
    Kafka,
    /// A Kafka broker's TLS listener (security.protocol SSL or SASL_SSL).
    KafkaTls,
}

impl Expected {
    fn name(self) -> &'static str {
        match self {
            Expected::Postgres => "PostgreSQL",
            Expected::Kafka => "a Kafka broker",
            Expected::KafkaTls => "a TLS listener",
        }
    }
}

/// Something other than the expected server answered at `address`: typed, so the hint
/// can say what to do (src/hints.rs).
#[derive(Debug, Clone)]
pub struct WrongServer {
    pub address: String,
    pub expected: Expected,
    pub found: Peer,
    /// What it was sent and how it answered: "it answered a PostgreSQL SSLRequest with an
    /// HTTP response".
    pub evidence: String,
}

impl fmt::Display for WrongServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (address, expected, evidence) = (&self.address, self.expected.name(), &self.evidence);
        match &self.found {
            Peer::Closed | Peer::Silent | Peer::Unreachable | Peer::Other(_) => {
                write!(f, "{address} is not {expected}: {evidence}")
            }
            Peer::Kafka if self.expected == Expected::KafkaTls => write!(
                f,
                "{address} looks like a plaintext Kafka listener, not a TLS one: {evidence}"
            ),
            found => write!(
                f,
                "{address} looks like {}, not {expected}: {evidence}",
                found.name()
            ),
        }
    }
}

impl std::error::Error for WrongServer {}

impl WrongServer {
    /// The wrong server somewhere in `e`'s chain of causes.
    pub fn of(e: &anyhow::Error) -> Option<&WrongServer> {
        e.chain().find_map(|c| c.downcast_ref::<WrongServer>())
    }
}

/// How `found` answered `asked` ("a PostgreSQL SSLRequest"), as evidence.
pub fn evidence(asked: &str, found: &Peer) -> String {
    match found {
        Peer::Postgres => format!("it answered {asked} as a PostgreSQL server does"),
        Peer::Kafka => format!("it answered {asked} as a Kafka broker does"),
        Peer::Http => format!("it answered {asked} with an HTTP response"),
        Peer::Tls => format!("it answered {asked} with a TLS record"),
        Peer::Ssh => format!("it answered {asked} with an SSH banner"),
        Peer::Closed => {
            format!("it accepted the connection and closed it without answering {asked}")
        }
        Peer::Silent => format!("it did not answer {asked}"),
        Peer::Unreachable => "it did not accept a TCP connection".to_string(),
        Peer::Other(bytes) => format!("it answered {asked} with the bytes {}", hex(bytes)),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// PostgreSQL's SSLRequest: length 8, code 1234.5679.
pub const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// The correlation id of the ApiVersions probe ("indb"), echoed by a broker.
const PROBE_CORRELATION: [u8; 4] = *b"indb";

/// ApiVersions v0 (every broker since 0.10 answers it), request header v1, client id
/// "indoubt", empty body.
fn api_versions_probe() -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&18i16.to_be_bytes()); // ApiVersions
    body.extend_from_slice(&0i16.to_be_bytes()); // v0
    body.extend_from_slice(&PROBE_CORRELATION);
    body.extend_from_slice(&7i16.to_be_bytes());
    body.extend_from_slice(b"indoubt");
    let mut frame = (body.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

/// HTTP, TLS and SSH, by the bytes they answer anything with.
fn common(first: &[u8]) -> Option<Peer> {
    if first.starts_with(b"HTTP/") || (first.len() < 5 && b"HTTP/".starts_with(first)) {
        return Some(Peer::Http);
    }
    // A TLS record: alert (21) or handshake (22), version 3.x.
    if first.len() >= 2 && matches!(first[0], 0x15 | 0x16) && first[1] == 0x03 {
        return Some(Peer::Tls);
    }
    if first.starts_with(b"SSH-") {
        return Some(Peer::Ssh);
    }
    None
}

/// A PostgreSQL error packet: 'E', then a length that fits in a small message.
fn postgres_error(first: &[u8]) -> bool {
    first.len() >= 4 && first[0] == b'E' && first[1] == 0 && first[2] == 0
}

/// What the first bytes answered to an SSLRequest say.
pub fn answer_to_ssl_request(first: &[u8]) -> Peer {
    match first {
        [] => Peer::Closed,
        [b'S' | b'N', ..] if first.len() == 1 => Peer::Postgres,
        _ if postgres_error(first) => Peer::Postgres,
        _ => common(first).unwrap_or_else(|| Peer::Other(first.iter().take(8).copied().collect())),
    }
}

/// What the first bytes answered to a Kafka request say; `correlation` is the request's
/// id when known (a broker's answer starts with its length, then that id).
pub fn answer_to_kafka_request(first: &[u8], correlation: Option<[u8; 4]>) -> Peer {
    if first.is_empty() {
        return Peer::Closed;
    }
    if postgres_error(first) {
        return Peer::Postgres;
    }
    if let Some(found) = common(first) {
        return found;
    }
    if let Some(correlation) = correlation {
        if first.len() >= 8 && first[4..8] == correlation {
            return Peer::Kafka;
        }
    }
    Peer::Other(first.iter().take(8).copied().collect())
}

/// Sends `request` on a new connection to `address` and reads what comes back before
/// `deadline`: as many bytes as arrive in one read, at least `want` when they come.
async fn ask(
    address: &str,
    request: &[u8],
    want: usize,
    deadline: Instant,
) -> Result<Vec<u8>, Peer> {
    let Ok(Ok(mut tcp)) = tokio::time::timeout_at(deadline, TcpStream::connect(address)).await
    else {
        return Err(Peer::Unreachable);
    };
    let _ = tcp.set_nodelay(true);
    if tokio::time::timeout_at(deadline, tcp.write_all(request))
        .await
        .map_or(true, |r| r.is_err())
    {
        return Err(Peer::Closed);
    }
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while got.len() < want {
        match tokio::time::timeout_at(deadline, tcp.read(&mut buf)).await {
            Err(_) if got.is_empty() => return Err(Peer::Silent),
            Ok(Ok(0)) | Ok(Err(_)) if got.is_empty() => return Err(Peer::Closed),
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    Ok(got)
}

/// Is it PostgreSQL? An SSLRequest, answered within `budget`. A PostgreSQL server answers
/// it with one byte and nothing more, so one byte is enough.
pub async fn probe_postgres(address: &str, budget: Duration) -> Peer {
    match ask(address, &SSL_REQUEST, 1, Instant::now() + budget).await {
        Ok(first) => answer_to_ssl_request(&first),
        Err(peer) => peer,
    }
}

/// Is it a Kafka broker? An ApiVersions v0 request, answered within `budget`.
pub async fn probe_kafka(address: &str, budget: Duration) -> Peer {
    match ask(address, &api_versions_probe(), 8, Instant::now() + budget).await {
        Ok(first) => answer_to_kafka_request(&first, Some(PROBE_CORRELATION)),
        Err(peer) => peer,
    }
}

/// What listens at `address`, and the evidence, within `budget`: the SSLRequest first
/// (PostgreSQL answers it at once; an answer of another kind names its server), then, if
/// it met silence, the ApiVersions request (a broker is silent to an SSLRequest, and
/// answers this).
pub async fn identify(address: &str, budget: Duration) -> (Peer, String) {
    let deadline = Instant::now() + budget;
    // Each at most half of what is left and a second: either server answers within a
    // round trip, and the caller's own bound must not run out first.
    let step = |left: Duration| (left / 2).min(Duration::from_secs(1));
    match probe_postgres(address, step(budget)).await {
        Peer::Silent => {
            let rest = deadline.saturating_duration_since(Instant::now());
            match probe_kafka(address, step(rest)).await {
                // Silent to both, it is still silent.
                Peer::Closed | Peer::Unreachable | Peer::Silent => (
                    Peer::Silent,
                    format!("it did not answer {SSL_REQUEST_NAME} or {API_VERSIONS_NAME}"),
                ),
                found => {
                    let how = evidence(API_VERSIONS_NAME, &found);
                    (
                        found,
                        format!("it did not answer {SSL_REQUEST_NAME}, and {how}"),
                    )
                }
            }
        }
        found => {
            let how = evidence(SSL_REQUEST_NAME, &found);
            (found, how)
        }
    }
}

pub const SSL_REQUEST_NAME: &str = "a PostgreSQL SSLRequest";
pub const API_VERSIONS_NAME: &str = "a Kafka ApiVersions request";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_name_their_server() {
        assert_eq!(answer_to_ssl_request(b"N"), Peer::Postgres);
        assert_eq!(answer_to_ssl_request(b"S"), Peer::Postgres);
        assert_eq!(answer_to_ssl_request(b"E\0\0\0\x6fSFATAL"), Peer::Postgres);
        assert_eq!(
            answer_to_ssl_request(b"HTTP/1.1 400 Bad Request\r\n"),
            Peer::Http
        );
        assert_eq!(
            answer_to_ssl_request(&[0x15, 0x03, 0x03, 0, 2, 2, 10]),
            Peer::Tls
        );
        assert_eq!(answer_to_ssl_request(b"SSH-2.0-OpenSSH_9.2"), Peer::Ssh);
        assert_eq!(answer_to_ssl_request(b""), Peer::Closed);
        // 'N' followed by more is not PostgreSQL's one-byte answer.
        assert_eq!(
            answer_to_ssl_request(b"NOPE"),
            Peer::Other(b"NOPE".to_vec())
        );

        let corr = Some(*b"abcd");
        assert_eq!(
            answer_to_kafka_request(b"\0\0\0\x10abcd\0\0", corr),
            Peer::Kafka
        );
        assert_eq!(
            answer_to_kafka_request(b"\0\0\0\x10wxyz\0\0", corr),
            Peer::Other(b"\0\0\0\x10wxyz".to_vec())
        );
        // The first four bytes a plain Kafka client reads as a frame length.
        assert_eq!(answer_to_kafka_request(b"E\0\0\0", None), Peer::Postgres);
        assert_eq!(answer_to_kafka_request(b"HTTP", None), Peer::Http);
        assert_eq!(
            answer_to_kafka_request(&[0x15, 0x03, 0x03, 0x00], None),
            Peer::Tls
        );
    }

    #[test]
    fn the_kafka_probe_is_an_api_versions_v0_frame() {
        let frame = api_versions_probe();
        assert_eq!(&frame[..4], &(frame.len() as i32 - 4).to_be_bytes());
        assert_eq!(&frame[4..8], &[0, 18, 0, 0]);
        assert_eq!(&frame[8..12], b"indb");
    }

    #[test]
    fn messages_name_what_was_found_and_what_was_expected() {
        let wrong = WrongServer {
            address: "127.0.0.1:19092".into(),
            expected: Expected::Postgres,
            found: Peer::Kafka,
            evidence: evidence(API_VERSIONS_NAME, &Peer::Kafka),
        };
        assert_eq!(
            wrong.to_string(),
            "127.0.0.1:19092 looks like a Kafka broker, not PostgreSQL: it answered a Kafka ApiVersions request as a Kafka broker does"
        );
        let closed = WrongServer {
            address: "db:5432".into(),
            expected: Expected::Postgres,
            found: Peer::Closed,
            evidence: evidence(SSL_REQUEST_NAME, &Peer::Closed),
        };
        assert_eq!(
            closed.to_string(),
            "db:5432 is not PostgreSQL: it accepted the connection and closed it without answering a PostgreSQL SSLRequest"
        );
    }
}
