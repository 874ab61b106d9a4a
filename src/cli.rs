//! Command-line definitions (clap derive). The doc comments here are the `--help` text.
//! The probes' commands are not here: each probe declares its own arguments in its folder
//! (`Inspect::Args`), flattening the shared groups below (`PgTargetArgs`, …), and
//! `settings::probe::Registry` places them by their paths around the root and commands
//! defined here.

use crate::units::parse_duration;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

pub const EXIT_CODES_HELP: &str = "\
Exit codes (Nagios plugin convention):
  0  OK        nothing needs attention
  1  WARNING   something crossed a warning threshold
  2  CRITICAL  something crossed a critical threshold
  3  UNKNOWN   the answer could not be established: usage or config error,
               unreachable server, timeout, missing privilege
  129 130 143  ended by SIGHUP, SIGINT (Ctrl-C) or SIGTERM; a PostgreSQL
               statement in flight is cancelled on its server

Environment:
  INDOUBT_CONFIG   config file (default ~/.config/indoubt/config.yaml)
  PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGSSLMODE PGSSLROOTCERT PGPASSFILE
                   PostgreSQL connection defaults, as in libpq
  PGSERVICE PGSERVICEFILE PGSYSCONFDIR
                   a service of pg_service.conf and where to find it, as in libpq
  MYSQL_PWD        MySQL/MariaDB password when no option file gives one
  NO_COLOR         disable colour";

/// Values that can carry a secret have a type of their own, so whatever writes the
/// command line down (the audit trail) finds them by their type, whichever option or
/// spelling gave them, and masks them by the parser that reads them (audit/redact.rs).
macro_rules! secret_bearing {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(pub String);

        impl From<String> for $name {
            fn from(value: String) -> $name {
                $name(value)
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
    )*};
}

secret_bearing! {
    /// A PostgreSQL target: a config target name, a postgres:// URL or a key=value
    /// conninfo string (`--pg`).
    PgConn;
    /// psql's -d: a database name, or (a URL or key=value settings) the whole
    /// connection string.
    PgDbname;
    /// A MySQL target: a config target name or a mysql:// URL (`--mysql`).
    MysqlConn;
    /// A Kafka client property, `key=value` (`-X`).
    ClientProperty;
}

/// Find and resolve stuck distributed transactions: PostgreSQL, Kafka, MySQL/MariaDB, transaction managers' logs.
///
/// indoubt inspects PostgreSQL prepared transactions (age, owner, locks, what they
/// block, decoded global transaction ids), replication slots and the vacuum horizon;
/// Kafka transactions that hold back the last stable offset; MySQL/MariaDB prepared XA
/// branches; Apache Seata global transactions that never end and the row locks they
/// hold; and reads the coordinator's decision from transaction managers' logs
/// (Narayana, Atomikos) and Seata's store. Inspection never writes: sessions are read-only, autocommit and bounded by --timeout.
// The root alone (the doc comment above is indoubt's help): its name and the global
// options. `settings::probe::Registry::definition` puts the commands under it, each
// probe's from the registry, then the [`Command`]s below; help.rs's `command` is the result.
#[derive(Debug, Parser)]
#[command(name = "indoubt", version, after_long_help = EXIT_CODES_HELP)]
pub struct Root {
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// A command line as parsed: `Registry::invocation` makes it of what clap matched.
#[derive(Debug)]
pub struct Cli {
    pub global: GlobalArgs,
    pub command: Command,
}

/// A probe's command as parsed: the probe (by its command's path, as the registry names
/// it) and its own arguments, of the type it declares (`Inspect::Args`), for it to
/// resolve. (cli.rs names no probe: the probes build on the settings, which build on this.)
pub struct ProbeInvocation {
    pub command: &'static str,
    pub args: Box<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for ProbeInvocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProbeInvocation")
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

/// The options every command takes, in a section of their own in each command's help.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Output format: a table for people (wide: with every column), json or yaml for scripts (nagios, prometheus: `check`)
    #[arg(long, short = 'o', global = true, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// Colour: auto (a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = crate::term::ColorWhen::Auto)]
    pub color: crate::term::ColorWhen,

