//! The byte stream of a PostgreSQL session, bounded against a hostile server: the socket
//! indoubt opens itself (TCP or Unix), and a guard on what the server sends. tokio-postgres
//! buffers a whole backend message before it decodes it, however large its header says it
//! is; the guard reads the protocol's framing (a type byte, then a 4-byte big-endian
//! length that counts itself) as the bytes pass and fails the read at the first header
//! declaring more than [`MAX_MESSAGE_BYTES`], before its body is buffered.

use anyhow::anyhow;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_postgres::tls::{ChannelBinding, TlsConnect, TlsStream};

/// Where a session went: one address of one host, and the host's name for TLS.
#[derive(Debug, Clone)]
pub struct Place {
    pub(super) addr: Addr,
    pub(super) hostname: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) enum Addr {
    Tcp(std::net::SocketAddr),
    /// The socket file itself.
    Unix(std::path::PathBuf),
}

impl Place {
    /// The host name TLS verifies the certificate against ("" when there is none).
    pub(crate) fn hostname(&self) -> &str {
        self.hostname.as_deref().unwrap_or_default()
    }

    /// Opens a socket to the place, TCP (no delay, keepalive on, as tokio-postgres and
    /// libpq do) or Unix, within `timeout` when one is given.
    pub(crate) async fn connect(&self, timeout: Option<Duration>) -> std::io::Result<Socket> {
        let connecting = async {
            match &self.addr {
                Addr::Tcp(address) => {
                    let socket = if address.is_ipv4() {
                        tokio::net::TcpSocket::new_v4()?
                    } else {
                        tokio::net::TcpSocket::new_v6()?
                    };
                    socket.set_keepalive(true)?;
                    let stream = socket.connect(*address).await?;
                    stream.set_nodelay(true)?;
                    Ok(Socket::Tcp(stream))
                }
                Addr::Unix(path) => Ok(Socket::Unix(UnixStream::connect(path).await?)),
            }
        };
        match timeout {
            None => connecting.await,
            Some(timeout) => tokio::time::timeout(timeout, connecting)
                .await
                .unwrap_or_else(|_| {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "connection timed out",
                    ))
                }),
        }
    }
}

/// An error the server sent with a hint of its own (its HINT field, cut as the rest):
/// the application shows that hint under it.
#[derive(Debug)]
pub struct ServerError {
    /// Severity, SQLSTATE, message and detail, as one line.
    pub text: String,
    pub hint: String,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for ServerError {}

/// Turns a driver error into one line with the server's SQLSTATE, message, detail and
/// hint, each cut after `wire::MAX_SERVER_TEXT` characters (a server may send megabytes).
pub fn pg_error(err: tokio_postgres::Error) -> anyhow::Error {
    match err.as_db_error() {
        Some(db) => {
            let mut text = format!(
                "{} {}: {}",
                cut_server_text(db.severity()),
                db.code().code(),
                cut_server_text(db.message())
            );
            if let Some(detail) = db.detail() {
                text.push_str(&format!(" (detail: {})", cut_server_text(detail)));
            }
            match db.hint() {
                Some(hint) => ServerError {
                    text,
                    hint: cut_server_text(hint).into_owned(),
                }
                .into(),
                None => anyhow!(text),
            }
        }
        None => anyhow::Error::new(err),
    }
}

/// The largest backend message indoubt reads. What it legitimately reads is far smaller:
/// catalog rows (a GID is at most 200 bytes, pg_stat_activity's query text at most
/// track_activity_query_size, 1 MiB at most), and the reconcile query's rows, one DataRow
/// per row holding an id (refused past 4 KiB anyway) and a time. PostgreSQL itself sends
/// no message past 1 GiB; a server that declares more than this is not answering indoubt.
pub const MAX_MESSAGE_BYTES: u64 = 16 << 20;

/// A backend message whose header declares more than [`MAX_MESSAGE_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oversized {
    /// The message's type byte.
    pub tag: u8,
    /// Its length as declared, the length field itself not counted.
    pub declared: u64,
}

impl std::fmt::Display for Oversized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.tag {
            b'E' => "an error (ErrorResponse)".to_string(),
            b'N' => "a notice (NoticeResponse)".to_string(),
            b'D' => "a row (DataRow)".to_string(),
            b'd' => "COPY data (CopyData)".to_string(),
            b'R' => "an authentication request".to_string(),
            t if t.is_ascii_graphic() => format!("a message of type '{}'", t as char),
            t => format!("a message of type byte 0x{t:02x}"),
        };
        write!(
            f,
            "the server sent {kind} of {} ({} bytes), past the {} indoubt reads in one message: the connection was closed",
            crate::units::format_size(self.declared),
            self.declared,
            crate::units::format_size(MAX_MESSAGE_BYTES)
        )
    }
}

impl std::error::Error for Oversized {}

/// Where a session's guard records why it failed the connection: tokio-postgres then
/// reports only "connection closed" to the statement that was waiting.
#[derive(Clone, Default)]
pub struct Failure(Arc<Mutex<Option<Oversized>>>);

