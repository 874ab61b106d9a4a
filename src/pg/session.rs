//! Diagnostic PostgreSQL sessions: TLS as libpq would, bounded connects and statements, read-only settings.

use super::cancel::{Canceller, Running};
use super::conninfo::{ConnParams, Endpoint, Origin, PasswordFrom, SslMode, UnnamedDb};
use super::wire::{self, cut_server_text, pg_error, Addr, Guarded, GuardedTls, Place, Socket};
use crate::tls;
use anyhow::{anyhow, Context, Result};
use futures_util::Stream;
use postgres_native_tls::MakeTlsConnector;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, RowStream, SimpleQueryMessage};

/// The oldest server whose catalogs our queries were written for.
const MIN_SERVER_VERSION: i32 = 130000;

/// What the session learned about the server and its own privileges.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub version_num: i32,
    pub version: String,
    pub database: String,
    /// Superuser or member of pg_read_all_stats: sees other users' query text and state.
    pub reads_all_stats: bool,
}

pub struct Session {
    client: Client,
    /// Announced with every statement, so an interrupt can cancel it on the server.
    canceller: Canceller,
    timeout: Duration,
    /// Why the connection was closed under the session, when a message was refused.
    wire: wire::Failure,
    pub params: ConnParams,
    pub info: ServerInfo,
}

/// Opens a read-only, autocommit session; every step is bounded by `timeout`.
pub async fn connect(params: &ConnParams, timeout: Duration) -> Result<Session> {
    let target = params.describe();
    // --timeout bounds the whole connect (every host, TLS, authentication);
    // connect_timeout, when given, bounds each host's TCP connect as in libpq.
    let opened = open_bounded(params, timeout)
        .await
        .with_context(|| format!("connecting to postgres at {target}"))?;
    let canceller = Canceller::new(
        opened.client.cancel_token(),
        opened.tls,
        opened.place,
        target.clone(),
        timeout,
    );
    let mut session = Session {
        client: opened.client,
        canceller,
        timeout,
        wire: opened.wire,
        params: params.clone(),
        info: ServerInfo {
            version_num: 0,
            version: String::new(),
            database: params.dbname.clone(),
            reads_all_stats: false,
        },
    };
    session
        .setup()
        .await
        .with_context(|| format!("setting up session on {target}"))?;
    Ok(session)
}

/// Why a connection could not be made, in the terms its hint needs (src/hints.rs words
/// the hints). Failures of other kinds stay the driver's or the server's own error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Nothing accepted a TCP connection at the address (ECONNREFUSED).
    Refused,
    /// No server socket file at the Unix socket path.
    NoSocket,
    /// No answer within `after`: --timeout for the whole connect, or the connection
    /// string's connect_timeout for one host's TCP connect. `probe`: what the port
    /// answered a probe with meanwhile, when it was probed.
    TimedOut {
        after: Duration,
        connect_timeout: bool,
        probe: Option<String>,
    },
    /// The server refused the password (SQLSTATE 28P01).
    PasswordRefused,
    /// The server asked for a password and none was found.
    NoPassword,
    /// The server has no database of that name (SQLSTATE 3D000).
    NoDatabase,
}

/// A connection that failed in a way a hint can speak to: the failure, where the
/// connection went, and where its settings (and password) came from. Never the password.
#[derive(Debug, Clone)]
pub struct ConnectError {
    pub failure: Failure,
    /// Where the attempts went: `host:port`, or the socket file.
    pub endpoints: Vec<Endpoint>,
    pub user: String,
    pub dbname: String,
    /// Why the database is `dbname` when nothing named one; None when something did.
    pub dbname_default: Option<UnnamedDb>,
    pub password_from: Option<PasswordFrom>,
    /// The password file searched when no password was given.
    pub passfile: Option<std::path::PathBuf>,
    pub from_environment: Vec<&'static str>,
    pub origin: Origin,
    /// What the server or the driver said, when it said something.
    detail: Option<String>,
}

impl ConnectError {
    fn new(failure: Failure, params: &ConnParams, detail: Option<String>) -> ConnectError {
        ConnectError {
            failure,
            endpoints: params.endpoints(),
            user: params.user.clone(),
            dbname: params.dbname.clone(),
            dbname_default: params.dbname_default,
            password_from: params.password_from.clone(),
            passfile: params.passfile.clone(),
            from_environment: params.from_environment.clone(),
            origin: params.origin.clone(),
            detail,
        }
    }