    /// Never use colour: --color never
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Lay tables out for N columns [default: the terminal's width, else $COLUMNS, else 80]
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(20..))]
    pub width: Option<u16>,

    /// Print what is being done on stderr
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Bound on every connect and every statement, e.g. 10s, 1m30s [default: 10s]
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    /// The table with every column (`table` leaves the less important ones out, and says which)
    Wide,
    Json,
    Yaml,
    /// `check` only: one Nagios/Icinga plugin status line with perfdata
    Nagios,
    /// `check` only: Prometheus text exposition (node_exporter textfile collector)
    Prometheus,
}

impl OutputFormat {
    /// For a person: the table, narrow or wide.
    pub fn is_table(self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Wide)
    }
}

// The commands besides the probes' (which come before them in the help). No doc comment:
// clap's derive would make it the root's help.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// A probe's command (`pg prepared`, `reconcile`): the registry's, never clap's derive.
    #[command(skip)]
    Probe(ProbeInvocation),
    /// Resolve an in-doubt transaction: evidence, the coordinator's decision, confirmation, audit
    #[command(subcommand)]
    Resolve(ResolveCommand),
    /// Read and verify the audit trail of resolutions
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Inspect the config file
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Run every check the config enables, on every configured target, concurrently, under one deadline
    #[command(after_long_help = EXIT_CODES_HELP)]
    Check(CheckArgs),
    /// Serve the checks' Prometheus exposition over HTTP, running them on an interval
    #[command(after_long_help = SERVE_HELP)]
    Serve(ServeArgs),
    /// What a finding's code means, why it matters and how to fix it; without CODE, every code
    #[command(after_long_help = EXPLAIN_EXIT_CODES_HELP)]
    Explain(ExplainArgs),
}

pub const SERVE_HELP: &str = "\
Endpoints:
  /metrics  the exposition of `check -o prometheus` from the last completed run, and
            indoubt_up (0 before the first run completes, or when the last completed
            one is older than two intervals and the deadline), the last success's time
  /healthz  200 while the process serves
  /-/ready  200 once a run has completed, else 503
Only GET and HEAD; a request with a body is refused. At most 64 connections, 100
requests each; an answer the client leaves untaken for 10 s closes its connection (after
1 s when a new connection needs the slot). SIGTERM, SIGINT or SIGHUP stops it gracefully
(exit 0): no new connection is taken, requests under way are answered.";

pub const EXPLAIN_EXIT_CODES_HELP: &str = "\
Exit codes of explain:
  0  the code (or every code) was explained
  3  no finding has that code (the error names the codes it is close to), or a usage error";

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A finding's code, as the table and JSON show it (e.g. prepared_xact_age)
    pub code: Option<String>,
}

/// The checks `indoubt check` can run, as `--only` / `--skip` name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckKind {
    /// pg prepared, pg slots, pg horizon on every postgres target
    Pg,
    /// kafka lso and kafka hanging on every kafka target
    Kafka,
    /// mysql xa (prepared XA branches and the history list) on every mysql target
    Mysql,
    /// reconcile jobs with `check: true`
    Reconcile,
    /// outbox entries with `check: true`
    Outbox,
    /// seata coordinators with `check: true`
    Seata,
    /// modulith registries with `check: true`
    Modulith,
    /// camunda engines with `check: true`
    Camunda,
    /// dbos applications with `check: true`
    Dbos,
    /// sagas (those without `check: false`)
    Saga,
}

/// What a run of the checks covers and how it runs: `check`'s and `serve`'s.
#[derive(Debug, Args)]
pub struct CheckRunArgs {
    /// Overall deadline; a check still running then is UNKNOWN
    #[arg(long, value_name = "DURATION", default_value = crate::settings::defaults::CHECK_DEADLINE.default_text(), value_parser = parse_duration)]
    pub deadline: Duration,

