//! A probe: one inspect command as a type. It declares its command-line arguments,
//! resolves its own settings from them, says how `check` runs it from the config, reads
//! (I/O only), judges what it read (pure: severity is decided there and only there), and
//! carries its pages (examples, related pages, its finding codes). One registry
//! (`commands::probes::REGISTRY`) lists every probe and the families their commands sit
//! in; the command line's definition, the run, `check`, `serve`, the settings
//! resolution, `--help`, `explain` and the man pages read it, never a table of their own.

use super::targets::Targets;
use super::Thresholds;
use crate::cli::{self, CheckKind, Cli, GlobalArgs, ProbeInvocation};
use crate::codes::Code;
use crate::config::Config;
use crate::context::Context;
use crate::findings::{Finding, Severity};
use crate::metrics::{Family as MetricFamily, Measure};
use crate::report::{self, Report, TableView};
use anyhow::{anyhow, Result};
use clap::{ArgMatches, FromArgMatches};
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use std::any::Any;
use std::future::Future;
use std::marker::PhantomData;

/// What each probe implements.
pub trait Inspect: Sync + Send + 'static {
    /// Its command's arguments: a clap `Args` struct of its own (in its folder), whose
    /// doc comment and `#[command(...)]` attributes are its command's help; shared groups
    /// (`cli::PgTargetArgs`, …) are flattened in.
    type Args: clap::Args + FromArgMatches + Send + Sync + 'static;
    /// Everything one run needs: targets, thresholds, flags, resolved.
    type Settings: Send + Sync + 'static;
    /// What was read: data, no judgement.
    type Gathered: Send;
    /// The report's data: its JSON, and its table through `TableView`.
    type Data: Serialize + TableView + Send + Sync + 'static;

    /// Its name in `check` and `serve` (`pg prepared`).
    const NAME: &'static str;
    /// Its command's path, as typed after `indoubt` (`pg outbox`): its help and man page.
    const COMMAND: &'static str = Self::NAME;
    /// The `check --only/--skip` selection that runs it; None: `check` never runs it.
    const SELECTION: Option<CheckKind>;
    /// Its help's and man page's examples, related pages and codes.
    const PAGES: Pages;

    /// Its settings from its arguments, the config and the thresholds in force.
    fn settings(t: &Targets, thresholds: &Thresholds, args: Self::Args) -> Result<Self::Settings>;

    /// The runs `check` makes of it: (target, the arguments a user would type). Each is
    /// resolved with `settings`, so a check has its command's defaults and the config's
    /// thresholds.
    fn plan(_config: &Config) -> Vec<(String, Vec<String>)> {
        Vec::new()
    }

    /// What it reads that the config names (a table, a query, a topic), each with the
    /// config section that names it: `config show --check` checks each as the target's
    /// role would read it. (What every probe of a target's kind reads, the server's own
    /// catalogs, is checked per kind.)
    fn reads(_config: &Config) -> Vec<Uses> {
        Vec::new()
    }

    /// The metric families its measures belong to (`measures` gives their samples).
    const MEASURES: &'static [&'static MetricFamily] = &[];

    /// What it measured, from its report's data, for `check -o prometheus` and `serve`:
    /// values in base units, labelled by stable objects only.
    fn measures(_data: &Self::Data) -> Vec<Measure> {
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

/// What a probe's pages say besides its arguments (which clap documents).
pub struct Pages {
    /// The end of its `--help` and its man page's EXAMPLES; a test parses each one.
    pub examples: &'static [Example],
    /// The commands a reader goes to next (SEE ALSO, beyond its parent and siblings).
    pub see_also: &'static [&'static str],
    /// Every code its findings carry (a test reads its source for them): `explain`
    /// documents them, its man page lists them.
    pub codes: &'static [Code],
}

/// One example: what it does, then the command line, as typed.
pub struct Example {
    pub what: &'static str,
    pub line: &'static str,
}

/// An [`Example`] literal (a literal, so a slice of them is a constant).
macro_rules! example {
    ($what:expr, $line:expr) => {
        $crate::settings::probe::Example {
            what: $what,
            line: $line,
        }
    };
}
pub(crate) use example;

/// One thing a probe reads that the config names, and the section that names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Uses {
    /// `outbox orders`, `seata coordinator tc client wallet`.
    pub section: String,
    pub read: Read,
}

