//! Cancelling statements in flight from outside their session (psql's Ctrl-C): every
//! statement a session runs is announced to a watcher the application installs, with a
//! `Canceller` that sends PostgreSQL's CancelRequest on a connection of its own.

use super::wire::{pg_error, Place, Socket};
use anyhow::{anyhow, Context, Result};
use postgres_native_tls::MakeTlsConnector;
use std::sync::OnceLock;
use std::time::Duration;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::CancelToken;

/// The means to cancel what one session is running: its backend's key, and the place
/// and TLS the session itself used (a CancelRequest is a connection like any other).
#[derive(Clone)]
pub struct Canceller {
    token: CancelToken,
    tls: Option<MakeTlsConnector>,
    place: Place,
    /// The server, for messages (`ConnParams::describe`: no secrets).
    pub target: String,
    timeout: Duration,
}

impl Canceller {
    pub(crate) fn new(
        token: CancelToken,
        tls: Option<MakeTlsConnector>,
        place: Place,
        target: String,
        timeout: Duration,
    ) -> Canceller {
        Canceller {
            token,
            tls,
            place,
            target,
            timeout,
        }
    }

    /// Asks the server to cancel the session's statement, bounded by the session's own
    /// connect bound. The server never says whether it did: a statement that ended
    /// meanwhile is simply not there to cancel.
    pub async fn cancel(&self) -> Result<()> {
        let sent = tokio::time::timeout(self.timeout, async {
            let socket = self
                .place
                .connect(None)
                .await
                .context("error connecting to server")?;
            match &self.tls {
                None => self
                    .token
                    .cancel_query_raw(socket, tokio_postgres::NoTls)
                    .await
                    .map_err(pg_error),
                Some(tls) => {
                    let connector = <MakeTlsConnector as MakeTlsConnect<Socket>>::make_tls_connect(
                        &mut tls.clone(),
                        self.place.hostname(),
                    )
                    .context("building TLS connector")?;
                    self.token
                        .cancel_query_raw(socket, connector)
                        .await
                        .map_err(pg_error)
                }
            }
        })
        .await;
        match sent {
            Ok(result) => result,
            Err(_) => Err(anyhow!(
                "no answer within {}",
                crate::units::format_duration(self.timeout)
            )),
        }
    }
}

/// Told of every statement a session starts and of its end; what to do with that (cancel
/// them all on an interrupt) is the application's business.
pub trait Watcher: Send + Sync {
    /// A statement started; `finished` gets the number returned here.
    fn started(&self, canceller: &Canceller) -> u64;
    fn finished(&self, statement: u64);
}

static WATCHER: OnceLock<&'static dyn Watcher> = OnceLock::new();

/// Installs the process's watcher; the first one stays.
pub fn watch(watcher: &'static dyn Watcher) {
    let _ = WATCHER.set(watcher);
}

/// A statement announced to the watcher for as long as this lives (dropped when the
/// statement ends, fails, or its future is dropped).
pub(crate) struct Running(Option<u64>);

impl Running {
    pub(crate) fn start(canceller: &Canceller) -> Running {
        Running(WATCHER.get().map(|w| w.started(canceller)))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let (Some(watcher), Some(statement)) = (WATCHER.get(), self.0) {
            watcher.finished(statement);
        }
    }
}