    /// Run only these checks
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "CHECKS",
        conflicts_with = "skip"
    )]
    pub only: Vec<CheckKind>,

    /// Run all but these checks
    #[arg(long, value_enum, value_delimiter = ',', value_name = "CHECKS")]
    pub skip: Vec<CheckKind>,

    /// Checks running at once; each server is still reached over one connection
    /// [default: 4 per CPU, from 8 to 32]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub concurrency: Option<u16>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub run: CheckRunArgs,

    /// Print only what is not OK (the exit code still counts everything)
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Also write the Prometheus exposition to FILE, atomically (temp file + rename),
    /// for node_exporter's textfile collector; a link at FILE is refused
    #[arg(long, value_name = "FILE")]
    pub prometheus_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub run: CheckRunArgs,

    /// The address to serve /metrics, /healthz and /-/ready on
    #[arg(long, value_name = "ADDR", default_value = crate::settings::defaults::SERVE_LISTEN.default_text())]
    pub listen: std::net::SocketAddr,

    /// How often the checks run (one run at a time; /metrics serves the last completed)
    #[arg(long, value_name = "DURATION", default_value = crate::settings::defaults::SERVE_INTERVAL.default_text(), value_parser = parse_duration)]
    pub interval: Duration,
}

pub const RESOLVE_EXIT_CODES_HELP: &str = "\
Exit codes of resolve:
  0  done, or already resolved: gone before the action because another session took
     the same decision (its transaction's status says so), or gone when indoubt first
     looked and the audit trail records who resolved it, when and how
  1  nothing done: not confirmed, a runbook without --yes --reason, busy, refused
     because the requested decision contradicts the coordinator's, or a race lost
     (another session resolved it first the other way, or a way that cannot be told);
     resolve pg: also done while other branches of its global transaction stay
     prepared (resolved without --all-branches, or left alone by it)
  2  the statement or request failed (the report names the server's error); with
     --all-branches, on any branch. Also: it ran, but its outcome could not be
     recorded in the audit log (a full disk): the report says what it did
  3  usage or config error, unreachable server, a role that may not finish the
     transaction (only the role that prepared it or a superuser may; with
     --all-branches, any branch: then nothing is done to any), audit log not
     writable; nothing done, nothing recorded. Also when nothing by that id is there
     and the audit trail has no resolution of it (a mistyped or quoted id: the report
     names the closest ones). resolve pg also exits 3 when a
     participants target could not be searched for siblings (what was done, if
     anything, is in the report). resolve outbox and reconcile exit 3 for what they
     find before anything is sent: a NULL value or key, a topic the cluster lacks, a
     republish query of the wrong shape or one that fails, a login the producer
     cannot make
  129 130 143  ended by SIGHUP, SIGINT (Ctrl-C) or SIGTERM before the action: nothing
     done (a signal during the action waits for its outcome to be recorded)

At the prompt: a heuristic decision without --reason asks for a reason (required) and
a ticket first; then type the short token shown (or the whole id the prompt names
with it: a GID, an outbox's name). Ctrl-D or Esc
aborts (exit 1); Ctrl-Z suspends, and fg asks again.";

#[derive(Debug, Subcommand)]
pub enum ResolveCommand {
    /// COMMIT PREPARED or ROLLBACK PREPARED one prepared transaction, by the coordinator's
    /// decision where one is found, else as an explicit, recorded heuristic decision
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP, disable_help_flag = true)]
    Pg(ResolvePgArgs),
    /// XA COMMIT or XA ROLLBACK one prepared XA branch of MySQL or MariaDB, by the
    /// coordinator's decision where one is found, else as an explicit, recorded heuristic
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Mysql(ResolveMysqlArgs),
    /// Abort a hanging Kafka transaction on one partition (WriteTxnMarkers to its leader),
    /// then check that the LSO moved
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Kafka(ResolveKafkaArgs),
    /// Mark one Seata TCC Try cancelled (or confirmed) in its fence once that phase was
    /// done by hand, so the coordinator's next Cancel (or Confirm) finds it done
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Tcc(ResolveTccArgs),
    /// Let a Seata AT rollback that a dirty write holds up go on while the coordinator
    /// retries it: set the changed rows back to what the branch wrote, or delete the
    /// branch's undo log
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    At(ResolveAtArgs),
    /// Delete a Spring Modulith registry's completed publications older than a retention,
    /// in batches that each commit (what CompletedEventPublications.deletePublicationsOlderThan
    /// does), for an application that never prunes them
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Modulith(ResolveModulithArgs),
    /// Set the retries of a Camunda 7 / Operaton job or external task (by its id or its
    /// incident's) through the engine's REST API, which resolves the incident the engine's
    /// way; without a REST API configured, print the call
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Camunda(ResolveCamundaArgs),
    /// Resume or cancel DBOS workflows through DBOS's own CLI (dbos workflow resume /
    /// cancel), after checking each is there and what it is; without a CLI configured,
    /// print the command
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Dbos(ResolveDbosArgs),
    /// Raise stuck hand-written sagas in their manual queue (once), or set entities a
    /// finished, failed, missing or overdue saga still holds back to their released state
    /// (guarded: an entity taken again meanwhile is left alone); compensation and forward
    /// recovery are the service's and are only advised
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Saga(ResolveSagaArgs),
    /// Publish the outbox rows its relay skipped for good (what `pg outbox` names
    /// outbox_skipped_rows) through librdkafka's idempotent producer, each with the row's
    /// id as its message id, then mark the delivered ones published as the relay does
    /// (only rows still unpublished and unchanged since they were read)
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Outbox(ResolveOutboxArgs),
    /// Publish the ids a reconcile job finds missing in its topic (found now, or read
    /// from an --ids-out file) with the messages its republish: query builds from the
    /// source of truth, through librdkafka's idempotent producer; ids that meanwhile
    /// appeared in the topic are left out (read again right before sending)
    #[command(after_long_help = RESOLVE_EXIT_CODES_HELP)]
    Reconcile(ResolveReconcileArgs),
}

#[derive(Debug, Args)]
pub struct ResolveReconcileArgs {
    /// The reconcile job of the config (reconcile: NAME), with a republish: section
    pub job: String,

    /// The ids to publish: the `missing` lines of a file `indoubt reconcile --ids-out`
    /// wrote (a line with no tab is an id); default: compare the job's window now
    #[arg(long, value_name = "FILE")]
    pub ids_from: Option<PathBuf>,

    /// The window's start, as `reconcile --since` (default: the job's)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// The window's end, as `reconcile --until` (default: the job's)
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// Publish each batch in one Kafka transaction (transactional.id: the job's
    /// republish: transactional_id, default indoubt-republish-JOB): read_committed
    /// consumers see a batch whole or not at all
    #[arg(long)]
    pub transactional: bool,

    #[command(flatten)]
    pub kafka: KafkaTargetArgs,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ResolveOutboxArgs {
    /// The outbox of the config (outbox: NAME), with a publish: section
    pub name: String,

    /// Publish each batch in one Kafka transaction (transactional.id: the config's
    /// publish: transactional_id, default indoubt-republish-NAME): read_committed
    /// consumers see a batch whole or not at all
    #[arg(long)]
    pub transactional: bool,

    #[command(flatten)]
    pub kafka: KafkaTargetArgs,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("action").required(true).args(["escalate", "release"]))]
pub struct ResolveSagaArgs {
    /// The saga of the config (sagas: NAME)
    pub name: String,

    /// Saga ids (--escalate) or entity ids of the lock table (--release), as `indoubt saga`
    /// names them
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// Insert each saga into the manual queue with what is known of it, unless it has an
    /// open item there
    #[arg(long)]
    pub escalate: bool,

    /// Set each entity back to the lock's released state and clear its saga, while it is
    /// still held by the same saga (and version) as read
    #[arg(long)]
    pub release: bool,

    /// The lock table of the entities (when the saga has several)
    #[arg(long, value_name = "TABLE")]
    pub lock: Option<String>,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("action").required(true).args(["resume", "cancel"]))]