/// What is read, in which target: the target as the section writes it (a target of the
/// config or a connection string).
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// A postgres table and the columns the probe reads of it.
    PgTable {
        postgres: String,
        table: String,
        columns: Vec<String>,
    },
    /// A query a reconcile job runs in a postgres database.
    PgQuery {
        postgres: String,
        job: String,
        query: String,
    },
    /// A MySQL or MariaDB table and the columns the probe reads of it.
    MysqlTable {
        mysql: String,
        table: String,
        columns: Vec<String>,
    },
    /// A topic a reconcile job reads.
    KafkaTopic {
        kafka: String,
        job: String,
        topic: String,
    },
}

impl Uses {
    /// `table`'s `columns`, read in the postgres target `postgres`.
    pub fn pg_table(section: &str, postgres: &str, table: &str, columns: &[&str]) -> Uses {
        Uses {
            section: section.to_string(),
            read: Read::PgTable {
                postgres: postgres.to_string(),
                table: table.to_string(),
                columns: columns.iter().map(|c| c.to_string()).collect(),
            },
        }
    }

    /// `table`'s `columns`, read in the mysql target `mysql`.
    pub fn mysql_table(section: &str, mysql: &str, table: &str, columns: &[&str]) -> Uses {
        Uses {
            section: section.to_string(),
            read: Read::MysqlTable {
                mysql: mysql.to_string(),
                table: table.to_string(),
                columns: columns.iter().map(|c| c.to_string()).collect(),
            },
        }
    }
}

/// A probe in the registry: the same, without its types.
pub trait Probe: Sync {
    fn name(&self) -> &'static str;
    fn command(&self) -> &'static str;
    fn selection(&self) -> Option<CheckKind>;
    fn pages(&self) -> &'static Pages;
    /// Its type's path (`indoubt::commands::pg_prepared::PgPrepared`): where its source is.
    fn type_name(&self) -> &'static str;
    fn plan(&self, config: &Config) -> Vec<(String, Vec<String>)>;
    fn reads(&self, config: &Config) -> Vec<Uses>;
    /// The metric families its measures belong to.
    fn measures(&self) -> &'static [&'static MetricFamily];
    /// Its command in the command line's definition: the last word of its path, with its
    /// arguments and its help.
    fn subcommand(&self) -> clap::Command;
    /// Its arguments, from what clap matched of its command.
    fn args(&self, matches: &ArgMatches) -> Result<Box<dyn Any + Send + Sync>, clap::Error>;
    /// A run of it with `args` (what `args` made of its command line).
    fn resolve(
        &self,
        t: &Targets,
        thresholds: &Thresholds,
        args: Box<dyn Any + Send + Sync>,
    ) -> Result<Box<dyn Run>>;
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
    /// Where it looked, what it found, and what it measured.
    fn into_parts(self: Box<Self>) -> (String, Vec<Finding>, Vec<Measure>);
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

    fn command(&self) -> &'static str {
        P::COMMAND
    }

    fn selection(&self) -> Option<CheckKind> {
        P::SELECTION
    }

    fn pages(&self) -> &'static Pages {
        &P::PAGES
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<P>()
    }

    fn plan(&self, config: &Config) -> Vec<(String, Vec<String>)> {
        P::plan(config)
    }

    fn reads(&self, config: &Config) -> Vec<Uses> {
        P::reads(config)
    }

    fn measures(&self) -> &'static [&'static MetricFamily] {
        P::MEASURES
    }

    fn subcommand(&self) -> clap::Command {
        let name = P::COMMAND.rsplit(' ').next().unwrap_or(P::COMMAND);
        <P::Args as clap::Args>::augment_args(clap::Command::new(name))
    }

    fn args(&self, matches: &ArgMatches) -> Result<Box<dyn Any + Send + Sync>, clap::Error> {
        Ok(Box::new(P::Args::from_arg_matches(matches)?))
    }

    fn resolve(
        &self,
        t: &Targets,
        thresholds: &Thresholds,
        args: Box<dyn Any + Send + Sync>,
    ) -> Result<Box<dyn Run>> {
        let args = args
            .downcast::<P::Args>()
            .map_err(|_| anyhow!("{} was given another command's arguments", P::COMMAND))?;
        let settings = P::settings(t, thresholds, *args)?;
        Ok(Box::new(Ready::<P> { settings }))
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
            let report = P::report(ctx, &self.settings, gathered);
            Ok(Box::new(Measured::<P>(report)) as Box<dyn Reported>)
        })
    }

    fn settings(&self) -> &dyn Any {
        &self.settings
    }

    fn into_settings(self: Box<Self>) -> Box<dyn Any> {
        Box::new(self.settings)
    }
}