    /// `a, b` of the endpoints.
    pub fn places(&self) -> String {
        self.endpoints
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let places = self.places();
        match &self.failure {
            Failure::Refused => write!(f, "connection refused at {places}")?,
            Failure::NoSocket => write!(f, "no server socket at {places}")?,
            Failure::TimedOut {
                after,
                connect_timeout,
                probe,
            } => {
                let after = crate::units::format_duration(*after);
                if *connect_timeout {
                    write!(
                        f,
                        "no TCP connection within connect_timeout {after} at {places}"
                    )?;
                } else {
                    write!(f, "no answer within {after} from {places}")?;
                }
                if let Some(probe) = probe {
                    write!(f, " ({probe})")?;
                }
            }
            Failure::PasswordRefused => match &self.detail {
                Some(detail) => f.write_str(detail)?,
                None => write!(f, "the server refused the password of {}", self.user)?,
            },
            Failure::NoPassword => write!(
                f,
                "the server asks for the password of {} and none was given",
                self.user
            )?,
            Failure::NoDatabase => match &self.detail {
                Some(detail) => f.write_str(detail)?,
                None => write!(f, "database {:?} does not exist", self.dbname)?,
            },
        }
        if let Origin::Defaults(why) = &self.origin {
            if matches!(
                self.failure,
                Failure::Refused | Failure::NoSocket | Failure::TimedOut { .. }
            ) {
                write!(f, "; {why}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ConnectError {}

/// Why `open` failed: the driver's error (kept whole to be classified), the socket's
/// (before any byte was exchanged, or a server that does not allow writes), a server
/// certificate refused for a cause established, or our own.
enum Opening {
    Driver(tokio_postgres::Error),
    Connect(std::io::Error),
    Tls(tls::Refusal),
    Setup(anyhow::Error),
}

/// A failure to reach a server, in the driver's words (it once opened the sockets).
#[derive(Debug)]
struct ConnectFailed(std::io::Error);

impl std::fmt::Display for ConnectFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("error connecting to server")
    }
}

impl std::error::Error for ConnectFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// What a socket's failure says about the connection.
fn classify_connect(err: &std::io::Error) -> Seen {
    match err.kind() {
        std::io::ErrorKind::ConnectionRefused => Seen::Failure(Failure::Refused),
        std::io::ErrorKind::NotFound => Seen::Failure(Failure::NoSocket),
        std::io::ErrorKind::TimedOut => Seen::Failure(Failure::TimedOut {
            after: Duration::ZERO,
            connect_timeout: true,
            probe: None,
        }),
        // A name that does not resolve, no route, a server that allows no writes: said
        // in full.
        _ => Seen::Other,
    }
}

/// What a driver error says about the connection.
enum Seen {
    Failure(Failure),
    /// No PostgreSQL answer (an unexpected message, a closed connection, a failed TLS
    /// handshake): the port is worth a probe.
    NoAnswer,
    /// Anything else: the error says it all.
    Other,
}

fn classify(err: &tokio_postgres::Error) -> Seen {
    if let Some(db) = err.as_db_error() {
        use tokio_postgres::error::SqlState;
        return match db.code() {
            c if *c == SqlState::INVALID_PASSWORD => Seen::Failure(Failure::PasswordRefused),
            c if *c == SqlState::INVALID_CATALOG_NAME => Seen::Failure(Failure::NoDatabase),
            _ => Seen::Other,
        };
    }
    let cause = std::error::Error::source(err);
    if let Some(io) = cause.and_then(|c| c.downcast_ref::<std::io::Error>()) {
        // A message refused by the guard. One a PostgreSQL server sends first (an
        // authentication request, an error, a notice, a protocol version) is said as it
        // is; any other first bytes may well be another server's (a TLS alert, "HTTP/1.1"
        // reads as a huge 'H' message): the port is worth a probe.
        if let Some(oversized) = io
            .get_ref()
            .and_then(|e| e.downcast_ref::<wire::Oversized>())
        {
            return match oversized.tag {
                b'R' | b'E' | b'N' | b'v' => Seen::Other,
                _ => Seen::NoAnswer,
            };
        }
        return match classify_connect(io) {
            Seen::Other => match err.to_string() == "error connecting to server" {
                // Before a connection (a name that does not resolve, no route): said in full.
                true => Seen::Other,
                // During the handshake (a reset, an end, stray bytes): something
                // answered, but not as PostgreSQL does.
                false => Seen::NoAnswer,
            },
            seen => seen,
        };
    }
    // The driver's own words for a password it was asked for and does not have.
    if cause.is_some_and(|c| c.to_string() == "password missing") {
        return Seen::Failure(Failure::NoPassword);
    }
    // The driver's error kinds are private; a server error, a connect error and a
    // configuration error were ruled out above, so this is a protocol failure: an
    // unexpected message, a closed connection, a parse or TLS error.
    if err.to_string() == "invalid configuration" || err.to_string() == "invalid connection string"
    {
        return Seen::Other;
    }
    Seen::NoAnswer
}

/// How long a connect may take before the port is probed alongside it: long enough for
/// a distant server's handshake, short against the timeout.
fn stall_after(timeout: Duration) -> Duration {
    (timeout / 4).min(Duration::from_secs(1))
}

/// `open`, bounded by `timeout`, with failures typed for their hints. When the connect
/// fails without a PostgreSQL answer, or has not finished after a moment, the TCP ports
/// are probed (crate::peer): a Kafka broker, an HTTP or a TLS server there is named at
/// once instead of the connect waiting out the timeout.
async fn open_bounded(params: &ConnParams, timeout: Duration) -> Result<Opened> {
    let deadline = tokio::time::Instant::now() + timeout;
    let opening = open(params);
    tokio::pin!(opening);
    let early = tokio::select! {
        outcome = &mut opening => Some(outcome),
        _ = tokio::time::sleep(stall_after(timeout)) => None,
    };
    let failed = match early {
        Some(Ok(opened)) => return Ok(opened),
        Some(Err(failed)) => failed,
        None => {
            // Still connecting: probe meanwhile, and stop at a server of another kind.
            let probe = probe_ports(params, deadline);
            tokio::pin!(probe);
            let (mut probed, mut probe_done) = (None, false);
            loop {
                tokio::select! {
                    outcome = &mut opening => match outcome {
                        Ok(opened) => return Ok(opened),
                        Err(failed) => break failed,
                    },
                    found = &mut probe, if !probe_done => {
                        probe_done = true;
                        match found {
                            Err(wrong) => return Err(wrong.into()),
                            // Nothing to say when there was no TCP port to probe.
                            Ok(seen) => probed = Some(seen).filter(|s| !s.is_empty()),
                        }
                    }
                    _ = tokio::time::sleep_until(deadline) => {
                        return Err(ConnectError::new(
                            Failure::TimedOut { after: timeout, connect_timeout: false, probe: probed },
                            params,
                            None,
                        )
                        .into())
                    }
                }
            }
        }
    };
    let (seen, err) = match failed {
        Opening::Setup(e) => return Err(e),
        Opening::Tls(refusal) => return Err(anyhow::Error::new(refusal).context("TLS handshake")),
        Opening::Driver(err) => (classify(&err), pg_error(err)),
        Opening::Connect(err) => (classify_connect(&err), ConnectFailed(err).into()),
    };
    match seen {
        Seen::Failure(Failure::TimedOut { probe, .. }) => Err(ConnectError::new(
            Failure::TimedOut {
                after: params.connect_timeout.unwrap_or(timeout),
                connect_timeout: params.connect_timeout.is_some(),
                probe,
            },
            params,
            None,
        )
        .into()),
        Seen::Failure(failure) => {
            let detail = err.to_string();
            Err(ConnectError::new(failure, params, Some(detail)).into())
        }
        Seen::NoAnswer => {
            match tokio::time::timeout_at(deadline, probe_ports(params, deadline)).await {
                Ok(Err(wrong)) => Err(wrong.into()),
                _ => Err(err),
            }
        }
        Seen::Other => Err(err),
    }
}

/// Probes every TCP endpoint (a socket file is PostgreSQL's own); the first that is not
/// PostgreSQL is the error. Else what was seen, for a timeout's message.
async fn probe_ports(
    params: &ConnParams,
    deadline: tokio::time::Instant,
) -> Result<String, crate::peer::WrongServer> {
    use crate::peer::{identify, Expected, Peer, WrongServer};
    let addresses: Vec<String> = params
        .endpoints()
        .into_iter()
        .filter_map(|e| match e {
            Endpoint::Tcp(address) => Some(address),
            Endpoint::Socket(_) => None,
        })
        .collect();
    let budget = deadline.saturating_duration_since(tokio::time::Instant::now());
    let found =
        futures_util::future::join_all(addresses.iter().map(|address| identify(address, budget)))
            .await;
    let mut seen = Vec::new();
    for (address, (peer, evidence)) in addresses.into_iter().zip(found) {
        match peer {
            Peer::Postgres => seen.push(format!(
                "{address} answers a PostgreSQL SSLRequest as PostgreSQL does, but did not finish the connection in time"
            )),
            Peer::Silent => seen.push(format!(
                "a probe of {address} met silence too: {evidence}"
            )),
            Peer::Unreachable => seen.push(format!(
                "a probe's TCP connection to {address} was not accepted either"
            )),
            found => {
                return Err(WrongServer {
                    address,
                    expected: Expected::Postgres,
                    found,
                    evidence,
                })
            }
        }
    }
    Ok(seen.join("; "))
}

/// An open session's client, the TLS connector and the place it used (a cancel request
/// needs the same), and where its guard says why it closed the connection.
struct Opened {
    client: Client,
    tls: Option<MakeTlsConnector>,
    place: Place,
    wire: wire::Failure,
}

/// Connects to the first host (and address) that takes the session, in order, as libpq
/// does. indoubt opens the sockets itself so that the server's bytes pass the guard of
/// src/pg/wire.rs; tokio-postgres speaks the protocol over them.
async fn open(params: &ConnParams) -> Result<Opened, Opening> {
    let mut config = tokio_postgres::Config::new();
    config
        .user(&params.user)
        .dbname(&params.dbname)
        .application_name("indoubt");
    if let Some(password) = &params.password {
        config.password(password.expose());
    }
    // TLS does not apply to Unix sockets; libpq ignores sslmode there too.
    let all_sockets = params.hosts.iter().all(|h| h.starts_with('/'));
    let mode = if all_sockets {
        SslMode::Disable
    } else {
        params.sslmode
    };
    config.ssl_mode(match mode {
        SslMode::Disable => tokio_postgres::config::SslMode::Disable,
        SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
            tokio_postgres::config::SslMode::Require
        }
    });
    let tls = match mode {
        SslMode::Disable => None,
        _ => Some(cached_tls_connector(params, mode).map_err(Opening::Setup)?),
    };
    if !params.hostaddrs.is_empty() && params.hostaddrs.len() != params.hosts.len() {
        return Err(Opening::Setup(anyhow!(
            "invalid configuration: number of hosts ({}) is different from number of hostaddrs ({})",
            params.hosts.len(),
            params.hostaddrs.len()
        )));
    }
    if params.ports.len() > 1 && params.ports.len() != params.hosts.len() {
        return Err(Opening::Setup(anyhow!(
            "invalid configuration: invalid number of ports"
        )));
    }
    let mut last = None;
    for (i, host) in params.hosts.iter().enumerate() {
        let port = params
            .ports
            .get(i)
            .or(params.ports.first())
            .copied()
            .unwrap_or(5432);
        let unix = host.starts_with('/');
        let hostname = (!unix).then(|| host.clone());
        let addrs = match params.hostaddrs.get(i) {
            Some(ip) => vec![Addr::Tcp(std::net::SocketAddr::new(*ip, port))],
            None if unix => vec![Addr::Unix(
                std::path::Path::new(host).join(format!(".s.PGSQL.{port}")),
            )],
            None => match tokio::net::lookup_host((host.as_str(), port)).await {
                Ok(found) => found.map(Addr::Tcp).collect(),
                Err(e) => {
                    last = Some(Opening::Connect(e));
                    continue;
                }
            },
        };
        if addrs.is_empty() {
            last = Some(Opening::Connect(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "could not resolve any addresses",
            )));
        }
        for addr in addrs {
            let place = Place {
                addr,
                hostname: hostname.clone(),
            };
            match open_one(&config, &place, tls.as_ref(), params, mode).await {
                Ok((client, wire)) => {
                    return Ok(Opened {
                        client,
                        tls,
                        place,
                        wire,
                    })
                }
                Err(e) => last = Some(e),
            }
        }
    }
    Err(last.unwrap_or_else(|| Opening::Setup(anyhow!("no host to connect to"))))
}

/// One session at one place: the socket, its guard, TLS as the mode says, the startup.
async fn open_one(
    config: &tokio_postgres::Config,
    place: &Place,
    tls: Option<&MakeTlsConnector>,
    params: &ConnParams,
    mode: SslMode,
) -> Result<(Client, wire::Failure), Opening> {
    let socket = place
        .connect(params.connect_timeout)
        .await
        .map_err(Opening::Connect)?;
    let wire = wire::Failure::default();
    let ssl_request = config.get_ssl_mode() != tokio_postgres::config::SslMode::Disable;
    let stream = Guarded::new(socket, ssl_request, wire.clone());
    let client = match tls {
        None => start(config.connect_raw(stream, tokio_postgres::NoTls)).await?,
        Some(tls) => {
            let connector =
                <MakeTlsConnector as MakeTlsConnect<Guarded<Socket>>>::make_tls_connect(
                    &mut tls.clone(),
                    place.hostname(),
                )
                .map_err(|e| Opening::Setup(anyhow!("building TLS connector: {e}")))?;
            let guarded = GuardedTls::new(connector, place.hostname.is_some(), wire.clone());
            match start(config.connect_raw(stream, guarded)).await {
                Ok(client) => client,
                // OpenSSL's words ("certificate verify failed … self-signed certificate in
                // certificate chain") do not say which CA was trusted nor which one signed.
                Err(Opening::Driver(err)) if tls::failure::verification_failed(&err) => {
                    return Err(match refused_certificate(place, params, mode).await {
                        Some(refusal) => Opening::Tls(refusal),
                        None => Opening::Driver(err),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    };
    if params.read_write_only {
        // target_session_attrs=read-write: a standby is passed over for the next host.
        let answer = client
            .simple_query("SHOW transaction_read_only")
            .await
            .map_err(Opening::Driver)?;
        let read_only = answer.iter().any(|m| match m {
            SimpleQueryMessage::Row(row) => row.get(0) == Some("on"),
            _ => false,
        });
        if read_only {
            return Err(Opening::Connect(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "database does not allow writes",
            )));
        }
    }
    Ok((client, wire))
}

/// Connects, and drives the connection on a task of its own. That task ends when the
/// client is dropped; an error then is not news (a refused message is recorded by the
/// guard for the statement that was waiting).
async fn start<S, T>(
    connecting: impl std::future::Future<
        Output = Result<(Client, tokio_postgres::Connection<S, T>), tokio_postgres::Error>,
    >,
) -> Result<Client, Opening>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (client, connection) = connecting.await.map_err(Opening::Driver)?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// Building a connector loads the system's CA bundle (tens of milliseconds of CPU);
/// a command connecting to fifty databases of one server builds it once.
fn cached_tls_connector(params: &ConnParams, mode: SslMode) -> Result<MakeTlsConnector> {
    type Key = (
        SslMode,
        Option<std::path::PathBuf>,
        Option<std::path::PathBuf>,
        Option<std::path::PathBuf>,
    );
    static CACHE: std::sync::Mutex<Vec<(Key, MakeTlsConnector)>> =
        std::sync::Mutex::new(Vec::new());
    let key: Key = (
        mode,
        params.sslrootcert.clone(),
        params.sslcert.clone(),
        params.sslkey.clone(),
    );
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, connector)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(connector.clone());
    }
    let connector = tls_connector(params, mode)?;
    cache.push((key, connector.clone()));
    Ok(connector)
}

/// The connection settings that fix each cause of a refused handshake, as libpq names them.
pub static NAMES: tls::Names = tls::Names {
    peer: "the PostgreSQL server",
    client_certificate: "sslcert and sslkey",
    trust: "sslrootcert (or PGSSLROOTCERT)",
    hostname: "sslmode=verify-ca (the CA is still checked, not the name)",
    peer_trust: "the server's ssl_ca_file",
    encrypt_only: "sslmode=require without a root certificate",
};

/// How long the second look at a refused certificate may take: it only names the cause.
const LOOK: Duration = Duration::from_secs(5);

/// Why the server at `place` refused verification, looked at again over a new connection
/// (an SSLRequest, then a handshake that verifies nothing and sends nothing): None when
/// the cause cannot be told (the original error stands then).
async fn refused_certificate(
    place: &Place,
    params: &ConnParams,
    mode: SslMode,
) -> Option<tls::Refusal> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Addr::Tcp(address) = place.addr else {
        return None;
    };
    let client = tls::Client::new(&tls_config(params, mode).ok()?).ok()?;
    let look = async {
        let mut socket = place.connect(params.connect_timeout).await.ok()?;
        // SSLRequest: its length (8) and code (80877103); 'S' means TLS follows.
        socket
            .write_all(&[0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])
            .await
            .ok()?;
        let mut answer = [0u8; 1];
        socket.read_exact(&mut answer).await.ok()?;
        if answer[0] != b'S' {
            return None;
        }
        client.refused_certificate(place.hostname(), socket).await
    };
    let diagnosis = tokio::time::timeout(LOOK, look).await.ok().flatten()?;
    Some(tls::Refusal {
        address: address.to_string(),
        diagnosis,
        names: &NAMES,
    })
}

/// libpq semantics: prefer/require encrypt without verifying, unless a root certificate
/// is given (then require behaves as verify-ca); verify-ca checks the chain; verify-full
/// also the host name.
fn tls_connector(params: &ConnParams, mode: SslMode) -> Result<MakeTlsConnector> {
    let config = tls_config(params, mode)?;
    let (connector, _) = config.connector().context("building TLS connector")?;
    Ok(MakeTlsConnector::new(connector))
}

/// The TLS settings of a connection, as `tls_connector` builds them. The root certificate
/// is named by where it was set (sslrootcert, PGSSLROOTCERT, or libpq's default file), for
/// every message about it.
fn tls_config(params: &ConnParams, mode: SslMode) -> Result<tls::Config> {
    // Before anything connects: a key another user owns or can change, or one others may
    // read (refused as libpq refuses it), and a root certificate another user can change
    // (whoever can add a CA to it can be the server).
    if let Some(key) = &params.sslkey {
        crate::fsafe::check_secret_file(key, "sslkey", Some(crate::fsafe::Readers::LikeLibpq))?;
    }
    let default_root = std::env::var_os("HOME")
        .map(|h| {
            std::path::PathBuf::from(h)
                .join(".postgresql")
                .join("root.crt")
        })
        .filter(|p| p.exists());
    let root = params.sslrootcert.clone().or(default_root);
    let verify_chain = match mode {
        SslMode::VerifyCa | SslMode::VerifyFull => true,
        SslMode::Require => root.is_some(),
        SslMode::Disable | SslMode::Prefer => false,
    };
    if let Some(root) = root
        .as_ref()
        .filter(|r| verify_chain && r.as_os_str() != "system")
    {
        crate::fsafe::check_secret_file(root, "sslrootcert", None)?;
    }
    let trust = match &root {
        Some(path) if verify_chain && path.as_os_str() != "system" => {
            let property = match &params.sslrootcert {
                None => "the default sslrootcert",
                Some(_) if params.from_environment.contains(&"PGSSLROOTCERT") => "PGSSLROOTCERT",
                Some(_) => "sslrootcert",
            };
            tls::Trust::Pem(tls::Material::file(property, path))
        }
        Some(_) => tls::Trust::System,
        None if verify_chain => return Err(Refused::NoRootCertificate(mode).into()),
        None => tls::Trust::System,
    };
    let identity = match (&params.sslcert, &params.sslkey) {
        (Some(cert), Some(key)) => Some(tls::ClientIdentity::Pem {
            certificate: tls::Material::file("sslcert", cert),
            key: tls::Material::file("sslkey", key),
            password: tls::Password::none("sslpassword"),
        }),
        _ => None,
    };
    Ok(tls::Config {
        trust,
        identity,
        verify_certificate: verify_chain,
        verify_hostname: mode == SslMode::VerifyFull,
        min_version: None,
        max_version: None,
    })
}

/// Our catalog queries are written for PostgreSQL 13 and newer; older servers are refused
/// up front rather than answered with half-right SQL.
fn supported(version_num: i32, version: &str) -> Result<()> {
    if version_num < MIN_SERVER_VERSION {
        return Err(Refused::Version(cut_server_text(version).into_owned()).into());
    }
    Ok(())
}

/// What indoubt refuses before a session is used: the application says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// sslmode verify-ca or verify-full (or require with no root certificate to check
    /// against) and no root certificate: none given, none at ~/.postgresql/root.crt.
    NoRootCertificate(SslMode),
    /// A server older than 13, by its version string.
    Version(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NoRootCertificate(mode) => {
                write!(f, "sslmode {} needs a root certificate", mode.as_str())
            }
            Refused::Version(version) => write!(f, "PostgreSQL {version} is not supported"),
        }
    }
}

