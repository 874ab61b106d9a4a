//! One bounded session to a MySQL or MariaDB server: TLS as `--ssl-mode` says, read-only
//! for inspection, every statement under the timeout, and the server's flavour and version.
//! (PREFERRED may take two connects, each bounded: TLS, then plain when none is offered.)

use super::params::{MysqlParams, SslMode};
use anyhow::{anyhow, Context, Result};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder, Row, SslOpts, Value};
use std::time::Duration;

/// Which server it is: the SQL they offer differs (XA RECOVER CONVERT XID, data_locks,
/// the history list's counter, the statement timeout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavor {
    Mysql,
    Mariadb,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Mysql => "MySQL",
            Flavor::Mariadb => "MariaDB",
        }
    }
}

/// What a session may do: inspection never writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ReadOnly,
    /// A resolution's session: XA COMMIT and XA ROLLBACK are writes.
    Resolve,
}

pub struct Session {
    conn: Conn,
    pub flavor: Flavor,
    /// `version()`, e.g. `10.11.19-MariaDB-0+deb12u1-log`.
    pub version: String,
    pub timeout: Duration,
    /// Whether the session is over TLS.
    pub tls: bool,
    address: String,
}

/// A server error: its number (1397 is XAER_NOTA) and SQLSTATE, for a caller to act on.
#[derive(Debug, Clone)]
pub struct ServerError {
    pub code: u16,
    pub state: String,
    pub message: String,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for ServerError {}

/// The server's error in a chain, if that is what failed.
pub fn server_error(e: &anyhow::Error) -> Option<&ServerError> {
    e.chain().find_map(|c| c.downcast_ref::<ServerError>())
}

fn converted(e: mysql_async::Error) -> anyhow::Error {
    match e {
        mysql_async::Error::Server(s) => anyhow::Error::new(ServerError {
            code: s.code,
            state: s.state,
            message: s.message,
        }),
        other => anyhow::Error::new(other),
    }
}

/// Connects, bounded by `timeout`, and sets the session up: UTC, statement and lock
/// timeouts, and for inspection a read-only session.
pub async fn connect(params: &MysqlParams, timeout: Duration, mode: Mode) -> Result<Session> {
    let address = params.describe();
    let attempt = |tls: bool| async move {
        let conn = tokio::time::timeout(timeout, Conn::new(opts(params, tls)?))
            .await
            .map_err(|_| {
                anyhow!(
                    "connecting timed out after {}",
                    crate::units::format_duration(timeout)
                )
            })?
            .map_err(converted)?;
        anyhow::Ok(conn)
    };
    let (conn, tls) = match params.ssl_mode {
        SslMode::Disabled => (attempt(false).await, false),
        SslMode::Preferred => match attempt(true).await {
            // The server offers no TLS: PREFERRED goes on without, as the client does.
            Err(e) if no_tls_offered(&e) => (attempt(false).await, false),
            other => (other, true),
        },
        _ => (attempt(true).await, true),
    };
    // OpenSSL's words ("certificate verify failed … self-signed certificate in certificate
    // chain") do not say which CA was trusted nor which one signed: looked at again.
    let conn = match conn {
        Err(e)
            if matches!(params.ssl_mode, SslMode::VerifyCa | SslMode::VerifyIdentity)
                && crate::tls::failure::verification_failed(e.as_ref()) =>
        {
            match refused_certificate(params, timeout).await {
                Some(refusal) => Err(anyhow::Error::new(refusal).context("TLS handshake")),
                None => Err(e),
            }
        }
        other => other,
    };
    let conn = conn.with_context(|| match params.ssl_mode {
        SslMode::Disabled | SslMode::Preferred => format!("connecting to {address}"),
        mode => format!("connecting to {address} (ssl-mode {})", mode.as_str()),
    })?;
    let mut session = Session {
        conn,
        flavor: Flavor::Mysql,
        version: String::new(),
        timeout,
        tls,
        address,
    };
    let version = session
        .one_text("SELECT version()")
        .await?
        .unwrap_or_default();
    session.flavor = match version.contains("MariaDB") {
        true => Flavor::Mariadb,
        false => Flavor::Mysql,
    };
    session.version = version;
    let secs = timeout.as_secs().max(1);
    let mut setup = vec![
        // InnoDB writes innodb_trx's times in the server OS's zone: read back in it, so
        // UNIX_TIMESTAMP() of them is right (a global or init_connect zone would skew ages).
        "SET time_zone = 'SYSTEM'".to_string(),
        format!("SET SESSION lock_wait_timeout = {secs}"),
        format!("SET SESSION innodb_lock_wait_timeout = {secs}"),
    ];
    setup.push(match session.flavor {
        Flavor::Mariadb => format!("SET SESSION max_statement_time = {}", timeout.as_secs_f64()),
        Flavor::Mysql => format!("SET SESSION max_execution_time = {}", timeout.as_millis()),
    });
    if mode == Mode::ReadOnly {
        setup.push("SET SESSION TRANSACTION READ ONLY".to_string());
    }
    for statement in setup {
        session
            .run(&statement)
            .await
            .with_context(|| format!("setting the session up ({statement})"))?;
    }
    Ok(session)
}

/// The connection settings that fix each cause of a refused handshake, as the mysql
/// client names them (indoubt's MySQL connection presents no client certificate).
pub static NAMES: crate::tls::Names = crate::tls::Names {
    peer: "the server",
    client_certificate: "a client certificate, which indoubt's MySQL connection does not present",
    trust: "--ssl-ca (ssl-ca in the option file, or ?ssl-ca= in the URL)",
    hostname: "--ssl-mode=VERIFY_CA (the CA is still checked, not the name)",
    peer_trust: "the server's ssl_ca",
    encrypt_only: "--ssl-mode=REQUIRED",
};

/// How large the server's first packet may be: a handshake is well under a kilobyte.
const MAX_HANDSHAKE: usize = 64 * 1024;

/// Why the server refused verification, looked at again over a new connection: the
/// server's handshake packet read, an SSL request sent (no credentials), then a TLS
/// handshake that verifies nothing and sends nothing. None when the cause cannot be told
/// (the driver's error stands then).
async fn refused_certificate(
    params: &MysqlParams,
    timeout: Duration,
) -> Option<crate::tls::Refusal> {
    use crate::tls;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = tls::Config {
        trust: tls::Trust::Pem(tls::Material::file(
            &params.ssl_ca_from,
            params.ssl_ca.as_ref()?,
        )),
        identity: None,
        verify_certificate: true,
        verify_hostname: params.ssl_mode == SslMode::VerifyIdentity,
        min_version: None,
        max_version: None,
    };
    let client = tls::Client::new(&config).ok()?;
    let look = async {
        let mut tcp = tokio::net::TcpStream::connect((params.host.as_str(), params.port))
            .await
            .ok()?;
        // The server speaks first: a packet (a 3-byte length, a sequence number) of
        // protocol 10 (an error packet starts 0xff), whose capability flags follow the
        // version, the thread id and the first 8 bytes of the scramble.
        let mut header = [0u8; 4];
        tcp.read_exact(&mut header).await.ok()?;
        let length = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        if length > MAX_HANDSHAKE {
            return None;
        }
        let mut packet = vec![0u8; length];
        tcp.read_exact(&mut packet).await.ok()?;
        if packet.first() != Some(&10) {
            return None;
        }
        let version_end = 1 + packet.get(1..)?.iter().position(|b| *b == 0)?;
        let at = version_end + 1 + 4 + 8 + 1;
        let capabilities = u16::from_le_bytes(packet.get(at..at + 2)?.try_into().ok()?);
        const CLIENT_SSL: u32 = 0x800;
        if u32::from(capabilities) & CLIENT_SSL == 0 {
            return None;
        }
        // SSLRequest (sequence 1): the client's capabilities (long password, protocol 4.1,
        // SSL, secure connection), the largest packet, utf8 (33), 23 zero bytes.
        let mut request = vec![32, 0, 0, 1];
        request.extend((0x1 | 0x200 | CLIENT_SSL | 0x8000u32).to_le_bytes());
        request.extend((16u32 << 20).to_le_bytes());
        request.push(33);
        request.extend([0u8; 23]);
        tcp.write_all(&request).await.ok()?;
        client.refused_certificate(&params.host, tcp).await
    };
    let bound = timeout.min(Duration::from_secs(5));
    let diagnosis = tokio::time::timeout(bound, look).await.ok().flatten()?;
    let host = match params.host.contains(':') {
        true => format!("[{}]", params.host),
        false => params.host.clone(),
    };
    Some(tls::Refusal {
        address: format!("{host}:{}", params.port),
        diagnosis,
        names: &NAMES,
    })
}

fn no_tls_offered(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<mysql_async::Error>(),
            Some(mysql_async::Error::Driver(
                mysql_async::DriverError::NoClientSslFlagFromServer
            ))
        )
    })
}