/// A probe's report, with what it measured taken from its data.
struct Measured<P: Inspect>(Report<P::Data>);

impl<P: Inspect> Reported for Measured<P> {
    fn status(&self) -> Severity {
        self.0.status
    }

    fn emit(&self, ctx: &Context) -> Result<()> {
        report::emit(&self.0, ctx.output, &ctx.style)
    }

    fn into_parts(self: Box<Self>) -> (String, Vec<Finding>, Vec<Measure>) {
        let measures = P::measures(&self.0.data);
        (self.0.target.address, self.0.findings, measures)
    }
}

/// One of `check`'s runs of a probe: the target's name and the words a user would type.
pub fn planned(target: &str, words: &[&str]) -> (String, Vec<String>) {
    (
        target.to_string(),
        words.iter().map(|w| w.to_string()).collect(),
    )
}

/// A family of probes: the command their paths share (`pg` of `pg prepared`), with its
/// one-line help. The registry lists them; each is placed where its first probe is.
pub struct Family {
    pub name: &'static str,
    pub about: &'static str,
}

/// The registry, as the commands layer hands it to what may not import it (the
/// settings, `--help`): every probe, and the families their commands sit in.
pub struct Registry {
    /// In the order of their commands in `--help`, which is also the order `check` runs
    /// one target's checks in.
    pub probes: &'static [&'static dyn Probe],
    pub families: &'static [Family],
}

impl Registry {
    /// The probe whose command is `path` ("pg outbox").
    pub fn probe(&self, path: &str) -> Option<&'static dyn Probe> {
        self.probes.iter().copied().find(|p| p.command() == path)
    }

    /// The command line's definition without the examples (`help::command` adds them, and
    /// is the one definition that parses, helps and documents): cli.rs's root, then each
    /// probe's command, a family's command where its first probe is, then cli.rs's other
    /// commands. A family's command is what clap's derive makes of a subcommand enum: its
    /// subcommand required, and help when it is given alone.
    pub fn definition(&self) -> clap::Command {
        use clap::{CommandFactory, Subcommand};
        let mut root = cli::Root::command();
        let mut placed: Vec<&str> = Vec::new();
        for probe in self.probes {
            match probe.command().split_once(' ') {
                None => root = root.subcommand(probe.subcommand()),
                Some((family, _)) if !placed.contains(&family) => {
                    placed.push(family);
                    let about = self
                        .families
                        .iter()
                        .find(|f| f.name == family)
                        .map(|f| f.about);
                    let mut command = clap::Command::new(family)
                        .subcommand_required(true)
                        .arg_required_else_help(true);
                    for member in self.probes {
                        if member.command().split_once(' ').map(|(f, _)| f) == Some(family) {
                            command = command.subcommand(member.subcommand());
                        }
                    }
                    root = root.subcommand(command.about(about).long_about(None::<&str>));
                }
                Some(_) => {}
            }
        }
        cli::Command::augment_subcommands(root)
            .subcommand_required(true)
            .arg_required_else_help(true)
    }

    /// What clap matched (with [`definition`](Self::definition)'s commands), as the run's
    /// command line: a probe's command with its own arguments, or one of cli.rs's.
    pub fn invocation(&self, matches: &ArgMatches) -> Result<Cli, clap::Error> {
        let global = GlobalArgs::from_arg_matches(matches)?;
        let mut path: Vec<&str> = Vec::new();
        let mut leaf = matches;
        while let Some((name, sub)) = leaf.subcommand() {
            path.push(name);
            leaf = sub;
        }
        let command = match self.probe(&path.join(" ")) {
            Some(probe) => cli::Command::Probe(ProbeInvocation {
                command: probe.command(),
                args: probe.args(leaf)?,
            }),
            None => cli::Command::from_arg_matches(matches)?,
        };
        Ok(Cli { global, command })
    }
}

/// A run's typed settings, when it is a run of the probe whose settings are `S`.
pub fn settings_of<S: 'static>(run: &dyn Run) -> Option<&S> {
    run.settings().downcast_ref::<S>()
}
