//! Diagnostic PostgreSQL sessions: TLS as libpq would, bounded connects and statements, read-only settings.

use super::cancel::{Canceller, Running};
use super::conninfo::{ConnParams, Endpoint, Origin, PasswordFrom, SslMode, UnnamedDb};
use crate::error::hinted;
use crate::tls;
use anyhow::{anyhow, Context, Result};
use futures_util::Stream;
use postgres_native_tls::MakeTlsConnector;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;
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
    pub params: ConnParams,
    pub info: ServerInfo,
}

/// Opens a read-only, autocommit session; every step is bounded by `timeout`.
pub async fn connect(params: &ConnParams, timeout: Duration) -> Result<Session> {
    let target = params.describe();
    // --timeout bounds the whole connect (every host, TLS, authentication);
    // connect_timeout, when given, bounds each host's TCP connect as in libpq.
    let (client, tls) = open_bounded(params, timeout)
        .await
        .with_context(|| format!("connecting to postgres at {target}"))?;
    let canceller = Canceller::new(client.cancel_token(), tls, target.clone(), timeout);
    let mut session = Session {
        client,
        canceller,
        timeout,
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

/// Why a connection could not be made, in the terms its hint needs (src/error.rs words
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

/// Why `open` failed: the driver's error (kept whole to be classified) or our own.
enum Opening {
    Driver(tokio_postgres::Error),
    Setup(anyhow::Error),
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
        return match io.kind() {
            std::io::ErrorKind::ConnectionRefused => Seen::Failure(Failure::Refused),
            std::io::ErrorKind::NotFound => Seen::Failure(Failure::NoSocket),
            std::io::ErrorKind::TimedOut => Seen::Failure(Failure::TimedOut {
                after: Duration::ZERO,
                connect_timeout: true,
                probe: None,
            }),
            // Before a connection (a name that does not resolve, no route): said in full.
            _ if err.to_string() == "error connecting to server" => Seen::Other,
            // During the handshake (a reset, an end, stray bytes): something answered,
            // but not as PostgreSQL does.
            _ => Seen::NoAnswer,
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
async fn open_bounded(
    params: &ConnParams,
    timeout: Duration,
) -> Result<(Client, Option<MakeTlsConnector>)> {
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
    let err = match failed {
        Opening::Setup(e) => return Err(e),
        Opening::Driver(err) => err,
    };
    match classify(&err) {
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
            let detail = pg_error(err).to_string();
            Err(ConnectError::new(failure, params, Some(detail)).into())
        }
        Seen::NoAnswer => {
            match tokio::time::timeout_at(deadline, probe_ports(params, deadline)).await {
                Ok(Err(wrong)) => Err(wrong.into()),
                _ => Err(pg_error(err)),
            }
        }
        Seen::Other => Err(pg_error(err)),
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

/// The client, and the TLS connector it used (a cancel request needs the same).
async fn open(params: &ConnParams) -> Result<(Client, Option<MakeTlsConnector>), Opening> {
    let mut config = tokio_postgres::Config::new();
    for host in &params.hosts {
        config.host(host);
    }
    for addr in &params.hostaddrs {
        config.hostaddr(*addr);
    }
    for port in &params.ports {
        config.port(*port);
    }
    config
        .user(&params.user)
        .dbname(&params.dbname)
        .application_name("indoubt");
    if let Some(password) = &params.password {
        config.password(password.expose());
    }
    if let Some(per_host) = params.connect_timeout {
        config.connect_timeout(per_host);
    }
    if params.read_write_only {
        config.target_session_attrs(tokio_postgres::config::TargetSessionAttrs::ReadWrite);
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
    if mode == SslMode::Disable {
        return Ok((start(&config, tokio_postgres::NoTls).await?, None));
    }
    let tls = cached_tls_connector(params, mode).map_err(Opening::Setup)?;
    Ok((start(&config, tls.clone()).await?, Some(tls)))
}

/// Connects, and drives the connection on a task of its own. That task ends when the
/// client is dropped; an error then is not news.
async fn start<T>(config: &tokio_postgres::Config, tls: T) -> Result<Client, Opening>
where
    T: tokio_postgres::tls::MakeTlsConnect<tokio_postgres::Socket>,
    T::Stream: Send + 'static,
{
    let (client, connection) = config.connect(tls).await.map_err(Opening::Driver)?;
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

/// libpq semantics: prefer/require encrypt without verifying, unless a root certificate
/// is given (then require behaves as verify-ca); verify-ca checks the chain; verify-full
/// also the host name.
fn tls_connector(params: &ConnParams, mode: SslMode) -> Result<MakeTlsConnector> {
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
    let trust = match &root {
        Some(path) if verify_chain && path.as_os_str() != "system" => {
            tls::Trust::Pem(tls::Material::file("sslrootcert", path))
        }
        Some(_) => tls::Trust::System,
        None if verify_chain => {
            return Err(hinted(
                format!("sslmode {mode:?} needs a root certificate"),
                "set sslrootcert=/path/to/ca.pem (or sslrootcert=system), or put it in ~/.postgresql/root.crt",
            ))
        }
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
    let config = tls::Config {
        trust,
        identity,
        verify_certificate: verify_chain,
        verify_hostname: mode == SslMode::VerifyFull,
        min_version: None,
        max_version: None,
    };
    let (connector, _) = config.connector().context("building TLS connector")?;
    Ok(MakeTlsConnector::new(connector))
}

/// Our catalog queries are written for PostgreSQL 13 and newer; older servers are refused
/// up front rather than answered with half-right SQL.
fn supported(version_num: i32, version: &str) -> Result<()> {
    if version_num < MIN_SERVER_VERSION {
        return Err(hinted(
            format!("PostgreSQL {version} is not supported"),
            "indoubt needs PostgreSQL 13 or newer",
        ));
    }
    Ok(())
}

/// Turns a driver error into one line with the server's SQLSTATE, message, detail and hint.
pub fn pg_error(err: tokio_postgres::Error) -> anyhow::Error {
    match err.as_db_error() {
        Some(db) => {
            let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
            if let Some(detail) = db.detail() {
                text.push_str(&format!(" (detail: {detail})"));
            }
            match db.hint() {
                Some(hint) => hinted(text, hint.to_string()),
                None => anyhow!(text),
            }
        }
        None => anyhow::Error::new(err),
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
            Ok(result) => result.map_err(pg_error),
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
            Ok(result) => Ok(result.map(|_| ())),
            Err(_) => Err(anyhow!(
                "statement did not finish within {} (its outcome is unknown: check the object)",
                crate::units::format_duration(self.timeout)
            )),
        }
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
    _running: Running,
}

impl Stream for Rows {
    type Item = Result<Row, tokio_postgres::Error>;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        self.rows.as_mut().poll_next(cx)
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
            crate::error::hint_of(&err),
            Some("indoubt needs PostgreSQL 13 or newer")
        );
        assert!(supported(130000, "13.0").is_ok());
        assert!(supported(180001, "18.1").is_ok());
    }
}