impl Failure {
    pub fn get(&self) -> Option<Oversized> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, oversized: Oversized) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(oversized);
    }
}

/// Where the guard is in the server's byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// An SSLRequest goes first: the server's first byte is its one-byte answer, outside
    /// any framing ('S': TLS follows; 'N': messages follow).
    SslAnswer,
    /// Within a message header: `have` of its 5 bytes seen so far.
    Header { have: usize, bytes: [u8; 5] },
    /// Within a message body: this many bytes of it still to come.
    Body { left: u64 },
    /// TLS runs over this stream: the messages are read, and guarded, above it.
    Opaque,
    /// A message was refused: every read fails.
    Failed,
}

/// A stream whose reads follow the backend's framing and fail at an oversized message.
pub struct Guarded<S> {
    inner: S,
    framing: Framing,
    failure: Failure,
}

impl<S> Guarded<S> {
    /// The server's bytes start with the answer to an SSLRequest when `ssl_request`.
    pub fn new(inner: S, ssl_request: bool, failure: Failure) -> Guarded<S> {
        Guarded {
            inner,
            framing: if ssl_request {
                Framing::SslAnswer
            } else {
                Framing::Header {
                    have: 0,
                    bytes: [0; 5],
                }
            },
            failure,
        }
    }

    /// Follows `bytes`, just read, through the framing. The first oversized header fails,
    /// with where in `bytes` it starts (0 when it started in an earlier read): what comes
    /// before it is whole messages, still the driver's to read.
    fn follow(&mut self, bytes: &[u8]) -> Result<(), (usize, Oversized)> {
        let mut at = 0;
        while at < bytes.len() {
            match &mut self.framing {
                Framing::Opaque => return Ok(()),
                Framing::Failed => return Ok(()),
                Framing::SslAnswer => {
                    self.framing = match bytes[at] {
                        b'S' => Framing::Opaque,
                        b'N' => Framing::Header {
                            have: 0,
                            bytes: [0; 5],
                        },
                        // Not an answer (an old server's ErrorResponse): a message starts.
                        tag => Framing::Header {
                            have: 1,
                            bytes: [tag, 0, 0, 0, 0],
                        },
                    };
                    at += 1;
                }
                Framing::Header {
                    have,
                    bytes: header,
                } => {
                    let started = at.saturating_sub(*have);
                    let take = (5 - *have).min(bytes.len() - at);
                    header[*have..*have + take].copy_from_slice(&bytes[at..at + take]);
                    *have += take;
                    at += take;
                    if *have == 5 {
                        let length =
                            u32::from_be_bytes([header[1], header[2], header[3], header[4]]);
                        // The length counts its own 4 bytes; a shorter one is the driver's
                        // to refuse as malformed.
                        let declared = u64::from(length).saturating_sub(4);
                        if declared > MAX_MESSAGE_BYTES {
                            let tag = header[0];
                            return Err((started, Oversized { tag, declared }));
                        }
                        self.framing = Framing::Body { left: declared };
                    }
                }
                Framing::Body { left } => {
                    let skip = (*left).min((bytes.len() - at) as u64);
                    *left -= skip;
                    // skip <= bytes.len() - at, so it fits in usize.
                    at += skip as usize;
                }
            }
            if self.framing == (Framing::Body { left: 0 }) {
                self.framing = Framing::Header {
                    have: 0,
                    bytes: [0; 5],
                };
            }
        }
        Ok(())
    }

