//! A probe: one inspect command as a type. It resolves its own settings, says how `check`
//! runs it from the config, reads (I/O only) and judges what it read (pure: severity is
//! decided there and only there). One registry (`commands::probes::ALL`) lists every probe;
//! the run, `check`, `serve` and the settings resolution read that list, never a table of
//! their own.

use super::targets::Targets;
use super::Thresholds;
use crate::cli::{CheckKind, Command};
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::report::{self, Report, TableView};
use anyhow::Result;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use std::any::Any;
use std::future::Future;
use std::marker::PhantomData;

/// What each probe implements.
pub trait Inspect: Sync + Send + 'static {
    /// Everything one run needs: targets, thresholds, flags, resolved.
    type Settings: Send + Sync + 'static;
    /// What was read: data, no judgement.
    type Gathered: Send;
    /// The report's data: its JSON, and its table through `TableView`.
    type Data: Serialize + TableView + Send + Sync + 'static;

    /// Its name in `check` and `serve` (`pg prepared`).
    const NAME: &'static str;
    /// The `check --only/--skip` selection that runs it; None: `check` never runs it.
    const SELECTION: Option<CheckKind>;

    /// Its settings when `command` is its command; any other command is handed back.
    // The Err is not an error but the command given back, whole and unboxed.
    #[allow(clippy::result_large_err)]
    fn settings(
        t: &Targets,
        thresholds: &Thresholds,
        command: Command,
    ) -> Result<Result<Self::Settings>, Command>;

    /// The runs `check` makes of it: (target, the arguments a user would type). Each is
    /// resolved with `settings`, so a check has its command's defaults and the config's
    /// thresholds.
    fn plan(_config: &Config) -> Vec<(String, Vec<String>)> {
        Vec::new()
    }

    /// Reads what the report needs. (Not `Send`: `check` runs its probes side by side on
    /// one task.)
    fn gather(
        ctx: &Context,
        settings: &Self::Settings,
    ) -> impl Future<Output = Result<Self::Gathered>>;

    /// What was read, judged: the findings and the report.
    fn report(
        ctx: &Context,
        settings: &Self::Settings,
        gathered: Self::Gathered,
    ) -> Report<Self::Data>;
}

/// A probe in the registry: the same, without its types.
pub trait Probe: Sync {
    fn name(&self) -> &'static str;
    fn selection(&self) -> Option<CheckKind>;
    fn plan(&self, config: &Config) -> Vec<(String, Vec<String>)>;
    /// A run of it when `command` is its command; any other command is handed back.
    #[allow(clippy::result_large_err)] // the command given back, as in `Inspect::settings`
    fn resolve(
        &self,
        t: &Targets,
        thresholds: &Thresholds,
        command: Command,
    ) -> Result<Result<Box<dyn Run>>, Command>;
}

/// One probe with its settings resolved: ready to read and judge.
pub trait Run: Send + Sync {
    fn name(&self) -> &'static str;
    fn report<'a>(&'a self, ctx: &'a Context) -> LocalBoxFuture<'a, Result<Box<dyn Reported>>>;
    /// Its typed settings (`settings_of` gives them back by type).
    fn settings(&self) -> &dyn Any;
    fn into_settings(self: Box<Self>) -> Box<dyn Any>;
}

/// A report of any probe: what the run prints and what `check` merges.
pub trait Reported: Send {
    fn status(&self) -> Severity;
    fn emit(&self, ctx: &Context) -> Result<()>;
    /// Where it looked, and what it found.
    fn into_findings(self: Box<Self>) -> (String, Vec<Finding>);
}

/// The registry's entry for probe `P`.
pub struct Registered<P>(PhantomData<fn() -> P>);

impl<P> Registered<P> {
    pub const fn new() -> Registered<P> {
        Registered(PhantomData)
    }
}

impl<P> Default for Registered<P> {
    fn default() -> Registered<P> {
        Registered::new()
    }
}

impl<P: Inspect> Probe for Registered<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn selection(&self) -> Option<CheckKind> {
        P::SELECTION
    }

    fn plan(&self, config: &Config) -> Vec<(String, Vec<String>)> {
        P::plan(config)
    }

    #[allow(clippy::result_large_err)] // the command given back, as in `Inspect::settings`
    fn resolve(
        &self,
        t: &Targets,
        thresholds: &Thresholds,
        command: Command,
    ) -> Result<Result<Box<dyn Run>>, Command> {
        P::settings(t, thresholds, command).map(|settings| {
            settings.map(|settings| Box::new(Ready::<P> { settings }) as Box<dyn Run>)
        })
    }
}

struct Ready<P: Inspect> {
    settings: P::Settings,
}

impl<P: Inspect> Run for Ready<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn report<'a>(&'a self, ctx: &'a Context) -> LocalBoxFuture<'a, Result<Box<dyn Reported>>> {
        Box::pin(async move {
            let gathered = P::gather(ctx, &self.settings).await?;
            Ok(Box::new(P::report(ctx, &self.settings, gathered)) as Box<dyn Reported>)
        })
    }

    fn settings(&self) -> &dyn Any {
        &self.settings
    }

    fn into_settings(self: Box<Self>) -> Box<dyn Any> {
        Box::new(self.settings)
    }
}

impl<T: Serialize + TableView + Send + Sync> Reported for Report<T> {
    fn status(&self) -> Severity {
        self.status
    }

    fn emit(&self, ctx: &Context) -> Result<()> {
        report::emit(self, ctx.output, &ctx.style)
    }

    fn into_findings(self: Box<Self>) -> (String, Vec<Finding>) {
        (self.target.address, self.findings)
    }
}

/// A run's typed settings, when it is a run of the probe whose settings are `S`.
pub fn settings_of<S: 'static>(run: &dyn Run) -> Option<&S> {
    run.settings().downcast_ref::<S>()
}