pub struct ResolveDbosArgs {
    /// The application of the config (dbos: NAME)
    pub name: String,

    /// Workflow ids, as `dbos workflows` names them
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// Run them again from their last completed step (dbos workflow resume): only a
    /// process of their application version runs them
    #[arg(long)]
    pub resume: bool,

    /// Cancel them (dbos workflow cancel): their remaining steps never run
    #[arg(long)]
    pub cancel: bool,

    /// The operator's word that the process that ran these PENDING workflows is gone:
    /// DBOS keeps no liveness, and resuming a workflow whose process is alive runs it twice
    #[arg(long)]
    pub executor_gone: bool,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ResolveCamundaArgs {
    /// The engine of the config (camunda: NAME)
    pub name: String,

    /// Jobs, external tasks or incidents (an incident stands for its job or task), as
    /// `camunda incidents` names them
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// The retries to give each (0 stops a job that keeps failing: it becomes an incident)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retries: u32,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ResolveModulithArgs {
    /// The registry of the config (modulith: NAME) [default: the only one]
    pub name: Option<String>,

    /// Delete those completed longer ago than this [default: the registry's retention]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub older_than: Option<Duration>,

    /// Rows each DELETE takes (each batch commits by itself: locks are held briefly)
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub batch_size: u64,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ResolveAtArgs {
    /// The branch's global transaction: its xid, as `seata globals` shows it
    pub xid: String,

    /// The AT branch whose undo log meets the changed rows: the finding's next names it
    /// (`seata globals -o json` lists each branch's branch_id)
    #[arg(long, value_name = "ID")]
    pub branch_id: i64,

    /// What to do so that the coordinator's next retry of the rollback succeeds
    #[arg(long, value_enum, value_name = "FIX")]
    pub fix: AtFix,

    /// The coordinator of the config (seata: NAME) [default: the only one]
    #[arg(long, value_name = "NAME")]
    pub coordinator: Option<String>,

    /// Its client whose undo_log holds the branch [default: its only client with an undo_log]
    #[arg(long, value_name = "NAME")]
    pub client: Option<String>,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

/// What `resolve at` does so that a rollback held up by a dirty write can go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtFix {
    /// Set each changed row back to the branch's after image: the retry then restores
    /// the before image, and the later change is lost
    AfterImage,
    /// Delete the branch's undo log: the retry finds nothing to undo, and the later
    /// change and the branch's own both stay (settle the difference by hand)
    UndoLog,
}

#[derive(Debug, Args)]
pub struct ResolveTccArgs {
    /// The Try's global transaction: its xid, as `seata tcc` shows it
    pub xid: String,

    /// The Try's branch, as `seata tcc` shows it
    #[arg(long, value_name = "ID")]
    pub branch_id: i64,

    /// What was done by hand: its reservation released (cancelled) or kept (confirmed)
    #[arg(long = "as", value_enum, value_name = "PHASE")]
    pub phase: TccPhase,

    /// The coordinator of the config (seata: NAME) [default: the only one]
    #[arg(long, value_name = "NAME")]
    pub coordinator: Option<String>,

    /// Its client whose fence holds the Try [default: its only client with a tcc_fence_log]
    #[arg(long, value_name = "NAME")]
    pub client: Option<String>,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

/// The phase a TCC Try was given by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TccPhase {
    /// Its Cancel's work was done: the reservation is released
    Cancelled,
    /// Its Confirm's work was done: the reservation is kept
    Confirmed,
}

#[derive(Debug, Args)]
pub struct ResolveKafkaArgs {
    #[command(flatten)]
    pub target: KafkaTargetArgs,

    /// The topic of the partition the transaction is open on
    #[arg(long, value_name = "TOPIC")]
    pub topic: String,

    /// The partition the transaction is open on (as `kafka hanging` shows it)
    #[arg(long, value_name = "PARTITION")]
    pub partition: i32,

    /// The transaction's first offset (as `kafka hanging` shows it)
    #[arg(
        long,
        value_name = "OFFSET",
        required_unless_present = "producer_id",
        conflicts_with = "producer_id"
    )]
    pub start_offset: Option<i64>,

