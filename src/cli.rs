//! Command-line definitions (clap derive). The doc comments here are the `--help` text.

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

Environment:
  INDOUBT_CONFIG   config file (default ~/.config/indoubt/config.yaml)
  PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGSSLMODE PGSSLROOTCERT PGPASSFILE
                   PostgreSQL connection defaults, as in libpq
  NO_COLOR         disable colour";

/// Find and resolve stuck distributed transactions.
///
/// indoubt inspects PostgreSQL prepared transactions (age, owner, locks, what they
/// block, decoded global transaction ids). Inspection never writes: sessions are
/// read-only, autocommit and bounded by --timeout.
#[derive(Debug, Parser)]
#[command(name = "indoubt", version, after_long_help = EXIT_CODES_HELP)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Config file [default: $INDOUBT_CONFIG, else ~/.config/indoubt/config.yaml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Output format: a table for people, json or yaml for scripts
    #[arg(long, short = 'o', global = true, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// Never use colour (also: the NO_COLOR environment variable)
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Print what is being done on stderr
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Bound on every connect and every statement, e.g. 10s, 1m30s
    #[arg(long, global = true, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub timeout: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Yaml,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect PostgreSQL
    #[command(subcommand)]
    Pg(PgCommand),
    /// Inspect the config file
    #[command(subcommand)]
    Config(ConfigCommand),
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Show the config in force: its file, every target (never a secret) and the thresholds;
    /// a target that cannot be used is UNKNOWN
    #[command(after_long_help = EXIT_CODES_HELP)]
    Show,
}

#[derive(Debug, Subcommand)]
pub enum PgCommand {
    /// List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID
    #[command(after_long_help = EXIT_CODES_HELP)]
    Prepared(PreparedArgs),
}

/// Which PostgreSQL server to look at.
#[derive(Debug, Args)]
pub struct PgTargetArgs {
    /// A target name from the config, a postgres:// URL or a key=value conninfo string
    /// [default: the config's only postgres target, else the PG* environment variables]
    #[arg(long, value_name = "TARGET")]
    pub pg: Option<String>,
}

#[derive(Debug, Args)]
pub struct PreparedArgs {
    #[command(flatten)]
    pub target: PgTargetArgs,

    /// Only prepared transactions of this database (repeatable)
    #[arg(long = "database", short = 'd', value_name = "NAME")]
    pub databases: Vec<String>,

    /// Age at which a prepared transaction is a WARNING [config: thresholds.prepared.warning_age; default 5m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warning_age: Option<Duration>,

    /// Age at which a prepared transaction is CRITICAL [config: thresholds.prepared.critical_age; default 30m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub critical_age: Option<Duration>,
}