impl std::error::Error for Refused {}

/// A driver error of a session: the guard's reason when it closed the connection (the
/// driver then says only "connection closed"), else the driver's own.
fn session_error(wire: &wire::Failure, err: tokio_postgres::Error) -> anyhow::Error {
    match wire.get() {
        Some(oversized) if err.as_db_error().is_none() => anyhow::Error::new(oversized),
        _ => pg_error(err),
    }
}

impl Session {
    async fn setup(&mut self) -> Result<()> {
        let statement_ms = self.timeout.as_millis().clamp(1, i32::MAX as u128);
        let lock_ms = statement_ms.min(2_000);
        // One round trip: settings first, then what we need to know about the server.
        // A SQL_ASCII database holds bytes the server would refuse to convert to UTF-8 for
        // us: there the session takes them as they are (text is read as bytes, RawText).
        let sql = format!(
            "SET default_transaction_read_only = on; \
             SET statement_timeout = {statement_ms}; \
             SET lock_timeout = {lock_ms}; \
             SET idle_in_transaction_session_timeout = 30000; \
             DO $$ BEGIN IF current_setting('server_encoding') = 'SQL_ASCII' THEN \
               PERFORM set_config('client_encoding', 'SQL_ASCII', false); END IF; END $$; \
             SELECT current_setting('server_version_num'), current_setting('server_version'), \
                    current_database(), \
                    (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \
                    OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')"
        );
        let messages = self.bounded(self.client.simple_query(&sql)).await?;
        let row = messages
            .iter()
            .find_map(|m| match m {
                SimpleQueryMessage::Row(row) => Some(row),
                _ => None,
            })
            .context("server sent no row for the session check")?;
        let get = |i: usize| row.get(i).unwrap_or_default().to_string();
        self.info.version_num = get(0).parse().context("unreadable server_version_num")?;
        self.info.version = get(1);
        self.info.database = get(2);
        self.info.reads_all_stats = get(3) == "t";
        supported(self.info.version_num, &self.info.version)
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        let _running = Running::start(&self.canceller);
        self.timed(fut).await
    }