    /// Or name the producer directly (with --producer-epoch and --coordinator-epoch)
    #[arg(long, value_name = "ID", requires_all = ["producer_epoch", "coordinator_epoch"])]
    pub producer_id: Option<i64>,

    /// The producer's epoch, with --producer-id (as `kafka producers` shows it)
    #[arg(long, value_name = "EPOCH")]
    pub producer_epoch: Option<i16>,

    /// The coordinator epoch the abort marker carries, with --producer-id (as `kafka
    /// producers` shows it)
    #[arg(long, value_name = "EPOCH")]
    pub coordinator_epoch: Option<i32>,

    /// Abort even though its coordinator still owns it (it would abort it at its timeout):
    /// a recorded heuristic, with a reason
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

/// How a resolution is confirmed and recorded.
#[derive(Debug, Args)]
pub struct ConfirmArgs {
    /// Confirm without a prompt (runbooks); needs --reason
    #[arg(long)]
    pub yes: bool,

    /// Why: recorded in the audit trail (asked for at the terminal when the decision is heuristic)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    /// Ticket or incident id, recorded in the audit trail
    #[arg(long, value_name = "ID")]
    pub ticket: Option<String>,

    /// Show the evidence and the exact statement; change nothing, record nothing
    #[arg(long)]
    pub dry_run: bool,

