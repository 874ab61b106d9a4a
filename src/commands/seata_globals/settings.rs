//! `seata globals`' arguments; the coordinators they name are resolved as every `seata`
//! probe's are (`seata_common::settings`).

use crate::cli::EXIT_CODES_HELP;
use crate::settings::defaults;
use clap::Args;

/// Global transactions past their timeout, given up or in an unknown status: branches, row locks held; locks of globals that are gone
#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES_HELP)]
pub struct SeataGlobalsArgs {
    /// Only this coordinator of the config (seata: NAME) [default: all of them]
    pub name: Option<String>,

    /// How many branches and locked rows of each global to list
    #[arg(long, value_name = "N", default_value_t = defaults::SEATA_SHOW.number() as usize)]
    pub show: usize,
}