    /// `bounded` without announcing the statement (its caller does, for longer).
    async fn timed<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(result) => result.map_err(|e| session_error(&self.wire, e)),
            Err(_) => Err(anyhow!(
                "statement did not finish within {}",
                crate::units::format_duration(self.timeout)
            )),
        }
    }

    /// Runs one statement with no parameters through the simple protocol (COMMIT PREPARED
    /// takes none). The outer error is the time bound; the inner one the server's answer,
    /// kept whole for its SQLSTATE.
    pub async fn simple(&self, sql: &str) -> Result<Result<(), tokio_postgres::Error>> {
        let _running = Running::start(&self.canceller);
        match tokio::time::timeout(self.timeout, self.client.simple_query(sql)).await {
            Ok(Err(e)) if e.as_db_error().is_none() && self.wire.get().is_some() => Err(anyhow!(
                "{} (its outcome is unknown: check the object)",
                session_error(&self.wire, e)
            )),
            Ok(result) => Ok(result.map(|_| ())),
            Err(_) => Err(anyhow!(
                "statement did not finish within {} (its outcome is unknown: check the object)",
                crate::units::format_duration(self.timeout)
            )),
        }
    }

    /// Runs statements that write (a transaction: `BEGIN READ WRITE; UPDATE …; COMMIT`)
    /// through the simple protocol: the rows they changed in all. The outer error is the
    /// time bound or a lost connection (the outcome is then unknown); the inner one the
    /// server's answer, whole for its SQLSTATE.
    pub async fn write_counted(&self, sql: &str) -> Result<Result<u64, tokio_postgres::Error>> {
        let _running = Running::start(&self.canceller);
        match tokio::time::timeout(self.timeout, self.client.simple_query(sql)).await {
            Ok(Err(e)) if e.as_db_error().is_none() => Err(anyhow!(
                "{} (its outcome is unknown: check the object)",
                session_error(&self.wire, e)
            )),
            Ok(answer) => Ok(answer.map(|messages| {
                messages
                    .iter()
                    .map(|m| match m {
                        tokio_postgres::SimpleQueryMessage::CommandComplete(n) => *n,
                        _ => 0,
                    })
                    .sum()
            })),
            Err(_) => Err(anyhow!(
                "statement did not finish within {} (its outcome is unknown: check the object)",
                crate::units::format_duration(self.timeout)
            )),
        }
    }

    /// Runs one statement that writes, with bind parameters, in a transaction of its own
    /// (`BEGIN READ WRITE`, the statement, `COMMIT`; `ROLLBACK` when it fails): the rows
    /// it returns. The outer error is the time bound or a lost connection (the outcome is
    /// then unknown); the inner one the server's answer.
    pub async fn write_returning(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Result<Vec<Row>, tokio_postgres::Error>> {
        let _running = Running::start(&self.canceller);
        let unknown = |e: anyhow::Error| anyhow!("{e} (its outcome is unknown: check the rows)");
        let work = async {
            self.client.batch_execute("BEGIN READ WRITE").await?;
            match self.client.query(sql, params).await {
                Ok(rows) => {
                    self.client.batch_execute("COMMIT").await?;
                    Ok(Ok(rows))
                }
                Err(e) if e.as_db_error().is_some() => {
                    self.client.batch_execute("ROLLBACK").await?;
                    Ok(Err(e))
                }
                Err(e) => Err(e),
            }
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => Err(unknown(session_error(&self.wire, e))),
            Err(_) => Err(unknown(anyhow!(
                "statement did not finish within {}",
                crate::units::format_duration(self.timeout)
            ))),
        }
    }

    /// Runs one statement that writes, with bind parameters, in a transaction left open
    /// (`BEGIN READ WRITE`, the statement): the rows it returns, its changes and row locks
    /// held until [`Session::end_held`] commits or rolls them back. The server ends an
    /// abandoned one after `hold` idle (idle_in_transaction_session_timeout). On the
    /// server's refusal the transaction is rolled back. The outer error is the time bound
    /// or a lost connection; the inner one the server's answer.
    pub async fn write_held(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        hold: Duration,
    ) -> Result<Result<Vec<Row>, tokio_postgres::Error>> {
        let hold_ms = hold.as_millis().clamp(1, i32::MAX as u128);
        // PostgreSQL 17's transaction_timeout (a role's or database's) would end it
        // sooner than the hold: it is set to the hold too.
        let whole = match self.info.version_num >= 170_000 {
            true => format!("; SET LOCAL transaction_timeout = {hold_ms}"),
            false => String::new(),
        };
        let work = async {
            self.client
                .batch_execute(&format!(
                    "BEGIN READ WRITE; SET LOCAL idle_in_transaction_session_timeout = {hold_ms}{whole}"
                ))
                .await?;
            match self.client.query(sql, params).await {
                Ok(rows) => Ok(Ok(rows)),
                Err(e) if e.as_db_error().is_some() => {
                    self.client.batch_execute("ROLLBACK").await?;
                    Ok(Err(e))
                }
                Err(e) => Err(e),
            }
        };
        self.bounded(work).await
    }

    /// Ends the transaction [`Session::write_held`] left open: COMMIT, or ROLLBACK. The
    /// server refusing a COMMIT (a deferred constraint, say) rolled it back; a COMMIT
    /// that got no answer (a lost connection, past the timeout) has an unknown outcome.
    /// (A COMMIT of a transaction a failed statement aborted is answered as a ROLLBACK
    /// that looks like success: a caller commits only after every statement it ran in
    /// the transaction succeeded.)
    pub async fn end_held(&self, commit: bool) -> Result<()> {
        let _running = Running::start(&self.canceller);
        let sql = if commit { "COMMIT" } else { "ROLLBACK" };
        let unknown = if commit {
            " (its outcome is unknown: check the rows)"
        } else {
            ""
        };
        match tokio::time::timeout(self.timeout, self.client.batch_execute(sql)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) if e.as_db_error().is_some() => Err(anyhow!(
                "{sql} refused: {} (the transaction was rolled back)",
                session_error(&self.wire, e)
            )),
            Ok(Err(e)) => Err(anyhow!("{sql}: {}{unknown}", session_error(&self.wire, e))),
            Err(_) => Err(anyhow!(
                "{sql} did not finish within {}{unknown}",
                crate::units::format_duration(self.timeout)
            )),
        }
    }

    /// Runs one read-only query with no parameters through the simple protocol: every
    /// value as PostgreSQL's text of it (None for NULL), every literal typed by the
    /// server as its column is. The outer error is the time bound, the inner one the
    /// server's answer.
    pub async fn simple_rows(
        &self,
        sql: &str,
    ) -> Result<Result<Vec<Vec<Option<String>>>, tokio_postgres::Error>> {
        let _running = Running::start(&self.canceller);
        let answer = match tokio::time::timeout(self.timeout, self.client.simple_query(sql)).await {
            Ok(Err(e)) if e.as_db_error().is_none() => return Err(session_error(&self.wire, e)),
            Ok(answer) => answer,
            Err(_) => {
                return Err(anyhow!(
                    "statement did not finish within {}",
                    crate::units::format_duration(self.timeout)
                ))
            }
        };
        Ok(answer.map(|messages| {
            messages
                .iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                        (0..row.len())
                            .map(|i| row.get(i).map(str::to_string))
                            .collect(),
                    ),
                    _ => None,
                })
                .collect()
        }))
    }

    /// Prepares a statement: its columns' names and types are known before it runs.
    pub async fn prepare(&self, sql: &str) -> Result<tokio_postgres::Statement> {
        self.bounded(self.client.prepare(sql)).await
    }

    /// A prepared query whose rows arrive as a stream (for results too large to hold).
    /// Only the start is bounded by the timeout (statement_timeout still bounds the server
    /// side); the statement counts as running until the stream ends or is dropped.
    pub async fn query_stream<'a>(
        &'a self,
        statement: &tokio_postgres::Statement,
        params: &'a [&'a (dyn ToSql + Sync)],
    ) -> Result<Rows> {
        let running = Running::start(&self.canceller);
        let rows = self
            .timed(self.client.query_raw(statement, params.iter().copied()))
            .await?;
        Ok(Rows {
            rows: Box::pin(rows),
            wire: self.wire.clone(),
            _running: running,
        })
    }

    /// Lifts statement_timeout (and the client-side bound) to `limit` for a statement that
    /// legitimately runs long, such as a reconcile query streaming millions of rows.
    pub async fn allow_long_statements(&mut self, limit: Duration) -> Result<()> {
        let ms = limit.as_millis().clamp(1, i32::MAX as u128);
        self.bounded(
            self.client
                .batch_execute(&format!("SET statement_timeout = {ms}")),
        )
        .await?;
        self.timeout = limit;
        Ok(())
    }

    /// Runs one bounded query with bind parameters.
    pub async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        self.bounded(self.client.query(sql, params)).await
    }

    /// Runs one bounded, already prepared statement with bind parameters.
    pub async fn query_prepared(
        &self,
        statement: &tokio_postgres::Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        self.bounded(self.client.query(statement, params)).await
    }
}

/// The rows of `Session::query_stream`; the statement stays announced as running (and so
/// cancellable) until the last row or the stream's drop.
pub struct Rows {
    rows: Pin<Box<RowStream>>,
    wire: wire::Failure,
    _running: Running,
}

impl Stream for Rows {
    type Item = Result<Row>;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        match self.rows.as_mut().poll_next(cx) {
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(session_error(&self.wire, e)))),
            Poll::Ready(Some(Ok(row))) => Poll::Ready(Some(Ok(row))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_before_13_are_refused() {
        let err = supported(120017, "12.17").unwrap_err();
        assert_eq!(err.to_string(), "PostgreSQL 12.17 is not supported");
        assert_eq!(
            err.downcast_ref::<Refused>(),
            Some(&Refused::Version("12.17".into()))
        );
        assert!(supported(130000, "13.0").is_ok());
        assert!(supported(180001, "18.1").is_ok());
    }
}
