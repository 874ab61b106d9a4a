//! `pg horizon`'s arguments, resolved into its settings: the server, how a next command
//! addresses it again, and its age, xid and wraparound pairs checked.

use crate::cli::{PgTargetArgs, EXIT_CODES_HELP};
use crate::settings::addressing::Addressing;
use crate::settings::pg::HorizonSettings;
use crate::settings::targets::Targets;
use crate::settings::{Note, Thresholds};
use crate::units::{parse_count, parse_duration};
use anyhow::Result;
use clap::Args;
use std::time::Duration;

/// Name who holds back the xmin horizon, and how far each database is from wraparound
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP, disable_help_flag = true)]
pub struct HorizonArgs {
    #[command(flatten)]
    pub target: PgTargetArgs,

    /// How long one holder may hold the horizon before a WARNING [config: thresholds.horizon.warning_age; default 1h]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warning_age: Option<Duration>,

    /// … before CRITICAL [config: thresholds.horizon.critical_age; default 6h]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub critical_age: Option<Duration>,

    /// How many xids one holder may hold the horizon back before a WARNING, e.g. 10M [config: thresholds.horizon.warning_xids; default 10M]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub warning_xids: Option<u64>,

    /// … before CRITICAL [config: thresholds.horizon.critical_xids; default 100M]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub critical_xids: Option<u64>,

    /// Database age (datfrozenxid, datminmxid) that is a WARNING [config: thresholds.wraparound.warning_xids; default 1.3B]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub wraparound_warning_xids: Option<u64>,

    /// Database age that is CRITICAL [config: thresholds.wraparound.critical_xids; default 1.4B]
    #[arg(long, value_name = "COUNT", value_parser = parse_count)]
    pub wraparound_critical_xids: Option<u64>,
}

pub fn horizon(t: &Targets, thresholds: &Thresholds, args: HorizonArgs) -> Result<HorizonSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let age = thresholds.horizon_age((args.warning_age, args.critical_age), note)?;
    let xids = thresholds.horizon_xids((args.warning_xids, args.critical_xids), note)?;
    let wraparound = thresholds.wraparound(
        (args.wraparound_warning_xids, args.wraparound_critical_xids),
        note,
    )?;
    let target = t.pg_for_server(&args.target)?;
    Ok(HorizonSettings {
        addressing: Addressing::new(&t.ctx.invocation, &args.target, &target),
        target,
        age,
        xids,
        wraparound,
    })
}
