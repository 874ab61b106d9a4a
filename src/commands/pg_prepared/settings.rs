//! `pg prepared`'s arguments, resolved into its settings: the server, how a next command
//! addresses it again, the databases and the age pair checked.

use crate::cli::{PgTargetArgs, EXIT_CODES_HELP};
use crate::settings::addressing::Addressing;
use crate::settings::pg::PreparedSettings;
use crate::settings::targets::Targets;
use crate::settings::{Note, Thresholds};
use crate::units::parse_duration;
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// List prepared (two-phase) transactions: age, owner, locks, blocked sessions, decoded GID
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP, disable_help_flag = true)]
pub struct PreparedArgs {
    #[command(flatten)]
    pub target: PgTargetArgs,

    /// Only prepared transactions of this database (repeatable; -d is the database to connect to, as in psql)
    #[arg(long = "database", value_name = "NAME")]
    pub databases: Vec<String>,

    /// Age at which a prepared transaction is a WARNING [config: thresholds.prepared.warning_age; default 5m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warning_age: Option<Duration>,

    /// Age at which a prepared transaction is CRITICAL [config: thresholds.prepared.critical_age; default 30m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub critical_age: Option<Duration>,
}

pub fn prepared(
    t: &Targets,
    thresholds: &Thresholds,
    args: PreparedArgs,
) -> Result<PreparedSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.prepared((args.warning_age, args.critical_age), note)?;
    let target = t.pg_for_server(&args.target)?;
    Ok(PreparedSettings {
        addressing: Addressing::new(&t.ctx.invocation, &args.target, &target),
        target,
        databases: args.databases,
        age,
    })
}
