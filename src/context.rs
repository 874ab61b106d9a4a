//! What every command of a run shares once its settings are resolved: output format and
//! style, verbosity, the timeout, and what a next command must repeat of this run. The
//! settings of each command are in [`crate::settings`]; no command reads flags or config.

use crate::cli::{GlobalArgs, OutputFormat};
use crate::error::hinted;
use crate::report::table::Style;
use crate::settings::{defaults, Setting};
use anyhow::{anyhow, Result};
use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Context {
    pub output: OutputFormat,
    pub style: Style,
    pub verbose: u8,
    pub timeout: Duration,
    /// Where the timeout came from (--timeout or the default), for `config show`.
    pub timeout_from: crate::settings::Source,
    /// What a next command must repeat of this run (its --config).
    pub invocation: crate::next::Invocation,
    /// This run's command line as the audit trail records it, secrets masked
    /// (`audit::redact`); set by the run (`commands::run`), which has the command line's
    /// definition. Empty in a context made otherwise (tests).
    pub command_line: Vec<String>,
    /// The reads a check run shares among its checks; None outside one.
    pub(crate) shared: Shared,
}

/// The slot of a check run's shared reads (src/commands/shared.rs reads through it).
#[derive(Default)]
pub(crate) struct Shared(std::sync::Mutex<Option<std::sync::Arc<SharedReads>>>);

/// Held for one check run: its checks share reads until it is dropped.
pub(crate) struct SharedRun<'a>(&'a Context);

impl Drop for SharedRun<'_> {
    fn drop(&mut self) {
        *self.0.shared.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Context {
    /// The global options, checked; reads no config and no server.
    pub fn new(global: &GlobalArgs) -> Result<Context> {
        let timeout = Setting::of(&defaults::TIMEOUT).over(global.timeout, "--timeout");
        if timeout.value.is_zero() {
            return Err(hinted(
                "--timeout must be longer than 0",
                "e.g. --timeout 10s",
            ));
        }
        Ok(Context {
            output: global.output,
            style: Style {
                color: crate::term::use_color(match global.no_color {
                    true => crate::term::ColorWhen::Never,
                    false => global.color,
                }),
                width: crate::term::layout_width(global.width),
                frame: crate::term::frame(),
                wide: global.output == crate::cli::OutputFormat::Wide,
            },
            verbose: global.verbose,
            timeout: timeout.value,
            timeout_from: timeout.source,
            invocation: crate::next::Invocation {
                config: global.config.clone(),
            },
            command_line: Vec::new(),
            shared: Shared::default(),
        })
    }

    /// Starts a check run whose checks share their reads (one per server and question).
    pub(crate) fn share_reads(&self) -> SharedRun<'_> {
        *self.shared.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Default::default());
        SharedRun(self)
    }

    pub(crate) fn shared(&self) -> Option<std::sync::Arc<SharedReads>> {
        self.shared
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Status on stderr, shown with -v. The message is data (it may quote a server):
    /// escaped here, at the edge.
    pub fn note(&self, message: impl AsRef<str>) {
        if self.verbose > 0 {
            crate::term::status(&crate::shown!("indoubt: {}", message.as_ref()));
        }
    }
}

type Slot = Arc<tokio::sync::OnceCell<Arc<dyn Any + Send + Sync>>>;

/// One check run's reads, by what they read (the key names the server, the user, the TLS
/// settings and the question).
#[derive(Default)]
pub(crate) struct SharedReads {
    slots: Mutex<HashMap<String, Slot>>,
}

impl SharedReads {
    /// What `read` gives, read once for `key` however many ask at once or after. A
    /// failure is not kept: the next to ask reads again with its own settings (a
    /// database one target may not enter must not fail the others of its server).
    pub(crate) async fn once<T, F>(&self, key: String, read: impl FnOnce() -> F) -> Result<Arc<T>>
    where
        T: Any + Send + Sync,
        F: Future<Output = Result<T>>,
    {
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_default()
            .clone();
        let value = slot
            .get_or_try_init(|| async {
                read()
                    .await
                    .map(|v| Arc::new(v) as Arc<dyn Any + Send + Sync>)
            })
            .await?;
        value
            .clone()
            .downcast::<T>()
            .map_err(|_| anyhow!("a shared read of another kind under the same key"))
    }
}