    /// The error of every read once a message was refused (the refusal itself, so the
    /// session can tell it from another failure).
    fn failed(&self) -> io::Error {
        match self.failure.get() {
            Some(oversized) => io::Error::new(io::ErrorKind::InvalidData, oversized),
            None => io::Error::new(io::ErrorKind::InvalidData, "the connection was closed"),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.framing == Framing::Failed {
            return Poll::Ready(Err(self.failed()));
        }
        let before = buf.filled().len();
        std::task::ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        let this = &mut *self;
        match this.follow(&buf.filled()[before..]) {
            Ok(()) => Poll::Ready(Ok(())),
            Err((started, oversized)) => {
                this.framing = Framing::Failed;
                this.failure.set(oversized);
                if started == 0 {
                    return Poll::Ready(Err(this.failed()));
                }
                // The whole messages before it are read first (the rows before a refused
                // one arrive); the next read fails.
                buf.set_filled(before + started);
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl<S: TlsStream + Unpin> TlsStream for Guarded<S> {
    fn channel_binding(&self) -> ChannelBinding {
        self.inner.channel_binding()
    }
}

/// The socket to a server, as indoubt opens it.
pub enum Socket {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Socket::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Socket::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Socket::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Socket::Tcp(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Socket::Unix(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Socket::Tcp(s) => s.is_write_vectored(),
            Socket::Unix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(s) => Pin::new(s).poll_flush(cx),
            Socket::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Socket::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// TLS over a guarded socket, with the guard moved above it: the raw socket's guard goes
/// opaque at the server's 'S', and the messages are followed on the decrypted stream.
pub struct GuardedTls<T> {
    inner: T,
    /// A host name to verify the certificate against (none for a bare hostaddr).
    has_hostname: bool,
    failure: Failure,
}

impl<T> GuardedTls<T> {
    pub fn new(inner: T, has_hostname: bool, failure: Failure) -> GuardedTls<T> {
        GuardedTls {
            inner,
            has_hostname,
            failure,
        }
    }
}

impl<S, T> TlsConnect<S> for GuardedTls<T>
where
    T: TlsConnect<S> + Send + 'static,
    T::Future: Send,
    T::Stream: Unpin,
    S: Send + 'static,
{
    type Stream = Guarded<T::Stream>;
    type Error = Box<dyn std::error::Error + Send + Sync>;
    #[allow(clippy::type_complexity)]
    type Future = Pin<Box<dyn Future<Output = Result<Self::Stream, Self::Error>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        let GuardedTls {
            inner,
            has_hostname,
            failure,
        } = self;
        Box::pin(async move {
            // As tokio-postgres itself refuses when it has no host name to give TLS.
            if !has_hostname {
                return Err("no hostname provided for TLS handshake".into());
            }
            let stream = inner.connect(stream).await.map_err(Into::into)?;
            Ok(Guarded::new(stream, false, failure))
        })
    }
}

/// A server's text (an error's message, detail or hint) as shown to the operator: cut
/// after [`MAX_SERVER_TEXT`] characters, with how much was cut.
pub const MAX_SERVER_TEXT: usize = 2000;

pub fn cut_server_text(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_SERVER_TEXT) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => {
            let rest = text[end..].chars().count();
            std::borrow::Cow::Owned(format!("{}… [{rest} more characters cut]", &text[..end]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(tag: u8, length: u32) -> Vec<u8> {
        let mut bytes = vec![tag];
        bytes.extend_from_slice(&length.to_be_bytes());
        bytes
    }

    #[test]
    fn messages_are_followed_across_reads_of_any_size() {
        let mut stream = Vec::new();
        stream.push(b'N');
        for (tag, body) in [(b'R', 4usize), (b'S', 20), (b'D', 70_000), (b'Z', 1)] {
            stream.extend(header(tag, body as u32 + 4));
            stream.extend(std::iter::repeat_n(b'x', body));
        }
        for chunk in [1, 2, 3, 5, 7, 4096, stream.len()] {
            let mut guard = Guarded::new((), true, Failure::default());
            for piece in stream.chunks(chunk) {
                guard.follow(piece).map_err(|(_, e)| e).unwrap();
            }
            assert_eq!(
                guard.framing,
                Framing::Header {
                    have: 0,
                    bytes: [0; 5]
                },
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn an_oversized_header_fails_before_its_body() {
        let mut guard = Guarded::new((), false, Failure::default());
        let mut stream = header(b'E', 10);
        stream.extend([0; 6]);
        stream.extend(header(b'E', u32::MAX));
        let (started, err) = guard.follow(&stream).unwrap_err();
        assert_eq!(started, 11, "the refused message starts after the first");
        assert_eq!(
            err,
            Oversized {
                tag: b'E',
                declared: u64::from(u32::MAX) - 4
            }
        );
        assert!(err
            .to_string()
            .starts_with("the server sent an error (ErrorResponse) of "));
        // Exactly the cap is read; one byte more is not.
        let mut guard = Guarded::new((), false, Failure::default());
        guard
            .follow(&header(b'D', MAX_MESSAGE_BYTES as u32 + 4))
            .map_err(|(_, e)| e)
            .unwrap();
        let mut guard = Guarded::new((), false, Failure::default());
        assert!(guard
            .follow(&header(b'D', MAX_MESSAGE_BYTES as u32 + 5))
            .is_err());
    }

    #[test]
    fn after_the_ssl_answer_s_the_stream_is_tls_and_not_followed() {
        let mut guard = Guarded::new((), true, Failure::default());
        guard.follow(b"S").map_err(|(_, e)| e).unwrap();
        guard
            .follow(&header(0x16, u32::MAX))
            .map_err(|(_, e)| e)
            .unwrap();
        assert_eq!(guard.framing, Framing::Opaque);
        // An answer that is a message (an old server's ErrorResponse) is followed.
        let mut guard = Guarded::new((), true, Failure::default());
        assert!(guard.follow(&header(b'E', u32::MAX)).is_err());
    }

    #[test]
    fn long_server_texts_are_cut_with_what_was_cut() {
        assert_eq!(cut_server_text("short"), "short");
        let long = "é".repeat(MAX_SERVER_TEXT + 10);
        let cut = cut_server_text(&long);
        assert!(cut.starts_with(&"é".repeat(MAX_SERVER_TEXT)));
        assert!(cut.ends_with("… [10 more characters cut]"), "{cut}");
        assert_eq!(
            cut_server_text(&"a".repeat(MAX_SERVER_TEXT)).len(),
            MAX_SERVER_TEXT
        );
    }
}
