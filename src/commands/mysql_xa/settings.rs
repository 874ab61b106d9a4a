//! `mysql xa`'s arguments, resolved into its settings: the server, how next commands
//! address it, and the age and history-list pairs checked.

use crate::cli::{MysqlTargetArgs, EXIT_CODES_HELP};
use crate::settings::mysql::{addressing, MysqlXaSettings};
use crate::settings::targets::Targets;
use crate::settings::{Note, Thresholds};
use crate::units::{parse_count, parse_duration};
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// List prepared XA branches (XA RECOVER): age, locks, blocked sessions, decoded XID;
/// and the history list that purge has not removed, with the oldest transaction
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct MysqlXaArgs {
    #[command(flatten)]
    pub target: MysqlTargetArgs,

    /// Age at which a prepared branch is a WARNING [config: thresholds.prepared.warning_age; default 5m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warning_age: Option<Duration>,

    /// Age at which a prepared branch is CRITICAL [config: thresholds.prepared.critical_age; default 30m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub critical_age: Option<Duration>,

    /// History list length that is a WARNING [config: thresholds.purge.warning_history_length; default 100k]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub warning_history_length: Option<u64>,

    /// History list length that is CRITICAL [config: thresholds.purge.critical_history_length; default 1M]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub critical_history_length: Option<u64>,
}

pub fn xa(t: &Targets, thresholds: &Thresholds, args: MysqlXaArgs) -> Result<MysqlXaSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.prepared((args.warning_age, args.critical_age), note)?;
    let history = thresholds.purge(
        (args.warning_history_length, args.critical_history_length),
        note,
    )?;
    let target = t.mysql_for(&args.target)?;
    Ok(MysqlXaSettings {
        addressing: addressing(t, &args.target, &target),
        target,
        age,
        history,
    })
}