fn opts(params: &MysqlParams, tls: bool) -> Result<OptsBuilder> {
    let mut opts = OptsBuilder::default()
        .ip_or_hostname(params.host.clone())
        .tcp_port(params.port)
        .user(Some(params.user.clone()))
        .pass(params.password.as_ref().map(|p| p.expose().to_string()))
        .db_name(params.database.clone())
        // The address given, never a socket the server names instead.
        .prefer_socket(false)
        .stmt_cache_size(0);
    if tls {
        let mut ssl = SslOpts::default();
        if let Some(ca) = &params.ssl_ca {
            if !ca.exists() {
                return Err(anyhow!("ssl-ca {} does not exist", ca.display()));
            }
            // Whoever can add a CA to it can be the server.
            crate::fsafe::check_secret_file(ca, "ssl-ca", None)?;
            ssl = ssl.with_root_certs(vec![ca.clone().into()]);
        }
        ssl = match params.ssl_mode {
            SslMode::VerifyIdentity => ssl,
            SslMode::VerifyCa => ssl.with_danger_skip_domain_validation(true),
            _ => ssl.with_danger_accept_invalid_certs(true),
        };
        opts = opts.ssl_opts(Some(ssl));
    }
    Ok(opts)
}

impl Session {
    /// The server this session reached, for errors: `mysql://user@host:port/db`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Every row of a statement, bounded by the timeout.
    pub async fn rows(&mut self, sql: &str) -> Result<Vec<Row>> {
        let timeout = self.timeout;
        bounded(timeout, self.conn.query::<Row, _>(sql)).await
    }

