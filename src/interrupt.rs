//! Interrupts: every command is raced against SIGINT, SIGTERM and SIGHUP. On one, the
//! PostgreSQL statements in flight are cancelled on their servers (as psql does), the
//! command is dropped (its guards clear the spinner and restore the terminal), and the
//! exit code says which signal it was (128 + its number, as a shell reports it).

use crate::pg::cancel::{Canceller, Watcher};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use tokio::signal::unix::{signal, SignalKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Hangup,
    Interrupt,
    Terminate,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Hangup => "SIGHUP",
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// 129, 130, 143: what a shell shows for a process the signal ended.
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Hangup => 129,
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
        }
    }
}

/// How a command ended.
pub enum Ended<T> {
    Finished(T),
    Interrupted(Interrupted),
}

pub struct Interrupted {
    pub signal: Signal,
    /// Each statement that was running, by server, and whether its cancel request went out.
    pub cancelled: Vec<(String, anyhow::Result<()>)>,
}

/// The statements running now, as the PostgreSQL sessions announce them.
struct InFlight {
    next: AtomicU64,
    running: Mutex<BTreeMap<u64, Canceller>>,
}

impl InFlight {
    fn take_all(&self) -> Vec<Canceller> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *running).into_values().collect()
    }
}

impl Watcher for InFlight {
    fn started(&self, canceller: &Canceller) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, canceller.clone());
        id
    }

    fn finished(&self, statement: u64) {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&statement);
    }
}

static IN_FLIGHT: InFlight = InFlight {
    next: AtomicU64::new(0),
    running: Mutex::new(BTreeMap::new()),
};

/// How many actions are under way whose outcome must still be recorded.
static SHIELDED: AtomicUsize = AtomicUsize::new(0);

/// A signal came while an action was shielded: one made of steps (batches) stops after
/// the step under way.
static STOP_ASKED: AtomicBool = AtomicBool::new(false);

/// Whether a signal asked the shielded action to stop at its next step.
pub fn stop_asked() -> bool {
    STOP_ASKED.load(Ordering::SeqCst)
}

/// Held from an audit intent to its outcome: a signal arriving meanwhile does not drop
/// the action half done (that would leave an intent whose outcome nobody knows); the
/// command then runs to its end, bounded by its own timeouts, and its exit code says
/// what was done.
pub struct Shield(());

pub fn shield() -> Shield {
    SHIELDED.fetch_add(1, Ordering::SeqCst);
    Shield(())
}

impl Drop for Shield {
    fn drop(&mut self) {
        SHIELDED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The command that stops by itself on a signal (`serve`): the first signal is handed to
/// it instead of dropping it, a second drops it as any command.
static GRACEFUL: Mutex<Option<tokio::sync::watch::Sender<Option<Signal>>>> = Mutex::new(None);

/// Held by a command that stops gracefully; `stopped` resolves on the first signal.
pub struct Graceful {
    signal: tokio::sync::watch::Receiver<Option<Signal>>,
}

pub fn graceful() -> Graceful {
    let (tx, rx) = tokio::sync::watch::channel(None);
    *GRACEFUL.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
    Graceful { signal: rx }
}

impl Graceful {
    pub async fn stopped(&mut self) -> Signal {
        loop {
            if let Some(signal) = *self.signal.borrow_and_update() {
                return signal;
            }
            if self.signal.changed().await.is_err() {
                // The sender is gone only with this handle: wait for ever, as no signal came.
                std::future::pending::<()>().await;
            }
        }
    }
}

impl Drop for Graceful {
    fn drop(&mut self) {
        *GRACEFUL.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Hands `signal` to a graceful command, once; false when there is none (or it had one).
fn hand_to_graceful(signal: Signal) -> bool {
    let graceful = GRACEFUL.lock().unwrap_or_else(|p| p.into_inner());
    match graceful.as_ref() {
        Some(tx) if tx.borrow().is_none() => {
            let _ = tx.send(Some(signal));
            true
        }
        _ => false,
    }
}

struct Signals {
    hangup: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn listen() -> std::io::Result<Signals> {
        Ok(Signals {
            hangup: signal(SignalKind::hangup())?,
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn next(&mut self) -> Signal {
        tokio::select! {
            _ = self.interrupt.recv() => Signal::Interrupt,
            _ = self.terminate.recv() => Signal::Terminate,
            _ = self.hangup.recv() => Signal::Hangup,
        }
    }
}

/// Runs `command` until it ends or a signal ends it. Must run inside the runtime.
pub async fn run<T>(command: impl Future<Output = T>) -> std::io::Result<Ended<T>> {
    let mut signals = Signals::listen()?;
    crate::pg::cancel::watch(&IN_FLIGHT);
    let mut command = Box::pin(command);
    let mut told = false;
    let signal = loop {
        tokio::select! {
            biased;
            out = &mut command => return Ok(Ended::Finished(out)),
            signal = signals.next() => {
                if hand_to_graceful(signal) {
                    continue;
                }
                if SHIELDED.load(Ordering::SeqCst) == 0 {
                    break signal;
                }
                STOP_ASKED.store(true, Ordering::SeqCst);
                if !told {
                    told = true;
                    say(&format!(
                        "{}: the action under way finishes and its outcome is recorded first",
                        signal.name()
                    ));
                }
            }
        }
    };
    // Taken before the command is dropped: its statements unannounce themselves as their
    // futures go, but the server runs them on until it is told.
    let running = IN_FLIGHT.take_all();
    drop(command);
    let cancelled = futures_util::future::join_all(
        running
            .iter()
            .map(|c| async { (c.target.clone(), c.cancel().await) }),
    )
    .await;
    Ok(Ended::Interrupted(Interrupted { signal, cancelled }))
}

/// One line on stderr that must not fail the exit (after SIGHUP the terminal is gone).
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "indoubt: {line}");
}

impl Interrupted {
    /// What happened to the statements that were running, for stderr.
    pub fn report(&self) {
        let name = self.signal.name();
        if self.cancelled.is_empty() {
            say(&format!("interrupted by {name}"));
        }
        for (target, outcome) in &self.cancelled {
            match outcome {
                Ok(()) => say(&format!(
                    "interrupted by {name}: asked {target} to cancel the statement in flight"
                )),
                Err(e) => say(&format!(
                    "interrupted by {name}: could not cancel the statement in flight on {target} ({e:#}): it runs on until it ends or its statement_timeout"
                )),
            }
        }
    }
}
