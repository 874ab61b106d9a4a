//! `pg slots`' arguments, resolved into its settings: the server and the retained-WAL
//! pair checked (the xmin ages are `pg horizon`'s, from the config).

use crate::cli::{PgTargetArgs, EXIT_CODES_HELP};
use crate::settings::pg::SlotsSettings;
use crate::settings::targets::Targets;
use crate::settings::{Note, Thresholds};
use crate::units::parse_size;
use anyhow::Result;
use clap::Args;

/// List replication slots: activity, retained WAL, wal_status, xmin and catalog_xmin ages
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP, disable_help_flag = true)]
pub struct SlotsArgs {
    #[command(flatten)]
    pub target: PgTargetArgs,

    /// WAL retained by an inactive slot that is a WARNING, e.g. 512MiB, 1GB [config: thresholds.slots.warning_retained; default 1GiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub warning_retained: Option<u64>,

    /// WAL retained by an inactive slot that is CRITICAL [config: thresholds.slots.critical_retained; default 10GiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub critical_retained: Option<u64>,
}

pub fn slots(t: &Targets, thresholds: &Thresholds, args: SlotsArgs) -> Result<SlotsSettings> {
    let note: Note = &|message| t.ctx.note(message);
    let retained = thresholds.slots((args.warning_retained, args.critical_retained), note)?;
    let xids = thresholds.horizon_xids((None, None), note)?;
    Ok(SlotsSettings {
        target: t.pg_for_server(&args.target)?,
        retained,
        xids,
    })
}