    /// The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

/// The decision asked for of a prepared branch (`resolve pg`, `resolve mysql`).
#[derive(Debug, Args)]
pub struct DecisionArgs {
    /// Commit it
    #[arg(long, conflicts_with = "rollback")]
    pub commit: bool,

    /// Roll it back
    #[arg(long)]
    pub rollback: bool,

    /// Act against the decision the sources recorded (a heuristic that breaks atomicity)
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ResolvePgArgs {
    /// The prepared transaction's GID, exactly (any bytes; also in the escaped form tables show)
    pub gid: std::ffi::OsString,

    #[command(flatten)]
    pub target: PgTargetArgs,

    #[command(flatten)]
    pub decision: DecisionArgs,

    /// Apply the same decision to every other branch of its global transaction still
    /// prepared (this server's other databases, the resolve.participants targets), with
    /// one confirmation; each branch is checked against its own decision sources and
    /// audited on its own
    #[arg(long)]
    pub all_branches: bool,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ResolveMysqlArgs {
    /// The branch's XID: 0xGTRID-HEX,0xBQUAL-HEX,FORMATID (as next commands write it: no
    /// shell quoting needed), X'GTRID-HEX',X'BQUAL-HEX',FORMATID (as `mysql xa` and XA
    /// RECOVER FORMAT='SQL' show it) or 'gtrid','bqual',formatID (a quote doubled, a
    /// backslash literal); bqual and formatID default to '' and 1, as in XA statements
    pub xid: String,

    #[command(flatten)]
    pub target: MysqlTargetArgs,

    #[command(flatten)]
    pub decision: DecisionArgs,

    /// Apply the same decision to every other branch of its global transaction still
    /// prepared (the resolve.participants targets, PostgreSQL and MySQL), with one
    /// confirmation; each branch is checked against its own decision sources and
    /// audited on its own
    #[arg(long)]
    pub all_branches: bool,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

/// Which MySQL or MariaDB server to look at, the mysql client's way.
#[derive(Debug, Args)]
pub struct MysqlTargetArgs {
    /// A target name from the config, or a mysql://USER@HOST:PORT/DB URL (keep the password
    /// in an option file or MYSQL_PWD) [default: the config's only mysql target]
    #[arg(long, value_name = "TARGET")]
    pub mysql: Option<MysqlConn>,

    /// An option file whose [client] group gives the password, as the client's
    /// --defaults-file [default: the target's option_file, else ~/.my.cnf]
    #[arg(long, value_name = "FILE")]
    pub defaults_file: Option<PathBuf>,

    /// TLS, as the mysql client's --ssl-mode: DISABLED, PREFERRED, REQUIRED, VERIFY_CA,
    /// VERIFY_IDENTITY [default: the target's, else PREFERRED]
    #[arg(long, value_name = "MODE")]
    pub ssl_mode: Option<String>,

    /// The CA certificate VERIFY_CA and VERIFY_IDENTITY check the server's against
    #[arg(long, value_name = "FILE")]
    pub ssl_ca: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// List audit records
    #[command(after_long_help = EXIT_CODES_HELP)]
    List(AuditListArgs),
    /// Check the hash chain (edits, removals, reordering, truncation) and list intents without an outcome
    #[command(after_long_help = EXIT_CODES_HELP)]
    Verify(AuditVerifyArgs),
    /// Make a new head for a log whose head was lost, after checking the chain line by
    /// line; records who, when, why and what the old head said
    #[command(after_long_help = RESEAL_EXIT_CODES_HELP)]
    Reseal(AuditResealArgs),
}

pub const RESEAL_EXIT_CODES_HELP: &str = "\
A resealed log can no longer prove that nothing was cut off its end before the reseal;
`audit verify` names every reseal. A head one record behind (a failed head write) is
only brought up to date, with no record: nothing was lost.

Exit codes of audit reseal:
  0  resealed, head brought up to date, or nothing to do (the head matched)
  3  refused (a broken chain, a file that is a link, another user's, or writable by
     others), or the log could not be read or written; nothing was done";

#[derive(Debug, Args)]
pub struct AuditResealArgs {
    /// Why the head is being re-made (recorded in the log)
    #[arg(long, value_name = "TEXT", required = true)]
    pub reason: String,

    /// The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AuditListArgs {
    /// Only records newer than this, e.g. 24h
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<Duration>,

    /// Only records whose object contains this text
    #[arg(long, value_name = "TEXT")]
    pub object: Option<String>,

    /// The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AuditVerifyArgs {
    /// The audit log [default: config audit.path, else $XDG_STATE_HOME/indoubt/audit.jsonl]
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

/// Which Kafka cluster to look at, the way kafka tools and kcat name one.
#[derive(Debug, Args)]
pub struct KafkaTargetArgs {
    /// Bootstrap servers, host:port[,host:port…]
    #[arg(short = 'b', long = "bootstrap-server", value_name = "HOST:PORT")]
    pub bootstrap: Option<String>,

    /// A Kafka target name from the config [default: the config's only kafka target]
    #[arg(long = "kafka", value_name = "TARGET", conflicts_with = "bootstrap")]
    pub kafka: Option<String>,

    /// Client property (librdkafka names: security.protocol, sasl.mechanism, sasl.username,
    /// sasl.password, ssl.ca.location, …); repeatable; wins over the config and --command-config.
    /// An unknown name is refused. Keep secrets off the command line (ps shows it to every
    /// user): a properties file, or a value ${env:NAME} / ${file:PATH:KEY} (config.providers)
    #[arg(short = 'X', value_name = "KEY=VALUE")]
    pub properties: Vec<ClientProperty>,

    /// A properties file, like kafka tools' --command-config
    #[arg(long, value_name = "FILE")]
    pub command_config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Show the config in force: its file, every target (never a secret) and the thresholds;
    /// a target that cannot be used is UNKNOWN
    #[command(after_long_help = EXIT_CODES_HELP)]
    Show(ConfigShowArgs),
}

#[derive(Debug, Args)]
pub struct ConfigShowArgs {
    /// Connect to every target (and the postgres and kafka references of reconcile jobs,
    /// outboxes, inboxes and resolve) and report what the role or principal lacks, as the
    /// server or broker says it: pg_monitor, CONNECT on databases, catalog reads, table
    /// SELECT, Kafka ACLs; each with the GRANT or kafka-acls.sh line that gives it.
    /// Unreachable is UNKNOWN, a missing privilege that blinds a command WARNING, one
    /// that stops a reconcile job or outbox check CRITICAL
    #[arg(long)]
    pub check: bool,
}

/// Which PostgreSQL server to look at: --pg, and psql's own -h, -p, -U and -d, which
/// mean what they mean to psql and win over the settings of --pg (or the config's target).
/// -h is the host here, as in psql: help is --help.
#[derive(Debug, Args)]
pub struct PgTargetArgs {
    /// A target name from the config, a postgres:// URL or a key=value conninfo string
    /// [default: the config's only postgres target, else the PG* environment variables]
    #[arg(long, value_name = "TARGET")]
    pub pg: Option<PgConn>,

    /// The server's host name, IP address or socket directory, as psql's -h
    #[arg(short = 'h', long = "host", value_name = "HOST")]
    pub host: Option<String>,

    /// The server's port, as psql's -p
    #[arg(short = 'p', long = "port", value_name = "PORT")]
    pub port: Option<String>,

    /// The user to connect as, as psql's -U
    #[arg(short = 'U', long = "username", value_name = "USER")]
    pub username: Option<String>,

    /// The database to connect to, as psql's -d (a URL or key=value string there is the whole connection string, as --pg)
    #[arg(short = 'd', long = "dbname", value_name = "DBNAME")]
    pub dbname: Option<PgDbname>,

    /// Print help (-h is the host, as in psql)
    #[arg(long, action = clap::ArgAction::Help)]
    pub help: Option<bool>,
}
