//! `indoubt serve`: the checks of `check`, run on an interval (one run at a time, each
//! under its deadline), and their Prometheus exposition served over HTTP/1.1 for a
//! Prometheus server to scrape, with /healthz and /-/ready for Kubernetes' probes.

use super::{check, check_output};
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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// Connections served at once; past it a new one is closed as soon as it is accepted,
/// so a flood of idle connections cannot exhaust the process.
const MAX_CONNECTIONS: usize = 64;
/// A client has this long to send a request's headers (slow clients hold no slot for
/// long), which are at most this many bytes.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_HEADER_BYTES: usize = 16 << 10;
/// On SIGTERM, requests under way get this long to be answered.
const DRAIN: Duration = Duration::from_secs(10);

/// What the runs have produced so far.
#[derive(Default)]
struct State {
    /// The exposition of the last completed run.
    exposition: Option<Arc<str>>,
    /// When the last completed run started, and when it ended (for staleness).
    last_success: Option<(DateTime<Utc>, Instant)>,
    last_duration: Option<Duration>,
    completed: u64,
    failed: u64,
}

/// The exporter's own metrics, as a scrape sees them.
pub(crate) struct ExporterStatus {
    /// A run completed, recently enough: within two intervals and a deadline.
    pub up: bool,
    pub last_success: Option<DateTime<Utc>>,
    pub last_duration_seconds: Option<f64>,
    pub completed: u64,
    pub failed: u64,
    pub interval_seconds: f64,
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
    ctx.note(format!(
        "serving http://{}/metrics; {} check(s) every {}, each run within {}",
        s.listen,
        s.check.plan.len(),
        format_duration(s.interval),
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
                let exposition: Arc<str> = check_output::prometheus(&report).into();
                let mut state = shared.lock();
                state.exposition = Some(exposition);
                state.last_success = Some((started_at, Instant::now()));
                state.last_duration = Some(took);
                state.completed += 1;
                drop(state);
                ctx.note(format!(
                    "checks run in {:.1}s: {}",
                    took.as_secs_f64(),
                    report.status.label()
                ));
            }
            Err(e) => {
                shared.lock().failed += 1;
                crate::term::status(&crate::shown!("indoubt serve: the checks failed: {:#}", e));
            }
        }
        next += s.interval;
        next = next.max(tokio::time::Instant::now());
    }
}

/// Accepts connections until the process stops, each served on a task of its own.
async fn accept(
    listener: TcpListener,
    shared: &Shared,
    stopping: &tokio::sync::watch::Receiver<bool>,
    connections: &mut tokio::task::JoinSet<()>,
) -> Infallible {
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
        if connections.len() >= MAX_CONNECTIONS {
            drop(stream);
            continue;
        }
        let shared = shared.clone();
        let mut stopping = stopping.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = answer(&request, &shared);
                async move { Ok::<_, Infallible>(answer) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEADER_BYTES)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = async { drop(stopping.wait_for(|stop| *stop).await) } => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
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
