//! `indoubt serve`: the checks of `check`, run on an interval (one run at a time, each
//! under its deadline), and their Prometheus exposition served over HTTP/1.1 for a
//! Prometheus server to scrape, with /healthz and /-/ready for Kubernetes' probes.

use super::check;
use super::check_output::{self, ExporterStatus};
use crate::context::Context;
use crate::error::hinted;
use crate::findings::Severity;
use crate::settings::command::ServeSettings;
use crate::units::format_duration;
use anyhow::Result;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{header, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Connections served at once; past it a new one is closed as soon as it is accepted
/// (unless a connection whose answer is blocked gives it its slot, `evict_blocked`), so
/// a flood of idle connections cannot exhaust the process.
const MAX_CONNECTIONS: usize = 64;
/// A client has this long to send a request's headers (slow clients hold no slot for
/// long), which are at most this many bytes.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_HEADER_BYTES: usize = 16 << 10;
/// On SIGTERM, requests under way get this long to be answered.
const DRAIN: Duration = Duration::from_secs(10);
/// An answer the client does not take within this long (its writes blocked, from the
/// first that could not go out until all of it has) closes the connection: a client that
/// pipelines requests and never reads the answers holds its slot no longer than this.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Requests answered on one connection; the last one says `Connection: close`.
const MAX_REQUESTS_PER_CONNECTION: u64 = 100;
/// With every slot taken, a new connection takes the slot of the one whose answer has
/// been blocked longest, when that is at least this long: a client that does not read
/// what it asked for cannot keep a scraper out for the whole write timeout.
const EVICT_BLOCKED_AFTER: Duration = Duration::from_secs(1);

/// What the runs have produced so far.
#[derive(Default)]
struct State {
    /// The exposition of the last completed run.
    exposition: Option<Arc<str>>,
    /// When the last completed run started, and when it ended (for staleness).
    last_success: Option<(DateTime<Utc>, Instant)>,
    last_duration: Option<Duration>,
    /// When the last run started, completed or failed.
    last_run: Option<DateTime<Utc>>,
    completed: u64,
    failed: u64,
}

/// What a connection needs of the server: the state and how to judge staleness.
#[derive(Clone)]
struct Shared {
    state: Arc<Mutex<State>>,
    interval: Duration,
    stale_after: Duration,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn status(&self, state: &State) -> ExporterStatus {
        ExporterStatus {
            up: state
                .last_success
                .is_some_and(|(_, ended)| ended.elapsed() <= self.stale_after),
            last_success: state.last_success.map(|(at, _)| at),
            last_duration_seconds: state.last_duration.map(|d| d.as_secs_f64()),
            last_run: state.last_run,
            completed: state.completed,
            failed: state.failed,
            interval_seconds: self.interval.as_secs_f64(),
        }
    }
}

pub async fn run(ctx: &Context, s: &ServeSettings) -> Result<Severity> {
    let listener = TcpListener::bind(s.listen).await.map_err(|e| {
        hinted(
            format!("listening on {}: {e}", s.listen),
            "another process may hold the port (ss -ltnp), or the address is not this host's; give --listen ADDR:PORT",
        )
    })?;
    let shared = Shared {
        state: Arc::default(),
        interval: s.interval,
        stale_after: 2 * s.interval + s.check.deadline,
    };
    // Once bound, always: a service's log then says where it answers (the port actually
    // bound, for --listen ADDR:0 too).
    let bound = listener.local_addr().unwrap_or(s.listen);
    crate::term::status(&crate::shown!(
        "indoubt serve: serving /metrics on http://{} (config {}, checks every {})",
        bound,
        s.check
            .config_file
            .as_ref()
            .map_or_else(|| "none".to_string(), |p| p.display().to_string()),
        format_duration(s.interval)
    ));
    ctx.note(format!(
        "{} check(s) per run, each run within {}",
        s.check.plan.len(),
        format_duration(s.check.deadline)
    ));
    let mut graceful = crate::interrupt::graceful();
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let checks = run_checks(ctx, s, &shared);
    let accept = accept(listener, &shared, &stopping, &mut connections);
    let signal = tokio::select! {
        never = checks => match never {},
        never = accept => match never {},
        signal = graceful.stopped() => signal,
    };
    // Those that ended since the last accept are not under way.
    while connections.try_join_next().is_some() {}
    ctx.note(format!(
        "{}: no new connections; answering the {} under way",
        signal.name(),
        connections.len()
    ));
    let _ = stop.send(true);
    let drained = tokio::time::timeout(DRAIN, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        ctx.note(format!(
            "{} connection(s) still open after {}: closed",
            connections.len(),
            format_duration(DRAIN)
        ));
    }
    Ok(Severity::Ok)
}

/// Runs the checks on the interval, one run at a time: a run that overruns it delays the
/// next (missed ticks are skipped, never caught up in a burst).
async fn run_checks(ctx: &Context, s: &ServeSettings, shared: &Shared) -> Infallible {
    let mut next = tokio::time::Instant::now();
    loop {
        tokio::time::sleep_until(next).await;
        let (started_at, began) = (Utc::now(), Instant::now());
        let report = check::build(ctx, &s.check).await;
        let took = began.elapsed();
        match report {
            Ok(report) => {
                let building = Instant::now();
                let exposition: Arc<str> = check_output::prometheus(&report).into();
                let built = building.elapsed();
                let series = exposition
                    .lines()
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .count();
                let mut state = shared.lock();
                state.exposition = Some(exposition);
                state.last_success = Some((started_at, Instant::now()));
                state.last_duration = Some(took);
                state.last_run = Some(started_at);
                state.completed += 1;
                drop(state);
                ctx.note(format!(
                    "checks run in {:.1}s: {}; their {series} series exposed in {:.1} ms",
                    took.as_secs_f64(),
                    report.status.label(),
                    built.as_secs_f64() * 1000.0
                ));
            }
            Err(e) => {
                let mut state = shared.lock();
                state.failed += 1;
                state.last_run = Some(started_at);
                drop(state);
                crate::term::status(&crate::shown!("indoubt serve: the checks failed: {:#}", e));
            }
        }
        next += s.interval;
        next = next.max(tokio::time::Instant::now());
    }
}

/// One connection being served: when its answer has been blocked since, and the means
/// to close it (to give its slot to a new connection).
struct Slot {
    blocked: Arc<Blocked>,
    task: tokio::task::AbortHandle,
}

/// Accepts connections until the process stops, each served on a task of its own.
async fn accept(
    listener: TcpListener,
    shared: &Shared,
    stopping: &tokio::sync::watch::Receiver<bool>,
    connections: &mut tokio::task::JoinSet<()>,
) -> Infallible {
    let mut slots: Vec<Slot> = Vec::new();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors, or a connection reset before it was taken: the listener
            // itself is fine; a pause keeps an EMFILE from spinning.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Finished connections leave the set here, so it holds only those open.
        while connections.try_join_next().is_some() {}
        slots.retain(|slot| !slot.task.is_finished());
        if slots.len() >= MAX_CONNECTIONS && !evict_blocked(&mut slots) {
            drop(stream);
            continue;
        }
        let blocked = Arc::new(Blocked::default());
        let io = WriteBounded::new(stream, blocked.clone());
        let shared = shared.clone();
        let mut stopping = stopping.clone();
        let task = connections.spawn(async move {
            let answered = AtomicU64::new(0);
            let service = hyper::service::service_fn(move |request| {
                let mut answer = answer(&request, &shared);
                // The last request a connection may make is answered, and the connection
                // closed after it: keep-alive, but not for ever.
                if answered.fetch_add(1, Ordering::Relaxed) + 1 >= MAX_REQUESTS_PER_CONNECTION {
                    answer.headers_mut().insert(
                        header::CONNECTION,
                        header::HeaderValue::from_static("close"),
                    );
                }
                async move { Ok::<_, Infallible>(answer) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEADER_BYTES)
                .serve_connection(TokioIo::new(io), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = async { drop(stopping.wait_for(|stop| *stop).await) } => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
        slots.push(Slot { blocked, task });
    }
}

/// Closes the connection whose answer has been blocked longest, when that is at least
/// `EVICT_BLOCKED_AFTER`; false when no connection is that stuck (the new one is then
/// refused, as connections that read their answers keep their slots).
fn evict_blocked(slots: &mut Vec<Slot>) -> bool {
    let now = Instant::now();
    let stuck = slots
        .iter()
        .enumerate()
        .filter_map(|(i, slot)| slot.blocked.since().map(|since| (i, since)))
        .filter(|(_, since)| now.saturating_duration_since(*since) >= EVICT_BLOCKED_AFTER)
        .min_by_key(|(_, since)| *since);
    match stuck {
        Some((i, _)) => {
            slots.swap_remove(i).task.abort();
            true
        }
        None => false,
    }
}

/// Since when a connection's answer has been waiting for the client to take it: set at
/// the first write that could not go out, cleared once all of it has.
#[derive(Default)]
struct Blocked(Mutex<Option<Instant>>);

impl Blocked {
    fn since(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set(&self, since: Option<Instant>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = since;
    }
}

/// A connection's socket whose writes are bounded: once a write cannot go out (the client
/// is not reading), everything hyper has to write must go out within `WRITE_TIMEOUT`, or
/// the write fails and hyper closes the connection. Reads are hyper's own business
/// (header_read_timeout).
struct WriteBounded {
    stream: TcpStream,
    blocked: Arc<Blocked>,
    /// Armed while blocked: when it fires, the write fails.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl WriteBounded {
    fn new(stream: TcpStream, blocked: Arc<Blocked>) -> WriteBounded {
        WriteBounded {
            stream,
            blocked,
            deadline: None,
        }
    }

    /// A write (or flush) that could not go out starts the clock, or fails once it ran
    /// out; one that did keeps it running until a flush finds nothing left to write.
    fn bound<T>(
        &mut self,
        cx: &mut TaskContext<'_>,
        polled: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if polled.is_ready() {
            return polled;
        }
        let deadline = self.deadline.get_or_insert_with(|| {
            let since = Instant::now();
            self.blocked.set(Some(since));
            Box::pin(tokio::time::sleep(WRITE_TIMEOUT))
        });
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took none of its answer for the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteBounded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteBounded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.bound(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.bound(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    /// hyper flushes once it has written out all it had: the answer is taken.
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        if matches!(polled, Poll::Ready(Ok(()))) && self.deadline.take().is_some() {
            self.blocked.set(None);
        }
        polled
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The answer to one request. Nothing in any answer is secret: the exposition names
/// targets and addresses as `check` prints them, never a password.
fn answer(request: &Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let has_body = request.headers().contains_key(header::TRANSFER_ENCODING)
        || request
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|l| l.as_bytes() != b"0");
    if has_body {
        // Never read: the connection closes instead of draining it.
        let mut response = plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "a request has no body here\n",
        );
        response.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
        return response;
    }
    match request.uri().path() {
        "/metrics" => {
            let state = shared.lock();
            let mut body = state.exposition.as_deref().unwrap_or_default().to_string();
            body.push_str(&check_output::exporter(&shared.status(&state)));
            drop(state);
            let mut response = Response::new(Full::new(Bytes::from(body)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        "/healthz" => plain(StatusCode::OK, "ok\n"),
        "/-/ready" => {
            if shared.lock().completed > 0 {
                plain(StatusCode::OK, "ready\n")
            } else {
                plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "no run of the checks has completed yet\n",
                )
            }
        }
        "/" => plain(
            StatusCode::OK,
            "indoubt serve: /metrics (Prometheus), /healthz, /-/ready\n",
        ),
        _ => plain(
            StatusCode::NOT_FOUND,
            "not found: /metrics, /healthz or /-/ready\n",
        ),
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