    /// A statement that writes (XA COMMIT, XA ROLLBACK), bounded by the timeout: only
    /// resolve::apply calls it (clippy.toml).
    pub async fn write(&mut self, sql: &str) -> Result<()> {
        self.run(sql).await
    }

    /// A statement that writes, and the rows it changed (as the server counts them: a row
    /// set to what it held is not). The inner error is the server's answer; the outer one
    /// the time bound or a lost connection, after which the outcome is unknown. Only
    /// resolve::apply calls it (clippy.toml).
    pub async fn write_counted(&mut self, sql: &str) -> Result<Result<u64, ServerError>> {
        let unknown = "its outcome is unknown: check the object";
        match tokio::time::timeout(self.timeout, self.conn.query_drop(sql)).await {
            Err(_) => Err(anyhow!(
                "statement did not finish within {} ({unknown})",
                crate::units::format_duration(self.timeout)
            )),
            Ok(Err(mysql_async::Error::Server(s))) => Ok(Err(ServerError {
                code: s.code,
                state: s.state,
                message: s.message,
            })),
            Ok(Err(e)) => Err(anyhow!("{e} ({unknown})")),
            Ok(Ok(())) => Ok(Ok(self.conn.affected_rows())),
        }
    }

    /// A statement whose result is not read (the session's SET statements).
    async fn run(&mut self, sql: &str) -> Result<()> {
        let timeout = self.timeout;
        bounded(timeout, self.conn.query_drop(sql)).await
    }

    /// The first column of the first row, as text.
    pub async fn one_text(&mut self, sql: &str) -> Result<Option<String>> {
        let rows = self.rows(sql).await?;
        Ok(rows.first().and_then(|r| text(r, 0)))
    }

    /// Closes the session politely; a failure to is of no consequence.
    pub async fn close(self) {
        let _ = tokio::time::timeout(self.timeout, self.conn.disconnect()).await;
    }
}

/// A statement's future under the timeout, its error converted.
async fn bounded<T>(
    timeout: Duration,
    statement: impl std::future::Future<Output = Result<T, mysql_async::Error>>,
) -> Result<T> {
    tokio::time::timeout(timeout, statement)
        .await
        .map_err(|_| {
            anyhow!(
                "the statement timed out after {}",
                crate::units::format_duration(timeout)
            )
        })?
        .map_err(converted)
}

/// A column's bytes (the text protocol sends every value as bytes); None for NULL.
pub fn bytes(row: &Row, i: usize) -> Option<Vec<u8>> {
    match row.as_ref(i)? {
        Value::Bytes(b) => Some(b.clone()),
        Value::NULL => None,
        Value::Int(n) => Some(n.to_string().into_bytes()),
        Value::UInt(n) => Some(n.to_string().into_bytes()),
        Value::Float(f) => Some(f.to_string().into_bytes()),
        Value::Double(f) => Some(f.to_string().into_bytes()),
        other => Some(other.as_sql(true).into_bytes()),
    }
}

/// A column as UTF-8 text (lossy: for numbers, names and states).
pub fn text(row: &Row, i: usize) -> Option<String> {
    bytes(row, i).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A column as a number, None for NULL or what is not one.
pub fn int(row: &Row, i: usize) -> Option<i64> {
    text(row, i)?.trim().parse().ok()
}

pub fn float(row: &Row, i: usize) -> Option<f64> {
    text(row, i)?.trim().parse().ok()
}
